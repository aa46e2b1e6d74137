package store

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/vfs"
)

// TestKeptVersionWritesLikeAFullRewrite: a sequence of editor-buffer
// versions (definitions added, changed, removed, the graph gone and back),
// disk versions and deletions between them, leaves after every step the
// same keys and values as a store that rewrites every version in full.
func TestKeptVersionWritesLikeAFullRewrite(t *testing.T) {
	diffed, full := openMem(t, vfs.NewMem()), openMem(t, vfs.NewMem())
	defer diffed.Close()
	defer full.Close()
	steps := []keptStep{
		{names: []string{"A", "B", "C"}, text: "v1 ", overlay: true, graph: "g1"},
		{names: []string{"A", "B", "C", "D"}, text: "v1 ", overlay: true, graph: "g1"},
		{names: []string{"A", "X", "C", "D"}, text: "v2 ", overlay: true, graph: "g2"},
		{names: []string{"A", "C"}, text: "v2 ", overlay: true, graph: "g2"},
		{names: []string{"A", "C"}, text: "v2 ", overlay: true},
		{names: []string{"A", "C", "E"}, text: "v3 ", overlay: true, graph: "g3"},
		{names: []string{"A", "C", "E"}, text: "v3 ", overlay: false, graph: "g3"}, // saved: the disk version
		{names: []string{"A", "F"}, text: "v4 ", overlay: true, graph: "g4"},
		{del: true},
		{names: []string{"G"}, text: "v5 ", overlay: true},
		{names: []string{"G", "H"}, text: "v5 ", overlay: true, graph: "g5"},
	}
	for i, s := range steps {
		for _, db := range []*DB{diffed, full} {
			if db == full {
				full.mu.Lock()
				full.forget("a/x.go")
				full.mu.Unlock()
			}
			if s.del {
				if _, _, err := db.DeleteFile("a/x.go"); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if _, _, err := db.PutFile(s.data()); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := dumpDB(t, diffed), dumpDB(t, full); got != want {
			t.Fatalf("step %d: the store differs from a full rewrite:\n--- diffed\n%s--- full\n%s", i, got, want)
		}
		// Against a store that never held another version: the file's own
		// keys (not its record, which holds a sequence number, nor the
		// change log) are the same.
		fresh := openMem(t, vfs.NewMem())
		if !s.del {
			if _, _, err := fresh.PutFile(s.data()); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := fileKeys(t, full), fileKeys(t, fresh); got != want {
			t.Fatalf("step %d: the rewritten file's keys differ from a first write:\n--- rewritten\n%s--- first\n%s", i, got, want)
		}
		fresh.Close()
	}
	if len(diffed.kept) != 1 {
		t.Errorf("kept copies = %d, want the buffer's", len(diffed.kept))
	}
}

// keptStep is one write of TestKeptVersionWritesLikeAFullRewrite.
type keptStep struct {
	names   []string
	text    string
	overlay bool
	graph   string
	del     bool
}

func (s keptStep) data() *FileData {
	d := fileData("a/x.go", s.names, s.text)
	d.File.Overlay = s.overlay
	if s.graph != "" {
		d.Graph = []byte(s.graph)
	}
	return d
}

// dumpDB lists every key and value of db.
func dumpDB(t *testing.T, db *DB) string {
	t.Helper()
	it, err := db.db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var b bytes.Buffer
	for it.First(); it.Valid(); it.Next() {
		fmt.Fprintf(&b, "%q = %q\n", it.Key(), it.Value())
	}
	return b.String()
}

// fileKeys lists the keys and values of db a file version writes, but for
// its file record and head (they hold its sequence number).
func fileKeys(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.SplitAfter(dumpDB(t, db), "\n") {
		if len(line) > 3 && strings.ContainsRune("sncxgrko", rune(line[1])) && line[2] == '/' {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestKeptVersionWritesLess: the next version of a buffer that changed
// one definition writes a batch far smaller than the whole file's.
func TestKeptVersionWritesLess(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	var names []string
	for i := 0; i < 200; i++ {
		names = append(names, fmt.Sprintf("F%d", i))
	}
	sizes := []uint64{}
	for _, last := range []string{"F199", "Changed"} {
		names[len(names)-1] = last
		d := fileData("a/x.go", names, "func ")
		d.File.Overlay = true
		before := db.db.Metrics().WAL.BytesIn
		if _, _, err := db.PutFile(d); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, db.db.Metrics().WAL.BytesIn-before)
	}
	if sizes[1]*5 > sizes[0] {
		t.Errorf("WAL bytes of the first version %d, of the next %d: want the next under a fifth (its file record and name list are most of it)", sizes[0], sizes[1])
	}
}
