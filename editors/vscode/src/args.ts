// Building command arguments from editor state. The editor state is a plain
// snapshot (document URI as the client sends it, selection in LSP
// positions), so the same code serves the extension, the unit tests and
// the real-server test.

import { Limits, PackArgs, PlaceArgs, Position, Range, ReindexArgs, SearchArgs } from './protocol';

/** The part of an editor a command looks at. */
export interface EditorState {
  /** The document URI exactly as the language client sends it in didOpen. */
  uri: string;
  /** The selection; anchor and active may be in either order. */
  anchor: Position;
  active: Position;
}

/** Largest k of contextLs.search. */
export const MAX_SEARCH_K = Limits.search.k.max;

/** Whether the selection is empty (a cursor). */
export function isEmptySelection(ed: EditorState): boolean {
  return ed.anchor.line === ed.active.line && ed.anchor.character === ed.active.character;
}

/** The selection as an ordered LSP range. */
export function selectionRange(ed: EditorState): Range {
  const before =
    ed.anchor.line < ed.active.line || (ed.anchor.line === ed.active.line && ed.anchor.character <= ed.active.character);
  return before ? { start: { ...ed.anchor }, end: { ...ed.active } } : { start: { ...ed.active }, end: { ...ed.anchor } };
}

/**
 * Place arguments for the editor: the document and the cursor, plus the
 * selection as range when something is selected. With only a cursor the
 * server takes the definition under it.
 */
export function placeArgs(ed: EditorState): PlaceArgs {
  const out: PlaceArgs = { textDocument: { uri: ed.uri }, position: { ...ed.active } };
  if (!isEmptySelection(ed)) {
    out.range = selectionRange(ed);
  }
  return out;
}

/** Options the extension adds to context packs. */
export interface PackOptions {
  format: string;
  /** Only set when the user asked for a specific budget; otherwise the server's budgetTokens setting applies. */
  budget?: number;
}

/** contextLs.contextPack arguments for the selection or the symbol under the cursor. */
export function packArgsForSelection(ed: EditorState, opts: PackOptions): PackArgs {
  return withPackOptions(placeArgs(ed), opts);
}

/** contextLs.contextPack arguments for a free-text query; undefined when the query is blank. */
export function packArgsForQuery(query: string, opts: PackOptions): PackArgs | undefined {
  const q = query.trim();
  if (q === '') {
    return undefined;
  }
  return withPackOptions({ query: q }, opts);
}

function withPackOptions(args: PackArgs, opts: PackOptions): PackArgs {
  args.format = opts.format;
  if (opts.budget !== undefined && Number.isInteger(opts.budget) && opts.budget > 0) {
    args.budget = opts.budget;
  }
  return args;
}

/** A search as typed: the words, and the filters written as lang:, kind: and path: words. */
export interface SearchInput {
  /** The query without the filter words. */
  text: string;
  languages: string[];
  kinds: string[];
  /** Globs on folder-relative paths; one starting with ! excludes. */
  paths: string[];
}

/** The filter words Search Codebase understands, and the argument each fills. */
export const SEARCH_FILTERS: Record<string, 'languages' | 'kinds' | 'paths'> = {
  lang: 'languages',
  language: 'languages',
  kind: 'kinds',
  path: 'paths',
};

/**
 * Splits typed text into the query and its filters: `lang:go,python`,
 * `kind:function`, `path:inventory/**` or `path:!**\/*_test.go` (each may be
 * repeated; commas separate values). Other words, and a filter word with no
 * value, are the query.
 */
export function parseSearchInput(input: string): SearchInput {
  const out: SearchInput = { text: '', languages: [], kinds: [], paths: [] };
  const words: string[] = [];
  for (const word of input.trim().split(/\s+/)) {
    const m = /^([A-Za-z]+):(.+)$/.exec(word);
    const key = m === null ? undefined : SEARCH_FILTERS[m[1].toLowerCase()];
    if (m === null || key === undefined) {
      if (word !== '') {
        words.push(word);
      }
      continue;
    }
    for (const v of m[2].split(',')) {
      const value = key === 'paths' ? v : v.toLowerCase();
      if (value !== '' && !out[key].includes(value)) {
        out[key].push(value);
      }
    }
  }
  out.text = words.join(' ');
  return out;
}

/** The filters of a search input as one line ("lang: go · path: inventory/**"); '' without filters. */
export function describeFilters(input: SearchInput): string {
  const parts: string[] = [];
  if (input.languages.length > 0) {
    parts.push(`lang: ${input.languages.join(', ')}`);
  }
  if (input.kinds.length > 0) {
    parts.push(`kind: ${input.kinds.join(', ')}`);
  }
  if (input.paths.length > 0) {
    parts.push(`path: ${input.paths.join(', ')}`);
  }
  return parts.join(' · ');
}

/**
 * contextLs.search arguments for typed text (filters included, see
 * parseSearchInput); undefined when no query words are left. k is clamped
 * to 1..100.
 */
export function searchArgs(typed: string, k: number): SearchArgs | undefined {
  const input = parseSearchInput(typed);
  if (input.text === '') {
    return undefined;
  }
  const kk = Number.isFinite(k) ? Math.min(MAX_SEARCH_K, Math.max(1, Math.round(k))) : 10;
  const args: SearchArgs = { query: input.text, k: kk };
  if (input.languages.length > 0) {
    args.languages = input.languages;
  }
  if (input.kinds.length > 0) {
    args.kinds = input.kinds;
  }
  if (input.paths.length > 0) {
    args.paths = input.paths;
  }
  return args;
}

/** contextLs.reindex arguments: a dry run first, then the confirmed run. */
export function reindexArgs(step: 'dryRun' | 'confirm'): ReindexArgs {
  return step === 'dryRun' ? { dryRun: true } : { confirm: true };
}
