package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
)

// UpdateOverlay indexes the content of an editor buffer for rel: unsaved
// edits become visible to every query as soon as this returns. Until
// ClearOverlay, disk scans leave the file alone.
func (e *Engine) UpdateOverlay(ctx context.Context, rel string, content []byte) error {
	e.overlayMu.Lock()
	e.overlays[rel] = true
	e.overlayMu.Unlock()
	return e.indexContent(ctx, rel, content, true, 0)
}

// ClearOverlay forgets the editor buffer of rel (closed, or saved) and
// reconciles the index with the file on disk.
func (e *Engine) ClearOverlay(ctx context.Context, rel string) error {
	e.overlayMu.Lock()
	delete(e.overlays, rel)
	e.overlayMu.Unlock()
	return e.Refresh(ctx, []string{rel})
}

// Refresh re-reads the given workspace paths from disk (watched-file events,
// saves): changed files are re-indexed, deleted or newly ignored ones are
// removed, paths with an open overlay are left to the overlay.
func (e *Engine) Refresh(ctx context.Context, rels []string) error {
	if err := e.beginWrite(ctx); err != nil {
		return err
	}
	var errs []error
	for _, rel := range rels {
		if e.hasOverlay(rel) {
			continue
		}
		if err := e.refreshOne(ctx, rel); err != nil {
			errs = append(errs, err)
		}
	}
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
	return e.indexContent(ctx, rel, content, false, st.ModTime().UnixNano())
}

// indexContent builds and writes one file version, then makes it visible to
// text search before returning.
func (e *Engine) indexContent(ctx context.Context, rel string, content []byte, overlay bool, mtime int64) error {
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
	p := e.parser()
	data, err := e.build(ctx, p, rel, content, overlay)
	e.releaseParser(p)
	if err != nil {
		return fmt.Errorf("index %s: %w", rel, err)
	}
	data.File.ModTime = mtime
	if err := e.writeFile(ctx, data, overlay); err != nil {
		return err
	}
	return e.flushText()
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
