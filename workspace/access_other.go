//go:build !unix

package workspace

import "os"

// listable checks that the directory dir can be opened for listing.
func listable(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	return f.Close()
}
