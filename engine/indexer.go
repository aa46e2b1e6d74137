package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/workspace"
)

// Progress reports indexing progress.
type Progress struct {
	Phase string // "scan", "index", "text", "done"
	Done  int
	Total int
	// Bytes and BytesTotal are the sizes of the files done and of all the
	// files to do (phase "index"): on a tree of very unequal files they
	// predict the time left better than the counts.
	Bytes, BytesTotal int64
	Path              string // the file just finished, if any
	// FilesPerSecond is the rate since the index phase began; EtaSeconds
	// estimates the time left from the bytes still to do at the byte rate
	// so far (-1 while there is too little to go on).
	FilesPerSecond float64
	EtaSeconds     float64
}

// meter fills in the rate and the estimate of a run's index progress.
type meter struct{ start time.Time }

func (m *meter) fill(p *Progress) {
	if p.Phase != "index" {
		return
	}
	if m.start.IsZero() {
		m.start = time.Now()
	}
	p.EtaSeconds = -1
	el := time.Since(m.start).Seconds()
	if el < 0.5 || p.Done == 0 {
		return
	}
	p.FilesPerSecond = float64(p.Done) / el
	switch {
	case p.Bytes > 0 && p.BytesTotal >= p.Bytes:
		p.EtaSeconds = float64(p.BytesTotal-p.Bytes) / (float64(p.Bytes) / el)
	case p.Total >= p.Done:
		p.EtaSeconds = float64(p.Total-p.Done) / p.FilesPerSecond
	}
}

// sizeOf returns the total size of files.
func sizeOf(files []workspace.FileInfo) int64 {
	var n int64
	for _, fi := range files {
		n += fi.Size
	}
	return n
}

// IndexResult summarises one Index run.
type IndexResult struct {
	Files     int           `json:"files"`     // files in the workspace after the run
	Indexed   int           `json:"indexed"`   // files (re)parsed and written
	Unchanged int           `json:"unchanged"` // skipped by size+mtime or content hash
	Deleted   int           `json:"deleted"`   // files removed from the index
	Failed    int           `json:"failed"`    // files that could not be read
	Symbols   int           `json:"symbols"`   // symbols written in this run
	Chunks    int           `json:"chunks"`    // chunks written in this run
	Bytes     int64         `json:"bytes"`     // bytes parsed in this run
	Lines     int           `json:"lines"`     // lines parsed in this run
	Duration  time.Duration `json:"durationNs"`
}

// indexerVersion names the code that derives a file's data. Bump
// extractVersion when symbol extraction changes what it produces for the
// same input; chunking.Version covers the chunker, graph.FormatVersion and
// graph.ExtractVersion the graph. Files indexed by another version are
// re-indexed on the next scan (no wipe needed). Version 2: large generated
// data files (chunking.IsData) are no longer parsed. Version 3: chunk ids
// no longer depend on the chunk's place (store.NewChunkID). Version 4:
// TypeScript interfaces whose generic call signatures start their lines
// parse (symbols' repair of the source), with the definitions after them.
const extractVersion = 4

// dataNote is the note of a file indexed as data (chunking.IsData).
const dataNote = "data: chunked as line windows, without definitions or call graph"

var indexerVersion = fmt.Sprintf("chunk%d.extract%d.graph%d.%d", chunking.Version, extractVersion, graph.FormatVersion, graph.ExtractVersion)

// bulkFiles is the number of files to write from which a run counts as
// bulk: the garbage collector then runs less often (bulkGC).
const bulkFiles = 500

