package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/workspace"
	"go.lsp.dev/protocol"
)

func TestLifecycleExitCodes(t *testing.T) {
	tests := []struct {
		name   string
		script func(h *harness)
		want   int
		closed bool // CloseFolder must have run
	}{
		{"shutdown then exit", func(h *harness) {
			h.initialize(clientCaps{}, nil)
			must(t, h.c.Call(testCtx(t), "shutdown", nil, nil))
			must(t, h.c.Notify("exit", nil))
		}, 0, true},
		{"exit without shutdown", func(h *harness) {
			h.initialize(clientCaps{}, nil)
			must(t, h.c.Notify("exit", nil))
		}, 1, true},
		{"stream closes without exit", func(h *harness) {
			h.initialize(clientCaps{}, nil)
			h.status() // the folder is open once a request after initialized answers
			must(t, h.c.Close())
		}, 1, true},
		{"shutdown then stream closes", func(h *harness) {
			h.initialize(clientCaps{}, nil)
			must(t, h.c.Call(testCtx(t), "shutdown", nil, nil))
			must(t, h.c.Close())
		}, 1, true},
		{"exit before initialize", func(h *harness) {
			must(t, h.c.Notify("exit", nil))
		}, 1, false},
		{"shutdown and exit sent back to back", func(h *harness) {
			h.initialize(clientCaps{}, nil)
			p, err := h.c.Go("shutdown", nil)
			must(t, err)
			must(t, h.c.Notify("exit", nil))
			must(t, h.c.Close())
			_ = p.Wait(testCtx(t), nil)
		}, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &fakeBackend{}
			h := startServer(t, Options{Backend: b})
			tc.script(h)
			if got := h.waitExit(); got != tc.want {
				t.Errorf("exit code %d, want %d", got, tc.want)
			}
			closed := false
			for _, e := range b.eventList() {
				closed = closed || strings.HasPrefix(e, "close ")
			}
			if closed != tc.closed {
				t.Errorf("CloseFolder called: %v, want %v (events %q)", closed, tc.closed, b.eventList())
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestInitializeResultGolden(t *testing.T) {
	h := startServer(t, Options{Backend: &fakeBackend{}})
	res := h.initialize(clientCaps{}, nil)
	var pretty bytes.Buffer
	must(t, json.Indent(&pretty, res, "", "  "))
	pretty.WriteByte('\n')
	golden(t, "initialize.golden.json", pretty.Bytes())
	if code := h.shutdownExit(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestQueryWithoutIndex: a request about a folder whose index is not
// open answers RequestFailed saying so, and the server keeps serving.
func TestQueryWithoutIndex(t *testing.T) {
	h := startServer(t, Options{})
	h.initialize(clientCaps{}, nil)
	err := h.c.Call(testCtx(t), "textDocument/hover", map[string]any{
		"textDocument": map[string]string{"uri": workspace.PathToURI(filepath.Join(h.root, "a.go"))},
		"position":     map[string]int{"line": 0, "character": 0},
	}, nil)
	if rpcCode(err) != int64(jsonrpc.CodeRequestFailed) || !strings.Contains(err.Error(), "not available") {
		t.Errorf("hover without an index: %v, want RequestFailed saying the folder is not available", err)
	}
	h.status()
}

func TestLifecycleErrors(t *testing.T) {
	hoverParams := map[string]any{
		"textDocument": map[string]string{"uri": "file:///x.go"},
		"position":     map[string]int{"line": 0, "character": 0},
	}
	t.Run("request before initialize", func(t *testing.T) {
		h := startServer(t, Options{})
		err := h.c.Call(testCtx(t), "textDocument/hover", hoverParams, nil)
		if rpcCode(err) != int64(jsonrpc.CodeServerNotInitialized) {
			t.Fatalf("got %v, want ServerNotInitialized", err)
		}
		err = h.c.Call(testCtx(t), "no/such/method", nil, nil)
		if rpcCode(err) != int64(jsonrpc.CodeServerNotInitialized) {
			t.Fatalf("unknown method before initialize: %v, want ServerNotInitialized", err)
		}
	})
	t.Run("notification before initialize is dropped", func(t *testing.T) {
		b := &fakeBackend{}
		h := startServer(t, Options{Backend: b})
		must(t, h.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": workspace.PathToURI(filepath.Join(h.root, "early.go")), "languageId": "go", "version": 1, "text": "x"}}))
		h.initialize(clientCaps{}, nil)
		if st := h.status(); len(st.Documents) != 0 {
			t.Errorf("document opened before initialize was kept: %+v", st.Documents)
		}
	})
	t.Run("failed initialize may be retried", func(t *testing.T) {
		h := startServer(t, Options{})
		err := h.c.Call(testCtx(t), "initialize", map[string]any{"capabilities": "none"}, nil)
		if rpcCode(err) != int64(jsonrpc.CodeInvalidParams) || !strings.Contains(err.Error(), "capabilities: expected object") {
			t.Fatalf("got %v, want InvalidParams naming capabilities", err)
		}
		err = h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "contextLs.status"}, nil)
		if rpcCode(err) != int64(jsonrpc.CodeServerNotInitialized) {
			t.Fatalf("request after a failed initialize: %v", err)
		}
		h.initialize(clientCaps{}, nil)
		h.status()
	})
	t.Run("second initialize", func(t *testing.T) {
		h := startServer(t, Options{})
		h.initialize(clientCaps{}, nil)
		err := h.c.Call(testCtx(t), "initialize", map[string]any{"capabilities": map[string]any{}}, nil)
		if rpcCode(err) != int64(jsonrpc.CodeInvalidRequest) {
			t.Fatalf("got %v, want InvalidRequest", err)
		}
	})
	t.Run("requests after shutdown", func(t *testing.T) {
		h := startServer(t, Options{})
		h.initialize(clientCaps{}, nil)
		must(t, h.c.Call(testCtx(t), "shutdown", nil, nil))
		for _, m := range []string{"textDocument/hover", "shutdown", "workspace/executeCommand", "no/such/method"} {
			err := h.c.Call(testCtx(t), m, hoverParams, nil)
			if rpcCode(err) != int64(jsonrpc.CodeInvalidRequest) {
				t.Errorf("%s after shutdown: %v, want InvalidRequest", m, err)
			}
		}
		must(t, h.c.Notify("exit", nil))
		if code := h.waitExit(); code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
	})
	t.Run("unknown methods", func(t *testing.T) {
		h := startServer(t, Options{})
		h.initialize(clientCaps{}, nil)
		for _, m := range []string{"no/such/method", "$/customRequest"} {
			err := h.c.Call(testCtx(t), m, nil, nil)
			if rpcCode(err) != int64(jsonrpc.CodeMethodNotFound) {
				t.Errorf("%s: %v, want MethodNotFound", m, err)
			}
		}
		// Unknown notifications get no reply; $/ ones are not even logged.
		must(t, h.c.Notify("no/such/notification", map[string]any{}))
		must(t, h.c.Notify("$/setTrace", map[string]any{"value": "off"}))
		h.status()
		for _, m := range h.c.Messages() {
			if m.Kind == lsptest.Response {
				t.Errorf("unexpected reply to a notification: %+v", m)
			}
		}
		logs := h.stderr.String()
		if !strings.Contains(logs, "no/such/notification") {
			t.Errorf("unknown notification not logged at debug:\n%s", logs)
		}
		if strings.Contains(logs, "$/setTrace") {
			t.Errorf("$/ notification logged:\n%s", logs)
		}
	})
	t.Run("request to a notification method", func(t *testing.T) {
		h := startServer(t, Options{})
		h.initialize(clientCaps{}, nil)
		err := h.c.Call(testCtx(t), "textDocument/didSave", map[string]any{}, nil)
		if rpcCode(err) != int64(jsonrpc.CodeInvalidRequest) {
			t.Errorf("got %v, want InvalidRequest", err)
		}
	})
}

// blockingCommand returns a command that signals entry on started and
// blocks until release is closed or its context ends; it reports the
// context's fate on ended.
func blockingCommand(name string, started chan<- string, release <-chan struct{}, ended chan<- error) Command {
	type args struct {
		Tag string `json:"tag" desc:"a label"`
	}
	return NewCommand(name, "test: block", func(ctx context.Context, _ *CommandEnv, a args) (string, error) {
		started <- a.Tag
		select {
		case <-release:
			if ended != nil {
				ended <- nil
			}
			return "released " + a.Tag, nil
		case <-ctx.Done():
			if ended != nil {
				ended <- ctx.Err()
			}
			return "", ctx.Err()
		}
	})
}

func TestSlowCommandDoesNotBlockOtherRequests(t *testing.T) {
	started := make(chan string, 1)
	release := make(chan struct{})
	cmds := append(commandTable(), blockingCommand("test.slow", started, release, nil))
	h := startServer(t, Options{commands: append(cmds, positionCommand())})
	h.initialize(clientCaps{}, nil)
	path := writeFile(t, h.root, "a.go", "package a\n")
	slow, err := h.c.Go("workspace/executeCommand", map[string]any{"command": "test.slow", "arguments": []any{map[string]string{"tag": "s"}}})
	must(t, err)
	if tag := <-started; tag != "s" {
		t.Fatalf("started %q", tag)
	}
	// The slow command is running and blocked; another request must still
	// answer.
	if got := callPosition(t, h, workspace.PathToURI(path), 0, 3); got != "0:3" {
		t.Errorf("position %q", got)
	}
	select {
	case <-release:
		t.Fatal("release closed early")
	default:
	}
	close(release)
	var out string
	must(t, slow.Wait(testCtx(t), &out))
	if out != "released s" {
		t.Errorf("slow result %q", out)
	}
}

func TestCancelRequest(t *testing.T) {
	ids := []struct {
		name string
		id   string
	}{
		{"small number", "7"},
		{"number above int32", "1099511627776"},
		{"number above int64", "1180591620717411303424"},
		{"string", `"req-α-1"`},
		{"numeric string", `"42"`},
	}
	for _, tc := range ids {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan string, 1)
			ended := make(chan error, 1)
			cmds := append(commandTable(), blockingCommand("test.block", started, make(chan struct{}), ended))
			h := startServer(t, Options{commands: cmds})
			h.initialize(clientCaps{}, nil)
			p, err := h.c.GoWithID(json.RawMessage(tc.id), "workspace/executeCommand",
				map[string]any{"command": "test.block", "arguments": []any{map[string]string{"tag": "x"}}})
			must(t, err)
			<-started
			must(t, p.Cancel())
			err = p.Wait(testCtx(t), nil)
			if rpcCode(err) != int64(jsonrpc.CodeRequestCancelled) {
				t.Fatalf("got %v, want RequestCancelled (-32800)", err)
			}
			if e := <-ended; !errors.Is(e, context.Canceled) {
				t.Errorf("handler context ended with %v", e)
			}
			// The server keeps serving.
			h.status()
		})
	}
}

func TestCancelMatchesIDType(t *testing.T) {
	// Cancelling "7" (a string) must not cancel request 7 (a number).
	started := make(chan string, 1)
	release := make(chan struct{})
	h := startServer(t, Options{commands: append(commandTable(), blockingCommand("test.block", started, release, nil))})
	h.initialize(clientCaps{}, nil)
	p, err := h.c.GoWithID(json.RawMessage("7"), "workspace/executeCommand",
		map[string]any{"command": "test.block", "arguments": []any{map[string]string{"tag": "x"}}})
	must(t, err)
	<-started
	must(t, h.c.Notify("$/cancelRequest", map[string]any{"id": "7"}))
	h.status() // the cancel was processed before this answer
	close(release)
	var out string
	must(t, p.Wait(testCtx(t), &out))
	if out != "released x" {
		t.Errorf("got %q", out)
	}
}

func TestCancelQueuedRequest(t *testing.T) {
	// A request waiting for a pool slot is cancellable too.
	started := make(chan string, 2)
	release := make(chan struct{})
	h := startServer(t, Options{MaxConcurrent: 1, commands: append(commandTable(), blockingCommand("test.block", started, release, nil))})
	h.initialize(clientCaps{}, nil)
	first, err := h.c.Go("workspace/executeCommand", map[string]any{"command": "test.block", "arguments": []any{map[string]string{"tag": "1"}}})
	must(t, err)
	<-started
	second, err := h.c.Go("workspace/executeCommand", map[string]any{"command": "test.block", "arguments": []any{map[string]string{"tag": "2"}}})
	must(t, err)
	must(t, second.Cancel())
	if err := second.Wait(testCtx(t), nil); rpcCode(err) != int64(jsonrpc.CodeRequestCancelled) {
		t.Fatalf("queued request: %v, want RequestCancelled", err)
	}
	close(release)
	must(t, first.Wait(testCtx(t), nil))
	select {
	case tag := <-started:
		t.Errorf("cancelled request %q ran", tag)
	default:
	}
}

func TestRequestDeadline(t *testing.T) {
	started := make(chan string, 1)
	ended := make(chan error, 1)
	h := startServer(t, Options{
		commands:       append(commandTable(), blockingCommand("test.block", started, make(chan struct{}), ended)),
		MethodTimeouts: map[string]time.Duration{"workspace/executeCommand": 50 * time.Millisecond},
	})
	h.initialize(clientCaps{}, nil)
	err := h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.block", "arguments": []any{map[string]string{}}}, nil)
	if rpcCode(err) != int64(jsonrpc.CodeRequestFailed) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("got %v, want RequestFailed timed out", err)
	}
	if e := <-ended; !errors.Is(e, context.DeadlineExceeded) {
		t.Errorf("handler context ended with %v", e)
	}
}

func TestRequestIDs(t *testing.T) {
	h := startServer(t, Options{})
	h.initialize(clientCaps{}, nil)
	for _, id := range []string{"1099511627776", "1180591620717411303424", "-5", `"abc"`, `""`, `"ünïcode id"`} {
		p, err := h.c.GoWithID(json.RawMessage(id), "workspace/executeCommand", map[string]any{"command": "contextLs.status"})
		must(t, err)
		var st StatusResult
		if err := p.Wait(testCtx(t), &st); err != nil {
			t.Errorf("id %s: %v", id, err)
		} else if st.Server.Name != "context-ls-test" {
			t.Errorf("id %s: status %+v", id, st)
		}
	}
	// Ids that are neither integers nor strings are invalid requests,
	// answered with a null id.
	for _, id := range []string{"1.5", "true", "{}", "[1]", "null", "1e3"} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"workspace/executeCommand","params":{"command":"contextLs.status"}}`, id)
		must(t, h.c.WriteFrame([]byte(body)))
		m, err := h.c.Await(testCtx(t), func(m lsptest.Message) bool { return m.Kind == lsptest.Response })
		must(t, err)
		if m.Error == nil || m.Error.Code != int64(jsonrpc.CodeInvalidRequest) || string(m.ID) != "null" {
			t.Errorf("id %s: got %+v (id %s), want InvalidRequest with null id", id, m.Error, m.ID)
		}
	}
	h.status()
}

func TestMalformedInput(t *testing.T) {
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	tests := []struct {
		name     string
		raw      string // written as is
		wantCode int64  // code of a reply with a null id; 0 when no reply is expected
	}{
		{"invalid JSON body", frame(`{"jsonrpc`), int64(jsonrpc.CodeParseError)},
		{"truncated object", frame(`{"jsonrpc":"2.0"`), int64(jsonrpc.CodeParseError)},
		{"empty body", frame(""), int64(jsonrpc.CodeParseError)},
		{"not an object", frame("42"), int64(jsonrpc.CodeInvalidRequest)},
		{"batch", frame("[]"), int64(jsonrpc.CodeInvalidRequest)},
		{"missing jsonrpc", frame(`{"method":"x","params":{}}`), int64(jsonrpc.CodeInvalidRequest)},
		{"wrong jsonrpc", frame(`{"jsonrpc":"1.0","method":"x"}`), int64(jsonrpc.CodeInvalidRequest)},
		{"method not a string", frame(`{"jsonrpc":"2.0","method":7}`), int64(jsonrpc.CodeInvalidRequest)},
		{"invalid UTF-8 body", frame("\xff\xfe\xfd\xfc"), int64(jsonrpc.CodeParseError)},
		{"garbage line before a header", "garbage\r\n\r\n", 0},
		{"header without length", "Content-Type: x\r\n\r\n", 0},
		{"bad length", "Content-Length: ten\r\n\r\n", 0},
		{"negative length", "Content-Length: -4\r\n\r\n", 0},
		{"overlong header line", strings.Repeat("x", 10000) + "\r\n\r\n", 0},
		{"LF-only header", "Content-Length: 2\n\n{}", int64(jsonrpc.CodeInvalidRequest)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := startServer(t, Options{})
			h.initialize(clientCaps{}, nil)
			must(t, h.c.WriteRaw([]byte(tc.raw)))
			if tc.wantCode != 0 {
				m, err := h.c.Await(testCtx(t), func(m lsptest.Message) bool { return m.Kind == lsptest.Response })
				must(t, err)
				if m.Error == nil || m.Error.Code != tc.wantCode || string(m.ID) != "null" {
					t.Errorf("reply %+v id %s, want code %d with a null id", m.Error, m.ID, tc.wantCode)
				}
			}
			// The connection survives.
			if st := h.status(); st.Server.Name == "" {
				t.Error("no status after bad input")
			}
			for _, m := range h.c.Messages() {
				if m.Kind == lsptest.Response && tc.wantCode == 0 {
					t.Errorf("unexpected reply %+v", m)
				}
			}
		})
	}
}

