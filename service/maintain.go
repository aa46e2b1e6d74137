package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

// Keeping the index fresh: the index operation (a full incremental scan),
// refresh (reconcile named paths with disk), and the maintainer a server
// runs while it owns an index — the first scan, then changed paths from
// its watcher or the editor's, coalesced.

// Index brings the index up to date (unchanged files cost a stat) and,
// with embeddings, waits until every chunk has its vector. Progress goes
// to the context's progress function.
func (s *Service) Index(ctx context.Context, req IndexRequest) (*IndexResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	progress := progressOf(ctx)
	res, err := s.e.Index(ctx, func(p engine.Progress) {
		if p.Phase == "index" {
			progress(indexProgress("Indexing", p))
		}
	})
	if err != nil {
		return nil, err
	}
	out := &IndexResult{Files: res.Files, Indexed: res.Indexed, Unchanged: res.Unchanged, Deleted: res.Deleted,
		Failed: res.Failed, Symbols: res.Symbols, Chunks: res.Chunks, Lines: res.Lines, Bytes: res.Bytes,
		DurationMs: float64(res.Duration.Microseconds()) / 1000}
	if req.Embeddings {
		if err := s.e.WaitEmbeddings(ctx, func(st engine.EmbeddingStats) {
			progress(Progress{Title: "Embedding", Done: st.Vectors, Total: st.Vectors + st.Pending})
		}); err != nil {
			return nil, err
		}
	}
	out.Embeddings = embeddingsState(s.e.EmbeddingStats())
	progress(Progress{Title: "Indexing", Done: res.Files, Total: res.Files, End: true,
		Message: fmt.Sprintf("%d files: %d indexed, %d unchanged, %d deleted", res.Files, res.Indexed, res.Unchanged, res.Deleted)})
	return out, nil
}

// IndexBeside is Index with query run beside it on the index as it is.
// current reports that query's answer is the updated index's — the update
// wrote nothing while or before query read (the index was up to date, as
// it usually is when a command starts), and query succeeded — so the
// caller need not run it again; otherwise the caller runs query again on
// the updated index. A command then takes the longer of the update and
// the query instead of their sum (a fresh CLI search on the Linux kernel
// spends most of its time checking 68,000 files are unchanged).
func (s *Service) IndexBeside(ctx context.Context, req IndexRequest, query func() error) (current bool, err error) {
	before := s.generation()
	done := make(chan error, 1)
	go func() { done <- query() }()
	_, err = s.Index(ctx, req)
	qerr := <-done
	return qerr == nil && s.generation() == before, err
}

// generation identifies the index's current state: it changes with every
// write.
func (s *Service) generation() uint64 {
	snap := s.e.Snapshot()
	defer snap.Release()
	return snap.Generation()
}

