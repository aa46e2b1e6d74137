// Generated from service/ops.go and lsp/commands.go by `go test ./lsp -run TestGenerated -update`; do not edit.
// The server's command contract (docs/commands.md) as TypeScript types. Plain JSON shapes, no 'vscode'.

/** Command identifiers of workspace/executeCommand, by operation. */
export const Commands = {
  callees: 'contextLs.callees',
  callers: 'contextLs.callers',
  definition: 'contextLs.definition',
  pack: 'contextLs.contextPack',
  pin: 'contextLs.pin',
  pins: 'contextLs.pins',
  references: 'contextLs.references',
  reindex: 'contextLs.reindex',
  related: 'contextLs.relatedContext',
  search: 'contextLs.search',
  similar: 'contextLs.similar',
  stats: 'contextLs.stats',
  status: 'contextLs.status',
  tests: 'contextLs.tests',
  unpin: 'contextLs.unpin',
} as const;

/** Argument rules: the range and default of every numeric argument, by operation. */
export const Limits = {
  callees: { limit: { min: 1, max: 1000, default: 50 } },
  callers: { limit: { min: 1, max: 1000, default: 50 } },
  pack: { budget: { min: 100, max: 1000000 } },
  references: { limit: { min: 1, max: 100000, default: 500 } },
  related: { k: { min: 1, max: 100, default: 20 }, budget: { min: 1, max: 1000000 } },
  search: { k: { min: 1, max: 100, default: 10 }, minScore: { min: 0, max: 1 } },
  similar: { k: { min: 1, max: 100, default: 10 } },
  tests: { limit: { min: 1, max: 1000, default: 50 } },
} as const;

/** The place arguments: a document position, or a selection. */
export interface PlaceArgs {
  textDocument?: { uri: string };
  uri?: string;
  position?: Position;
  range?: Range;
}

/** What an answer of one workspace folder adds: that folder's URI. */
export interface InFolder {
  folder?: string;
}

/** The answer of a command answered by every folder apart. */
export interface PerFolder<T> {
  folders: (T & { folder: string })[];
}

/** Work-done progress values ($/progress). */
export type ProgressValue =
  | { kind: 'begin'; title: string; message?: string; percentage?: number; cancellable?: boolean }
  | { kind: 'report'; message?: string; percentage?: number }
  | { kind: 'end'; message?: string };

export interface DocumentStatus {
  /** document URI */
  uri: string;
  /** the client's version number */
  version: number;
  /** size of the text in bytes */
  bytes: number;
}

export interface EmbeddingsState {
  /** off, unavailable, loading, embedding or ready */
  state: string;
  /** why embeddings are unavailable */
  reason?: string;
  /** model id (name@sha) */
  model?: string;
  /** chunks with a vector */
  vectors: number;
  /** files waiting to be embedded */
  pending: number;
  /** vectors computed since the index opened (the rest came from the cache) */
  embedded: number;
  /** share of vectors found in the cache (absent until vectors were looked up) */
  cacheHitRate?: number;
}

export interface FolderStatus {
  /** folder URI */
  uri: string;
  /** absolute folder path */
  path: string;
  /** folder name */
  name: string;
  /** open or unavailable */
  state: string;
  /** why the folder is unavailable */
  error?: string;
}

export interface GraphItem extends Located {
  /** the span of its name */
  nameRange: LineRange;
  /** its qualified name (a file name for top-level code) */
  symbol: string;
  /** function, method, test, file, … */
  kind: string;
  /** exact, likely or name-only: how surely the call resolves to the definition */
  confidence: string;
  /** callers and callees: what resolved the call; tests: direct, two-hops or naming */
  reason: string;
  /** tests: the reason in words */
  detail?: string;
  /** tests: the definition a two-hop test reaches the target through */
  via?: string;
  /** the calls: in the item's file for callers and tests, in the definition's file for callees */
  sites?: Located[];
  /** nameRange as an LSP location (added by the language server) */
  nameLocation: Location;
}

export interface GraphResult {
  /** one entry per definition the target names (a bare symbol may name several) */
  results: GraphTarget[];
}

export interface GraphTarget {
  /** the definition asked about */
  definition: Symbol;
  /** what the graph can justify (exact and likely), best first */
  items: GraphItem[];
  /** with guesses: name-only matches, never counted among the items */
  guesses?: GraphItem[];
  /** name-only matches not listed: all of them without guesses, those past limit with it; and items past the index's cap */
  omitted?: number;
  /** items beyond limit left out */
  truncated?: number;
  /** callees: called names that resolve to nothing indexed (library or builtin) */
  unresolved?: string[];
}

