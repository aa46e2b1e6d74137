package share

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
)

// testBackend answers the sharing tests' own operations — which service
// ran them, a call that waits (for drains and cancellation), an echo and
// one that panics — and passes the others to the service.
type testBackend struct {
	svc *service.Service
	id  string // names the service: one per owned index
}

var (
	wrapOnce       sync.Once
	shareCancelled atomic.Int32 // calls of "test.wait" that saw their context end
	shareServices  atomic.Int32 // services wrapped
)

func registerShareTestService() {
	wrapOnce.Do(func() {
		serveWith = func(s *service.Service) service.Backend {
			return &testBackend{svc: s, id: fmt.Sprintf("engine-%d@%p", shareServices.Add(1), s)}
		}
	})
}

type whoami struct {
	Engine string `json:"engine"`
	PID    int    `json:"pid"`
	Files  int    `json:"files"`
}

func (b *testBackend) Call(ctx context.Context, op string, params json.RawMessage) (json.RawMessage, error) {
	switch op {
	case "test.whoami":
		st, err := b.svc.Stats(ctx, service.StatsRequest{})
		if err != nil {
			return nil, err
		}
		return json.Marshal(whoami{Engine: b.id, PID: os.Getpid(), Files: st.Files})
	case "test.wait":
		var ms int
		if err := json.Unmarshal(params, &ms); err != nil {
			return nil, err
		}
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			return json.Marshal(b.id)
		case <-ctx.Done():
			shareCancelled.Add(1)
			return nil, ctx.Err()
		}
	case "test.echo":
		return params, nil
	case "test.panic":
		panic("deliberate")
	}
	return b.svc.Call(ctx, op, params)
}

func shareOptions(db string) engine.Options {
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	return engine.Options{DBDir: db, Config: cfg, Workers: 1}
}