// Refresh re-reads files (and directories) from disk so that queries see
// them; no paths scans the whole workspace for changes. With sync false
// it returns at once and refreshes in the background.
func (s *Service) Refresh(ctx context.Context, req RefreshRequest) (*RefreshResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	rels, err := s.paths(req.Paths)
	if err != nil {
		return nil, err
	}
	if !*req.Sync {
		started := s.goBackground(func(ctx context.Context) {
			if _, err := s.refresh(ctx, rels); err != nil && ctx.Err() == nil {
				s.log.Warn("background refresh", "paths", len(rels), "error", err)
			}
		})
		if !started {
			return nil, unavailable(nil, "the index is closing")
		}
		res := &RefreshResult{Status: "started", Files: []FileOutcome{}}
		for _, rel := range rels {
			res.Files = append(res.Files, FileOutcome{Path: rel, Outcome: "queued"})
		}
		return res, nil
	}
	return s.refresh(ctx, rels)
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

// dbRel is the index directory relative to the root when it lies inside
// the workspace, else "": changes there are the index's own.
func (s *Service) dbRel() string {
	rel, err := s.e.Workspace().Resolve(s.e.DBDir())
	if err != nil || rel == "." {
		return ""
	}
	return rel
}

// refresh reconciles the index with disk for rels (canonical, distinct
// workspace-relative paths; none means the whole workspace): files are
// re-read, indexed files under a vanished path dropped, and a directory,
// the root or a change of ignore rules makes a whole-workspace scan.
func (s *Service) refresh(ctx context.Context, rels []string) (*RefreshResult, error) {
	start := time.Now()
	res := &RefreshResult{Status: "done", Files: []FileOutcome{}}
	snap := s.e.Snapshot()
	defer snap.Release()
	ws := s.e.Workspace()
	skip := s.dbRel()
	scan := len(rels) == 0
	var files, missing []string
	for _, rel := range rels {
		switch {
		case rel == "." || rel == workspace.AllChanged:
			scan = true
			continue
		case skip != "" && (rel == skip || strings.HasPrefix(rel, skip+"/")):
			continue
		case workspace.AffectsRules(rel) || rel == workspace.ConfigFileName:
			scan = true
		}
		abs, err := ws.Abs(rel)
		if err != nil {
			return nil, classify("paths", rel, err)
		}
		st, err := os.Stat(abs)
		switch {
		case err == nil && st.IsDir():
			scan = true
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, rel)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", rel, err)
		default:
			files = append(files, rel)
		}
	}
	// Files indexed under vanished paths, found in one pass over the index.
	if len(missing) > 0 {
		indexed, err := snap.IndexedFiles("")
		if err != nil {
			return nil, err
		}
		gone := map[string]bool{}
		for _, m := range missing {
			gone[m] = true
		}
		found := map[string]bool{}
		for _, f := range indexed {
			for p := f; p != ""; p = parentOf(p) {
				if gone[p] {
					files = append(files, f)
					found[p] = true
					break
				}
			}
		}
		for _, m := range missing {
			if !found[m] {
				res.Files = append(res.Files, FileOutcome{Path: m, Outcome: "not found"})
			}
		}
	}
	before := map[string]fileState{}
	var refresh []string
	for _, f := range files {
		if _, dup := before[f]; dup {
			continue
		}
		before[f] = stateOf(snap, f)
		// A file neither indexed nor indexable needs no work (and writes
		// nothing, which matters to a watcher: no write, no event).
		if included, _ := ws.Included(f); included || before[f].indexed {
			refresh = append(refresh, f)
		}
	}
	var errs []error
	if len(refresh) > 0 {
		if err := s.e.Refresh(ctx, refresh); err != nil {
			errs = append(errs, err)
		}
	}
	if scan {
		ir, err := s.scan(ctx, "refresh", nil)
		if err != nil {
			errs = append(errs, err)
		}
		res.Scan = &ScanSummary{Files: ir.Files, Indexed: ir.Indexed, Unchanged: ir.Unchanged, Removed: ir.Deleted, Failed: ir.Failed}
	}
	after := s.e.Snapshot()
	defer after.Release()
	names := make([]string, 0, len(before))
	for f := range before {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		res.Files = append(res.Files, FileOutcome{Path: f, Outcome: outcome(before[f], stateOf(after, f))})
	}
	res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	return res, errors.Join(errs...)
}

// parentOf is the parent directory of a slash-separated path ("" at the
// top).
func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
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

// ---------------------------------------------------------------------------
// The maintainer.

// MaintainOptions configure Maintain.
type MaintainOptions struct {
	// Progress receives the first scan's progress (nil: none).
	Progress func(Progress)
	// Watch watches the workspace for changes itself (when no editor
	// reports them).
	Watch bool
	// ConfigChanged is called when the workspace configuration file
	// changes (the caller reopens the index with it); nil rescans.
	ConfigChanged func()
}

