package session

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// applyLog records the applications an overlay queue makes.
type applyLog struct {
	mu    sync.Mutex
	calls []work
	// block, when set, makes an application wait for its context or for a
	// value on release.
	block   bool
	release chan struct{}
	started chan *work
	errs    []error
}

func (l *applyLog) apply(w *work) (bool, error) {
	l.mu.Lock()
	l.calls = append(l.calls, *w)
	block := l.block
	l.mu.Unlock()
	if l.started != nil {
		l.started <- w
	}
	if block {
		select {
		case <-w.ctx.Done():
			l.mu.Lock()
			l.errs = append(l.errs, w.ctx.Err())
			l.mu.Unlock()
			return true, w.ctx.Err()
		case <-l.release:
		}
	}
	return w.open, nil
}

func (l *applyLog) snapshot() []work {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]work(nil), l.calls...)
}

func newTestQueue(t *testing.T, debounce time.Duration, l *applyLog) *overlayQueue {
	f := &folder{b: New(Options{}), root: t.TempDir()}
	q := newOverlayQueue(f, debounce, l.apply)
	t.Cleanup(q.stop)
	return q
}

// idle waits until the queue has nothing dirty or running.
func (q *overlayQueue) idle(t *testing.T) {
	t.Helper()
	poll(t, "overlay queue idle", func() (bool, string) {
		q.mu.Lock()
		defer q.mu.Unlock()
		for _, st := range q.docs {
			if st.dirty || st.running {
				return false, st.rel + " still pending"
			}
		}
		return true, ""
	})
}