func TestBodyWithoutHeaderResynchronises(t *testing.T) {
	h := startServer(t, Options{})
	h.initialize(clientCaps{}, nil)
	// A body sent without its header runs into the next header line.
	must(t, h.c.WriteRaw([]byte(`{"jsonrpc":"2.0","method":"lost"}`)))
	h.status()
	if !strings.Contains(h.stderr.String(), "skipped invalid input") {
		t.Errorf("garbage not logged:\n%s", h.stderr.String())
	}
}

// TestLogsAreBounded: a mebibyte of random bytes, a huge method name and a
// huge unknown setting make log lines and window/logMessage notifications
// of bounded size (before: one 800 KB line and 1.5 MB notifications).
func TestLogsAreBounded(t *testing.T) {
	h := startServer(t, Options{})
	h.initialize(clientCaps{}, map[string]any{"logLevel": "debug"})
	junk := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{1}).Read(junk)
	must(t, h.c.WriteRaw(junk))
	must(t, h.c.Notify(strings.Repeat("m", 1<<20), map[string]any{}))
	must(t, h.c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{strings.Repeat("k", 1<<20): 1}}))
	h.status()
	const limit = 4096
	for _, line := range strings.Split(h.stderr.String(), "\n") {
		if len(line) > limit {
			t.Errorf("stderr line of %d bytes: %.200s…", len(line), line)
		}
	}
	n := 0
	for _, m := range h.c.Messages() {
		if m.Method == "window/logMessage" || m.Method == "window/showMessage" {
			n++
			if len(m.Params) > limit {
				t.Errorf("%s of %d bytes: %.200s…", m.Method, len(m.Params), m.Params)
			}
		}
	}
	if n == 0 {
		t.Error("nothing was logged to the client at logLevel debug")
	}
}

