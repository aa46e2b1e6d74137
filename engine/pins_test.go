package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/workspace"
)

func TestPins(t *testing.T) {
	e, root := indexedEngine(t, map[string]string{
		"ledger/ledger.go": "package ledger\n\nimport \"errors\"\n\n// ErrOverdraft is returned when a transfer would overdraw an account.\nvar ErrOverdraft = errors.New(\"ledger: overdraft\")\n",
		"config/app.env":   "LEDGER_DB=postgres://db:5432/ledger\n",
	})
	if err := e.Pin(Pin{Path: "config/app.env"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Pin(Pin{Path: filepath.Join(root, "ledger", "ledger.go"), StartLine: 5, EndLine: 6}); err != nil {
		t.Fatal(err)
	}
	if err := e.Pin(Pin{Path: "config/app.env"}); err != nil {
		t.Fatal(err) // pinning twice is a no-op
	}
	want := []Pin{{Path: "config/app.env"}, {Path: "ledger/ledger.go", StartLine: 5, EndLine: 6}}
	pins, err := e.Pins()
	if err != nil || !reflect.DeepEqual(pins, want) {
		t.Fatalf("pins %v (%v), want %v", pins, err, want)
	}
	// A new snapshot holds them; one taken before a change does not see it.
	before := e.Snapshot()
	defer before.Release()
	if err := e.Unpin(Pin{Path: "config/app.env"}); err != nil {
		t.Fatal(err)
	}
	if pins, err := before.Pins(); err != nil || !reflect.DeepEqual(pins, want) {
		t.Errorf("snapshot taken before the unpin: %v (%v), want %v", pins, err, want)
	}
	after := e.Snapshot()
	defer after.Release()
	if pins, err := after.Pins(); err != nil || !reflect.DeepEqual(pins, want[1:]) {
		t.Errorf("snapshot taken after the unpin: %v (%v), want %v", pins, err, want[1:])
	}

	// Pins persist with the index and survive a reopen.
	db := e.DBDir()
	e.Close()
	e2 := openTest(t, root, db)
	defer e2.Close()
	pins, err = e2.Pins()
	if err != nil || !reflect.DeepEqual(pins, want[1:]) {
		t.Fatalf("after reopen: %v, %v", pins, err)
	}
	if err := e2.Unpin(Pin{Path: "config/app.env"}); !errors.Is(err, ErrNotPinned) {
		t.Errorf("unpin of what is not pinned: %v, want ErrNotPinned", err)
	}
	for _, c := range []struct {
		pin  Pin
		want error
	}{
		{Pin{Path: "ledger/ledger.go", StartLine: 3}, ErrBadSelection},
		{Pin{Path: "ledger/ledger.go", StartLine: 4, EndLine: 2}, ErrBadSelection},
		{Pin{Path: "."}, ErrBadSelection},
		{Pin{Path: "../outside.go"}, workspace.ErrOutsideWorkspace},
	} {
		if err := e2.Pin(c.pin); !errors.Is(err, c.want) {
			t.Errorf("Pin(%+v): %v, want %v", c.pin, err, c.want)
		}
	}
	if pins, err := e2.Pins(); err != nil || !reflect.DeepEqual(pins, want[1:]) {
		t.Errorf("refused pins changed the list: %v (%v)", pins, err)
	}
	if err := e2.UnpinAll(); err != nil {
		t.Fatal(err)
	}
	if pins, err := e2.Pins(); err != nil || len(pins) != 0 {
		t.Errorf("after UnpinAll: %v (%v)", pins, err)
	}
}

// TestPinsJSONTakenIn: an index directory that kept its pins in pins.json
// (before they were kept in the store) has them taken into the store when
// it is opened, once; a pins.json that does not decode is left as it is,
// the index answers, and pin operations name the file.
func TestPinsJSONTakenIn(t *testing.T) {
	root := testutil.WriteTree(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	db := filepath.Join(t.TempDir(), "db")
	if err := os.MkdirAll(db, 0o755); err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(db, legacyPinsFile)
	if err := os.WriteFile(legacy, []byte(`{"version": 1, "pins": [{"path": "a.go"}, {"path": "a.go", "startLine": 3, "endLine": 3}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := openTest(t, root, db)
	want := []Pin{{Path: "a.go"}, {Path: "a.go", StartLine: 3, EndLine: 3}}
	s := e.Snapshot()
	pins, err := s.Pins()
	s.Release()
	if err != nil || !reflect.DeepEqual(pins, want) {
		t.Fatalf("pins after opening an index with a pins.json: %v (%v), want %v", pins, err, want)
	}
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pins.json left after its pins were taken in: %v", err)
	}
	e.Close()

	const bad = `{"version": 1, "pins": [`
	if err := os.WriteFile(legacy, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, root, db)
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if hits := query(t, e, "A"); len(hits) == 0 {
		t.Error("an index with a pins.json that does not decode does not answer")
	}
	if _, err := e.Pins(); err == nil || !strings.Contains(err.Error(), legacy) {
		t.Errorf("pins with a pins.json that does not decode: %v, want an error naming it", err)
	}
	if data, _ := os.ReadFile(legacy); string(data) != bad {
		t.Errorf("a pins.json that does not decode was changed: %q", data)
	}
	s = e.Snapshot()
	_, err = s.Pins()
	s.Release()
	if err == nil {
		t.Error("a snapshot's pins with a pins.json that does not decode: no error")
	}
	// Fixed, it is taken in by the next pin operation, and the next
	// snapshot holds its pins.
	if err := os.WriteFile(legacy, []byte(`{"version": 1, "pins": [{"path": "a.go"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.Pin(Pin{Path: "a.go", StartLine: 1, EndLine: 1}); err != nil {
		t.Fatal(err)
	}
	s = e.Snapshot()
	pins, err = s.Pins()
	s.Release()
	if want := []Pin{{Path: "a.go"}, {Path: "a.go", StartLine: 3, EndLine: 3}, {Path: "a.go", StartLine: 1, EndLine: 1}}; err != nil || !reflect.DeepEqual(pins, want) {
		t.Errorf("pins after the fix: %v (%v), want %v", pins, err, want)
	}
}
