// The results view in the context-ls side panel: a tree that stays after
// the command that filled it (unlike a picker or a peek), each item opening
// its location on click. The panel's other views, the context pack preview
// (packView.ts) and the pins (pinsView.ts), are declared beside it in
// package.json.

import * as vscode from 'vscode';
import { ExtensionCommands } from './commands';
import { NodeTree } from './nodeTree';
import { ResultNode } from './results';

/** The view's id (package.json contributes.views.contextLs). */
export const RESULTS_VIEW = 'contextLs.results';

/** Shows ResultNodes in the results view. */
export class ResultsView implements vscode.Disposable {
  private readonly tree = new NodeTree<unknown>(RESULTS_VIEW);
  private readonly subs: vscode.Disposable[] = [];

  constructor() {
    this.subs.push(this.tree, vscode.commands.registerCommand(ExtensionCommands.clearResults, () => this.clear()));
  }

  /** Replaces the tree, names what it is about and brings the view forward. */
  async show(title: string, roots: ResultNode[]): Promise<void> {
    this.tree.set(roots);
    this.tree.view.description = title;
    await this.tree.focus();
  }

  /** Empties the view. */
  clear(): void {
    this.tree.set([]);
    this.tree.view.description = undefined;
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
  }
}
