// Package store keeps the index in Pebble: files, definitions, chunks, graph
// edges and cached embeddings, under the key schema below. It is the source of
// truth of the index; the bleve text index and the in-memory vector index are
// derived from it.
//
// Key schema (SchemaVersion 10). Paths are slash-separated and relative to the
// workspace root; they never contain NUL, which separates key parts.
//
//	m/<name>                          metadata (schema version, root, counters)
//	f/<path>                          FileRecord (binary: record.go)
//	h/<path>                          the same record without its chunk list: what a scan of every file reads
//	k/<path>                          the names and callees of the file's n/ and r/ keys (record.go)
//	o/<path>                          empty: the file's record holds an editor buffer (FileRecord.Overlay)
//	s/<path>\x00<ord:4>               symbols.Symbol (binary: codec.go), ord = index in the file
//	n/<lower(name)>\x00<path>\x00<ord:4>   name index → the chunk id holding the symbol (8 bytes)
//	c/<chunk id:8>                    ChunkRecord without ID, Text and Summary (codec.go; what ranking reads)
//	x/<chunk id:8>                    Text and Summary (codec.go; what results show)
//	g/<path>                          graph edges of the file (opaque bytes owned by graph)
//	r/<lower(callee)>\x00<path>\x00<ord:4> reverse call index (opaque bytes)
//	l/<seq:8>                         change log: path changed at seq (for derived indexes)
//	v/<model>\x00<recipe:16>          embedding cache: vector for a chunk recipe
//	u/<path>                          a file read and found in no indexed language: its size and mtime then (unindexed.go)
//	p/<ord:8>                         a pin: JSON {path, startLine, endLine}, in the order pinned (pins.go; kept by a wipe)
//
// Every file update is one Pebble batch (Writer.PutFile / Writer.DeleteFile):
// a reader holding a Snapshot sees all of a file's keys or none of them.
package store

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/symbols"
)

// SchemaVersion changes whenever the key schema or a record's encoding
// changes incompatibly. Opening an index written with another version wipes
// it: the caller re-indexes from scratch.
const SchemaVersion = 10

// Sentinel errors.
var (
	// ErrNotFound is returned when a key does not exist.
	ErrNotFound = errors.New("not found")
	// ErrLocked is returned when another process holds the index open.
	ErrLocked = errors.New("index is locked by another process")
	// ErrClosed is returned by operations on a closed DB.
	ErrClosed = errors.New("index is closed")
)

// FileRecord describes one indexed file version.
type FileRecord struct {
	Path     string `json:"path"`
	Language string `json:"lang"`
	Size     int64  `json:"size"`
	ModTime  int64  `json:"mtime"` // unix nanoseconds
	// Hash is the hex SHA-256 of the content, truncated to 128 bits.
	Hash string `json:"hash"`
	// Overlay is set when the content came from an editor buffer, not disk.
	Overlay bool `json:"overlay,omitempty"`
	// Seq is the change-log sequence number of this version.
	Seq       uint64    `json:"seq"`
	IndexedAt int64     `json:"indexedAt"` // unix nanoseconds
	Lines     int       `json:"lines"`
	Symbols   int       `json:"symbols"`
	Chunks    []ChunkID `json:"chunks"`
	// Note records a non-fatal problem, e.g. "no grammar" or "parse error".
	Note string `json:"note,omitempty"`
	// Indexer identifies the code that derived the file's data (chunker and
	// extractor versions); a file indexed by another version is re-indexed.
	Indexer string `json:"indexer,omitempty"`
}

// ChunkID identifies a chunk by its file and content: see NewChunkID.
type ChunkID uint64

// String renders the id as 16 hex digits (the bleve document id).
func (id ChunkID) String() string { return fmt.Sprintf("%016x", uint64(id)) }

// ParseChunkID parses the String form.
func ParseChunkID(s string) (ChunkID, error) {
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("chunk id %q: %w", s, err)
	}
	return ChunkID(v), nil
}

// ChunkRecord is a stored chunk.
type ChunkRecord struct {
	ID ChunkID `json:"id"`
	chunking.Chunk
	// Recipe is the hash of (chunker version, text): with the model id it keys
	// the embedding cache, so equal text is embedded once.
	Recipe Recipe `json:"recipe"`
	// Summary holds the signatures and doc comments of the definitions the
	// chunk covers: the plain-language description of the code.
	Summary string `json:"summary,omitempty"`
}

// Recipe is the 128-bit hash of what an embedding depends on besides the model.
type Recipe [16]byte

// FileData is everything indexed for one file version; it is written in one batch.
type FileData struct {
	File    FileRecord
	Symbols []symbols.Symbol
	// SymbolChunks[i] is the chunk holding Symbols[i] (0 if none).
	SymbolChunks []ChunkID
	Chunks       []ChunkRecord
	// Graph is the file's encoded graph edges (owned by package graph).
	Graph []byte
	// Reverse holds reverse-index entries: lower-cased callee name → value.
	// Keys are written as r/<name>\x00<path>\x00<ord>; ord is the entry's
	// position in this slice.
	Reverse []ReverseEntry
}

