package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// serve is a language-server process on one workspace folder.
type serve struct {
	c      *lsptest.Client
	stderr bytes.Buffer
	ctx    context.Context
	cancel context.CancelFunc
}

// startServe starts context-ls serve and initializes it with the
// workspace folder ix.Root and its index under ix.DB. The client does not
// watch files: the server watches them itself.
func (b Bin) startServe(ix Index) (*serve, error) { return b.startServeWith(ix, map[string]any{}) }

// startServeWith is startServe with the client's capabilities.
func (b Bin) startServeWith(ix Index, capabilities map[string]any) (*serve, error) {
	s := &serve{}
	cmd := exec.Command(b.Path, "serve")
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	cmd.Stderr = &s.stderr
	c, err := lsptest.Start(cmd)
	if err != nil {
		return nil, err
	}
	s.c = c
	s.ctx, s.cancel = context.WithTimeout(context.Background(), runTimeout)
	uri := workspace.PathToURI(ix.Root)
	init := map[string]any{
		"processId": os.Getpid(), "rootUri": uri, "capabilities": capabilities,
		"workspaceFolders":      []map[string]any{{"uri": uri, "name": "repo"}},
		"initializationOptions": map[string]any{"dbPath": ix.DB},
	}
	if err := c.Call(s.ctx, "initialize", init, nil); err != nil {
		s.stop()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	c.Notify("initialized", map[string]any{})
	return s, nil
}

// command runs a workspace/executeCommand and returns its latency.
func (s *serve) command(name string, args, result any) (time.Duration, error) {
	start := time.Now()
	err := s.c.Call(s.ctx, "workspace/executeCommand", map[string]any{"command": name, "arguments": []any{args}}, result)
	return time.Since(start), err
}

// shutdown sends shutdown and exit and returns the shutdown's latency.
func (s *serve) shutdown() (time.Duration, error) {
	start := time.Now()
	err := s.c.Call(s.ctx, "shutdown", nil, nil)
	took := time.Since(start)
	s.c.Notify("exit", nil)
	return took, err
}

// stop ends the process (closing its input) and waits for it.
func (s *serve) stop() (int, error) {
	s.c.Close()
	code, err := s.c.Wait()
	s.cancel()
	return code, err
}

// ServeSession runs context-ls serve with the workspace folder ix.Root and
// its index under ix.DB, lets it work for settle, then shuts it down.
func (b Bin) ServeSession(ix Index, settle time.Duration) ServeReport {
	var r ServeReport
	s, err := b.startServe(ix)
	if err != nil {
		r.Err = err
		return r
	}
	time.Sleep(settle)
	if _, err := s.shutdown(); err != nil {
		r.Err = fmt.Errorf("shutdown: %w", err)
	}
	code, err := s.stop()
	if err != nil && r.Err == nil {
		r.Err = err
	}
	r.Code, r.Stderr = code, s.stderr.String()
	for _, m := range s.c.Messages() {
		if m.Method == "window/showMessage" {
			var p struct{ Message string }
			json.Unmarshal(m.Params, &p)
			r.ShowMessages = append(r.ShowMessages, p.Message)
		}
	}
	return r
}

// BufferReport is what a language server did with a shaped, unsaved
// buffer open: the latencies of a context pack, a search and shutdown.
type BufferReport struct {
	Pack, Search, Shutdown time.Duration
	Found                  bool // the search found the ordinary function
	Code                   int  // exit status
	Stderr                 string
	Err                    error
}

// ServeBuffer runs serve on a workspace holding an ordinary file, waits
// until its index answers, opens shape's file at size bytes as an unsaved
// buffer (not on disk), then asks for a context pack and a search and
// shuts down, timing each (issue 29: with 1 MiB of "(" the pack timed
// out at 30 s, every later search took 2 s and shutdown got no answer).
func (b Bin) ServeBuffer(work string, shape Shape, size int) BufferReport {
	var r BufferReport
	ix := Index{filepath.Join(work, "buffer-repo"), filepath.Join(work, "buffer-db")}
	if r.Err = WriteFiles(ix.Root, map[string]string{"small/small.go": ordinary}); r.Err != nil {
		return r
	}
	s, err := b.startServe(ix)
	if err != nil {
		r.Err = err
		return r
	}
	defer func() {
		r.Code, _ = s.stop()
		r.Stderr = s.stderr.String()
	}()
	var res struct{ Hits []struct{ Symbol string } }
	found := func() bool {
		res.Hits = nil
		_, err := s.command("contextLs.search", map[string]any{"query": "Ordinary"}, &res)
		return err == nil && len(res.Hits) > 0 && res.Hits[0].Symbol == "Ordinary"
	}
	for deadline := time.Now().Add(time.Minute); !found(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.Err = fmt.Errorf("the index never answered: %s", s.stderr.String())
			return r
		}
	}
	uri := workspace.PathToURI(filepath.Join(ix.Root, shape.File))
	s.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "", "version": 1, "text": shape.Gen(size),
	}})
	if r.Pack, err = s.command("contextLs.contextPack", map[string]any{"query": "an ordinary function", "budget": 2000}, nil); err != nil {
		r.Err = fmt.Errorf("contextPack: %w", err)
		return r
	}
	r.Search, err = s.command("contextLs.search", map[string]any{"query": "Ordinary"}, &res)
	if err != nil {
		r.Err = fmt.Errorf("search: %w", err)
		return r
	}
	r.Found = len(res.Hits) > 0 && res.Hits[0].Symbol == "Ordinary"
	if r.Shutdown, err = s.shutdown(); err != nil {
		r.Err = fmt.Errorf("shutdown: %w", err)
	}
	return r
}
