package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/workspace"
)

// Buffer freshness. An open document whose text differs from the file on
// disk is an overlay: the engine indexes the buffer instead of the file
// (engine.UpdateOverlay), and disk scans leave the file alone. A didChange
// after a quiet spell (no event of the file within the debounce) is
// applied at once; a didChange within the debounce of the previous event
// restarts the file's debounce, and when it expires the latest text is
// indexed (a burst costs one update at each end, not one per keystroke).
// An update still running for an older version is cancelled. didOpen and
// didSave are applied at once. Queries read their writes: a request about
// a document waits for its pending text (sync), a workspace-wide query for
// every pending buffer (syncAll). A query that reads only the store
// (symbols, hover, definitions: NeedStore) goes on as soon as the store
// holds the text, while the text index is still being updated; one that
// searches text (NeedText) waits for that too. A buffer equal to
// the file on disk (after a save, or an undo back to it) is not an
// overlay: the overlay is cleared and the file reconciled with disk
// (engine.ClearOverlay). didClose clears the overlay. Buffers of files the
// workspace rules exclude, or larger than the size limit, or binary, are
// not indexed.

// docState is one document's buffer state.
type docState struct {
	rel     string
	open    bool
	text    []byte
	version int32
	gen     uint64 // bumped by every event
	due     time.Time
	last    time.Time // the latest event
	dirty   bool      // an event has not been applied yet
	// stored is the generation whose text the store holds while the text
	// index is still being updated (engine.UpdateOverlayStaged).
	stored uint64
	// overlaid: the current engine holds an overlay for rel.
	overlaid bool
	running  bool
	cancel   context.CancelFunc
}

// overlayQueue applies buffer events to a folder's engine on one
// goroutine, debounced and coalesced per file.
type overlayQueue struct {
	f        *folder
	debounce time.Duration
	// applyFn applies one buffer state (apply; tests replace it).
	applyFn func(*work) (bool, error)

	mu    sync.Mutex
	docs  map[string]*docState
	epoch uint64 // bumped when the engine is replaced
	wake  chan struct{}
	// applied is closed (and replaced) whenever an application finishes.
	applied chan struct{}

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// newOverlayQueue starts a queue; applyFn nil means apply to f's engine.
func newOverlayQueue(f *folder, debounce time.Duration, applyFn func(*work) (bool, error)) *overlayQueue {
	q := &overlayQueue{f: f, debounce: debounce, docs: map[string]*docState{}, wake: make(chan struct{}, 1),
		applied: make(chan struct{}), done: make(chan struct{})}
	q.applyFn = applyFn
	if applyFn == nil {
		q.applyFn = q.apply
	}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	go q.run()
	return q
}

// stop ends the queue's goroutine and waits for it.
func (q *overlayQueue) stop() {
	q.cancel()
	<-q.done
}

// event kinds
const (
	evOpen = iota
	evChange
	evSave
	evClose
)

// event records a buffer event; it never blocks on indexing.
func (q *overlayQueue) event(rel string, kind int, text []byte, version int32) {
	q.mu.Lock()
	st := q.docs[rel]
	if st == nil {
		if kind == evClose || kind == evSave {
			q.mu.Unlock()
			return // not a document this folder knows
		}
		st = &docState{rel: rel}
		q.docs[rel] = st
	}
	now := time.Now()
	quiet := now.Sub(st.last) >= q.debounce
	st.gen++
	st.dirty = true
	st.due, st.last = now, now
	switch kind {
	case evOpen, evSave:
		st.open, st.text, st.version = true, text, version
	case evChange:
		st.open, st.text, st.version = true, text, version
		if !quiet {
			st.due = now.Add(q.debounce) // within a burst: wait for it to end
		}
	case evClose:
		st.open, st.text = false, nil
	}
	if st.running && st.cancel != nil {
		st.cancel() // an older version is being indexed: drop it
	}
	q.mu.Unlock()
	q.poke()
}

// reapply marks every document for re-application after the engine was
// replaced (the new engine holds no overlays).
func (q *overlayQueue) reapply() {
	q.mu.Lock()
	q.epoch++
	now := time.Now()
	for _, st := range q.docs {
		st.overlaid = false
		st.gen++
		st.dirty = st.open
		st.due = now
	}
	q.mu.Unlock()
	q.poke()
}

// Text returns the open buffer of rel (service.Buffers).
func (q *overlayQueue) Text(rel string) ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if st := q.docs[rel]; st != nil && st.open {
		return st.text, true
	}
	return nil, false
}