func TestOversizedMessage(t *testing.T) {
	h := startServer(t, Options{MaxMessageBytes: 4096})
	h.initialize(clientCaps{}, nil)
	body := `{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"x":"` + strings.Repeat("y", 5000) + `"}}}`
	must(t, h.c.WriteFrame([]byte(body)))
	m, err := h.c.Await(testCtx(t), func(m lsptest.Message) bool { return m.Kind == lsptest.Response })
	must(t, err)
	if m.Error == nil || m.Error.Code != int64(jsonrpc.CodeParseError) || !strings.Contains(m.Error.Message, "exceeds") {
		t.Errorf("got %+v", m.Error)
	}
	h.status()
}

func TestInvalidParamsNameTheField(t *testing.T) {
	h := startServer(t, Options{})
	h.initialize(clientCaps{}, nil)
	tests := []struct {
		method string
		params any
		want   string
	}{
		{"textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": 5}}, "textDocument.uri: expected string"},
		{"textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///a"}, "position": map[string]any{"line": -1}}, "position.line: expected non-negative integer"},
		{"textDocument/hover", map[string]any{"textDocument": "file:///a"}, "textDocument: expected object"},
		{"textDocument/hover", map[string]any{"position": map[string]any{"line": 1}}, "textDocument.uri: required"},
		{"textDocument/definition", []any{1, 2}, "params: expected object"},
		{"textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": "untitled:Untitled-1"}}, "textDocument.uri:"},
		{"workspace/executeCommand", map[string]any{"command": 3}, "command: expected string"},
		{"workspace/executeCommand", map[string]any{}, "command: required"},
	}
	for _, tc := range tests {
		err := h.c.Call(testCtx(t), tc.method, tc.params, nil)
		if rpcCode(err) != int64(jsonrpc.CodeInvalidParams) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: got %v, want InvalidParams containing %q", tc.method, tc.params, err, tc.want)
		}
	}
	// A scalar params value is rejected before dispatch.
	must(t, h.c.WriteFrame([]byte(`{"jsonrpc":"2.0","id":99,"method":"textDocument/hover","params":5}`)))
	m, err := h.c.Await(testCtx(t), func(m lsptest.Message) bool { return m.Kind == lsptest.Response })
	must(t, err)
	if m.Error == nil || m.Error.Code != int64(jsonrpc.CodeInvalidParams) || string(m.ID) != "99" {
		t.Errorf("scalar params: %+v id %s", m.Error, m.ID)
	}
}

