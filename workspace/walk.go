package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// A walk runs in two phases. The first judges every entry, directories in
// parallel (a tree of a hundred thousand files is mostly stat calls, which
// overlap across cores and, on a cold cache, across disk reads), and
// records what each directory has to say, in order; the second replays
// that record depth-first, so fn and OnSkip see exactly the order of a
// sequential walk: byte-wise lexical order of the paths.

// walkNode is what one directory contributes to a walk, in order.
type walkNode struct{ items []walkItem }

// walkItem is a file to pass to fn, a report for OnSkip (skip.rel set) or
// a directory to descend into (sub set).
type walkItem struct {
	file FileInfo
	skip skip
	sub  *walkNode
}

// walker is the first phase of one walk.
type walker struct {
	w     *Workspace
	ctx   context.Context
	known Known
	slots chan struct{} // one per goroutine that may judge a directory besides the caller's
	wg    sync.WaitGroup

	mu  sync.Mutex
	err error // the first error (the context's)
}

// walkWorkers bounds the goroutines of one walk.
func walkWorkers() int { return min(4*runtime.GOMAXPROCS(0), 16) }

// Known is what a caller of WalkKnown already knows of files. Its
// functions may be nil; they are called from several goroutines at once
// (directories are judged in parallel).
type Known struct {
	// Unwanted reports a regular file the caller indexes in no version,
	// by its path alone (a name whose extension no language has): the
	// walk leaves it out without a stat.
	Unwanted func(rel string) bool
	// Judged reports a file whose size and modification time are those
	// of a version the caller indexed, or one it drops whatever it holds:
	// it costs one stat — its head is not read for the binary and
	// minified checks, which depend on its content only.
	Judged func(rel string, size, mtime int64) bool
}

// WalkKnown is Walk for a caller that already judged some files (Known);
// fn and OnSkip are called from the caller's goroutine only, in walk
// order.
func (w *Workspace) WalkKnown(ctx context.Context, known Known, fn func(FileInfo) error) error {
	d, entries, err := readDir(w.root)
	if err != nil {
		return fmt.Errorf("walk %s: %w", w.root, err)
	}
	wk := &walker{w: w, ctx: ctx, known: known, slots: make(chan struct{}, walkWorkers()-1)}
	root := &walkNode{}
	r, skips := w.rootRules(listing(entries))
	wk.addSkips(root, skips)
	wk.dir(root, r, "", d, entries, newContentBuf())
	wk.wg.Wait()
	if wk.err != nil {
		return wk.err
	}
	return w.replay(ctx, root, fn)
}

func (wk *walker) addSkips(n *walkNode, skips []skip) {
	if wk.w.onSkip == nil {
		return
	}
	for _, s := range skips {
		n.items = append(n.items, walkItem{skip: s})
	}
}

func (wk *walker) fail(err error) {
	wk.mu.Lock()
	if wk.err == nil {
		wk.err = err
	}
	wk.mu.Unlock()
}

// readDir opens a directory and lists it; the directory stays open for
// stat calls relative to it (lstatAt) until its walker closes it.
func readDir(abs string) (*os.File, []fs.DirEntry, error) {
	d, err := os.Open(abs)
	if err != nil {
		return nil, nil, err
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return d, entries, nil
}

// dir judges the entries of the open directory d into n, handing
// subdirectories to other goroutines while there are free slots, and
// closes d.
func (wk *walker) dir(n *walkNode, r rules, dirRel string, d *os.File, entries []fs.DirEntry, head []byte) {
	defer d.Close()
	w := wk.w
	dirAbs := d.Name()
	sib := listing(entries)
	order := slices.Clone(entries)
	slices.SortFunc(order, compareEntries)
	for _, de := range order {
		if err := wk.ctx.Err(); err != nil {
			wk.fail(fmt.Errorf("walk: %w", err))
			return
		}
		name, abs := de.Name(), filepath.Join(dirAbs, de.Name())
		info := func() (fs.FileInfo, error) { return lstatAt(d, abs, name) }
		e := entry{dirRel: dirRel, name: name, abs: abs, mode: de.Type(), info: info, known: wk.known.Judged, unwanted: wk.known.Unwanted}
		dec, fi, isDir := w.judge(r, e, sib, head)
		if !dec.Included {
			if w.onSkip != nil && reported[dec.Source] {
				n.items = append(n.items, walkItem{skip: skip{dec.Rel, dec.Source + ": " + dec.Rule}})
			}
			continue
		}
		if !isDir {
			n.items = append(n.items, walkItem{file: fi})
			continue
		}
		subDir, sub, err := readDir(e.abs)
		if err != nil {
			if w.onSkip != nil {
				reason := SourceUnreadable + ": " + err.Error()
				if rule, ok := pathTooLong(e.abs, err); ok {
					reason = SourcePathTooLong + ": " + rule
				}
				n.items = append(n.items, walkItem{skip: skip{dec.Rel, reason}})
			}
			continue
		}
		child := &walkNode{}
		n.items = append(n.items, walkItem{sub: child})
		subRules, skips := w.withDir(r, dec.Rel, e.abs, listing(sub))
		wk.addSkips(child, skips)
		select {
		case wk.slots <- struct{}{}:
			wk.wg.Add(1)
			go func(rel string) {
				defer func() { <-wk.slots; wk.wg.Done() }()
				wk.dir(child, subRules, rel, subDir, sub, newContentBuf())
			}(dec.Rel)
		default:
			wk.dir(child, subRules, dec.Rel, subDir, sub, head)
		}
	}
}

// replay is the second phase: fn and OnSkip in walk order.
func (w *Workspace) replay(ctx context.Context, n *walkNode, fn func(FileInfo) error) error {
	for i := range n.items {
		it := &n.items[i]
		switch {
		case it.sub != nil:
			if err := w.replay(ctx, it.sub, fn); err != nil {
				return err
			}
		case it.skip.rel != "":
			w.onSkip(it.skip.rel, it.skip.reason)
		default:
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("walk: %w", err)
			}
			if err := fn(it.file); err != nil {
				return err
			}
		}
	}
	return nil
}
