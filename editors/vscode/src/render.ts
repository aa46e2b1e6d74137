// Rendering server results for people: QuickPick entries, notification
// texts, the stats document and error messages. Pure functions of the JSON
// results; no 'vscode'.

import { fileURLToPath } from 'url';
import {
  EmbeddingsState,
  GraphResult,
  Hit,
  Location,
  PackAnswer,
  PinsResult,
  ReindexAnswer,
  RelatedItem,
  RelatedResult,
  StatsAnswer,
} from './protocol';

/** One folder's statistics in a contextLs.stats answer. */
export type FolderStats = StatsAnswer['folders'][number];

/** A workspace folder as the renderer needs it. */
export interface FolderRef {
  uri: string;
  name: string;
}

/** One row of a QuickPick that jumps to a location. */
export interface LocationEntry {
  label: string;
  description: string;
  detail?: string;
  location: Location;
}

/** The longest detail line shown under an entry. */
export const DETAIL_MAX = 120;

/** The file-system path of a file URI, or the URI itself when it is not one. */
export function uriToPath(uri: string): string {
  if (!uri.startsWith('file:')) {
    return uri;
  }
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/**
 * The path shown for a URI: relative to the workspace folder holding it
 * (prefixed with the folder name when several are open), else the full path.
 */
export function displayPath(uri: string, folders: FolderRef[]): string {
  const file = uriToPath(uri);
  let best: FolderRef | undefined;
  let bestRoot = '';
  for (const f of folders) {
    const root = uriToPath(f.uri).replace(/[\\/]+$/, '');
    if ((file.startsWith(root + '/') || file.startsWith(root + '\\')) && root.length > bestRoot.length) {
      best = f;
      bestRoot = root;
    }
  }
  if (best === undefined) {
    return file;
  }
  const rel = file.slice(bestRoot.length + 1).replace(/\\/g, '/');
  return folders.length > 1 ? `${best.name}/${rel}` : rel;
}

/** "path:line" with a 1-based line. */
export function placeLabel(loc: Location, folders: FolderRef[]): string {
  return `${displayPath(loc.uri, folders)}:${loc.range.start.line + 1}`;
}

/** The first non-blank line of text, trimmed and shortened to max characters. */
export function firstLine(text: string, max = DETAIL_MAX): string {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line !== '') {
      return shorten(line, max);
    }
  }
  return '';
}

/** s cut to at most max characters (code points), with an ellipsis when cut. */
export function shorten(s: string, max: number): string {
  const cps = Array.from(s);
  return cps.length <= max ? s : cps.slice(0, Math.max(0, max - 1)).join('') + '…';
}

/** The codicon id for a chunk or symbol kind ("symbol-function"). */
export function kindCodicon(kind: string): string {
  switch (kind) {
    case 'function':
      return 'symbol-function';
    case 'method':
      return 'symbol-method';
    case 'class':
    case 'type':
      return 'symbol-class';
    case 'struct':
      return 'symbol-structure';
    case 'interface':
    case 'trait':
      return 'symbol-interface';
    case 'enum':
      return 'symbol-enum';
    case 'const':
    case 'constant':
      return 'symbol-constant';
    case 'var':
    case 'variable':
      return 'symbol-variable';
    case 'markdown_section':
      return 'markdown';
    default:
      return 'symbol-misc';
  }
}

/** The codicon for a chunk or symbol kind, as label text ("$(symbol-function)"). */
export function kindIcon(kind: string): string {
  return `$(${kindCodicon(kind)})`;
}

/** The last element of a slash-separated path. */
function baseName(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1];
}

/** A search hit as a QuickPick entry: symbol (or file name), path:line, first snippet line. */
export function hitEntry(hit: Hit, folders: FolderRef[]): LocationEntry {
  const name = hit.symbol !== '' ? hit.symbol : baseName(displayPath(hit.location.uri, folders));
  // The evidence that found the file (body, symbol, vector, …), as the CLI shows it.
  const evidence = (hit.sources ?? []).join(' ');
  return {
    label: `${kindIcon(hit.kind)} ${name}`,
    description: evidence === '' ? placeLabel(hit.location, folders) : `${placeLabel(hit.location, folders)} · ${evidence}`,
    detail: firstLine(hit.text),
    location: hit.location,
  };
}

