package reliability

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// MountTmpfs mounts a tmpfs of size bytes on dir (created), so a test can
// fill a disk without touching the machine's; it needs root (or
// CAP_SYS_ADMIN) and returns ErrNoTmpfs otherwise. unmount undoes it.
func MountTmpfs(dir string, size int64) (unmount func() error, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
			return nil, fmt.Errorf("%w: mount tmpfs on %s: %v", ErrNoTmpfs, dir, err)
		}
		return nil, fmt.Errorf("mount tmpfs on %s: %w", dir, err)
	}
	return func() error { return syscall.Unmount(dir, unix.MNT_DETACH) }, nil
}

// Fill creates a file in dir that leaves about leave bytes free on its
// file system (nothing when less is free already); remove deletes it.
func Fill(dir string, leave int64) (remove func() error, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return nil, fmt.Errorf("statfs %s: %w", dir, err)
	}
	path, n := dir+"/ballast", int64(st.Bavail)*int64(st.Bsize)-leave
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if n > 0 {
		if err := unix.Fallocate(int(f.Fd()), 0, 0, n); err != nil {
			os.Remove(path)
			return nil, fmt.Errorf("fill %s: %w", dir, err)
		}
	}
	return func() error { return os.Remove(path) }, nil
}
