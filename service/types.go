package service

// Requests and results of the operations, in editor terms: paths are
// workspace-relative and slash-separated (absolute paths inside the
// workspace are accepted in requests), lines are 1-based, and columns are
// 1-based and count characters (Unicode code points), never bytes or
// UTF-16 units. Front ends convert at their edge (the language server to
// UTF-16 positions).
//
// The tags are read by the argument rules (args.go) and by the MCP
// server's schema generator: desc is required on every field.

// ---------------------------------------------------------------------------
// Shared shapes.

// Range is a span of a file. End columns are exclusive; columns are 0 (left
// out) where only lines are known.
type Range struct {
	StartLine   int `json:"startLine" desc:"first line, 1-based"`
	StartColumn int `json:"startColumn,omitempty" desc:"1-based character column where the span starts (absent: the start of the line)"`
	EndLine     int `json:"endLine" desc:"last line, 1-based, inclusive"`
	EndColumn   int `json:"endColumn,omitempty" desc:"1-based character column just after the span (absent: the end of the line)"`
}

// Location is where a result is: what a client needs to open it.
type Location struct {
	Path string `json:"path" desc:"workspace-relative, slash-separated path"`
	Range
	URI string `json:"uri" desc:"file URI of the file"`
}

// Target names a definition or a place in the workspace: a symbol name,
// or a file with a line (and column).
type Target struct {
	Symbol string `json:"symbol,omitempty" check:"maxLen=1000" desc:"a definition's name: bare (\"Parse\": every definition so named) or qualified (\"url.Parse\", \"Client.Do\"); instead of file"`
	File   string `json:"file,omitempty" check:"maxLen=4096" desc:"a workspace file (workspace-relative or absolute)"`
	Line   int    `json:"line,omitempty" check:"min=1" desc:"1-based line in file: of a definition's name, of a call, or inside a body"`
	Column int    `json:"column,omitempty" check:"min=1" desc:"1-based character column on line, to pick one name or call among several"`
}

// Selection names code a request is about: a target, or lines of a file.
type Selection struct {
	Target
	Lines string `json:"lines,omitempty" check:"maxLen=64" desc:"lines of file, \"A-B\" or \"A\", 1-based and inclusive, instead of line (file alone: the whole file)"`
}

// Symbol is a definition.
type Symbol struct {
	// Location is the whole definition.
	Location
	NameRange Range   `json:"nameRange" desc:"the span of its name"`
	Symbol    string  `json:"symbol" desc:"qualified name (Container.Name)"`
	Name      string  `json:"name" desc:"its name"`
	Container string  `json:"container,omitempty" desc:"the enclosing type, class or namespace"`
	Kind      string  `json:"kind" desc:"function, method, class, struct, interface, type, const, var, …"`
	Language  string  `json:"language" desc:"language of the file"`
	Signature string  `json:"signature,omitempty" desc:"its declaration header, secrets redacted"`
	Doc       string  `json:"doc,omitempty" desc:"its doc comment, secrets redacted"`
	Exported  bool    `json:"exported,omitempty" desc:"public in its language"`
	Parent    int     `json:"parent" desc:"document symbols: index in the list of the enclosing definition, or -1"`
	Score     float64 `json:"score,omitempty" desc:"fuzzy matches: how well the name matches (higher is better; comparable across workspaces)"`
}

// ---------------------------------------------------------------------------
// search, similar

// SearchRequest asks for ranked, located snippets.
type SearchRequest struct {
	Query     string   `json:"query" check:"required,maxLen=100000" desc:"what to look for: words, identifiers (parseURL, http.Client), a question, or a whole bug report"`
	K         int      `json:"k,omitempty" check:"min=1,max=100,default=10" desc:"number of hits"`
	Paths     []string `json:"paths,omitempty" check:"maxItems=100,maxLen=1000" desc:"only files matching one of these globs on workspace-relative paths (\"internal/**\", \"**/*.go\"; ** crosses directories; a glob without / matches file names anywhere); a glob starting with ! excludes"`
	Languages []string `json:"languages,omitempty" check:"maxItems=100,maxLen=100" desc:"only these languages (go, python, typescript, markdown, …)"`
	Kinds     []string `json:"kinds,omitempty" check:"maxItems=100,maxLen=100" desc:"only these chunk kinds (function, method, class, type, markdown_section, …)"`
	MinScore  float64  `json:"minScore,omitempty" check:"min=0,max=1" desc:"drop hits whose relevance (0 to 1) is below this"`
}

