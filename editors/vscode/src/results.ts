// The results view's content: what the server answered about one
// definition (the definitions it resolved to, callers, callees, tests and
// related code) as a tree of plain nodes, each with why it is there. Pure
// functions of the JSON results; no 'vscode' (resultsView.ts shows them).

import { GraphItem, GraphResult, Location, RelatedResult } from './protocol';
import { FolderRef, kindCodicon, placeLabel } from './render';

/**
 * One node of a tree of the context-ls side panel (results, context pack,
 * pins); T is what the view's actions on the node act on.
 */
export interface ResultNode<T = unknown> {
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon id ("symbol-function"). */
  icon?: string;
  /** Where a click goes. */
  location?: Location;
  /** Which actions apply (the viewItem of package.json's view/item/context menus). */
  contextValue?: string;
  /** What those actions act on. */
  value?: T;
  children?: ResultNode<T>[];
}

/** The answers the results view is built from; a missing one failed (error says why). */
export interface ExploreAnswers {
  callers?: GraphResult;
  callees?: GraphResult;
  tests?: GraphResult;
  related?: RelatedResult;
  /** Why an answer is missing, by group ("the call graph is not in this build"). */
  errors?: Partial<Record<'callers' | 'callees' | 'tests' | 'related', string>>;
}

/** The groups of the tree, in order. */
export const GROUPS = ['Definitions', 'Callers', 'Callees', 'Tests', 'Related'] as const;

/** "exact · direct call" — the words of a graph item that say why it is listed. */
function why(it: GraphItem): string {
  const reason = it.detail !== undefined && it.detail !== '' ? it.detail : it.reason;
  return [it.confidence, reason, it.via ? `via ${it.via}` : ''].filter((s) => s !== undefined && s !== '').join(' · ');
}

/** Graph items as nodes; a node with several call sites lists them as children. */
function graphNodes(res: GraphResult | undefined, folders: FolderRef[], sites: boolean): ResultNode[] {
  const out: ResultNode[] = [];
  for (const t of res?.results ?? []) {
    for (const it of t.items ?? []) {
      const calls = sites ? (it.sites ?? []).map((s) => s.location) : [];
      const node: ResultNode = {
        label: it.symbol,
        description: `${why(it)} · ${placeLabel(calls[0] ?? it.location, folders)}`,
        tooltip: [`${it.symbol} (${it.kind})`, `confidence: ${it.confidence}`, `reason: ${it.reason}`, it.detail ? `detail: ${it.detail}` : '', it.via ? `via: ${it.via}` : '']
          .filter((s) => s !== '')
          .join('\n'),
        icon: kindCodicon(it.kind),
        location: calls[0] ?? it.location,
      };
      if (calls.length > 1) {
        node.children = calls.map((c) => ({ label: placeLabel(c, folders), description: 'call site', icon: 'arrow-right', location: c }));
      }
      out.push(node);
    }
  }
  return out;
}

/** Items the server left out of a graph answer. */
function omitted(res: GraphResult | undefined): number {
  return (res?.results ?? []).reduce((n, t) => n + (t.omitted ?? 0) + (t.truncated ?? 0), 0);
}

/** A group node: its items, or one line saying why there are none. */
function group(name: string, items: ResultNode[], error: string | undefined, left = 0): ResultNode {
  const note = left > 0 ? `${left} left out: name-only matches or past the limit` : '';
  let children = items;
  if (error !== undefined) {
    children = [{ label: error, icon: 'warning' }];
  } else if (items.length === 0) {
    children = [{ label: left > 0 ? `none listed (${note})` : 'none found', icon: 'info' }];
  } else if (left > 0) {
    children = [...items, { label: note, icon: 'info' }];
  }
  return { label: name, description: error !== undefined ? 'failed' : String(items.length), children };
}

/**
 * The results tree for one definition: Definitions (what the place
 * resolved to), Callers, Callees, Tests and Related, each item with its
 * reason, confidence or score.
 */
export function exploreTree(ans: ExploreAnswers, folders: FolderRef[]): ResultNode[] {
  const err = ans.errors ?? {};
  const seen = new Set<string>();
  const defs: ResultNode[] = [];
  for (const res of [ans.callers, ans.callees, ans.tests]) {
    for (const t of res?.results ?? []) {
      const d = t.definition;
      const key = `${d.nameLocation.uri}#${d.nameLocation.range.start.line}`;
      if (seen.has(key)) {
        continue;
      }
      seen.add(key);
      defs.push({
        label: d.symbol,
        description: `${d.kind} · ${placeLabel(d.nameLocation, folders)}`,
        tooltip: `${d.symbol} (${d.kind})`,
        icon: kindCodicon(d.kind),
        location: d.nameLocation,
      });
    }
  }
  const related: ResultNode[] = (ans.related?.items ?? []).map((it) => {
    const name = it.symbol !== '' ? it.symbol : placeLabel(it.location, folders);
    return {
      label: name,
      description: `score ${it.score.toFixed(2)} · ${it.reason} · ${placeLabel(it.location, folders)}`,
      tooltip: `${name}\nreason: ${it.reason}\nscore: ${it.score.toFixed(2)}\n${it.tokens} tokens`,
      icon: 'link',
      location: it.location,
    };
  });
  const graphErr = [err.callers, err.callees, err.tests].find((e) => e !== undefined);
  return [
    group(GROUPS[0], defs, defs.length === 0 ? graphErr : undefined),
    group(GROUPS[1], graphNodes(ans.callers, folders, true), err.callers, omitted(ans.callers)),
    group(GROUPS[2], graphNodes(ans.callees, folders, true), err.callees, omitted(ans.callees)),
    group(GROUPS[3], graphNodes(ans.tests, folders, false), err.tests, omitted(ans.tests)),
    group(GROUPS[4], related, err.related),
  ];
}

/** The view's heading for an answer: the definitions it is about. */
export function exploreTitle(ans: ExploreAnswers): string {
  const names = new Set<string>();
  for (const res of [ans.callers, ans.callees, ans.tests]) {
    for (const t of res?.results ?? []) {
      if (t.definition.symbol !== '') {
        names.add(t.definition.symbol);
      }
    }
  }
  if (names.size === 0 && ans.related?.symbol) {
    names.add(ans.related.symbol);
  }
  return names.size === 0 ? 'this place' : [...names].join(', ');
}
