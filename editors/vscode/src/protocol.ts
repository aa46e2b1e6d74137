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
  budgetTokens?: number;
  format?: string;
  paths?: string[];
}

/** One snippet of a pack or of related context. */
export interface PackItem {
  location: Location;
  symbol: string;
  score: number;
  tokens: number;
  reason: string;
}

/** Result of contextLs.contextPack. */
export interface ContextPackResult {
  text: string;
  tokens: number;
  budget: number;
  items: PackItem[];
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

/** One pin. */
export interface PinEntry {
  location: Location;
  symbol?: string;
  tokens: number;
}

/** Result of contextLs.pin and contextLs.unpin. */
export interface PinsResult {
  pins: PinEntry[];
}

/** Arguments of contextLs.reindex. */
export interface ReindexArgs {
  confirm?: boolean;
  dryRun?: boolean;
  paths?: string[];
}

/** One file of a reindex plan. */
export interface ReindexItem {
  location: Location;
  path: string;
}

/** Result of contextLs.reindex. */
export interface ReindexResult {
  jobId?: string;
  dryRun: boolean;
  folders: { uri: string; reindex?: ReindexItem[]; remove?: ReindexItem[] }[];
}

/** A figure that may be unavailable. */
export interface Measure {
  value?: number;
  unavailable?: string;
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
  indexing: { state: string; done: number; total: number; complete: number; lastIndex?: string };
  embeddings: string;
  queries: { count: number; p50Ms: number; p95Ms: number };
  cacheHitRate: Measure;
  avgPackTokens: Measure;
  openBuffers: number;
  recent: string[];
}

/** A reindex job of contextLs.stats. */
export interface JobStatus {
  id: string;
  folders: string[];
  state: string;
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