// ReverseEntry is one entry of the reverse call index.
type ReverseEntry struct {
	Callee string // lower-cased callee name
	Value  []byte // opaque, owned by package graph
}

// Options configure Open.
type Options struct {
	// FS overrides the filesystem (vfs.NewMem() in tests).
	FS vfs.FS
	// ReadOnly opens without write access.
	ReadOnly bool
	// Logger receives Pebble's log lines; nil discards them.
	Logger pebble.Logger
	// MinFree is the free space (bytes) the disk must keep for a write to
	// be admitted; 0 means DefaultMinFree, a negative value disables the
	// check. Below it writes fail with a *DiskFullError (ErrDiskFull).
	MinFree int64
	// FreeSpace reports the bytes available on the disk holding a
	// directory; nil means DiskFree on the default file system (no check
	// with another FS).
	FreeSpace func(dir string) (int64, error)

	// LegacyPins names the file pins were kept in before the store kept
	// them (pins.json in the index directory): a writable Open adds its
	// pins and removes it (pins.go).
	LegacyPins string

	// lock is Pebble's directory lock when Open already holds it.
	lock *pebble.Lock
	// memTable overrides the memtable size (tests: compactions with
	// little data).
	memTable uint64
}

// DB is an open index.
type DB struct {
	db  *pebble.DB
	dir string
	mu  sync.Mutex // serialises writers so Seq allocation and batches stay ordered
	seq uint64
	// Rebuilt reports that the index was wiped at open (schema mismatch).
	Rebuilt bool

	// The disk-space guard (space.go): free reports the free bytes,
	// minFree is what a write needs (0: no check).
	free    spaceFunc
	minFree int64
	// readOnly is set when the disk was too full to open the index for
	// writing: it is readable, every write fails with this error.
	readOnly error
	// failed is set when Pebble panicked inside a write (a full disk the
	// guard did not foresee, another process filling it first): Pebble
	// then holds its internal locks forever, so nothing may call into its
	// write, snapshot or close paths again. Reads of existing snapshots
	// still work.
	failed atomic.Pointer[error]
	// bgErr is the error of Pebble's failing background flush or
	// compaction (it retries them forever), nil once one succeeds.
	bgErr atomic.Pointer[error]
	// settling raises Pebble's compaction concurrency (Settle).
	settling atomic.Bool
	// corrupt is the first read that met corrupt data (verify.go).
	corrupt atomic.Pointer[error]
	// onDisk is false for an in-memory FS (tests).
	onDisk bool
	// DamagedReason is set when Open found the directory marked damaged
	// and started it empty (the caller re-indexes): why it was marked.
	DamagedReason string
	// kept holds what the current versions of editor buffers wrote
	// (kept.go); under mu.
	kept map[string]*keptFile
	// legacyPins is Options.LegacyPins; pinsErr is set while the pins of
	// a pin file could not be taken into the store, and says why (pins.go).
	legacyPins string
	pinsErr    atomic.Pointer[error]
	// savingPins serialises the saves of a damaged store's pins; marked is
	// set once MarkDamaged has marked the directory.
	savingPins sync.Mutex
	marked     atomic.Bool
}

// Open opens (or creates) the index in dir. An index of another schema
// version is deleted and recreated, and DB.Rebuilt is set.
//
// On a disk without the free space writes need (Options.MinFree), a new
// index is refused with a *DiskFullError, and an existing one is opened
// read-only when even opening it for writing could run out of space
// (ReadOnlyReason says why): it answers queries, writes fail.
func Open(dir string, opts Options) (*DB, error) {
	fs := opts.FS
	db := &DB{dir: dir, onDisk: fs == nil, legacyPins: opts.LegacyPins}
	db.free, db.minFree = spaceGuard(opts)
	if fs == nil {
		fs = noPreallocFS{vfs.Default}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			if isNoSpace(err) {
				return nil, db.noSpace(0, err)
			}
			return nil, fmt.Errorf("create index dir: %w", err)
		}
	}
	if !opts.ReadOnly && db.minFree > 0 {
		if free, err := db.free(dir); err == nil {
			exists := hasManifest(fs, dir)
			switch {
			case !exists && free < db.minFree:
				return nil, &DiskFullError{Dir: dir, Mount: mountPoint(dir), Free: free, Need: db.minFree}
			case exists && free < openReserve+walBytes(dir):
				opts.ReadOnly = true
				db.readOnly = &DiskFullError{Dir: dir, Mount: mountPoint(dir), Free: free, Need: db.minFree}
			}
		}
	}
	if !opts.ReadOnly {
		lock, reason, err := clearDamaged(fs, dir)
		if err != nil {
			return nil, err
		}
		if lock != nil {
			defer lock.Close() // Pebble holds its own reference once open
			opts.lock, db.DamagedReason, db.Rebuilt = lock, reason, true
		}
	}
	d, err := db.openPebble(fs, opts)
	if err != nil {
		if unopenable(err) && !opts.ReadOnly && db.onDisk && db.DamagedReason == "" {
			// A malformed MANIFEST, a table cut short or gone: nothing can
			// be read, so it starts over (clearDamaged) instead of failing
			// every command until the directory is deleted by hand.
			if merr := db.MarkDamaged(oneLine(err)); merr != nil {
				return nil, merr
			}
			return Open(dir, opts)
		}
		if unopenable(err) {
			err = fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		return nil, err
	}
	db.db = d
	v, err := db.getMeta("schema")
	if pebble.IsCorruptionError(err) && !opts.ReadOnly && db.onDisk && db.DamagedReason == "" {
		// Unreadable from the first key: start it over (clearDamaged).
		db.closePebble()
		if merr := db.MarkDamaged(err.Error()); merr != nil {
			return nil, merr
		}
		return Open(dir, opts)
	}
	switch {
	case errors.Is(err, ErrNotFound):
		if !db.isEmpty() {
			// Data without a schema version: not ours or from before versioning.
			if err := db.wipe(opts); err != nil {
				db.closePebble()
				return nil, err
			}
		}
		if err := db.putMeta("schema", strconv.Itoa(SchemaVersion)); err != nil {
			db.closePebble()
			return nil, err
		}
	case err != nil:
		db.closePebble()
		return nil, err
	case v != strconv.Itoa(SchemaVersion):
		if opts.ReadOnly {
			db.closePebble()
			return nil, fmt.Errorf("index schema version %s, want %d: re-index with a writable process", v, SchemaVersion)
		}
		if err := db.wipe(opts); err != nil {
			db.closePebble()
			return nil, err
		}
		if err := db.putMeta("schema", strconv.Itoa(SchemaVersion)); err != nil {
			db.closePebble()
			return nil, err
		}
	}
	if s, err := db.getMeta("seq"); err == nil {
		db.seq, _ = strconv.ParseUint(s, 10, 64)
	}
	// Pins of a pin file that cannot be taken in now wait (pins.go):
	// the index opens all the same.
	db.mu.Lock()
	db.importPins()
	db.mu.Unlock()
	return db, nil
}

