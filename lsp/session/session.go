package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/share"
	"github.com/context-ls/context-ls/workspace"
)

// DefaultDebounce is the quiet time after an edit before an open buffer is
// re-indexed, when Options.Debounce is zero.
const DefaultDebounce = 30 * time.Millisecond

// Options configure New.
type Options struct {
	// Logger receives the backend's logs; nil discards them. Its level
	// follows the logLevel setting when LevelVar is set.
	Logger *slog.Logger
	// LevelVar, when set, is the level of Logger's handler: the backend
	// sets it from the logLevel setting.
	LevelVar *slog.LevelVar
	// Debounce is the quiet time after an edit before the buffer is
	// re-indexed (DefaultDebounce when zero). Edits of one file within it
	// coalesce.
	Debounce time.Duration
	// DBPath is where indexes live when the dbPath setting is empty: each
	// folder's index is a subdirectory named after the folder. Empty: the
	// engine's default per-user cache location.
	DBPath string
	// Workers is the number of parsing goroutines per folder (GOMAXPROCS
	// when zero).
	Workers int
}

// Session holds the language server's workspace: one index per workspace
// folder (opened with share.Open as an editor, so that an agent's MCP
// server, a CLI command or another editor on the same workspace shares
// it), indexed in the background while this process owns it, kept fresh
// from the editor's buffers (overlays, debounced) and from file-change
// events, and queried through the folder's index.
// The protocol edge (package lsp) calls its methods; everything is in
// absolute file paths. A Session serves one client session.
type Session struct {
	opts Options
	log  *slog.Logger

	mu        sync.RWMutex
	folders   []*folder
	onStorage func(root, state, message string)
}

// OnStorage sets fn to hear when a folder's index stops accepting writes
// (state diskFull or failed, with a one-line message naming the disk) and
// when it accepts them again (state ok), once per episode. fn must not
// block.
func (b *Session) OnStorage(fn func(root, state, message string)) {
	b.mu.Lock()
	b.onStorage = fn
	b.mu.Unlock()
}

// storageChanged passes an engine's storage episode of root on.
func (b *Session) storageChanged(root string, h engine.StorageHealth) {
	b.mu.RLock()
	fn := b.onStorage
	b.mu.RUnlock()
	if fn != nil {
		fn(root, h.State, h.Message)
	}
}

// New returns a session with no folders open.
func New(opts Options) *Session {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Session{opts: opts, log: log}
}

// Errors of the session, checked with errors.Is.
var (
	// ErrNoFolder: the path is outside every open workspace folder.
	ErrNoFolder = errors.New("file is outside the workspace folders")
	// ErrFolderUnavailable: the folder failed to open, is closed, or has
	// no index open (a reopen failed).
	ErrFolderUnavailable = errors.New("workspace folder is not available")
)

// folder is one open workspace folder.
type folder struct {
	b    *Session
	root string // absolute path, as the client named it

	// mu guards fe and settings. Queries hold the read lock while they use
	// fe, so an engine is never closed under a query; reopening takes the
	// write lock.
	mu       sync.RWMutex
	fe       *folderEngine
	settings Settings

	docs *overlayQueue
	// changes coalesces the client's reports of files changed on disk.
	changes *changeBatch

	watchMu   sync.Mutex
	watching  bool
	watchStop context.CancelFunc

	closed atomic.Bool
}

// folderEngine is one opened index of a folder (share.Open as an
// editor): while this process owns it, its engine and the service over it,
// which also serves the index to other processes (an agent's MCP server, a
// CLI command); while another editor owns it, queries go to that process
// and buffers wait until this one takes the index over (when the other
// leaves). Settings that change the workspace rules replace it.
type folderEngine struct {
	f     *folder
	ix    *share.Index
	ws    *workspace.Workspace // the folder's rules, whoever owns the index
	cfg   workspace.Config
	dbDir string

	mu  sync.Mutex
	eng *engine.Engine   // nil while another process owns the index
	svc *service.Service // nil while another process owns the index
	// progress hears the first scan this process runs (nil once taken).
	progress func(service.Progress)
}

