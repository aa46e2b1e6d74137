package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/vfs"
)

// ErrDiskFull is returned (wrapped in a *DiskFullError) when the disk that
// holds the index has too little free space for the index to grow safely.
// Nothing was written; the index stays as it was, readable, and writes
// succeed again once space is freed.
var ErrDiskFull = errors.New("disk full")

// DiskFullError describes a refused (or failed) write for lack of space.
type DiskFullError struct {
	Dir   string // the index directory
	Mount string // the mount point of the file system holding Dir
	Free  int64  // bytes available when the write was refused
	Need  int64  // bytes that must be free for writes to proceed
	// Cause is the error of a write that failed with ENOSPC (rather than
	// being refused beforehand), if any.
	Cause error
}

func (e *DiskFullError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("disk full: writing the index in %s failed on %s: %v", e.Dir, e.Mount, e.Cause)
	}
	return fmt.Sprintf("disk full: %s has %.1f MiB free, the index in %s needs at least %.1f MiB free to grow",
		e.Mount, float64(e.Free)/(1<<20), e.Dir, float64(e.Need)/(1<<20))
}

// Is makes errors.Is(err, ErrDiskFull) true.
func (e *DiskFullError) Is(target error) bool { return target == ErrDiskFull }

// Unwrap returns the underlying write error, if any.
func (e *DiskFullError) Unwrap() error { return e.Cause }

// DefaultMinFree is the free space the disk must keep for writes to be
// admitted: Pebble may at any time flush a full memtable (32 MiB) while the
// next one fills and its write-ahead log grows, and compactions write their
// output before they delete their input; the text index merges segments the
// same way. Running out of space inside Pebble is not recoverable in
// process (its commit pipeline panics holding its locks), so writes stop
// well before.
const DefaultMinFree = 4 * memTableBytes

// openReserve is the free space a writable open needs besides the
// write-ahead logs it replays: a new log, MANIFEST and OPTIONS file.
const openReserve = 4 << 20

// spaceFunc returns the bytes available to this process on the file
// system holding dir.
type spaceFunc func(dir string) (int64, error)

// DiskFree returns the bytes available to unprivileged writers on the
// file system holding path (the nearest existing ancestor of path).
func DiskFree(path string) (int64, error) {
	path = existingAncestor(path)
	u, err := vfs.Default.GetDiskUsage(path)
	if err != nil {
		return 0, fmt.Errorf("free space of %s: %w", path, err)
	}
	return int64(u.AvailBytes), nil
}

// existingAncestor returns path or its nearest ancestor that exists.
func existingAncestor(path string) string {
	for {
		if _, err := os.Stat(path); err == nil {
			return path
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		path = parent
	}
}

// mountPoint returns the directory at which the file system holding path
// is mounted: the highest ancestor on the same device.
func mountPoint(path string) string {
	path = existingAncestor(path)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	dev, ok := deviceOf(path)
	if !ok {
		return path
	}
	for {
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		if d, ok := deviceOf(parent); !ok || d != dev {
			return path
		}
		path = parent
	}
}

// isNoSpace reports whether err (or a panic value's message) says the disk
// is full.
func isNoSpace(err error) bool {
	return err != nil && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		strings.Contains(err.Error(), "no space left on device") || strings.Contains(err.Error(), "disk quota exceeded"))
}

// walBytes sums the sizes of the write-ahead logs in a Pebble directory: a
// writable open replays them and flushes what they hold.
func walBytes(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".log") {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
	}
	return n
}

// backgroundBackoff slows Pebble's retry loop after a background write
// (flush or compaction) failed for lack of space: it retries at once and
// forever otherwise.
const backgroundBackoff = 200 * time.Millisecond

// writable returns why the index cannot be written at all (opened
// read-only for lack of space, or failed inside Pebble), or nil.
func (db *DB) writable() error {
	if err := db.failure(); err != nil {
		return err
	}
	return db.readOnly
}

// isReadOnly reports whether Pebble was opened read-only.
func (db *DB) isReadOnly() bool { return db.readOnly != nil }

