package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
)

// reconfigure reopens the folder's engine with its current settings, on a
// goroutine of its own (the caller may be one of the engine's).
func (f *folder) reconfigure(why string) {
	go func() {
		defer f.b.recoverPanic("reopening " + f.root)
		f.mu.RLock()
		s := f.settings
		f.mu.RUnlock()
		f.reopen(s, why)
	}()
}

// FilesChanged reports files created, changed or deleted on disk (the
// client's watcher); each folder reconciles its index in the background.
// Reports are coalesced per folder until the client has been quiet for
// workspace.DefaultDebounce (at most maxChangeBatch after the first): a
// branch switch the client reports in several notifications is one
// update of the index, not one per notification.
func (b *Session) FilesChanged(paths []string) {
	byFolder := map[*folder][]string{}
	for _, p := range paths {
		f := b.folderOf(p)
		if f == nil {
			b.log.Debug("change outside the workspace folders ignored", "path", p)
			continue
		}
		if p == f.root {
			byFolder[f] = append(byFolder[f], workspace.AllChanged)
			continue
		}
		byFolder[f] = append(byFolder[f], p)
	}
	for f, list := range byFolder {
		f.changes.add(list)
	}
}

// maxChangeBatch bounds how long FilesChanged holds reports back while the
// client keeps sending them.
const maxChangeBatch = 10 * time.Second

// changeBatch coalesces a folder's change reports until the client is
// quiet, then hands them to the folder's service in one call.
type changeBatch struct {
	f     *folder
	quiet time.Duration

	mu      sync.Mutex
	pending []string
	first   time.Time
	timer   *time.Timer
	stopped bool
}

// add queues paths and (re)starts the quiet period.
func (c *changeBatch) add(paths []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	now := time.Now()
	if len(c.pending) == 0 {
		c.first = now
	}
	c.pending = append(c.pending, paths...)
	wait := max(min(c.quiet, c.first.Add(maxChangeBatch).Sub(now)), 0)
	if c.timer == nil {
		c.timer = time.AfterFunc(wait, c.flush)
	} else {
		c.timer.Reset(wait)
	}
}

// flush hands the queued paths to the folder's current service.
func (c *changeBatch) flush() {
	c.mu.Lock()
	list := c.pending
	c.pending = nil
	stopped := c.stopped
	c.mu.Unlock()
	if stopped || len(list) == 0 {
		return
	}
	fe, release, err := c.f.engineOf()
	if err != nil {
		c.f.b.log.Debug("change ignored", "error", err)
		return
	}
	defer release()
	c.f.b.log.Debug("files changed on disk", "root", c.f.root, "paths", len(list))
	fe.svc.Changed(list)
}

// stop drops what is queued; later reports are ignored.
func (c *changeBatch) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	c.pending = nil
	if c.timer != nil {
		c.timer.Stop()
	}
}

// StartWatcher watches the folder root for changes on disk, for a client
// that cannot; the watcher follows reopened engines until stop.
func (b *Session) StartWatcher(root string) (stop func()) {
	var f *folder
	for _, g := range b.openFolders() {
		if g.root == root {
			f = g
		}
	}
	if f == nil {
		b.log.Warn("no open folder to watch", "root", root)
		return func() {}
	}
	f.watchMu.Lock()
	f.watching = true
	f.runWatchLocked()
	f.watchMu.Unlock()
	return f.stopWatching
}

// runWatchLocked starts the watcher on the current engine; f.watchMu must
// be held.
func (f *folder) runWatchLocked() {
	if f.watchStop != nil {
		f.watchStop()
		f.watchStop = nil
	}
	fe, release := f.acquire()
	defer release()
	if fe == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.watchStop = cancel
	svc := fe.svc
	go func() {
		defer f.b.recoverPanic("watching " + f.root)
		svc.Watch(ctx)
	}()
}

// restartWatch restarts the watcher after a reopen, if one was asked for.
func (f *folder) restartWatch() {
	f.watchMu.Lock()
	defer f.watchMu.Unlock()
	if f.watching {
		f.runWatchLocked()
	}
}

// stopWatching stops the folder's watcher for good.
func (f *folder) stopWatching() {
	f.watchMu.Lock()
	defer f.watchMu.Unlock()
	f.watching = false
	if f.watchStop != nil {
		f.watchStop()
		f.watchStop = nil
	}
}

// PlanPaths resolves paths (file URIs, absolute paths, or paths relative
// to a folder) to the folders (by root) and folder-relative paths they
// name, in folder order; no paths selects every folder entirely (nil
// paths). field names the argument in errors.
func (b *Session) PlanPaths(paths []string) ([]FolderPaths, error) {
	folders := b.openFolders()
	sel, rels, err := b.planFor(folders, paths)
	if err != nil {
		return nil, err
	}
	out := make([]FolderPaths, 0, len(sel))
	for _, f := range sel {
		out = append(out, FolderPaths{Root: f.root, Paths: rels[f]})
	}
	return out, nil
}

// FolderPaths are paths of one folder.
type FolderPaths struct {
	Root  string
	Paths []string
}

// badPath is the error of a path argument: the service's invalid-argument
// error, which every front end reports naming the argument.
func badPath(field, format string, args ...any) error {
	return &service.Error{Code: service.CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

func (b *Session) planFor(folders []*folder, paths []string) ([]*folder, map[*folder][]string, error) {
	rels := map[*folder][]string{}
	if len(paths) == 0 {
		for _, f := range folders {
			rels[f] = nil
		}
		return folders, rels, nil
	}
	for i, p := range paths {
		field := fmt.Sprintf("paths[%d]", i)
		if strings.TrimSpace(p) == "" {
			return nil, nil, badPath(field, "empty path")
		}
		abs := p
		if strings.Contains(p, "://") || strings.HasPrefix(p, "file:") {
			var err error
			if abs, err = workspace.URIToPath(p); err != nil {
				return nil, nil, badPath(field, "%v", err)
			}
		}
		var candidates []string
		if filepath.IsAbs(abs) {
			candidates = []string{abs}
		} else {
			for _, f := range folders {
				candidates = append(candidates, f.abs(abs))
			}
		}
		found := false
		for _, c := range candidates {
			f := b.folderOf(c)
			if f == nil || !containsFolder(folders, f) {
				continue
			}
			fe, release, err := f.engineOf()
			if err != nil {
				return nil, nil, err
			}
			rel, err := fe.eng.Workspace().Resolve(c)
			if err == nil && !filepath.IsAbs(abs) && !fileExists(c) {
				// A relative path names a folder's file only if it exists
				// there or is indexed there.
				snap := fe.eng.Snapshot()
				under, lerr := snap.IndexedFiles(rel)
				snap.Release()
				if lerr != nil || len(under) == 0 {
					release()
					continue
				}
			}
			release()
			if err != nil {
				return nil, nil, badPath(field, "%v", err)
			}
			rels[f] = append(rels[f], rel)
			found = true
		}
		if !found {
			return nil, nil, badPath(field, "%q is outside every workspace folder (or not found in any)", p)
		}
	}
	var out []*folder
	for _, f := range folders {
		if _, ok := rels[f]; ok {
			out = append(out, f)
		}
	}
	return out, rels, nil
}

func containsFolder(list []*folder, f *folder) bool {
	for _, g := range list {
		if g == f {
			return true
		}
	}
	return false
}