func joinTest(t *testing.T, root, db string, so Options) *Index {
	t.Helper()
	registerShareTestService()
	if so.Wait == 0 {
		so.Wait = 10 * time.Second
	}
	so.Engine = shareOptions(db)
	s, err := Open(context.Background(), root, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func callWhoami(t *testing.T, s *Index) whoami {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.Call(ctx, "test.whoami", nil)
	if err != nil {
		t.Fatalf("whoami: %v", err)
	}
	var w whoami
	if err := json.Unmarshal(res, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// editorOptions open an index as an editor's language server does.
func editorOptions(db string) Options {
	return Options{Engine: shareOptions(db), Role: RoleEditor, TakeOver: true, Wait: 10 * time.Second}
}

func shareRoot(t *testing.T) (root, db string) {
	return testutil.WriteTree(t, testutil.Fixture), filepath.Join(t.TempDir(), "index")
}

func TestShareForwardsToTheOwner(t *testing.T) {
	root, db := shareRoot(t)
	a := joinTest(t, root, db, Options{Yield: true})
	b := joinTest(t, root, db, Options{Yield: true})
	if st := a.Status(); st.State != "owner" || st.Owner.PID != os.Getpid() || !st.Owner.Yields {
		t.Errorf("first process: %+v", st)
	}
	if st := b.Status(); st.State != "client" || st.Owner.Role != RoleAgent {
		t.Errorf("second process: %+v", st)
	}
	fi, err := os.Lstat(SocketPath(a.DBDir()))
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("owner socket: %v %v", fi, err)
	}
	wa, wb := callWhoami(t, a), callWhoami(t, b)
	if wa.Engine != wb.Engine {
		t.Errorf("client ran on engine %s, owner has %s", wb.Engine, wa.Engine)
	}

	ctx := context.Background()
	if _, err := b.Call(ctx, "no-such-operation", nil); !errors.Is(err, service.ErrInvalid) || !strings.Contains(err.Error(), "unknown operation") {
		t.Errorf("unknown operation: %v", err)
	}
	if _, err := b.Call(ctx, "test.panic", nil); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("panicking call: %v", err)
	}
	// A service error crosses the socket with its code and argument.
	_, err = b.Call(ctx, service.OpSearch.Name, json.RawMessage(`{"query":"x","k":0}`))
	var se *service.Error
	if !errors.As(err, &se) || se.Code != service.CodeInvalid || se.Field != "k" {
		t.Errorf("forwarded invalid argument: %#v", err)
	}
	if _, err := b.Call(ctx, service.OpIndex.Name, nil); err != nil {
		t.Fatalf("forwarded index: %v", err)
	}
	res, err := b.Call(ctx, service.OpSearch.Name, json.RawMessage(`{"query":"circle area"}`))
	if err != nil || !strings.Contains(string(res), `"geo/shapes.go"`) {
		t.Errorf("forwarded search: %s %v", res, err)
	}
	if w := callWhoami(t, b); w.Engine != wa.Engine {
		t.Errorf("the owner stopped serving after a panic: %+v", w)
	}
}

func TestShareCancelReachesTheOwner(t *testing.T) {
	root, db := shareRoot(t)
	joinTest(t, root, db, Options{Yield: true})
	b := joinTest(t, root, db, Options{Yield: true})
	before := shareCancelled.Load()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := b.Call(ctx, "test.wait", json.RawMessage("60000"))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("cancelled call: %v after %s", err, time.Since(start))
	}
	deadline := time.Now().Add(5 * time.Second)
	for shareCancelled.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("the owner's call never saw the cancellation")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestShareHandoverToAnEditor(t *testing.T) {
	root, db := shareRoot(t)
	var owned, released atomic.Int32
	onOwn := func(ctx context.Context, svc *service.Service) {
		owned.Add(1)
		<-ctx.Done()
		released.Add(1)
	}
	a := joinTest(t, root, db, Options{Yield: true, OnOwn: onOwn})
	b := joinTest(t, root, db, Options{Yield: true, OnOwn: onOwn})
	before := callWhoami(t, a)

	// A call in flight at the handover finishes on the old owner.
	slow := make(chan string, 1)
	go func() {
		res, err := b.Call(context.Background(), "test.wait", json.RawMessage("300"))
		if err != nil {
			slow <- "error: " + err.Error()
			return
		}
		var eng string
		json.Unmarshal(res, &eng)
		slow <- eng
	}()
	time.Sleep(50 * time.Millisecond)

	// Meanwhile the client makes another call: it goes to the new owner
	// and must not cut the in-flight call off.
	during := make(chan whoami, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		res, err := b.Call(context.Background(), "test.whoami", nil)
		var w whoami
		if err == nil {
			err = json.Unmarshal(res, &w)
		}
		if err != nil {
			w.Engine = "error: " + err.Error()
		}
		during <- w
	}()
	ed, err := Open(context.Background(), root, editorOptions(db))
	if err != nil {
		t.Fatalf("editor open: %v", err)
	}
	edOpen := true
	defer func() {
		if edOpen {
			ed.Close()
		}
	}()
	if got := <-slow; got != before.Engine {
		t.Errorf("in-flight call: %s, want the old owner's engine %s", got, before.Engine)
	}
	if owned.Load() != 1 || released.Load() != 1 {
		t.Errorf("OnOwn ran %d times, ended %d times; want 1 and 1", owned.Load(), released.Load())
	}
	if st := ed.Status(); st.State != "owner" {
		t.Fatalf("the editor after the handover: %+v", st)
	}
	want := callWhoami(t, ed).Engine
	if w := <-during; w.Engine != want {
		t.Errorf("call made during the handover ran on %s, want the editor's engine %s", w.Engine, want)
	}
	for name, s := range map[string]*Index{"old owner": a, "client": b} {
		if w := callWhoami(t, s); w.Engine != want {
			t.Errorf("%s: call ran on %s, want the editor's engine %s", name, w.Engine, want)
		}
		if st := s.Status(); st.State != "client" || st.Owner.Role != RoleEditor || st.Owner.Yields {
			t.Errorf("%s after the handover: %+v", name, st)
		}
	}

	// A second editor forwards to the first, which keeps the index.
	ed2, err := Open(context.Background(), root, editorOptions(db))
	if err != nil {
		t.Fatalf("second editor: %v", err)
	}
	defer ed2.Close()
	if st := ed2.Status(); st.State != "client" || st.Owner.Role != RoleEditor {
		t.Errorf("second editor: %+v, want a client of the first", st)
	}
	if w := callWhoami(t, ed2); w.Engine != want {
		t.Errorf("second editor's call ran on %s, want the first editor's engine %s", w.Engine, want)
	}

	// The editor exits: the second editor takes the index (it does not
	// yield it back), without waiting for a call; the agents follow it.
	edOpen = false
	if err := ed.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for ed2.Status().State != "owner" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if st := ed2.Status(); st.State != "owner" {
		t.Fatalf("second editor after the first left: %+v, want the owner", st)
	}
	w2 := callWhoami(t, ed2)
	for name, s := range map[string]*Index{"first agent": a, "second agent": b} {
		if w := callWhoami(t, s); w.Engine != w2.Engine || w.Engine == want {
			t.Errorf("%s after the editor left: %s, want the second editor's %s", name, w.Engine, w2.Engine)
		}
	}
}

// TestShareCutOffAtClose: a call that outlives the drain when its owner
// closes is cancelled and reported as ErrOwnerGone (it may have run in
// part), to the client and to the owner's own caller alike.
func TestShareCutOffAtClose(t *testing.T) {
	defer func(d time.Duration) { drainTimeout = d }(drainTimeout)
	drainTimeout = 200 * time.Millisecond
	root, db := shareRoot(t)
	a := joinTest(t, root, db, Options{Yield: true})
	b := joinTest(t, root, db, Options{Yield: true})
	errs := make(chan error, 2)
	for _, s := range []*Index{a, b} {
		go func() {
			_, err := s.Call(context.Background(), "test.wait", json.RawMessage("60000"))
			errs <- err
		}()
	}
	time.Sleep(100 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- a.Close() }()
	for range 2 {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrOwnerGone) && !errors.Is(err, ErrClosed) {
				t.Errorf("call cut off at close: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a call outlived its owner's close")
		}
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if st := b.Status(); st.State == "unavailable" || st.State == "closed" {
		t.Errorf("after the cut-off: %+v", st)
	}
	callWhoami(t, b)
	if st := b.Status(); st.State != "owner" {
		t.Errorf("after its owner closed, the client: %+v", st)
	}
}

func TestShareStaleSocket(t *testing.T) {
	root, db := shareRoot(t)
	if err := os.MkdirAll(db, 0o755); err != nil {
		t.Fatal(err)
	}
	// A dead owner's socket: bound, never accepting, left on disk.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: SocketPath(db), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	a := joinTest(t, root, db, Options{Yield: true})
	if st := a.Status(); st.State != "owner" {
		t.Fatalf("with a stale socket: %+v", st)
	}
	b := joinTest(t, root, db, Options{Yield: true})
	if st := b.Status(); st.State != "client" {
		t.Fatalf("second process: %+v", st)
	}
	if callWhoami(t, b).Engine != callWhoami(t, a).Engine {
		t.Error("client and owner disagree")
	}
}

func TestShareOwnerLeaves(t *testing.T) {
	root, db := shareRoot(t)
	a := joinTest(t, root, db, Options{Yield: true})
	b := joinTest(t, root, db, Options{Yield: true})
	first := callWhoami(t, b)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Call(context.Background(), "test.whoami", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
	w := callWhoami(t, b)
	if w.Engine == first.Engine || w.Files != first.Files {
		t.Errorf("after the owner left: %+v (before %+v)", w, first)
	}
	if st := b.Status(); st.State != "owner" {
		t.Errorf("the remaining process: %+v", st)
	}
}

func TestShareConcurrentStarts(t *testing.T) {
	root, db := shareRoot(t)
	registerShareTestService()
	const n = 4
	idx := make([]*Index, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			idx[i], errs[i] = Open(context.Background(), root, Options{Engine: shareOptions(db), Yield: true, Wait: 20 * time.Second})
		}()
	}
	wg.Wait()
	owners := 0
	var engines []string
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("start %d: %v", i, errs[i])
		}
		defer idx[i].Close()
		if idx[i].Status().State == "owner" {
			owners++
		}
		engines = append(engines, callWhoami(t, idx[i]).Engine)
	}
	if owners != 1 {
		t.Errorf("%d owners, want 1", owners)
	}
	for _, e := range engines[1:] {
		if e != engines[0] {
			t.Errorf("calls ran on different engines: %v", engines)
			break
		}
	}
}

