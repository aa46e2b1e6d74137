//go:build !unix

package workspace

import (
	"io/fs"
	"os"
)

// lstatAt is os.Lstat where fstatat(2) does not exist.
func lstatAt(_ *os.File, abs, _ string) (fs.FileInfo, error) { return os.Lstat(abs) }
