package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/workspace"
)

// RunInput runs the binary with args (embeddings off) and stdin to
// completion.
func (b Bin) RunInput(stdin string, args ...string) Result {
	p, err := b.start(strings.NewReader(stdin), args...)
	if err != nil {
		return Result{Stderr: err.Error(), Code: -1}
	}
	return p.Wait()
}

// MCPToolResult is one tools/call answer of an MCP session.
type MCPToolResult struct {
	IsError           bool            `json:"isError"`
	Content           json.RawMessage `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
}

// MCPSession runs context-ls mcp on ix with one tools/call per call
// (tool name → arguments JSON, in order) and returns the answers by tool.
func (b Bin) MCPSession(ix Index, calls [][2]string) (map[string]MCPToolResult, Result) {
	var in bytes.Buffer
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"reliability","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i, c := range calls {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", i+1, c[0], c[1])
	}
	res := b.RunInput(in.String(), ix.Args("mcp")...)
	out := map[string]MCPToolResult{}
	for _, line := range strings.Split(res.Stdout, "\n") {
		var m struct {
			ID     int           `json:"id"`
			Result MCPToolResult `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID > 0 && m.ID <= len(calls) {
			out[calls[m.ID-1][0]] = m.Result
		}
	}
	return out, res
}

// ServeReport is what a language-server session saw.
type ServeReport struct {
	ShowMessages []string // window/showMessage texts
	Stderr       string
	Code         int
	Err          error // the session could not run
}

// ServeSession runs context-ls serve with the workspace folder ix.Root and
// its index under ix.DB, lets it work for settle, then shuts it down.
func (b Bin) ServeSession(ix Index, settle time.Duration) ServeReport {
	var r ServeReport
	cmd := exec.Command(b.Path, "serve")
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	c, err := lsptest.Start(cmd)
	if err != nil {
		r.Err = err
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	uri := workspace.PathToURI(ix.Root)
	init := map[string]any{
		"processId": os.Getpid(), "rootUri": uri, "capabilities": map[string]any{},
		"workspaceFolders":      []map[string]any{{"uri": uri, "name": "repo"}},
		"initializationOptions": map[string]any{"dbPath": ix.DB},
	}
	if err := c.Call(ctx, "initialize", init, nil); err != nil {
		r.Err = fmt.Errorf("initialize: %w", err)
	} else {
		c.Notify("initialized", map[string]any{})
		time.Sleep(settle)
		if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
			r.Err = fmt.Errorf("shutdown: %w", err)
		}
		c.Notify("exit", nil)
	}
	code, err := c.Wait()
	if err != nil && r.Err == nil {
		r.Err = err
	}
	r.Code, r.Stderr = code, stderr.String()
	for _, m := range c.Messages() {
		if m.Method == "window/showMessage" {
			var p struct{ Message string }
			json.Unmarshal(m.Params, &p)
			r.ShowMessages = append(r.ShowMessages, p.Message)
		}
	}
	return r
}
