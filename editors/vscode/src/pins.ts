// The Pins view's model: every workspace folder's pins as a tree of
// ResultNodes (where, the tokens each adds to every pack, or why its text
// cannot be read), and the arguments that pin a pack item and unpin a pin.
// Pure functions of the JSON; no 'vscode' (pinsView.ts shows them).

import { PackItem, PinArgs, Pin } from './protocol';
import { FolderRef, num } from './render';
import { ResultNode } from './results';

/** One folder's pins, or why they could not be listed. */
export interface FolderPins {
  folder: FolderRef;
  /** The folder's URI as the server spells it (for unpin all). */
  serverFolder?: string;
  pins?: Pin[];
  error?: string;
}

/** What the actions of a pin node act on. */
export interface PinValue {
  pin: Pin;
  folder: FolderPins;
}

/** A node of the Pins view. */
export type PinNode = ResultNode<PinValue>;

/** contextValues of the view's nodes (package.json view/item/context menus). */
export const PinContext = {
  /** A pin whose file is there: Unpin, Open. */
  pin: 'pin',
  /** A pin whose file is gone: Unpin. */
  gone: 'pin.gone',
} as const;

/** "inventory/stock.go:25-31" for lines, "retry/backoff.py" for a whole file. */
export function pinLabel(p: Pin): string {
  return p.lines !== undefined && p.lines !== '' ? `${p.path}:${p.lines}` : p.path;
}

/** The tokens pins add to every pack together. */
export function pinsTokens(pins: Pin[]): number {
  return pins.reduce((n, p) => n + (p.tokens ?? 0), 0);
}

/** "2 pins · 169 tokens in every pack" ("nothing pinned"). */
export function pinsCount(pins: Pin[]): string {
  if (pins.length === 0) {
    return 'nothing pinned';
  }
  const t = pinsTokens(pins);
  return `${num(pins.length)} pin${pins.length === 1 ? '' : 's'} · ${num(t)} token${t === 1 ? '' : 's'} in every pack`;
}

function pinNode(pin: Pin, folder: FolderPins): PinNode {
  const label = pinLabel(pin);
  if (pin.error !== undefined && pin.error !== '') {
    return {
      label,
      description: pin.error,
      tooltip: `${label}\nits text cannot be read: ${pin.error}\nIt adds nothing to packs; Unpin removes it.`,
      icon: 'warning',
      contextValue: PinContext.gone,
      value: { pin, folder },
    };
  }
  return {
    label,
    description: `${num(pin.tokens)} token${pin.tokens === 1 ? '' : 's'}`,
    tooltip: `${label}${pin.lines === undefined ? ' (the whole file)' : ''}\nevery context pack includes it: ${num(pin.tokens)} tokens`,
    icon: 'pinned',
    location: pin.location,
    contextValue: PinContext.pin,
    value: { pin, folder },
  };
}

/**
 * The Pins view's tree: the pins in pinning order (under one node per
 * folder when several are open); a folder whose pins could not be listed
 * says why. Empty when nothing is pinned (the view's welcome text says so).
 */
export function pinsTree(all: FolderPins[]): PinNode[] {
  const rows = (f: FolderPins): PinNode[] =>
    f.error !== undefined ? [{ label: `pins not listed: ${f.error}`, icon: 'warning' }] : (f.pins ?? []).map((p) => pinNode(p, f));
  if (all.length === 1) {
    return rows(all[0]);
  }
  return all
    .filter((f) => f.error !== undefined || (f.pins ?? []).length > 0)
    .map((f) => ({ label: f.folder.name, description: f.error !== undefined ? 'failed' : pinsCount(f.pins ?? []), icon: 'root-folder', children: rows(f) }));
}

/** The view's description: how many pins and what they add to every pack. */
export function pinsDescription(all: FolderPins[]): string | undefined {
  const pins = all.flatMap((f) => f.pins ?? []);
  return pins.length === 0 ? undefined : pinsCount(pins);
}

/** contextLs.unpin (and contextLs.pin) arguments naming a pin as it was pinned: its lines, or its whole file. */
export function pinPlace(p: Pin): PinArgs {
  const doc = { uri: p.location.uri };
  return p.lines !== undefined && p.lines !== '' ? { textDocument: doc, range: p.location.range } : { textDocument: doc };
}

/** contextLs.pin arguments for a pack item: its lines. */
export function pinItemArgs(item: PackItem): PinArgs {
  return { textDocument: { uri: item.location.uri }, range: item.location.range };
}

/**
 * The pins of a folder to pin again after all were cleared to remove one
 * the server cannot unpin by name (its file is gone): the others whose
 * files are there, in pinning order.
 */
export function pinsToKeep(pins: Pin[], removed: Pin): Pin[] {
  return pins.filter((p) => p !== removed && (p.error === undefined || p.error === ''));
}
