// The server's lifecycle: find the binary, start `context-ls serve` under
// vscode-languageclient, keep its settings in sync, restart on demand, and
// expose it to the commands as a ContextClient.

import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { ContextClient } from './commands';
import { answerConfiguration, ConfigReader, initializationOptions, SECTION, SERVER_KEYS, serverPathSetting, serverSettings } from './config';
import { ProgressValue } from './protocol';
import { errorMessage, serverWords } from './render';
import { hostEnv, INSTALL_URL, resolveServerPath } from './serverPath';
import { StatusBar } from './status';

/** The arguments the server is started with. */
export const SERVER_ARGS = ['serve'] as const;

/** Buttons of the server-missing notification. */
export const MissingButtons = { install: 'Install Instructions', settings: 'Open Settings' } as const;

/**
 * Why the server did not start, as a reason: no "context-ls:" prefix, which
 * the messages that show a reason add once.
 */
export function startFailed(err: unknown): string {
  return `starting the server failed: ${serverWords(err) || 'unknown error'}`;
}

/** The contextLs configuration for a scope. */
export function readerFor(scope?: vscode.Uri): ConfigReader {
  return vscode.workspace.getConfiguration(SECTION, scope ?? null);
}

/** Starts, stops and talks to the language server. */
export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private clientSubs: vscode.Disposable[] = [];
  private reason = 'the server is starting';
  private readonly subs: vscode.Disposable[] = [];
  private starting: Promise<void> | undefined;
  private binary: string | undefined;
  private readonly startedE = new vscode.EventEmitter<void>();
  /** Fires each time a server is up and answering. */
  readonly onDidStart = this.startedE.event;

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly status: StatusBar,
    /** The extension's directory, where a platform package carries the server. */
    private readonly extensionDir?: string,
  ) {
    this.subs.push(vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)));
  }

  /** The running client as the commands use it. */
  contextClient(): ContextClient | undefined {
    const c = this.client;
    if (c === undefined || c.state !== State.Running) {
      return undefined;
    }
    return {
      execute: <T>(command: string, args: object | undefined, token?: vscode.CancellationToken): Promise<T> =>
        c.sendRequest(ExecuteCommandRequest.type, { command, arguments: args === undefined ? [] : [args] }, token) as Promise<T>,
      uriOf: (uri: vscode.Uri) => c.code2ProtocolConverter.asUri(uri),
    };
  }

  /** The binary the server was last started from (undefined when none was found). */
  serverPath(): string | undefined {
    return this.binary;
  }

  /** Why contextClient() is undefined. */
  unavailableReason(): string {
    return this.client?.state === State.Starting ? 'the server is still starting; try again in a moment' : this.reason;
  }

  /** Starts the server (once at a time). */
  start(): Promise<void> {
    if (this.starting === undefined) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    // In an untrusted workspace VS Code answers serverPath from the user settings
    // only (restrictedConfigurations in package.json).
    const setting = serverPathSetting(readerFor());
    const found = resolveServerPath(setting, hostEnv(folders, this.extensionDir));
    this.binary = found.ok ? found.path : undefined;
    if (!found.ok) {
      this.reason = found.message;
      this.status.setServer('missing', found.message);
      this.output.appendLine(found.message);
      void vscode.window
        .showErrorMessage(`context-ls: ${found.message}`, MissingButtons.install, MissingButtons.settings)
        .then((pick) => {
          if (pick === MissingButtons.install) {
            void vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
          } else if (pick === MissingButtons.settings) {
            void vscode.commands.executeCommand('workbench.action.openSettings', 'contextLs.serverPath');
          }
        });
      return;
    }
    this.output.appendLine(`starting ${found.path} ${SERVER_ARGS.join(' ')} (found via ${found.source})`);
    // The command line is exactly SERVER_ARGS: with no transport given, the
    // language client talks over the process's stdin and stdout and adds no
    // flag of its own (with TransportKind.stdio it would append --stdio,
    // which the server accepts only since the flag was added), so any
    // context-ls binary starts.
    const exe = { command: found.path, args: [...SERVER_ARGS] };
    const serverOptions: ServerOptions = { run: exe, debug: exe };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: initializationOptions(readerFor()),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        handleWorkDoneProgress: (token, params, next) => {
          this.status.progress(token, params as ProgressValue);
          // The status bar item shows the operation; the client's own window
          // progress would show it a second time. Its end still goes through
          // so that the client releases the token.
          if (params.kind === 'end') {
            next(token, params);
          }
        },
        workspace: {
          configuration: async (params, token, next) => {
            const base = await next(params, token);
            if (base instanceof ResponseError) {
              return base;
            }
            return answerConfiguration(
              params.items,
              (scope) => readerFor(scope === undefined ? undefined : vscode.Uri.parse(scope)),
              (_item, i) => base[i],
            );
          },
        },
      },
      initializationFailedHandler: (err) => {
        this.reason = startFailed(err);
        void vscode.window.showErrorMessage(`context-ls: ${this.reason}`);
        return false;
      },
    };
    const client = new LanguageClient('contextLs', 'context-ls', serverOptions, clientOptions);
    this.client = client;
    this.clientSubs.push(
      client.onDidChangeState((e) => {
        if (this.client !== client) {
          return;
        }
        if (e.newState === State.Running) {
          this.status.setServer('running');
          this.startedE.fire();
        } else if (e.newState === State.Starting) {
          this.status.setServer('starting');
        } else {
          this.status.setServer('stopped', this.reason === 'the server is starting' ? '' : this.reason);
        }
      }),
    );
    this.status.setServer('starting');
    try {
      await client.start();
      this.reason = 'the server is not running (Context: Restart Server starts it)';
    } catch (err) {
      this.reason = startFailed(err);
      this.status.setServer('stopped', this.reason);
      this.output.appendLine(this.reason);
    }
  }

  /** Stops the server if it runs. */
  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.clientSubs.forEach((d) => d.dispose());
    this.clientSubs = [];
    if (c !== undefined && c.state !== State.Stopped) {
      try {
        await c.stop(5000);
      } catch (err) {
        this.output.appendLine(errorMessage('stopping the server', err));
      }
    }
    this.reason = 'the server is not running (Context: Restart Server starts it)';
  }

  /** Stops and starts the server (the binary is resolved again). */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  private configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration(SECTION)) {
      return;
    }
    if (e.affectsConfiguration(`${SECTION}.serverPath`)) {
      if (this.binary === undefined && this.client === undefined && this.starting === undefined) {
        // No server because none was found: try the new path at once
        // (also when the settings reach the extension host after its
        // activation, as a slow remote window's can).
        void this.start();
        return;
      }
      void vscode.window.showInformationMessage('context-ls: the server path changed.', 'Restart Server').then((pick) => {
        if (pick === 'Restart Server') {
          void this.restart();
        }
      });
    }
    const c = this.client;
    if (c !== undefined && c.state === State.Running && SERVER_KEYS.some((k) => e.affectsConfiguration(`${SECTION}.${k}`))) {
      c.sendNotification(DidChangeConfigurationNotification.type, { settings: serverSettings(readerFor()) }).catch((err) =>
        this.output.appendLine(errorMessage('sending settings', err)),
      );
    }
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this.startedE.dispose();
    void this.stop();
  }
}

