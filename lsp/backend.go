package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

// DefaultDebounce is the quiet time after an edit before an open buffer is
// re-indexed, when BackendOptions.Debounce is zero.
const DefaultDebounce = 30 * time.Millisecond

// BackendOptions configure NewBackend.
type BackendOptions struct {
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

// Backend serves workspace folders with the engine: one engine.Engine per
// folder, indexed in the background, kept fresh from editor buffers and
// file-change events, and queried through immutable snapshots. Its
// Features plug it into Serve. A Backend serves one session.
type Backend struct {
	opts BackendOptions
	log  *slog.Logger

	mu      sync.RWMutex
	folders []*backendFolder

	jobSeq atomic.Int64
	jobs   []*reindexJob // recent jobs, oldest first
}

// NewBackend returns a backend with no folders open.
func NewBackend(opts BackendOptions) *Backend {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Backend{opts: opts, log: log}
}

// Features returns the hooks that connect the backend to Serve.
func (b *Backend) Features() Features {
	return Features{
		OpenFolder:       b.openFolder,
		CloseFolder:      b.closeFolder,
		DidOpen:          b.didOpen,
		DidChange:        b.didChange,
		DidClose:         b.didClose,
		DidSave:          b.didSave,
		FilesChanged:     b.filesChanged,
		SettingsChanged:  b.settingsChanged,
		StartWatcher:     b.startWatcher,
		Definition:       b.definition,
		Hover:            b.hover,
		DocumentSymbols:  b.documentSymbols,
		WorkspaceSymbols: b.workspaceSymbols,

		PrepareCallHierarchy: b.prepareCallHierarchy,
		IncomingCalls:        b.incomingCalls,
		OutgoingCalls:        b.outgoingCalls,
	}
}

// Backend errors, checked with errors.Is.
var (
	// ErrNotEngineFolder is returned by engine-backed commands when a
	// folder is not served by a Backend.
	ErrNotEngineFolder = errors.New("workspace folder is not served by the engine backend")
	// ErrReindexRunning is returned by contextLs.reindex while another
	// reindex runs on the same folder.
	ErrReindexRunning = errors.New("a reindex is already running")
)

// backendFolder is one open workspace folder: the FolderHandle of the
// backend.
type backendFolder struct {
	b    *Backend
	root string // absolute path, as the client named it

	// mu guards fe and settings. Queries hold the read lock while they use
	// fe, so an engine is never closed under a query; reopening takes the
	// write lock.
	mu       sync.RWMutex
	fe       *folderEngine
	settings Settings

	docs *overlayQueue

	watchMu   sync.Mutex
	watching  bool
	watchStop context.CancelFunc

	jobMu sync.Mutex
	job   *reindexJob // the running reindex, if any

	packCounters

	closed atomic.Bool
}

// folderEngine is one opened engine of a folder and the goroutines that
// use it. Settings that change the workspace rules replace it.
type folderEngine struct {
	f     *backendFolder
	eng   *engine.Engine
	cfg   workspace.Config
	dbDir string
	// dbRel is the index directory relative to the root when it lies
	// inside the workspace ("" otherwise): events there are ignored.
	dbRel string

	ctx    context.Context
	cancel context.CancelFunc
	runMu  sync.Mutex
	closed bool
	wg     sync.WaitGroup

	// indexMu lets one Index or Reindex run at a time.
	indexMu  sync.Mutex
	rescanCh chan struct{}

	refreshMu      sync.Mutex
	refreshPending map[string]bool
	refreshCh      chan struct{}

	stateMu   sync.Mutex
	bootstrap string // "running", "done", "failed: …" or "cancelled"
}

// handleOf returns the backend folder behind a handle.
func handleOf(h FolderHandle) (*backendFolder, error) {
	f, ok := h.(*backendFolder)
	if !ok || f == nil {
		return nil, ErrNotEngineFolder
	}
	if f.closed.Load() {
		return nil, fmt.Errorf("%s: closed: %w", f.root, ErrFolderUnavailable)
	}
	return f, nil
}

// acquire returns the folder's engine with the read lock held; release
// must be called.
func (f *backendFolder) acquire() (*folderEngine, func()) {
	f.mu.RLock()
	return f.fe, f.mu.RUnlock
}

// abs converts a folder-relative path to the absolute path under the
// client's root.
func (f *backendFolder) abs(rel string) string {
	return filepath.Join(f.root, filepath.FromSlash(rel))
}

// rel converts an absolute path to the engine's path relative to the
// root. Paths that leave the folder (through "..", or a symlink) are
// refused.
func (fe *folderEngine) rel(path string) (string, error) {
	rel, err := fe.eng.Workspace().Resolve(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if rel == "." {
		return "", fmt.Errorf("%s: is the workspace folder itself, not a file", path)
	}
	return rel, nil
}

// openFolder implements Features.OpenFolder: the engine is opened, the
// bootstrap index starts in the background and the call returns.
func (b *Backend) openFolder(_ context.Context, root string, s Settings, progress ProgressFunc) (FolderHandle, error) {
	s = ApplyEnv(s)
	b.setLevel(s.LogLevel)
	f := &backendFolder{b: b, root: root, settings: s}
	fe, err := b.openEngine(f, s)
	if err != nil {
		return nil, err
	}
	f.fe = fe
	f.docs = newOverlayQueue(f, b.opts.Debounce, nil)
	// Report before returning, so the progress stays open until the
	// bootstrap reaches its total.
	if progress != nil {
		progress(0, 1)
	}
	fe.start(progress)
	b.mu.Lock()
	b.folders = append(b.folders, f)
	b.mu.Unlock()
	b.log.Info("workspace folder open", "root", root, "index", fe.dbDir)
	return f, nil
}

// closeFolder implements Features.CloseFolder.
func (b *Backend) closeFolder(h FolderHandle) error {
	f, ok := h.(*backendFolder)
	if !ok || f == nil {
		return ErrNotEngineFolder
	}
	if f.closed.Swap(true) {
		return nil
	}
	b.mu.Lock()
	b.folders = slices.DeleteFunc(b.folders, func(g *backendFolder) bool { return g == f })
	b.mu.Unlock()
	f.stopWatching()
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
func (b *Backend) openFolders() []*backendFolder {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return append([]*backendFolder(nil), b.folders...)
}

// folderOf returns the open folder holding path (the deepest when folders
// nest), or nil.
func (b *Backend) folderOf(path string) *backendFolder {
	var best *backendFolder
	for _, f := range b.openFolders() {
		if within(path, f.root) && (best == nil || len(f.root) > len(best.root)) {
			best = f
		}
	}
	return best
}

func (b *Backend) setLevel(l LogLevel) {
	if b.opts.LevelVar != nil {
		b.opts.LevelVar.Set(l.slogLevel())
	}
}

// folderConfig builds a folder's configuration: .context-ls.toml, then
// the client's settings over it. Settings equal to their defaults leave
// the file's value alone; ignore patterns add to the file's.
func folderConfig(root string, s Settings) (workspace.Config, []string, error) {
	cfg, diags, err := workspace.LoadConfig(root)
	if err != nil {
		return cfg, nil, fmt.Errorf("workspace configuration of %s: %w", root, err)
	}
	var problems []string
	for _, d := range diags {
		problems = append(problems, workspace.ConfigFileName+": "+d.String())
	}
	def := DefaultSettings()
	m := map[string]any{}
	if len(s.Ignore) > 0 {
		list := make([]any, 0, len(cfg.Ignore)+len(s.Ignore))
		for _, p := range cfg.Ignore {
			list = append(list, p)
		}
		for _, p := range s.Ignore {
			list = append(list, p)
		}
		m["ignore"] = list
	}
	if s.MaxFileSize != def.MaxFileSize {
		m["maxFileSize"] = float64(s.MaxFileSize)
	}
	if s.Embeddings != def.Embeddings {
		m["embeddings"] = s.Embeddings
	}
	if s.ModelPath != "" {
		m["modelPath"] = s.ModelPath
	}
	if s.BudgetTokens != def.BudgetTokens {
		m["budgetTokens"] = float64(s.BudgetTokens)
	}
	cfg, diags = cfg.Apply(m)
	for _, d := range diags {
		problems = append(problems, "settings: "+d.String())
	}
	if !ApplyEnv(Settings{Embeddings: true}).Embeddings {
		cfg.Embeddings = false
	}
	return cfg, problems, nil
}

// dbDirFor picks a folder's index directory: under the dbPath setting
// (relative paths are relative to the folder), else under the backend's
// DBPath (serve --db), else under the dbPath of the folder's
// .context-ls.toml, else the engine's default location ("").
func (b *Backend) dbDirFor(root string, s Settings, fileDBPath string) string {
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

// openEngine opens a folder's engine for settings s.
func (b *Backend) openEngine(f *backendFolder, s Settings) (*folderEngine, error) {
	cfg, problems, err := folderConfig(f.root, s)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		b.log.Warn("configuration problem", "root", f.root, "problem", p)
	}
	dbDir := b.dbDirFor(f.root, s, cfg.DBPath)
	cfg.DBPath = dbDir
	ctx, cancel := context.WithCancel(context.Background())
	eng, err := engine.OpenShared(ctx, f.root, engine.Options{DBDir: dbDir, Config: cfg, Workers: b.opts.Workers, Logger: b.log})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("opening the index of %s: %w", f.root, err)
	}
	fe := &folderEngine{
		f: f, eng: eng, cfg: cfg, dbDir: eng.DBDir(),
		ctx: ctx, cancel: cancel,
		rescanCh:       make(chan struct{}, 1),
		refreshPending: map[string]bool{},
		refreshCh:      make(chan struct{}, 1),
		bootstrap:      "running",
	}
	if rel, err := eng.Workspace().Resolve(fe.dbDir); err == nil && rel != "." {
		fe.dbRel = rel
	}
	return fe, nil
}

// start launches the engine's background work: the bootstrap index (then
// rescans on request) and the refresh loop.
func (fe *folderEngine) start(progress ProgressFunc) {
	fe.goTracked(func(ctx context.Context) { fe.indexLoop(ctx, progress) })
	fe.goTracked(fe.refreshLoop)
}

// goTracked runs fn on a goroutine that stop waits for; it reports false
// (and runs nothing) once the engine is stopping.
func (fe *folderEngine) goTracked(fn func(ctx context.Context)) bool {
	fe.runMu.Lock()
	defer fe.runMu.Unlock()
	if fe.closed {
		return false
	}
	fe.wg.Add(1)
	go func() {
		defer fe.wg.Done()
		defer fe.f.b.recoverPanic("background work on " + fe.f.root)
		fn(fe.ctx)
	}()
	return true
}

// recoverPanic, deferred at the top of a backend goroutine, logs a panic
// with its stack instead of letting it end the server.
func (b *Backend) recoverPanic(where string) {
	if v := recover(); v != nil {
		b.log.Error("panic recovered", "in", where, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	}
}

// stop cancels the engine's work, waits for it and closes the engine.
func (fe *folderEngine) stop() error {
	fe.runMu.Lock()
	fe.closed = true
	fe.runMu.Unlock()
	fe.cancel()
	fe.wg.Wait()
	return fe.eng.Close()
}

// settingsChanged implements Features.SettingsChanged: ignore patterns,
// the size limit, the index location and the embedding settings reopen
// each folder's engine (which re-indexes what changed and reloads its
// vectors); other settings are stored.
func (b *Backend) settingsChanged(s Settings) {
	s = ApplyEnv(s)
	b.setLevel(s.LogLevel)
	for _, f := range b.openFolders() {
		f.mu.RLock()
		old := f.settings
		f.mu.RUnlock()
		if slices.Equal(old.Ignore, s.Ignore) && old.MaxFileSize == s.MaxFileSize && old.DBPath == s.DBPath &&
			old.Embeddings == s.Embeddings && old.ModelPath == s.ModelPath {
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
func (f *backendFolder) reopen(s Settings, why string) {
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
	fe, err := f.b.openEngine(f, s)
	f.settings = s
	if err != nil {
		f.mu.Unlock()
		f.b.log.Error("reopening the index", "root", f.root, "reason", why, "error", err)
		return
	}
	f.fe = fe
	fe.start(nil)
	f.mu.Unlock()
	f.b.log.Info("index reopened", "root", f.root, "reason", why, "index", fe.dbDir)
	f.docs.reapply()
	f.restartWatch()
}

// engineOf returns the folder's engine with the read lock held, or an
// error when the folder has none (closed, or a reopen failed).
func (f *backendFolder) engineOf() (*folderEngine, func(), error) {
	fe, release := f.acquire()
	if fe == nil {
		release()
		return nil, nil, fmt.Errorf("%s: no index is open: %w", f.root, ErrFolderUnavailable)
	}
	return fe, release, nil
}

// snapshotOf returns the folder's engine and a snapshot of it; done
// releases both.
func (f *backendFolder) snapshotOf() (*folderEngine, *engine.Snapshot, func(), error) {
	fe, release, err := f.engineOf()
	if err != nil {
		return nil, nil, nil, err
	}
	snap := fe.eng.Snapshot()
	return fe, snap, func() { snap.Release(); release() }, nil
}

// setBootstrap records the state of the latest full index run for stats.
func (fe *folderEngine) setBootstrap(state string) {
	fe.stateMu.Lock()
	fe.bootstrap = state
	fe.stateMu.Unlock()
}

func (fe *folderEngine) bootstrapState() string {
	fe.stateMu.Lock()
	defer fe.stateMu.Unlock()
	return fe.bootstrap
}

// ignoredEvent reports paths the backend never reacts to: the index
// directory's own files.
func (fe *folderEngine) ignoredEvent(rel string) bool {
	return fe.dbRel != "" && (rel == fe.dbRel || strings.HasPrefix(rel, fe.dbRel+"/"))
}

// readDisk reads a workspace file for identifier lookup, with the size
// limit the protocol edge maps positions in.
func (fe *folderEngine) readDisk(rel string) ([]byte, error) {
	abs, err := fe.eng.Workspace().Abs(rel)
	if err != nil {
		return nil, err
	}
	return readFileLimited(abs, DefaultMaxMessageBytes)
}

// content returns the current text of rel: the open buffer, else the file
// on disk.
func (f *backendFolder) content(fe *folderEngine, rel string) ([]byte, error) {
	if text, ok := f.docs.text(rel); ok {
		return text, nil
	}
	return fe.readDisk(rel)
}

// fileExists reports whether path exists (following symlinks).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
