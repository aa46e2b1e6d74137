package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/testutil"
)

// wait bounds every wait of the process tests.
const wait = 90 * time.Second

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveBinary()
	os.Exit(code)
}

// binary builds the context-ls binary once per test run.
func binary(t *testing.T) string { return testutil.Binary(t) }

// fixture copies testdata/repo to a new workspace and returns its root.
func fixture(t *testing.T) string { return fixtureTB(t) }

func fixtureTB(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "shop")
	err := filepath.WalkDir(filepath.Join("testdata", "repo"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("testdata", "repo"), p)
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// fixtureFiles is the number of indexed files of testdata/repo (go.mod is
// not indexed).
const fixtureFiles = 6

// rpcResponse is a JSON-RPC response as the client sees it.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// mcpClient is a scripted MCP client of a context-ls mcp process over
// newline-delimited JSON-RPC on its stdin and stdout.
type mcpClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *testutil.SyncBuffer
	done   chan struct{}

	mu      sync.Mutex
	next    int
	waiters map[string]chan rpcResponse
	batches [][]rpcResponse
	junk    []string // stdout lines that are not JSON-RPC messages
}

// startMCP starts "context-ls mcp" with args and extra environment.
func startMCP(t *testing.T, env []string, args ...string) *mcpClient {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"mcp"}, args...)...)
	cmd.Env = append(append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off", "CONTEXT_LS_DEBUG=1"), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &mcpClient{t: t, cmd: cmd, stdin: stdin, stderr: &testutil.SyncBuffer{}, done: make(chan struct{}), waiters: map[string]chan rpcResponse{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.read(stdout)
	t.Cleanup(func() {
		c.stdin.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-c.done
		}
		if junk := c.stdoutJunk(); len(junk) > 0 {
			t.Errorf("mcp (pid %d) wrote non-protocol lines to stdout: %q", cmd.Process.Pid, junk)
		}
		if t.Failed() || os.Getenv("MCP_TEST_LOGS") != "" {
			t.Logf("mcp stderr (pid %d):\n%s", cmd.Process.Pid, c.stderr.String())
		}
	})
	return c
}

func (c *mcpClient) pid() int { return c.cmd.Process.Pid }

func (c *mcpClient) read(stdout io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) > 0 && line[0] == '[' {
			var batch []rpcResponse
			if err := json.Unmarshal(line, &batch); err != nil {
				c.addJunk(string(line))
				continue
			}
			c.mu.Lock()
			c.batches = append(c.batches, batch)
			c.mu.Unlock()
			for _, r := range batch {
				c.deliver(r)
			}
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
			c.addJunk(string(line))
			continue
		}
		var r rpcResponse
		json.Unmarshal(line, &r)
		c.deliver(r)
	}
	c.cmd.Wait()
}

func (c *mcpClient) addJunk(s string) {
	c.mu.Lock()
	c.junk = append(c.junk, s)
	c.mu.Unlock()
}

func (c *mcpClient) deliver(r rpcResponse) {
	c.mu.Lock()
	ch := c.waiters[string(r.ID)]
	delete(c.waiters, string(r.ID))
	c.mu.Unlock()
	if ch != nil {
		ch <- r
	}
}

// expect registers a waiter for a response id before the request goes out.
func (c *mcpClient) expect(id string) chan rpcResponse {
	ch := make(chan rpcResponse, 1)
	c.mu.Lock()
	c.waiters[id] = ch
	c.mu.Unlock()
	return ch
}

func (c *mcpClient) sendLine(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

func (c *mcpClient) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendLine(string(b))
}

func (c *mcpClient) await(ch chan rpcResponse, what string) rpcResponse {
	c.t.Helper()
	select {
	case r := <-ch:
		return r
	case <-c.done:
		c.t.Fatalf("%s: the server exited", what)
	case <-time.After(wait):
		c.t.Fatalf("%s: no response within %s", what, wait)
	}
	return rpcResponse{}
}

// request sends a request and waits for its response.
func (c *mcpClient) request(method string, params any) rpcResponse {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := fmt.Sprint(c.next)
	c.mu.Unlock()
	ch := c.expect(id)
	msg := map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method}
	if params != nil {
		msg["params"] = params
	}
	c.send(msg)
	return c.await(ch, method)
}

func (c *mcpClient) notify(method string, params any) {
	c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	c.send(msg)
}

// initialize runs the handshake for version and returns the result.
func (c *mcpClient) initialize(version string) map[string]any {
	c.t.Helper()
	r := c.request("initialize", map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcp-test", "version": "1"},
	})
	if r.Error != nil {
		c.t.Fatalf("initialize: %v", r.Error)
	}
	var res map[string]any
	if err := json.Unmarshal(r.Result, &res); err != nil {
		c.t.Fatal(err)
	}
	c.notify("notifications/initialized", nil)
	return res
}

