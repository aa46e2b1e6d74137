package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/context-ls/context-ls/service"
)

// tool is one MCP tool: a service operation with a tool name in the
// service's table (service.Op.Tool), the result type its outputSchema
// describes, and how its text is rendered for the agent.
type tool struct {
	name string
	op   *service.Op
	// result is the operation's result type, or a wrapper adding what this
	// server knows (get_context_stats).
	result reflect.Type
	// render decodes the operation's JSON result and returns the text an
	// agent reads and the structured content.
	render func(raw json.RawMessage, s *server) (text string, structured json.RawMessage, err error)
}

// renderer renders one result type for the agent.
func renderer[Res any](render func(*Res) string) func(raw json.RawMessage, _ *server) (string, json.RawMessage, error) {
	return func(raw json.RawMessage, _ *server) (string, json.RawMessage, error) {
		r := new(Res)
		if err := json.Unmarshal(raw, r); err != nil {
			return "", nil, fmt.Errorf("malformed result: %w", err)
		}
		return render(r), raw, nil
	}
}

// renderings are the text renderings of the operations that have their
// own; any other tool's text is service.Text of its result.
var renderings = map[*service.Op]func(raw json.RawMessage, s *server) (string, json.RawMessage, error){
	service.OpSearch:          renderer(renderHits),
	service.OpPack:            renderer(renderPack),
	service.OpRelated:         renderer(renderRelated),
	service.OpCallers:         renderer(renderGraph("callers")),
	service.OpCallees:         renderer(renderGraph("callees")),
	service.OpTests:           renderer(renderGraph("tests")),
	service.OpImplementations: renderer(renderGraph("implementations")),
	service.OpSymbols:         renderer(renderSymbols),
	service.OpSimilar:         renderer(renderSimilar),
	service.OpRefresh:         renderer(renderRefresh),
	service.OpStats:           renderStatsTool,
	service.OpReindex:         renderer(renderRebuild),
	service.OpJob:             renderer(renderJob),
}

// toolTable lists the tools in the order tools/list presents them: the
// service's operations that have a tool name.
func toolTable() []tool {
	var out []tool
	for _, o := range service.Ops {
		if o.Tool == "" {
			continue
		}
		t := tool{name: o.Tool, op: o, result: o.Result, render: renderings[o]}
		if t.render == nil {
			t.render = func(raw json.RawMessage, _ *server) (string, json.RawMessage, error) {
				r := reflect.New(o.Result)
				if err := json.Unmarshal(raw, r.Interface()); err != nil {
					return "", nil, fmt.Errorf("malformed result: %w", err)
				}
				return service.Text(r.Interface()), raw, nil
			}
		}
		if o == service.OpStats {
			t.result = reflect.TypeFor[StatsResult]()
		}
		out = append(out, t)
	}
	return out
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
			"description": t.op.Doc,
			"inputSchema": inputSchema(t.op.Request),
		}
		if versionAtLeast(version, "2025-03-26") {
			d["annotations"] = map[string]any{
				"title":           t.op.Title,
				"readOnlyHint":    t.op.ReadOnly,
				"destructiveHint": false,
				"idempotentHint":  t.op.Idempotent,
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
