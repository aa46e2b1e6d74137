package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/context-ls/context-ls/service"
)

// tool is one entry of the tool table: the service operation it runs, its
// MCP name and description, the result type its outputSchema describes,
// and how its text is rendered for the agent.
type tool struct {
	name, description string
	op                *service.Op
	idempotent        bool
	result            reflect.Type
	// render decodes the operation's JSON result and returns the text an
	// agent reads and the structured content.
	render func(raw json.RawMessage, s *server) (text string, structured json.RawMessage, err error)
}

// newTool builds a tool whose result is Res (the operation's result, or a
// wrapper adding what this server knows).
func newTool[Res any](name, description string, op *service.Op, idempotent bool, render func(*Res) string) tool {
	return tool{
		name: name, description: description, op: op, idempotent: idempotent, result: reflect.TypeFor[Res](),
		render: func(raw json.RawMessage, _ *server) (string, json.RawMessage, error) {
			r := new(Res)
			if err := json.Unmarshal(raw, r); err != nil {
				return "", nil, fmt.Errorf("malformed result: %w", err)
			}
			return render(r), raw, nil
		},
	}
}

// toolTable lists the tools in the order tools/list presents them.
func toolTable() []tool {
	return []tool{
		newTool("query_context",
			"Ranked search over the indexed workspace (BM25, symbol names, file evidence and embeddings fused). "+
				"Returns the best snippets with their file, 1-based line range and text. Use it first to find where "+
				"something is implemented or explained — a question, identifiers, or a whole bug report with its "+
				"traceback; filter with paths globs, languages and kinds.",
			service.OpSearch, true, renderHits),
		newTool("context_pack",
			"A token-budgeted bundle of the most relevant code for a task: search hits for query, and for a file "+
				"(+ lines, or a line inside a definition) or a symbol the definitions it uses, its callers, callees "+
				"and tests, docs that mention it, files changed with it and pinned or always-included files. "+
				"Returns the rendered pack (never more than budget tokens) and its item list; exclude leaves items out.",
			service.OpPack, true, renderPack),
		newTool("related_context",
			"What bears on a file, a range of its lines, a line inside a definition or a symbol: the definitions "+
				"its code uses, its callers, callees and tests, similar code, documentation that mentions it and "+
				"files changed together with it, best first, with locations and text.",
			service.OpRelated, true, renderRelated),
		newTool("find_callers",
			"Functions and methods that call a definition, with the call sites: only what the code graph can "+
				"justify (guesses: true adds name-only matches, apart). Name the definition by symbol (\"Parse\", "+
				"\"url.Parse\", \"Client.Do\") or by file + line (+ column) of its name or of a call to it.",
			service.OpCallers, true, renderGraph("callers")),
		newTool("find_callees",
			"Functions and methods a definition calls, with the call sites, plus calls that resolve to nothing "+
				"indexed. Name the definition by symbol or by file + line (+ column).",
			service.OpCallees, true, renderGraph("callees")),
		newTool("find_tests",
			"Tests that exercise a definition: calling it directly, within two hops through non-test code, or by "+
				"naming convention (the reason says which). Name the definition by symbol or by file + line.",
			service.OpTests, true, renderGraph("tests")),
		newTool("find_symbols",
			"Definitions by name (\"Parse\", \"Client.Do\", \"pkg.Func\"; fuzzy matches when none has it exactly), by "+
				"fuzzy query, or the outline of a file, with locations and signatures.",
			service.OpSymbols, true, renderSymbols),
		newTool("find_similar",
			"Code whose embedding is nearest to a snippet or to a selection (file + lines, or symbol): duplicates, "+
				"other implementations of the same idea, examples of a pattern. Needs embeddings "+
				"(get_context_stats shows their state).",
			service.OpSimilar, true, renderSimilar),
		newTool("refresh_context",
			"Re-read files from disk after you changed them, so that queries see the new content. paths: the "+
				"files or directories you touched (empty: scan the whole workspace for changes). sync (default true) "+
				"waits until the index holds them; false returns at once.",
			service.OpRefresh, true, renderRefresh),
		{
			name: "get_context_stats",
			description: "The index's state: files, symbols and chunks indexed, languages, indexing progress, embeddings, " +
				"query latency, recent rebuild jobs, and which process owns the index.",
			op: service.OpStats, idempotent: true, result: reflect.TypeFor[StatsResult](), render: renderStatsTool,
		},
		newTool("rebuild_context",
			"Parse and write again every selected file whatever the index holds (for a suspected stale or "+
				"corrupt index; refresh_context is enough after edits). Requires confirm: true; dryRun: true "+
				"lists what it would do instead. Returns a job id at once; poll get_rebuild_status. Refused while "+
				"another rebuild runs.",
			service.OpReindex, false, renderRebuild),
		newTool("get_rebuild_status",
			"The state of a rebuild_context job: queued, running, done, failed or cancelled, with files done of "+
				"total and the error if any.",
			service.OpJob, true, renderJob),
	}
}

// toolsByName indexes the table.
var toolsByName = func() map[string]*tool {
	m := map[string]*tool{}
	table := toolTable()
	for i := range table {
		m[table[i].name] = &table[i]
	}
	return m
}()

// toolList is the tools/list answer for a negotiated protocol version:
// annotations from 2025-03-26, titles and output schemas from 2025-06-18.
func toolList(version string) []map[string]any {
	var out []map[string]any
	for _, t := range toolTable() {
		d := map[string]any{
			"name":        t.name,
			"description": t.description,
			"inputSchema": inputSchema(t.op.Request),
		}
		if versionAtLeast(version, "2025-03-26") {
			d["annotations"] = map[string]any{
				"title":           t.op.Title,
				"readOnlyHint":    t.op.ReadOnly,
				"destructiveHint": false,
				"idempotentHint":  t.idempotent,
				"openWorldHint":   false,
			}
		}
		if versionAtLeast(version, "2025-06-18") {
			d["title"] = t.op.Title
			d["outputSchema"] = outputSchema(t.result)
		}
		out = append(out, d)
	}
	return out
}

// textContent is a text content block of a tool result.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// toolResult is the result of tools/call.
type toolResult struct {
	Content           []textContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// errorResult is a tool execution error: the agent reads the message.
func errorResult(format string, args ...any) *toolResult {
	return &toolResult{Content: []textContent{{Type: "text", Text: fmt.Sprintf(format, args...)}}, IsError: true}
}

// Sharing tells which process owns the index.
type Sharing struct {
	State     string `json:"state" desc:"owner (this server holds the index) or client (it forwards calls to the owner)"`
	OwnerPID  int    `json:"ownerPid" desc:"process id of the owner"`
	OwnerRole string `json:"ownerRole" desc:"editor (a language server) or agent (an MCP server)"`
	ServerPID int    `json:"serverPid" desc:"process id of this MCP server"`
	Socket    string `json:"socket" desc:"the owner's socket"`
}

// StatsResult is the result of get_context_stats: the index's statistics
// and this server's view of who owns the index.
type StatsResult struct {
	service.StatsResult
	Sharing *Sharing `json:"sharing,omitempty" desc:"which process owns the index"`
}

// renderStatsTool adds this server's view of index ownership to the stats
// (the owner's process cannot know which client asked).
func renderStatsTool(raw json.RawMessage, s *server) (string, json.RawMessage, error) {
	var st StatsResult
	if err := json.Unmarshal(raw, &st); err != nil {
		return "", nil, fmt.Errorf("malformed result: %w", err)
	}
	st.Sharing = s.sharing()
	out, err := json.Marshal(st)
	if err != nil {
		return "", nil, err
	}
	return renderStats(&st), out, nil
}