// spaceGuard returns the free-space function and the minimum free space
// for opts (minFree 0: no check).
func spaceGuard(opts Options) (spaceFunc, int64) {
	free := opts.FreeSpace
	if free == nil {
		if opts.FS != nil && opts.FS != vfs.Default {
			return nil, 0 // an in-memory FS has no disk to fill
		}
		free = DiskFree
	}
	switch {
	case opts.MinFree < 0 || opts.ReadOnly:
		return free, 0
	case opts.MinFree == 0:
		return free, DefaultMinFree
	}
	return free, opts.MinFree
}

// hasManifest reports whether dir holds a Pebble database.
func hasManifest(fs vfs.FS, dir string) bool {
	names, err := fs.List(dir)
	if err != nil {
		return false
	}
	for _, n := range names {
		if strings.HasPrefix(n, "MANIFEST-") {
			return true
		}
	}
	return false
}

// pebbleLevels is the number of levels of Pebble's LSM (L0–L6).
const pebbleLevels = 7

// zstdBlockBytes is the data block size of the zstd-compressed levels.
const zstdBlockBytes = 32 << 10

// memTableBytes is the size of one Pebble memtable.
const memTableBytes = 32 << 20

// blockCacheBytes caps Pebble's block cache (filled only as blocks are
// read). Queries read chunk and symbol records at random: the default 8 MB
// missed on most of them, and 64 MB still missed on the Go stdlib once the
// bottom levels were zstd-compressed (a miss decompresses a block again):
// search CPU 46 → 21 ms a query with 256 MB (bench search, same index).
// One cache serves every store of the process (a language server with
// several workspace folders holds one index each), so the cap is the
// process's, not a folder's.
const blockCacheBytes = 256 << 20

// blockCache is the process's block cache, made on first use and kept
// (its own reference is never dropped; each DB holds one more).
var blockCache = sync.OnceValue(func() *pebble.Cache { return pebble.NewCache(blockCacheBytes) })

func (db *DB) openPebble(fs vfs.FS, opts Options) (d *pebble.DB, err error) {
	po := &pebble.Options{
		Cache:                       blockCache(),
		FS:                          fs,
		ReadOnly:                    opts.ReadOnly,
		MemTableSize:                cmp.Or(opts.memTable, memTableBytes),
		MemTableStopWritesThreshold: 4,
		L0CompactionThreshold:       4,
		L0StopWritesThreshold:       24,
		Logger:                      opts.Logger,
		EventListener:               db.listener(),
		Lock:                        opts.lock,
		Cleaner:                     newDeleteCleaner(),
		MaxConcurrentCompactions:    db.compactions,
	}
	if po.Logger == nil {
		po.Logger = quietLogger{}
	}
	// The two bottom levels, which hold most of the data once it settles,
	// are compressed with zstd: the Go stdlib's store 147 → 112 MB, about
	// a quarter smaller than with snappy. The upper levels, rewritten often
	// while indexing, keep the cheaper snappy. zstd's blocks are 32 KiB
	// instead of 4: it compresses each block alone, and more context is
	// 14 % less (stdlib store 96 → 83 MB) for no search time measured —
	// a query's random reads hit the block cache once warm, and a miss
	// decompresses 32 KiB in tens of microseconds.
	po.Levels = make([]pebble.LevelOptions, pebbleLevels)
	for i := len(po.Levels) - 2; i < len(po.Levels); i++ {
		po.Levels[i].Compression = pebble.ZstdCompression
		po.Levels[i].BlockSize = zstdBlockBytes
	}
	po.EnsureDefaults()
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("open index %s: %w", db.dir, db.panicError(r))
		}
	}()
	d, err = pebble.Open(db.dir, po)
	if err != nil {
		if isLockErr(err) {
			return nil, fmt.Errorf("open index %s: %w", db.dir, ErrLocked)
		}
		if isNoSpace(err) {
			return nil, db.noSpace(0, err)
		}
		return nil, fmt.Errorf("open index %s: %w", db.dir, err)
	}
	return d, nil
}

