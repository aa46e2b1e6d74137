// The Pins view: what every context pack includes, per workspace folder,
// with the tokens each pin adds (or why its file cannot be read). Pins are
// listed again whenever they change (Pin, Unpin, the pack preview's Pin,
// this view's Unpin and Clear All), when the server starts and when the
// view is shown after a change it missed.

import * as vscode from 'vscode';
import { CommandDeps, ExtensionCommands, needClient, showError } from './commands';
import { NodeTree } from './nodeTree';
import { FolderPins, pinLabel, pinPlace, pinsDescription, pinsToKeep, pinsTree, PinValue } from './pins';
import { Commands, PinsAnswer } from './protocol';
import { notPinnedMessage, num, serverWords } from './render';
import { ResultNode } from './results';

/** The view's id (package.json contributes.views.contextLs). */
export const PINS_VIEW = 'contextLs.pins';

/** The confirm button of Clear All. */
export const CLEAR_ALL = 'Clear All';

/** The confirm button of unpinning a pin whose file is gone. */
export const CLEAR_AND_REPIN = 'Clear and Pin the Others Again';

/** What the view needs from the extension. */
export type PinsViewDeps = Pick<CommandDeps, 'client' | 'unavailableReason' | 'pinsChanged'>;

/** The Pins view and its commands. */
export class PinsView implements vscode.Disposable {
  private readonly tree = new NodeTree<PinValue>(PINS_VIEW);
  private readonly subs: vscode.Disposable[] = [];
  private folders: FolderPins[] = [];
  /** Pins changed while the view was hidden: list them when it is shown. */
  private stale = true;
  private latest = 0;

  constructor(
    private readonly deps: PinsViewDeps,
    onPinsChanged: vscode.Event<void>,
  ) {
    const reg = (id: string, fn: (node?: ResultNode<PinValue>) => Promise<void>) => vscode.commands.registerCommand(id, fn);
    this.subs.push(
      this.tree,
      reg(ExtensionCommands.pinsUnpin, (n) => this.unpin(n)),
      reg(ExtensionCommands.pinsClearAll, () => this.clearAll()),
      reg(ExtensionCommands.pinsRefresh, () => this.load()),
      onPinsChanged(() => void this.refresh()),
      this.tree.view.onDidChangeVisibility((e) => {
        if (e.visible && this.stale) {
          void this.load();
        }
      }),
    );
  }

  /** Lists the pins again now if the view is visible, else when it is shown. */
  async refresh(): Promise<void> {
    this.stale = true;
    if (this.tree.view.visible) {
      await this.load();
    }
  }

  /** The pins listed, per folder. */
  listed(): FolderPins[] {
    return this.folders;
  }

  /** Lists every workspace folder's pins. */
  async load(): Promise<void> {
    const mine = ++this.latest;
    this.stale = false;
    const wsFolders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    const client = this.deps.client();
    let all: FolderPins[];
    if (client === undefined) {
      const why = this.deps.unavailableReason();
      all = wsFolders.map((f) => ({ folder: { uri: f.uri.toString(), name: f.name }, error: why }));
      this.stale = true; // listed again when the server starts
    } else {
      all = await vscode.window.withProgress({ location: { viewId: PINS_VIEW } }, () =>
        Promise.all(
          wsFolders.map(async (f): Promise<FolderPins> => {
            const folder = { uri: f.uri.toString(), name: f.name };
            try {
              const res = await client.execute<PinsAnswer>(Commands.pins, { folder: client.uriOf(f.uri) });
              return { folder, serverFolder: res.folder, pins: res.pins ?? [] };
            } catch (err) {
              return { folder, error: serverWords(err) };
            }
          }),
        ),
      );
    }
    if (mine !== this.latest) {
      return;
    }
    this.folders = all;
    this.tree.set(pinsTree(all));
    this.tree.view.description = pinsDescription(all);
  }

