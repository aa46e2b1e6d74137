package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/vectors"
)

// DefaultModel is the embedding model used when a config names none (the
// workspace's default configuration names use-lite).
const DefaultModel = vectors.DefaultModel

// Embedding states reported by Stats.
const (
	EmbedOff         = "off"         // disabled by config or CONTEXT_LS_EMBEDDINGS=off
	EmbedUnavailable = "unavailable" // enabled, but no runtime library or model (see Reason)
	EmbedLoading     = "loading"     // opening the model, loading cached vectors
	EmbedRunning     = "embedding"   // embedding chunks that have no vector yet
	EmbedReady       = "ready"       // every chunk has a vector
)

// EmbeddingStats reports the state of the semantic index.
type EmbeddingStats struct {
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	Model  string `json:"model,omitempty"` // model id: name@sha
	// Vectors is the number of chunks with a vector; Pending those queued.
	Vectors int `json:"vectors"`
	Pending int `json:"pending"`
	// CacheHitRate is the share of chunk vectors found in the embedding
	// cache instead of computed, since the engine opened.
	CacheHitRate float64 `json:"cacheHitRate"`
	Embedded     int64   `json:"embedded"` // vectors computed since open
}

// ModelsDir is where `context-ls model pull` stores models:
// <user cache dir>/context-ls/models.
func ModelsDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache dir: %w", err)
	}
	return filepath.Join(base, "context-ls", "models"), nil
}

// ResolveModel finds the embedding model a config asks for
// (vectors.ResolveModel over ModelsDir): modelPath, else the model beside
// the binary, else the user cache.
func ResolveModel(name, modelPath string) (vectors.ModelSpec, string, error) {
	base, _ := ModelsDir() // "" without a user cache: vectors says so if it needs it
	return vectors.ResolveModel(name, modelPath, base)
}

// embedder owns the semantic index of an engine: the model, the in-memory
// vector index keyed by chunk id, and the background queue that embeds
// chunks lacking a vector. Vectors are cached in the store under the model
// id and the chunk's recipe, so no text is embedded twice.
type embedder struct {
	e      *Engine
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	state   string
	reason  string
	model   *vectors.Embedder
	index   *vectors.Index
	queue   embedQueue
	wake    chan struct{}
	hits    int64 // vectors found in the cache
	misses  int64 // vectors computed
	current int   // chunks known to need a vector in the last scan
}

// unavailableReason says in a few words why the embedder could not start
// (Stats.Embeddings.Reason, the notes of answers without a vector leg).
func unavailableReason(spec vectors.ModelSpec, err error) string {
	switch {
	case errors.Is(err, vectors.ErrRuntimeNotFound):
		return "no ONNX Runtime library found"
	case errors.Is(err, vectors.ErrRuntimeUnavailable):
		return "the ONNX Runtime library did not load"
	case errors.Is(err, vectors.ErrModelMissing) && spec.Downloadable():
		return fmt.Sprintf("model %s is not installed (context-ls model pull %s)", spec.Name, spec.Name)
	case errors.Is(err, vectors.ErrModelMissing):
		return fmt.Sprintf("model %s is not installed", spec.Name)
	}
	return err.Error()
}

// embedBatchChunks is how many chunks are embedded per model call: batch 32
// measured fastest per chunk for use-lite and MiniLM on 2 cores.
const embedBatchChunks = 32

func (e *Engine) startEmbeddings(parent context.Context) {
	em := &embedder{e: e, state: EmbedOff, wake: make(chan struct{}, 1), done: make(chan struct{})}
	e.emb = em
	if !e.cfg.Embeddings {
		em.reason = "disabled by configuration"
		close(em.done)
		return
	}
	em.state = EmbedLoading
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	em.cancel = cancel
	go em.run(ctx)
}

func (em *embedder) stop() {
	if em.cancel != nil {
		em.cancel()
	}
	<-em.done
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.model != nil {
		em.model.Close()
		em.model = nil
	}
}