// listener watches Pebble's background work: a flush or compaction that
// fails for lack of space is retried by Pebble at once and forever, so
// each failure is recorded (Close and Flush stop waiting for it) and slowed
// down; the next success clears it.
func (db *DB) listener() *pebble.EventListener {
	ok := func(err error) {
		if err == nil {
			db.bgErr.Store(nil)
		}
	}
	return &pebble.EventListener{
		BackgroundError: func(err error) {
			if isNoSpace(err) {
				err = db.noSpace(0, err)
				db.bgErr.Store(&err)
				time.Sleep(backgroundBackoff)
			}
		},
		FlushEnd:      func(info pebble.FlushInfo) { ok(info.Err) },
		CompactionEnd: func(info pebble.CompactionInfo) { ok(info.Err) },
	}
}

// isLockErr reports whether Open failed because another process (or this
// one) holds the directory lock: fcntl answers EAGAIN or EACCES, and pebble
// refuses a second lock from the same process with its own message.
// unopenable reports an error of pebble.Open that says its files are
// damaged: corruption (a malformed MANIFEST, a checksum), a table the
// MANIFEST lists that is missing or not of the size it recorded, or a
// MANIFEST that CURRENT names and that is not there. Pebble v1.1.5
// reports all but the first as plain errors, recognised by their text
// (TestOpenRebuildsUnopenableStore holds them to it).
func unopenable(err error) bool {
	if pebble.IsCorruptionError(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "object size mismatch") || strings.Contains(msg, "unknown to the objstorage provider") ||
		strings.Contains(msg, "could not open manifest file") && errors.Is(err, os.ErrNotExist)
}

// oneLine flattens an error for the damaged marker, which holds one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

func isLockErr(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) ||
		strings.Contains(err.Error(), "lock held by current process")
}

func (db *DB) isEmpty() bool {
	it, err := db.db.NewIter(nil)
	if err != nil {
		return false
	}
	defer it.Close()
	return !it.First()
}

// wipe deletes every key except the pins and the embedding cache: pins are
// the user's (pins.go), and vectors depend only on the model and the
// embedded text (their key says both), never on the schema, so a rebuild
// does not embed anything again. Range tombstones in one batch make it
// atomic: a crash leaves the old data or the wiped index.
func (db *DB) wipe(opts Options) (err error) {
	if opts.ReadOnly {
		return fmt.Errorf("index needs rebuilding but was opened read-only")
	}
	if err := db.room(0); err != nil {
		return err
	}
	defer db.recoverWrite(&err)
	b := db.db.NewBatch()
	plo, phi := prefixRange([]byte("p/"))
	vlo, vhi := prefixRange([]byte("v/"))
	end := []byte{0xff, 0xff, 0xff, 0xff}
	for _, r := range [][2][]byte{{{0}, plo}, {phi, vlo}, {vhi, end}} {
		if err := b.DeleteRange(r[0], r[1], nil); err != nil {
			return err
		}
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("wipe index: %w", err)
	}
	if err := db.db.Compact([]byte{0}, end, true); err != nil {
		return fmt.Errorf("compact wiped index: %w", err)
	}
	db.Rebuilt = true
	return nil
}

// Dir returns the directory the index lives in.
func (db *DB) Dir() string { return db.dir }

