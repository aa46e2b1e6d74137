package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/workspace"
)

// ReindexPlan is what Reindex would do for a selection of paths.
type ReindexPlan struct {
	// Reindex lists the indexable files that would be parsed and written
	// again, sorted.
	Reindex []string `json:"reindex"`
	// Remove lists the indexed files that would be dropped because they no
	// longer exist, are now excluded or are no longer indexable, sorted.
	Remove []string `json:"remove"`
}

// selection tells which workspace paths a reindex covers: everything when
// all is set, else the listed files and everything under the listed
// directories.
type selection struct {
	all   bool
	exact map[string]bool
	dirs  []string // with a trailing "/"
}

func (s selection) has(rel string) bool {
	if s.all || s.exact[rel] {
		return true
	}
	for _, d := range s.dirs {
		if strings.HasPrefix(rel, d) {
			return true
		}
	}
	return false
}

// selectPaths classifies rels (clean, slash-separated, relative to the
// root; "." or an empty list for the whole workspace). It reports whether a
// walk of the tree is needed to enumerate the selection.
func (e *Engine) selectPaths(rels []string) (selection, bool, error) {
	sel := selection{exact: map[string]bool{}}
	if len(rels) == 0 {
		sel.all = true
		return sel, true, nil
	}
	walk := false
	for _, rel := range rels {
		if rel == "." || rel == "" {
			sel.all = true
			return sel, true, nil
		}
		abs, err := e.ws.Abs(rel)
		if err != nil {
			return sel, false, fmt.Errorf("reindex %q: %w", rel, err)
		}
		if st, err := os.Stat(abs); err == nil && st.IsDir() {
			sel.dirs = append(sel.dirs, rel+"/")
			walk = true
			continue
		}
		sel.exact[rel] = true
		// An indexed directory that vanished: its files are under it.
		sel.dirs = append(sel.dirs, rel+"/")
	}
	return sel, walk, nil
}

// PlanReindex lists what Reindex(rels) would re-parse and remove, without
// changing anything. rels are clean slash-separated paths relative to the
// root (files or directories); none, or ".", selects the whole workspace.
func (e *Engine) PlanReindex(ctx context.Context, rels []string) (ReindexPlan, error) {
	plan, _, _, err := e.planReindex(ctx, rels)
	return plan, err
}

// planReindex also returns the files to parse with their stat data, and
// whether the selection is the whole workspace.
func (e *Engine) planReindex(ctx context.Context, rels []string) (ReindexPlan, []workspace.FileInfo, bool, error) {
	plan := ReindexPlan{Reindex: []string{}, Remove: []string{}}
	sel, walk, err := e.selectPaths(rels)
	if err != nil {
		return plan, nil, false, err
	}
	var files []workspace.FileInfo
	present := map[string]bool{}
	if walk {
		err := e.ws.Walk(ctx, func(fi workspace.FileInfo) error {
			if sel.has(fi.Rel) && e.languageOf(fi.Rel, nil) != nil {
				files = append(files, fi)
				present[fi.Rel] = true
			}
			return nil
		})
		if err != nil {
			return plan, nil, false, fmt.Errorf("scan %s: %w", e.ws.Root(), err)
		}
	}
	for rel := range sel.exact {
		if present[rel] {
			continue
		}
		fi, ok, err := e.statIndexable(rel)
		if err != nil {
			return plan, nil, false, err
		}
		if ok {
			files = append(files, fi)
			present[rel] = true
		}
	}
	snap := e.db.Snapshot()
	err = snap.FileHeads(func(rec store.FileRecord, _ int) bool {
		if sel.has(rec.Path) && !present[rec.Path] && !e.hasOverlay(rec.Path) {
			plan.Remove = append(plan.Remove, rec.Path)
		}
		return ctx.Err() == nil
	})
	snap.Release()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return plan, nil, false, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	for _, fi := range files {
		plan.Reindex = append(plan.Reindex, fi.Rel)
	}
	sort.Strings(plan.Remove)
	return plan, files, sel.all, nil
}

