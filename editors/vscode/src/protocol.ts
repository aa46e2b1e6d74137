// The server's command contract (docs/commands.md) as TypeScript types:
// command names, argument and result shapes. Plain JSON shapes, no 'vscode'.

/** Command identifiers of workspace/executeCommand. */
export const Commands = {
  search: 'contextLs.search',
  relatedContext: 'contextLs.relatedContext',
  callers: 'contextLs.callers',
  callees: 'contextLs.callees',
  tests: 'contextLs.tests',
  contextPack: 'contextLs.contextPack',
  similar: 'contextLs.similar',
  stats: 'contextLs.stats',
  status: 'contextLs.status',
  reindex: 'contextLs.reindex',
  pin: 'contextLs.pin',
  unpin: 'contextLs.unpin',
  pins: 'contextLs.pins',
  definition: 'contextLs.definition',
} as const;

/** An LSP position: 0-based line, UTF-16 character offset. */
export interface Position {
  line: number;
  character: number;
}

/** An LSP range; end is just after the last character. */
export interface Range {
  start: Position;
  end: Position;
}

/** An LSP location. */
export interface Location {
  uri: string;
  range: Range;
}

/** The place arguments shared by place-based commands. */
export interface PlaceArgs {
  textDocument?: { uri: string };
  position?: Position;
  range?: Range;
  symbol?: string;
}

/** Arguments of contextLs.search. */
export interface SearchArgs {
  query: string;
  k?: number;
  languages?: string[];
  kinds?: string[];
  paths?: string[];
  minScore?: number;
}

/** One hit of contextLs.search and contextLs.similar. */
export interface SearchHit {
  location: Location;
  folder: string;
  path: string;
  symbol: string;
  kind: string;
  language: string;
  score: number;
  sources: string[];
  text: string;
}

/** Result of contextLs.search and contextLs.similar. */
export interface SearchResult {
  query: string;
  hits: SearchHit[];
}

/** Arguments of contextLs.contextPack. */
export interface ContextPackArgs extends PlaceArgs {
  query?: string;
  /** 100 to 1,000,000; the server's budgetTokens setting when absent. */
  budgetTokens?: number;
  format?: string;
  task?: string;
  /** Items to leave out: PATH (a whole file) or PATH:A-B, folder-relative, as earlier items name them. */
  exclude?: string[];
  /** The workspace folder to pack from when no place is given. */
  folder?: string;
}

/** The smallest and largest budget contextLs.contextPack takes. */
export const MIN_BUDGET = 100;
export const MAX_BUDGET = 1_000_000;

/** One snippet of a pack or of related context. */
export interface PackItem {
  location: Location;
  symbol: string;
  score: number;
  tokens: number;
  reason: string;
}

/** One item of a context pack. */
export interface ContextPackItem extends PackItem {
  /** Folder-relative, slash-separated. */
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  kind: string;
  language?: string;
  /** Where it was found: query, selection, definition, caller, callee, test, similar, doc, cochange, pinned, always. */
  source: string;
  /** always (the selection, rules files), manual (pinned) or agent (chosen by relevance). */
  includeMode: string;
  /** Bodies elided or lines cut to fit the budget. */
  shortened?: boolean;
  /** Format json only: the item's text (the pack text holds it too). */
  text?: string;
}

/** Result of contextLs.contextPack. */
export interface ContextPackResult {
  /** The rendered pack, what to paste (format json: a JSON array of the items; empty from older servers). */
  text: string;
  format?: string;
  tokens: number;
  budget: number;
  /** Candidates left out for lack of budget. */
  dropped?: number;
  /** Candidates left out because exclude named them. */
  excluded?: number;
  items: ContextPackItem[];
  /** Sources that were skipped, items over budget. */
  notes?: string[];
  latencyMs?: number;
  /** The folder the pack comes from. */
  folder?: string;
}

/** Result of contextLs.relatedContext. */
export interface RelatedResult {
  symbol: string;
  items: PackItem[];
}

