package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/workspace"
)

// UpdateOverlay indexes the content of an editor buffer for rel: unsaved
// edits become visible to every query as soon as this returns. Until
// ClearOverlay, disk scans leave the file alone.
func (e *Engine) UpdateOverlay(ctx context.Context, rel string, content []byte) error {
	return e.UpdateOverlayStaged(ctx, rel, content, nil)
}

// UpdateOverlayStaged is UpdateOverlay that calls stored (when not nil)
// as soon as the store holds the buffer's version: from then on snapshots
// answer definitions, symbols, hover and the graph from it, while the text
// index (search) is still being brought up to date; that is done when it
// returns. stored is not called when nothing was written (the index
// already held this text, or an error came first).
func (e *Engine) UpdateOverlayStaged(ctx context.Context, rel string, content []byte, stored func()) error {
	e.overlayMu.Lock()
	e.overlays[rel] = true
	e.overlayMu.Unlock()
	return e.indexContent(ctx, rel, content, true, 0, stored)
}

// keepParseBytes is the size from which an opened editor buffer is parsed
// before its first edit (KeepParse): a full parse and extraction of
// net/http/server.go (130 KB) takes tens of milliseconds, which the
// buffer's first keystroke would otherwise wait for.
const keepParseBytes = 16 << 10

// KeepParse parses the editor buffer of rel — open, with content the
// index already holds (just opened, or just saved) — and keeps the syntax
// tree, the definitions, chunks and call graph, so that the buffer's
// first edit re-parses and re-extracts only what it changed, as every
// later edit does. A parse of this content already kept is kept; a buffer
// under keepParseBytes or of no parsed language is left alone.
// ForgetParse drops it.
func (e *Engine) KeepParse(ctx context.Context, rel string, content []byte) error {
	if len(content) < keepParseBytes {
		return nil
	}
	lang := e.languageOf(rel, content)
	if lang == nil || !lang.HasGrammar() {
		return nil
	}
	p := e.parser()
	defer e.releaseParser(p)
	if b := e.parsed[rel]; b != nil {
		if b.file.Lang == lang && bytes.Equal(b.file.Source, content) {
			return nil
		}
		b.Close()
		delete(e.parsed, rel)
	}
	f, err := p.Parse(ctx, lang, bytes.Clone(content))
	if err != nil {
		return fmt.Errorf("parse %s: %w", rel, err)
	}
	b := bufferParse{file: f, chunks: chunking.Code(rel, f, chunking.DefaultOptions())}
	if graph.Supported(lang.Name) {
		b.graph = graph.Extract(f, rel)
	}
	e.keepParsed(rel, b)
	return nil
}

// keepParsed keeps b as the parse of the editor buffer of rel for its next
// edit; under parserMu (parser), which guards parsed.
func (e *Engine) keepParsed(rel string, b bufferParse) {
	if e.parsed == nil {
		e.parsed = map[string]*bufferParse{}
	}
	e.parsed[rel] = &b
}

// ParseKept reports whether a parse of the editor buffer of rel is kept
// for its next edit (diagnostics and tests: a closed buffer must not keep
// one).
func (e *Engine) ParseKept(rel string) bool {
	e.parserMu.Lock()
	defer e.parserMu.Unlock()
	return e.parsed[rel] != nil
}

// ForgetParse drops the parse kept for the editor buffer of rel (closed, or
// no longer indexed).
func (e *Engine) ForgetParse(rel string) {
	e.parserMu.Lock()
	defer e.parserMu.Unlock()
	if b := e.parsed[rel]; b != nil {
		b.Close()
		delete(e.parsed, rel)
	}
}

// ClearOverlay forgets the editor buffer of rel (closed, or saved) and
// reconciles the index with the file on disk. The buffer's parse stays for
// its next edit (saved: the text is the same); ForgetParse drops it.
func (e *Engine) ClearOverlay(ctx context.Context, rel string) error {
	e.overlayMu.Lock()
	delete(e.overlays, rel)
	e.overlayMu.Unlock()
	return e.Refresh(ctx, []string{rel})
}

// Refresh re-reads the given workspace paths from disk (watched-file events,
// saves): changed files are re-indexed, deleted or newly ignored ones are
// removed, paths with an open overlay are left to the overlay. Several
// paths make one batched update (a branch switch rewriting thousands of
// files): they are parsed on the engine's workers, each file written in its
// own batch as it is parsed, and the text index is brought up to date once,
// at the end (in batches of at most textBatchDocs documents). Queries keep
// answering from their snapshots meanwhile.
//
// Refreshes run one at a time, each reading and writing its files before
// the next reads them: of two refreshes of a file (a save's reconcile and
// the watcher's report of another writer's change a moment later), the
// one that read the file last writes last. (Against an index run, which
// refreshes do not wait for, the service's maintainer scans again after
// a run that changes were reported during.)
func (e *Engine) Refresh(ctx context.Context, rels []string) error {
	if err := e.beginWrite(ctx); err != nil {
		return err
	}
	e.refreshMu.Lock()
	defer e.refreshMu.Unlock()
	var todo []string
	for _, rel := range rels {
		if !e.hasOverlay(rel) {
			todo = append(todo, rel)
		}
	}
	switch len(todo) {
	case 0:
		return nil
	case 1:
		return e.refreshOne(ctx, todo[0])
	}
	return e.refreshMany(ctx, todo)
}

