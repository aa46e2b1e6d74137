// The trees of the context-ls side panel (results, context pack, pins):
// ResultNodes shown in a view, each opening its location on click, with the
// node's contextValue deciding which of the view's actions it offers.

import * as vscode from 'vscode';
import { toLocation } from './convert';
import { Location } from './protocol';
import { ResultNode } from './results';

/** The command a click on a node runs (package.json contributes.commands). */
export const OPEN_RESULT = 'contextLs.openResult';

/** Shows a tree of ResultNodes in one view. */
export class NodeTree<T> implements vscode.TreeDataProvider<ResultNode<T>>, vscode.Disposable {
  private roots: ResultNode<T>[] = [];
  /** The view holds roots it fetched before the last set (shown once, maybe collapsed since). */
  private fetched = false;
  private readonly changed = new vscode.EventEmitter<ResultNode<T> | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<ResultNode<T>>;

  constructor(readonly id: string) {
    this.view = vscode.window.createTreeView(id, { treeDataProvider: this, showCollapseAll: true });
  }

  /** The nodes shown. */
  nodes(): ResultNode<T>[] {
    return this.roots;
  }

  /** Replaces the tree. */
  set(roots: ResultNode<T>[]): void {
    this.roots = roots;
    // A view never shown fetches its items when it is shown: a change
    // event as well would fetch them twice, and a click on an item of the
    // first fetch would then find its command gone. A view that fetched
    // before keeps what it fetched, even collapsed, until it is told.
    const told = this.fetched || this.view.visible;
    this.fetched = false;
    if (told) {
      this.changed.fire(undefined);
    }
  }

  /** Brings the view forward (opening the side panel). */
  async focus(): Promise<void> {
    await vscode.commands.executeCommand(`${this.id}.focus`);
  }

  getTreeItem(node: ResultNode<T>): vscode.TreeItem {
    return treeItem(node);
  }

  getChildren(node?: ResultNode<T>): ResultNode<T>[] {
    if (node === undefined) {
      this.fetched = true;
      return this.roots;
    }
    return node.children ?? [];
  }

  dispose(): void {
    this.view.dispose();
    this.changed.dispose();
  }
}

/** The tree item of a node: groups open, a node with a location opens it on click. */
export function treeItem(node: ResultNode<unknown>): vscode.TreeItem {
  const state =
    node.children === undefined || node.children.length === 0
      ? vscode.TreeItemCollapsibleState.None
      : node.location === undefined
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed;
  const item = new vscode.TreeItem(node.label, state);
  item.description = node.description;
  item.tooltip = node.tooltip;
  item.contextValue = node.contextValue;
  if (node.icon !== undefined) {
    item.iconPath = new vscode.ThemeIcon(node.icon);
  }
  if (node.location !== undefined) {
    item.command = { command: OPEN_RESULT, title: 'Open', arguments: [node.location] };
  }
  return item;
}

/** The location an Open command was given: a location (a click) or a node (its context menu). */
export function locationOf(arg: Location | ResultNode<unknown> | undefined): Location | undefined {
  if (arg === undefined || arg === null) {
    return undefined;
  }
  if ('uri' in arg && 'range' in arg) {
    return arg;
  }
  return (arg as ResultNode<unknown>).location;
}

/** Opens a location in the editor with the cursor at its start. */
export async function openLocation(loc: Location): Promise<void> {
  const l = toLocation(loc);
  await vscode.window.showTextDocument(l.uri, { selection: new vscode.Range(l.range.start, l.range.start), preview: true });
}

/** Registers the Open command every tree's nodes use. */
export function registerOpenResult(): vscode.Disposable {
  return vscode.commands.registerCommand(OPEN_RESULT, async (arg: Location | ResultNode<unknown> | undefined) => {
    const loc = locationOf(arg);
    if (loc !== undefined) {
      await openLocation(loc);
    }
  });
}
