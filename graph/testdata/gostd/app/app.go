// Package app calls the fixture's own io and os.
package app

import (
	"io"
	"os"
)

func closeFile(f *os.File) { f.Close() }

func closeAny(c io.Closer) { c.Close() }
