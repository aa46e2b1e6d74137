//go:build unix

package store

import (
	"os"
	"syscall"
)

// deviceOf returns the device number of the file system holding path.
func deviceOf(path string) (uint64, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}
