package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// AllChanged appears in a Watch batch when events were lost (the kernel's
// queue overflowed or the root itself went away): anything may have
// changed, so rescan the whole tree.
const AllChanged = "."

// DefaultDebounce is the debounce window Watch uses when given none.
const DefaultDebounce = 100 * time.Millisecond

// maxBatch bounds a batch of Watch: events that keep coming with gaps
// shorter than the debounce (a branch switch rewriting thousands of files,
// a build writing without pause) are reported at the latest this long
// after the first of them.
const maxBatch = 10 * time.Second

// AffectsRules reports whether a change to rel (relative to the root) can
// change the decision for other paths: ignore files, the configuration
// file, and the build files that make target/, dist/, build/ and _build/
// output directories. After a batch holding such a path, rescan the
// directory that holds it (or the whole tree).
func AffectsRules(rel string) bool {
	name := path.Base(rel)
	if name == GitIgnoreFile || name == ContextIgnoreFile || rel == ConfigFileName || rel == ".git/info/exclude" {
		return true
	}
	for _, markers := range conditionalDirs {
		if slices.Contains(markers, name) {
			return true
		}
	}
	return false
}

// Watch watches the tree with fsnotify until ctx is done, for clients that
// cannot watch files themselves. It watches every directory Walk enters,
// adds watches for new directories (reporting the files already in them)
// and drops the watches of removed or renamed ones. Events are coalesced
// until the tree is quiet: a batch ends when no event came for debounce
// (<= 0 means DefaultDebounce), or maxBatch after its first event, and
// fn gets the sorted, de-duplicated rel paths created,
// written, removed or renamed in it — a git checkout rewriting thousands
// of files is one batch, not one per file. Paths are not filtered: a
// path may be excluded, a directory, or gone (the engine re-checks each with
// Included and drops the ones that no longer exist, and everything under a
// vanished directory). AllChanged means events were lost. Permission-only
// changes are not reported. fn runs on Watch's goroutine.
//
// Watch returns nil when ctx is done, and an error if the root cannot be
// watched or is removed (after a final batch holding AllChanged).
func (w *Workspace) Watch(ctx context.Context, debounce time.Duration, fn func(changed []string)) error {
	return w.WatchReady(ctx, debounce, nil, fn)
}

// WatchReady is Watch that calls ready (when not nil) once every
// directory is watched: a change made before its directory was watched
// is reported by no event, so a caller that scanned meanwhile scans again
// then.
func (w *Workspace) WatchReady(ctx context.Context, debounce time.Duration, ready func(), fn func(changed []string)) error {
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer fw.Close()
	ws := &watcher{w: w, fw: fw, dirs: map[string]bool{}, pending: map[string]bool{}}
	if err := fw.Add(w.root); err != nil {
		return fmt.Errorf("watch %s: %w", w.root, err)
	}
	ws.watchRoot(ctx)
	if ready != nil {
		ready()
	}

	var timer <-chan time.Time
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	defer quiet.Stop()
	var first time.Time // the batch's first event
	flush := func() {
		timer = nil
		quiet.Stop()
		if len(ws.pending) == 0 {
			return
		}
		batch := make([]string, 0, len(ws.pending))
		for p := range ws.pending {
			batch = append(batch, p)
		}
		clear(ws.pending)
		slices.Sort(batch)
		fn(batch)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return errors.New("watch: event channel closed")
			}
			if gone := ws.handle(ctx, ev); gone {
				ws.pending[AllChanged] = true
				flush()
				return fmt.Errorf("watch: workspace root %s was removed or renamed", w.root)
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return errors.New("watch: error channel closed")
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				ws.pending[AllChanged] = true
				ws.resync = true
			} else if w.onSkip != nil {
				w.onSkip(".", "watch error: "+err.Error())
			}
		case <-timer:
			if ws.resync {
				ws.resync = false
				ws.resyncWatches(ctx)
			}
			flush()
			continue
		}
		if len(ws.pending) > 0 {
			// (Re)start the quiet period, bounded by the batch's limit.
			now := time.Now()
			if timer == nil {
				first = now
			}
			wait := min(debounce, first.Add(maxBatch).Sub(now))
			quiet.Reset(max(wait, 0))
			timer = quiet.C
		}
	}
}

// watcher is the state of one Watch call.
type watcher struct {
	w       *Workspace
	fw      *fsnotify.Watcher
	dirs    map[string]bool // watched directories, rel ("." for the root)
	pending map[string]bool // rel paths changed in the current window
	resync  bool            // re-derive the watched set at the window's end
}

