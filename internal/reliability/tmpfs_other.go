//go:build !linux

package reliability

import "fmt"

// MountTmpfs is Linux only.
func MountTmpfs(dir string, size int64) (func() error, error) {
	return nil, fmt.Errorf("%w: tmpfs mounts are Linux only", ErrNoTmpfs)
}

// Fill is Linux only.
func Fill(dir string, leave int64) (func() error, error) {
	return nil, fmt.Errorf("%w: filling a disk is Linux only", ErrNoTmpfs)
}
