package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

// session is an in-process Serve driven over pipes.
type session struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
	done  chan error
}

func serveInProcess(t *testing.T, opts Options) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, in: inW, lines: make(chan map[string]any, 100), done: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), inR, outW, opts)
		outW.Close()
		s.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"junk": sc.Text()}
			}
			s.lines <- m
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-s.done:
		case <-time.After(wait):
			t.Error("Serve did not return after its input closed")
		}
	})
	return s
}

func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// next returns the next message, failing after d.
func (s *session) next(d time.Duration) (map[string]any, bool) {
	select {
	case m, ok := <-s.lines:
		return m, ok
	case <-time.After(d):
		return nil, false
	}
}

func (s *session) expect(id float64) map[string]any {
	s.t.Helper()
	m, ok := s.next(wait)
	if !ok {
		s.t.Fatalf("no message (waiting for id %v)", id)
	}
	if j, ok := m["junk"]; ok {
		s.t.Fatalf("a line that is not JSON on the protocol stream: %v", j)
	}
	if m["id"] != id {
		s.t.Fatalf("message %v, want the response to id %v", m, id)
	}
	return m
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

func inProcessOptions(t *testing.T, root, db string) Options {
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	return Options{Root: root, Engine: engine.Options{DBDir: db, Config: cfg}, Version: "test", ShareWait: 20 * time.Second}
}

// TestRequestsBeforeInitialize: only ping is answered before initialize.
func TestRequestsBeforeInitialize(t *testing.T) {
	s := serveInProcess(t, inProcessOptions(t, fixture(t), t.TempDir()))
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := s.expect(2); errCode(m) != codeInvalidRequest || !strings.Contains(m["error"].(map[string]any)["message"].(string), "initialize first") {
		t.Errorf("tools/list before initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := s.expect(3); m["error"] != nil {
		t.Errorf("ping before initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}`)
	if m := s.expect(4); errCode(m) != codeInvalidParams {
		t.Errorf("initialize without a version: %v", m)
	}
	s.send(`[` + initLine + `]`)
	if m, _ := s.next(wait); m == nil || !strings.Contains(strings.ToLower(toJSON(m)), "batch") {
		t.Errorf("initialize inside a batch: %v", m)
	}
	s.send(initLine)
	if m := s.expect(1); m["result"] == nil {
		t.Errorf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if m := s.expect(5); m["result"] == nil {
		t.Errorf("tools/list: %v", m)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestCancelledCallIsNotAnswered holds the index lock in this process
// without serving it, so that a tool call waits for the index; the
// client's notifications/cancelled ends it without a response, and the
// session goes on.
func TestCancelledCallIsNotAnswered(t *testing.T) {
	root, db := fixture(t), t.TempDir()
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	holder, err := engine.Open(context.Background(), root, engine.Options{DBDir: db, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	released := false
	defer func() {
		if !released {
			holder.Close()
		}
	}()
	s := serveInProcess(t, inProcessOptions(t, root, db))
	s.send(initLine)
	s.expect(1)
	s.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"get_context_stats","arguments":{}}}`)
	time.Sleep(100 * time.Millisecond)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	s.expect(2)
	if m, ok := s.next(500 * time.Millisecond); ok {
		t.Errorf("a message after the cancellation: %v", m)
	}
	// Once the lock is free, the server opens the index and answers.
	holder.Close()
	released = true
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_context_stats","arguments":{}}}`)
	m := s.expect(3)
	res, _ := m["result"].(map[string]any)
	if res == nil || res["isError"] == true {
		t.Fatalf("stats once the lock is free: %v", m)
	}
	sc, _ := res["structuredContent"].(map[string]any)
	if sh, _ := sc["sharing"].(map[string]any); sh["state"] != "owner" {
		t.Errorf("sharing: %v", sc["sharing"])
	}
}

// TestIndexUnavailable: a workspace that cannot be opened makes tool calls
// fail with a tool error saying why; the session goes on.
func TestIndexUnavailable(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	s := serveInProcess(t, inProcessOptions(t, missing, t.TempDir()))
	s.send(initLine)
	s.expect(1)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query_context","arguments":{"query":"x"}}}`)
	m := s.expect(2)
	res, _ := m["result"].(map[string]any)
	if res["isError"] != true || !strings.Contains(toJSON(res), "not available") {
		t.Errorf("call without an index: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	s.expect(3)
}

// TestOversizedLine: a line beyond the limit is a parse error, and the
// next message is read normally.
func TestOversizedLine(t *testing.T) {
	s := serveInProcess(t, inProcessOptions(t, fixture(t), t.TempDir()))
	go func() {
		w := bufio.NewWriterSize(s.in, 1<<20)
		w.WriteString(`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"`)
		w.WriteString(strings.Repeat("x", maxMessage))
		w.WriteString(`"}}` + "\n")
		w.WriteString(`{"jsonrpc":"2.0","id":10,"method":"ping"}` + "\n")
		w.Flush()
	}()
	m, ok := s.next(wait)
	if !ok || errCode(m) != codeParseError || m["id"] != nil {
		t.Errorf("oversized line: %v", m)
	}
	s.expect(10)
}