// maintainer is the state of index maintenance.
type maintainer struct {
	s        *Service
	rescanCh chan struct{}

	mu      sync.Mutex
	pending map[string]bool
	wake    chan struct{}
	state   string // "", running, done, cancelled, failed: …
	// again is set when changed files were refreshed while a scan ran: the
	// scan may have read a file before the change and written it after
	// the refresh, so another scan follows (unchanged files cost a stat).
	again bool
	// backoff is the wait before the next scan after scans that met a
	// full disk; retrying is set while changed files wait for room (both
	// are said once, when the disk first refuses them).
	backoff  time.Duration
	retrying bool
}

// retryDelay is how long the maintainer waits before it applies again
// changes the disk had no room for (the store refuses writes below its
// reserve): once space is freed, they are indexed without a restart.
const retryDelay = 5 * time.Second

func (m *maintainer) init(s *Service) {
	m.s = s
	m.rescanCh = make(chan struct{}, 1)
	m.pending = map[string]bool{}
	m.wake = make(chan struct{}, 1)
}

// state returns the state of the latest full scan.
func (m *maintainer) scanState() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

func (m *maintainer) setState(st string) {
	m.mu.Lock()
	m.state = st
	m.mu.Unlock()
}

// scan runs one full incremental scan and records its state. Changes
// refreshed while it ran make another scan follow it (maintainer.again).
func (s *Service) scan(ctx context.Context, why string, progress func(Progress)) (engine.IndexResult, error) {
	s.maint.setState("running")
	res, err := s.e.Index(ctx, func(p engine.Progress) {
		if progress != nil && p.Phase == "index" && p.Total > 0 && p.Done < p.Total {
			progress(indexProgress("Indexing", p))
		}
	})
	m := &s.maint
	m.mu.Lock()
	again := m.again
	m.again = false
	if errors.Is(err, engine.ErrDiskFull) {
		// Tried again later, less often while the disk stays full (each
		// try walks the tree before a write is refused).
		m.backoff = min(max(2*m.backoff, retryDelay), time.Minute)
	} else {
		m.backoff = 0
	}
	backoff := m.backoff
	m.mu.Unlock()
	switch {
	case again:
		m.later(true, 0)
	case backoff > 0:
		m.later(true, backoff)
	}
	switch {
	case err == nil:
		s.maint.setState("done")
		s.log.Info("index up to date", "run", why, "files", res.Files, "indexed", res.Indexed,
			"unchanged", res.Unchanged, "deleted", res.Deleted, "failed", res.Failed, "took", res.Duration.Round(time.Millisecond))
	case ctx.Err() != nil:
		s.maint.setState("cancelled")
	case backoff > retryDelay:
		// The disk is still full: said when it first was.
		s.maint.setState("failed: " + OneLine(err))
		s.log.Debug("indexing failed again", "run", why, "error", err)
	default:
		s.maint.setState("failed: " + OneLine(err))
		s.log.Error("indexing failed", "run", why, "error", err)
	}
	if progress != nil {
		// The report that reaches the total follows the end of the scan: the
		// end of the client's progress means the index answers queries.
		n := max(res.Files, 1)
		progress(Progress{Title: "Indexing", Done: n, Total: n, End: true,
			Message: fmt.Sprintf("%d files indexed", res.Files)})
	}
	return res, err
}

// Maintain keeps the index fresh until the service closes: the first scan
// (with progress), then the paths Changed reports and the rescans it
// asks for, applied in the background, coalesced. It returns at once.
func (s *Service) Maintain(opts MaintainOptions) {
	s.goBackground(func(ctx context.Context) {
		s.scan(ctx, "bootstrap", opts.Progress)
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.maint.rescanCh:
				s.scan(ctx, "rescan", nil)
			}
		}
	})
	s.goBackground(func(ctx context.Context) { s.maint.refreshLoop(ctx, opts.ConfigChanged) })
	if opts.Watch {
		s.goBackground(func(ctx context.Context) { s.Watch(ctx) })
	}
}