// Hit is one located snippet.
type Hit struct {
	// Location is the snippet's exact span (its columns included).
	Location
	Symbol   string   `json:"symbol" desc:"the definition the snippet is about, or its label"`
	Kind     string   `json:"kind" desc:"chunk kind: function, method, class, markdown_section, …"`
	Language string   `json:"language" desc:"language of the file"`
	Score    float64  `json:"score" desc:"relevance from 0 to 1"`
	Sources  []string `json:"sources" desc:"the kinds of evidence that found it: body, title, code, vector, symbol, name, literal, path, filename, tested"`
	Text     string   `json:"text" desc:"the snippet, secrets redacted"`
}

// SearchResult answers search and similar.
type SearchResult struct {
	Query string   `json:"query" desc:"the query (similar: the snippet)"`
	Hits  []Hit    `json:"hits" desc:"best first"`
	Notes []string `json:"notes,omitempty" desc:"what the answer could not use (embeddings still loading, …)"`
}

// SimilarRequest asks for code near a snippet or a selection by
// embedding.
type SimilarRequest struct {
	Snippet string `json:"snippet,omitempty" check:"maxLen=100000" desc:"the code (or prose) to find neighbours of; instead of a selection"`
	Selection
	K         int      `json:"k,omitempty" check:"min=1,max=100,default=10" desc:"number of hits"`
	Paths     []string `json:"paths,omitempty" check:"maxItems=100,maxLen=1000" desc:"only files matching one of these globs (as in search)"`
	Languages []string `json:"languages,omitempty" check:"maxItems=100,maxLen=100" desc:"only these languages"`
}

// ---------------------------------------------------------------------------
// related, pack

// RelatedRequest asks what bears on a selection, unbudgeted.
type RelatedRequest struct {
	Selection
	K      int `json:"k,omitempty" check:"min=1,max=100,default=20" desc:"most items"`
	Budget int `json:"budget,omitempty" check:"min=1,max=1000000" desc:"stop adding items once their tokens would pass this (absent: no budget)"`
}

// RelatedItem is one piece of related context.
type RelatedItem struct {
	Location
	Symbol   string  `json:"symbol" desc:"the definition it shows, if any"`
	Kind     string  `json:"kind" desc:"its kind"`
	Language string  `json:"language" desc:"language of the file (empty for plain text)"`
	Source   string  `json:"source" desc:"definition, caller, callee, test, similar, doc, cochange, …"`
	Reason   string  `json:"reason" desc:"how it relates to the selection"`
	Score    float64 `json:"score" desc:"relevance from 0 to 1"`
	Tokens   int     `json:"tokens" desc:"tokens in text"`
	Text     string  `json:"text" desc:"the snippet, secrets redacted"`
}

// RelatedResult answers related.
type RelatedResult struct {
	Selection Location      `json:"selection" desc:"the lines the items relate to"`
	Symbol    string        `json:"symbol,omitempty" desc:"the definition the selection is, when it is one"`
	Items     []RelatedItem `json:"items" desc:"best first"`
	More      int           `json:"more,omitempty" desc:"items left out because k or the budget was reached (a larger k or budget shows them)"`
	Notes     []string      `json:"notes,omitempty" desc:"sources that were skipped, and what k or the budget left out"`
}

// PackRequest asks for a token-budgeted context pack.
type PackRequest struct {
	Query string `json:"query,omitempty" check:"maxLen=100000" desc:"the task or question the pack is for; required without a selection"`
	Selection
	Budget  int      `json:"budget,omitempty" check:"min=100,max=1000000" desc:"most tokens the pack may have (default: the workspace's budgetTokens, 4000 unless configured)"`
	Format  string   `json:"format,omitempty" check:"enum=markdown|xml|json|plain" desc:"rendering of the pack (default: the workspace's pack.format, markdown unless configured); with json the items also carry their text"`
	Task    string   `json:"task,omitempty" check:"enum=analysis|implementation|review|testing|documentation|bugfix" desc:"what the context is for: shifts the budget between sources (tests for testing, callers for review …); default analysis"`
	Exclude []string `json:"exclude,omitempty" check:"maxItems=500,maxLen=4200" desc:"items to leave out, as PATH (a whole file) or PATH:A-B (an item of those lines), for example from an earlier pack's items"`
}