// Close flushes and closes the index. After a failure inside Pebble it
// returns that failure without touching Pebble (whose locks the failed
// write still holds); while Pebble's background writes are failing for
// lack of space it stops waiting for them and returns the error.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.db == nil {
		return nil
	}
	if err := db.failure(); err != nil {
		db.db = nil
		return err
	}
	d := db.db
	db.db = nil
	return db.await(func() error {
		var err error
		if !db.isReadOnly() {
			err = d.Flush()
		}
		if cerr := d.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// closePebble closes Pebble after a failed Open.
func (db *DB) closePebble() {
	if db.db != nil && db.failure() == nil {
		db.db.Close()
	}
	db.db = nil
}

// Flush makes every committed batch durable.
func (db *DB) Flush() error {
	if err := db.writable(); err != nil {
		if db.readOnly != nil && db.failure() == nil {
			return nil // nothing was written
		}
		return err
	}
	return db.await(db.db.Flush)
}

// Settle waits until Pebble's background compactions have caught up with
// what was written (no level scores a compaction, none running), two at a
// time. (Pebble's "estimated debt" is not the test: it stays above zero
// when no level is due for compaction.) A
// bulk run ends with it: otherwise the next process — often a short CLI
// command — inherits the debt, starts compacting at Open, and waits for
// the compaction in progress at Close. It returns ctx's error when ctx
// ends first, and nil at once when the store cannot be written.
func (db *DB) Settle(ctx context.Context) error {
	if err := db.writable(); err != nil {
		return nil
	}
	db.settling.Store(true)
	defer db.settling.Store(false)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		m := db.db.Metrics()
		due := false
		for _, l := range m.Levels {
			due = due || l.Score >= 1
		}
		if !due && m.Compact.NumInProgress == 0 && m.Flush.NumInProgress == 0 {
			return nil
		}
		if db.failure() != nil || db.bgErr.Load() != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// compactions is Pebble's MaxConcurrentCompactions: one while indexing
// (the parsers want the other cores), two while settling.
func (db *DB) compactions() int {
	if db.settling.Load() {
		return 2
	}
	return 1
}

// await runs fn (a Pebble call that waits for background writes) and
// returns its error, or returns early with the background error when
// Pebble's flushes or compactions keep failing for lack of space (they are
// retried forever, and fn would never return). fn then finishes on its own
// if space comes back.
func (db *DB) await(fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	tick := time.NewTicker(backgroundBackoff)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			if p := db.bgErr.Load(); p != nil {
				return *p
			}
		}
	}
}

// DiskSize returns the bytes the index occupies on disk.
func (db *DB) DiskSize() int64 {
	if db.failure() != nil {
		return DirBytes(db.dir) // Metrics would wait for Pebble's locks
	}
	m := db.db.Metrics()
	return int64(m.DiskSpaceUsage())
}

// Seq returns the last change sequence number.
func (db *DB) Seq() uint64 {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.seq
}

// Sync makes every committed batch durable (writes are committed without
// syncing; a derived index must not claim a change the store could lose
// in a crash, so its writer syncs first).
//
// Writers are not held up meanwhile; Sync must not run concurrently with
// Close.
func (db *DB) Sync() (err error) {
	db.mu.Lock()
	pdb := db.db
	db.mu.Unlock()
	if pdb == nil {
		return ErrClosed
	}
	if err := db.writable(); err != nil {
		if db.readOnly != nil && db.failure() == nil {
			return nil // nothing was written
		}
		return err
	}
	defer db.recoverWrite(&err)
	if err := pdb.LogData(nil, pebble.Sync); err != nil {
		return fmt.Errorf("sync store: %w", err)
	}
	return nil
}

// Meta returns a metadata value.
func (db *DB) Meta(name string) (string, error) { return db.getMeta(name) }

// SetMeta writes a metadata value durably.
func (db *DB) SetMeta(name, value string) error { return db.putMeta(name, value) }

func (db *DB) getMeta(name string) (string, error) {
	v, closer, err := db.db.Get(metaKey(name))
	if errors.Is(err, pebble.ErrNotFound) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read meta %s: %w", name, err)
	}
	s := string(v)
	closer.Close()
	return s, nil
}

func (db *DB) putMeta(name, value string) (err error) {
	if err := db.room(int64(len(name) + len(value))); err != nil {
		return err
	}
	defer db.recoverWrite(&err)
	if err := db.db.Set(metaKey(name), []byte(value), pebble.Sync); err != nil {
		return fmt.Errorf("write meta %s: %w", name, err)
	}
	return nil
}

// PutFile replaces everything stored for data.File.Path with data, in one
// batch. It returns the sequence number assigned to this version and the
// chunk ids of the version it replaced. An editor buffer's next version
// writes only the keys whose values changed (kept.go).
func (db *DB) PutFile(data *FileData) (seq uint64, replaced []ChunkID, err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.db == nil {
		return 0, nil, ErrClosed
	}
	if err := db.room(data.approxBytes()); err != nil {
		return 0, nil, err
	}
	defer db.recoverWrite(&err)
	b := db.db.NewBatch()
	defer b.Close()
	path := data.File.Path
	kvs := fileKVs(data)
	var kept *keptFile
	if data.File.Overlay {
		kept, replaced = db.keptVersion(path)
	}
	if kept != nil {
		err = kept.diff(b, kvs)
	} else {
		replaced, err = db.deleteFileLocked(b, path, func() map[string]bool { return rewrittenKeys(data, kvs) })
	}
	if err != nil {
		return 0, nil, err
	}
	seq, err = db.putFileLocked(b, data, kvs, kept != nil)
	if err != nil {
		return 0, nil, err
	}
	db.keep(data, seq, kvs)
	return seq, replaced, nil
}

// kv is one key and its value.
type kv struct{ key, value []byte }

