package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"
)

func wantPins(t *testing.T, what string, got []Pin, err error, want ...Pin) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: pins %v, want %v", what, got, want)
	}
}

var (
	pinA = Pin{Path: "a.go"}
	pinB = Pin{Path: "b/c.go", StartLine: 3, EndLine: 9}
	pinC = Pin{Path: "d.md"}
)

func TestPinsKeepTheirOrder(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	if n, err := db.AddPins(pinA, pinB, pinA); err != nil || n != 2 {
		t.Fatalf("AddPins: %d, %v; want 2 added (a pin given twice is one)", n, err)
	}
	if n, err := db.AddPins(pinB); err != nil || n != 0 {
		t.Fatalf("AddPins of a pinned range: %d, %v; want nothing added", n, err)
	}
	before := db.Snapshot()
	defer before.Release()
	if ok, err := db.RemovePin(pinA); !ok || err != nil {
		t.Fatalf("RemovePin: %v, %v", ok, err)
	}
	if ok, err := db.RemovePin(pinA); ok || err != nil {
		t.Fatalf("RemovePin of what is not pinned: %v, %v; want false", ok, err)
	}
	if _, err := db.AddPins(pinA, pinC); err != nil {
		t.Fatal(err)
	}
	got, err := db.Pins()
	wantPins(t, "after unpin and pin again", got, err, pinB, pinA, pinC)
	// A snapshot keeps the pins it was taken with.
	got, err = before.Pins()
	wantPins(t, "snapshot taken before", got, err, pinA, pinB)
	if err := db.ClearPins(); err != nil {
		t.Fatal(err)
	}
	got, err = db.Pins()
	wantPins(t, "after ClearPins", got, err)
	// Pins added after a clear go after nothing.
	if _, err := db.AddPins(pinC); err != nil {
		t.Fatal(err)
	}
	snap := db.Snapshot()
	defer snap.Release()
	got, err = snap.Pins()
	wantPins(t, "new snapshot", got, err, pinC)
	if r, err := db.Verify(context.Background()); err != nil || r.Damaged {
		t.Fatalf("verify: %+v %v", r, err)
	}
}