// PackItem is one snippet of a context pack.
type PackItem struct {
	Location
	Symbol      string  `json:"symbol" desc:"the definition it shows, if any"`
	Kind        string  `json:"kind" desc:"its kind: function, outline, markdown_section, file, …"`
	Language    string  `json:"language" desc:"language of the file (empty for plain text)"`
	Source      string  `json:"source" desc:"where it was found: query, selection, definition, caller, callee, test, similar, doc, cochange, pinned, always"`
	Reason      string  `json:"reason" desc:"why it is in the pack: query match, definition used by the selection, doc, pinned, …"`
	IncludeMode string  `json:"includeMode" desc:"always (rules files), manual (pinned) or agent (chosen by relevance)"`
	Score       float64 `json:"score" desc:"relevance from 0 to 1"`
	Tokens      int     `json:"tokens" desc:"tokens of its text"`
	Shortened   bool    `json:"shortened,omitempty" desc:"function bodies elided or lines cut to fit the budget"`
	Text        string  `json:"text,omitempty" desc:"format json only: the item's text, secrets redacted (every format holds it in the pack text)"`
}

// PackResult answers pack.
type PackResult struct {
	Text      string     `json:"text,omitempty" desc:"the rendered pack, what to paste into a prompt, secrets redacted (with format json, a JSON array of the items with their text)"`
	Format    string     `json:"format" desc:"markdown, xml, json or plain"`
	Tokens    int        `json:"tokens" desc:"tokens of the pack in its format — for json, of its items' headers and texts as markdown shows them (never more than budget)"`
	Budget    int        `json:"budget" desc:"the budget it was built for"`
	Dropped   int        `json:"dropped" desc:"relevant candidates left out because the budget ran out"`
	Excluded  int        `json:"excluded,omitempty" desc:"candidates left out because the request excluded them"`
	Items     []PackItem `json:"items" desc:"what the pack holds, in rendering order"`
	Notes     []string   `json:"notes,omitempty" desc:"sources that were skipped and other caveats"`
	LatencyMs float64    `json:"latencyMs" desc:"time taken to build it"`
}

// ---------------------------------------------------------------------------
// callers, callees, tests

// GraphRequest asks the code graph about a definition.
type GraphRequest struct {
	Target
	Limit   int  `json:"limit,omitempty" check:"min=1,max=1000,default=50" desc:"most items per definition"`
	Guesses bool `json:"guesses,omitempty" desc:"also list name-only guesses (calls of the same name the graph cannot tie to this definition), in their own group"`
}

// GraphItem is one caller, callee or test.
type GraphItem struct {
	// Location is the item's whole definition.
	Location
	NameRange  Range      `json:"nameRange" desc:"the span of its name"`
	Symbol     string     `json:"symbol" desc:"its qualified name (a file name for top-level code)"`
	Kind       string     `json:"kind" desc:"function, method, test, file, …"`
	Confidence string     `json:"confidence" desc:"exact, likely or name-only: how surely the call resolves to the definition"`
	Reason     string     `json:"reason" desc:"callers and callees: what resolved the call; tests: direct, two-hops or naming"`
	Detail     string     `json:"detail,omitempty" desc:"tests: the reason in words"`
	Via        string     `json:"via,omitempty" desc:"tests: the definition a two-hop test reaches the target through"`
	Sites      []Location `json:"sites,omitempty" desc:"the calls: in the item's file for callers and tests, in the definition's file for callees"`
}

// GraphTarget is the answer for one definition.
type GraphTarget struct {
	Definition Symbol      `json:"definition" desc:"the definition asked about"`
	Items      []GraphItem `json:"items" desc:"what the graph can justify (exact and likely), best first"`
	Guesses    []GraphItem `json:"guesses,omitempty" desc:"with guesses: name-only matches, never counted among the items"`
	Omitted    int         `json:"omitted,omitempty" desc:"name-only matches not listed: all of them without guesses, those past limit with it; and items past the index's cap"`
	Truncated  int         `json:"truncated,omitempty" desc:"items beyond limit left out"`
	Unresolved []string    `json:"unresolved,omitempty" desc:"callees: called names that resolve to nothing indexed (library or builtin)"`
}