func TestPanicRecovery(t *testing.T) {
	explode := NewCommand("test.explode", "test: panic", func(context.Context, *CommandEnv, StatusArgs) (string, error) {
		panic("command exploded")
	})
	h := startServer(t, Options{Backend: &panickyBackend{}, commands: append(commandTable(), explode)})
	h.initialize(clientCaps{}, nil)
	path := writeFile(t, h.root, "p.go", "package p\n")
	err := h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.explode"}, nil)
	if rpcCode(err) != int64(jsonrpc.CodeInternalError) || !strings.Contains(err.Error(), "command exploded") {
		t.Fatalf("got %v, want InternalError", err)
	}
	m, err := h.c.Await(testCtx(t), lsptest.LogMessage("command exploded"))
	must(t, err)
	var lm struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}
	must(t, m.Decode(&lm))
	if lm.Type != 1 || !strings.Contains(lm.Message, "goroutine") {
		t.Errorf("logMessage type %d, want 1 (Error) with a stack: %q", lm.Type, lm.Message)
	}
	if !strings.Contains(h.stderr.String(), "command exploded") || !strings.Contains(h.stderr.String(), "stack=") {
		t.Errorf("panic not logged with stack to stderr")
	}
	// A panicking notification hook is recovered too; the document is still
	// tracked and the server keeps serving.
	must(t, h.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": workspace.PathToURI(path), "languageId": "go", "version": 1, "text": "package p\n"}}))
	_, err = h.c.Await(testCtx(t), lsptest.LogMessage("didOpen exploded"))
	must(t, err)
	if st := h.status(); len(st.Documents) != 1 {
		t.Errorf("documents %+v", st.Documents)
	}
	if code := h.shutdownExit(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestOrderedBeforeConcurrent(t *testing.T) {
	// A request sent after a didChange sees the change.
	h := startServer(t, Options{commands: []Command{positionCommand()}})
	h.initialize(clientCaps{}, nil)
	uri := workspace.PathToURI(filepath.Join(h.root, "o.go"))
	must(t, h.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": "ab"}}))
	for v := 2; v < 40; v++ {
		// Prepend one emoji per version: UTF-16 column 2v-2 is byte 4v-4.
		must(t, h.c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []any{map[string]any{"range": rng(0, 0, 0, 0), "text": "😀"}},
		}))
		if got, want := callPosition(t, h, uri, 0, 2*(v-1)), fmt.Sprintf("0:%d", 4*(v-1)); got != want {
			t.Fatalf("version %d: position at byte %s, want %s", v, got, want)
		}
	}
}

func rng(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{
		"start": map[string]int{"line": l1, "character": c1},
		"end":   map[string]int{"line": l2, "character": c2},
	}
}

func TestDocumentSync(t *testing.T) {
	b := &fakeBackend{}
	h := startServer(t, Options{Backend: b})
	h.initialize(clientCaps{}, nil)
	uri := workspace.PathToURI(filepath.Join(h.root, "d.txt"))
	open := func(text string) {
		must(t, h.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "plaintext", "version": 1, "text": text}}))
	}
	change := func(version int, changes ...any) {
		must(t, h.c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": changes}))
	}
	open("a😀b\r\nline2\n")
	change(2, map[string]any{"range": rng(0, 1, 0, 3), "text": "é"})   // replace the emoji (2 units)
	change(3, map[string]any{"range": rng(1, 99, 1, 99), "text": "!"}) // past line end: clamps
	change(3, map[string]any{"range": rng(0, 0, 0, 0), "text": "STALE"})
	change(4, map[string]any{"range": rng(9, 0, 9, 0), "text": "EOF"}) // past EOF: appends
	change(5, map[string]any{"text": "whole"}, map[string]any{"range": rng(0, 5, 0, 5), "text": "!"})
	must(t, h.c.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}}))
	must(t, h.c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}))
	must(t, h.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "untitled:Untitled-1", "languageId": "go", "version": 1, "text": "x"}}))
	h.status()
	want := []string{
		"open " + filepath.Base(h.root),
		"didOpen d.txt a😀b\r\nline2\n",
		"didChange d.txt aéb\r\nline2\n",
		"didChange d.txt aéb\r\nline2!\n",
		"didChange d.txt aéb\r\nline2!\nEOF",
		"didChange d.txt whole!",
		"didSave d.txt",
		"didClose d.txt",
	}
	if got := b.eventList(); !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n%q\nwant\n%q", got, want)
	}
	if !strings.Contains(h.stderr.String(), "stale document version") {
		t.Error("stale version not logged")
	}
}

