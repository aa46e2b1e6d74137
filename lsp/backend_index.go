package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

// indexLoop runs the bootstrap index with progress, then a full Index
// whenever a rescan is requested, until the engine stops.
func (fe *folderEngine) indexLoop(ctx context.Context, progress ProgressFunc) {
	fe.runIndex(ctx, progress, "bootstrap")
	for {
		select {
		case <-ctx.Done():
			return
		case <-fe.rescanCh:
			fe.setBootstrap("running")
			fe.runIndex(ctx, nil, "rescan")
		}
	}
}

// runIndex runs one engine Index. With progress, files done of total are
// reported; the report that reaches the total is sent only once Index has
// returned (its text index flushed and its state recorded), so the end of
// the client's progress means the index answers queries.
func (fe *folderEngine) runIndex(ctx context.Context, progress ProgressFunc, why string) {
	fe.indexMu.Lock()
	defer fe.indexMu.Unlock()
	lastTotal := 0
	res, err := fe.eng.Index(ctx, func(p engine.Progress) {
		if progress != nil && p.Phase == "index" && p.Total > 0 {
			lastTotal = p.Total
			if p.Done < p.Total {
				progress(p.Done, p.Total)
			}
		}
	})
	log := fe.f.b.log
	switch {
	case err == nil:
		fe.setBootstrap("done")
		log.Info("index up to date", "root", fe.f.root, "run", why, "files", res.Files, "indexed", res.Indexed,
			"unchanged", res.Unchanged, "deleted", res.Deleted, "failed", res.Failed, "took", res.Duration.Round(time.Millisecond))
	case ctx.Err() != nil:
		fe.setBootstrap("cancelled")
	default:
		fe.setBootstrap("failed: " + err.Error())
		log.Error("indexing failed", "root", fe.f.root, "run", why, "error", err)
	}
	if progress != nil {
		// With nothing to parse, every file of the workspace is current.
		n := lastTotal
		if n == 0 {
			n = max(res.Files, 1)
		}
		progress(n, n)
	}
}

// requestRescan asks the index loop for a full Index (coalesced).
func (fe *folderEngine) requestRescan() {
	select {
	case fe.rescanCh <- struct{}{}:
	default:
	}
}

// queueRefresh adds workspace paths to re-read from disk.
func (fe *folderEngine) queueRefresh(rels []string) {
	fe.refreshMu.Lock()
	for _, r := range rels {
		fe.refreshPending[r] = true
	}
	fe.refreshMu.Unlock()
	select {
	case fe.refreshCh <- struct{}{}:
	default:
	}
}

// refreshLoop applies queued disk changes until the engine stops.
func (fe *folderEngine) refreshLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-fe.refreshCh:
		}
		fe.refreshMu.Lock()
		rels := make([]string, 0, len(fe.refreshPending))
		for r := range fe.refreshPending {
			rels = append(rels, r)
		}
		clear(fe.refreshPending)
		fe.refreshMu.Unlock()
		sort.Strings(rels)
		fe.refresh(ctx, rels)
	}
}

// refresh reconciles the index with disk for changed paths: files are
// re-read; a vanished directory drops the files indexed under it; a new
// directory, a lost-events marker or a changed ignore file asks for a full
// rescan; a changed configuration file reopens the folder's engine.
func (fe *folderEngine) refresh(ctx context.Context, rels []string) {
	log := fe.f.b.log
	snap := fe.eng.Snapshot()
	defer snap.Release()
	ws := fe.eng.Workspace()
	var files []string
	rescan := false
	for _, rel := range rels {
		switch {
		case rel == workspace.AllChanged:
			rescan = true
			continue
		case fe.ignoredEvent(rel):
			continue
		case rel == workspace.ConfigFileName:
			fe.f.reconfigure("the workspace configuration file changed")
			return
		case workspace.AffectsRules(rel):
			rescan = true
		}
		abs, err := ws.Abs(rel)
		if err != nil {
			log.Debug("change event ignored", "root", fe.f.root, "path", rel, "error", err)
			continue
		}
		st, err := os.Stat(abs)
		switch {
		case err == nil && st.IsDir():
			rescan = true
		case errors.Is(err, fs.ErrNotExist):
			under, err := snap.IndexedFiles(rel)
			if err != nil {
				log.Error("listing indexed files", "root", fe.f.root, "error", err)
				continue
			}
			files = append(files, under...)
		case err != nil:
			log.Debug("change event ignored", "root", fe.f.root, "path", rel, "error", err)
		default:
			_, ierr := snap.File(rel)
			included, _ := ws.Included(rel)
			if ierr == nil || included {
				files = append(files, rel)
			}
		}
	}
	if len(files) > 0 {
		start := time.Now()
		if err := fe.eng.Refresh(ctx, files); err != nil && ctx.Err() == nil {
			log.Warn("refreshing changed files", "root", fe.f.root, "error", err)
		}
		log.Debug("refreshed changed files", "root", fe.f.root, "files", len(files), "took", time.Since(start).Round(time.Millisecond))
	}
	if rescan {
		fe.requestRescan()
	}
}

