//go:build unix

package workspace

import "syscall"

// listable checks that the directory dir can be listed (read and search
// permission) with one access(2) call instead of opening it.
func listable(dir string) error {
	if err := syscall.Access(dir, 0x4|0x1); err != nil { // R_OK | X_OK
		return &accessError{dir, err}
	}
	return nil
}