export interface Hit extends Located {
  /** the definition the snippet is about, or its label */
  symbol: string;
  /** chunk kind: function, method, class, markdown_section, … */
  kind: string;
  /** language of the file */
  language: string;
  /** relevance from 0 to 1 */
  score: number;
  /** the kinds of evidence that found it: body, title, code, vector, symbol, name, literal, path, filename, tested */
  sources: string[];
  /** the snippet, secrets redacted */
  text: string;
}

export interface IndexingState extends Rate {
  /** running, done, cancelled, failed: reason, or idle (nothing ran since the index opened) */
  state: string;
  /** a full scan is running */
  running: boolean;
  /** files processed by the running or last scan */
  done: number;
  /** files that scan had to process */
  total: number;
  /** 0 to 1; queries meanwhile answer from what is indexed */
  complete: number;
}

export interface JobStatus extends Rate {
  /** the job id */
  jobId: string;
  /** queued, running, done, failed or cancelled */
  status: string;
  /** the selection (empty: the whole workspace) */
  paths: string[];
  /** files processed so far */
  done: number;
  /** files to process (known once the selection is scanned) */
  total: number;
  /** files parsed and written */
  indexed: number;
  /** files dropped from the index */
  removed: number;
  /** files that could not be read or parsed */
  failed: number;
  /** why it failed or was cancelled */
  error?: string;
  /** RFC 3339 start time */
  started?: string;
  /** RFC 3339 end time */
  finished?: string;
  /** time taken so far */
  durationMs: number;
}

export interface LineRange {
  /** first line, 1-based */
  startLine: number;
  /** 1-based character column where the span starts (absent: the start of the line) */
  startColumn?: number;
  /** last line, 1-based, inclusive */
  endLine: number;
  /** 1-based character column just after the span (absent: the end of the line) */
  endColumn?: number;
}

export interface Located extends LineRange {
  /** workspace-relative, slash-separated path */
  path: string;
  /** file URI of the file */
  uri: string;
  /** the same span as an LSP location (added by the language server) */
  location: Location;
}

export interface Location {
  uri: string;
  range: Range;
}

export interface PackItem extends Located {
  /** the definition it shows, if any */
  symbol: string;
  /** its kind: function, outline, markdown_section, file, … */
  kind: string;
  /** language of the file (empty for plain text) */
  language: string;
  /** where it was found: query, selection, definition, caller, callee, test, similar, doc, cochange, pinned, always */
  source: string;
  /** why it is in the pack: query match, definition used by the selection, doc, pinned, … */
  reason: string;
  /** always (rules files), manual (pinned) or agent (chosen by relevance) */
  includeMode: string;
  /** relevance from 0 to 1 */
  score: number;
  /** tokens of its text */
  tokens: number;
  /** function bodies elided or lines cut to fit the budget */
  shortened?: boolean;
  /** format json only: the item's text, secrets redacted (every format holds it in the pack text) */
  text?: string;
}

export interface PackResult {
  /** the rendered pack, what to paste into a prompt, secrets redacted (with format json, a JSON array of the items with their text) */
  text?: string;
  /** markdown, xml, json or plain */
  format: string;
  /** tokens of the pack in its format — for json, of its items' headers and texts as markdown shows them (never more than budget) */
  tokens: number;
  /** the budget it was built for */
  budget: number;
  /** relevant candidates left out because the budget ran out */
  dropped: number;
  /** candidates left out because the request excluded them */
  excluded?: number;
  /** what the pack holds, in rendering order */
  items: PackItem[];
  /** sources that were skipped and other caveats */
  notes?: string[];
  /** time taken to build it */
  latencyMs: number;
}

export interface PackStats {
  /** context packs built since the index opened */
  count: number;
  /** their average size in tokens */
  avgTokens?: number;
}

export interface Pin extends Located {
  /** the pinned line range, A-B (1-based); absent for a whole file */
  lines?: string;
  /** tokens it adds to every pack (its current text) */
  tokens: number;
  /** why its text cannot be read (the file is gone) */
  error?: string;
}

export interface PinsResult {
  /** every pin after the change, in pinning order */
  pins: Pin[];
  /** tokens the pins add to every pack together */
  tokens: number;
}

export interface Position {
  line: number;
  character: number;
}

