// The results view in the context-ls side panel: a tree that stays after
// the command that filled it (unlike a picker or a peek), each item opening
// its location on click. Further views of the panel (the pins, the pack
// preview) are declared beside it in package.json.

import * as vscode from 'vscode';
import { ExtensionCommands } from './commands';
import { toLocation } from './convert';
import { Location } from './protocol';
import { ResultNode } from './results';

/** The view's id (package.json contributes.views.contextLs). */
export const RESULTS_VIEW = 'contextLs.results';


/** Shows ResultNodes in the results view. */
export class ResultsView implements vscode.TreeDataProvider<ResultNode>, vscode.Disposable {
  private roots: ResultNode[] = [];
  private readonly changed = new vscode.EventEmitter<ResultNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<ResultNode>;
  private readonly subs: vscode.Disposable[] = [];

  constructor() {
    this.view = vscode.window.createTreeView(RESULTS_VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.subs.push(
      this.view,
      vscode.commands.registerCommand(ExtensionCommands.openResult, (loc: Location) => openResult(loc)),
      vscode.commands.registerCommand(ExtensionCommands.clearResults, () => this.clear()),
    );
  }

  /** Replaces the tree, names what it is about and brings the view forward. */
  async show(title: string, roots: ResultNode[]): Promise<void> {
    this.roots = roots;
    this.view.description = title;
    // A hidden view fetches its items when it is shown: a change event as
    // well would fetch them twice, and a click on an item of the first
    // fetch would then find its command gone.
    if (this.view.visible) {
      this.changed.fire(undefined);
    }
    await vscode.commands.executeCommand(`${RESULTS_VIEW}.focus`);
  }

  /** Empties the view. */
  clear(): void {
    this.roots = [];
    this.view.description = undefined;
    this.changed.fire(undefined);
  }

  getTreeItem(node: ResultNode): vscode.TreeItem {
    const state =
      node.children === undefined || node.children.length === 0
        ? vscode.TreeItemCollapsibleState.None
        : node.location === undefined
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed;
    const item = new vscode.TreeItem(node.label, state);
    item.description = node.description;
    item.tooltip = node.tooltip;
    if (node.icon !== undefined) {
      item.iconPath = new vscode.ThemeIcon(node.icon);
    }
    if (node.location !== undefined) {
      item.command = { command: ExtensionCommands.openResult, title: 'Open', arguments: [node.location] };
    }
    return item;
  }

  getChildren(node?: ResultNode): ResultNode[] {
    return node === undefined ? this.roots : (node.children ?? []);
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this.changed.dispose();
  }
}

/** Opens a result's location with its range selected. */
async function openResult(loc: Location): Promise<void> {
  const l = toLocation(loc);
  await vscode.window.showTextDocument(l.uri, { selection: new vscode.Range(l.range.start, l.range.start), preview: true });
}
