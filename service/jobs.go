package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/engine"
)

// Progress reports long work: Done of Total units (files). The last
// report has End set and a Message summing up.
type Progress struct {
	Title   string
	Done    int
	Total   int
	End     bool
	Message string
	// While files are indexed: bytes done of bytes to do, the rate so far
	// and an estimate of the time left (-1: not yet known); Message then
	// says all of it in one line (Summary).
	Rate
}

// indexProgress is the Progress of an engine run's index phase.
func indexProgress(title string, p engine.Progress) Progress {
	out := Progress{Title: title, Done: p.Done, Total: p.Total, Rate: engineRate(p.Bytes, p.BytesTotal, p.FilesPerSecond, p.EtaSeconds)}
	out.Message = out.Summary()
	return out
}

func engineRate(bytes, total int64, filesPerSecond, eta float64) Rate {
	return Rate{Bytes: bytes, BytesTotal: total, FilesPerSecond: filesPerSecond, EtaSeconds: eta}
}

// Summary says the progress in one line: "1204/8444 files, 12.1/90.3
// MB, 85 files/s, about 1m25s left".
func (p Progress) Summary() string {
	return fmt.Sprintf("%d/%d files", p.Done, p.Total) + p.Rate.Describe()
}

// Describe says the rate as it follows a count of files in one line:
// ", 12.1/90.3 MB, 85 files/s, about 1m25s left" (what is known of it).
func (r Rate) Describe() string {
	var b strings.Builder
	if r.BytesTotal > 0 {
		fmt.Fprintf(&b, ", %.1f/%.1f MB", float64(r.Bytes)/1e6, float64(r.BytesTotal)/1e6)
	}
	if r.FilesPerSecond > 0 {
		fmt.Fprintf(&b, ", %.0f files/s", r.FilesPerSecond)
	}
	if r.EtaSeconds >= 0 && r.FilesPerSecond > 0 {
		fmt.Fprintf(&b, ", about %s left", (time.Duration(r.EtaSeconds) * time.Second).Round(time.Second))
	}
	return b.String()
}

type progressKey struct{}

// WithProgress returns a context whose long operations (index, reindex)
// report to fn, from any goroutine, as long as the work lasts — a reindex
// job past the call that started it. Forwarded calls report nothing.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressOf returns the context's progress function, or one that does
// nothing.
func progressOf(ctx context.Context) func(Progress) {
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok && fn != nil {
		return fn
	}
	return func(Progress) {}
}

// job is one reindex run. Jobs live in the process that owned the index
// when they started; their ids name that process.
type job struct {
	id    string
	dbDir string
	paths []string

	mu       sync.Mutex
	state    string // queued, running, done, failed, cancelled
	errMsg   string
	done     int
	total    int
	last     engine.Progress // the latest index progress
	res      engine.IndexResult
	started  time.Time
	finished time.Time
}

// jobTable keeps the recent jobs of this process, oldest first: one table
// whatever front end started them.
type jobTable struct {
	mu   sync.Mutex
	list []*job
	seq  atomic.Int64
}

// keptJobs bounds the finished jobs remembered.
const keptJobs = 32

var jobs = &jobTable{}

// start registers a job for the index in dbDir, refusing while another
// job of that index is queued or running.
func (t *jobTable) start(dbDir string, paths []string) (*job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, j := range t.list {
		if j.dbDir != dbDir {
			continue
		}
		if st := j.status(); st.Status == "queued" || st.Status == "running" {
			return nil, &Error{Code: CodeUnavailable, Message: fmt.Sprintf("reindex %s is still %s (%d of %d files); wait for it (job %q)",
				j.id, st.Status, st.Done, st.Total, j.id)}
		}
	}
	j := &job{
		id:    fmt.Sprintf("reindex-%d-%d", os.Getpid(), t.seq.Add(1)),
		dbDir: dbDir, paths: paths, state: "queued", started: time.Now(),
	}
	t.list = append(t.list, j)
	if len(t.list) > keptJobs {
		t.list = t.list[len(t.list)-keptJobs:]
	}
	return j, nil
}

// get returns the job with id, or nil.
func (t *jobTable) get(id string) *job {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, j := range t.list {
		if j.id == id {
			return j
		}
	}
	return nil
}

// of returns the statuses of the index's jobs, oldest first.
func (t *jobTable) of(dbDir string) []JobStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []JobStatus{}
	for _, j := range t.list {
		if j.dbDir == dbDir {
			out = append(out, j.status())
		}
	}
	return out
}

func (j *job) status() JobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := JobStatus{
		JobID: j.id, Status: j.state, Paths: append([]string{}, j.paths...), Done: j.done, Total: j.total,
		Rate:    engineRate(j.last.Bytes, j.last.BytesTotal, j.last.FilesPerSecond, -1),
		Indexed: j.res.Indexed, Removed: j.res.Deleted, Failed: j.res.Failed, Error: j.errMsg,
		Started: j.started.UTC().Format(time.RFC3339),
	}
	if j.state == "running" {
		st.EtaSeconds = j.last.EtaSeconds
	}
	end := time.Now()
	if !j.finished.IsZero() {
		st.Finished = j.finished.UTC().Format(time.RFC3339)
		end = j.finished
	}
	st.DurationMs = float64(end.Sub(j.started).Microseconds()) / 1000
	return st
}