// handle records one event and adjusts the watches. It reports whether the
// root itself went away.
func (ws *watcher) handle(ctx context.Context, ev fsnotify.Event) bool {
	rel, ok := relUnder(ws.w.root, filepath.Clean(ev.Name))
	if !ok {
		return false
	}
	if rel == "." {
		return ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	}
	if !ev.Has(fsnotify.Create | fsnotify.Write | fsnotify.Remove | fsnotify.Rename) {
		return false
	}
	ws.pending[rel] = true
	if AffectsRules(rel) {
		ws.resync = true
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		ws.forget(rel)
	}
	if ev.Has(fsnotify.Create) && !ws.dirs[rel] {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			parent := path.Dir(rel)
			if r, ok := ws.rulesAt(parent); ok {
				if parent == "." {
					parent = ""
				}
				parentAbs := filepath.Dir(ev.Name)
				e := entry{dirRel: parent, name: path.Base(rel), abs: ev.Name, mode: fi.Mode().Type(), info: func() (os.FileInfo, error) { return fi, nil }}
				if d, _, isDir := ws.w.judge(r, e, fsSiblings(parentAbs), nil); d.Included && isDir {
					ws.addDir(ctx, rel, ev.Name, r, true)
				}
			}
		}
	}
	return false
}

// forget drops the watches of rel and of every directory below it.
func (ws *watcher) forget(rel string) {
	for d := range ws.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			delete(ws.dirs, d)
			// The kernel may already have dropped the watch; that is fine.
			_ = ws.fw.Remove(filepath.Join(ws.w.root, filepath.FromSlash(d)))
		}
	}
}

// rulesAt returns the rules in force inside directory dirRel ("." for the
// root), and false if dirRel is not a directory Walk enters.
func (ws *watcher) rulesAt(dirRel string) (rules, bool) {
	r, _ := ws.w.rootRules(fsSiblings(ws.w.root))
	if dirRel == "." {
		return r, true
	}
	cur, curAbs := "", ws.w.root
	for _, name := range strings.Split(dirRel, "/") {
		abs := filepath.Join(curAbs, name)
		fi, err := os.Lstat(abs)
		if err != nil || !fi.IsDir() {
			return rules{}, false
		}
		e := entry{dirRel: cur, name: name, abs: abs, mode: fi.Mode().Type(), info: func() (os.FileInfo, error) { return fi, nil }}
		d, _, isDir := ws.w.judge(r, e, fsSiblings(curAbs), nil)
		if !d.Included || !isDir {
			return rules{}, false
		}
		cur, curAbs = d.Rel, abs
		r, _ = ws.w.withDir(r, cur, abs, fsSiblings(abs))
	}
	return r, true
}

// addDir watches directory rel (whose parent's rules are r) and everything
// below it that Walk would enter. With report, every entry found is
// recorded as changed: files in a new directory may have been created
// before its watch existed.
func (ws *watcher) addDir(ctx context.Context, rel, abs string, parent rules, report bool) {
	if err := ws.fw.Add(abs); err != nil {
		if ws.w.onSkip != nil {
			ws.w.onSkip(rel, "cannot watch: "+err.Error())
		}
		return
	}
	ws.dirs[rel] = true
	entries, err := os.ReadDir(abs)
	if err != nil {
		return
	}
	r, skips := ws.w.withDir(parent, rel, abs, listing(entries))
	ws.w.report(skips)
	ws.addEntries(ctx, rel, abs, r, entries, report)
}

// addEntries watches the directories among entries of dirRel ("" for the
// root), whose rules are r, and below them.
func (ws *watcher) addEntries(ctx context.Context, dirRel, dirAbs string, r rules, entries []os.DirEntry, report bool) {
	sib := listing(entries)
	for _, de := range entries {
		if ctx.Err() != nil {
			return
		}
		rel := joinRel(dirRel, de.Name())
		abs := filepath.Join(dirAbs, de.Name())
		if report {
			ws.pending[rel] = true
		}
		if !de.IsDir() || ws.dirs[rel] {
			continue
		}
		e := entry{dirRel: dirRel, name: de.Name(), abs: abs, mode: de.Type(), info: de.Info}
		if d, _, isDir := ws.w.judge(r, e, sib, nil); d.Included && isDir {
			ws.addDir(ctx, rel, abs, r, report)
		}
	}
}

// watchRoot watches the root and every directory Walk enters below it.
func (ws *watcher) watchRoot(ctx context.Context) {
	ws.dirs["."] = true
	entries, err := os.ReadDir(ws.w.root)
	if err != nil {
		return
	}
	r, skips := ws.w.rootRules(listing(entries))
	ws.w.report(skips)
	ws.addEntries(ctx, "", ws.w.root, r, entries, false)
}

// resyncWatches re-derives the set of watched directories after an ignore
// rule changed or events were lost: it watches the directories Walk now
// enters and drops the watches of the others. Adding a watch that exists
// is a no-op for the kernel.
func (ws *watcher) resyncWatches(ctx context.Context) {
	old := ws.dirs
	ws.dirs = map[string]bool{}
	ws.watchRoot(ctx)
	for d := range old {
		if !ws.dirs[d] {
			_ = ws.fw.Remove(filepath.Join(ws.w.root, filepath.FromSlash(d)))
		}
	}
}
