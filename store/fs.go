package store

import "github.com/cockroachdb/pebble/vfs"

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