// run re-indexes the job's selection; ctx ends with the service (process
// exit or handover).
func (j *job) run(ctx context.Context, e *engine.Engine, rels []string, progress func(Progress)) {
	j.mu.Lock()
	j.state = "running"
	j.mu.Unlock()
	title := "Re-indexing " + filepath.Base(e.Root())
	res, err := e.Reindex(ctx, rels, func(p engine.Progress) {
		if p.Phase == "index" {
			j.mu.Lock()
			j.done, j.total, j.last = p.Done, p.Total, p
			j.mu.Unlock()
			progress(indexProgress(title, p))
		}
	})
	j.finish(res, err)
	st := j.status()
	msg := fmt.Sprintf("%d files re-indexed, %d removed, %d failed", st.Indexed, st.Removed, st.Failed)
	if st.Status != "done" {
		msg = "reindex " + st.Status + ": " + st.Error
	}
	progress(Progress{Title: title, Done: st.Done, Total: st.Total, End: true, Message: msg})
}

func (j *job) finish(res engine.IndexResult, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.res, j.finished = res, time.Now()
	switch {
	case err == nil:
		j.state = "done"
	case errors.Is(err, context.Canceled):
		j.state = "cancelled"
		j.errMsg = "the process owning the index stopped serving it (exit, or handover to an editor); run reindex again"
	default:
		j.state = "failed"
		j.errMsg = OneLine(err)
	}
}

// maxPlanList bounds the files a dry run lists.
const maxPlanList = 200

// Reindex parses and writes again every selected file whatever the index
// holds (a suspected stale or damaged index; refresh is enough after
// edits), in a background job; dryRun only lists what it would do.
func (s *Service) Reindex(ctx context.Context, req ReindexRequest) (*ReindexResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	dry := req.DryRun
	if !req.Confirm && !dry {
		return nil, invalid("confirm", "must be true to re-index (every selected file is parsed again); pass dryRun: true to see what it would do")
	}
	rels, err := s.paths(req.Paths)
	if err != nil {
		return nil, err
	}
	if err := s.reindexable(rels); err != nil {
		return nil, err
	}
	if dry {
		plan, err := s.e.PlanReindex(ctx, rels)
		if err != nil {
			return nil, classify("paths", "", err)
		}
		return &ReindexResult{
			Status: "planned", Paths: rels, ReindexCount: len(plan.Reindex), RemoveCount: len(plan.Remove),
			Reindex: plan.Reindex[:min(len(plan.Reindex), maxPlanList)], Remove: plan.Remove[:min(len(plan.Remove), maxPlanList)],
		}, nil
	}
	j, err := jobs.start(s.e.DBDir(), rels)
	if err != nil {
		return nil, err
	}
	progress := progressOf(ctx)
	if !s.goBackground(func(ctx context.Context) { j.run(ctx, s.e, rels, progress) }) {
		j.finish(engine.IndexResult{}, context.Canceled)
	}
	return &ReindexResult{Status: "started", JobID: j.id, Paths: rels}, nil
}

// Job answers the state of a reindex job started in this process.
func (s *Service) Job(_ context.Context, req JobRequest) (*JobStatus, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	st, ok := JobStatusOf(req.JobID)
	if !ok {
		return nil, notFound("jobId", "no reindex job %q: jobs live in the process that owned the index when they started, which may have exited (stats list recent jobs)", req.JobID)
	}
	return &st, nil
}

// JobStatusOf returns the state of a job this process ran, whatever index
// it owns now: a process that handed its index over still answers for the
// jobs it started.
func JobStatusOf(id string) (JobStatus, bool) {
	j := jobs.get(id)
	if j == nil {
		return JobStatus{}, false
	}
	return j.status(), true
}

// reindexable checks that each path names something to reindex: a file
// or directory of the workspace, or files the index holds (deleted since).
func (s *Service) reindexable(rels []string) error {
	snap := s.e.Snapshot()
	defer snap.Release()
	for i, rel := range rels {
		if s.isFile(rel) || s.isDir(rel) {
			continue
		}
		indexed, err := snap.IndexedFiles(rel)
		if err != nil {
			return err
		}
		if len(indexed) == 0 {
			return notFound(fmt.Sprintf("paths[%d]", i), "%q is neither a file of the workspace nor indexed", rel)
		}
	}
	return nil
}

// paths resolves path arguments to canonical workspace-relative paths,
// each once.
func (s *Service) paths(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for i, p := range in {
		rel, err := s.rel(fmt.Sprintf("paths[%d]", i), p)
		if err != nil {
			return nil, err
		}
		if !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	return out, nil
}
