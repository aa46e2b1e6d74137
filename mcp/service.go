package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/workspace"
)

// ServiceName is the engine service (engine.RegisterService) that runs MCP
// tool calls against the engine of the process owning an index — this MCP
// server's own, an editor's language server, or another MCP server's.
const ServiceName = "mcp"

var registerOnce sync.Once

// Register makes this process answer MCP tool calls forwarded by MCP
// servers that share an index it owns. Every binary that opens indexes
// for sharing (context-ls serve and mcp) calls it at start-up; Serve calls
// it too. It is idempotent.
func Register() {
	registerOnce.Do(func() {
		engine.RegisterService(ServiceName, func(e *engine.Engine) engine.Service { return newService(e) })
	})
}

// callParams are the parameters of the service's "tools/call" method.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// callOutcome is the service's answer: a tool result, or a protocol error
// for the MCP client.
type callOutcome struct {
	Result *toolResult `json:"result,omitempty"`
	Error  *rpcError   `json:"error,omitempty"`
}

// service runs tools against one engine in the process that owns it. It
// owns the background work tools start (asynchronous refreshes, rebuild
// jobs), which Close cancels.
type service struct {
	e      *engine.Engine
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newService(e *engine.Engine) *service {
	ctx, cancel := context.WithCancel(context.Background())
	return &service{e: e, log: slog.Default().With("part", "mcp-service", "root", e.Root()), ctx: ctx, cancel: cancel}
}

// Call implements engine.Service.
func (s *service) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != "tools/call" {
		return nil, fmt.Errorf("mcp service: unknown method %q", method)
	}
	var p callParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("mcp service: bad parameters: %w", err)
	}
	return json.Marshal(s.callTool(ctx, p.Name, p.Arguments))
}

// Close implements engine.Service: background work is cancelled and
// waited for; running rebuild jobs end as cancelled.
func (s *service) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

// callTool runs one tool and shapes its answer.
func (s *service) callTool(ctx context.Context, name string, args json.RawMessage) callOutcome {
	t, ok := toolsByName[name]
	if !ok {
		return callOutcome{Error: &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("unknown tool %q (tools/list names the tools)", name)}}
	}
	if t.needsIndex {
		s.awaitFirstIndex(ctx)
	}
	structured, text, err := t.run(ctx, s, args)
	if err != nil {
		var ae *argError
		if errors.As(err, &ae) {
			return callOutcome{Result: errorResult("%s: bad argument %s", name, ae.Error())}
		}
		return callOutcome{Result: errorResult("%s failed: %s", name, oneLine(err))}
	}
	raw, err := json.Marshal(structured)
	if err != nil {
		return callOutcome{Result: errorResult("%s: encoding the result: %v", name, err)}
	}
	return callOutcome{Result: &toolResult{Content: []textContent{{Type: "text", Text: text}}, StructuredContent: raw}}
}

// awaitFirstIndex waits (up to firstIndexWait) while the index has never
// completed a full scan: a new index is filling, and an answer from its
// first files would mislead. Later scans do not make queries wait.
func (s *service) awaitFirstIndex(ctx context.Context) {
	if _, ok := s.e.LastIndexed(); ok {
		return
	}
	deadline := time.NewTimer(firstIndexWait)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			s.log.Warn("answering before the first full scan of the workspace completed")
			return
		case <-tick.C:
			if _, ok := s.e.LastIndexed(); ok {
				return
			}
		}
	}
}

// oneLine flattens an error message.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}

// ---------------------------------------------------------------------------
// Helpers shared by the tools.

// rel resolves a path argument (workspace-relative or absolute) to the
// canonical workspace-relative path; a path outside the workspace is an
// argument error naming field.
func (s *service) rel(field, p string) (string, error) {
	rel, err := s.e.Workspace().Resolve(p)
	if err != nil {
		if errors.Is(err, workspace.ErrOutsideWorkspace) {
			return "", argErrorf(field, "%q is outside the workspace %s", p, s.e.Root())
		}
		return "", argErrorf(field, "%v", err)
	}
	return rel, nil
}

// fileRel resolves a file argument: like rel, and not the root itself.
func (s *service) fileRel(field, p string) (string, error) {
	rel, err := s.rel(field, p)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", argErrorf(field, "%q is the workspace root, not a file", p)
	}
	return rel, nil
}

// loc builds a Location.
func (s *service) loc(rel string, start, end int) Location {
	return Location{Path: rel, StartLine: start, EndLine: end, URI: fileURI(filepath.Join(s.e.Root(), filepath.FromSlash(rel)))}
}

// fileURI converts an absolute path to a file URI.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if len(p) >= 2 && p[1] == ':' {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// parseLines reads "A-B" or "A" (1-based, inclusive); "" is the whole file
// (1 to the largest int, which the engine clamps).
func parseLines(field, s string) (int, int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 1, 1 << 30, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	var start, end int
	_, err1 := fmt.Sscanf(strings.TrimSpace(a)+"\n", "%d\n", &start)
	_, err2 := fmt.Sscanf(strings.TrimSpace(b)+"\n", "%d\n", &end)
	if err1 != nil || err2 != nil || start < 1 || end < start {
		return 0, 0, argErrorf(field, "%q: want \"A-B\" or \"A\" with 1 <= A <= B (for example \"10-40\")", s)
	}
	return start, end, nil
}

// scrubber returns the workspace's secret scrubber.
func (s *service) scrubber() (*packs.Scrubber, error) { return s.e.Scrubber() }