  /**
   * Unpin: removes one pin. The language server maps a range through its
   * file, so lines pinned in a file that is gone cannot be unpinned alone:
   * then, once confirmed, every pin of the folder is cleared and the others
   * are pinned again.
   */
  async unpin(node: ResultNode<PinValue> | undefined): Promise<void> {
    const client = needClient(this.deps);
    if (client === undefined || node?.value === undefined) {
      return;
    }
    const { pin } = node.value;
    try {
      await client.execute<PinsAnswer>(Commands.unpin, pinPlace(pin));
    } catch (err) {
      if (pin.error !== undefined && pin.error !== '') {
        if (!(await this.unpinGone(node.value))) {
          return;
        }
      } else {
        // Unpinned elsewhere since the view was listed: say so, and list again.
        const plain = notPinnedMessage(err);
        if (plain !== undefined) {
          void vscode.window.showInformationMessage(plain);
        } else {
          showError('Unpin', err);
        }
      }
    }
    this.deps.pinsChanged();
  }

  /**
   * Removes a pin whose file is gone: clears the folder's pins and pins the
   * others again, once confirmed; false when nothing was changed.
   */
  private async unpinGone({ pin, folder }: PinValue): Promise<boolean> {
    const client = needClient(this.deps);
    if (client === undefined) {
      return false;
    }
    const keep = pinsToKeep(folder.pins ?? [], pin);
    const lost = (folder.pins ?? []).length - 1 - keep.length;
    const answer = await vscode.window.showWarningMessage(
      `${pinLabel(pin)} cannot be unpinned alone while its file is gone (${pin.error}). Clear all pins of ${folder.folder.name} and pin the ${num(keep.length)} other${keep.length === 1 ? '' : 's'} again?` +
        (lost > 0 ? ` ${num(lost)} other pin${lost === 1 ? '' : 's'} whose files are gone go too.` : ''),
      { modal: true },
      CLEAR_AND_REPIN,
    );
    if (answer !== CLEAR_AND_REPIN) {
      return false;
    }
    try {
      await client.execute<PinsAnswer>(Commands.unpin, { all: true, folder: folder.serverFolder ?? folder.folder.uri });
    } catch (err) {
      showError('Unpin', err);
      return false;
    }
    const failed: string[] = [];
    for (const p of keep) {
      try {
        await client.execute<PinsAnswer>(Commands.pin, pinPlace(p));
      } catch (err) {
        failed.push(`${pinLabel(p)} (${serverWords(err)})`);
      }
    }
    if (failed.length > 0) {
      void vscode.window.showErrorMessage(`context-ls: these pins could not be pinned again: ${failed.join('; ')}`);
    }
    return true;
  }

  /** Clear All: removes every pin of every folder, once confirmed. */
  async clearAll(): Promise<void> {
    const client = needClient(this.deps);
    if (client === undefined) {
      return;
    }
    await this.load();
    const withPins = this.folders.filter((f) => (f.pins ?? []).length > 0);
    const count = withPins.reduce((n, f) => n + (f.pins ?? []).length, 0);
    if (count === 0) {
      void vscode.window.showInformationMessage('context-ls: nothing is pinned.');
      return;
    }
    const where = withPins.length === 1 ? withPins[0].folder.name : `${withPins.length} folders`;
    const answer = await vscode.window.showWarningMessage(
      `Unpin all ${num(count)} pin${count === 1 ? '' : 's'} of ${where}? Context packs stop including ${count === 1 ? 'it' : 'them'}.`,
      { modal: true },
      CLEAR_ALL,
    );
    if (answer !== CLEAR_ALL) {
      return;
    }
    try {
      for (const f of withPins) {
        await client.execute<PinsAnswer>(Commands.unpin, { all: true, folder: f.serverFolder ?? f.folder.uri });
      }
    } catch (err) {
      showError('Clear All', err);
    } finally {
      this.deps.pinsChanged();
    }
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
  }
}