func (em *embedder) setState(state, reason string) {
	em.mu.Lock()
	em.state, em.reason = state, reason
	em.mu.Unlock()
}

// run opens the model, loads cached vectors for every chunk and then embeds
// what is missing, open files and recent edits first.
func (em *embedder) run(ctx context.Context) {
	defer close(em.done)
	spec, dir, err := ResolveModel(em.e.cfg.Model, em.e.cfg.ModelPath)
	var model *vectors.Embedder
	if err == nil {
		var rt string
		if rt, err = vectors.FindRuntime(""); err == nil {
			model, err = vectors.Open(spec, dir, vectors.Options{RuntimePath: rt})
		}
	}
	if err != nil {
		reason := unavailableReason(spec, err)
		em.setState(EmbedUnavailable, reason)
		// A state, not a fault: a workspace without a runtime or a model is
		// served by BM25, symbols and the graph, and stats say why. The
		// details (every place looked at) are context-ls doctor's.
		em.e.log.Info("embeddings unavailable; search uses BM25, symbols and the graph", "reason", reason, "err", err)
		return
	}
	index, err := vectors.NewIndex(model.ModelID(), model.Dim())
	if err != nil {
		model.Close()
		em.setState(EmbedUnavailable, err.Error())
		return
	}
	em.mu.Lock()
	em.model, em.index = model, index
	em.mu.Unlock()
	if err := em.loadAll(ctx); err != nil {
		if ctx.Err() == nil {
			em.setState(EmbedUnavailable, "loading cached vectors: "+err.Error())
		}
		return
	}
	for {
		worked, err := em.step(ctx)
		if ctx.Err() != nil {
			return
		}
		switch {
		case errors.Is(err, ErrDiskFull):
			// The vectors are in memory; only their cache on disk is
			// missing (recomputed after a restart). Said once.
			em.e.noteStorage(err)
		case err != nil:
			em.e.log.Warn("embedding batch failed", "err", err)
		}
		if worked {
			continue
		}
		em.mu.Lock()
		if em.queue.len() == 0 {
			em.state = EmbedReady
		}
		em.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-em.wake:
		case <-time.After(time.Second):
		}
	}
}

// loadAll adds every cached vector of the current snapshot's chunks to the
// index and queues the files whose chunks lack one.
func (em *embedder) loadAll(ctx context.Context) error {
	snap := em.e.db.Snapshot()
	defer snap.Release()
	var files []store.FileRecord
	if err := snap.Files(func(rec store.FileRecord) bool { files = append(files, rec); return ctx.Err() == nil }); err != nil {
		return err
	}
	for _, rec := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		missing, err := em.loadFile(snap, rec)
		if err != nil {
			return err
		}
		if missing > 0 {
			em.enqueue(rec.Path, priorityFor(rec))
		}
	}
	em.setState(EmbedRunning, "")
	return nil
}

// loadFile adds the cached vectors of a file's chunks and returns how many
// chunks have none.
func (em *embedder) loadFile(snap *store.Snapshot, rec store.FileRecord) (missing int, err error) {
	model := em.modelID()
	for _, id := range rec.Chunks {
		if em.index.Has(uint64(id)) {
			continue
		}
		c, err := snap.ChunkMeta(id)
		if err != nil {
			return 0, err
		}
		b, err := snap.Vector(model, c.Recipe)
		if errors.Is(err, store.ErrNotFound) {
			missing++
			continue
		}
		if err != nil {
			return 0, err
		}
		var q vectors.Quantized
		if err := q.UnmarshalBinary(b); err != nil {
			missing++ // a corrupt cache entry is recomputed
			continue
		}
		if err := em.index.AddQuantized(uint64(id), q); err != nil {
			return 0, err
		}
		atomic.AddInt64(&em.hits, 1)
	}
	return missing, nil
}

func (em *embedder) modelID() string {
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.model == nil {
		return ""
	}
	return em.model.ModelID()
}

