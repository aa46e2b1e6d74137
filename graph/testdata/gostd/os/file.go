// Package os is a fixture: a workspace type named like a standard one.
package os

// File is an open file.
type File struct{}

// Close closes the file.
func (f *File) Close() error { return nil }
