// The Context Pack view's model: the request a preview repeats (its place
// or query, the budget chosen and the items dropped), the pack the server
// answered as a tree of ResultNodes (a header with the total against the
// budget, then one row per item saying where it is, why it is in and what
// it costs), and the text Copy and Insert use. Pure functions of the JSON;
// no 'vscode' (packView.ts shows them).

import { Limits, PackAnswer, PackArgs, PackItem } from './protocol';
import { kindCodicon, num } from './render';
import { ResultNode } from './results';

/** The smallest and largest budget contextLs.contextPack takes. */
export const MIN_BUDGET = Limits.pack.budget.min;
export const MAX_BUDGET = Limits.pack.budget.max;

/** What a preview asks the server, again on every Drop, Pin, budget change and Refresh. */
export interface PackRequest {
  /** The place or the query, and the format. */
  base: PackArgs;
  /** The budget chosen in the view; undefined: the budgetTokens setting. */
  budget?: number;
  /** The items dropped, as exclude names them (PATH:A-B), in the order dropped. */
  exclude: string[];
}

/** What the actions of a pack node act on: an item of the pack, or an item dropped from it. */
export type PackValue = { item: PackItem } | { dropped: string };

/** A node of the Context Pack view. */
export type PackNode = ResultNode<PackValue>;

/** contextValues of the view's nodes (package.json view/item/context menus). */
export const PackContext = {
  /** An item chosen by relevance or always included: Drop, Pin, Open. */
  item: 'packItem',
  /** A pinned item: Drop, Open (the Pins view unpins). */
  pinned: 'packItem.pinned',
  /** An item the user dropped: Put Back. */
  dropped: 'packDropped',
} as const;

/** The arguments of contextLs.contextPack for a request. */
export function packArgs(req: PackRequest): PackArgs {
  const args: PackArgs = { ...req.base };
  if (req.budget !== undefined) {
    args.budget = req.budget;
  }
  if (req.exclude.length > 0) {
    args.exclude = [...req.exclude];
  }
  return args;
}

/** How exclude names an item: its path and lines, "inventory/stock.go:25-31". */
export function excludeKey(item: PackItem): string {
  return `${item.path}:${item.startLine}-${item.endLine}`;
}

/** The request with an item dropped: the next pack leaves it out and gives its tokens to other candidates. */
export function dropItem(req: PackRequest, item: PackItem): PackRequest {
  const key = excludeKey(item);
  return { ...req, exclude: req.exclude.includes(key) ? [...req.exclude] : [...req.exclude, key] };
}

/** The request with a dropped item put back. */
export function restoreItem(req: PackRequest, key: string): PackRequest {
  return { ...req, exclude: req.exclude.filter((k) => k !== key) };
}

/** The request with another budget. */
export function withBudget(req: PackRequest, budget: number): PackRequest {
  return { ...req, exclude: [...req.exclude], budget };
}

/** Why typed text is not a budget the server takes, or undefined when it is one. */
export function budgetProblem(text: string): string | undefined {
  const t = text.trim().replace(/[,_\s]/g, '');
  if (!/^\d+$/.test(t)) {
    return `A whole number of tokens, ${num(MIN_BUDGET)} to ${num(MAX_BUDGET)}.`;
  }
  const n = Number(t);
  if (n < MIN_BUDGET || n > MAX_BUDGET) {
    return `The budget is ${num(MIN_BUDGET)} to ${num(MAX_BUDGET)} tokens.`;
  }
  return undefined;
}

/** The budget in typed text ("8,000" is 8000); undefined when budgetProblem has something to say. */
export function parseBudget(text: string): number | undefined {
  return budgetProblem(text) === undefined ? Number(text.trim().replace(/[,_\s]/g, '')) : undefined;
}

/** "inventory/stock.go:25-31" ("…:7" for one line). */
export function itemPlace(item: PackItem): string {
  return item.startLine === item.endLine ? `${item.path}:${item.startLine}` : `${item.path}:${item.startLine}-${item.endLine}`;
}

/** The word that marks an item every pack includes whatever its relevance ('' for the others). */
function mark(item: PackItem): string {
  switch (item.includeMode) {
    case 'manual':
      return 'pinned';
    case 'always':
      return 'always';
    default:
      return '';
  }
}

/** "481 / 4,000 tokens". */
export function packTotal(res: PackAnswer): string {
  return `${num(res.tokens)} / ${num(res.budget)} tokens`;
}