// Open counts the open buffers (service.Buffers).
func (q *overlayQueue) Open() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, st := range q.docs {
		if st.open {
			n++
		}
	}
	return n
}

// sync makes rel's pending buffer events due at once and waits until the
// engine holds its current text (or ctx ends): a request about an open
// document answers from the version the editor shows, never an older
// one.
func (q *overlayQueue) sync(ctx context.Context, rel string, need Need) error {
	return q.await(ctx, func(now time.Time) bool {
		st := q.docs[rel]
		if st == nil || !st.pending(need) {
			return false
		}
		st.dueBy(now)
		return true
	})
}

// syncAll makes every pending buffer event due at once and waits until
// the engine holds the text of every document that was pending when it
// was called, or until ctx ends: a workspace-wide query (search, symbols)
// answers with the edits the editor sent before it.
func (q *overlayQueue) syncAll(ctx context.Context, need Need) error {
	q.mu.Lock()
	var pending []*docState
	for _, st := range q.docs {
		if st.pending(need) {
			pending = append(pending, st)
		}
	}
	q.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	return q.await(ctx, func(now time.Time) bool {
		waiting := false
		for _, st := range pending {
			if st.pending(need) && q.docs[st.rel] == st {
				waiting = true
				st.dueBy(now) // a newer event may have arrived meanwhile
			}
		}
		return waiting
	})
}

// await calls waiting under the lock, and while it reports events still
// to apply (having made them due), wakes the applier and waits for its
// next round; it returns ctx's error when ctx ends first.
func (q *overlayQueue) await(ctx context.Context, waiting func(now time.Time) bool) error {
	for {
		q.mu.Lock()
		more := waiting(time.Now())
		applied := q.applied
		q.mu.Unlock()
		if !more {
			return nil
		}
		q.poke()
		select {
		case <-applied:
		case <-ctx.Done():
			return ctx.Err()
		case <-q.ctx.Done():
			return nil
		}
	}
}

// Need is what a query reads of the index: NeedStore the store only
// (definitions, symbols, hover, the graph), NeedText the text index too
// (search, packs).
type Need int

// What a query needs.
const (
	NeedText Need = iota
	NeedStore
)

// pending reports whether the document has an event a query needing
// need must wait for; under q.mu.
func (st *docState) pending(need Need) bool {
	if need == NeedStore {
		return st.dirty && st.stored != st.gen
	}
	return st.dirty
}

// dueBy brings the state's due time forward to now.
func (st *docState) dueBy(now time.Time) {
	if st.due.After(now) {
		st.due = now
	}
}

func (q *overlayQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// work is one buffer state taken for application.
type work struct {
	st       *docState
	open     bool
	text     []byte
	gen      uint64
	epoch    uint64
	overlaid bool
	ctx      context.Context
}

// next picks the due document with the earliest deadline, or says how
// long to wait for one.
func (q *overlayQueue) next() (*work, time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	var best *docState
	for _, st := range q.docs {
		if st.dirty && !st.running && (best == nil || st.due.Before(best.due)) {
			best = st
		}
	}
	if best == nil {
		return nil, -1
	}
	if wait := best.due.Sub(now); wait > 0 {
		return nil, wait
	}
	ctx, cancel := context.WithCancel(q.ctx)
	best.running, best.cancel = true, cancel
	return &work{st: best, open: best.open, text: best.text, gen: best.gen, epoch: q.epoch, overlaid: best.overlaid, ctx: ctx}, 0
}

func (q *overlayQueue) run() {
	defer close(q.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		w, wait := q.next()
		if w != nil {
			start := time.Now()
			overlaid, err := q.safeApply(w)
			q.f.b.log.Debug("editor buffer applied", "path", w.st.rel, "bytes", len(w.text), "overlay", overlaid, "took", time.Since(start).Round(time.Millisecond))
			q.finish(w, overlaid, err)
			continue
		}
		var tc <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			tc = timer.C
		}
		select {
		case <-q.ctx.Done():
			timer.Stop()
			return
		case <-q.wake:
			timer.Stop()
		case <-tc:
		}
	}
}