/** A pack or related item as a QuickPick entry. */
export function packItemEntry(item: RelatedItem, folders: FolderRef[]): LocationEntry {
  const name = item.symbol !== '' ? item.symbol : baseName(displayPath(item.location.uri, folders));
  return {
    label: name,
    description: placeLabel(item.location, folders),
    detail: `${item.reason} · ${item.tokens} tokens · score ${item.score.toFixed(2)}`,
    location: item.location,
  };
}

/** Related-context items as entries, best first. */
export function relatedEntries(res: RelatedResult, folders: FolderRef[]): LocationEntry[] {
  return (res.items ?? []).map((it) => packItemEntry(it, folders));
}

/** The definitions a graph result is about, joined for messages ("" when none). */
export function graphSymbols(res: GraphResult): string {
  return [...new Set((res.results ?? []).map((t) => t.definition.symbol).filter((s) => s !== ''))].join(', ');
}

/** Items a graph result left out (name-only matches and those past the limit). */
export function graphOmitted(res: GraphResult): number {
  return (res.results ?? []).reduce((n, t) => n + (t.omitted ?? 0) + (t.truncated ?? 0), 0);
}

/**
 * Callers (or callees) as entries: one per call site, named after the
 * calling definition with how the call was resolved; an item with no call
 * site is listed at its definition.
 */
export function callEntries(res: GraphResult, folders: FolderRef[]): LocationEntry[] {
  const out: LocationEntry[] = [];
  for (const t of res.results ?? []) {
    for (const it of t.items ?? []) {
      const sites = it.sites !== undefined && it.sites !== null && it.sites.length > 0 ? it.sites.map((s) => s.location) : [it.location];
      for (const site of sites) {
        out.push({
          label: it.symbol,
          description: placeLabel(site, folders),
          detail: [it.kind, it.confidence, it.reason].filter((s) => s !== undefined && s !== '').join(' · '),
          location: site,
        });
      }
    }
  }
  return out;
}

/** Tests as entries at their definitions, with why they count. */
export function testEntries(res: GraphResult, folders: FolderRef[]): LocationEntry[] {
  const out: LocationEntry[] = [];
  for (const t of res.results ?? []) {
    for (const it of t.items ?? []) {
      const why = it.detail !== undefined && it.detail !== '' ? it.detail : it.reason;
      out.push({
        label: it.symbol,
        description: placeLabel(it.location, folders),
        detail: [why, it.via ? `via ${it.via}` : '', it.confidence].filter((s) => s !== undefined && s !== '').join(' · '),
        location: it.location,
      });
    }
  }
  return out;
}

