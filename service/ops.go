package service

import (
	"context"
	"encoding/json"
	"reflect"
)

// The table of operations: every front end is derived from it. An entry
// carries the operation's request and result types (whose tags hold each
// argument's one name, its rules, its default and its description), its
// name on each door, its help text, and how it spans the workspace
// folders of a client with several (CallFolders). The CLI builds its
// subcommands and flags from it, the language server its
// workspace/executeCommand dispatch, the MCP server its tools and their
// schemas, and the language server's generator docs/commands.md and the
// editors' protocol types.
//
// Adding an operation: its request and result types (types.go), its
// method on Service, and its entry here.

// Op describes one operation.
type Op struct {
	// Name is the operation's name: the CLI subcommand, and the name a
	// call is forwarded by to the process owning the index.
	Name string
	// Command is its workspace/executeCommand name on the language server
	// ("" when the language server does not offer it as a command).
	Command string
	// Tool is its MCP tool name ("" when not a tool).
	Tool string
	// CLI says whether the CLI offers it as a subcommand named Name.
	CLI bool
	// Title is a one-line summary (CLI help, MCP annotations).
	Title string
	// Doc is what it answers, for every door's documentation (the command
	// reference, the MCP tool description, the CLI's -h).
	Doc string
	// ReadOnly: it changes nothing. Idempotent: running it twice changes
	// nothing more than once.
	ReadOnly, Idempotent bool
	// Embeddings: its answer reads vectors (a CLI process that indexes
	// before answering waits for them).
	Embeddings bool
	// Args is what the CLI's words after the flags are.
	Args Positional
	// Scope is how it spans several workspace folders.
	Scope Scope
	// Request and Result are its types.
	Request, Result reflect.Type

	// readsIndex: the answer comes from the index's content (it waits for
	// a first full scan, see Options.FirstIndexWait).
	readsIndex bool
	run        func(ctx context.Context, s *Service, raw json.RawMessage) (any, error)
	// merge joins the answers of several folders (ScopeAll, and ScopeOne
	// for a symbol alone); nil takes the first folder that knows it.
	merge func(req any, results []any) any
	// elsewhere, if set, completes a one-folder answer from the other
	// folders (a definition found in none of its own folder's files).
	elsewhere func(ctx context.Context, res any, others []Folder) any
}

// ReadsIndex reports whether the answer comes from the index's content
// (a process that opens the index brings it up to date first), rather than
// reporting on the index.
func (o *Op) ReadsIndex() bool { return o.readsIndex }

// Check decodes a JSON request and checks its arguments by their rules,
// without running the operation: a front end that has work to do first
// (the CLI indexes) refuses a bad request before it.
func (o *Op) Check(request json.RawMessage) error {
	return decode(request, reflect.New(o.Request).Interface())
}

// Positional describes the CLI's positional arguments of an operation.
type Positional struct {
	// Name is how usage names them: QUERY, TARGET, NAME, SNIPPET ("": the
	// command takes none).
	Name string
	// Field is the request argument they fill, joined by spaces; "" with
	// Name TARGET: a target (PATH:LINE[:COL], a path or a symbol name) fills
	// the request's file, line, column or symbol.
	Field string
	// One: at most one word.
	One bool
}

// targetArg is the Positional of operations about one definition or place.
var targetArg = Positional{Name: "TARGET", One: true}

// Scope says how an operation spans the folders of a client with several.
type Scope int

const (
	// ScopeOne: one folder answers — the folder of the request's file;
	// for a symbol alone every folder is asked (merged, or the first that
	// knows it); otherwise the folder argument's, or the first.
	ScopeOne Scope = iota
	// ScopeAll: every folder answers and the answers are merged; a
	// request naming a file is its folder's alone.
	ScopeAll
	// ScopeEach: every folder (or those its paths name) answers apart: the
	// result lists them.
	ScopeEach
)

func op[Req, Res any](o Op, method func(*Service, context.Context, Req) (*Res, error)) *Op {
	o.Request, o.Result = reflect.TypeFor[Req](), reflect.TypeFor[Res]()
	o.readsIndex = o.ReadOnly && !statusOps[o.Name]
	o.run = func(ctx context.Context, s *Service, raw json.RawMessage) (any, error) {
		var req Req
		if err := decode(raw, &req); err != nil {
			return nil, err
		}
		return method(s, ctx, req)
	}
	return &o
}

// statusOps report on the index rather than answer from its content.
var statusOps = map[string]bool{"stats": true, "job": true, "pins": true, "files": true}