// fileKVs returns what a file version writes under its own keys:
// definitions, names, chunks, graph, reverse entries and the list of
// written keys — everything but its file record and head, overlay mark and
// change-log entry.
func fileKVs(data *FileData) []kv {
	path := data.File.Path
	kvs := make([]kv, 0, 2*len(data.Symbols)+2*len(data.Chunks)+len(data.Reverse)+2)
	keys := writtenKeys{Names: make([]string, 0, len(data.Symbols)), Callees: make([]string, 0, len(data.Reverse))}
	for i, s := range data.Symbols {
		kvs = append(kvs, kv{symbolKey(path, i), encodeSymbol(&s)})
		name := lower(s.Name)
		var chunk ChunkID
		if i < len(data.SymbolChunks) {
			chunk = data.SymbolChunks[i]
		}
		kvs = append(kvs, kv{nameKey(name, path, i), binary.BigEndian.AppendUint64(nil, uint64(chunk))})
		keys.Names = append(keys.Names, name)
	}
	for i := range data.Chunks {
		c := &data.Chunks[i]
		kvs = append(kvs, kv{chunkKey(c.ID), encodeChunkMeta(c)}, kv{chunkTextKey(c.ID), encodeChunkText(c.Text, c.Summary)})
	}
	if len(data.Graph) > 0 {
		kvs = append(kvs, kv{graphKey(path), data.Graph})
	}
	for i, r := range data.Reverse {
		kvs = append(kvs, kv{reverseKey(r.Callee, path, i), r.Value})
		keys.Callees = append(keys.Callees, r.Callee)
	}
	return append(kvs, kv{writtenKey(path), encodeWrittenKeys(&keys)})
}

// putFileLocked adds data's file record, its keys and values (unless
// written already: diffed) and its change-log entry to b and commits it.
func (db *DB) putFileLocked(b *pebble.Batch, data *FileData, kvs []kv, diffed bool) (uint64, error) {
	path := data.File.Path
	db.seq++
	seq := db.seq
	rec := data.File
	rec.Seq = seq
	rec.Symbols = len(data.Symbols)
	rec.Chunks = make([]ChunkID, len(data.Chunks))
	for i := range data.Chunks {
		rec.Chunks[i] = data.Chunks[i].ID
	}
	if !diffed {
		for _, x := range kvs {
			if err := b.Set(x.key, x.value, nil); err != nil {
				return 0, err
			}
		}
	}
	if err := setFileRecord(b, &rec); err != nil {
		return 0, err
	}
	if rec.Overlay {
		if err := b.Set(overlayKey(path), nil, nil); err != nil {
			return 0, err
		}
	}
	if err := db.logChangeLocked(b, seq, path); err != nil {
		return 0, err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		db.seq--
		return 0, fmt.Errorf("commit %s: %w", path, err)
	}
	return seq, nil
}

// TouchFile updates the size and modification time of an unchanged file
// without touching its derived data (content hash equal, mtime changed).
func (db *DB) TouchFile(path string, size, mtime int64) (err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.db == nil {
		return ErrClosed
	}
	if err := db.room(int64(len(path))); err != nil {
		return err
	}
	defer db.recoverWrite(&err)
	rec, err := db.getFile(path)
	if err != nil {
		return err
	}
	wasOverlay := rec.Overlay
	rec.Size, rec.ModTime, rec.Overlay = size, mtime, false
	b := db.db.NewBatch()
	defer b.Close()
	if err := setFileRecord(b, &rec); err != nil {
		return err
	}
	if wasOverlay {
		if err := b.Delete(overlayKey(path), nil); err != nil {
			return err
		}
	}
	return b.Commit(pebble.NoSync)
}

// DeleteFile removes everything stored for path in one batch and returns the
// change's sequence number and the removed chunk ids. Deleting a path that is
// not indexed is not an error (and changes nothing).
func (db *DB) DeleteFile(path string) (seq uint64, removed []ChunkID, err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.db == nil {
		return 0, nil, ErrClosed
	}
	if _, err := db.getFile(path); errors.Is(err, ErrNotFound) {
		return db.seq, nil, nil
	}
	if err := db.room(int64(len(path))); err != nil {
		return 0, nil, err
	}
	defer db.recoverWrite(&err)
	b := db.db.NewBatch()
	defer b.Close()
	removed, err = db.deleteFileLocked(b, path, nil)
	if err != nil {
		return 0, nil, err
	}
	db.forget(path)
	db.seq++
	if err := db.logChangeLocked(b, db.seq, path); err != nil {
		return 0, nil, err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		db.seq--
		return 0, nil, fmt.Errorf("delete %s: %w", path, err)
	}
	return db.seq, removed, nil
}

func (db *DB) logChangeLocked(b *pebble.Batch, seq uint64, path string) error {
	if err := b.Set(logKey(seq), []byte(path), nil); err != nil {
		return err
	}
	return b.Set(metaKey("seq"), []byte(strconv.FormatUint(seq, 10)), nil)
}

// deleteFileLocked adds deletions of every key of path's current version to
// b, but for those rewritten returns (the batch sets them again; rewritten
// may be nil, and is called only when there is a version: a cold index
// makes no set per file), and returns that version's chunk ids.
func (db *DB) deleteFileLocked(b *pebble.Batch, path string, rewritten func() map[string]bool) ([]ChunkID, error) {
	old, err := db.getFile(path)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	keys, err := db.getWritten(path)
	if err != nil {
		return nil, err
	}
	var again map[string]bool
	if rewritten != nil {
		again = rewritten()
	}
	if err := deleteKeys(b, path, old, keys, again); err != nil {
		return nil, err
	}
	return old.Chunks, nil
}

