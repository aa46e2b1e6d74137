// Package app is a fixture: calls from another package.
package app

import (
	"io"
	"time"

	"example.com/kv/store"
)

func run(f store.File, c io.Closer, x interface{ earliest() int }) {
	f.Close()                        // through store.File: diskFile.Close
	c.Close()                        // through io.Closer: diskFile is a store.File, memWriter is not
	time.Now().Truncate(time.Second) // a Time, not store's buffer: a guess at most
	x.earliest()                     // another package's earliest: never store's unexported one
}
