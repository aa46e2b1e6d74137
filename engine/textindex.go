package engine

// The text index's writer: one per engine, fed in store sequence order
// under the write lock, recording the sequence it has applied (its
// watermark) in the same bleve batch; replaying the store's change log
// after the watermark when the engine opens, and rebuilding a text index
// that is new or broken from the store (see ARCHITECTURE.md, "Pebble is
// the source of truth").

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
)

// flushText applies every queued text-index change, waits for it, and trims
// the store's change log up to what the text index now holds.
func (e *Engine) flushText() error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	seq := e.tw.seq
	if err := e.tw.flush(); err != nil {
		return e.noteStorage(err)
	}
	if seq > e.tw.trimmed {
		if err := e.db.TrimLog(seq); err != nil {
			return e.noteStorage(err)
		}
		e.tw.trimmed = seq
	}
	return nil
}

// resumeText restarts a text writer that stopped on an error (a full
// disk): once the store admits writes again, the text index catches up
// from the store's change log, which keeps every change after the text
// index's watermark. It returns the writer's error while it cannot.
func (e *Engine) resumeText(ctx context.Context) error {
	e.writeMu.Lock()
	err := e.tw.getErr()
	if err == nil {
		e.writeMu.Unlock()
		return nil
	}
	if rerr := e.db.Room(0); rerr != nil {
		e.writeMu.Unlock()
		return rerr
	}
	e.tw.reset()
	e.writeMu.Unlock()
	e.log.Info("text index resumes after an error", "err", err)
	return e.syncText(ctx, false)
}

// textWriter accumulates text-index operations and applies them in batches
// carrying the store sequence number they bring the index up to. There is
// one per engine and it is only used under Engine.writeMu, right after the
// store batch it mirrors: operations enter batches in sequence order and
// batches are applied in order, so the text index's watermark never claims a
// change it does not hold. Batches are applied by a background goroutine so
// parsing and writing continue meanwhile.
//
// Once a batch fails (the disk is full, say) the writer applies nothing
// more until reset: a later batch would record a watermark claiming the
// failed batch's changes.
type textWriter struct {
	x       *search.Index
	b       *search.Batch
	seq     uint64
	trimmed uint64 // the change log is trimmed up to here
	max     int
	pending bool // seq advanced since the last flush
	applyCh chan applyJob
	errMu   sync.Mutex
	err     error
	wg      sync.WaitGroup
	// onApply, if set, is called after each batch is applied (tests).
	onApply func()
}

type applyJob struct {
	b    *search.Batch
	done chan struct{}
}

func (e *Engine) newTextWriter() *textWriter {
	w := &textWriter{x: e.text, max: textBatchDocs, applyCh: make(chan applyJob, 1)}
	w.b = w.x.NewBatch()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for j := range w.applyCh {
			// The store is made durable first: a text index persisted
			// ahead of a store that loses its last writes in a crash
			// would claim changes nobody can replay. The text index
			// shares the store's disk: the store's space check speaks
			// for both.
			if w.getErr() == nil {
				if err := e.db.Room(j.b.Bytes()); err != nil {
					w.setErr(err)
				} else if err := e.db.Sync(); err != nil {
					w.setErr(err)
				} else if err := w.x.Apply(j.b); err != nil {
					w.setErr(err)
				} else if w.onApply != nil {
					w.onApply()
				}
			}
			if j.done != nil {
				close(j.done)
			}
		}
	}()
	return w
}

func (w *textWriter) setErr(err error) {
	w.errMu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.errMu.Unlock()
}

func (w *textWriter) getErr() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// reset drops the queued changes and the error so the writer applies
// batches again; the caller replays the store's change log (syncText).
// Called under Engine.writeMu.
func (w *textWriter) reset() {
	w.b = w.x.NewBatch()
	w.pending = false
	w.errMu.Lock()
	w.err = nil
	w.errMu.Unlock()
}