// rewrittenKeys are the keys a new version of a file sets in the batch that
// replaces the old one: the old version's keys among them need no
// deletion first (a re-indexed file keeps most of its keys).
func rewrittenKeys(data *FileData, kvs []kv) map[string]bool {
	set := keySet(kvs, 3)
	path := data.File.Path
	set[string(fileKey(path))], set[string(headKey(path))] = true, true
	if data.File.Overlay {
		set[string(overlayKey(path))] = true
	}
	return set
}

// keySet is the set of the keys of kvs, with room for extra more.
func keySet(kvs []kv, extra int) map[string]bool {
	set := make(map[string]bool, len(kvs)+extra)
	for _, x := range kvs {
		set[string(x.key)] = true
	}
	return set
}

// deleteKeys adds point deletions of every key a file version wrote,
// except those in rewritten (set again in the same batch; may be nil).
func deleteKeys(b *pebble.Batch, path string, old FileRecord, keys writtenKeys, rewritten map[string]bool) error {
	del := func(k []byte) error {
		if rewritten[string(k)] {
			return nil
		}
		return b.Delete(k, nil)
	}
	for i := 0; i < old.Symbols; i++ {
		if err := del(symbolKey(path, i)); err != nil {
			return err
		}
	}
	for i, name := range keys.Names {
		if err := del(nameKey(name, path, i)); err != nil {
			return err
		}
	}
	for i, callee := range keys.Callees {
		if err := del(reverseKey(callee, path, i)); err != nil {
			return err
		}
	}
	for _, id := range old.Chunks {
		if err := del(chunkKey(id)); err != nil {
			return err
		}
		if err := del(chunkTextKey(id)); err != nil {
			return err
		}
	}
	if err := del(graphKey(path)); err != nil {
		return err
	}
	if old.Overlay {
		if err := del(overlayKey(path)); err != nil {
			return err
		}
	}
	if err := del(writtenKey(path)); err != nil {
		return err
	}
	if err := del(headKey(path)); err != nil {
		return err
	}
	return del(fileKey(path))
}

// setFileRecord adds rec and its head (rec without the chunk list, which
// is most of a record: 16 of 25 MB of the Linux kernel's) to b.
func setFileRecord(b *pebble.Batch, rec *FileRecord) error {
	if err := b.Set(fileKey(rec.Path), encodeFileRecord(rec), nil); err != nil {
		return err
	}
	return b.Set(headKey(rec.Path), encodeFileHead(rec), nil)
}

// TrimLog deletes change-log entries at or below seq (derived indexes have
// applied them).
func (db *DB) TrimLog(seq uint64) (err error) {
	if err := db.room(0); err != nil {
		return err
	}
	defer db.recoverWrite(&err)
	return db.db.DeleteRange(logKey(0), logKey(seq+1), pebble.NoSync)
}

// PutVector stores an embedding in the cache.
func (db *DB) PutVector(model string, recipe Recipe, v []byte) (err error) {
	if err := db.room(int64(len(v))); err != nil {
		return err
	}
	defer db.recoverWrite(&err)
	return db.db.Set(vectorKey(model, recipe), v, pebble.NoSync)
}

// PutVectors stores several embeddings in one batch.
func (db *DB) PutVectors(model string, recipes []Recipe, vs [][]byte) (err error) {
	var n int64
	for _, v := range vs {
		n += int64(len(v)) + 40
	}
	if err := db.room(n); err != nil {
		return err
	}
	defer db.recoverWrite(&err)
	b := db.db.NewBatch()
	defer b.Close()
	for i := range recipes {
		if err := b.Set(vectorKey(model, recipes[i]), vs[i], nil); err != nil {
			return err
		}
	}
	return b.Commit(pebble.NoSync)
}

// Snapshot returns a consistent point-in-time view. Release it when done.
// After a failure inside Pebble (Failed) the snapshot reads nothing: every
// read returns the failure (taking a new one would wait for the locks the
// failed write holds); keep reading older snapshots instead.
func (db *DB) Snapshot() *Snapshot {
	if err := db.failure(); err != nil {
		return &Snapshot{db: db, err: err}
	}
	return &Snapshot{db: db, s: db.db.NewSnapshot()}
}

// Failed returns the error Pebble failed with inside a write (the store
// is then read-only through snapshots taken before), or nil.
func (db *DB) Failed() error { return db.failure() }

// approxBytes estimates the bytes a file version adds to the store.
func (d *FileData) approxBytes() int64 {
	n := int64(len(d.Graph)) + 512
	for i := range d.Chunks {
		n += int64(len(d.Chunks[i].Text)+len(d.Chunks[i].Summary)) + 256
	}
	for _, r := range d.Reverse {
		n += int64(len(r.Value)+len(r.Callee)) + 32
	}
	return n + int64(len(d.Symbols))*256
}

func getFile(r pebble.Reader, path string) (FileRecord, error) {
	var rec FileRecord
	err := readKey(r, fileKey(path), func(b []byte) error {
		_, err := decodeFileRecord(b, &rec, false)
		return err
	})
	return rec, err
}

