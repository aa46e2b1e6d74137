// Entry point of the context-ls VS Code extension: wires the status bar,
// the stats document, the server controller and the commands.

import * as vscode from 'vscode';
import { ExtensionCommands, registerCommands } from './commands';
import { readerFor, ServerController } from './server';
import { Commands, StatsResult } from './protocol';
import { SCHEME, StatsDocument } from './statsDocument';
import { StatusBar } from './status';

let controller: ServerController | undefined;

/** Activates the extension: starts the server and registers the commands. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('context-ls');
  const statsDoc = new StatsDocument();
  const status = new StatusBar(() => {
    const c = controller?.contextClient();
    return c === undefined ? undefined : c.execute<StatsResult>(Commands.stats, undefined);
  });
  const ctl = new ServerController(output, status);
  controller = ctl;
  context.subscriptions.push(
    output,
    statsDoc,
    status,
    ctl,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, statsDoc),
    vscode.commands.registerCommand(ExtensionCommands.restartServer, () => ctl.restart()),
    ...registerCommands({
      client: () => ctl.contextClient(),
      unavailableReason: () => ctl.unavailableReason(),
      config: () => readerFor(),
      showStatsDocument: (md) => statsDoc.show(md),
      refreshStatus: () => status.refreshSoon(),
    }),
  );
  await ctl.start();
}

/** Stops the server. */
export async function deactivate(): Promise<void> {
  const ctl = controller;
  controller = undefined;
  if (ctl !== undefined) {
    await ctl.stop();
  }
}
