package store

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corruptTables writes n random bytes a third into every table file of a
// closed store, as a failing disk or a stray write would.
func corruptTables(t *testing.T, dir string, n int) {
	t.Helper()
	corruptTablesAt(t, dir, n, 1.0/3)
}

// corruptTablesAt writes n random bytes at fraction at of every table.
func corruptTablesAt(t *testing.T, dir string, n int, at float64) {
	t.Helper()
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(tables) == 0 {
		t.Fatal("no table files to corrupt")
	}
	rng := rand.New(rand.NewSource(1))
	for _, p := range tables {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		junk := make([]byte, n)
		rng.Read(junk)
		if _, err := f.WriteAt(junk, int64(float64(st.Size())*at)); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

// corruptTablesNear overwrites n bytes of the table that holds marker
// (stored uncompressed enough to be found) from where it is, in the block
// that holds it.
func corruptTablesNear(t *testing.T, dir string, n int, marker []byte) {
	t.Helper()
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	found := false
	for _, p := range tables {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		at := bytes.Index(b, marker)
		if at < 0 {
			continue
		}
		found = true
		junk := make([]byte, n)
		rand.New(rand.NewSource(1)).Read(junk)
		copy(b[max(at-n/2, 0):], junk)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !found {
		t.Fatalf("no table holds %q", marker)
	}
}

// filledStore writes files to a store in dir, flushed to tables, and
// closes it.
func filledStore(t *testing.T, dir string) {
	t.Helper()
	db, err := Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		p := "pkg/f" + strconv.Itoa(i) + ".go"
		if _, _, err := db.PutFile(fileData(p, []string{"A" + strconv.Itoa(i), "B" + strconv.Itoa(i)}, strings.Repeat("body ", 40))); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyFindsDamageAndOpenRebuilds(t *testing.T) {
	dir := t.TempDir()
	filledStore(t, dir)
	db, err := Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.Verify(context.Background())
	if err != nil || r.Damaged || r.Files != 300 || r.Chunks != 600 {
		t.Fatalf("verify of an intact store: %+v %v", r, err)
	}
	db.Close()

	corruptTables(t, dir, 200)
	db, err = Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	r, err = db.Verify(context.Background())
	if err != nil || !r.Damaged || len(r.Problems) == 0 || !strings.Contains(r.Problems[0], "checksum") {
		t.Fatalf("verify of a corrupt store: %+v %v", r, err)
	}
	if !errors.Is(db.Damaged(), ErrDamaged) || db.Health().State != HealthDamaged {
		t.Fatalf("damage not recorded: %v %+v", db.Damaged(), db.Health())
	}
	db.Close()

	// The next open starts the store empty and says why.
	db, err = Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.Rebuilt || !strings.Contains(db.DamagedReason, "checksum") {
		t.Fatalf("reopened damaged store: rebuilt %v, reason %q", db.Rebuilt, db.DamagedReason)
	}
	if r, err := db.Verify(context.Background()); err != nil || r.Damaged || r.Files != 0 {
		t.Fatalf("rebuilt store: %+v %v", r, err)
	}
}

// TestCorruptReadMarksForRebuild: a query that meets a corrupt block
// gets an error, and the store is rebuilt at the next open even if the
// caller ignores that error.
func TestCorruptReadMarksForRebuild(t *testing.T) {
	dir := t.TempDir()
	filledStore(t, dir)
	corruptTables(t, dir, 200)
	db, err := Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	snap := db.Snapshot()
	var readErr error
	for i := 0; i < 300 && readErr == nil; i++ {
		p := "pkg/f" + strconv.Itoa(i) + ".go"
		var rec FileRecord
		if rec, readErr = snap.File(p); readErr != nil {
			break
		}
		if _, readErr = snap.Symbols(p); readErr != nil {
			break
		}
		for _, id := range rec.Chunks {
			if _, readErr = snap.Chunk(id); readErr != nil {
				break
			}
		}
	}
	snap.Release()
	if !errors.Is(readErr, ErrDamaged) {
		t.Fatalf("reads of a corrupt store: %v, want ErrDamaged", readErr)
	}
	db.Close()
	db, err = Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.Rebuilt || db.DamagedReason == "" {
		t.Fatal("a store whose read met corruption was not rebuilt at the next open")
	}
}

// TestVerifyFindsKeysACompactionDropped: Pebble v1.1.5 compacts a table
// holding a corrupt block without an error and leaves that block's keys
// out; afterwards no checksum fails. Verify holds each file's record
// against the keys stored for it and finds the loss.
func TestVerifyFindsKeysACompactionDropped(t *testing.T) {
	dir := t.TempDir()
	filledStore(t, dir)
	// Not every damaged block is dropped silently: with this store's
	// layout one near the table's start is (found by sweeping the offset;
	// elsewhere the compaction reports the checksum).
	corruptTablesAt(t, dir, 200, 0.02)
	db, err := Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// What the engine does after every run: trim the change log (a range
	// deletion), then Pebble compacts it with the table.
	if err := db.TrimLog(db.Seq()); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.db.Compact([]byte{0}, []byte{0xff}, false); err != nil {
		t.Fatalf("compaction: %v", err)
	}
	it, _ := db.db.NewIter(nil)
	for ok := it.First(); ok; ok = it.Next() {
	}
	if err := it.Close(); err != nil {
		t.Fatalf("Pebble now reports the corruption (%v): this test no longer exercises a silent loss", err)
	}
	r, err := db.Verify(context.Background())
	if err != nil || !r.Damaged {
		t.Fatalf("verify after a compaction dropped a corrupt block's keys: %+v %v", r, err)
	}
	t.Logf("found: %s", r.Problems[0])
}

// TestOpenRebuildsWhenMetaUnreadable: when the very first read of Open
// (the schema version) meets corrupt data, the store starts over instead
// of failing every command.
func TestOpenRebuildsWhenMetaUnreadable(t *testing.T) {
	dir := t.TempDir()
	filledStore(t, dir)
	corruptTablesNear(t, dir, 200, []byte("m/schema")) // the block holding the m/ keys
	db, err := Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatalf("open of a store whose metadata is corrupt: %v", err)
	}
	defer db.Close()
	if !db.Rebuilt || !strings.Contains(db.DamagedReason, "checksum mismatch") {
		t.Fatalf("rebuilt %v, reason %q", db.Rebuilt, db.DamagedReason)
	}
}

// TestOpenRebuildsUnopenableStore: a store Pebble cannot open — a
// MANIFEST overwritten, a table cut to half or deleted, CURRENT or the
// write-ahead log garbled — is started over instead of failing every
// command until its directory is deleted by hand (issue 29, item 7);
// damage Pebble tolerates opens as it is (a MANIFEST cut at a record
// loses the tables it added last: the next index run writes their files
// again).
func TestOpenRebuildsUnopenableStore(t *testing.T) {
	for _, c := range []struct {
		name    string
		pattern string
		damage  func(path string) error
	}{
		{"MANIFEST overwritten at its start", "MANIFEST-*", func(p string) error { return overwrite(p, 0, 200) }},
		{"MANIFEST truncated to half", "MANIFEST-*", func(p string) error { return truncateHalf(p) }},
		{"table truncated to half", "*.sst", func(p string) error { return truncateHalf(p) }},
		{"table deleted", "*.sst", os.Remove},
		{"CURRENT garbled", "CURRENT", func(p string) error { return os.WriteFile(p, []byte("MANIFEST-999999\n"), 0o644) }},
		{"write-ahead log overwritten", "*.log", func(p string) error { return overwrite(p, 0, 64) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			filledStore(t, dir)
			paths, _ := filepath.Glob(filepath.Join(dir, c.pattern))
			if len(paths) == 0 {
				t.Skipf("no %s in the store", c.pattern)
			}
			if err := c.damage(paths[0]); err != nil {
				t.Fatal(err)
			}
			db, err := Open(dir, Options{MinFree: -1})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer db.Close()
			r, err := db.Verify(context.Background())
			if err != nil || r.Damaged {
				t.Fatalf("verify after open: %+v %v", r, err)
			}
			t.Logf("rebuilt %v (%s), %d files kept", db.Rebuilt, db.DamagedReason, r.Files)
		})
	}
}

func overwrite(path string, off int64, n int) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	junk := make([]byte, n)
	for i := range junk {
		junk[i] = byte(i*131 + 7)
	}
	if _, err := f.WriteAt(junk, off); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func truncateHalf(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.Truncate(path, st.Size()/2)
}