// reconfigure reopens the folder's engine with its current settings, on a
// goroutine of its own (the caller may be one of the engine's).
func (f *backendFolder) reconfigure(why string) {
	go func() {
		defer f.b.recoverPanic("reopening " + f.root)
		f.mu.RLock()
		s := f.settings
		f.mu.RUnlock()
		f.reopen(s, why)
	}()
}

// filesChanged implements Features.FilesChanged.
func (b *Backend) filesChanged(paths []string) {
	byFolder := map[*backendFolder][]string{}
	for _, p := range paths {
		f := b.folderOf(p)
		if f == nil {
			b.log.Debug("change outside the workspace folders ignored", "path", p)
			continue
		}
		if p == f.root {
			byFolder[f] = append(byFolder[f], workspace.AllChanged)
			continue
		}
		byFolder[f] = append(byFolder[f], p)
	}
	for f, list := range byFolder {
		fe, release, err := f.engineOf()
		if err != nil {
			b.log.Debug("change ignored", "error", err)
			continue
		}
		rels := make([]string, 0, len(list))
		for _, p := range list {
			if p == workspace.AllChanged {
				rels = append(rels, p)
				continue
			}
			rel, err := fe.rel(p)
			if err != nil {
				b.log.Debug("change ignored", "path", p, "error", err)
				continue
			}
			rels = append(rels, rel)
		}
		fe.queueRefresh(rels)
		release()
	}
}

// startWatcher implements Features.StartWatcher: the engine's workspace
// watcher feeds the refresh loop; it restarts when the engine is reopened.
func (b *Backend) startWatcher(root string) func() {
	var f *backendFolder
	for _, g := range b.openFolders() {
		if g.root == root {
			f = g
		}
	}
	if f == nil {
		b.log.Warn("no open folder to watch", "root", root)
		return func() {}
	}
	f.watchMu.Lock()
	f.watching = true
	f.runWatchLocked()
	f.watchMu.Unlock()
	return f.stopWatching
}

// runWatchLocked starts the watcher on the current engine; f.watchMu must
// be held.
func (f *backendFolder) runWatchLocked() {
	if f.watchStop != nil {
		f.watchStop()
		f.watchStop = nil
	}
	fe, release := f.acquire()
	defer release()
	if fe == nil {
		return
	}
	ctx, cancel := context.WithCancel(fe.ctx)
	f.watchStop = cancel
	ws := fe.eng.Workspace()
	log := f.b.log
	fe.goTracked(func(context.Context) {
		err := ws.Watch(ctx, workspace.DefaultDebounce, fe.queueRefresh)
		if err != nil && ctx.Err() == nil {
			log.Warn("file watcher stopped", "root", f.root, "error", err)
		}
	})
}

// restartWatch restarts the watcher after a reopen, if one was asked for.
func (f *backendFolder) restartWatch() {
	f.watchMu.Lock()
	defer f.watchMu.Unlock()
	if f.watching {
		f.runWatchLocked()
	}
}

// stopWatching stops the folder's watcher for good.
func (f *backendFolder) stopWatching() {
	f.watchMu.Lock()
	defer f.watchMu.Unlock()
	f.watching = false
	if f.watchStop != nil {
		f.watchStop()
		f.watchStop = nil
	}
}