// statIndexable checks one file the way Walk would: it must exist, be a
// regular file, pass the workspace rules and have an indexed language.
func (e *Engine) statIndexable(rel string) (workspace.FileInfo, bool, error) {
	included, err := e.ws.Included(rel)
	if err != nil {
		return workspace.FileInfo{}, false, fmt.Errorf("reindex %q: %w", rel, err)
	}
	if !included || e.languageOf(rel, nil) == nil {
		return workspace.FileInfo{}, false, nil
	}
	abs, err := e.ws.Abs(rel)
	if err != nil {
		return workspace.FileInfo{}, false, fmt.Errorf("reindex %q: %w", rel, err)
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return workspace.FileInfo{}, false, nil
	}
	if err != nil {
		return workspace.FileInfo{}, false, fmt.Errorf("reindex %q: %w", rel, err)
	}
	if !st.Mode().IsRegular() {
		return workspace.FileInfo{}, false, nil
	}
	return workspace.FileInfo{Rel: rel, Abs: abs, Size: st.Size(), ModTime: st.ModTime().UnixNano()}, true, nil
}

// Reindex parses and writes again the selected files whatever the index
// holds for them (Index skips files whose size, modification time or
// content hash are unchanged; Reindex does not), and removes indexed files
// of the selection that are gone, excluded or no longer indexable. rels are
// as for PlanReindex. Files with an editor overlay keep it. Queries see the
// old version of each file until its new batch is written. progress (may be
// nil) gets Phase "index" reports with Done of Total files.
func (e *Engine) Reindex(ctx context.Context, rels []string, progress func(Progress)) (IndexResult, error) {
	unlock, err := e.lockScan(ctx)
	if err != nil {
		return IndexResult{}, err
	}
	defer unlock()
	if err := e.beginWrite(ctx); err != nil {
		return IndexResult{}, err
	}
	start := time.Now()
	if progress == nil {
		progress = func(Progress) {}
	}
	report := progress
	var m meter
	progress = func(p Progress) { m.fill(&p); report(p) }
	var res IndexResult
	progress(Progress{Phase: "scan"})
	plan, files, all, err := e.planReindex(ctx, rels)
	if err != nil {
		return res, err
	}
	res.Files = len(files)
	for _, rel := range plan.Remove {
		if err := e.deleteFile(rel); err != nil {
			return res, err
		}
		res.Deleted++
	}
	total, totalBytes, doneBytes := len(files), sizeOf(files), int64(0)
	progress(Progress{Phase: "index", Total: total, BytesTotal: totalBytes})
	err = e.parseAll(ctx, files, e.buildForced, func(done int, r built) error {
		doneBytes += r.size
		switch {
		case r.err != nil:
			res.Failed++
			e.log.Warn("reindex file", "path", r.path, "err", r.err)
		case e.hasOverlay(r.path):
			res.Unchanged++ // the editor's buffer wins
		default:
			if err := e.writeFileWith(ctx, r.data, false, false); err != nil {
				return err
			}
			res.add(r.data)
		}
		progress(Progress{Phase: "index", Done: done, Total: total, Bytes: doneBytes, BytesTotal: totalBytes, Path: r.path})
		return nil
	})
	if err := e.finishRun(start, &res, err, all, total, progress); err != nil {
		return res, err
	}
	e.stats.note("reindexed %d files (%d removed, %d failed) in %s", res.Indexed, res.Deleted, res.Failed, res.Duration.Round(time.Millisecond))
	return res, nil
}

// buildForced reads and builds a file whatever the index holds for it.
func (e *Engine) buildForced(ctx context.Context, p *symbols.Parser, fi workspace.FileInfo) built {
	r := built{path: fi.Rel, size: fi.Size, mtime: fi.ModTime}
	content, err := os.ReadFile(fi.Abs)
	if err == nil {
		r.data, err = e.build(ctx, p, fi.Rel, content, false)
	}
	if r.data != nil {
		r.data.File.Size, r.data.File.ModTime = int64(len(content)), fi.ModTime
	}
	r.err = err
	return r
}