func TestOverlayQueueCoalescesEdits(t *testing.T) {
	l := &applyLog{}
	// A debounce longer than the test: the burst below arrives within it.
	q := newTestQueue(t, time.Hour, l)
	// The first change after a quiet spell is applied at once.
	q.event("a.go", evChange, []byte("v1"), 1)
	q.idle(t)
	if calls := l.snapshot(); len(calls) != 1 || string(calls[0].text) != "v1" {
		t.Fatalf("applications %+v, want v1 at once", calls)
	}
	// The rest of the burst waits for the debounce and coalesces.
	for v := int32(2); v <= 5; v++ {
		q.event("a.go", evChange, []byte{'v', byte('0' + v)}, v)
	}
	time.Sleep(50 * time.Millisecond)
	if calls := l.snapshot(); len(calls) != 1 {
		t.Fatalf("applications %+v: an edit within the debounce was applied at once", calls)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	must(t, q.sync(ctx, "a.go", NeedText))
	calls := l.snapshot()
	if len(calls) != 2 || string(calls[1].text) != "v5" || !calls[1].open {
		t.Fatalf("applications %+v, want v1 then one of v5", calls)
	}
	if text, ok := q.Text("a.go"); !ok || string(text) != "v5" {
		t.Errorf("text = %q, %v", text, ok)
	}
}

// TestOverlayQueueQuietEditAtOnce: an edit after a quiet spell does not
// wait out the debounce, per file.
func TestOverlayQueueQuietEditAtOnce(t *testing.T) {
	l := &applyLog{}
	q := newTestQueue(t, time.Hour, l) // a debounced edit would wait an hour
	q.event("a.go", evOpen, []byte("a0"), 1)
	q.event("b.go", evOpen, []byte("b0"), 1)
	q.idle(t)
	// Both files quiet for longer than the debounce.
	q.mu.Lock()
	for _, st := range q.docs {
		st.last = st.last.Add(-2 * time.Hour)
	}
	q.mu.Unlock()
	q.event("a.go", evChange, []byte("a1"), 2)
	q.event("b.go", evChange, []byte("b1"), 2) // another file: its own quiet spell
	q.idle(t)
	calls := l.snapshot()
	if len(calls) != 4 {
		t.Fatalf("applications %+v, want 4", calls)
	}
	got := map[string]bool{}
	for _, c := range calls[2:] {
		got[string(c.text)] = true
	}
	if !got["a1"] || !got["b1"] {
		t.Errorf("applications %+v, want a1 and b1", calls)
	}
}

// TestOverlayQueueSyncAll: a workspace-wide query sees every buffer's
// pending edit, without waiting out the debounce.
func TestOverlayQueueSyncAll(t *testing.T) {
	l := &applyLog{}
	q := newTestQueue(t, time.Hour, l)
	q.event("a.go", evChange, []byte("a1"), 1)
	q.event("b.go", evChange, []byte("b1"), 1)
	q.idle(t)
	q.event("a.go", evChange, []byte("a2"), 2) // within the hour: debounced
	q.event("b.go", evChange, []byte("b2"), 2)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	must(t, q.syncAll(ctx, NeedText))
	text := map[string]string{}
	for _, c := range l.snapshot() {
		text[c.st.rel] = string(c.text) // the latest application of each
	}
	if text["a.go"] != "a2" || text["b.go"] != "b2" {
		t.Errorf("after syncAll the index holds %v, want a2 and b2", text)
	}
	before := len(l.snapshot())
	must(t, q.syncAll(ctx, NeedText)) // nothing pending: returns at once
	if n := len(l.snapshot()); n != before {
		t.Errorf("%d applications after an idle syncAll, want %d", n, before)
	}
}

func TestOverlayQueueOpenAndSaveApplyAtOnce(t *testing.T) {
	l := &applyLog{}
	q := newTestQueue(t, time.Hour, l) // a change would wait an hour
	q.event("a.go", evOpen, []byte("opened"), 1)
	q.idle(t)
	q.event("a.go", evSave, []byte("saved"), 1)
	q.idle(t)
	calls := l.snapshot()
	if len(calls) != 2 || string(calls[0].text) != "opened" || string(calls[1].text) != "saved" {
		t.Fatalf("applications %+v", calls)
	}
	// The second application knows the first set an overlay.
	if !calls[1].overlaid {
		t.Errorf("overlaid not carried over: %+v", calls[1])
	}
}

func TestOverlayQueueCancelsOlderVersion(t *testing.T) {
	l := &applyLog{block: true, release: make(chan struct{}), started: make(chan *work, 4)}
	q := newTestQueue(t, time.Millisecond, l)
	q.event("a.go", evChange, []byte("old"), 1)
	select {
	case <-l.started:
	case <-time.After(wait):
		t.Fatal("the first version was never applied")
	}
	q.event("a.go", evChange, []byte("new"), 2)
	var second *work
	select {
	case second = <-l.started:
	case <-time.After(wait):
		t.Fatal("the second version was never applied")
	}
	close(l.release)
	q.idle(t)
	l.mu.Lock()
	errs := l.errs
	l.mu.Unlock()
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("the older application ended with %v, want one cancellation", errs)
	}
	if string(second.text) != "new" {
		t.Errorf("second application of %q", second.text)
	}
}

func TestOverlayQueueCloseAndReapply(t *testing.T) {
	l := &applyLog{}
	q := newTestQueue(t, time.Millisecond, l)
	q.event("a.go", evOpen, []byte("x"), 1)
	q.event("b.go", evOpen, []byte("y"), 1)
	q.idle(t)
	q.event("a.go", evClose, nil, 1)
	q.idle(t)
	if _, ok := q.Text("a.go"); ok {
		t.Error("a closed document still has a buffer")
	}
	if _, ok := q.Text("b.go"); !ok {
		t.Error("closing a.go lost the buffer of b.go")
	}
	before := len(l.snapshot())
	q.reapply()
	q.idle(t)
	calls := l.snapshot()[before:]
	if len(calls) != 1 || calls[0].st.rel != "b.go" || calls[0].overlaid {
		t.Errorf("reapply made %+v, want b.go once without an overlay", calls)
	}
	// Events about unknown documents are ignored.
	q.event("c.go", evClose, nil, 1)
	q.event("c.go", evSave, []byte("z"), 1)
	q.idle(t)
	if len(l.snapshot()) != before+1 {
		t.Errorf("events of unknown documents were applied: %+v", l.snapshot()[before+1:])
	}
}

