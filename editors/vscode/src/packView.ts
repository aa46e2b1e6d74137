// The Context Pack view: a pack built for the selection or a query, shown
// item by item before it is copied. Each item can be dropped (the pack is
// built again without it, its tokens going to the next candidates), pinned
// or opened; the budget can be changed; then the pack is copied or
// inserted at the cursor of the editor the preview came from.

import * as vscode from 'vscode';
import { packArgsForSelection } from './args';
import { askPackQuery, CommandDeps, copyPackText, ExtensionCommands, needClient, offerQuery, showError } from './commands';
import { packFormat } from './config';
import { editorState } from './convert';
import { NodeTree } from './nodeTree';
import { budgetProblem, dropItem, MAX_BUDGET, MIN_BUDGET, packArgs, packDescription, PackRequest, packText, packTree, PackValue, parseBudget, restoreItem, withBudget } from './pack';
import { pinItemArgs } from './pins';
import { Commands, PackAnswer, PackArgs, PinsAnswer } from './protocol';
import { num, packSummary, pinsSummary } from './render';
import { ResultNode } from './results';

/** The view's id (package.json contributes.views.contextLs). */
export const PACK_VIEW = 'contextLs.pack';

/** The context key that is set while the view shows a pack (its title actions need one). */
export const PACK_SHOWN = 'contextLs.packShown';

/** The button that opens Preview Context for Query when no file editor is active. */
export const ASK_PREVIEW_QUERY = 'Preview Context for Query…';

/** What the preview needs from the extension. */
export type PackViewDeps = Pick<CommandDeps, 'client' | 'unavailableReason' | 'config' | 'pinsChanged'>;

/** The pack shown and the request that built it. */
interface Shown {
  req: PackRequest;
  res: PackAnswer;
}

/** The Context Pack view and its commands. */
export class PackPreview implements vscode.Disposable {
  private readonly tree = new NodeTree<PackValue>(PACK_VIEW);
  private readonly subs: vscode.Disposable[] = [];
  private shown: Shown | undefined;
  /** The request of the newest build (the next action builds on it, even before its answer). */
  private wanted: PackRequest | undefined;
  /** The document the preview came from (Insert at Cursor goes there). */
  private source: vscode.Uri | undefined;
  /** Counts builds: the answers of all but the newest are dropped. */
  private latest = 0;

  constructor(
    private readonly deps: PackViewDeps,
    onPinsChanged: vscode.Event<void>,
  ) {
    const reg = (id: string, fn: (node?: ResultNode<PackValue>) => Promise<void>) => vscode.commands.registerCommand(id, fn);
    this.subs.push(
      this.tree,
      reg(ExtensionCommands.previewContextForSelection, () => this.previewSelection()),
      reg(ExtensionCommands.previewContextForQuery, () => this.previewQuery()),
      reg(ExtensionCommands.packDrop, (n) => this.drop(n)),
      reg(ExtensionCommands.packPutBack, (n) => this.putBack(n)),
      reg(ExtensionCommands.packPin, (n) => this.pin(n)),
      reg(ExtensionCommands.packBudget, () => this.changeBudget()),
      reg(ExtensionCommands.packCopy, () => this.copy()),
      reg(ExtensionCommands.packInsert, () => this.insert()),
      reg(ExtensionCommands.packRefresh, () => this.refresh()),
      onPinsChanged(() => {
        if (this.shown !== undefined) {
          void this.build(this.wanted ?? this.shown.req, 'Refresh');
        }
      }),
    );
  }

  /** Context: Preview Context for Selection. */
  async previewSelection(): Promise<void> {
    const client = needClient(this.deps);
    if (client === undefined) {
      return;
    }
    const editor = vscode.window.activeTextEditor;
    const st = editorState(editor, (u) => client.uriOf(u));
    if (st === undefined || editor === undefined) {
      if (await offerQuery(ASK_PREVIEW_QUERY)) {
        await this.previewQuery();
      }
      return;
    }
    await this.start(packArgsForSelection(st, { format: packFormat(this.deps.config()) }), editor.document.uri, 'Preview Context for Selection');
  }

  /** Context: Preview Context for Query…. */
  async previewQuery(): Promise<void> {
    if (needClient(this.deps) === undefined) {
      return;
    }
    const source = vscode.window.activeTextEditor?.document.uri;
    const args = await askPackQuery('Preview Context for Query', this.deps);
    if (args !== undefined) {
      await this.start(args, source, 'Preview Context for Query');
    }
  }

  /** A new preview: the budget of the settings, nothing dropped. */
  private async start(base: PackArgs, source: vscode.Uri | undefined, what: string): Promise<void> {
    if (await this.build({ base, exclude: [] }, what)) {
      this.source = source;
      await this.tree.focus();
    }
  }

