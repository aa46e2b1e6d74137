package mcp

// Arguments of the tools. Tags: see args.go.

// QueryContextArgs are the arguments of query_context.
type QueryContextArgs struct {
	Query     string   `json:"query" mcp:"required,maxLen=2000" desc:"what to look for: words, identifiers (parseURL, http.Client) or a question"`
	K         int      `json:"k,omitempty" mcp:"min=1,max=50,default=10" desc:"number of hits"`
	Paths     []string `json:"paths,omitempty" desc:"only files matching one of these globs on workspace-relative paths (\"internal/**\", \"**/*.go\"; ** crosses directories); a glob starting with ! excludes"`
	Languages []string `json:"languages,omitempty" desc:"only these languages (go, python, typescript, markdown, …)"`
	Kinds     []string `json:"kinds,omitempty" desc:"only these chunk kinds (function, method, class, type, markdown_section, …)"`
	MinScore  float64  `json:"minScore,omitempty" mcp:"min=0,max=1" desc:"drop hits whose relevance (0 to 1) is below this"`
}

// ContextPackArgs are the arguments of context_pack.
type ContextPackArgs struct {
	Query  string `json:"query,omitempty" mcp:"maxLen=2000" desc:"the task or question the pack is for; required without file"`
	File   string `json:"file,omitempty" desc:"a file the pack is about (workspace-relative or absolute): the definitions it uses, docs mentioning it and files changed with it join the pack"`
	Lines  string `json:"lines,omitempty" desc:"the lines of file the pack is about, \"A-B\" or \"A\", 1-based and inclusive (default: the whole file)"`
	Budget int    `json:"budget,omitempty" mcp:"min=100,max=200000" desc:"most tokens the pack text may have (default: the workspace's budgetTokens setting, 4000 unless configured)"`
	Format string `json:"format,omitempty" mcp:"enum=markdown|xml|json|plain" desc:"rendering of the pack text (default: the workspace's pack.format, markdown unless configured)"`
	Task   string `json:"task,omitempty" mcp:"enum=analysis|implementation|review|testing|documentation|bugfix" desc:"what the context is for: shifts the budget between sources (tests for testing, callers for review …); default analysis"`
}

// RelatedContextArgs are the arguments of related_context.
type RelatedContextArgs struct {
	File  string `json:"file" mcp:"required" desc:"the file (workspace-relative or absolute)"`
	Lines string `json:"lines,omitempty" desc:"the lines of file, \"A-B\" or \"A\", 1-based and inclusive (default: the whole file)"`
	K     int    `json:"k,omitempty" mcp:"min=1,max=50,default=10" desc:"most items"`
}

// TargetArgs name a definition for the graph tools.
type TargetArgs struct {
	Symbol string `json:"symbol,omitempty" desc:"the definition's name: bare (\"Parse\": every definition so named) or qualified (\"url.Parse\", \"Client.Do\"); instead of file and line"`
	File   string `json:"file,omitempty" desc:"file holding the definition's name or a call to it (workspace-relative or absolute); with line"`
	Line   int    `json:"line,omitempty" mcp:"min=1" desc:"1-based line in file: of the definition's name, of a call to it, or inside its body"`
	Column int    `json:"column,omitempty" mcp:"min=1" desc:"1-based character column on line, to pick one name or call among several"`
	Limit  int    `json:"limit,omitempty" mcp:"min=1,max=500,default=50" desc:"most items per definition"`
}

// FindSimilarArgs are the arguments of find_similar.
type FindSimilarArgs struct {
	Snippet   string   `json:"snippet" mcp:"required,maxLen=100000" desc:"the code (or prose) to find neighbours of"`
	K         int      `json:"k,omitempty" mcp:"min=1,max=50,default=10" desc:"number of hits"`
	Paths     []string `json:"paths,omitempty" desc:"only files matching one of these globs (as in query_context)"`
	Languages []string `json:"languages,omitempty" desc:"only these languages"`
}

// RefreshArgs are the arguments of refresh_context.
type RefreshArgs struct {
	Paths []string `json:"paths,omitempty" desc:"files or directories to re-read from disk (workspace-relative or absolute); empty: scan the whole workspace for changes"`
	Sync  bool     `json:"sync,omitempty" mcp:"default=true" desc:"true: return once the index holds the new content; false: return at once and refresh in the background"`
}

// StatsArgs are the (empty) arguments of get_context_stats.
type StatsArgs struct{}

// RebuildArgs are the arguments of rebuild_context.
type RebuildArgs struct {
	Confirm      bool     `json:"confirm,omitempty" desc:"must be true to rebuild (every selected file is parsed and written again); not needed with validateOnly"`
	ValidateOnly bool     `json:"validateOnly,omitempty" desc:"only check the paths and list what a rebuild would re-index and remove; changes nothing"`
	Paths        []string `json:"paths,omitempty" desc:"files or directories to rebuild (workspace-relative or absolute); empty: the whole workspace"`
}

// RebuildStatusArgs are the arguments of get_rebuild_status.
type RebuildStatusArgs struct {
	JobID string `json:"jobId" mcp:"required" desc:"the job id rebuild_context returned"`
}

