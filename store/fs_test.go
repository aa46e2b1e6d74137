package store

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"
)

// TestNoLogRecycling writes several memtables' worth through Pebble with
// the store's cleaner and with Pebble's default: only the default keeps
// obsolete write-ahead logs on disk for reuse.
func TestNoLogRecycling(t *testing.T) {
	logs := func(cleaner pebble.Cleaner) int {
		dir := t.TempDir()
		opts := &pebble.Options{MemTableSize: 1 << 20, MemTableStopWritesThreshold: 4, Cleaner: cleaner, FS: noPreallocFS{vfs.Default}}
		db, err := pebble.Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		val := []byte(strings.Repeat("x", 4096))
		for i := 0; i < 2000; i++ {
			if err := db.Set([]byte(fmt.Sprintf("k%06d", i)), val, pebble.NoSync); err != nil {
				t.Fatal(err)
			}
			if i%500 == 499 {
				if err := db.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		names, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range names {
			if strings.HasSuffix(e.Name(), ".log") {
				n++
			}
		}
		return n
	}
	if got := logs(newDeleteCleaner()); got != 1 {
		t.Errorf("store's cleaner: %d logs on disk after the flushes, want 1 (the live one)", got)
	}
	if got := logs(nil); got < 2 {
		t.Errorf("Pebble's default cleaner: %d logs on disk; this test no longer shows recycling", got)
	}
}