// GraphResult answers callers, callees and tests.
type GraphResult struct {
	Results []GraphTarget `json:"results" desc:"one entry per definition the target names (a bare symbol may name several)"`
}

// ReferencesRequest asks where a definition is referred to.
type ReferencesRequest struct {
	Target
	Limit       int  `json:"limit,omitempty" check:"min=1,max=100000,default=500" desc:"most references per definition"`
	Declaration bool `json:"declaration,omitempty" desc:"also list the definition's own name first (a declaration)"`
}

// Reference is one place that refers to a definition.
type Reference struct {
	// Location is the reference itself: the name as it is written there.
	Location
	In         string `json:"in" desc:"qualified name of the definition holding it (a file name for top-level code; the definition itself for its declaration)"`
	Kind       string `json:"kind" desc:"the kind of that definition (function, method, test, file, …), or declaration"`
	Confidence string `json:"confidence" desc:"exact or likely: how surely the reference resolves to the definition"`
	Reason     string `json:"reason" desc:"what resolved it"`
}

// ReferenceTarget is the answer for one definition.
type ReferenceTarget struct {
	Definition Symbol      `json:"definition" desc:"the definition asked about"`
	References []Reference `json:"references" desc:"the places referring to it the code graph can justify, grouped by the definition holding them (best first), in file order within each"`
	Omitted    int         `json:"omitted,omitempty" desc:"name-only matches the graph cannot tie to the definition, left out"`
	Truncated  int         `json:"truncated,omitempty" desc:"references beyond limit left out"`
}

// ReferencesResult answers references.
type ReferencesResult struct {
	Results []ReferenceTarget `json:"results" desc:"one entry per definition the target names (a bare symbol may name several)"`
}

// ---------------------------------------------------------------------------
// definition, hover, symbols

// PositionRequest names a position in a file: for definition and hover.
type PositionRequest struct {
	File   string `json:"file" check:"required,maxLen=4096" desc:"the file (workspace-relative or absolute)"`
	Line   int    `json:"line" check:"required,min=1" desc:"1-based line"`
	Column int    `json:"column" check:"required,min=1" desc:"1-based character column"`
}

// DefinitionResult answers definition.
type DefinitionResult struct {
	Identifier  string   `json:"identifier" desc:"the identifier at the position (empty: none)"`
	Range       Range    `json:"range" desc:"its span"`
	Definitions []Symbol `json:"definitions" desc:"its definitions, best first"`
}

// Count is how many callers or tests a definition has.
type Count struct {
	Count int  `json:"count" desc:"exact and likely items"`
	More  bool `json:"more,omitempty" desc:"at least count: the count stopped at its limit"`
	// First are the first few of them, best first.
	First []GraphItem `json:"first" desc:"the first few, best first"`
}

// HoverResult answers hover: the definition at a position and a little of
// what relates to it.
type HoverResult struct {
	Identifier string  `json:"identifier" desc:"the identifier at the position (empty: none)"`
	Range      Range   `json:"range" desc:"its span"`
	Definition *Symbol `json:"definition,omitempty" desc:"its best definition"`
	More       int     `json:"more,omitempty" desc:"other definitions of the same name"`
	Callers    *Count  `json:"callers,omitempty" desc:"callers the graph can justify (absent for definitions that are not called, such as types, unless some exist)"`
	Tests      *Count  `json:"tests,omitempty" desc:"tests that exercise it"`
	Related    []Hit   `json:"related" desc:"other definitions search relates to it (their text left out)"`
}

// SymbolsRequest asks for definitions: by name, by fuzzy query, of a file,
// or all of them.
type SymbolsRequest struct {
	Name  string `json:"name,omitempty" check:"maxLen=1000" desc:"definitions of this name (Func, Type.Method, pkg.Func), else fuzzy matches of it"`
	Query string `json:"query,omitempty" check:"maxLen=1000" desc:"fuzzy matches of this text, best first (workspace symbols)"`
	File  string `json:"file,omitempty" check:"maxLen=4096" desc:"the definitions of this file, in source order (document symbols)"`
	Limit int    `json:"limit,omitempty" check:"min=1,max=1000000" desc:"at most this many (absent: all of a file's, else 200; query: 100)"`
}

// SymbolsResult answers symbols.
type SymbolsResult struct {
	Symbols []Symbol `json:"symbols" desc:"the definitions"`
	Fuzzy   bool     `json:"fuzzy,omitempty" desc:"name: no definition has it exactly, these match it fuzzily"`
	More    int      `json:"more,omitempty" desc:"definitions left out by the limit (a larger limit lists them)"`
}