/** What a pack is for, in the view's title: the selection's definition (or lines) or the query. */
export function packSubject(res: PackAnswer, base: PackArgs): string {
  const sel = (res.items ?? []).find((it) => it.source === 'selection');
  if (sel !== undefined) {
    return sel.symbol !== '' ? sel.symbol : itemPlace(sel);
  }
  if (base.symbol !== undefined && base.symbol !== '') {
    return base.symbol;
  }
  if (base.query !== undefined && base.query.trim() !== '') {
    return `“${base.query.trim()}”`;
  }
  return 'this place';
}

/** The view's description: what the pack is for and its total against the budget. */
export function packDescription(res: PackAnswer, base: PackArgs): string {
  return `${packSubject(res, base)} · ${packTotal(res)}`;
}

/** A pack item's row: where, which definition, why it is in, its tokens; pinned and always items marked. */
function itemNode(item: PackItem): PackNode {
  const m = mark(item);
  const why = item.reason !== '' ? item.reason : item.source;
  const description = [item.symbol, why, m !== why ? m : '', `${num(item.tokens)} token${item.tokens === 1 ? '' : 's'}`, item.shortened ? 'shortened' : '']
    .filter((s) => s !== undefined && s !== '')
    .join(' · ');
  const tooltip = [
    item.symbol !== '' ? `${item.symbol}${item.kind ? ` (${item.kind})` : ''}` : itemPlace(item),
    itemPlace(item),
    `why: ${why}${item.source && item.source !== why ? ` (found as ${item.source})` : ''}`,
    m === 'pinned' ? 'pinned: every pack includes it (the Pins view unpins it)' : '',
    m === 'always' ? 'always: every pack for this request includes it (the selection, rules files)' : '',
    `score ${item.score.toFixed(2)} · ${num(item.tokens)} tokens`,
    item.shortened ? 'shortened: bodies elided or lines cut to fit the budget' : '',
  ]
    .filter((s) => s !== '')
    .join('\n');
  return {
    label: itemPlace(item),
    description,
    tooltip,
    icon: m === 'pinned' ? 'pinned' : m === 'always' ? 'lock' : kindCodicon(item.kind),
    location: item.location,
    contextValue: m === 'pinned' ? PackContext.pinned : PackContext.item,
    value: { item },
  };
}

/**
 * The Context Pack view's tree: a header row with the total against the
 * budget and what was left out (its children: the server's notes and the
 * items dropped here, each of which can be put back), then the items in
 * the pack's order.
 */
export function packTree(res: PackAnswer, req: PackRequest): PackNode[] {
  const items = res.items ?? [];
  const dropped = res.dropped ?? 0;
  const excluded = res.excluded ?? 0;
  // One dropped item may stand for several candidates (a caller that is a test too).
  const mine = req.exclude.length;
  const byYou = mine === 0 ? '' : `${num(mine)} dropped by you${excluded !== mine ? ` (${num(excluded)} candidate${excluded === 1 ? '' : 's'})` : ''}`;
  const counts = [
    `${num(items.length)} item${items.length === 1 ? '' : 's'}`,
    dropped > 0 ? `${num(dropped)} left out for the budget` : '',
    byYou,
  ].filter((s) => s !== '');
  const children: PackNode[] = [
    ...(res.notes ?? []).map((n): PackNode => ({ label: n, icon: 'info', tooltip: n })),
    ...req.exclude.map(
      (key): PackNode => ({
        label: key,
        description: 'dropped by you',
        tooltip: `${key} is left out of this pack; Put Back brings it in again`,
        icon: 'eye-closed',
        contextValue: PackContext.dropped,
        value: { dropped: key },
      }),
    ),
  ];
  const header: PackNode = {
    label: packTotal(res),
    description: counts.join(' · '),
    tooltip: [
      `${packTotal(res)} used`,
      ...counts,
      'Drop an item to give its tokens to the next candidates; Change Pack Budget to fit more or less.',
    ].join('\n'),
    icon: 'dashboard',
    children,
  };
  if (items.length === 0) {
    return [header, { label: 'nothing relevant was found', icon: 'info' }];
  }
  return [header, ...items.map(itemNode)];
}

/**
 * The text Copy and Insert use: the rendered pack (with format json a JSON
 * array of the items with their text). Servers that left it empty with
 * format json, the items alone carrying the text, get that array built.
 */
export function packText(res: PackAnswer): string {
  if ((res.text ?? '') !== '' || res.format !== 'json') {
    return res.text ?? '';
  }
  return `${JSON.stringify((res.items ?? []).map(({ location: _location, ...item }) => item), null, 2)}\n`;
}