// safeApply applies one buffer state; a panic becomes an error (and is
// logged with its stack), and the queue keeps serving.
func (q *overlayQueue) safeApply(w *work) (overlaid bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			q.f.b.log.Error("panic recovered", "in", "indexing an editor buffer", "path", w.st.rel, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			overlaid, err = w.overlaid, fmt.Errorf("indexing %s panicked: %v", w.st.rel, v)
		}
	}()
	return q.applyFn(w)
}

// finish records an application's outcome. A newer event leaves the
// document dirty; an engine replaced meanwhile makes overlaid moot.
func (q *overlayQueue) finish(w *work, overlaid bool, err error) {
	q.mu.Lock()
	st := w.st
	st.running = false
	st.cancel()
	st.cancel = nil
	if q.epoch == w.epoch {
		st.overlaid = overlaid
	}
	if st.gen == w.gen {
		st.dirty = false
		if !st.open && !st.overlaid {
			delete(q.docs, st.rel)
		}
	}
	close(q.applied)
	q.applied = make(chan struct{})
	q.mu.Unlock()
	if err != nil && !errors.Is(err, context.Canceled) && q.ctx.Err() == nil {
		q.f.b.log.Warn("indexing an editor buffer", "root", q.f.root, "path", w.st.rel, "error", err)
	}
}

// storedText records that the store holds w's text (the text index does
// not yet) and wakes the queries that need no more.
func (q *overlayQueue) storedText(w *work) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.st.gen != w.gen || q.epoch != w.epoch {
		return // a newer event: queries wait for that one
	}
	w.st.stored = w.gen
	close(q.applied)
	q.applied = make(chan struct{})
}

// apply brings the engine in line with one buffer state and reports
// whether an overlay is now set.
func (q *overlayQueue) apply(w *work) (bool, error) {
	fe, release := q.f.acquire()
	defer release()
	if fe == nil {
		return false, nil
	}
	eng, _ := fe.local()
	if eng == nil {
		// Another editor keeps the index: the buffer is applied when this
		// process takes it over (own reapplies every open buffer).
		return false, nil
	}
	rel := w.st.rel
	if !w.open {
		eng.ForgetParse(rel)
		if w.overlaid {
			return false, eng.ClearOverlay(w.ctx, rel)
		}
		return false, nil
	}
	if symbols.ForContent(rel, w.text) == nil {
		// Not a language the engine indexes: nothing to do per keystroke.
		eng.ForgetParse(rel)
		if w.overlaid {
			return false, eng.ClearOverlay(w.ctx, rel)
		}
		return false, nil
	}
	if sameAsDisk(fe, rel, w.text) {
		var err error
		indexable := fe.bufferExcluded(rel, w.text) == ""
		if w.overlaid {
			err = eng.ClearOverlay(w.ctx, rel)
		} else {
			snap := eng.Snapshot()
			current := snap.HasContent(rel, w.text)
			_, ierr := snap.File(rel)
			snap.Release()
			if !current && (ierr == nil || indexable) {
				// The disk changed without an event reaching us.
				err = eng.Refresh(w.ctx, []string{rel})
			}
		}
		// Just opened or saved: keep its parse (a saved buffer's last one
		// is of this text), so that its next keystroke re-parses only what
		// it changed.
		if err == nil && indexable {
			if perr := eng.KeepParse(w.ctx, rel, w.text); perr != nil {
				q.f.b.log.Debug("editor buffer not parsed ahead", "path", rel, "error", perr)
			}
		}
		return false, err
	}
	if reason := fe.bufferExcluded(rel, w.text); reason != "" {
		q.f.b.log.Debug("editor buffer not indexed", "path", rel, "reason", reason)
		eng.ForgetParse(rel)
		if w.overlaid {
			return false, eng.ClearOverlay(w.ctx, rel)
		}
		return false, nil
	}
	err := eng.UpdateOverlayStaged(w.ctx, rel, w.text, func() { q.storedText(w) })
	if errors.Is(err, engine.ErrNotIndexable) {
		// A language the workspace's configuration leaves out: forget the
		// overlay mark.
		eng.ForgetParse(rel)
		return false, eng.ClearOverlay(q.ctx, rel)
	}
	return true, err
}