// ---------------------------------------------------------------------------
// stats, files

// StatsRequest takes no arguments.
type StatsRequest struct{}

// IndexingState tells how complete the index is.
type IndexingState struct {
	State    string  `json:"state" desc:"running, done, cancelled, failed: reason, or idle (nothing ran since the index opened)"`
	Running  bool    `json:"running" desc:"a full scan is running"`
	Done     int     `json:"done" desc:"files processed by the running or last scan"`
	Total    int     `json:"total" desc:"files that scan had to process"`
	Complete float64 `json:"complete" desc:"0 to 1; queries meanwhile answer from what is indexed"`
	Rate
}

// Rate is how far files being indexed have got and how fast.
type Rate struct {
	Bytes          int64   `json:"bytes" desc:"bytes of the files processed so far"`
	BytesTotal     int64   `json:"bytesTotal" desc:"bytes of the files to process"`
	FilesPerSecond float64 `json:"filesPerSecond" desc:"files processed per second so far"`
	EtaSeconds     float64 `json:"etaSeconds" desc:"estimate of the seconds left while running (-1: not known yet)"`
}

// EmbeddingsState describes the semantic index.
type EmbeddingsState struct {
	State        string   `json:"state" desc:"off, unavailable, loading, embedding or ready"`
	Reason       string   `json:"reason,omitempty" desc:"why embeddings are unavailable"`
	Model        string   `json:"model,omitempty" desc:"model id (name@sha)"`
	Vectors      int      `json:"vectors" desc:"chunks with a vector"`
	Pending      int      `json:"pending" desc:"files waiting to be embedded"`
	Embedded     int64    `json:"embedded" desc:"vectors computed since the index opened (the rest came from the cache)"`
	CacheHitRate *float64 `json:"cacheHitRate,omitempty" desc:"share of vectors found in the cache (absent until vectors were looked up)"`
}

// QueryLatency summarises search latency.
type QueryLatency struct {
	Count int     `json:"count" desc:"searches answered since the index opened"`
	P50Ms float64 `json:"p50Ms" desc:"median latency in milliseconds"`
	P95Ms float64 `json:"p95Ms" desc:"95th percentile latency in milliseconds"`
}

// PackStats summarises the packs built.
type PackStats struct {
	Count     int      `json:"count" desc:"context packs built since the index opened"`
	AvgTokens *float64 `json:"avgTokens,omitempty" desc:"their average size in tokens"`
}

// StatsResult answers stats.
type StatsResult struct {
	Root        string          `json:"root" desc:"workspace root"`
	URI         string          `json:"uri" desc:"file URI of the workspace root"`
	Index       string          `json:"index" desc:"index directory"`
	Files       int             `json:"files" desc:"files indexed"`
	Symbols     int             `json:"symbols" desc:"definitions indexed"`
	Chunks      int             `json:"chunks" desc:"chunks indexed"`
	Lines       int             `json:"lines" desc:"lines indexed"`
	Languages   map[string]int  `json:"languages" desc:"files per language"`
	IndexBytes  int64           `json:"indexBytes" desc:"size of the index on disk"`
	LastIndex   string          `json:"lastIndex,omitempty" desc:"RFC 3339 time the last full scan completed"`
	Indexing    IndexingState   `json:"indexing" desc:"indexing progress"`
	Embeddings  EmbeddingsState `json:"embeddings" desc:"the semantic index"`
	Storage     StorageState    `json:"storage" desc:"whether the index can be written"`
	Queries     QueryLatency    `json:"queries" desc:"search latency"`
	Packs       PackStats       `json:"packs" desc:"context packs built"`
	Jobs        []JobStatus     `json:"jobs" desc:"recent reindex jobs of this index, oldest first"`
	OpenBuffers int             `json:"openBuffers" desc:"editor buffers open on the workspace in the process that owns the index (their unsaved text is what queries see)"`
	Recent      []string        `json:"recent,omitempty" desc:"recent indexing activity, newest last"`
}

// VerifyRequest asks for a check of the whole index.
type VerifyRequest struct{}

