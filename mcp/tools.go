package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// tool is one entry of the tool table: its MCP description, argument and
// result types (from which the schemas are generated), hints, and the code
// that runs it against an engine.
type tool struct {
	name, title, description string
	args, result             reflect.Type
	// readOnly tools change nothing: a call whose owner died in flight is
	// sent again to the next owner.
	readOnly   bool
	idempotent bool
	// needsIndex tools answer from the index's content: they wait for the
	// first full scan of a new index.
	needsIndex bool
	run        func(ctx context.Context, s *service, raw json.RawMessage) (structured any, text string, err error)
}

// newTool builds a typed tool: arguments are decoded into a fresh A
// (defaults applied, rules checked), run produces an R, render its text.
func newTool[A, R any](name, title, description string, readOnly, idempotent bool,
	run func(ctx context.Context, s *service, a *A) (*R, error), render func(*R) string) tool {
	return tool{
		name: name, title: title, description: description,
		args: reflect.TypeFor[A](), result: reflect.TypeFor[R](),
		readOnly: readOnly, idempotent: idempotent,
		needsIndex: readOnly && name != "get_context_stats" && name != "get_rebuild_status",
		run: func(ctx context.Context, s *service, raw json.RawMessage) (any, string, error) {
			a := new(A)
			if err := decodeArgs(raw, a); err != nil {
				return nil, "", err
			}
			r, err := run(ctx, s, a)
			if err != nil {
				return nil, "", err
			}
			return r, render(r), nil
		},
	}
}

// toolTable lists the tools in the order tools/list presents them.
func toolTable() []tool {
	return []tool{
		newTool("query_context", "Search the codebase",
			"Ranked search over the indexed workspace (BM25, symbol names, file evidence and embeddings fused). "+
				"Returns the best snippets with their file, 1-based line range and text. Use it first to find where "+
				"something is implemented or explained; filter with paths globs, languages and kinds.",
			true, true, runQueryContext, renderHits),
		newTool("context_pack", "Build a context pack",
			"A token-budgeted bundle of the most relevant code for a task: search hits for query, and for file "+
				"(+ lines) the definitions it uses, docs that mention it, files changed with it and pinned or "+
				"always-included files. Returns the rendered pack (never more than budget tokens) and its item list.",
			true, true, runContextPack, renderPack),
		newTool("related_context", "Context related to a selection",
			"What bears on a file or a range of its lines: the definitions its code uses, documentation that "+
				"mentions its symbols and files changed together with it, best first, with locations and text.",
			true, true, runRelatedContext, renderRelated),
		newTool("find_callers", "Find callers",
			"Functions and methods that call a definition, with the call sites. Name the definition by symbol "+
				"(\"Parse\", \"url.Parse\", \"Client.Do\") or by file + line (+ column) of its name or of a call to it.",
			true, true, runCallers, renderGraph("callers")),
		newTool("find_callees", "Find callees",
			"Functions and methods a definition calls, with the call sites, plus calls that resolve to nothing "+
				"indexed. Name the definition by symbol or by file + line (+ column).",
			true, true, runCallees, renderGraph("callees")),
		newTool("find_tests", "Find tests",
			"Tests that exercise a definition: calling it directly, within two hops through non-test code, or by "+
				"naming convention (the reason says which). Name the definition by symbol or by file + line.",
			true, true, runTests, renderGraph("tests")),
		newTool("find_similar", "Find similar code",
			"Code whose embedding is nearest to a snippet: duplicates, other implementations of the same idea, "+
				"examples of a pattern. Needs embeddings (get_context_stats shows their state).",
			true, true, runFindSimilar, renderSimilar),
		newTool("refresh_context", "Refresh the index",
			"Re-read files from disk after you changed them, so that queries see the new content. paths: the "+
				"files or directories you touched (empty: scan the whole workspace for changes). sync (default true) "+
				"waits until the index holds them; false returns at once.",
			false, true, runRefresh, renderRefresh),
		newTool("get_context_stats", "Index statistics",
			"The index's state: files, symbols and chunks indexed, languages, indexing progress, embeddings, "+
				"query latency, recent rebuild jobs, and which process owns the index.",
			true, true, runStats, renderStats),
		newTool("rebuild_context", "Rebuild the index",
			"Parse and write again every selected file whatever the index holds (for a suspected stale or "+
				"corrupt index; refresh_context is enough after edits). Requires confirm: true; validateOnly: true "+
				"lists what it would do instead. Returns a job id at once; poll get_rebuild_status. Refused while "+
				"another rebuild runs.",
			false, false, runRebuild, renderRebuild),
		newTool("get_rebuild_status", "Rebuild status",
			"The state of a rebuild_context job: queued, running, done, failed or cancelled, with files done of "+
				"total and the error if any.",
			true, true, runRebuildStatus, renderJob),
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
			"inputSchema": inputSchema(t.args),
		}
		if versionAtLeast(version, "2025-03-26") {
			d["annotations"] = map[string]any{
				"title":           t.title,
				"readOnlyHint":    t.readOnly,
				"destructiveHint": false,
				"idempotentHint":  t.idempotent,
				"openWorldHint":   false,
			}
		}
		if versionAtLeast(version, "2025-06-18") {
			d["title"] = t.title
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