// bulkGC lets the heap grow to four times the live data between
// collections (Go's default is twice) while a bulk run parses: a cold index
// spent a tenth of its CPU in the collector. A soft memory limit of 1 GiB,
// unless one is set already, keeps the total bounded; the returned function
// restores both.
func bulkGC() (restore func()) {
	oldPercent := debug.SetGCPercent(300)
	oldLimit := debug.SetMemoryLimit(-1)
	if oldLimit == math.MaxInt64 {
		debug.SetMemoryLimit(1 << 30)
	}
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// textBatchDocs is the number of text-index operations per bleve batch during
// bulk indexing: large batches amortise bleve's segment creation.
const textBatchDocs = 4000

// Index scans the workspace and brings the index up to date: new and changed
// files are parsed and written (one batch each), deleted ones removed.
// Unchanged files cost a stat: size and mtime equal to the index skip the
// file; otherwise a content hash decides. It can be interrupted (ctx or kill)
// at any point; the next run resumes where it stopped.
func (e *Engine) Index(ctx context.Context, progress func(Progress)) (IndexResult, error) {
	unlock, err := e.lockScan(ctx)
	if err != nil {
		return IndexResult{}, err
	}
	defer unlock()
	if err := e.beginWrite(ctx); err != nil {
		return IndexResult{}, err
	}
	start := time.Now()
	report := progress
	var m meter
	progress = func(p Progress) {
		m.fill(&p)
		e.stats.setIndexing(IndexingState{Running: p.Phase != "done", Done: p.Done, Total: p.Total, Complete: fraction(p.Done, p.Total),
			Bytes: p.Bytes, BytesTotal: p.BytesTotal, FilesPerSecond: p.FilesPerSecond, EtaSeconds: p.EtaSeconds})
		if report != nil {
			report(p)
		}
	}
	defer func() {
		e.stats.mu.Lock()
		e.stats.indexing.Running = false
		e.stats.mu.Unlock()
	}()
	var res IndexResult
	progress(Progress{Phase: "scan"})
	// One scan of the record heads (no per-file lookups, no lists decoded)
	// tells the unchanged files from the rest; the walk then costs one stat
	// per unchanged file.
	type head struct {
		size, mtime int64
		current     bool // indexed from disk by this indexer version
	}
	heads := map[string]head{}
	unindexed := map[string]store.Unindexed{} // read before and found in no language
	snap := e.db.Snapshot()
	err = snap.FileHeads(func(rec store.FileRecord, _ int) bool {
		heads[rec.Path] = head{rec.Size, rec.ModTime, !rec.Overlay && rec.Indexer == indexerVersion}
		return true
	})
	if err == nil {
		err = snap.Unindexed(func(u store.Unindexed) bool {
			unindexed[u.Path] = u
			return true
		})
	}
	snap.Release()
	if err != nil {
		return res, err
	}
	unchanged := func(rel string, size, mtime int64) bool {
		h, ok := heads[rel]
		return ok && h.current && h.size == size && h.mtime == mtime
	}
	recipe := e.unindexedRecipe()
	stillUnindexed := func(rel string, size, mtime int64) bool {
		u, ok := unindexed[rel]
		return ok && u.Size == size && u.MTime == mtime && u.Recipe == recipe
	}
	// The walk does not stat a file whose extension no indexed language
	// has (its name decides: the Linux kernel has 10k such files; reading
	// their heads was a quarter of a fresh CLI process's CPU before its
	// first answer, and their stats a tenth of its stats), and reads no
	// head of an unchanged file, nor of an extension-less one found in no
	// language before and unchanged since (store/unindexed.go).
	known := workspace.Known{
		Unwanted: func(rel string) bool { return strings.Contains(baseName(rel), ".") && e.languageOf(rel, nil) == nil },
		Judged: func(rel string, size, mtime int64) bool {
			return unchanged(rel, size, mtime) || stillUnindexed(rel, size, mtime)
		},
	}
	var files []workspace.FileInfo
	var newlyUnindexed []store.Unindexed
	stillSo := map[string]bool{} // records that still hold
	err = e.ws.WalkKnown(ctx, known, func(fi workspace.FileInfo) error {
		// An unchanged extension-less file was recognised by its content
		// when it was indexed; any other one had its head read by the
		// walk, which kept its shebang line, unless it was found in no
		// language before. None is read again.
		if strings.Contains(baseName(fi.Rel), ".") {
			if e.languageOf(fi.Rel, nil) != nil {
				files = append(files, fi)
			}
			return nil
		}
		switch {
		case unchanged(fi.Rel, fi.Size, fi.ModTime):
			files = append(files, fi)
		case stillUnindexed(fi.Rel, fi.Size, fi.ModTime):
			stillSo[fi.Rel] = true
		case e.languageOf(fi.Rel, append([]byte{}, fi.Shebang...)) != nil:
			files = append(files, fi)
		default:
			newlyUnindexed = append(newlyUnindexed, store.Unindexed{Path: fi.Rel, Size: fi.Size, MTime: fi.ModTime, Recipe: recipe})
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("scan %s: %w", e.ws.Root(), err)
	}
	// Records of files gone, excluded or changed since they were made (a
	// changed file still in no language has a new one).
	for _, u := range newlyUnindexed {
		stillSo[u.Path] = true
	}
	var stale []string
	for p := range unindexed {
		if !stillSo[p] {
			stale = append(stale, p)
		}
	}
	if err := e.db.SetUnindexed(newlyUnindexed, stale); err != nil {
		return res, e.noteStorage(err)
	}
	res.Files = len(files)

	var todo []workspace.FileInfo
	stored := map[string]bool{} // files of todo the store has a record of
	for _, fi := range files {
		ok := unchanged(fi.Rel, fi.Size, fi.ModTime)
		if _, had := heads[fi.Rel]; had && !ok {
			stored[fi.Rel] = true
		}
		delete(heads, fi.Rel)
		if ok {
			res.Unchanged++
			continue
		}
		if e.hasOverlay(fi.Rel) {
			res.Unchanged++
			continue
		}
		todo = append(todo, fi)
	}
	var gone []string
	for p := range heads {
		if !e.hasOverlay(p) {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)

	for _, p := range gone {
		if err := e.deleteFile(p); err != nil {
			return res, err
		}
		res.Deleted++
	}

	// While files are written in bulk the embedder leaves them alone (edits
	// excepted) so indexing gets the CPU; it catches up afterwards.
	if len(todo) >= bulkFiles {
		defer bulkGC()()
	}
	e.bulkIndexing.Store(true)
	defer func() {
		e.bulkIndexing.Store(false)
		e.emb.poke()
	}()

	// Parse in workers, write from this goroutine in arrival order.
	total, totalBytes, doneBytes := len(todo), sizeOf(todo), int64(0)
	progress(Progress{Phase: "index", Done: 0, Total: total, BytesTotal: totalBytes})
	build := func(ctx context.Context, p *symbols.Parser, fi workspace.FileInfo) built {
		return e.buildFromDisk(ctx, p, fi, stored[fi.Rel])
	}
	err = e.parseAll(ctx, todo, build, func(done int, r built) error {
		doneBytes += r.size
		switch {
		case r.err != nil:
			res.Failed++
			e.log.Warn("index file", "path", r.path, "err", r.err)
		case r.data == nil: // content unchanged, mtime moved
			if err := e.touchFile(r.path, r.size, r.mtime); err != nil {
				return err
			}
			res.Unchanged++
		default:
			if err := e.writeFile(ctx, r.data, false); err != nil {
				return err
			}
			res.add(r.data)
		}
		progress(Progress{Phase: "index", Done: done, Total: total, Bytes: doneBytes, BytesTotal: totalBytes, Path: r.path})
		return nil
	})
	if err := e.finishRun(start, &res, err, true, total, progress); err != nil {
		return res, err
	}
	if res.Indexed >= bulkFiles {
		// A bulk run leaves many text segments and a compaction debt in
		// the store: work them off now rather than in the next (maybe
		// short-lived) process. Failing to is not an error of the run:
		// the merges happen later.
		if err := e.text.Settle(ctx); err != nil {
			e.log.Warn("merge text index", "err", err)
		}
		if err := e.db.Settle(ctx); err != nil {
			e.log.Warn("compact store", "err", err)
		}
		if err := e.calibrate(); err != nil {
			e.log.Warn("calibrate similarity", "err", err)
		}
		res.Duration = time.Since(start)
	}
	e.stats.recordIndex(res)
	e.rebuilding.Store(false)
	return res, nil
}

// add counts a written file version.
func (r *IndexResult) add(data *store.FileData) {
	r.Indexed++
	r.Symbols += len(data.Symbols)
	r.Chunks += len(data.Chunks)
	r.Bytes += data.File.Size
	r.Lines += data.File.Lines
}

// settleStore makes what a run wrote durable. A bulk run also flushes the
// store's memtable into tables, sparing the next process a long log
// replay (Pebble flushes a replayed log at open). A smaller run — the
// server's check at start, a few changed files — only syncs the log: its
// few hundred kilobytes stay in the memtable until it fills or the store
// closes, instead of making a level-0 table of their own. Keys are hashed,
// so every level-0 table spans the whole key space and each brings closer
// the compaction that rewrites the level below (some 30 MB for the Go
// standard library, a core's work for two seconds); at the language
// server's start that compaction ran beside the first edits.
func (e *Engine) settleStore(res *IndexResult) error {
	if res.Indexed+res.Deleted >= bulkFiles {
		return e.db.Flush()
	}
	return e.db.Sync()
}

// finishRun ends a run: the text index and the store are made durable
// whatever happened (what was written stays), then, if the run succeeded,
// the index time is recorded (when the run covered the whole workspace)
// and progress reports done.
func (e *Engine) finishRun(start time.Time, res *IndexResult, runErr error, wholeWorkspace bool, total int, progress func(Progress)) error {
	progress(Progress{Phase: "text", Done: total, Total: total})
	if err := e.flushText(); err != nil && runErr == nil {
		runErr = err
	}
	if err := e.settleStore(res); err != nil && runErr == nil {
		runErr = err
	}
	res.Duration = time.Since(start)
	if runErr != nil {
		return e.noteStorage(runErr)
	}
	if wholeWorkspace {
		err := e.db.SetMeta("lastIndex", time.Now().UTC().Format(time.RFC3339Nano))
		// A run that found nothing to write leaves the index as complete
		// as it was: a full disk does not fail it.
		if err != nil && !(errors.Is(err, ErrDiskFull) && res.Indexed == 0 && res.Deleted == 0) {
			return e.noteStorage(err)
		}
	}
	progress(Progress{Phase: "done", Done: total, Total: total})
	return nil
}

// parseAll parses files on the engine's workers with build and hands each
// result to write on the calling goroutine, in arrival order, with the
// count done so far. An error from write stops the run and is returned; so
// is ctx's error.
func (e *Engine) parseAll(ctx context.Context, files []workspace.FileInfo,
	build func(context.Context, *symbols.Parser, workspace.FileInfo) built,
	write func(done int, r built) error) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan workspace.FileInfo)
	results := make(chan built, 2*e.worker)
	var wg sync.WaitGroup
	for i := 0; i < e.worker; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := symbols.NewParser()
			defer p.Close()
			for fi := range jobs {
				r := build(wctx, p, fi)
				select {
				case results <- r:
				case <-wctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, fi := range files {
			select {
			case jobs <- fi:
			case <-wctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	done := 0
	var firstErr error
	for r := range results {
		done++
		if firstErr != nil {
			continue // drain
		}
		if wctx.Err() != nil {
			continue // cancelled: what is parsed is not written (a large file takes seconds)
		}
		if err := write(done, r); err != nil {
			firstErr = err
			cancel()
		}
	}
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return firstErr
}

func fraction(done, total int) float64 {
	if total == 0 {
		return 1
	}
	return float64(done) / float64(total)
}

// built is a worker's result for one file.
type built struct {
	path        string
	data        *store.FileData // nil: content unchanged
	size, mtime int64
	err         error
}

// languageOf returns the language of a workspace file, or nil when it is not
// indexed (unknown type, or excluded by the config's language list).
func (e *Engine) languageOf(rel string, head []byte) *symbols.Language {
	lang := symbols.ForContent(rel, head)
	if lang == nil && head == nil {
		// Extension-less files may declare their language with a shebang.
		if !strings.Contains(baseName(rel), ".") {
			if h, err := readHead(e.ws, rel); err == nil {
				lang = symbols.ForContent(rel, h)
			}
		}
	}
	if lang == nil {
		return nil
	}
	if len(e.cfg.Languages) > 0 && !contains(e.cfg.Languages, lang.Name) {
		return nil
	}
	return lang
}

// unindexedRecipe identifies what decides that a file is in no indexed
// language: the indexer, the languages known and the configured ones. A
// file found in none under another recipe is read again.
func (e *Engine) unindexedRecipe() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%q|", indexerVersion, e.cfg.Languages)
	for _, l := range symbols.All() {
		fmt.Fprintf(h, "%s,", l.Name)
	}
	return h.Sum64()
}

// buildFromDisk reads and builds a file; stored says whether the store had a
// record of it when the run began (if not, it is not looked up: a cold
// index saves a read per file).
func (e *Engine) buildFromDisk(ctx context.Context, p *symbols.Parser, fi workspace.FileInfo, stored bool) built {
	r := built{path: fi.Rel, size: fi.Size, mtime: fi.ModTime}
	content, err := os.ReadFile(fi.Abs)
	if err != nil {
		r.err = err
		return r
	}
	if stored {
		hash := store.ContentHash(content)
		snap := e.db.Snapshot()
		old, err := snap.File(fi.Rel)
		snap.Release()
		if err == nil && old.Hash == hash && !old.Overlay && old.Indexer == indexerVersion {
			return r
		}
	}
	r.data, r.err = e.build(ctx, p, fi.Rel, content, false)
	if r.data != nil {
		r.data.File.Size, r.data.File.ModTime = fi.Size, fi.ModTime
	}
	return r
}

// build parses and chunks one file version into the data of its batch.
func (e *Engine) build(ctx context.Context, p *symbols.Parser, rel string, content []byte, overlay bool) (*store.FileData, error) {
	parse := func(lang *symbols.Language) (*symbols.File, *sideGraph, error) {
		f, err := p.Parse(ctx, lang, content)
		return f, nil, err
	}
	return e.buildWith(ctx, rel, content, overlay, parse, nil, nil)
}

// bufferParse is what an editor buffer's version leaves its next one: its
// parse (the next one re-parses from it), its chunks and call graph (the
// next one's are spliced from them when only some declarations changed).
type bufferParse struct {
	file   *symbols.File
	chunks []chunking.Chunk
	graph  *graph.FileGraph // nil for a language without one
}

// Close frees the parse's syntax tree.
func (b *bufferParse) Close() { b.file.Close() }

// buildWith is build with the parse to use and, when keep is set, the
// parsed file, its chunks and call graph handed to keep instead of closed;
// prev, when set, is the buffer's previous version, which a spliced parse
// (symbols.File.Splice) takes the chunks and graph of its unchanged
// declarations from. A parse that returns a sideGraph leaves the file's
// call graph to it (none when the parse fails).
func (e *Engine) buildWith(ctx context.Context, rel string, content []byte, overlay bool,
	parse func(*symbols.Language) (*symbols.File, *sideGraph, error), prev *bufferParse, keep func(bufferParse)) (*store.FileData, error) {
	lang := e.languageOf(rel, content)
	if lang == nil {
		return nil, fmt.Errorf("%s: %w", rel, ErrNotIndexable)
	}
	data := &store.FileData{File: store.FileRecord{
		Path:      rel,
		Language:  lang.Name,
		Size:      int64(len(content)),
		Hash:      store.ContentHash(content),
		Overlay:   overlay,
		IndexedAt: time.Now().UnixNano(),
		Lines:     bytes.Count(content, []byte{'\n'}) + 1,
		Indexer:   indexerVersion,
	}}
	opts := chunking.DefaultOptions()
	var chunks []chunking.Chunk
	recorded := false
	// record makes the chunks the file's chunk records (ids, recipes,
	// summaries) and maps each definition to its chunk.
	record := func() {
		recorded = true
		byName := make(map[string]*symbols.Symbol, len(data.Symbols))
		for i := range data.Symbols {
			byName[data.Symbols[i].QualifiedName()] = &data.Symbols[i]
		}
		data.Chunks = make([]store.ChunkRecord, len(chunks))
		same := map[store.ChunkID]int{}
		for i, c := range chunks {
			r := store.ChunkRecord{Chunk: c, Recipe: store.NewRecipe(chunking.Version, embedText(c)), Summary: summary(c, byName)}
			// What the text index and the embedding hold of the chunk,
			// not where it is (textDoc, embedText).
			r.ID = store.NewChunkID(rel, c.Language, c.Kind, c.Label, strings.Join(c.Symbols, " "), r.Summary, c.Context, c.Text)
			if n := same[r.ID]; n > 0 {
				same[r.ID]++
				r.ID = r.ID.Nth(n)
			} else {
				same[r.ID] = 1
			}
			data.Chunks[i] = r
		}
		data.SymbolChunks = symbolChunks(data.Symbols, data.Chunks)
	}
	switch {
	case lang.HasGrammar() && chunking.IsData(content):
		// Generated data (register headers, tables): line windows, no
		// parse, no definitions, no graph.
		data.File.Note = dataNote
		chunks = chunking.Data(rel, lang.Name, content, opts)
	case lang.HasGrammar():
		f, side, err := parse(lang)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			data.File.Note = "parse failed: " + err.Error()
			chunks = chunking.Text(rel, lang.Name, content, opts)
		} else {
			data.Symbols = f.Symbols
			if prev == nil {
				prev = &bufferParse{}
			}
			chunk := func() { chunks = chunking.CodeSpliced(rel, f, opts, prev.chunks) }
			var g *graph.FileGraph
			if side != nil {
				// The records too are made while the graph is finished.
				g = side.finish(data, f, func() { chunk(); record() })
			} else {
				chunk()
				g = addGraph(data, f, rel, prev.graph)
			}
			if keep != nil {
				keep(bufferParse{file: f, chunks: chunks, graph: g})
			} else {
				f.Close()
			}
		}
	default:
		chunks = chunking.Text(rel, lang.Name, content, opts)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // a large file takes seconds: stop here when asked
	}
	if !recorded {
		record()
	}
	return data, nil
}

// symbolChunks maps each definition to the chunk that holds it: the chunk
// listing its qualified name (the first part of a split body), else the
// smallest chunk covering its first line.
func symbolChunks(syms []symbols.Symbol, chunks []store.ChunkRecord) []store.ChunkID {
	listed := map[string]store.ChunkID{}
	for _, c := range chunks {
		for _, n := range c.Symbols {
			if _, ok := listed[n]; !ok {
				listed[n] = c.ID
			}
		}
	}
	out := make([]store.ChunkID, len(syms))
	for i, sym := range syms {
		if id, ok := listed[sym.QualifiedName()]; ok {
			out[i] = id
			continue
		}
		line, best := sym.Span.Start.Line+1, -1
		for j, c := range chunks {
			if c.StartLine <= line && line <= c.EndLine && (best < 0 || c.EndLine-c.StartLine < chunks[best].EndLine-chunks[best].StartLine) {
				best = j
			}
		}
		if best >= 0 {
			out[i] = chunks[best].ID
		}
	}
	return out
}

// summary collects the signatures and doc comments of the definitions a
// chunk covers. Parts after the first of a split body carry the signature
// only: the doc comment belongs to the part that holds it.
func summary(c chunking.Chunk, byName map[string]*symbols.Symbol) string {
	var b strings.Builder
	for _, name := range c.Symbols {
		sym := byName[name]
		if sym == nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(sym.Signature)
		if sym.Doc != "" && c.Part <= 1 {
			b.WriteByte('\n')
			b.WriteString(sym.Doc)
		}
	}
	return b.String()
}

// ErrNotIndexable: the file's type is not indexed.
var ErrNotIndexable = errors.New("file type not indexed")

// writeFile commits one file's batch and queues its text-index changes.
// Disk versions of files that have an overlay are dropped: the editor's
// buffer wins until it is closed. Chunks the previous version already had
// (same id: the same text, label, names and summary, wherever it now is)
// keep their text-index documents.
func (e *Engine) writeFile(ctx context.Context, data *store.FileData, overlay bool) error {
	return e.writeFileWith(ctx, data, overlay, true)
}

// writeFileWith is writeFile; reuse false re-adds every chunk to the text
// index (Reindex).
func (e *Engine) writeFileWith(ctx context.Context, data *store.FileData, overlay, reuse bool) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if !overlay && e.hasOverlay(data.File.Path) {
		return nil
	}
	e.nameTab.add(data.Symbols) // before the commit: see nameTable
	seq, replaced, err := e.db.PutFile(data)
	if e.noteStorage(err) != nil {
		return err
	}
	e.changed()
	ids := make([]store.ChunkID, len(data.Chunks))
	for i, c := range data.Chunks {
		ids[i] = c.ID
	}
	e.emb.fileChanged(data.File.Path, replaced, ids, overlay)
	return e.tw.put(ctx, data, replaced, seq, reuse)
}

func (e *Engine) deleteFile(rel string) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	seq, removed, err := e.db.DeleteFile(rel)
	if e.noteStorage(err) != nil {
		return err
	}
	e.changed()
	e.emb.fileChanged(rel, removed, nil, false)
	return e.tw.remove(removed, seq)
}

// errTextBehind: the text writer stopped adding a file's documents part
// way; the text index must be caught up from the store (resumeText).
var errTextBehind = errors.New("text index behind the store")

// touchFile records a new size and modification time of an unchanged file.
func (e *Engine) touchFile(rel string, size, mtime int64) error {
	return e.noteStorage(e.db.TouchFile(rel, size, mtime))
}

func (e *Engine) hasOverlay(rel string) bool {
	e.overlayMu.Lock()
	defer e.overlayMu.Unlock()
	return e.overlays[rel]
}

func readHead(ws *workspace.Workspace, rel string) ([]byte, error) {
	abs, err := ws.Abs(rel)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