func (w *textWriter) put(ctx context.Context, data *store.FileData, replaced []store.ChunkID, seq uint64, reuse bool) error {
	keep := make(map[store.ChunkID]bool, len(data.Chunks))
	for _, c := range data.Chunks {
		keep[c.ID] = true
	}
	had := make(map[store.ChunkID]bool, len(replaced))
	for _, id := range replaced {
		had[id] = true
		if !keep[id] {
			w.b.Delete(id.String())
		}
	}
	for i := range data.Chunks {
		if reuse && had[data.Chunks[i].ID] {
			continue // its document is already indexed: an edit elsewhere in the file
		}
		if err := w.b.Add(textDoc(&data.Chunks[i])); err != nil {
			return err
		}
		// A large file's documents are spread over several batches, so a
		// batch (which bleve builds in memory) stays bounded. The batches
		// before the last carry the previous watermark: after a crash the
		// file is replayed whole.
		if w.b.Len() >= w.max {
			if err := w.send(false); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				// Stop part way (each batch takes a while): the text
				// index is behind the store until resumeText replays
				// the change log, which has this file.
				w.setErr(fmt.Errorf("%w: %w", errTextBehind, err))
				return err
			}
		}
	}
	return w.advance(seq)
}

func (w *textWriter) remove(ids []store.ChunkID, seq uint64) error {
	for _, id := range ids {
		w.b.Delete(id.String())
	}
	return w.advance(seq)
}

func (w *textWriter) advance(seq uint64) error {
	w.seq = seq
	w.pending = true
	if w.b.Len() >= w.max {
		return w.send(false)
	}
	return w.getErr()
}

// send hands the current batch to the applier; wait blocks until applied.
func (w *textWriter) send(wait bool) error {
	w.b.SetWatermark(w.seq)
	j := applyJob{b: w.b}
	if wait {
		j.done = make(chan struct{})
	}
	w.applyCh <- j
	w.b = w.x.NewBatch()
	if wait {
		<-j.done
	}
	return w.getErr()
}

// flush applies everything queued and waits for it.
func (w *textWriter) flush() error {
	if w.b.Len() == 0 && !w.pending {
		return w.getErr()
	}
	w.pending = false
	return w.send(true)
}

func (w *textWriter) close() {
	close(w.applyCh)
	w.wg.Wait()
}

// textDoc is the text-index document of a chunk.
func textDoc(c *store.ChunkRecord) search.Doc {
	name := c.Label
	if len(c.Symbols) > 0 {
		name += " " + strings.Join(c.Symbols, " ")
	}
	return search.Doc{
		ID:   c.ID.String(),
		Body: c.Text,
		Doc:  c.Summary,
		Name: name,
		Path: c.Path,
		Lang: c.Language,
		Kind: c.Kind,
		File: c.Path,
	}
}

// syncText brings the text index up to the store: after a crash between a
// store batch and the text batch that follows it, the change log says which
// files to re-feed. full re-feeds everything (new or rebuilt text index).
func (e *Engine) syncText(ctx context.Context, full bool) error {
	wm, err := e.text.Watermark()
	if err != nil {
		return err
	}
	snap := e.db.Snapshot()
	defer snap.Release()
	paths := map[string]bool{}
	if full || wm == 0 {
		if err := snap.FileHeads(func(rec store.FileRecord, _ int) bool { paths[rec.Path] = true; return true }); err != nil {
			return err
		}
	} else if err := snap.Changes(wm, func(_ uint64, p string) bool { paths[p] = true; return true }); err != nil {
		return err
	}
	last := e.db.Seq()
	if len(paths) == 0 && wm >= last {
		return nil
	}
	if len(paths) > 0 {
		e.log.Info("text index catching up", "files", len(paths), "watermark", wm, "seq", last)
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	w := e.tw
	for _, p := range sorted {
		ids, err := e.text.DocsOf(ctx, p)
		if err != nil {
			return err
		}
		for _, id := range ids {
			w.b.Delete(id)
		}
		rec, err := snap.File(p)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		for _, id := range rec.Chunks {
			c, err := snap.Chunk(id)
			if err != nil {
				return fmt.Errorf("chunk %s of %s: %w", id, p, err)
			}
			if err := w.b.Add(textDoc(&c)); err != nil {
				return err
			}
		}
		if w.b.Len() >= w.max {
			if err := w.send(false); err != nil {
				return err
			}
		}
	}
	w.seq, w.pending = last, true
	if err := w.flush(); err != nil {
		return err
	}
	if err := e.db.TrimLog(last); err != nil {
		return err
	}
	w.trimmed = last
	return nil
}