// step embeds up to embedBatchChunks chunks from queued files. It reports
// whether it did any work.
func (em *embedder) step(ctx context.Context) (bool, error) {
	type queued struct {
		path string
		prio int
	}
	em.mu.Lock()
	bulk := em.e.bulkIndexing.Load()
	var paths []queued
	for len(paths) < embedBatchChunks {
		p, prio, ok := em.queue.pop(bulk)
		if !ok {
			break
		}
		paths = append(paths, queued{p, prio})
	}
	em.mu.Unlock()
	if len(paths) == 0 {
		return false, nil
	}
	snap := em.e.db.Snapshot()
	defer snap.Release()
	type item struct {
		id   store.ChunkID
		rec  store.Recipe
		text string
	}
	var items []item
	for i, p := range paths {
		rec, err := snap.File(p.path)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return true, err
		}
		if _, err := em.loadFile(snap, rec); err != nil {
			return true, err
		}
		view := em.index.Snapshot()
		for _, id := range rec.Chunks {
			if _, ok := view.Get(uint64(id)); ok {
				continue
			}
			c, err := snap.Chunk(id)
			if err != nil {
				return true, err
			}
			items = append(items, item{id, c.Recipe, embedText(c.Chunk)})
		}
		if len(items) >= embedBatchChunks {
			// Requeue the files not reached, keeping their priority class.
			em.mu.Lock()
			for _, rest := range paths[i+1:] {
				em.queue.push(rest.path, rest.prio)
			}
			em.mu.Unlock()
			break
		}
	}
	if len(items) == 0 {
		return true, nil
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.text
	}
	em.mu.Lock()
	model := em.model
	em.mu.Unlock()
	vecs, err := model.Embed(ctx, texts, vectors.Document)
	var partial *vectors.EmbedError
	if err != nil && !errors.As(err, &partial) {
		return true, err
	}
	var recipes []store.Recipe
	var encoded [][]byte
	for i, v := range vecs {
		if v == nil {
			continue // this item could not be tokenised; reported in err
		}
		q := vectors.Quantize(v)
		b, err := q.MarshalBinary()
		if err != nil {
			return true, err
		}
		if err := em.index.AddQuantized(uint64(items[i].id), q); err != nil {
			return true, err
		}
		recipes = append(recipes, items[i].rec)
		encoded = append(encoded, b)
	}
	atomic.AddInt64(&em.misses, int64(len(recipes)))
	if err := em.e.db.PutVectors(model.ModelID(), recipes, encoded); err != nil {
		return true, err
	}
	if partial != nil {
		return true, partial
	}
	return true, nil
}

// embedText is what a chunk's vector encodes: the chunk text, preceded by
// the context a part of a split body needs to be read alone. Models see the
// head first (signature and doc comment), which truncation keeps. The
// chunk's recipe hashes exactly this text.
func embedText(c chunking.Chunk) string {
	text := c.ValidText()
	if c.Context != "" {
		return c.Context + "\n" + text
	}
	return text
}

