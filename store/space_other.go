//go:build !unix

package store

// deviceOf is unknown here: mountPoint names the directory itself.
func deviceOf(string) (uint64, bool) { return 0, false }
