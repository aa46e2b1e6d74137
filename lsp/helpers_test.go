package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/context-ls/context-ls/lsp/lsptest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestMain doubles as a language server process for TestServeProcess: with
// CONTEXT_LS_TEST_SERVE=1 the test binary serves LSP on its stdio.
func TestMain(m *testing.M) {
	if os.Getenv("CONTEXT_LS_TEST_SERVE") == "1" {
		os.Exit(Serve(context.Background(), Stdio(), Options{Name: "context-ls-process", Version: "1"}))
	}
	code := m.Run()
	removeBinary()
	os.Exit(code)
}

// safety bounds a wait that should end promptly; it is a hang guard, not a
// speed assertion.
const safety = 20 * time.Second

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), safety)
	t.Cleanup(cancel)
	return ctx
}

// syncBuffer is a goroutine-safe buffer for captured logs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness runs Serve over pipes with a scripted client.
type harness struct {
	t      testing.TB
	c      *lsptest.Client
	exit   chan int
	stderr *syncBuffer
	root   string
}

func startServer(t testing.TB, opts Options) *harness {
	t.Helper()
	c, rwc := lsptest.Pipe()
	h := &harness{t: t, c: c, exit: make(chan int, 1), stderr: &syncBuffer{}, root: t.TempDir()}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(h.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.Name == "" {
		opts.Name, opts.Version = "context-ls-test", "0.0.0-test"
	}
	go func() { h.exit <- Serve(context.Background(), rwc, opts) }()
	t.Cleanup(func() {
		_ = c.Close()
		select {
		case <-h.exit:
		case <-time.After(safety):
			t.Error("server did not stop after its input closed")
		}
	})
	return h
}

// clientCaps builds client capabilities.
type clientCaps struct {
	progress, dynamicWatch, configuration, hierarchical bool
}

func (cc clientCaps) json() map[string]any {
	return map[string]any{
		"window": map[string]any{"workDoneProgress": cc.progress},
		"workspace": map[string]any{
			"configuration":         cc.configuration,
			"workspaceFolders":      true,
			"didChangeWatchedFiles": map[string]any{"dynamicRegistration": cc.dynamicWatch},
		},
		"textDocument": map[string]any{
			"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": cc.hierarchical},
		},
	}
}

// initialize runs initialize and initialized with one folder (h.root).
func (h *harness) initialize(cc clientCaps, initOptions any) json.RawMessage {
	h.t.Helper()
	var res json.RawMessage
	params := map[string]any{
		"processId":        nil,
		"capabilities":     cc.json(),
		"workspaceFolders": []map[string]string{{"uri": PathToURI(h.root), "name": "root"}},
	}
	if initOptions != nil {
		params["initializationOptions"] = initOptions
	}
	if err := h.c.Call(testCtx(h.t), "initialize", params, &res); err != nil {
		h.t.Fatalf("initialize: %v", err)
	}
	if err := h.c.Notify("initialized", map[string]any{}); err != nil {
		h.t.Fatalf("initialized: %v", err)
	}
	return res
}

// shutdownExit runs shutdown and exit and returns the exit code.
func (h *harness) shutdownExit() int {
	h.t.Helper()
	if err := h.c.Call(testCtx(h.t), "shutdown", nil, nil); err != nil {
		h.t.Fatalf("shutdown: %v", err)
	}
	if err := h.c.Notify("exit", nil); err != nil {
		h.t.Fatalf("exit: %v", err)
	}
	return h.waitExit()
}

func (h *harness) waitExit() int {
	h.t.Helper()
	select {
	case code := <-h.exit:
		h.exit <- code // keep it for Cleanup
		return code
	case <-time.After(safety):
		h.t.Fatal("server did not exit")
		return -1
	}
}

// status runs contextLs.status.
func (h *harness) status() StatusResult {
	h.t.Helper()
	var st StatusResult
	if err := h.c.Call(testCtx(h.t), "workspace/executeCommand", map[string]any{"command": "contextLs.status"}, &st); err != nil {
		h.t.Fatalf("status: %v", err)
	}
	return st
}

// rpcCode returns the code of an *lsptest.RPCError, or 0.
func rpcCode(err error) int64 {
	var re *lsptest.RPCError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

// writeFile writes a file under dir and returns its path.
func writeFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the output (run with -update to accept):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// fakeBackend is a Features implementation recording what it is told.
type fakeBackend struct {
	mu       sync.Mutex
	events   []string
	changed  [][]string
	settings []Settings
	watchers []string
	stopped  []string
}

type fakeFolder struct{ root string }

func (b *fakeBackend) record(e string) {
	b.mu.Lock()
	b.events = append(b.events, e)
	b.mu.Unlock()
}

func (b *fakeBackend) eventList() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.events...)
}

// features returns Features with the lifecycle and document hooks set.
func (b *fakeBackend) features() Features {
	return Features{
		OpenFolder: func(ctx context.Context, root string, s Settings, progress ProgressFunc) (FolderHandle, error) {
			b.record("open " + filepath.Base(root))
			return &fakeFolder{root: root}, nil
		},
		CloseFolder: func(h FolderHandle) error {
			b.record("close " + filepath.Base(h.(*fakeFolder).root))
			return nil
		},
		DidOpen: func(path string, text []byte, version int32) {
			b.record("didOpen " + filepath.Base(path) + " " + string(text))
		},
		DidChange: func(path string, text []byte, version int32) {
			b.record("didChange " + filepath.Base(path) + " " + string(text))
		},
		DidClose: func(path string, text []byte, version int32) {
			b.record("didClose " + filepath.Base(path))
		},
		DidSave: func(path string, text []byte, version int32) {
			b.record("didSave " + filepath.Base(path))
		},
		FilesChanged: func(paths []string) {
			b.mu.Lock()
			b.changed = append(b.changed, paths)
			b.mu.Unlock()
		},
		SettingsChanged: func(s Settings) {
			b.mu.Lock()
			b.settings = append(b.settings, s)
			b.mu.Unlock()
		},
		StartWatcher: func(root string) func() {
			b.mu.Lock()
			b.watchers = append(b.watchers, root)
			b.mu.Unlock()
			return func() {
				b.mu.Lock()
				b.stopped = append(b.stopped, root)
				b.mu.Unlock()
			}
		},
	}
}