// local returns the engine and service while this process owns the index
// (nil, nil while another does).
func (fe *folderEngine) local() (*engine.Engine, *service.Service) {
	fe.mu.Lock()
	defer fe.mu.Unlock()
	return fe.eng, fe.svc
}

// takeProgress returns the first scan's progress, once.
func (fe *folderEngine) takeProgress() func(service.Progress) {
	fe.mu.Lock()
	defer fe.mu.Unlock()
	p := fe.progress
	fe.progress = nil
	return p
}

// acquire returns the folder's engine with the read lock held; release
// must be called.
func (f *folder) acquire() (*folderEngine, func()) {
	f.mu.RLock()
	return f.fe, f.mu.RUnlock
}

// abs converts a folder-relative path to the absolute path under the
// client's root.
func (f *folder) abs(rel string) string {
	return filepath.Join(f.root, filepath.FromSlash(rel))
}

// rel converts an absolute path to the engine's path relative to the
// root. Paths that leave the folder (through "..", or a symlink) are
// refused.
func (fe *folderEngine) rel(path string) (string, error) {
	rel, err := fe.ws.Resolve(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if rel == "." {
		return "", fmt.Errorf("%s: is the workspace folder itself, not a file", path)
	}
	return rel, nil
}

// OpenFolder opens the index of the workspace folder root: the engine is
// opened, the bootstrap index starts in the background, reported to
// progress (files and bytes done of total, rate, time left, in the
// service's terms; nil for none), and the call returns.
func (b *Session) OpenFolder(_ context.Context, root string, s Settings, progress func(service.Progress)) error {
	s = ApplyEnv(s)
	b.setLevel(s.LogLevel)
	f := &folder{b: b, root: root, settings: s}
	f.docs = newOverlayQueue(f, b.opts.Debounce, nil)
	f.changes = &changeBatch{f: f, quiet: workspace.DefaultDebounce}
	// Report before opening, so the progress stays open until the
	// bootstrap reaches its total.
	if progress != nil {
		progress(service.Progress{Title: "Indexing", Total: 1, Rate: service.Rate{EtaSeconds: -1}})
	}
	fe, err := b.openEngine(f, s, progress)
	if err != nil {
		f.docs.stop()
		return err
	}
	f.fe = fe
	if st := fe.ix.Status(); st.State == "client" {
		// Another editor keeps the index: its process answers, and this
		// one takes the index over when it leaves.
		if p := fe.takeProgress(); p != nil {
			p(service.Progress{Title: "Indexing", End: true, Message: fmt.Sprintf("the index is kept by process %d (%s)", st.Owner.PID, st.Owner.Role)})
		}
	}
	b.mu.Lock()
	b.folders = append(b.folders, f)
	b.mu.Unlock()
	b.log.Info("workspace folder open", "root", root, "index", fe.dbDir)
	return nil
}

// CloseFolder closes the folder root and its index.
func (b *Session) CloseFolder(root string) error {
	f := b.folderByRoot(root)
	if f == nil || f.closed.Swap(true) {
		return nil
	}
	b.mu.Lock()
	b.folders = slices.DeleteFunc(b.folders, func(g *folder) bool { return g == f })
	b.mu.Unlock()
	f.stopWatching()
	f.changes.stop()
	f.docs.stop()
	f.mu.Lock()
	fe := f.fe
	f.fe = nil
	f.mu.Unlock()
	if fe == nil {
		return nil
	}
	if err := fe.stop(); err != nil {
		return fmt.Errorf("closing the index of %s: %w", f.root, err)
	}
	return nil
}

// openFolders returns the open folders in opening order.
func (b *Session) openFolders() []*folder {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return append([]*folder(nil), b.folders...)
}

// folderOf returns the open folder holding path (the deepest when folders
// nest), or nil.
func (b *Session) folderOf(path string) *folder {
	var best *folder
	for _, f := range b.openFolders() {
		if Within(path, f.root) && (best == nil || len(f.root) > len(best.root)) {
			best = f
		}
	}
	return best
}

// folderByRoot returns the open folder root, or nil.
func (b *Session) folderByRoot(root string) *folder {
	for _, f := range b.openFolders() {
		if f.root == root {
			return f
		}
	}
	return nil
}

// Within reports whether path is root or inside it.
func Within(path, root string) bool {
	if path == root {
		return true
	}
	if strings.HasSuffix(root, string(filepath.Separator)) {
		return strings.HasPrefix(path, root)
	}
	return strings.HasPrefix(path, root+string(filepath.Separator))
}

// Backend returns what answers the operations of the open folder root —
// its index: this process's service, or the process that owns it —, to be
// used until release is called (a reopen waits for it).
func (b *Session) Backend(root string) (svc service.Backend, release func(), err error) {
	f := b.folderByRoot(root)
	if f == nil || f.closed.Load() {
		return nil, nil, fmt.Errorf("%s: %w", root, ErrFolderUnavailable)
	}
	fe, release, err := f.engineOf()
	if err != nil {
		return nil, nil, err
	}
	return fe.ix, release, nil
}

func (b *Session) setLevel(l LogLevel) {
	if b.opts.LevelVar != nil {
		b.opts.LevelVar.Set(l.SlogLevel())
	}
}

// folderConfig builds a folder's configuration in layers: defaults, its
// .context-ls.toml, the settings the client set (ignore patterns add to
// the file's), the environment.
func folderConfig(root string, s Settings) (workspace.Config, []string, error) {
	ov := s.overrides()
	if ignore, ok := ov["ignore"]; ok {
		file, _, err := workspace.LoadConfig(root)
		if err != nil {
			return file, nil, fmt.Errorf("workspace configuration of %s: %w", root, err)
		}
		list := make([]any, 0, len(file.Ignore))
		for _, p := range file.Ignore {
			list = append(list, p)
		}
		ov["ignore"] = append(list, ignore.([]any)...)
	}
	cfg, diags, err := workspace.Layered(root, ov)
	if err != nil {
		return cfg, nil, fmt.Errorf("workspace configuration of %s: %w", root, err)
	}
	var problems []string
	for _, d := range diags {
		problems = append(problems, d.String())
	}
	return cfg, problems, nil
}

// dbDirFor picks a folder's index directory: under the dbPath setting
// (relative paths are relative to the folder), else under the backend's
// DBPath (serve --db), else under the dbPath of the folder's
// .context-ls.toml, else the engine's default location ("").
func (b *Session) dbDirFor(root string, s Settings, fileDBPath string) string {
	base := s.DBPath
	if base == "" {
		base = b.opts.DBPath
	}
	if base == "" {
		base = fileDBPath
	}
	if base == "" {
		return ""
	}
	dir, err := engine.IndexDir(base, root)
	if err != nil {
		b.log.Warn("index location: using the default", "root", root, "dbPath", base, "error", err)
		return ""
	}
	return dir
}

// openEngine opens a folder's index for settings s; progress (nil for
// none) hears the first scan this process runs.
func (b *Session) openEngine(f *folder, s Settings, progress func(service.Progress)) (*folderEngine, error) {
	cfg, problems, err := folderConfig(f.root, s)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		b.log.Warn("configuration problem", "root", f.root, "problem", p)
	}
	ws, err := workspace.Open(f.root, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening the workspace %s: %w", f.root, err)
	}
	dbDir := b.dbDirFor(f.root, s, cfg.DBPath)
	cfg.DBPath = dbDir
	fe := &folderEngine{f: f, ws: ws, cfg: cfg, progress: progress}
	fe.ix, err = share.Open(context.Background(), f.root, share.Options{
		Engine: engine.Options{DBDir: dbDir, Config: cfg, Workers: b.opts.Workers, Logger: b.log,
			OnStorage: func(h engine.StorageHealth) { b.storageChanged(f.root, h) }},
		Service: service.Options{Logger: b.log, Buffers: f.docs},
		Role:    share.RoleEditor, TakeOver: true, OnOwn: fe.own,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the index of %s: %w", f.root, err)
	}
	fe.dbDir = fe.ix.DBDir()
	return fe, nil
}

// own runs while this process owns the folder's index: it keeps the index
// fresh — the bootstrap index (reported to the first scan's progress),
// then the changes the client or the watcher report —, applies the open
// buffers and watches, until ownership ends. When the bootstrap index is
// done, and before its progress ends, the engine builds its table of
// definition names (engine.PrepareSymbols), so the first workspace/symbol
// answers as fast as the next ones.
func (fe *folderEngine) own(ctx context.Context, svc *service.Service) {
	eng := svc.Engine()
	fe.mu.Lock()
	fe.eng, fe.svc = eng, svc
	fe.mu.Unlock()
	progress := fe.takeProgress()
	opts := service.MaintainOptions{ConfigChanged: func() { fe.f.reconfigure("the workspace configuration file changed") }}
	opts.Progress = func(p service.Progress) {
		if p.End {
			if err := eng.PrepareSymbols(ctx); err != nil && ctx.Err() == nil {
				fe.f.b.log.Warn("building the table of definition names", "root", fe.f.root, "error", err)
			}
		}
		if progress != nil {
			progress(p)
		}
	}
	svc.Maintain(opts)
	// Buffers the editor opened while another process kept the index; the
	// watcher, which waits for the folder's lock (a reopen holds it while
	// it closes this index, waiting for own to return).
	fe.f.docs.reapply()
	go fe.f.restartWatch()
	<-ctx.Done()
	fe.mu.Lock()
	fe.eng, fe.svc = nil, nil
	fe.mu.Unlock()
}

// recoverPanic, deferred at the top of a backend goroutine, logs a panic
// with its stack instead of letting it end the server.
func (b *Session) recoverPanic(where string) {
	if v := recover(); v != nil {
		b.log.Error("panic recovered", "in", where, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	}
}

// stop ends the index's background work and closes it (other processes
// that shared it find the next owner).
func (fe *folderEngine) stop() error {
	return fe.ix.Close()
}

// SettingsChanged applies new settings: a change of what
// the settings override in the configuration (ignore patterns, the size
// limit, the embedding settings, the budget) or of the index location
// reopens each folder's engine (which re-indexes what changed and reloads
// its vectors); other settings are stored.
func (b *Session) SettingsChanged(s Settings) {
	s = ApplyEnv(s)
	b.setLevel(s.LogLevel)
	for _, f := range b.openFolders() {
		f.mu.RLock()
		old := f.settings
		f.mu.RUnlock()
		if reflect.DeepEqual(old.overrides(), s.overrides()) && old.DBPath == s.DBPath {
			f.mu.Lock()
			f.settings = s
			f.mu.Unlock()
			continue
		}
		f.reopen(s, "settings changed")
	}
}

// reopen replaces the folder's engine with one built for settings s: open
// buffers are re-applied and the new engine indexes in the background.
// Queries wait while the engine is swapped. On failure the folder keeps
// no engine until the next successful reopen; queries then fail.
func (f *folder) reopen(s Settings, why string) {
	if f.closed.Load() {
		return
	}
	f.mu.Lock()
	if f.closed.Load() {
		f.mu.Unlock()
		return
	}
	old := f.fe
	f.fe = nil
	if old != nil {
		if err := old.stop(); err != nil {
			f.b.log.Error("closing the index", "root", f.root, "error", err)
		}
	}
	fe, err := f.b.openEngine(f, s, nil)
	f.settings = s
	if err != nil {
		f.mu.Unlock()
		f.b.log.Error("reopening the index", "root", f.root, "reason", why, "error", err)
		return
	}
	f.fe = fe
	f.mu.Unlock()
	f.b.log.Info("index reopened", "root", f.root, "reason", why, "index", fe.dbDir)
	f.docs.reapply()
	f.restartWatch()
}

// engineOf returns the folder's engine with the read lock held, or an
// error when the folder has none (closed, or a reopen failed).
func (f *folder) engineOf() (*folderEngine, func(), error) {
	fe, release := f.acquire()
	if fe == nil {
		release()
		return nil, nil, fmt.Errorf("%s: no index is open: %w", f.root, ErrFolderUnavailable)
	}
	return fe, release, nil
}

// fileExists reports whether path exists (following symlinks).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
