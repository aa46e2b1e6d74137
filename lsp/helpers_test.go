package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
)

// TestMain doubles as a language server process for TestServeProcess: with
// CONTEXT_LS_TEST_SERVE=1 the test binary serves LSP on its stdio.
func TestMain(m *testing.M) {
	if os.Getenv("CONTEXT_LS_TEST_SERVE") == "1" {
		os.Exit(Serve(context.Background(), Stdio(), Options{Name: "context-ls-process", Version: "1", Backend: &fakeBackend{}}))
	}
	code := m.Run()
	testutil.RemoveBinary()
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

// harness runs Serve over pipes with a scripted client.
type harness struct {
	t      testing.TB
	c      *lsptest.Client
	exit   chan int
	stderr *testutil.SyncBuffer
	root   string
}

func startServer(t testing.TB, opts Options) *harness {
	t.Helper()
	c, rwc := lsptest.Pipe()
	h := &harness{t: t, c: c, exit: make(chan int, 1), stderr: &testutil.SyncBuffer{}, root: t.TempDir()}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(h.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.Name == "" {
		opts.Name, opts.Version = "context-ls-test", "0.0.0-test"
	}
	if opts.Backend == nil {
		opts.Backend = &fakeBackend{}
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
		"workspaceFolders": []map[string]string{{"uri": workspace.PathToURI(h.root), "name": "root"}},
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
	testutil.Golden(t, filepath.Join("testdata", name), got)
}

// fakeBackend is a Backend recording what it is told; it has no index,
// so queries fail. The protocol's own tests use it.
type fakeBackend struct {
	mu       sync.Mutex
	events   []string
	changed  [][]string
	settings []session.Settings // SettingsChanged
	opened   []session.Settings // the settings OpenFolder was given
	watchers []string
	stopped  []string
	// openErr, when set, fails OpenFolder.
	openErr error
}

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

func (b *fakeBackend) OpenFolder(ctx context.Context, root string, s session.Settings, progress func(service.Progress)) error {
	if b.openErr != nil {
		return b.openErr
	}
	b.mu.Lock()
	b.opened = append(b.opened, s)
	b.mu.Unlock()
	b.record("open " + filepath.Base(root))
	return nil
}

func (b *fakeBackend) CloseFolder(root string) error {
	b.record("close " + filepath.Base(root))
	return nil
}

func (b *fakeBackend) DidOpen(path string, text []byte, version int32) {
	b.record("didOpen " + filepath.Base(path) + " " + string(text))
}

func (b *fakeBackend) DidChange(path string, text []byte, version int32) {
	b.record("didChange " + filepath.Base(path) + " " + string(text))
}

func (b *fakeBackend) DidClose(path string, text []byte, version int32) {
	b.record("didClose " + filepath.Base(path))
}

func (b *fakeBackend) DidSave(path string, text []byte, version int32) {
	b.record("didSave " + filepath.Base(path))
}

func (b *fakeBackend) FilesChanged(paths []string) {
	b.mu.Lock()
	b.changed = append(b.changed, paths)
	b.mu.Unlock()
}

func (b *fakeBackend) SettingsChanged(s session.Settings) {
	b.mu.Lock()
	b.settings = append(b.settings, s)
	b.mu.Unlock()
}

func (b *fakeBackend) StartWatcher(root string) func() {
	b.mu.Lock()
	b.watchers = append(b.watchers, root)
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		b.stopped = append(b.stopped, root)
		b.mu.Unlock()
	}
}

func (b *fakeBackend) Sync(ctx context.Context, path string, need session.Need) error { return nil }

func (b *fakeBackend) SyncAll(ctx context.Context, need session.Need) error { return nil }

// errNoIndex is the fake's answer to queries.
var errNoIndex = fmt.Errorf("the fake backend has no index: %w", session.ErrFolderUnavailable)

func (b *fakeBackend) Backend(root string) (service.Backend, func(), error) {
	return nil, nil, errNoIndex
}

func (b *fakeBackend) OnStorage(fn func(root, state, message string)) {}