func TestWorkspaceFolderChanges(t *testing.T) {
	b := &fakeBackend{}
	h := startServer(t, Options{Backend: b})
	h.initialize(clientCaps{}, nil)
	other := t.TempDir()
	must(t, h.c.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added":   []any{map[string]string{"uri": workspace.PathToURI(other), "name": "other"}},
		"removed": []any{map[string]string{"uri": workspace.PathToURI(h.root), "name": "root"}},
	}}))
	st := h.status()
	if len(st.Folders) != 1 || st.Folders[0].Path != other || st.Folders[0].State != "open" {
		t.Errorf("folders %+v", st.Folders)
	}
	want := []string{"open " + filepath.Base(h.root), "close " + filepath.Base(h.root), "open " + filepath.Base(other)}
	if got := b.eventList(); !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	// The fallback watcher follows the folders.
	b.mu.Lock()
	watchers, stopped := append([]string(nil), b.watchers...), append([]string(nil), b.stopped...)
	b.mu.Unlock()
	if !reflect.DeepEqual(watchers, []string{h.root, other}) || !reflect.DeepEqual(stopped, []string{h.root}) {
		t.Errorf("watchers %q stopped %q", watchers, stopped)
	}
}

func TestOpenFolderFailure(t *testing.T) {
	b := &fakeBackend{openErr: errors.New("disk on fire")}
	h := startServer(t, Options{Backend: b})
	h.initialize(clientCaps{}, nil)
	if _, err := h.c.Await(testCtx(t), lsptest.ShowMessage("disk on fire")); err != nil {
		t.Fatal(err)
	}
	st := h.status()
	if len(st.Folders) != 1 || st.Folders[0].State != "unavailable" || !strings.Contains(st.Folders[0].Error, "disk on fire") {
		t.Errorf("folders %+v", st.Folders)
	}
	err := h.c.Call(testCtx(t), "textDocument/hover", map[string]any{
		"textDocument": map[string]string{"uri": workspace.PathToURI(filepath.Join(h.root, "x.go"))},
		"position":     map[string]int{"line": 0, "character": 0},
	}, nil)
	if rpcCode(err) != int64(jsonrpc.CodeRequestFailed) || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("hover in a failed folder: %v", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.watchers) > 0 {
		t.Errorf("watcher started on a folder that failed to open: %v", b.watchers)
	}
}

// positionCommand answers where a document position lands: the 0-based
// line and byte column of the server's copy of the document.
func positionCommand() Command {
	type args struct {
		URI      string            `json:"uri" desc:"document"`
		Position protocol.Position `json:"position" desc:"position"`
	}
	return NewCommand("test.position", "test: map a position", func(_ context.Context, env *CommandEnv, a args) (string, error) {
		path, err := docPath("uri", a.URI)
		if err != nil {
			return "", err
		}
		m, err := env.s.mapperFor(path)
		if err != nil {
			return "", err
		}
		pt := m.PositionPoint(a.Position)
		return fmt.Sprintf("%d:%d", pt.Line, pt.Column), nil
	})
}

// callPosition runs test.position.
func callPosition(t *testing.T, h *harness, uri string, line, char int) string {
	t.Helper()
	var out string
	must(t, h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.position",
		"arguments": []any{map[string]any{"uri": uri, "position": map[string]int{"line": line, "character": char}}}}, &out))
	return out
}

// panickyBackend panics in DidOpen.
type panickyBackend struct{ fakeBackend }

func (b *panickyBackend) DidOpen(string, []byte, int32) { panic("didOpen exploded") }