// Results of the tools: the structuredContent of a call, described by the
// tool's outputSchema.

// Location is where a result is: what an agent needs to open it.
type Location struct {
	Path      string `json:"path" desc:"workspace-relative, slash-separated path"`
	StartLine int    `json:"startLine" desc:"first line, 1-based"`
	EndLine   int    `json:"endLine" desc:"last line, 1-based, inclusive"`
	URI       string `json:"uri" desc:"file URI of the file"`
}

// Hit is one located snippet.
type Hit struct {
	Location
	Symbol   string   `json:"symbol" desc:"the definition the snippet is about, or its label"`
	Kind     string   `json:"kind" desc:"chunk kind: function, method, class, markdown_section, …"`
	Language string   `json:"language" desc:"language of the file"`
	Score    float64  `json:"score" desc:"relevance from 0 to 1"`
	Sources  []string `json:"sources" desc:"the retrieval legs that found it: bm25, symbol, vector"`
	Text     string   `json:"text" desc:"the snippet: lines startLine to endLine, secrets redacted"`
}

// QueryResult is the result of query_context.
type QueryResult struct {
	Query string `json:"query" desc:"the query"`
	Hits  []Hit  `json:"hits" desc:"best first"`
}

// SimilarResult is the result of find_similar.
type SimilarResult struct {
	Hits []Hit `json:"hits" desc:"nearest first"`
}

// PackItem is one snippet of a context pack.
type PackItem struct {
	Location
	Symbol      string  `json:"symbol" desc:"the definition it shows, if any"`
	Kind        string  `json:"kind" desc:"its kind: function, outline, markdown_section, file, …"`
	Reason      string  `json:"reason" desc:"why it is in the pack: query match, definition used by the selection, doc, pinned, …"`
	IncludeMode string  `json:"includeMode" desc:"always (rules files), manual (pinned) or agent (chosen by relevance)"`
	Score       float64 `json:"score" desc:"relevance from 0 to 1"`
	Tokens      int     `json:"tokens" desc:"tokens it takes in the pack"`
	Shortened   bool    `json:"shortened,omitempty" desc:"function bodies elided or lines cut to fit the budget"`
}

// PackResult is the result of context_pack.
type PackResult struct {
	Text    string     `json:"text" desc:"the rendered pack: the text to read"`
	Format  string     `json:"format" desc:"markdown, xml, json or plain"`
	Tokens  int        `json:"tokens" desc:"tokens in text (never more than budget)"`
	Budget  int        `json:"budget" desc:"the budget it was built for"`
	Dropped int        `json:"dropped" desc:"relevant candidates left out because the budget ran out"`
	Items   []PackItem `json:"items" desc:"what the pack holds, in rendering order"`
	Notes   []string   `json:"notes,omitempty" desc:"sources that were skipped and other caveats"`
}

// RelatedItem is one piece of related context.
type RelatedItem struct {
	Location
	Symbol   string  `json:"symbol" desc:"the definition it shows, if any"`
	Kind     string  `json:"kind" desc:"its kind"`
	Language string  `json:"language" desc:"language of the file (empty for plain text)"`
	Source   string  `json:"source" desc:"definition, doc, cochange, similar, …"`
	Reason   string  `json:"reason" desc:"how it relates to the selection"`
	Score    float64 `json:"score" desc:"relevance from 0 to 1"`
	Tokens   int     `json:"tokens" desc:"tokens in text"`
	Text     string  `json:"text" desc:"the snippet, secrets redacted"`
}

// RelatedResult is the result of related_context.
type RelatedResult struct {
	Selection Location      `json:"selection" desc:"the lines asked about"`
	Items     []RelatedItem `json:"items" desc:"best first"`
	Notes     []string      `json:"notes,omitempty" desc:"sources that were skipped"`
}

// Definition is the definition a graph query is about.
type Definition struct {
	Location
	Symbol    string `json:"symbol" desc:"qualified name (Container.Name)"`
	Kind      string `json:"kind" desc:"function, method, class, …"`
	Signature string `json:"signature,omitempty" desc:"its declaration header"`
}

// CallSite is where a call is.
type CallSite struct {
	Line   int `json:"line" desc:"1-based line of the call"`
	Column int `json:"column" desc:"1-based byte column of the called name"`
}

// GraphItem is one caller, callee or test.
type GraphItem struct {
	Location
	Symbol     string     `json:"symbol" desc:"its qualified name (a file name for top-level code)"`
	Kind       string     `json:"kind" desc:"function, method, test, file, …"`
	Confidence string     `json:"confidence" desc:"exact, likely or name-only: how surely the call resolves to the definition"`
	Reason     string     `json:"reason" desc:"how it was found"`
	Via        string     `json:"via,omitempty" desc:"tests: the helper through which the test reaches the definition"`
	Sites      []CallSite `json:"sites,omitempty" desc:"the call sites, in the caller (callers, tests) or in the definition (callees)"`
}

