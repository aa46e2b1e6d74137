// A QuickPick of locations: previews the highlighted entry in the editor
// (without taking focus), jumps on accept, and puts the original editor
// back when dismissed. Entries are given up front or produced live from the
// typed text (debounced, stale answers dropped).

import * as vscode from 'vscode';
import { toLocation } from './convert';
import { isCancelled, LocationEntry } from './render';

/** A QuickPick row carrying its location; a row without one is a message (no results). */
export interface LocationPickItem extends vscode.QuickPickItem {
  entry?: LocationEntry;
}

/** Produces entries for the typed text; rejects to report an error. */
export type EntrySource = (text: string, token: vscode.CancellationToken) => Promise<LocationEntry[]>;

/** Options of pickLocation. */
export interface PickOptions {
  title: string;
  placeholder: string;
  /** Fixed entries; used when live is not given. */
  entries?: LocationEntry[];
  /** Live entries for the typed text. */
  live?: EntrySource;
  /** Delay between the last keystroke and the live request, in milliseconds. */
  debounceMs?: number;
  /** Called with a live source's error (other than cancellation). */
  onError?: (err: unknown) => void;
  /** The row shown when a live query found nothing, for the typed text. */
  noResults?: (text: string) => string;
  /** The title for the typed text (live pickers; default: title). */
  titleFor?: (text: string) => string;
}

/** Default delay of live queries. */
export const DEBOUNCE_MS = 150;

function items(entries: LocationEntry[]): LocationPickItem[] {
  return entries.map((e) => ({
    label: e.label,
    description: e.description,
    detail: e.detail,
    alwaysShow: true, // the server ranked them: do not let the QuickPick filter them again
    entry: e,
  }));
}

/** Opens a location in an editor; preview keeps focus where it is and reuses the preview tab. */
export async function openLocation(entry: LocationEntry, preview: boolean, column?: vscode.ViewColumn): Promise<void> {
  const loc = toLocation(entry.location);
  await vscode.window.showTextDocument(loc.uri, {
    preview,
    preserveFocus: preview,
    selection: new vscode.Range(loc.range.start, loc.range.start),
    viewColumn: column,
  });
  const ed = vscode.window.activeTextEditor;
  if (!preview && ed !== undefined) {
    ed.revealRange(loc.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}

/**
 * Shows the picker; resolves with the accepted entry (after jumping to it)
 * or undefined when dismissed.
 */
export function pickLocation(opts: PickOptions): Promise<LocationEntry | undefined> {
  const qp = vscode.window.createQuickPick<LocationPickItem>();
  qp.title = opts.title;
  qp.placeholder = opts.placeholder;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  const origin = vscode.window.activeTextEditor;
  const originSelection = origin?.selection;
  const column = origin?.viewColumn;
  let previewed = false;
  let accepted: LocationEntry | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inflight: vscode.CancellationTokenSource | undefined;
  let seq = 0;

  const runLive = (text: string): void => {
    if (opts.live === undefined) {
      return;
    }
    inflight?.cancel();
    inflight?.dispose();
    const mine = ++seq;
    if (text.trim() === '') {
      inflight = undefined;
      qp.items = [];
      qp.busy = false;
      return;
    }
    const cts = new vscode.CancellationTokenSource();
    inflight = cts;
    qp.busy = true;
    opts.live(text, cts.token).then(
      (entries) => {
        if (mine !== seq) {
          return; // a newer query is running
        }
        qp.items = entries.length === 0 && opts.noResults !== undefined ? [{ label: opts.noResults(text), alwaysShow: true }] : items(entries);
        qp.busy = false;
      },
      (err) => {
        if (mine !== seq) {
          return;
        }
        qp.busy = false;
        if (!isCancelled(err) && opts.onError !== undefined) {
          opts.onError(err);
        }
      },
    );
  };

  return new Promise((resolve) => {
    const subs: vscode.Disposable[] = [];
    if (opts.live !== undefined) {
      qp.matchOnDescription = false;
      qp.matchOnDetail = false;
      subs.push(
        qp.onDidChangeValue((text) => {
          if (opts.titleFor !== undefined) {
            qp.title = opts.titleFor(text);
          }
          if (timer !== undefined) {
            clearTimeout(timer);
          }
          timer = setTimeout(() => {
            timer = undefined;
            runLive(text);
          }, opts.debounceMs ?? DEBOUNCE_MS);
        }),
      );
    } else {
      qp.items = items(opts.entries ?? []);
    }
    subs.push(
      qp.onDidChangeActive((active) => {
        const it = active[0];
        if (it?.entry !== undefined) {
          previewed = true;
          openLocation(it.entry, true, column).then(undefined, () => undefined);
        }
      }),
      qp.onDidAccept(() => {
        const it = qp.selectedItems[0] ?? qp.activeItems[0];
        if (it?.entry === undefined) {
          return; // nothing, or the no-results row
        }
        accepted = it.entry;
        qp.hide();
      }),
      qp.onDidHide(() => {
        if (timer !== undefined) {
          clearTimeout(timer);
        }
        inflight?.cancel();
        inflight?.dispose();
        subs.forEach((d) => d.dispose());
        qp.dispose();
        const done = accepted;
        if (done !== undefined) {
          openLocation(done, false, column).then(
            () => resolve(done),
            () => resolve(done),
          );
          return;
        }
        if (previewed && origin !== undefined) {
          vscode.window
            .showTextDocument(origin.document, { viewColumn: column, selection: originSelection, preview: false })
            .then(
              () => resolve(undefined),
              () => resolve(undefined),
            );
          return;
        }
        resolve(undefined);
      }),
    );
    qp.show();
  });
}