// Watch watches the workspace for changes (when no editor reports them)
// and reports them to Changed, until ctx ends or the service closes.
func (s *Service) Watch(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	// Once every directory is watched, a scan catches what changed while
	// the watches were being set (the first scan runs meanwhile).
	ready := func() { s.Changed([]string{workspace.AllChanged}) }
	err := s.e.Workspace().WatchReady(ctx, 0, ready, s.Changed)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("not watching the workspace for changes (refresh still works)", "error", err)
	}
}

// Changed reports paths (absolute, or workspace-relative; the root or
// workspace.AllChanged for "anything may have changed") that changed on
// disk; the maintainer reconciles them in the background.
func (s *Service) Changed(paths []string) {
	m := &s.maint
	m.mu.Lock()
	for _, p := range paths {
		rel, err := s.e.Workspace().Resolve(p)
		if err != nil {
			s.log.Debug("change event outside the workspace ignored", "path", p)
			continue
		}
		m.pending[rel] = true
	}
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// refreshLoop applies queued changes until ctx ends.
func (m *maintainer) refreshLoop(ctx context.Context, configChanged func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.wake:
		}
		m.mu.Lock()
		rels := make([]string, 0, len(m.pending))
		for r := range m.pending {
			rels = append(rels, r)
		}
		clear(m.pending)
		m.mu.Unlock()
		sort.Strings(rels)
		rescan := false
		var files []string
		for _, r := range rels {
			switch {
			case r == workspace.ConfigFileName && configChanged != nil:
				configChanged()
				return
			case r == "." || r == workspace.AllChanged || r == workspace.ConfigFileName || workspace.AffectsRules(r):
				rescan = true
				if r != "." && r != workspace.AllChanged {
					files = append(files, r)
				}
			default:
				files = append(files, r)
			}
		}
		if len(files) > 0 {
			m.mu.Lock()
			m.again = m.again || m.state == "running"
			m.mu.Unlock()
			_, err := m.s.refreshFiles(ctx, files)
			m.mu.Lock()
			retrying := m.retrying
			m.retrying = errors.Is(err, engine.ErrDiskFull)
			m.mu.Unlock()
			switch {
			case err == nil || ctx.Err() != nil:
			case retrying && errors.Is(err, engine.ErrDiskFull):
				m.s.log.Debug("refreshing changed files, again", "error", err)
			default:
				m.s.log.Warn("refreshing changed files", "error", err)
			}
			if errors.Is(err, engine.ErrDiskFull) && ctx.Err() == nil {
				m.retry(files)
			}
		}
		if rescan {
			select {
			case m.rescanCh <- struct{}{}:
			default:
			}
		}
	}
}

// retry queues files again, to be applied after retryDelay.
func (m *maintainer) retry(files []string) {
	m.mu.Lock()
	for _, f := range files {
		m.pending[f] = true
	}
	m.mu.Unlock()
	m.later(false, retryDelay)
}

// later wakes the refresh loop after delay (for queued files) and, with
// rescan set, asks for a scan then too.
func (m *maintainer) later(rescan bool, delay time.Duration) {
	time.AfterFunc(delay, func() {
		if rescan {
			select {
			case m.rescanCh <- struct{}{}:
			default:
			}
		}
		select {
		case m.wake <- struct{}{}:
		default:
		}
	})
}

// refreshFiles reconciles changed files, leaving whole-workspace scans to
// the maintainer's scan loop (a directory event asks for one).
func (s *Service) refreshFiles(ctx context.Context, rels []string) (*RefreshResult, error) {
	var files []string
	ws := s.e.Workspace()
	dirs := false
	for _, r := range rels {
		if abs, err := ws.Abs(r); err == nil {
			if st, err := os.Stat(abs); err == nil && st.IsDir() {
				dirs = true
				continue
			}
		}
		if !workspace.AffectsRules(r) && r != workspace.ConfigFileName {
			files = append(files, r)
		}
	}
	if dirs {
		select {
		case s.maint.rescanCh <- struct{}{}:
		default:
		}
	}
	if len(files) == 0 {
		return &RefreshResult{Status: "done"}, nil
	}
	return s.refresh(ctx, files)
}