func TestShareWrongWorkspace(t *testing.T) {
	root, db := shareRoot(t)
	joinTest(t, root, db, Options{Yield: true})
	other := testutil.WriteTree(t, map[string]string{"a.go": "package a\n"})
	_, err := Open(context.Background(), other, Options{Engine: shareOptions(db), Wait: 2 * time.Second})
	if !errors.Is(err, engine.ErrWrongIndex) {
		t.Errorf("joining another workspace's index: %v", err)
	}
}

func TestSocketPathFallback(t *testing.T) {
	short := "/tmp/x/index"
	if got := SocketPath(short); got != filepath.Join(short, SocketName) {
		t.Errorf("short dir: %s", got)
	}
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	got := SocketPath(long)
	if len(got) > maxSocketPath || !strings.HasPrefix(got, os.TempDir()) || got != SocketPath(long) {
		t.Errorf("long dir: %s", got)
	}
	// It works end to end: the fallback directory is created private.
	root := testutil.WriteTree(t, testutil.Fixture)
	a := joinTest(t, root, long, Options{Yield: true})
	b := joinTest(t, root, long, Options{Yield: true})
	if b.Status().State != "client" || callWhoami(t, b).Engine != callWhoami(t, a).Engine {
		t.Errorf("sharing through the fallback socket: %+v", b.Status())
	}
	fi, err := os.Stat(filepath.Dir(got))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("fallback directory: %v %v", fi, err)
	}
}