// VerifyResult answers verify.
type VerifyResult struct {
	Damaged  bool     `json:"damaged" desc:"true when something is wrong with the index"`
	Problems []string `json:"problems" desc:"what is wrong (empty when nothing is)"`
	Rebuild  string   `json:"rebuild,omitempty" desc:"what is marked to be rebuilt when the index is next opened: store (every file re-indexed from disk) or text (the text index re-fed from the store)"`
	Files    int      `json:"files" desc:"file records read"`
	Chunks   int      `json:"chunks" desc:"chunks read"`
	Keys     int      `json:"keys" desc:"keys of the store read (Pebble checks every block's checksum)"`
	TextDocs uint64   `json:"textDocs" desc:"documents of the text index"`
}

// StorageState says whether the index can be written.
type StorageState struct {
	State        string `json:"state" desc:"ok; diskFull (writes are refused until space is freed, queries answer from the index as it is); failed (the store failed inside a write and answers from its last state until reopened); damaged (a read met corrupt data: the index is rebuilt when next opened)"`
	Message      string `json:"message,omitempty" desc:"one line naming the disk and the index directory"`
	FreeBytes    int64  `json:"freeBytes" desc:"free space on the index's disk (-1: unknown)"`
	MinFreeBytes int64  `json:"minFreeBytes" desc:"free space writes need"`
}

// FilesRequest asks what is indexed, or why a path is or is not.
type FilesRequest struct {
	Why string `json:"why,omitempty" check:"maxLen=65536" desc:"explain the decision for this path instead of listing"`
}

// FileEntry is one indexable file.
type FileEntry struct {
	Path     string `json:"path" desc:"workspace-relative path"`
	Language string `json:"language" desc:"its language"`
}

// Decision explains whether a path is indexed.
type Decision struct {
	Path     string `json:"path" desc:"workspace-relative path"`
	Included bool   `json:"included" desc:"whether it is indexed"`
	Source   string `json:"source,omitempty" desc:"what decided: a .gitignore, .contextignore, the configuration, the denylist, size, binary content, language"`
	Rule     string `json:"rule,omitempty" desc:"the rule that decided"`
}

// FilesResult answers files.
type FilesResult struct {
	Files []FileEntry `json:"files,omitempty" desc:"what would be indexed"`
	Why   *Decision   `json:"why,omitempty" desc:"with why: the decision"`
}

// ---------------------------------------------------------------------------
// index, refresh, reindex, jobs

// IndexRequest brings the index up to date.
type IndexRequest struct {
	Embeddings bool `json:"embeddings,omitempty" desc:"also wait until every chunk has its vector (when embeddings are on)"`
}

// IndexResult answers index.
type IndexResult struct {
	Files      int             `json:"files" desc:"indexable files in the workspace"`
	Indexed    int             `json:"indexed" desc:"files parsed and written"`
	Unchanged  int             `json:"unchanged" desc:"files already current"`
	Deleted    int             `json:"deleted" desc:"files dropped from the index"`
	Failed     int             `json:"failed" desc:"files that could not be read or parsed"`
	Symbols    int             `json:"symbols" desc:"definitions written"`
	Chunks     int             `json:"chunks" desc:"chunks written"`
	Lines      int             `json:"lines" desc:"lines parsed"`
	Bytes      int64           `json:"bytes" desc:"bytes parsed"`
	DurationMs float64         `json:"durationMs" desc:"time taken"`
	Embeddings EmbeddingsState `json:"embeddings" desc:"the semantic index afterwards"`
}

// RefreshRequest re-reads files from disk.
type RefreshRequest struct {
	Paths []string `json:"paths,omitempty" check:"maxItems=10000,maxLen=4096" desc:"files or directories to re-read from disk (workspace-relative or absolute); empty: scan the whole workspace for changes"`
	Sync  *bool    `json:"sync,omitempty" check:"default=true" desc:"true: return once the index holds the new content; false: return at once and refresh in the background"`
}

// FileOutcome is what a refresh did to one file.
type FileOutcome struct {
	Path    string `json:"path" desc:"workspace-relative path"`
	Outcome string `json:"outcome" desc:"added, updated, unchanged, removed, not indexed (excluded or unsupported), not found, editor buffer (an open editor buffer wins over disk) or queued"`
}

// ScanSummary summarises a whole-workspace scan.
type ScanSummary struct {
	Files     int `json:"files" desc:"indexable files in the workspace"`
	Indexed   int `json:"indexed" desc:"files parsed and written"`
	Unchanged int `json:"unchanged" desc:"files already current"`
	Removed   int `json:"removed" desc:"files dropped from the index"`
	Failed    int `json:"failed" desc:"files that could not be read"`
}

