package session

import (
	"context"
	"sync"
	"time"

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
	if _, svc := fe.local(); svc != nil {
		c.f.b.log.Debug("files changed on disk", "root", c.f.root, "paths", len(list))
		svc.Changed(list)
	}
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
	_, svc := fe.local()
	if svc == nil {
		return // the process that owns the index watches it
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.watchStop = cancel
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