// refreshMany is Refresh of several paths: one update run.
func (e *Engine) refreshMany(ctx context.Context, rels []string) error {
	start := time.Now()
	var errs []error
	var files []workspace.FileInfo
	removed, written, unchanged := 0, 0, 0
	for _, rel := range rels {
		fi, ok, err := e.statIndexable(rel)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok && fi.Size <= e.ws.MaxFileSize() {
			files = append(files, fi)
			continue
		}
		// Gone, excluded, not indexable or too large: not in the index.
		if err := e.deleteFile(rel); err != nil {
			return errors.Join(append(errs, err)...)
		}
		removed++
	}
	fromDisk := func(ctx context.Context, p *symbols.Parser, fi workspace.FileInfo) built {
		return e.buildFromDisk(ctx, p, fi, true) // a refreshed file may be stored
	}
	err := e.parseAll(ctx, files, fromDisk, func(_ int, r built) error {
		switch {
		case errors.Is(r.err, fs.ErrNotExist): // deleted since the stat
			removed++
			return e.deleteFile(r.path)
		case r.err != nil:
			errs = append(errs, fmt.Errorf("refresh %s: %w", r.path, r.err))
		case r.data == nil: // same content
			unchanged++
			return e.touchFile(r.path, r.size, r.mtime)
		default:
			written++
			return e.writeFile(ctx, r.data, false)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	if err := e.flushText(); err != nil {
		errs = append(errs, err)
	}
	e.stats.note("refreshed %d files in one update (%d written, %d removed, %d unchanged) in %s",
		len(rels), written, removed, unchanged, time.Since(start).Round(time.Millisecond))
	return errors.Join(errs...)
}

func (e *Engine) refreshOne(ctx context.Context, rel string) error {
	included, err := e.ws.Included(rel)
	if err != nil {
		return err
	}
	abs, err := e.ws.Abs(rel)
	if err != nil {
		return err
	}
	st, statErr := os.Stat(abs)
	if !included || errors.Is(statErr, fs.ErrNotExist) || (statErr == nil && st.IsDir()) || e.languageOf(rel, nil) == nil {
		if err := e.deleteFile(rel); err != nil {
			return err
		}
		return e.flushText()
	}
	if statErr != nil {
		return statErr
	}
	content, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	return e.indexContent(ctx, rel, content, false, st.ModTime().UnixNano(), nil)
}

// indexContent builds and writes one file version, calls stored (if set)
// once the store holds it, then makes it visible to text search before
// returning.
func (e *Engine) indexContent(ctx context.Context, rel string, content []byte, overlay bool, mtime int64, stored func()) error {
	if overlay { // Refresh checked for its files
		if err := e.beginWrite(ctx); err != nil {
			return err
		}
	}
	if int64(len(content)) > e.ws.MaxFileSize() {
		// Like a file that large on disk, a buffer that large is not
		// indexed (it would take memory and time without bound).
		if err := e.deleteFile(rel); err != nil {
			return err
		}
		return e.flushText()
	}
	snap := e.db.Snapshot()
	old, err := snap.File(rel)
	snap.Release()
	if err == nil && old.Hash == store.ContentHash(content) && old.Overlay == overlay && old.Indexer == indexerVersion {
		if !overlay && (old.ModTime != mtime || old.Size != int64(len(content))) {
			return e.touchFile(rel, int64(len(content)), mtime)
		}
		return nil
	}
	var data *store.FileData
	if overlay {
		data, err = e.buildOverlay(ctx, rel, content)
	} else {
		p := e.parser()
		data, err = e.build(ctx, p, rel, content, false)
		e.releaseParser(p)
	}
	if err != nil {
		return fmt.Errorf("index %s: %w", rel, err)
	}
	data.File.ModTime = mtime
	if err := e.writeFile(ctx, data, overlay); err != nil {
		return err
	}
	if stored != nil {
		stored()
	}
	return e.flushText()
}

// buildOverlay builds an editor buffer's version of rel, re-parsing from
// the buffer's previous parse (symbols.Parser.Reparse: a keystroke in a
// large file costs a fraction of a full parse; when it touched functions
// only, their definitions and calls alone are extracted, the rest carried
// over from the previous version), and keeps this parse and graph for the
// next version. A buffer of overlayParallelBytes or more that is extracted
// in full has its call graph extracted on a goroutine of its own
// (sideGraph).
func (e *Engine) buildOverlay(ctx context.Context, rel string, content []byte) (*store.FileData, error) {
	p := e.parser()
	defer e.releaseParser(p)
	prev := e.parsed[rel]
	delete(e.parsed, rel) // re-parsing edits its tree: never reused twice
	if prev != nil {
		defer prev.Close()
	}
	// The kept parse holds its source: a copy, never the caller's buffer.
	content = bytes.Clone(content)
	parse := func(lang *symbols.Language) (*symbols.File, *sideGraph, error) {
		var side *sideGraph
		var parsed func(*sitter.Tree)
		if len(content) >= overlayParallelBytes && graph.Supported(lang.Name) {
			parsed = func(t *sitter.Tree) { side = startSideGraph(t, lang, rel) }
		}
		var f *symbols.File
		var err error
		if prev != nil && prev.file.Lang == lang && prev.file.Tree != nil {
			f, err = p.ReparseThen(ctx, prev.file, content, parsed)
		} else {
			f, err = p.ParseThen(ctx, lang, content, parsed)
		}
		if err != nil && side != nil {
			side.abandon()
			side = nil
		}
		return f, side, err
	}
	keep := func(b bufferParse) { e.keepParsed(rel, b) }
	return e.buildWith(ctx, rel, content, true, parse, prev, keep)
}

// parser hands out the engine's parser for single-file updates (tree-sitter
// parsers are not safe for concurrent use; updates are rare and short).
func (e *Engine) parser() *symbols.Parser {
	e.parserMu.Lock()
	if e.updParser == nil {
		e.updParser = symbols.NewParser()
	}
	return e.updParser
}

func (e *Engine) releaseParser(*symbols.Parser) { e.parserMu.Unlock() }

// overlayParallelBytes is the size from which an editor buffer version
// extracted in full (not spliced) has its call graph extracted on a
// goroutine of its own (sideGraph): its query runs on a copy of the syntax
// tree while the definitions are extracted, the rest, which needs the
// definitions, while the buffer is chunked. Such an edit of
// net/http/server.go (130 KB) waits for the longer of the two paths (graph
// 31 ms of CPU; definitions 16 ms then chunks 11 ms) instead of their sum.
// Bulk indexing keeps one goroutine per file (its workers already use
// every core).
const overlayParallelBytes = 32 << 10

// sideGraph extracts one file version's call graph on a goroutine of its
// own, from a copy of its syntax tree (a tree is not safe for concurrent
// use; copies share their nodes and are cheap): the graph query's matches
// as soon as the tree is parsed, the rest once finish hands it the file's
// definitions.
type sideGraph struct {
	file     chan *symbols.File // the parsed file; nil to give up
	done     chan struct{}
	g        *graph.FileGraph // set when done, unless given up
	spent    time.Duration    // extraction time, the wait for the file left out
	panicked any
}

// startSideGraph starts the graph of rel, of language lang, from a copy
// of tree.
func startSideGraph(tree *sitter.Tree, lang *symbols.Language, rel string) *sideGraph {
	sg := &sideGraph{file: make(chan *symbols.File, 1), done: make(chan struct{})}
	tr := tree.Copy()
	go func() {
		defer close(sg.done)
		defer tr.Close()
		// A panic is raised again in finish, in the caller's goroutine,
		// where the caller's recovery (the session's, for an editor
		// buffer) sees it.
		defer func() { sg.panicked = recover() }()
		began := time.Now()
		m := graph.MatchTree(lang, tr)
		sg.spent = time.Since(began)
		f := <-sg.file
		if f == nil {
			return
		}
		began = time.Now()
		gf := *f
		gf.Tree = tr
		sg.g = graph.ExtractMatched(&gf, rel, m)
		sg.spent += time.Since(began)
	}()
	return sg
}

// finish hands the goroutine the parsed file f, runs work meanwhile, then
// waits for the graph, adds it to data and returns it.
func (sg *sideGraph) finish(data *store.FileData, f *symbols.File, work func()) *graph.FileGraph {
	sg.file <- f
	work()
	<-sg.done
	if sg.panicked != nil {
		panic(sg.panicked)
	}
	if sg.g != nil {
		putGraph(data, sg.g)
		graphNanos.Add(int64(sg.spent))
	}
	return sg.g
}

// abandon gives up the graph (the parse failed) and waits for the
// goroutine to end.
func (sg *sideGraph) abandon() {
	sg.file <- nil
	<-sg.done
}
