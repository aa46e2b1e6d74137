// Entry point of the context-ls VS Code extension: wires the status bar,
// the stats document, the side panel's views (results, context pack,
// pins), the server controller and the commands.

import * as vscode from 'vscode';
import { CommandDeps, ExtensionCommands, registerCommands } from './commands';
import { registerOpenResult } from './nodeTree';
import { PackPreview } from './packView';
import { PinsView } from './pinsView';
import { ResultsView } from './resultsView';
import { readerFor, ServerController } from './server';
import { Commands, StatsAnswer } from './protocol';
import { SCHEME, StatsDocument } from './statsDocument';
import { StatusBar } from './status';

let controller: ServerController | undefined;

/** Activates the extension: starts the server and registers the commands. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('context-ls');
  const statsDoc = new StatsDocument();
  const status = new StatusBar(() => {
    const c = controller?.contextClient();
    return c === undefined ? undefined : c.execute<StatsAnswer>(Commands.stats, undefined);
  });
  const ctl = new ServerController(output, status, context.extensionPath);
  controller = ctl;
  const results = new ResultsView();
  // Pin, Unpin and the views' own actions fire it; the pins view lists the
  // pins again and the pack preview builds its pack again.
  const pinsChanged = new vscode.EventEmitter<void>();
  const deps: CommandDeps = {
    client: () => ctl.contextClient(),
    unavailableReason: () => ctl.unavailableReason(),
    config: () => readerFor(),
    showStatsDocument: (md) => statsDoc.show(md),
    refreshStatus: () => status.refreshSoon(),
    onDidEndProgress: status.onDidEndProgress,
    serverPath: () => ctl.serverPath(),
    showResults: (title, nodes) => results.show(title, nodes),
    pinsChanged: () => pinsChanged.fire(),
  };
  const pins = new PinsView(deps, pinsChanged.event);
  context.subscriptions.push(
    output,
    statsDoc,
    status,
    results,
    pinsChanged,
    pins,
    new PackPreview(deps, pinsChanged.event),
    ctl,
    ctl.onDidStart(() => void pins.refresh()),
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, statsDoc),
    vscode.commands.registerCommand(ExtensionCommands.restartServer, () => ctl.restart()),
    registerOpenResult(),
    ...registerCommands(deps),
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