// failure returns the error Pebble failed with inside a write, or nil.
func (db *DB) failure() error {
	if p := db.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// room admits a write of about n bytes: it returns a *DiskFullError
// (ErrDiskFull) when the disk would keep less than the minimum free space,
// the reason when the index cannot be written at all, else nil. An unknown
// free space admits the write.
func (db *DB) room(n int64) error {
	if err := db.writable(); err != nil {
		return err
	}
	if p := db.bgErr.Load(); p != nil {
		return *p
	}
	if db.minFree <= 0 {
		return nil
	}
	free, err := db.free(db.dir)
	if err != nil {
		return nil
	}
	if need := db.minFree + 2*n; free < need {
		return &DiskFullError{Dir: db.dir, Mount: mountPoint(db.dir), Free: free, Need: need}
	}
	return nil
}

// Room reports whether a write of about n bytes would be admitted now
// (see room): the text index, which lives beside the store on the same
// disk, asks before each batch.
func (db *DB) Room(n int64) error { return db.room(n) }

// noSpace wraps a write error that ran out of space.
func (db *DB) noSpace(need int64, cause error) error {
	e := &DiskFullError{Dir: db.dir, Mount: mountPoint(db.dir), Need: need, Cause: cause}
	if db.free != nil {
		e.Free, _ = db.free(db.dir)
	}
	return e
}

// recoverWrite turns a panic inside Pebble (it panics when a write to its
// log fails) into an error: the DB is marked failed for good, since the
// panicking write left Pebble's internal locks held. Deferred by every
// method that writes.
func (db *DB) recoverWrite(errp *error) {
	r := recover()
	if r == nil {
		return
	}
	err := db.panicError(r)
	db.failed.CompareAndSwap(nil, &err)
	*errp = err
}

// panicError converts a recovered panic value into an error: a
// *DiskFullError when the disk is full, else an error saying the index
// failed and must be reopened.
func (db *DB) panicError(r any) error {
	err, ok := r.(error)
	if !ok {
		err = fmt.Errorf("%v", r)
	}
	if isNoSpace(err) {
		return db.noSpace(db.minFree, err)
	}
	return fmt.Errorf("index store %s failed (restart to reopen it): %w", db.dir, err)
}

// Health describes whether the index can be written.
type Health struct {
	// State is "ok", "diskFull" (writes are refused until space is freed;
	// the index answers queries), "failed" (the store failed inside a
	// write and answers from its last snapshot until the process reopens
	// it) or "damaged" (a read met corrupt data: the index is rebuilt when
	// next opened).
	State string `json:"state"`
	// Message is one line naming the disk and the index directory.
	Message string `json:"message,omitempty"`
	// FreeBytes is the free space on the index's disk (-1: unknown), and
	// MinFreeBytes what writes need.
	FreeBytes    int64 `json:"freeBytes"`
	MinFreeBytes int64 `json:"minFreeBytes"`
}

// Health states.
const (
	HealthOK       = "ok"
	HealthDiskFull = "diskFull"
	HealthFailed   = "failed"
	HealthDamaged  = "damaged"
)

// Health checks the free space now and reports whether writes would be
// admitted.
func (db *DB) Health() Health {
	h := Health{State: HealthOK, FreeBytes: -1, MinFreeBytes: db.minFree}
	if db.free != nil {
		if free, err := db.free(db.dir); err == nil {
			h.FreeBytes = free
		}
	}
	switch err := db.room(0); {
	case db.Damaged() != nil:
		h.State, h.Message = HealthDamaged, db.Damaged().Error()+" (the index is rebuilt when next opened)"
	case err == nil:
	case db.failure() != nil && !errors.Is(err, ErrDiskFull):
		h.State, h.Message = HealthFailed, err.Error()
	case db.readOnly != nil:
		h.State, h.Message = HealthDiskFull, err.Error()+" (opened read-only: reopen it to index)"
	default:
		h.State, h.Message = HealthDiskFull, err.Error()
	}
	return h
}

// DirBytes sums the sizes of the regular files below dir: what an index
// (or a part of it) occupies on disk.
func DirBytes(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n
}