/** A caller, callee or test of a graph target. */
export interface GraphItem {
  /** Its whole definition. */
  location: Location;
  name: string;
  kind: string;
  /** exact, likely or name-only. */
  confidence: string;
  /** What resolved the call; for tests: direct, two-hops or naming. */
  reason: string;
  detail?: string;
  via?: string;
  /** The calls (in its file for callers and tests, in the target's file for callees). */
  callSites: Location[];
}

/** One definition a graph command was asked about. */
export interface GraphTarget {
  location: Location;
  symbol: string;
  kind: string;
  items: GraphItem[];
  /** Items left out: name-only matches and those past the limit. */
  omitted: number;
  unresolved?: string[];
}

/** Result of contextLs.callers, contextLs.callees and contextLs.tests. */
export interface GraphResult {
  targets: GraphTarget[];
}

/** One pin: a file's lines, or a whole file. */
export interface PinEntry {
  location: Location;
  /** Folder-relative, slash-separated. */
  path: string;
  startLine?: number;
  endLine?: number;
  uri?: string;
  /** The pinned lines, A-B (1-based); absent for a whole file. */
  lines?: string;
  /** Tokens it adds to every pack. */
  tokens: number;
  /** Why its text cannot be read (the file is gone). */
  error?: string;
}

/** Arguments of contextLs.pin and contextLs.unpin: a place, or (unpin) all of a folder. */
export interface PinArgs extends PlaceArgs {
  all?: boolean;
  folder?: string;
}

/** Result of contextLs.pin, contextLs.unpin and contextLs.pins. */
export interface PinsResult {
  /** The folder whose pins these are. */
  folder?: string;
  pins: PinEntry[];
  /** Tokens the pins add to every pack together. */
  tokens?: number;
}

/** Arguments of contextLs.reindex. */
export interface ReindexArgs {
  confirm?: boolean;
  dryRun?: boolean;
  paths?: string[];
}

/** One folder of a reindex: its job, or (dry run) what it would do. */
export interface ReindexFolder {
  uri: string;
  status: string;
  jobId?: string;
  paths: string[];
  reindexCount?: number;
  removeCount?: number;
  /** Workspace-relative paths (the first 200). */
  reindex?: string[];
  remove?: string[];
}

/** Result of contextLs.reindex. */
export interface ReindexResult {
  jobId?: string;
  dryRun: boolean;
  folders: ReindexFolder[];
}

/** The semantic index of a folder. */
export interface EmbeddingsStats {
  /** ready, loading, off, unavailable, … */
  state: string;
  reason?: string;
  model?: string;
  vectors: number;
  pending: number;
  embedded: number;
  cacheHitRate?: number;
}

/** Per-folder statistics of contextLs.stats. */
export interface FolderStats {
  uri: string;
  index: string;
  files: number;
  symbols: number;
  chunks: number;
  lines: number;
  languages: Record<string, number>;
  indexBytes: number;
  lastIndex?: string;
  indexing: { state: string; done: number; total: number; complete: number; running?: boolean };
  embeddings: EmbeddingsStats;
  queries: { count: number; p50Ms: number; p95Ms: number };
  packs: { count: number; avgTokens?: number };
  /** The workspace folder URI as the client named it. */
  folder?: string;
  openBuffers: number;
  recent?: string[];
}

/** A reindex job of contextLs.stats. */
export interface JobStatus {
  jobId: string;
  /** queued, running, done, failed or cancelled. */
  status: string;
  /** The selection, workspace-relative (empty: the whole workspace). */
  paths: string[];
  error?: string;
  done: number;
  total: number;
  indexed: number;
  removed: number;
  failed: number;
  started?: string;
  finished?: string;
}

/** Result of contextLs.stats. */
export interface StatsResult {
  folders: FolderStats[];
  jobs: JobStatus[];
}

/** Work-done progress values ($/progress). */
export type ProgressValue =
  | { kind: 'begin'; title: string; message?: string; percentage?: number; cancellable?: boolean }
  | { kind: 'report'; message?: string; percentage?: number }
  | { kind: 'end'; message?: string };