// TestPinsSurviveACrash: a pin change is one synced write. What a call
// returned survives a crash, and a change the crash cut short before it
// was synced is all lost, never a part of it (pins.json was written to a
// temporary file and renamed: a crash between the two left the temporary
// file behind).
func TestPinsSurviveACrash(t *testing.T) {
	fs := vfs.NewStrictMem()
	// The index directory itself is durable, as on a disk where it was
	// made long before.
	if err := fs.MkdirAll("idx", 0o755); err != nil {
		t.Fatal(err)
	}
	if root, err := fs.OpenDir(""); err != nil || root.Sync() != nil {
		t.Fatal("sync the root directory: ", err)
	}
	crash := func(db *DB) *DB {
		t.Helper()
		fs.SetIgnoreSyncs(true)
		db.Close()
		fs.ResetToSyncedState()
		fs.SetIgnoreSyncs(false)
		return openMem(t, fs)
	}
	db := openMem(t, fs)
	if _, err := db.AddPins(pinA, pinB); err != nil {
		t.Fatal(err)
	}
	db = crash(db)
	got, err := db.Pins()
	wantPins(t, "after a crash", got, err, pinA, pinB)

	// A change whose sync the crash prevents: none of it is there.
	fs.SetIgnoreSyncs(true)
	if _, err := db.AddPins(pinC, Pin{Path: "e.go"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RemovePin(pinA); err != nil {
		t.Fatal(err)
	}
	db = crash(db)
	defer db.Close()
	got, err = db.Pins()
	wantPins(t, "after a crash before the sync", got, err, pinA, pinB)
}

func writePinFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLegacyPinsTakenIn: the pins of pins.json, where pins were kept
// before, are added once and the file removed; a crash between the two
// adds nothing twice; a file that does not decode is left as it is, and
// pin operations say why until it is fixed.
func TestLegacyPinsTakenIn(t *testing.T) {
	dir := t.TempDir()
	legacy := filepath.Join(dir, "pins.json")
	open := func() *DB {
		t.Helper()
		db, err := Open(filepath.Join(dir, "pebble"), Options{MinFree: -1, LegacyPins: legacy})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	const two = `{"version": 1, "pins": [{"path": "a.go"}, {"path": "b/c.go", "startLine": 3, "endLine": 9}]}`
	writePinFile(t, legacy, two)
	db := open()
	got, err := db.Pins()
	wantPins(t, "migrated", got, err, pinA, pinB)
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("pins.json left after its pins were taken in: %v", err)
	}
	db.Close()

	// The process died after the pins were stored, before the file was
	// removed: the file is read again, and only what is new is added.
	writePinFile(t, legacy, strings.Replace(two, `]}`, `, {"path": "d.md"}]}`, 1))
	db = open()
	got, err = db.Pins()
	wantPins(t, "migrated again", got, err, pinA, pinB, pinC)
	db.Close()

	const bad = `{"version": 1, "pins": [{"path": "x.go"`
	writePinFile(t, legacy, bad)
	db = open()
	defer db.Close()
	for name, op := range map[string]func() error{
		"Pins":      func() error { _, err := db.Pins(); return err },
		"AddPins":   func() error { _, err := db.AddPins(pinC); return err },
		"RemovePin": func() error { _, err := db.RemovePin(pinA); return err },
		"ClearPins": db.ClearPins,
		"Snapshot.Pins": func() error {
			s := db.Snapshot()
			defer s.Release()
			_, err := s.Pins()
			return err
		},
	} {
		if err := op(); err == nil || !strings.Contains(err.Error(), legacy) || !strings.Contains(err.Error(), "fix or remove") {
			t.Errorf("%s with a pins.json that does not decode: %v, want an error naming the file", name, err)
		}
	}
	if data, _ := os.ReadFile(legacy); string(data) != bad {
		t.Fatalf("a pins.json that does not decode was changed: %q", data)
	}
	// Fixed, it is taken in by TakePins.
	writePinFile(t, legacy, `{"version": 1, "pins": [{"path": "x.go"}]}`)
	if taken, err := db.TakePins(); !taken || err != nil {
		t.Fatalf("TakePins of a fixed pins.json: %v, %v", taken, err)
	}
	if taken, err := db.TakePins(); taken || err != nil {
		t.Fatalf("TakePins with nothing waiting: %v, %v", taken, err)
	}
	got, err = db.Pins()
	wantPins(t, "after the fix", got, err, pinA, pinB, pinC, Pin{Path: "x.go"})
	s := db.Snapshot()
	defer s.Release()
	got, err = s.Pins()
	wantPins(t, "snapshot after the fix", got, err, pinA, pinB, pinC, Pin{Path: "x.go"})
}

// TestPinsOutliveADamagedStore: a store marked damaged starts over empty
// at the next open, and takes back the pins it held (a pin record that
// does not decode is damage Verify reports, and is left out).
func TestPinsOutliveADamagedStore(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.PutFile(fileData("x.go", []string{"A"}, "t")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPins(pinA, pinB); err != nil {
		t.Fatal(err)
	}
	if err := db.db.Set(pinKey(7), []byte("{"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	r, err := db.Verify(context.Background())
	if err != nil || !r.Damaged || !strings.Contains(strings.Join(r.Problems, "\n"), "pin 7") {
		t.Fatalf("verify of a store with a pin that does not decode: %+v %v", r, err)
	}
	// Pinned and unpinned after the damage was found: saved too.
	if _, err := db.AddPins(pinC, Pin{Path: "e.go"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RemovePin(Pin{Path: "e.go"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	if db.DamagedReason == "" {
		t.Fatal("the damaged store was not started over")
	}
	snap := db.Snapshot()
	defer snap.Release()
	if _, err := snap.File("x.go"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the damaged store's files survived: %v", err)
	}
	got, err := db.Pins()
	wantPins(t, "after the rebuild", got, err, pinA, pinB, pinC)
	if _, err := os.Stat(filepath.Join(dir, savedPinsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("saved pins left after they were taken back: %v", err)
	}

	// Every pin removed after the damage was found: none comes back.
	if err := db.MarkDamaged("test"); err != nil {
		t.Fatal(err)
	}
	if err := db.ClearPins(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(dir, Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	got, err = db.Pins()
	wantPins(t, "cleared before the rebuild", got, err)
}