  /**
   * Builds the pack a request asks for and shows it; false when it failed
   * (the error is shown and the view keeps the pack it had) or a newer
   * request overtook it.
   */
  private async build(req: PackRequest, what: string): Promise<boolean> {
    const client = needClient(this.deps);
    if (client === undefined) {
      return false;
    }
    const mine = ++this.latest;
    this.wanted = req;
    let res: PackAnswer;
    try {
      res = await vscode.window.withProgress({ location: { viewId: PACK_VIEW } }, (_p, token) =>
        client.execute<PackAnswer>(Commands.pack, packArgs(req), token),
      );
    } catch (err) {
      if (mine === this.latest) {
        this.wanted = this.shown?.req;
        showError(what, err);
      }
      return false;
    }
    if (mine !== this.latest) {
      return false;
    }
    this.shown = { req, res };
    this.tree.set(packTree(res, req));
    this.tree.view.description = packDescription(res, req.base);
    void vscode.commands.executeCommand('setContext', PACK_SHOWN, true);
    return true;
  }

  /**
   * The pack shown with the request the next action builds on (that of a
   * build still running, if any), or undefined after saying there is none.
   */
  private current(): Shown | undefined {
    if (this.shown === undefined) {
      void vscode.window.showInformationMessage('context-ls: no pack is shown; run Context: Preview Context for Selection first.');
      return undefined;
    }
    return { req: this.wanted ?? this.shown.req, res: this.shown.res };
  }

  /** Drop: the pack again without the item, its tokens going to the next candidates. */
  async drop(node: ResultNode<PackValue> | undefined): Promise<void> {
    const cur = this.current();
    if (cur === undefined || node?.value === undefined || !('item' in node.value)) {
      return;
    }
    await this.build(dropItem(cur.req, node.value.item), 'Drop');
  }

  /** Put Back: the pack again with a dropped item among the candidates. */
  async putBack(node: ResultNode<PackValue> | undefined): Promise<void> {
    const cur = this.current();
    if (cur === undefined || node?.value === undefined || !('dropped' in node.value)) {
      return;
    }
    await this.build(restoreItem(cur.req, node.value.dropped), 'Put Back');
  }

  /** Pin: every pack includes the item's lines from now on; the views follow. */
  async pin(node: ResultNode<PackValue> | undefined): Promise<void> {
    const client = needClient(this.deps);
    if (client === undefined || node?.value === undefined || !('item' in node.value)) {
      return;
    }
    try {
      const res = await client.execute<PinsAnswer>(Commands.pin, pinItemArgs(node.value.item));
      void vscode.window.showInformationMessage(`context-ls: ${pinsSummary('pin', res)}`);
    } catch (err) {
      showError('Pin', err);
      return;
    }
    this.deps.pinsChanged(); // refreshes this view too
  }

  /** Change Budget: asks for a budget and builds the pack for it. */
  async changeBudget(): Promise<void> {
    const cur = this.current();
    if (cur === undefined) {
      return;
    }
    const typed = await vscode.window.showInputBox({
      title: 'Context Pack Budget',
      prompt: `Tokens the pack may use, ${num(MIN_BUDGET)} to ${num(MAX_BUDGET)} (now ${num(cur.res.tokens)} of ${num(cur.res.budget)} used).`,
      value: String(cur.res.budget),
      validateInput: budgetProblem,
    });
    const budget = typed === undefined ? undefined : parseBudget(typed);
    const now = budget === undefined ? undefined : this.current();
    if (budget !== undefined && now !== undefined) {
      await this.build(withBudget(now.req, budget), 'Change Budget');
    }
  }

  /** Copy: the pack shown to the clipboard, with the tokens used against the budget. */
  async copy(): Promise<void> {
    const cur = this.current();
    if (cur !== undefined) {
      await copyPackText(cur.res);
    }
  }

  /** Insert at Cursor: the pack shown into the editor the preview came from (or the active one). */
  async insert(): Promise<void> {
    const cur = this.current();
    if (cur === undefined) {
      return;
    }
    const text = packText(cur.res);
    if (text === '' || (cur.res.items ?? []).length === 0) {
      void vscode.window.showWarningMessage('context-ls: nothing relevant was found; nothing was inserted.');
      return;
    }
    const src = this.source;
    let editor =
      src === undefined
        ? vscode.window.activeTextEditor
        : vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === src.toString());
    if (editor === undefined && src !== undefined) {
      editor = await vscode.window.showTextDocument(src, { preview: false });
    }
    if (editor === undefined) {
      void vscode.window.showInformationMessage('context-ls: open an editor to insert the pack into.');
      return;
    }
    const at = editor.selection.active;
    const target = editor;
    if (!(await target.edit((b) => b.insert(at, text)))) {
      void vscode.window.showErrorMessage(`context-ls: Insert at Cursor failed: ${target.document.uri.fsPath || 'the editor'} did not take the text.`);
      return;
    }
    await vscode.window.showTextDocument(target.document, { viewColumn: target.viewColumn, preserveFocus: false });
    void vscode.window.showInformationMessage(packSummary(cur.res, 'inserted'));
  }

  /** Refresh: the same request again (the code or the pins may have changed). */
  async refresh(): Promise<void> {
    const cur = this.current();
    if (cur !== undefined) {
      await this.build(cur.req, 'Refresh');
    }
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
  }
}