// fileError turns an engine error about a named file into an argument
// error naming field when the file is the problem.
func fileError(field, p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return argErrorf(field, "%q does not exist", p)
	case errors.Is(err, workspace.ErrOutsideWorkspace):
		return argErrorf(field, "%q is outside the workspace", p)
	case errors.Is(err, workspace.ErrTooLarge):
		return argErrorf(field, "%q is larger than the workspace's maxFileSize", p)
	case errors.Is(err, engine.ErrNotIndexed):
		return argErrorf(field, "%q is not indexed (excluded, an unsupported language, or not scanned yet: see get_context_stats)", p)
	case errors.Is(err, engine.ErrBadSelection):
		return argErrorf("lines", "%v", err)
	}
	return err
}

// ---------------------------------------------------------------------------
// Refreshing from disk, shared by refresh_context and the owner's watcher.

// scanLocks serialise whole-workspace scans and rebuilds per engine within
// this process (the watcher, refresh_context and rebuild jobs would
// otherwise parse the same files twice). One entry per engine opened in
// the process's lifetime.
var scanLocks sync.Map // *engine.Engine → *sync.Mutex

func scanLock(e *engine.Engine) *sync.Mutex {
	mu, _ := scanLocks.LoadOrStore(e, &sync.Mutex{})
	return mu.(*sync.Mutex)
}

// lockCtx locks mu unless ctx ends first (a handover must not wait behind
// a rebuild for the lock); the lock is then released as soon as it is
// obtained.
func lockCtx(ctx context.Context, mu *sync.Mutex) error {
	if mu.TryLock() {
		return nil
	}
	locked := make(chan struct{})
	go func() {
		mu.Lock()
		close(locked)
	}()
	select {
	case <-locked:
		return nil
	case <-ctx.Done():
		go func() {
			<-locked
			mu.Unlock()
		}()
		return ctx.Err()
	}
}

// fileState is what a snapshot holds about one path.
type fileState struct {
	indexed, overlay bool
	hash             string
}

func stateOf(snap *engine.Snapshot, rel string) fileState {
	st, err := snap.File(rel)
	if err != nil {
		return fileState{}
	}
	return fileState{indexed: true, overlay: st.Overlay, hash: st.Hash}
}

// refreshPaths reconciles the index with disk for rels (canonical
// workspace-relative paths; none means the whole workspace): files are
// re-read, indexed files under a vanished path dropped, and a directory,
// the root or a change of ignore rules makes a whole-workspace scan.
// Paths under skip (the index directory, when it lies in the workspace)
// are left alone.
func refreshPaths(ctx context.Context, e *engine.Engine, rels []string, skip string) (RefreshResult, error) {
	start := time.Now()
	res := RefreshResult{Status: "done", Files: []FileOutcome{}}
	snap := e.Snapshot()
	defer snap.Release()
	ws := e.Workspace()
	scan := len(rels) == 0
	var files []string
	named := map[string]bool{}
	for _, rel := range rels {
		if rel == "." || rel == workspace.AllChanged {
			scan = true
			continue
		}
		if skip != "" && (rel == skip || strings.HasPrefix(rel, skip+"/")) {
			continue
		}
		if workspace.AffectsRules(rel) || rel == workspace.ConfigFileName {
			scan = true
		}
		abs, err := ws.Abs(rel)
		if err != nil {
			return res, err
		}
		st, err := os.Stat(abs)
		switch {
		case err == nil && st.IsDir():
			scan = true
		case errors.Is(err, fs.ErrNotExist):
			under, err := snap.IndexedFiles(rel)
			if err != nil {
				return res, err
			}
			if len(under) == 0 {
				res.Files = append(res.Files, FileOutcome{Path: rel, Outcome: "not found"})
			}
			for _, f := range under {
				if !named[f] {
					named[f] = true
					files = append(files, f)
				}
			}
		case err != nil:
			return res, fmt.Errorf("%s: %w", rel, err)
		default:
			if !named[rel] {
				named[rel] = true
				files = append(files, rel)
			}
		}
	}
	before := map[string]fileState{}
	for _, f := range files {
		before[f] = stateOf(snap, f)
	}
	var errs []error
	var refresh []string
	for _, f := range files {
		// A file neither indexed nor indexable needs no work (and writes
		// nothing, which matters to the watcher: no write, no event).
		if included, _ := ws.Included(f); included || before[f].indexed {
			refresh = append(refresh, f)
		}
	}
	if len(refresh) > 0 {
		if err := e.Refresh(ctx, refresh); err != nil {
			errs = append(errs, err)
		}
	}
	if scan {
		mu := scanLock(e)
		if err := lockCtx(ctx, mu); err != nil {
			return res, err
		}
		ir, err := e.Index(ctx, nil)
		mu.Unlock()
		if err != nil {
			errs = append(errs, err)
		}
		res.Scan = &ScanSummary{Files: ir.Files, Indexed: ir.Indexed, Unchanged: ir.Unchanged, Removed: ir.Deleted, Failed: ir.Failed}
	}
	after := e.Snapshot()
	defer after.Release()
	sort.Strings(files)
	for _, f := range files {
		res.Files = append(res.Files, FileOutcome{Path: f, Outcome: outcome(before[f], stateOf(after, f))})
	}
	res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	return res, errors.Join(errs...)
}

func outcome(b, a fileState) string {
	switch {
	case a.indexed && a.overlay:
		return "editor buffer"
	case !b.indexed && !a.indexed:
		return "not indexed"
	case !b.indexed:
		return "added"
	case !a.indexed:
		return "removed"
	case a.hash != b.hash:
		return "updated"
	}
	return "unchanged"
}