// The operations.
var (
	OpSearch = op(Op{Name: "search", Command: "contextLs.search", Tool: "query_context", CLI: true,
		Title: "Search the codebase",
		Doc: "Ranked, located search over the indexed workspace: BM25, symbol names, file evidence and embeddings fused. " +
			"The query may be words, identifiers, a question or a whole bug report with its traceback; filter with " +
			"paths globs, languages and kinds. Each hit carries its snippet and exact location.",
		ReadOnly: true, Idempotent: true, Args: Positional{Name: "QUERY", Field: "query"}, Scope: ScopeAll,
		merge: mergeHits[SearchRequest]}, (*Service).Search)
	OpSimilar = op(Op{Name: "similar", Command: "contextLs.similar", Tool: "find_similar", CLI: true,
		Title: "Find similar code",
		Doc: "Code whose embedding is nearest to a snippet, a selection, the definition at a position or a symbol's " +
			"definition: duplicates, other implementations of the same idea, examples of a pattern. Needs embeddings " +
			"(stats show their state); fails saying why when they are off or unavailable.",
		ReadOnly: true, Idempotent: true, Embeddings: true, Args: Positional{Name: "SNIPPET", Field: "snippet"}, Scope: ScopeAll,
		merge: mergeHits[SimilarRequest]}, (*Service).Similar)
	OpRelated = op(Op{Name: "related", Command: "contextLs.relatedContext", Tool: "related_context", CLI: true,
		Title: "Context related to a selection",
		Doc: "What bears on a selection, a line inside a definition or a symbol, best first, without a budget unless " +
			"one is given: the definitions its code uses, its callers, callees and tests, similar code, documentation " +
			"that mentions it and files changed together with it, with locations, reasons and text.",
		ReadOnly: true, Idempotent: true, Args: targetArg}, (*Service).Related)
	OpPack = op(Op{Name: "pack", Command: "contextLs.contextPack", Tool: "context_pack", CLI: true,
		Title: "Build a context pack",
		Doc: "A token-budgeted bundle of the most relevant code for a task: search hits for the query, and for a " +
			"selection (a file, its lines, a line inside a definition) or a symbol the definitions it uses, its " +
			"callers, callees and tests, docs that mention it, files changed with it and pinned or always-included " +
			"files. Returns the rendered pack (never more than budget tokens) and its item list; exclude leaves " +
			"items out.",
		ReadOnly: true, Idempotent: true, Args: Positional{Name: "QUERY", Field: "query"}}, (*Service).Pack)
	OpCallers = op(Op{Name: "callers", Command: "contextLs.callers", Tool: "find_callers", CLI: true,
		Title: "Find callers",
		Doc: "Definitions that call a definition, best first, with the call sites and how each call was resolved: " +
			"only what the code graph can justify (guesses adds name-only matches, apart). Name the definition by " +
			"symbol (\"Parse\", \"url.Parse\", \"Client.Do\": a bare name may name several) or by file and line (and " +
			"column) of its name, of a call to it, or inside its body.",
		ReadOnly: true, Idempotent: true, Args: targetArg, merge: mergeGraph}, (*Service).Callers)
	OpCallees = op(Op{Name: "callees", Command: "contextLs.callees", Tool: "find_callees", CLI: true,
		Title: "Find callees",
		Doc: "Definitions a definition calls, best first, with the call sites, plus the calls that resolve to " +
			"nothing indexed. Name the definition by symbol or by file and line (and column).",
		ReadOnly: true, Idempotent: true, Args: targetArg, merge: mergeGraph}, (*Service).Callees)
	OpTests = op(Op{Name: "tests", Command: "contextLs.tests", Tool: "find_tests", CLI: true,
		Title: "Find tests",
		Doc: "Tests that exercise a definition: calling it directly, within two hops through non-test code, or by " +
			"naming convention (the reason says which). Name the definition by symbol or by file and line.",
		ReadOnly: true, Idempotent: true, Args: targetArg, merge: mergeGraph}, (*Service).Tests)
	OpReferences = op(Op{Name: "references", Command: "contextLs.references", Tool: "find_references", CLI: true,
		Title: "Find references",
		Doc: "Every place that refers to a definition — the calls and other uses the code graph resolves to it (a " +
			"function passed as a value) — one location per site, grouped by the definition that holds it, best " +
			"first. Name the definition by symbol or by file and line (and column) of its name or of a reference to it.",
		ReadOnly: true, Idempotent: true, Args: targetArg, merge: mergeReferences}, (*Service).References)
	OpImplementations = op(Op{Name: "implementations", Tool: "find_implementations", CLI: true,
		Title: "Find implementations",
		Doc: "Definitions that implement or override a definition, as far as the code graph knows the types: for " +
			"a method of an interface or a base class, the methods of the types implementing the interface (Go: " +
			"by their method sets) or deriving from the class; for an interface or a class, those types. Name the " +
			"definition by symbol or by file and line (and column).",
		ReadOnly: true, Idempotent: true, Args: targetArg, merge: mergeGraph}, (*Service).Implementations)
	OpDefinition = op(Op{Name: "definition", Title: "Go to definition",
		Doc:      "The definitions of the identifier at a position, best first.",
		ReadOnly: true, Idempotent: true, elsewhere: definitionsElsewhere}, (*Service).Definition)
	OpHover = op(Op{Name: "hover", Title: "Describe a definition",
		Doc:      "The definition of the identifier at a position, its callers and tests counted, and related definitions.",
		ReadOnly: true, Idempotent: true}, (*Service).Hover)
	OpSymbols = op(Op{Name: "symbols", Tool: "find_symbols", CLI: true, Title: "List definitions",
		Doc: "Definitions by name (\"Parse\", \"Client.Do\", \"pkg.Func\"; fuzzy matches when none has it exactly), by " +
			"fuzzy query, or the outline of a file in source order, with locations and signatures; all of them " +
			"when nothing is named.",
		ReadOnly: true, Idempotent: true, Args: Positional{Name: "NAME", Field: "name", One: true}, Scope: ScopeAll,
		merge: mergeSymbols}, (*Service).Symbols)
	OpStats = op(Op{Name: "stats", Command: "contextLs.stats", Tool: "get_context_stats", CLI: true,
		Title: "Index statistics",
		Doc: "The index's state: files, symbols, chunks and lines indexed, languages, size, indexing progress, " +
			"embeddings, storage, search latency, packs built, recent reindex jobs and activity.",
		ReadOnly: true, Idempotent: true, Scope: ScopeEach}, (*Service).Stats)
	OpFiles = op(Op{Name: "files", CLI: true, Title: "Files indexed",
		Doc:      "What the workspace's rules index, or which rule includes or excludes one path.",
		ReadOnly: true, Idempotent: true}, (*Service).Files)
	OpVerify = op(Op{Name: "verify", Title: "Check the index",
		Doc: "Read the whole index, check every checksum and record, and mark what is damaged to be rebuilt when " +
			"the index is next opened."}, (*Service).Verify)
	OpIndex = op(Op{Name: "index", Title: "Update the index",
		Doc: "Bring the index up to date with the workspace (unchanged files cost a stat each), optionally waiting " +
			"until every chunk has its vector.", Idempotent: true}, (*Service).Index)
	OpRefresh = op(Op{Name: "refresh", Tool: "refresh_context", Title: "Refresh files from disk",
		Doc: "Re-read files from disk after they changed, so that queries see the new content: the files or " +
			"directories touched, or (no paths) a scan of the whole workspace for changes. sync (default true) " +
			"waits until the index holds them; false returns at once.", Idempotent: true}, (*Service).Refresh)
	OpReindex = op(Op{Name: "reindex", Command: "contextLs.reindex", Tool: "rebuild_context",
		Title: "Rebuild the index",
		Doc: "Parse and write again every selected file whatever the index holds (a suspected stale or damaged " +
			"index; refresh is enough after edits), as a background job reported with progress: answers its job id " +
			"at once (poll it with job). Refuses without confirm: true; dryRun lists what it would do instead. " +
			"Refused while another reindex runs.",
		Scope: ScopeEach}, (*Service).Reindex)
	OpJob = op(Op{Name: "job", Tool: "get_rebuild_status", Title: "Reindex job status",
		Doc: "The state of a reindex job: queued, running, done, failed or cancelled, with files done of total " +
			"and the error if any.", ReadOnly: true, Idempotent: true}, (*Service).Job)
	OpPin = op(Op{Name: "pin", Command: "contextLs.pin", CLI: true, Title: "Pin code into every pack",
		Doc: "Pin a selection's lines, a definition (the symbol's, or the one at a line) or a whole file so that " +
			"every context pack of the workspace includes it; answers the pins.",
		Idempotent: true, Args: targetArg}, (*Service).Pin)
	OpUnpin = op(Op{Name: "unpin", Command: "contextLs.unpin", CLI: true, Title: "Remove a pin",
		Doc:        "Remove a pin, named as pin names it, or every pin with all; answers the pins left.",
		Idempotent: true, Args: targetArg}, (*Service).Unpin)
	OpPins = op(Op{Name: "pins", Command: "contextLs.pins", CLI: true, Title: "List pins",
		Doc:      "The pins: what every context pack includes, with the tokens each adds.",
		ReadOnly: true, Idempotent: true}, (*Service).Pins)
)

// Ops lists every operation, in the order a client's list of them
// presents them (the MCP server's tools): the questions first.
var Ops = []*Op{OpSearch, OpPack, OpRelated, OpCallers, OpCallees, OpTests, OpReferences, OpImplementations, OpSymbols, OpSimilar,
	OpRefresh, OpStats, OpReindex, OpJob, OpDefinition, OpHover, OpFiles, OpVerify, OpIndex, OpPin, OpUnpin, OpPins}

// Lookup returns the operation named name.
func Lookup(name string) (*Op, bool) {
	for _, o := range Ops {
		if o.Name == name {
			return o, true
		}
	}
	return nil, false
}