// callResult is a decoded tools/call result.
type callResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r callResult) text() string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// call runs tools/call and fails the test on a protocol error.
func (c *mcpClient) call(name string, args any) callResult {
	c.t.Helper()
	r := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	if r.Error != nil {
		c.t.Fatalf("tools/call %s: protocol error %d %s", name, r.Error.Code, r.Error.Message)
	}
	var res callResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		c.t.Fatalf("tools/call %s: %v: %s", name, err, r.Result)
	}
	return res
}

// ok runs a tool that must succeed, checks its structuredContent against
// the tool's output schema and decodes it into out.
func (c *mcpClient) ok(name string, args any, out any) callResult {
	c.t.Helper()
	res := c.call(name, args)
	if res.IsError {
		c.t.Fatalf("%s %v: tool error: %s", name, args, res.text())
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		c.t.Errorf("%s: content %+v, want one text block", name, res.Content)
	}
	checkOutput(c.t, name, res.StructuredContent)
	if out != nil {
		if err := json.Unmarshal(res.StructuredContent, out); err != nil {
			c.t.Fatalf("%s: %v", name, err)
		}
	}
	return res
}

// toolError runs a tool that must fail with a tool error whose text
// contains every one of wants.
func (c *mcpClient) toolError(name string, args any, wants ...string) string {
	c.t.Helper()
	res := c.call(name, args)
	if !res.IsError {
		c.t.Fatalf("%s %v: succeeded, want a tool error: %s", name, args, res.text())
	}
	for _, w := range wants {
		if !strings.Contains(res.text(), w) {
			c.t.Errorf("%s %v: error %q lacks %q", name, args, res.text(), w)
		}
	}
	return res.text()
}

// stdoutJunk returns stdout lines that were not JSON-RPC messages.
func (c *mcpClient) stdoutJunk() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.junk...)
}

// poll retries cond until it holds or wait passes.
func poll(t *testing.T, what string, cond func() (bool, string)) { testutil.Poll(t, what, wait, cond) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// checkOutput validates a tool's structuredContent against its
// outputSchema.
func checkOutput(t *testing.T, tool string, raw json.RawMessage) {
	t.Helper()
	tl := toolsByName[tool]
	if tl == nil {
		t.Fatalf("no tool %s", tool)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: structuredContent: %v", tool, err)
	}
	schema := roundTrip(t, outputSchema(tl.result))
	if errs := validate(schema, v, "$"); len(errs) > 0 {
		t.Errorf("%s: structuredContent does not match the outputSchema:\n  %s", tool, strings.Join(errs, "\n  "))
	}
}

// roundTrip turns a Go schema value into its JSON form.
func roundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// validate checks a JSON value against the subset of JSON Schema the
// generator emits: type, properties, required, additionalProperties,
// items, enum, minimum, maximum, maxLength.
func validate(schema map[string]any, v any, at string) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	switch schema["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("want an object, got %T", v)
			return errs
		}
		props, _ := schema["properties"].(map[string]any)
		req, _ := schema["required"].([]any)
		for _, r := range req {
			if _, ok := m[r.(string)]; !ok {
				bad("required property %q missing", r)
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k].(map[string]any); ok {
				errs = append(errs, validate(ps, m[k], at+"."+k)...)
				continue
			}
			switch ap := schema["additionalProperties"].(type) {
			case map[string]any:
				errs = append(errs, validate(ap, m[k], at+"."+k)...)
			case bool:
				if !ap {
					bad("property %q not allowed", k)
				}
			default:
				if props != nil {
					bad("property %q is not in the schema", k)
				}
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			bad("want an array, got %T", v)
			return errs
		}
		items, _ := schema["items"].(map[string]any)
		for i, x := range a {
			errs = append(errs, validate(items, x, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "string":
		s, ok := v.(string)
		if !ok {
			bad("want a string, got %T", v)
			return errs
		}
		if n, ok := schema["maxLength"].(float64); ok && float64(len([]rune(s))) > n {
			bad("longer than %v", n)
		}
	case "integer", "number":
		x, ok := v.(float64)
		if !ok {
			bad("want a number, got %T", v)
			return errs
		}
		if schema["type"] == "integer" && x != math.Trunc(x) {
			bad("want an integer, got %v", x)
		}
		if lo, ok := schema["minimum"].(float64); ok && x < lo {
			bad("%v below minimum %v", x, lo)
		}
		if hi, ok := schema["maximum"].(float64); ok && x > hi {
			bad("%v above maximum %v", x, hi)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("want a boolean, got %T", v)
		}
	default:
		bad("schema without a known type: %v", schema["type"])
	}
	if enum, ok := schema["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if e == v {
				found = true
			}
		}
		if !found {
			bad("%v not in %v", v, enum)
		}
	}
	return errs
}

// golden compares got with testdata/golden/name, rewriting it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", name), got)
}
