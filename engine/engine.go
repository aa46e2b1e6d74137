// Package engine is the domain API of context-ls: one Engine per workspace
// folder owns the index (store, text index, vectors), keeps it fresh from
// disk scans and editor overlays, and answers queries on immutable
// snapshots. The service layer (package service) answers every operation
// with it; it speaks plain Go structs (workspace-relative paths, line
// ranges), no protocol types.
//
// Its files, by job:
//
//   - the engine and its snapshots: engine.go, accessors.go; pins, kept in
//     the store: pins.go;
//   - indexing: indexer.go (a scan: walk, parse, chunk, one store batch per
//     file), update.go (editor buffers and refreshes of changed files),
//     textindex.go (the text index's writer and its replay of the change
//     log), embed.go (the embeddings queue), jobs.go (reindex), verify.go,
//     health.go (storage state), stats.go, files.go;
//   - ranking: search.go (Search, its symbol and vector legs, MMR),
//     locate.go with locate_names.go and locate_paths.go (files ranked by
//     the evidence a query holds, leg by leg), definitions.go (a hit is a
//     definition), priors.go, neighbours.go, similarity.go, glob.go;
//   - lookups: symbols.go (definitions, hover's resolution), graph.go
//     (callers, callees, tests), names.go (workspace symbols), lookup.go
//     (indexed files and their content).
//
// Context packs and related context are gathered from a Snapshot's queries
// by package engine/packing. Indexing stays in this package: a write
// updates what the queries hold under the same locks — the name table
// (names.go), the snapshot's staleness, the similarity calibration, the
// embeddings queue —, so a package of its own would have to export most
// of the engine's state to the package it serves.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/internal/logcap"
	_ "github.com/context-ls/context-ls/lang/all" // every language kept in its own package
	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/workspace"
)

// Options configure an Engine.
type Options struct {
	// DBDir is the index directory; empty means store.DefaultDir(root).
	DBDir string
	// Config is the workspace configuration (workspace.LoadConfig).
	Config workspace.Config
	// Workers is the number of parsing goroutines; 0 means GOMAXPROCS.
	Workers int
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// OnStorage, if set, hears when index writes stop (a full disk, a
	// failed store: the health says which and why) and when they resume
	// (StorageOK), once per episode. It must not block.
	OnStorage func(StorageHealth)

	// store holds the store's options (tests set its free-space hooks).
	store store.Options
}

// Engine indexes and queries one workspace folder.
type Engine struct {
	ws     *workspace.Workspace
	cfg    workspace.Config
	db     *store.DB
	text   *search.Index
	tw     *textWriter
	dbDir  string
	log    *slog.Logger
	worker int

	// simCal holds MMR's calibrated similarity thresholds (similarity.go).
	simCal simCalibration

	// writeMu serialises index writers (bulk indexing batches, overlay updates).
	writeMu sync.Mutex
	// refreshMu makes refreshes from disk one at a time (Refresh).
	refreshMu sync.Mutex
	// nameTab: the distinct definition names workspace symbol queries
	// score (names.go); writes add to it under writeMu.
	nameTab nameTable
	// overlays holds the paths whose content comes from an editor buffer;
	// disk indexing skips them.
	overlayMu sync.Mutex
	overlays  map[string]bool

	parserMu  sync.Mutex
	updParser *symbols.Parser
	// parsed holds the latest parse and graph of each editor buffer
	// (under parserMu): the next version of the buffer re-parses from it.
	parsed map[string]*bufferParse

	snapMu sync.Mutex
	cur    *Snapshot
	dirty  atomic.Bool
	gen    atomic.Uint64

	stats statsState
	// damaged is why the index was found damaged when this engine opened it
	// and started over (empty when it was not); rebuilding is set until an
	// index run has completed since (Verify reports the damage meanwhile).
	damaged    string
	rebuilding atomic.Bool
	// storageNoted is set while writes fail for lack of space (or a
	// failed store) and the condition has been reported (health.go).
	storageNoted atomic.Bool
	onStorage    func(StorageHealth)

	closeOnce sync.Once
	closeErr  error

	// emb owns embeddings; bulkIndexing is set while Index writes files.
	emb          *embedder
	bulkIndexing atomic.Bool

	// scan lets one Index or Reindex run at a time, whoever calls (two
	// would parse the same files twice, and one could delete a file the
	// other just wrote); a semaphore, so waiting ends with the context.
	scan chan struct{}
}

// LockScan waits (until ctx ends) for the scan semaphore that Index and
// Reindex take, for work that must not run beside a scan; unlock releases
// it.
func (e *Engine) LockScan(ctx context.Context) (unlock func(), err error) { return e.lockScan(ctx) }

