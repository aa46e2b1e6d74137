package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/engine"
)

// rebuildJob is one rebuild_context run. Jobs live in the process that
// owned the index when they started; their ids name that process.
type rebuildJob struct {
	id    string
	dbDir string
	paths []string

	mu       sync.Mutex
	state    string // queued, running, done, failed, cancelled
	errMsg   string
	done     int
	total    int
	res      engine.IndexResult
	started  time.Time
	finished time.Time
}

// jobTable keeps the recent jobs of this process, oldest first.
type jobTable struct {
	mu   sync.Mutex
	list []*rebuildJob
	seq  atomic.Int64
}

// keptJobs bounds the finished jobs remembered.
const keptJobs = 32

var jobs = &jobTable{}

// start registers a job for the index in dbDir, refusing while another
// job of that index is queued or running.
func (t *jobTable) start(dbDir string, paths []string) (*rebuildJob, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, j := range t.list {
		if j.dbDir != dbDir {
			continue
		}
		if st := j.status(); st.Status == "queued" || st.Status == "running" {
			return nil, fmt.Errorf("rebuild %s is still %s (%d of %d files); wait for it: get_rebuild_status with jobId %q",
				j.id, st.Status, st.Done, st.Total, j.id)
		}
	}
	j := &rebuildJob{
		id:    fmt.Sprintf("rebuild-%d-%d", os.Getpid(), t.seq.Add(1)),
		dbDir: dbDir, paths: paths, state: "queued", started: time.Now(),
	}
	t.list = append(t.list, j)
	if len(t.list) > keptJobs {
		t.list = t.list[len(t.list)-keptJobs:]
	}
	return j, nil
}

// get returns the job with id, or nil.
func (t *jobTable) get(id string) *rebuildJob {
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

func (j *rebuildJob) status() JobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := JobStatus{
		JobID: j.id, Status: j.state, Paths: append([]string{}, j.paths...), Done: j.done, Total: j.total,
		Indexed: j.res.Indexed, Removed: j.res.Deleted, Failed: j.res.Failed, Error: j.errMsg,
		Started: j.started.UTC().Format(time.RFC3339),
	}
	end := time.Now()
	if !j.finished.IsZero() {
		st.Finished = j.finished.UTC().Format(time.RFC3339)
		end = j.finished
	}
	st.DurationMs = float64(end.Sub(j.started).Microseconds()) / 1000
	return st
}

// run re-indexes the job's selection on e, after any scan of e in this
// process; ctx ends with the service (process exit or handover).
func (j *rebuildJob) run(ctx context.Context, e *engine.Engine, rels []string) {
	mu := scanLock(e)
	if err := lockCtx(ctx, mu); err != nil {
		j.finish(engine.IndexResult{}, err)
		return
	}
	defer mu.Unlock()
	j.mu.Lock()
	j.state = "running"
	j.mu.Unlock()
	res, err := e.Reindex(ctx, rels, func(p engine.Progress) {
		if p.Phase == "index" {
			j.mu.Lock()
			j.done, j.total = p.Done, p.Total
			j.mu.Unlock()
		}
	})
	j.finish(res, err)
}

func (j *rebuildJob) finish(res engine.IndexResult, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.res, j.finished = res, time.Now()
	switch {
	case err == nil:
		j.state = "done"
	case errors.Is(err, context.Canceled):
		j.state = "cancelled"
		j.errMsg = "the process owning the index stopped serving it (exit or handover to an editor); run rebuild_context again"
	default:
		j.state = "failed"
		j.errMsg = oneLine(err)
	}
}
