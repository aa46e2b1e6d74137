package store

import (
	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"
)

// noPreallocFS is a file system whose files ignore preallocation. Pebble
// preallocates every write-ahead log to 110 % of a memtable (35 MiB here)
// and keeps up to five logs for reuse: an index of one MiB held over
// 100 MiB of disk, which on a nearly full disk is what fills it. Without
// preallocation a log takes the space of what it holds.
type noPreallocFS struct{ vfs.FS }

func (fs noPreallocFS) Create(name string) (vfs.File, error) {
	return noPrealloc(fs.FS.Create(name))
}

func (fs noPreallocFS) ReuseForWrite(oldname, newname string) (vfs.File, error) {
	return noPrealloc(fs.FS.ReuseForWrite(oldname, newname))
}

func (fs noPreallocFS) OpenReadWrite(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	return noPrealloc(fs.FS.OpenReadWrite(name, opts...))
}

func noPrealloc(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return noPreallocFile{f}, nil
}

type noPreallocFile struct{ vfs.File }

// Preallocate does nothing.
func (noPreallocFile) Preallocate(offset, length int64) error { return nil }

// deleteCleaner deletes obsolete files and, unlike Pebble's default, keeps
// no write-ahead log for reuse: Pebble holds up to
// MemTableStopWritesThreshold+1 obsolete logs (32 MiB each here) for
// recycling, which were 175 MB of a 310 MB index of the Go standard
// library. Pebble recycles nothing when its cleaner "needs the contents" of
// what it cleans, a mark only its ArchiveCleaner carries (through an
// unexported method); it is embedded one level deeper than the Cleaner
// that does the work, so Clean is DeleteCleaner's and the mark is the
// archive cleaner's.
type deleteCleaner struct {
	pebble.Cleaner
	recyclesNothing
}

type recyclesNothing struct{ pebble.ArchiveCleaner }

func newDeleteCleaner() deleteCleaner { return deleteCleaner{Cleaner: pebble.DeleteCleaner{}} }

func (deleteCleaner) String() string { return "delete" }