func TestOverlayQueueSurvivesPanics(t *testing.T) {
	var mu sync.Mutex
	var applied []string
	f := &folder{b: New(Options{}), root: t.TempDir()}
	q := newOverlayQueue(f, time.Millisecond, func(w *work) (bool, error) {
		if string(w.text) == "boom" {
			panic("parser exploded")
		}
		mu.Lock()
		applied = append(applied, string(w.text))
		mu.Unlock()
		return true, nil
	})
	t.Cleanup(q.stop)
	q.event("a.go", evOpen, []byte("boom"), 1)
	q.idle(t)
	q.event("a.go", evChange, []byte("fine"), 2)
	q.idle(t)
	mu.Lock()
	defer mu.Unlock()
	if len(applied) != 1 || applied[0] != "fine" {
		t.Errorf("applied %v after a panic", applied)
	}
}

// TestOverlayQueueSync: a request about an open document does not wait
// out the debounce; it sees the version the editor shows.
func TestOverlayQueueSync(t *testing.T) {
	l := &applyLog{}
	q := newTestQueue(t, time.Hour, l) // the debounce alone would wait an hour
	q.event("a.go", evOpen, []byte("v0"), 1)
	q.idle(t)
	q.event("a.go", evChange, []byte("v1"), 2)
	q.event("a.go", evChange, []byte("v2"), 3)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := q.sync(ctx, "a.go", NeedText); err != nil {
		t.Fatal(err)
	}
	if calls := l.snapshot(); len(calls) != 2 || string(calls[1].text) != "v2" {
		t.Fatalf("applications %+v, want v0 then one of v2 before sync returns", calls)
	}
	// Nothing pending: sync returns at once.
	if err := q.sync(ctx, "a.go", NeedText); err != nil {
		t.Fatal(err)
	}
	if err := q.sync(ctx, "never-opened.go", NeedText); err != nil {
		t.Fatal(err)
	}
	if n := len(l.snapshot()); n != 2 {
		t.Errorf("%d applications, want 2", n)
	}
}

// TestOverlayQueueStoreBeforeText: once the store holds a buffer's text, a
// query that reads only the store (NeedStore) answers while the text index
// is still being updated; one that searches text (NeedText) waits for the
// application to end; a newer event is waited for by both.
func TestOverlayQueueStoreBeforeText(t *testing.T) {
	stored := make(chan struct{})
	release := make(chan struct{})
	var q *overlayQueue
	apply := func(w *work) (bool, error) {
		q.storedText(w)
		stored <- struct{}{}
		<-release // the text index is being brought up to date
		return true, nil
	}
	f := &folder{b: New(Options{}), root: t.TempDir()}
	q = newOverlayQueue(f, time.Hour, apply)
	t.Cleanup(q.stop)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	q.event("a.go", evChange, []byte("a1"), 1)
	<-stored
	must(t, q.sync(ctx, "a.go", NeedStore))
	must(t, q.syncAll(ctx, NeedStore))
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	if err := q.sync(short, "a.go", NeedText); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a text query did not wait for the text index: %v", err)
	}
	cancelShort()
	// A newer event: a store query waits for its text too.
	q.event("a.go", evChange, []byte("a2"), 2)
	short, cancelShort = context.WithTimeout(ctx, 50*time.Millisecond)
	if err := q.sync(short, "a.go", NeedStore); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a store query did not wait for a newer edit: %v", err)
	}
	cancelShort()
	done := make(chan error, 1)
	go func() { done <- q.sync(ctx, "a.go", NeedText) }()
	release <- struct{}{} // a1 ends; a2 starts
	<-stored
	must(t, q.sync(ctx, "a.go", NeedStore))
	select {
	case err := <-done:
		t.Fatalf("a text query answered before a2 reached the text index (%v)", err)
	case <-time.After(20 * time.Millisecond):
	}
	release <- struct{}{}
	must(t, <-done)
	q.mu.Lock()
	defer q.mu.Unlock()
	if st := q.docs["a.go"]; st.dirty {
		t.Fatalf("a.go still dirty after both applications")
	}
}