// sameAsDisk reports whether text is the content of rel on disk.
func sameAsDisk(fe *folderEngine, rel string, text []byte) bool {
	abs, err := fe.ws.Abs(rel)
	if err != nil {
		return false
	}
	st, err := os.Stat(abs)
	if err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(text)) {
		return false
	}
	disk, err := os.ReadFile(abs)
	return err == nil && bytes.Equal(disk, text)
}

// bufferExcluded says why a buffer must not be indexed, or "". The
// workspace rules decide by path (a file not yet on disk is judged by its
// name); size and content are judged on the buffer, by the rules a file
// on disk is judged by (workspace.JudgeContent): a buffer is indexed
// exactly when it would be once saved.
func (fe *folderEngine) bufferExcluded(rel string, text []byte) string {
	d := fe.ws.Explain(rel)
	if !d.Included {
		switch d.Source {
		case workspace.SourceNotFound, workspace.SourceMaxSize, workspace.SourceBinary, workspace.SourceMinified:
		default:
			return d.Source + ": " + d.Rule
		}
	}
	limit := fe.cfg.MaxFileSize
	if limit > 0 && int64(len(text)) > limit {
		return "larger than maxFileSize"
	}
	if rule, source := workspace.JudgeContent(d, text); source != "" {
		return source + ": " + rule
	}
	return ""
}

// Document events: each finds the folder of the path and queues the
// event; none waits for indexing.

func (b *Session) docEvent(path string, kind int, text []byte, version int32) {
	f := b.folderOf(path)
	if f == nil {
		b.log.Debug("document outside the workspace folders", "path", path)
		return
	}
	fe, release, err := f.engineOf()
	if err != nil {
		b.log.Debug("document event ignored", "path", path, "error", err)
		return
	}
	rel, err := fe.rel(path)
	release()
	if err != nil {
		b.log.Debug("document event ignored", "path", path, "error", err)
		return
	}
	f.docs.event(rel, kind, text, version)
}

// DidOpen reports a document the editor opened, with its text.
func (b *Session) DidOpen(path string, text []byte, version int32) {
	b.docEvent(path, evOpen, text, version)
}

// DidChange reports a document's new full text.
func (b *Session) DidChange(path string, text []byte, version int32) {
	b.docEvent(path, evChange, text, version)
}

// DidSave reports a document saved to disk.
func (b *Session) DidSave(path string, text []byte, version int32) {
	b.docEvent(path, evSave, text, version)
}

// DidClose reports a document the editor closed (disk wins again).
func (b *Session) DidClose(path string, text []byte, version int32) {
	b.docEvent(path, evClose, text, version)
}

// SyncAll waits (bounded by ctx) until the index holds the text of every
// open document with edits not yet applied, in every folder (the store
// alone for NeedStore): workspace-wide queries call it first, so they see
// the edits sent before them.
func (b *Session) SyncAll(ctx context.Context, need Need) error {
	for _, f := range b.openFolders() {
		if err := f.docs.syncAll(ctx, need); err != nil {
			return err
		}
	}
	return nil
}

// Sync waits (bounded by ctx) until the index holds the current text of
// the open document path (the store alone for NeedStore): requests about
// a document call it first.
func (b *Session) Sync(ctx context.Context, path string, need Need) error {
	f := b.folderOf(path)
	if f == nil {
		return nil
	}
	fe, release, err := f.engineOf()
	if err != nil {
		return err
	}
	rel, err := fe.rel(path)
	release()
	if err != nil {
		return nil
	}
	return f.docs.sync(ctx, rel, need)
}