// reindexJob is one contextLs.reindex run over one or more folders.
type reindexJob struct {
	ID      string
	folders []*backendFolder
	rels    map[*backendFolder][]string

	mu       sync.Mutex
	state    string // "queued", "running", "done", "failed: …", "cancelled"
	done     int
	total    int
	res      engine.IndexResult
	started  time.Time
	finished time.Time
}

// JobStatus is a reindex job's state, as contextLs.stats reports it.
type JobStatus struct {
	ID       string   `json:"id" doc:"job id, as contextLs.reindex returned it"`
	Folders  []string `json:"folders" doc:"URIs of the folders it covers"`
	State    string   `json:"state" doc:"queued, running, done, cancelled or failed: reason"`
	Done     int      `json:"done" doc:"files re-indexed so far"`
	Total    int      `json:"total" doc:"files to re-index (known once each folder's scan is done)"`
	Indexed  int      `json:"indexed" doc:"files parsed and written"`
	Removed  int      `json:"removed" doc:"files dropped from the index"`
	Failed   int      `json:"failed" doc:"files that could not be read or parsed"`
	Started  string   `json:"started,omitempty" doc:"RFC 3339 start time"`
	Finished string   `json:"finished,omitempty" doc:"RFC 3339 end time"`
}

func (j *reindexJob) status() JobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := JobStatus{ID: j.ID, State: j.state, Done: j.done, Total: j.total,
		Indexed: j.res.Indexed, Removed: j.res.Deleted, Failed: j.res.Failed, Folders: []string{}}
	for _, f := range j.folders {
		st.Folders = append(st.Folders, PathToURI(f.root))
	}
	if !j.started.IsZero() {
		st.Started = j.started.UTC().Format(time.RFC3339)
	}
	if !j.finished.IsZero() {
		st.Finished = j.finished.UTC().Format(time.RFC3339)
	}
	return st
}

// recentJobs keeps the last few jobs for stats.
const recentJobs = 10

// startReindex reserves every folder of the job (refusing if one already
// runs a reindex), then starts progress and runs the job on its own
// goroutine.
func (b *Backend) startReindex(folders []*backendFolder, rels map[*backendFolder][]string, startProgress func() *progress) (*reindexJob, error) {
	job := &reindexJob{ID: fmt.Sprintf("reindex-%d", b.jobSeq.Add(1)), folders: folders, rels: rels, state: "queued"}
	var reserved []*backendFolder
	for _, f := range folders {
		f.jobMu.Lock()
		busy := f.job
		if busy == nil {
			f.job = job
		}
		f.jobMu.Unlock()
		if busy != nil {
			for _, r := range reserved {
				r.jobMu.Lock()
				r.job = nil
				r.jobMu.Unlock()
			}
			return nil, fmt.Errorf("%s: %s: %w; wait for it to finish (contextLs.stats shows its state)", f.root, busy.ID, ErrReindexRunning)
		}
		reserved = append(reserved, f)
	}
	b.mu.Lock()
	b.jobs = append(b.jobs, job)
	if len(b.jobs) > recentJobs {
		b.jobs = b.jobs[len(b.jobs)-recentJobs:]
	}
	b.mu.Unlock()
	go job.run(b, startProgress())
	return job, nil
}

// run re-indexes each folder in turn.
func (j *reindexJob) run(b *Backend, p *progress) {
	defer b.recoverPanic("reindex job " + j.ID)
	j.mu.Lock()
	j.state, j.started = "running", time.Now()
	j.mu.Unlock()
	var errs []error
	cancelled := false
	doneBefore, totalBefore := 0, 0
	for _, f := range j.folders {
		res, err := j.runFolder(f, func(done, total int) {
			j.mu.Lock()
			j.done, j.total = doneBefore+done, totalBefore+total
			d, t := j.done, j.total
			j.mu.Unlock()
			p.report(d, t)
		})
		j.mu.Lock()
		j.res.Indexed += res.Indexed
		j.res.Deleted += res.Deleted
		j.res.Failed += res.Failed
		doneBefore, totalBefore = j.done, j.total
		j.mu.Unlock()
		switch {
		case errors.Is(err, context.Canceled):
			cancelled = true
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", f.root, err))
		}
	}
	for _, f := range j.folders {
		f.jobMu.Lock()
		if f.job == j {
			f.job = nil
		}
		f.jobMu.Unlock()
	}
	j.mu.Lock()
	j.finished = time.Now()
	switch {
	case len(errs) > 0:
		j.state = "failed: " + errors.Join(errs...).Error()
	case cancelled:
		j.state = "cancelled"
	default:
		j.state = "done"
	}
	msg := fmt.Sprintf("%s %s: %d files re-indexed, %d removed, %d failed", j.ID, j.state, j.res.Indexed, j.res.Deleted, j.res.Failed)
	j.mu.Unlock()
	b.log.Info("reindex finished", "job", j.ID, "summary", msg)
	p.end(msg)
}