export interface QueryLatency {
  /** searches answered since the index opened */
  count: number;
  /** median latency in milliseconds */
  p50Ms: number;
  /** 95th percentile latency in milliseconds */
  p95Ms: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Rate {
  /** bytes of the files processed so far */
  bytes: number;
  /** bytes of the files to process */
  bytesTotal: number;
  /** files processed per second so far */
  filesPerSecond: number;
  /** estimate of the seconds left while running (-1: not known yet) */
  etaSeconds: number;
}

export interface Reference extends Located {
  /** qualified name of the definition holding it (a file name for top-level code; the definition itself for its declaration) */
  in: string;
  /** the kind of that definition (function, method, test, file, …), or declaration */
  kind: string;
  /** exact or likely: how surely the reference resolves to the definition */
  confidence: string;
  /** what resolved it */
  reason: string;
}

export interface ReferenceTarget {
  /** the definition asked about */
  definition: Symbol;
  /** the places referring to it the code graph can justify, grouped by the definition holding them (best first), in file order within each */
  references: Reference[];
  /** name-only matches the graph cannot tie to the definition, left out */
  omitted?: number;
  /** references beyond limit left out */
  truncated?: number;
}

export interface ReferencesResult {
  /** one entry per definition the target names (a bare symbol may name several) */
  results: ReferenceTarget[];
}

export interface ReindexResult {
  /** started (a job runs in the background) or planned (dryRun: nothing changed) */
  status: string;
  /** the job; poll it with job (stats list recent jobs) */
  jobId?: string;
  /** the selection, workspace-relative (empty: the whole workspace) */
  paths: string[];
  /** dryRun: files a reindex would parse again */
  reindexCount?: number;
  /** dryRun: indexed files it would drop (gone, excluded or not indexable) */
  removeCount?: number;
  /** dryRun: those files (the first 200) */
  reindex?: string[];
  /** dryRun: those files (the first 200) */
  remove?: string[];
}

export interface RelatedItem extends Located {
  /** the definition it shows, if any */
  symbol: string;
  /** its kind */
  kind: string;
  /** language of the file (empty for plain text) */
  language: string;
  /** definition, caller, callee, test, similar, doc, cochange, … */
  source: string;
  /** how it relates to the selection */
  reason: string;
  /** relevance from 0 to 1 */
  score: number;
  /** tokens in text */
  tokens: number;
  /** the snippet, secrets redacted */
  text: string;
}

export interface RelatedResult {
  /** the lines the items relate to */
  selection: Located;
  /** the definition the selection is, when it is one */
  symbol?: string;
  /** best first */
  items: RelatedItem[];
  /** items left out because k or the budget was reached (a larger k or budget shows them) */
  more?: number;
  /** sources that were skipped, and what k or the budget left out */
  notes?: string[];
}

export interface SearchResult {
  /** the query (similar: the snippet) */
  query: string;
  /** best first */
  hits: Hit[];
  /** what the answer could not use (embeddings still loading, …) */
  notes?: string[];
}

export interface ServerStatus {
  /** server name */
  name: string;
  /** server version */
  version: string;
}

export interface Settings {
  /** where indexes are kept, one per workspace folder (relative: to the folder); empty: the default location */
  dbPath: string;
  /** extra gitignore-style patterns of paths not to index */
  ignore: string[];
  /** files larger than this many bytes are not indexed */
  maxFileSize: number;
  /** compute embeddings for semantic search (forced off by CONTEXT_LS_EMBEDDINGS=off) */
  embeddings: boolean;
  /** embedding model directory; empty: the default model */
  modelPath: string;
  /** default token budget of context packs */
  budgetTokens: number;
  /** error, warn, info or debug; filters window/logMessage and stderr */
  logLevel: string;
}

export interface SnippetDefinitionArgs {
  /** the snippet's location, as a command returned it */
  location?: locationArg;
  /** a position inside the snippet text: line counted from the snippet's first line (0), character in UTF-16 units from the start of that line of the snippet */
  position?: positionArg;
}

export interface StatsResult {
  /** workspace root */
  root: string;
  /** file URI of the workspace root */
  uri: string;
  /** index directory */
  index: string;
  /** files indexed */
  files: number;
  /** definitions indexed */
  symbols: number;
  /** chunks indexed */
  chunks: number;
  /** lines indexed */
  lines: number;
  /** files per language */
  languages: Record<string, number>;
  /** size of the index on disk */
  indexBytes: number;
  /** RFC 3339 time the last full scan completed */
  lastIndex?: string;
  /** indexing progress */
  indexing: IndexingState;
  /** the semantic index */
  embeddings: EmbeddingsState;
  /** whether the index can be written */
  storage: StorageState;
  /** search latency */
  queries: QueryLatency;
  /** context packs built */
  packs: PackStats;
  /** recent reindex jobs of this index, oldest first */
  jobs: JobStatus[];
  /** editor buffers open on the workspace in the process that owns the index (their unsaved text is what queries see) */
  openBuffers: number;
  /** recent indexing activity, newest last */
  recent?: string[];
}

export interface StatusArgs {
}

export interface StatusResult {
  /** the server */
  server: ServerStatus;
  /** workspace folders, in the client's order */
  folders: FolderStatus[];
  /** open documents, sorted by path */
  documents: DocumentStatus[];
  /** settings in effect */
  settings: Settings;
  /** who reports changes on disk: client, server or none */
  watching: string;
}

export interface StorageState {
  /** ok; diskFull (writes are refused until space is freed, queries answer from the index as it is); failed (the store failed inside a write and answers from its last state until reopened); damaged (a read met corrupt data: the index is rebuilt when next opened) */
  state: string;
  /** one line naming the disk and the index directory */
  message?: string;
  /** free space on the index's disk (-1: unknown) */
  freeBytes: number;
  /** free space writes need */
  minFreeBytes: number;
}

export interface Symbol extends Located {
  /** the span of its name */
  nameRange: LineRange;
  /** qualified name (Container.Name) */
  symbol: string;
  /** its name */
  name: string;
  /** the enclosing type, class or namespace */
  container?: string;
  /** function, method, class, struct, interface, type, const, var, … */
  kind: string;
  /** language of the file */
  language: string;
  /** its declaration header, secrets redacted */
  signature?: string;
  /** its doc comment, secrets redacted */
  doc?: string;
  /** public in its language */
  exported?: boolean;
  /** document symbols: index in the list of the enclosing definition, or -1 */
  parent: number;
  /** fuzzy matches: how well the name matches (higher is better; comparable across workspaces) */
  score?: number;
  /** nameRange as an LSP location (added by the language server) */
  nameLocation: Location;
}

export interface locationArg {
  /** file URI */
  uri: string;
  /** the span in the file */
  range: rangeArg;
}

export interface positionArg {
  /** 0-based line */
  line: number;
  /** 0-based offset in the line, in UTF-16 code units */
  character: number;
}

export interface rangeArg {
  /** first position */
  start: positionArg;
  /** position just after the range */
  end: positionArg;
}

/** Arguments of contextLs.callees. */
export interface CalleesArgs extends PlaceArgs {
  /** a definition's name: bare ("Parse": every definition so named) or qualified ("url.Parse", "Client.Do"); instead of file */
  symbol?: string;
  /** most items per definition (1 to 1000; default 50) */
  limit?: number;
  /** also list name-only guesses (calls of the same name the graph cannot tie to this definition), in their own group */
  guesses?: boolean;
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.callers. */
export interface CallersArgs extends PlaceArgs {
  /** a definition's name: bare ("Parse": every definition so named) or qualified ("url.Parse", "Client.Do"); instead of file */
  symbol?: string;
  /** most items per definition (1 to 1000; default 50) */
  limit?: number;
  /** also list name-only guesses (calls of the same name the graph cannot tie to this definition), in their own group */
  guesses?: boolean;
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.contextPack. */
export interface PackArgs extends PlaceArgs {
  /** the task or question the pack is for; required without a selection */
  query?: string;
  /** a definition's name: bare ("Parse": every definition so named) or qualified ("url.Parse", "Client.Do"); instead of file */
  symbol?: string;
  /** most tokens the pack may have (default: the workspace's budgetTokens, 4000 unless configured) (100 to 1000000) */
  budget?: number;
  /** rendering of the pack (default: the workspace's pack.format, markdown unless configured); with json the items also carry their text (one of markdown, xml, json, plain) */
  format?: string;
  /** what the context is for: shifts the budget between sources (tests for testing, callers for review …); default analysis (one of analysis, implementation, review, testing, documentation, bugfix) */
  task?: string;
  /** items to leave out, as PATH (a whole file) or PATH:A-B (an item of those lines), for example from an earlier pack's items */
  exclude?: string[];
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.pin. */
export interface PinArgs extends PlaceArgs {
  /** a definition's name: bare ("Parse": every definition so named) or qualified ("url.Parse", "Client.Do"); instead of file */
  symbol?: string;
  /** unpin only: remove every pin (give nothing else) */
  all?: boolean;
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.pins. */
export interface PinsArgs {
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.references. */
export interface ReferencesArgs extends PlaceArgs {
  /** a definition's name: bare ("Parse": every definition so named) or qualified ("url.Parse", "Client.Do"); instead of file */
  symbol?: string;
  /** most references per definition (1 to 100000; default 500) */
  limit?: number;
  /** also list the definition's own name first (a declaration) */
  declaration?: boolean;
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.reindex. */
export interface ReindexArgs {
  /** files or directories (workspace-relative or absolute); empty: the whole workspace */
  paths?: string[];
  /** must be true to re-index (every selected file is parsed and written again); not needed with dryRun */
  confirm?: boolean;
  /** only check the paths and list what a reindex would parse again and remove; changes nothing */
  dryRun?: boolean;
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.relatedContext. */
export interface RelatedArgs extends PlaceArgs {
  /** a definition's name: bare ("Parse": every definition so named) or qualified ("url.Parse", "Client.Do"); instead of file */
  symbol?: string;
  /** most items (1 to 100; default 20) */
  k?: number;
  /** stop adding items once their tokens would pass this (absent: no budget) (1 to 1000000) */
  budget?: number;
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.search. */
export interface SearchArgs {
  /** what to look for: words, identifiers (parseURL, http.Client), a question, or a whole bug report */
  query: string;
  /** number of hits (1 to 100; default 10) */
  k?: number;
  /** only files matching one of these globs on workspace-relative paths ("internal/**", "** /*.go"; ** crosses directories; a glob without / matches file names anywhere); a glob starting with ! excludes */
  paths?: string[];
  /** only these languages (go, python, typescript, markdown, …) */
  languages?: string[];
  /** only these chunk kinds (function, method, class, type, markdown_section, …) */
  kinds?: string[];
  /** drop hits whose relevance (0 to 1) is below this (0 to 1) */
  minScore?: number;
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.similar. */
export interface SimilarArgs extends PlaceArgs {
  /** the code (or prose) to find neighbours of; instead of a selection */
  snippet?: string;
  /** a definition's name: bare ("Parse": every definition so named) or qualified ("url.Parse", "Client.Do"); instead of file */
  symbol?: string;
  /** number of hits (1 to 100; default 10) */
  k?: number;
  /** only files matching one of these globs (as in search) */
  paths?: string[];
  /** only these languages */
  languages?: string[];
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.stats. */
export interface StatsArgs {
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.tests. */
export interface TestsArgs extends PlaceArgs {
  /** a definition's name: bare ("Parse": every definition so named) or qualified ("url.Parse", "Client.Do"); instead of file */
  symbol?: string;
  /** most items per definition (1 to 1000; default 50) */
  limit?: number;
  /** also list name-only guesses (calls of the same name the graph cannot tie to this definition), in their own group */
  guesses?: boolean;
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** Arguments of contextLs.unpin. */
export interface UnpinArgs extends PlaceArgs {
  /** a definition's name: bare ("Parse": every definition so named) or qualified ("url.Parse", "Client.Do"); instead of file */
  symbol?: string;
  /** unpin only: remove every pin (give nothing else) */
  all?: boolean;
  /** URI of the workspace folder to ask (default: as the command's scope says) */
  folder?: string;
}

/** The answer of contextLs.callees. */
export type CalleesAnswer = GraphResult & InFolder;

/** The answer of contextLs.callers. */
export type CallersAnswer = GraphResult & InFolder;

/** The answer of contextLs.definition. */
export type DefinitionAnswer = Location[];

/** The answer of contextLs.contextPack. */
export type PackAnswer = PackResult & InFolder;

/** The answer of contextLs.pin. */
export type PinAnswer = PinsResult & InFolder;

/** The answer of contextLs.pins. */
export type PinsAnswer = PinsResult & InFolder;

/** The answer of contextLs.references. */
export type ReferencesAnswer = ReferencesResult & InFolder;

/** The answer of contextLs.reindex. */
export type ReindexAnswer = PerFolder<ReindexResult>;

/** The answer of contextLs.relatedContext. */
export type RelatedAnswer = RelatedResult & InFolder;

/** The answer of contextLs.search. */
export type SearchAnswer = SearchResult & InFolder;

/** The answer of contextLs.similar. */
export type SimilarAnswer = SearchResult & InFolder;

/** The answer of contextLs.stats. */
export type StatsAnswer = PerFolder<StatsResult>;

/** The answer of contextLs.status. */
export type StatusAnswer = StatusResult;

/** The answer of contextLs.tests. */
export type TestsAnswer = GraphResult & InFolder;

/** The answer of contextLs.unpin. */
export type UnpinAnswer = PinsResult & InFolder;