// GraphTarget is the answer for one definition.
type GraphTarget struct {
	Definition Definition  `json:"definition" desc:"the definition asked about"`
	Items      []GraphItem `json:"items" desc:"best first"`
	Omitted    int         `json:"omitted,omitempty" desc:"name-only matches of a common name left out"`
	Truncated  int         `json:"truncated,omitempty" desc:"items beyond limit left out"`
	Unresolved []string    `json:"unresolved,omitempty" desc:"callees: called names that resolve to nothing indexed (library or builtin)"`
}

// GraphResult is the result of find_callers, find_callees and find_tests.
type GraphResult struct {
	Results []GraphTarget `json:"results" desc:"one entry per definition the target names (a bare symbol may name several)"`
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

// RefreshResult is the result of refresh_context.
type RefreshResult struct {
	Status     string        `json:"status" desc:"done, or started (sync false: the refresh runs in the background)"`
	Files      []FileOutcome `json:"files" desc:"the files named (and files indexed under vanished directories)"`
	Scan       *ScanSummary  `json:"scan,omitempty" desc:"the whole-workspace scan, when one ran (no paths, or a directory)"`
	DurationMs float64       `json:"durationMs" desc:"time taken"`
}

// IndexingState tells how complete the index is.
type IndexingState struct {
	Running  bool    `json:"running" desc:"a full scan is running"`
	Done     int     `json:"done" desc:"files processed by the running or last scan"`
	Total    int     `json:"total" desc:"files that scan had to process"`
	Complete float64 `json:"complete" desc:"0 to 1; queries meanwhile answer from what is indexed"`
}

// EmbeddingsState describes the semantic index.
type EmbeddingsState struct {
	State   string `json:"state" desc:"off, unavailable, loading, embedding or ready"`
	Reason  string `json:"reason,omitempty" desc:"why embeddings are unavailable"`
	Model   string `json:"model,omitempty" desc:"model id (name@sha)"`
	Vectors int    `json:"vectors" desc:"chunks with a vector"`
	Pending int    `json:"pending" desc:"files waiting to be embedded"`
}

// QueryLatency summarises search latency.
type QueryLatency struct {
	Count int     `json:"count" desc:"searches answered since the index opened"`
	P50Ms float64 `json:"p50Ms" desc:"median latency in milliseconds"`
	P95Ms float64 `json:"p95Ms" desc:"95th percentile latency in milliseconds"`
}

// Sharing tells which process owns the index.
type Sharing struct {
	State     string `json:"state" desc:"owner (this server holds the index) or client (it forwards calls to the owner)"`
	OwnerPID  int    `json:"ownerPid" desc:"process id of the owner"`
	OwnerRole string `json:"ownerRole" desc:"editor (a language server) or agent (an MCP server)"`
	ServerPID int    `json:"serverPid" desc:"process id of this MCP server"`
	Socket    string `json:"socket" desc:"the owner's socket"`
}

// StatsResult is the result of get_context_stats.
type StatsResult struct {
	Root       string          `json:"root" desc:"workspace root"`
	Index      string          `json:"index" desc:"index directory"`
	Files      int             `json:"files" desc:"files indexed"`
	Symbols    int             `json:"symbols" desc:"definitions indexed"`
	Chunks     int             `json:"chunks" desc:"chunks indexed"`
	Lines      int             `json:"lines" desc:"lines indexed"`
	Languages  map[string]int  `json:"languages" desc:"files per language"`
	IndexBytes int64           `json:"indexBytes" desc:"size of the index on disk"`
	LastIndex  string          `json:"lastIndex,omitempty" desc:"RFC 3339 time the last full scan completed"`
	Indexing   IndexingState   `json:"indexing" desc:"indexing progress"`
	Embeddings EmbeddingsState `json:"embeddings" desc:"the semantic index"`
	Queries    QueryLatency    `json:"queries" desc:"search latency"`
	Rebuilds   []JobStatus     `json:"rebuilds" desc:"recent rebuild jobs of this index, oldest first"`
	Recent     []string        `json:"recent,omitempty" desc:"recent indexing activity, newest last"`
	Sharing    *Sharing        `json:"sharing,omitempty" desc:"which process owns the index"`
}

// RebuildResult is the result of rebuild_context.
type RebuildResult struct {
	Status       string   `json:"status" desc:"started (a job runs in the background) or validated (validateOnly: nothing changed)"`
	JobID        string   `json:"jobId,omitempty" desc:"the job to poll with get_rebuild_status"`
	Paths        []string `json:"paths" desc:"the selection, workspace-relative (empty: the whole workspace)"`
	ReindexCount int      `json:"reindexCount,omitempty" desc:"validateOnly: files a rebuild would parse again"`
	RemoveCount  int      `json:"removeCount,omitempty" desc:"validateOnly: indexed files it would drop (gone, excluded or not indexable)"`
	Reindex      []string `json:"reindex,omitempty" desc:"validateOnly: those files (the first 200)"`
	Remove       []string `json:"remove,omitempty" desc:"validateOnly: those files (the first 200)"`
}

// JobStatus is the state of a rebuild job.
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
}