// fileChanged tells the embedder that a file version was written (chunks
// are its chunk ids) or removed (chunks nil), so the vectors follow: the
// replaced chunks' vectors leave the index, the new ones are queued.
func (em *embedder) fileChanged(path string, replaced, chunks []store.ChunkID, overlay bool) {
	if em == nil {
		return
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.index != nil {
		keep := make(map[store.ChunkID]bool, len(chunks))
		for _, id := range chunks {
			keep[id] = true
		}
		for _, id := range replaced {
			if !keep[id] {
				em.index.Remove(uint64(id))
			}
		}
	}
	if chunks == nil || em.state == EmbedOff || em.state == EmbedUnavailable {
		return
	}
	prio := priorityNormal
	switch {
	case overlay:
		prio = priorityEdited
	case len(chunks) <= smallFileChunks:
		prio = prioritySmall
	}
	em.queue.push(path, prio)
	if em.state == EmbedReady {
		em.state = EmbedRunning
	}
	if !em.e.bulkIndexing.Load() || overlay {
		select {
		case em.wake <- struct{}{}:
		default:
		}
	}
}

// poke wakes the embedding loop.
func (em *embedder) poke() {
	if em == nil {
		return
	}
	select {
	case em.wake <- struct{}{}:
	default:
	}
}

func (em *embedder) enqueue(path string, prio int) {
	em.mu.Lock()
	em.queue.push(path, prio)
	em.mu.Unlock()
}

// view returns the vector index view and the model, or nil when vectors
// cannot be used (off, unavailable, or not loaded yet).
func (em *embedder) view() (*vectors.IndexView, *vectors.Embedder) {
	if em == nil {
		return nil, nil
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.model == nil || em.index == nil || em.index.Len() == 0 {
		return nil, nil
	}
	return em.index.Snapshot(), em.model
}

func (em *embedder) stats() EmbeddingStats {
	if em == nil {
		return EmbeddingStats{State: EmbedOff}
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	st := EmbeddingStats{State: em.state, Reason: em.reason, Pending: em.queue.len()}
	if em.model != nil {
		st.Model = em.model.ModelID()
	}
	if em.index != nil {
		st.Vectors = em.index.Len()
	}
	hits, misses := atomic.LoadInt64(&em.hits), atomic.LoadInt64(&em.misses)
	if hits+misses > 0 {
		st.CacheHitRate = round3(float64(hits) / float64(hits+misses))
	}
	st.Embedded = misses
	return st
}

// Queue priorities: lower runs first.
const (
	priorityEdited = 0 // open files and recent edits
	prioritySmall  = 1 // small files: many cheap wins early
	priorityNormal = 2 // the rest
)

// smallFileChunks is the chunk count under which a file counts as small.
const smallFileChunks = 8

func priorityFor(rec store.FileRecord) int {
	switch {
	case rec.Overlay:
		return priorityEdited
	case len(rec.Chunks) <= smallFileChunks:
		return prioritySmall
	}
	return priorityNormal
}

// embedQueue is a set of file paths in priority classes, FIFO within a
// class. A path queued twice keeps its best (lowest) class.
type embedQueue struct {
	classes [3][]string
	member  map[string]int // path → class
}

func (q *embedQueue) push(path string, prio int) {
	if q.member == nil {
		q.member = map[string]int{}
	}
	if cur, ok := q.member[path]; ok && cur <= prio {
		return
	}
	q.member[path] = prio // a stale entry in a worse class is skipped on pop
	q.classes[prio] = append(q.classes[prio], path)
}

// pop returns the next path and its class. While bulk indexing runs only
// edited files are embedded, so indexing gets the CPU first.
func (q *embedQueue) pop(bulk bool) (string, int, bool) {
	for prio := range q.classes {
		if bulk && prio != priorityEdited {
			break
		}
		for len(q.classes[prio]) > 0 {
			p := q.classes[prio][0]
			q.classes[prio] = q.classes[prio][1:]
			if cur, ok := q.member[p]; ok && cur == prio {
				delete(q.member, p)
				return p, prio, true
			}
		}
	}
	return "", 0, false
}

func (q *embedQueue) len() int { return len(q.member) }

// EmbeddingStats reports the semantic index's state (Snapshot.Stats says
// the same among the rest, after reading every file's record).
func (e *Engine) EmbeddingStats() EmbeddingStats { return e.emb.stats() }

// WaitEmbeddings blocks until every chunk has a vector (or embeddings are
// off or unavailable), calling progress about once a second. Interrupting
// it loses nothing: computed vectors are cached and the next run resumes.
func (e *Engine) WaitEmbeddings(ctx context.Context, progress func(EmbeddingStats)) error {
	e.emb.poke()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	last := time.Now()
	for {
		st := e.emb.stats()
		switch st.State {
		case EmbedReady, EmbedOff, EmbedUnavailable:
			return nil
		}
		if progress != nil && time.Since(last) >= time.Second {
			last = time.Now()
			progress(st)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