// lockScan waits for the scan semaphore until ctx ends.
func (e *Engine) lockScan(ctx context.Context) (unlock func(), err error) {
	select {
	case e.scan <- struct{}{}:
		return func() { <-e.scan }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Open opens (or creates) the index of the workspace at root and brings the
// text index up to date with the store (replaying what a crash left out).
// It does not scan the workspace: call Index for that.
func Open(ctx context.Context, root string, opts Options) (*Engine, error) {
	dbDir, _, err := ResolveDir(root, opts)
	if err != nil {
		return nil, err
	}
	// The walk never enters the index (a --db inside the workspace).
	opts.Config.DBPath = dbDir
	ws, err := workspace.Open(root, opts.Config)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// Logged values (paths, errors quoting content) stay short, one line.
	log = slog.New(logcap.Handler(log.Handler()))
	opts.store.LegacyPins = filepath.Join(dbDir, legacyPinsFile)
	db, err := store.Open(filepath.Join(dbDir, "pebble"), opts.store)
	if err != nil {
		return nil, err
	}
	if err := checkRoot(db, ws.Root()); err != nil {
		db.Close()
		return nil, err
	}
	if db.DamagedReason != "" {
		// The store was found damaged (by a read or by Verify) and starts
		// empty: the text index goes with it; Index re-indexes.
		log.Info("index was damaged; rebuilding it", "dir", dbDir, "reason", db.DamagedReason)
		if err := search.MarkDamaged(filepath.Join(dbDir, "bleve"), db.DamagedReason); err != nil {
			db.Close()
			return nil, err
		}
	}
	text, rebuilt, err := search.Open(filepath.Join(dbDir, "bleve"))
	if err != nil {
		db.Close()
		return nil, err
	}
	if wm, err := text.Watermark(); err == nil && wm > db.Seq() {
		// The text index holds changes the store lost in a crash (before
		// its writer synced the store first): it cannot be repaired from
		// the change log, so it is rebuilt from the store.
		log.Warn("text index ahead of the store; rebuilding it", "watermark", wm, "seq", db.Seq())
		if text, err = text.Reset(); err != nil {
			db.Close()
			return nil, err
		}
		rebuilt = true
	}
	e := &Engine{ws: ws, cfg: opts.Config, db: db, text: text, dbDir: dbDir, log: log, overlays: map[string]bool{}, scan: make(chan struct{}, 1)}
	e.onStorage = opts.OnStorage
	e.worker = opts.Workers
	if e.worker <= 0 {
		e.worker = runtime.GOMAXPROCS(0)
	}
	e.stats.init()
	if db.DamagedReason != "" {
		e.stats.note("index was damaged (%s): rebuilt", logcap.String(db.DamagedReason))
		e.damaged = db.DamagedReason
		e.rebuilding.Store(true)
	}
	e.tw = e.newTextWriter()
	if err := e.syncText(ctx, rebuilt || db.Rebuilt); err != nil {
		if !errors.Is(err, ErrDiskFull) {
			e.Close()
			return nil, err
		}
		// The disk is full: the index answers from what it holds (the
		// text index may lag the store); the next write after space is
		// freed catches the text index up (resumeText).
		e.tw.setErr(err)
		e.noteStorage(err)
	}
	if err := e.dropStaleOverlays(ctx); err != nil {
		e.Close()
		return nil, err
	}
	e.dirty.Store(true)
	e.startEmbeddings(ctx)
	return e, nil
}

// Damaged returns why the index was found damaged when this engine
// opened it (a read had met corrupt data, Verify had found damage, or
// Pebble could not open its files) and started it over, or "": the first
// index run rebuilds it.
func (e *Engine) Damaged() string { return e.damaged }

// dropStaleOverlays reconciles with disk every file whose indexed content
// came from an editor buffer. Buffers belong to the process that had them:
// whoever opens the index (an agent's server taking over from an editor
// that died, or an editor starting again, which sends its buffers anew)
// must not answer from a buffer nobody holds any more.
func (e *Engine) dropStaleOverlays(ctx context.Context) error {
	snap := e.db.Snapshot()
	paths, err := snap.Overlays()
	snap.Release()
	if err != nil || len(paths) == 0 {
		return err
	}
	e.log.Info("dropping editor buffers left in the index by a previous process", "files", len(paths))
	return e.Refresh(ctx, paths)
}

// IndexDir is the index directory of the workspace root under base (--db,
// the dbPath setting): see store.IndexDir.
func IndexDir(base, root string) (string, error) { return store.IndexDir(base, root) }

// checkRoot refuses an index that belongs to another workspace root.
func checkRoot(db *store.DB, root string) error {
	got, err := db.Meta("root")
	if errors.Is(err, store.ErrNotFound) {
		return db.SetMeta("root", root)
	}
	if err != nil {
		return err
	}
	if got != root {
		return fmt.Errorf("index in %s belongs to workspace %s, not %s: %w", db.Dir(), got, root, ErrWrongIndex)
	}
	return nil
}

// Sentinel errors.
var (
	// ErrWrongIndex: the index directory belongs to another workspace.
	ErrWrongIndex = errors.New("index belongs to another workspace")
	// ErrNotIndexed: the requested path is not in the index.
	ErrNotIndexed = errors.New("not indexed")
	// ErrNoSymbol: no definition matches the target.
	ErrNoSymbol = errors.New("no such symbol")
	// ErrBadSelection: a selection's or a pin's line range is not in its
	// file.
	ErrBadSelection = errors.New("bad selection")
	// ErrNotPinned: Unpin of something that is not pinned.
	ErrNotPinned = errors.New("not pinned")
	// ErrDiskFull: the disk holding the index has too little free space
	// for it to grow (a *store.DiskFullError names the disk and the index
	// directory). Nothing was written; queries answer from the index as it
	// is, and writes succeed again once space is freed.
	ErrDiskFull = store.ErrDiskFull
	// ErrDamaged: a read met corrupt index data. The index is marked and
	// rebuilt when it is next opened (see Verify).
	ErrDamaged = store.ErrDamaged
	// ErrLocked: another process holds the index open (package share
	// reaches it through that process).
	ErrLocked = store.ErrLocked
)

// Root returns the canonical workspace root.
func (e *Engine) Root() string { return e.ws.Root() }

// Workspace returns the workspace (ignore rules, path resolution).
func (e *Engine) Workspace() *workspace.Workspace { return e.ws }

// DBDir returns the index directory.
func (e *Engine) DBDir() string { return e.dbDir }

// Close releases the current snapshot and closes the indexes. Closing
// twice is harmless.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() { e.closeErr = e.close() })
	return e.closeErr
}

func (e *Engine) close() error {
	e.snapMu.Lock()
	if e.cur != nil {
		e.cur.Release()
		e.cur = nil
	}
	e.snapMu.Unlock()
	if e.emb != nil {
		e.emb.stop()
	}
	flushErr := e.flushText()
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.tw.close()
	e.parserMu.Lock()
	if e.updParser != nil {
		e.updParser.Close()
		e.updParser = nil
	}
	for rel, b := range e.parsed {
		b.Close()
		delete(e.parsed, rel)
	}
	e.parserMu.Unlock()
	err := e.text.Close()
	if err == nil {
		err = flushErr
	}
	if cerr := e.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Snapshot returns the current immutable view of the index. Callers must
// Release it. Snapshots are cheap; a write makes the next call return a new
// one while earlier ones stay valid.
func (e *Engine) Snapshot() *Snapshot {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	if e.cur != nil && e.db.Failed() != nil {
		// The store failed inside a write: a new snapshot would wait for
		// the locks the failed write holds. Keep serving the last one.
		e.cur.refs.Add(1)
		return e.cur
	}
	// The flag is cleared by the first snapshot too: it holds every write
	// so far.
	if stale := e.dirty.Swap(false); e.cur == nil || stale {
		if e.cur != nil {
			e.cur.Release()
		}
		e.cur = &Snapshot{e: e, st: e.db.Snapshot(), gen: e.gen.Add(1), taken: time.Now()}
		e.cur.refs.Store(1)
	}
	e.cur.refs.Add(1)
	return e.cur
}

// changed marks the current snapshot stale after a write.
func (e *Engine) changed() { e.dirty.Store(true) }

// Snapshot is a consistent, immutable view of one workspace's index.
type Snapshot struct {
	e     *Engine
	st    *store.Snapshot
	gen   uint64
	taken time.Time
	refs  atomic.Int32
}

// Release drops the caller's reference.
func (s *Snapshot) Release() {
	if s.refs.Add(-1) == 0 {
		s.st.Release()
	}
}

// Generation increases with every new snapshot of an engine.
func (s *Snapshot) Generation() uint64 { return s.gen }

// Root returns the workspace root.
func (s *Snapshot) Root() string { return s.e.ws.Root() }

// Workspace returns the workspace (ignore rules, path resolution).
func (s *Snapshot) Workspace() *workspace.Workspace { return s.e.ws }

// Config returns the workspace configuration the engine runs with.
func (s *Snapshot) Config() workspace.Config { return s.e.cfg }

// ResolveDir returns the index directory Open uses for root (opts.DBDir,
// else the default location of the canonical root) and the canonical root.
func ResolveDir(root string, opts Options) (dbDir, canonRoot string, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", "", fmt.Errorf("workspace %q: %w", root, err)
	}
	canonRoot, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", fmt.Errorf("open workspace: %w", err)
	}
	dbDir = opts.DBDir
	if dbDir == "" {
		if dbDir, err = store.DefaultDir(canonRoot); err != nil {
			return "", "", err
		}
	}
	if dbDir, err = filepath.Abs(dbDir); err != nil {
		return "", "", err
	}
	return dbDir, canonRoot, nil
}