// BenchmarkShareCall measures a service call made by the owner itself and
// one forwarded by another process's handle over the socket (here in the
// same process: the socket round trip and JSON framing are the same).
func BenchmarkShareCall(b *testing.B) {
	root := testutil.WriteTree(b, testutil.Fixture)
	db := filepath.Join(b.TempDir(), "index")
	registerShareTestService()
	owner, err := Open(context.Background(), root, Options{Engine: shareOptions(db), Yield: true})
	if err != nil {
		b.Fatal(err)
	}
	defer owner.Close()
	client, err := Open(context.Background(), root, Options{Engine: shareOptions(db), Yield: true})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	params := json.RawMessage(`{"query":"circle area","k":10}`)
	for _, bc := range []struct {
		name string
		s    *Index
	}{{"owner", owner}, {"forwarded", client}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				if _, err := bc.s.Call(ctx, "test.echo", params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHandover measures an editor's Open taking an index over from an
// agent that owns it: the agent finishes, closes its engine and answers,
// and the editor opens the index. Between iterations the editor leaves and
// the agent owns the index again (not timed).
func BenchmarkHandover(b *testing.B) {
	root := testutil.WriteTree(b, testutil.Fixture)
	db := filepath.Join(b.TempDir(), "index")
	registerShareTestService()
	agent, err := Open(context.Background(), root, Options{Engine: shareOptions(db), Yield: true})
	if err != nil {
		b.Fatal(err)
	}
	defer agent.Close()
	ctx := context.Background()
	for b.Loop() {
		ed, err := Open(ctx, root, editorOptions(db))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := ed.Close(); err != nil {
			b.Fatal(err)
		}
		for agent.Status().State != "owner" {
			if _, err := agent.Call(ctx, "test.echo", json.RawMessage("1")); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
	}
}