/** Groups digits: 12345 → "12,345". */
export function num(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The notification after a pack was copied (or inserted): tokens used of the budget. */
export function packSummary(res: PackAnswer, done: 'copied' | 'inserted' = 'copied'): string {
  const n = (res.items ?? []).length;
  return `Context ${done}: ${num(res.tokens)} / ${num(res.budget)} tokens, ${n} snippet${n === 1 ? '' : 's'}.`;
}

/** The notification after pin or unpin. */
export function pinsSummary(action: 'pin' | 'unpin', res: PinsResult): string {
  const pins = res.pins ?? [];
  const tokens = res.tokens ?? pins.reduce((s, p) => s + p.tokens, 0);
  const verb = action === 'pin' ? 'Pinned' : 'Unpinned';
  if (pins.length === 0) {
    return `${verb}. Nothing is pinned now.`;
  }
  const n = pins.length === 1 ? '1 pin now adds' : `${num(pins.length)} pins now add`;
  return `${verb}. ${n} ${num(tokens)} token${tokens === 1 ? '' : 's'} to every context pack.`;
}

/**
 * What to say when Unpin finds nothing pinned at the selection, from the
 * server's error ("arguments[0]: inventory/stock.go:25-31: not pinned", or
 * with a hint in parentheses after it); undefined for any other error.
 */
export function notPinnedMessage(err: unknown): string | undefined {
  const m = /^(.*?):? not pinned(?: \(.*\))?$/.exec(serverWords(err));
  if (m === null) {
    return undefined;
  }
  return `context-ls: ${m[1] === '' ? 'this selection' : m[1]} is not pinned, so there is nothing to unpin.`;
}

/** The title of a re-index job's progress ("Re-indexing" or "Re-indexing <folder>"). */
export const REINDEX_TITLE = 'Re-indexing';

/**
 * Whether a progress end is that of the re-index job jobId: its message
 * names the job ("reindex-1 done: …"), or, from servers that leave the id
 * out, its title is a re-index's.
 */
export function isReindexEnd(jobId: string, title: string, message: string | undefined): boolean {
  const m = (message ?? '').trim();
  if (/^reindex-\d+ /.test(m)) {
    return m.startsWith(`${jobId} `);
  }
  return title === REINDEX_TITLE || title.startsWith(`${REINDEX_TITLE} `);
}

/**
 * The notification when a re-index job ends, from its progress: title
 * "Re-indexing shop" and message "306 files re-indexed, 0 removed, 0
 * failed" (or "reindex failed: reason"; older servers: "reindex-1 done:
 * …"). The job id is dropped and the outcome said once.
 */
export function reindexDone(jobId: string, title: string, message: string | undefined): string {
  const folder = title.startsWith(`${REINDEX_TITLE} `) ? ` of ${title.slice(REINDEX_TITLE.length + 1)}` : '';
  let m = (message ?? '').trim();
  if (m.startsWith(`${jobId} `)) {
    m = m.slice(jobId.length + 1);
  }
  m = m.replace(/^reindex /, '');
  if (m === '') {
    return `context-ls: re-index${folder} finished.`;
  }
  if (!/^(done|failed|cancelled)\b/.test(m)) {
    m = `done: ${m}`;
  }
  return `context-ls: re-index${folder} ${m}.`;
}

/** The question asked before a reindex, from the dry run. */
export function reindexQuestion(dry: ReindexAnswer): string {
  let files = 0;
  let removed = 0;
  for (const f of dry.folders ?? []) {
    files += f.reindexCount ?? (f.reindex ?? []).length;
    removed += f.removeCount ?? (f.remove ?? []).length;
  }
  const folders = (dry.folders ?? []).length;
  const drop = removed > 0 ? ` and drop ${num(removed)} file${removed === 1 ? '' : 's'} no longer indexable` : '';
  return `Re-index ${num(files)} file${files === 1 ? '' : 's'} in ${folders} folder${folders === 1 ? '' : 's'}${drop}? Every selected file is parsed and written again.`;
}

/** Bytes in KiB/MiB/GiB. */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** A short embeddings state: "ready", "off", "unavailable", … */
export function embeddingsWord(e: EmbeddingsState | undefined): string {
  return e?.state?.trim() || 'unknown';
}

/** The embeddings state with its reason: "unavailable: no ONNX Runtime library found". */
export function embeddingsText(e: EmbeddingsState | undefined): string {
  const word = embeddingsWord(e);
  return e?.reason ? `${word}: ${e.reason}` : word;
}

function cacheHitCell(e: EmbeddingsState | undefined): string {
  if (e?.cacheHitRate !== undefined) {
    return `${(e.cacheHitRate * 100).toFixed(1)} %`;
  }
  const word = embeddingsWord(e);
  return word === 'ready' || word === 'loading' ? 'nothing embedded yet' : `none (embeddings ${word})`;
}

function embeddingsCell(e: EmbeddingsState | undefined): string {
  const parts = [embeddingsText(e)];
  if (e?.model) {
    parts.push(`model ${e.model}`);
  }
  if (e !== undefined && (e.vectors > 0 || e.pending > 0)) {
    parts.push(`${num(e.vectors)} vectors, ${num(e.pending)} pending`);
  }
  return parts.join(' · ');
}

/** Text safe inside a Markdown table cell. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function folderMarkdown(f: FolderStats, folders: FolderRef[]): string[] {
  const uri = f.folder;
  const name = folders.find((x) => x.uri === uri)?.name ?? uriToPath(uri);
  const langs = Object.entries(f.languages ?? {})
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([l, n]) => `${l} ${num(n)}`)
    .join(', ');
  const ix = f.indexing;
  const pct = Math.round((ix?.complete ?? 0) * 100);
  const lines = [
    `## ${name}`,
    '',
    `| | |`,
    `|---|---|`,
    `| folder | ${cell(uriToPath(uri))} |`,
    `| index | ${cell(f.index)} (${bytes(f.indexBytes)}) |`,
    `| files | ${num(f.files)} |`,
    `| definitions | ${num(f.symbols)} |`,
    `| chunks | ${num(f.chunks)} |`,
    `| lines | ${num(f.lines)} |`,
    `| languages | ${langs === '' ? 'none' : langs} |`,
    `| indexing | ${cell(ix?.state ?? 'unknown')}: ${num(ix?.done ?? 0)} / ${num(ix?.total ?? 0)} files (${pct} %)${f.lastIndex ? `, last full index ${f.lastIndex}` : ''} |`,
    `| embeddings | ${cell(embeddingsCell(f.embeddings))} |`,
    `| searches | ${num(f.queries?.count ?? 0)} (p50 ${(f.queries?.p50Ms ?? 0).toFixed(1)} ms, p95 ${(f.queries?.p95Ms ?? 0).toFixed(1)} ms) |`,
    `| embedding cache hit rate | ${cacheHitCell(f.embeddings)} |`,
    `| packs built | ${num(f.packs?.count ?? 0)}${f.packs?.avgTokens !== undefined ? `, ${num(f.packs.avgTokens)} tokens on average` : ''} |`,
    `| open buffers | ${num(f.openBuffers)} |`,
  ];
  if ((f.recent ?? []).length > 0) {
    lines.push('', 'Recent activity:', '');
    for (const r of f.recent ?? []) {
      lines.push(`- ${r}`);
    }
  }
  lines.push('');
  return lines;
}

/** The stats document (Markdown) for Show Index Stats. */
export function statsMarkdown(stats: StatsAnswer, folders: FolderRef[]): string {
  const out = ['# context-ls index', ''];
  if ((stats.folders ?? []).length === 0) {
    out.push('No workspace folder is indexed.', '');
  }
  for (const f of stats.folders ?? []) {
    out.push(...folderMarkdown(f, folders));
  }
  const jobs = (stats.folders ?? []).flatMap((f) => f.jobs ?? []);
  if (jobs.length > 0) {
    out.push('## Reindex jobs', '', '| job | state | done | indexed | removed | failed | started | finished |', '|---|---|---|---|---|---|---|---|');
    for (const j of jobs) {
      out.push(
        `| ${cell(j.jobId)} | ${cell(j.error ? `${j.status}: ${j.error}` : j.status)} | ${num(j.done)} / ${num(j.total)} | ${num(j.indexed)} | ${num(j.removed)} | ${num(j.failed)} | ${j.started ?? ''} | ${j.finished ?? ''} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

/** The shape of a JSON-RPC error as vscode-jsonrpc's ResponseError carries it. */
interface RpcErrorLike {
  code?: unknown;
  message?: unknown;
}

/** The JSON-RPC "request cancelled" code. */
export const REQUEST_CANCELLED = -32800;

/** Whether err is a cancelled request (not worth showing). */
export function isCancelled(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as RpcErrorLike).code === REQUEST_CANCELLED;
}

/**
 * The message shown when a command fails: the server's own words (they name
 * the command, the argument or the missing engine part), prefixed with what
 * the user was doing.
 */
export function errorMessage(what: string, err: unknown): string {
  const msg = serverWords(err);
  return `context-ls: ${what} failed: ${msg === '' ? 'unknown error' : msg}`;
}

/**
 * An error's message without the argument list the server names first for
 * a bad argument ("arguments[0].query: required" → "query: required",
 * "arguments[0]: x not pinned" → "x not pinned"): the user never wrote
 * that list, the extension did.
 */
export function serverWords(err: unknown): string {
  let msg: string;
  if (typeof err === 'object' && err !== null && typeof (err as RpcErrorLike).message === 'string') {
    msg = (err as RpcErrorLike).message as string;
  } else {
    msg = String(err);
  }
  return msg.trim().replace(/^arguments\[\d+\](?:\.|: )/, '');
}