// runFolder runs the job's part on one folder, on a goroutine the folder's
// engine tracks (a reopen or close cancels it), after any index run that
// holds the engine.
func (j *reindexJob) runFolder(f *backendFolder, progress func(done, total int)) (engine.IndexResult, error) {
	fe, release, err := f.engineOf()
	if err != nil {
		return engine.IndexResult{}, err
	}
	type outcome struct {
		res engine.IndexResult
		err error
	}
	ch := make(chan outcome, 1)
	started := fe.goTracked(func(ctx context.Context) {
		fe.indexMu.Lock()
		defer fe.indexMu.Unlock()
		res, err := fe.eng.Reindex(ctx, j.rels[f], func(p engine.Progress) {
			if p.Phase == "index" {
				progress(p.Done, p.Total)
			}
		})
		ch <- outcome{res, err}
	})
	release()
	if !started {
		return engine.IndexResult{}, context.Canceled
	}
	o := <-ch
	return o.res, o.err
}

// planFor resolves reindex paths (file URIs, absolute paths, or paths
// relative to a folder) to the folders and folder-relative paths they
// name. No paths selects every folder entirely.
func (b *Backend) planFor(folders []*backendFolder, paths []string) ([]*backendFolder, map[*backendFolder][]string, error) {
	rels := map[*backendFolder][]string{}
	if len(paths) == 0 {
		for _, f := range folders {
			rels[f] = nil
		}
		return folders, rels, nil
	}
	for i, p := range paths {
		field := fmt.Sprintf("paths[%d]", i)
		if strings.TrimSpace(p) == "" {
			return nil, nil, invalidParams("%s: empty path", field)
		}
		abs := p
		if strings.Contains(p, "://") || strings.HasPrefix(p, "file:") {
			var err error
			if abs, err = URIToPath(p); err != nil {
				return nil, nil, invalidParams("%s: %v", field, err)
			}
		}
		var candidates []string
		if filepath.IsAbs(abs) {
			candidates = []string{abs}
		} else {
			for _, f := range folders {
				candidates = append(candidates, f.abs(abs))
			}
		}
		found := false
		for _, c := range candidates {
			f := b.folderOf(c)
			if f == nil || !containsFolder(folders, f) {
				continue
			}
			fe, release, err := f.engineOf()
			if err != nil {
				return nil, nil, err
			}
			rel, err := fe.eng.Workspace().Resolve(c)
			if err == nil && !filepath.IsAbs(abs) && !fileExists(c) {
				// A relative path names a folder's file only if it exists
				// there or is indexed there.
				snap := fe.eng.Snapshot()
				under, lerr := snap.IndexedFiles(rel)
				snap.Release()
				if lerr != nil || len(under) == 0 {
					release()
					continue
				}
			}
			release()
			if err != nil {
				return nil, nil, invalidParams("%s: %v", field, err)
			}
			rels[f] = append(rels[f], rel)
			found = true
		}
		if !found {
			return nil, nil, invalidParams("%s: %q is outside every workspace folder (or not found in any)", field, p)
		}
	}
	var out []*backendFolder
	for _, f := range folders {
		if _, ok := rels[f]; ok {
			out = append(out, f)
		}
	}
	return out, rels, nil
}

func containsFolder(list []*backendFolder, f *backendFolder) bool {
	for _, g := range list {
		if g == f {
			return true
		}
	}
	return false
}