// RefreshResult answers refresh.
type RefreshResult struct {
	Status     string        `json:"status" desc:"done, or started (sync false: the refresh runs in the background)"`
	Files      []FileOutcome `json:"files" desc:"the files named (and files indexed under vanished directories)"`
	Scan       *ScanSummary  `json:"scan,omitempty" desc:"the whole-workspace scan, when one ran (no paths, or a directory)"`
	DurationMs float64       `json:"durationMs" desc:"time taken"`
}

// ReindexRequest parses and writes selected files again whatever the index
// holds.
type ReindexRequest struct {
	Paths   []string `json:"paths,omitempty" check:"maxItems=10000,maxLen=4096" desc:"files or directories (workspace-relative or absolute); empty: the whole workspace"`
	Confirm bool     `json:"confirm,omitempty" desc:"must be true to re-index (every selected file is parsed and written again); not needed with dryRun"`
	DryRun  bool     `json:"dryRun,omitempty" desc:"only check the paths and list what a reindex would parse again and remove; changes nothing"`
}

// ReindexResult answers reindex.
type ReindexResult struct {
	Status       string   `json:"status" desc:"started (a job runs in the background) or planned (dryRun: nothing changed)"`
	JobID        string   `json:"jobId,omitempty" desc:"the job; poll it with job (stats list recent jobs)"`
	Paths        []string `json:"paths" desc:"the selection, workspace-relative (empty: the whole workspace)"`
	ReindexCount int      `json:"reindexCount,omitempty" desc:"dryRun: files a reindex would parse again"`
	RemoveCount  int      `json:"removeCount,omitempty" desc:"dryRun: indexed files it would drop (gone, excluded or not indexable)"`
	Reindex      []string `json:"reindex,omitempty" desc:"dryRun: those files (the first 200)"`
	Remove       []string `json:"remove,omitempty" desc:"dryRun: those files (the first 200)"`
}

// JobRequest names a job.
type JobRequest struct {
	JobID string `json:"jobId" check:"required,maxLen=200" desc:"the job id reindex returned"`
}

// JobStatus is the state of a reindex job.
type JobStatus struct {
	JobID      string   `json:"jobId" desc:"the job id"`
	Status     string   `json:"status" desc:"queued, running, done, failed or cancelled"`
	Paths      []string `json:"paths" desc:"the selection (empty: the whole workspace)"`
	Done       int      `json:"done" desc:"files processed so far"`
	Total      int      `json:"total" desc:"files to process (known once the selection is scanned)"`
	Indexed    int      `json:"indexed" desc:"files parsed and written"`
	Removed    int      `json:"removed" desc:"files dropped from the index"`
	Failed     int      `json:"failed" desc:"files that could not be read or parsed"`
	Error      string   `json:"error,omitempty" desc:"why it failed or was cancelled"`
	Started    string   `json:"started,omitempty" desc:"RFC 3339 start time"`
	Finished   string   `json:"finished,omitempty" desc:"RFC 3339 end time"`
	DurationMs float64  `json:"durationMs" desc:"time taken so far"`
	Rate
}

// ---------------------------------------------------------------------------
// pins

// PinRequest pins or unpins a selection (its lines), a definition (the
// symbol's, or the one at a line) or a whole file.
type PinRequest struct {
	Selection
	All bool `json:"all,omitempty" desc:"unpin only: remove every pin (give nothing else)"`
}

// PinsRequest lists the pins.
type PinsRequest struct{}

// Pin is one pinned file or line range.
type Pin struct {
	// Location is the pinned lines (the whole file: line 1 to its end).
	Location
	Lines  string `json:"lines,omitempty" desc:"the pinned line range, A-B (1-based); absent for a whole file"`
	Tokens int    `json:"tokens" desc:"tokens it adds to every pack (its current text)"`
	Error  string `json:"error,omitempty" desc:"why its text cannot be read (the file is gone)"`
}

// PinsResult answers pin, unpin and pins.
type PinsResult struct {
	Pins   []Pin `json:"pins" desc:"every pin after the change, in pinning order"`
	Tokens int   `json:"tokens" desc:"tokens the pins add to every pack together"`
}