// getWritten reads the written keys of path's version from the live DB
// (writers, under mu). Its file record exists (the caller read it), so a
// missing key means one was lost.
func (db *DB) getWritten(path string) (writtenKeys, error) {
	keys, err := getWritten(db.db, path)
	if errors.Is(err, ErrNotFound) {
		return keys, db.noteDamage(fmt.Errorf("%q is missing", writtenKey(path)))
	}
	return keys, db.noteRead(err)
}

// getWritten reads and decodes path's k/ key (ErrNotFound when absent).
func getWritten(r pebble.Reader, path string) (writtenKeys, error) {
	var keys writtenKeys
	err := readKey(r, writtenKey(path), func(b []byte) (err error) {
		keys, err = decodeWrittenKeys(b)
		return err
	})
	return keys, err
}

// readKey reads key from r and decodes its value with decode, which must
// not keep the bytes (ErrNotFound when the key is absent).
func readKey(r pebble.Reader, key []byte, decode func([]byte) error) error {
	b, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("read %q: %w", key, err)
	}
	defer closer.Close()
	if err := decode(b); err != nil {
		return fmt.Errorf("decode %q: %w", key, err)
	}
	return nil
}

// getFile reads a file record from the live DB (writers, under mu).
func (db *DB) getFile(path string) (FileRecord, error) {
	rec, err := getFile(db.db, path)
	return rec, db.noteRead(err)
}

// Key construction.

func metaKey(name string) []byte    { return append([]byte("m/"), name...) }
func fileKey(path string) []byte    { return append([]byte("f/"), path...) }
func overlayKey(path string) []byte { return append([]byte("o/"), path...) }
func writtenKey(path string) []byte { return append([]byte("k/"), path...) }
func headKey(path string) []byte    { return append([]byte("h/"), path...) }
func graphKey(path string) []byte {
	return append([]byte("g/"), path...)
}

func symbolPrefix(path string) []byte {
	k := append([]byte("s/"), path...)
	return append(k, 0)
}

func symbolKey(path string, ord int) []byte {
	return binary.BigEndian.AppendUint32(symbolPrefix(path), uint32(ord))
}

func nameFilePrefix(name, path string) []byte {
	k := append([]byte("n/"), name...)
	k = append(k, 0)
	k = append(k, path...)
	return append(k, 0)
}

func nameKey(name, path string, ord int) []byte {
	return binary.BigEndian.AppendUint32(nameFilePrefix(name, path), uint32(ord))
}

func reverseFilePrefix(name, path string) []byte {
	k := append([]byte("r/"), name...)
	k = append(k, 0)
	k = append(k, path...)
	return append(k, 0)
}

func reverseKey(name, path string, ord int) []byte {
	return binary.BigEndian.AppendUint32(reverseFilePrefix(name, path), uint32(ord))
}

func chunkKey(id ChunkID) []byte {
	return binary.BigEndian.AppendUint64([]byte("c/"), uint64(id))
}

func chunkTextKey(id ChunkID) []byte {
	return binary.BigEndian.AppendUint64([]byte("x/"), uint64(id))
}

// chunkText is the x/ record: the parts of a chunk only results need.
func logKey(seq uint64) []byte { return binary.BigEndian.AppendUint64([]byte("l/"), seq) }

func vectorKey(model string, r Recipe) []byte {
	k := append([]byte("v/"), model...)
	k = append(k, 0)
	return append(k, r[:]...)
}

// prefixRange returns [prefix, prefix+1) for iteration and range deletion.
func prefixRange(prefix []byte) (lo, hi []byte) {
	lo = append([]byte(nil), prefix...)
	hi = append([]byte(nil), prefix...)
	for i := len(hi) - 1; i >= 0; i-- {
		if hi[i] < 0xff {
			hi[i]++
			return lo, hi[:i+1]
		}
	}
	return lo, nil
}

func lower(s string) string { return strings.ToLower(s) }

type quietLogger struct{}

func (quietLogger) Infof(string, ...interface{}) {}

// Fatalf panics with the error it formats: Pebble calls it when a write it
// cannot undo failed (its MANIFEST, a commit). In a caller's goroutine the
// store recovers the panic into an error (recoverWrite).
func (quietLogger) Fatalf(format string, args ...interface{}) {
	panic(fmt.Errorf(format, args...))
}

// DefaultDir returns the default index location for a workspace root: the
// user cache directory, keyed by the root's path.
func DefaultDir(root string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache dir (use --db): %w", err)
	}
	return filepath.Join(base, "context-ls", "index", dirKey(root)), nil
}

// IndexDir is the index directory of a workspace root under base: one
// directory per workspace, named after the root and a hash of its
// canonical path, so one base (--db, the dbPath setting) serves every
// workspace and every process on a workspace finds the same index. A
// relative base is relative to the root; an empty base means DefaultDir.
func IndexDir(base, root string) (string, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("workspace %q: %w", root, err)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if base == "" {
		return DefaultDir(root)
	}
	if !filepath.IsAbs(base) {
		base = filepath.Join(root, base)
	}
	return filepath.Join(base, dirKey(root)), nil
}
