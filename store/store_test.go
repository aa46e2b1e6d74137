package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/vfs"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/symbols"
)

func openMem(t *testing.T, fs vfs.FS) *DB {
	t.Helper()
	db, err := Open("idx", Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func fileData(path string, names []string, text string) *FileData {
	d := &FileData{File: FileRecord{Path: path, Language: "go", Hash: ContentHash([]byte(text))}}
	for i, n := range names {
		d.Symbols = append(d.Symbols, symbols.Symbol{Name: n, Kind: symbols.KindFunction, Parent: -1,
			Span: symbols.Span{Start: symbols.Point{Line: i}}})
		c := chunking.Chunk{Path: path, Language: "go", Kind: "function", Label: n, StartLine: i + 1, EndLine: i + 1, Text: text + n}
		d.Chunks = append(d.Chunks, ChunkRecord{ID: NewChunkID(path, c.Text).Nth(i), Chunk: c, Recipe: NewRecipe(1, c.Text)})
		d.SymbolChunks = append(d.SymbolChunks, d.Chunks[i].ID)
		d.Reverse = append(d.Reverse, ReverseEntry{Callee: lower(n) + "callee", Value: []byte(n)})
	}
	return d
}

func TestPutFileRoundTrip(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	d := fileData("a/x.go", []string{"Foo", "bar", "Foo"}, "func ")
	d.Graph = []byte("edges")
	seq, _, err := db.PutFile(d)
	if err != nil {
		t.Fatal(err)
	}
	snap := db.Snapshot()
	defer snap.Release()
	rec, err := snap.File("a/x.go")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Seq != seq || rec.Symbols != 3 || len(rec.Chunks) != 3 {
		t.Fatalf("record = %+v", rec)
	}
	if names, err := snap.DefinitionNames("a/x.go"); err != nil || !reflect.DeepEqual(names, []string{"foo", "bar", "foo"}) {
		t.Fatalf("definition names = %q, %v", names, err)
	}
	syms, err := snap.Symbols("a/x.go")
	if err != nil || len(syms) != 3 || syms[1].Name != "bar" {
		t.Fatalf("symbols = %+v, %v", syms, err)
	}
	refs, err := snap.SymbolsNamed("FOO")
	if err != nil || !reflect.DeepEqual(refs, []SymbolRef{{"a/x.go", 0, d.Chunks[0].ID}, {"a/x.go", 2, d.Chunks[2].ID}}) {
		t.Fatalf("SymbolsNamed = %+v, %v", refs, err)
	}
	c, err := snap.Chunk(rec.Chunks[1])
	if err != nil || c.Label != "bar" || c.Text != "func bar" {
		t.Fatalf("chunk = %+v, %v", c, err)
	}
	g, _ := snap.Graph("a/x.go")
	if string(g) != "edges" {
		t.Fatalf("graph = %q", g)
	}
	var got []string
	snap.Reverse("BARcallee", func(path string, v []byte) bool { got = append(got, path+":"+string(v)); return true })
	if !reflect.DeepEqual(got, []string{"a/x.go:bar"}) {
		t.Fatalf("reverse = %v", got)
	}
}

func TestReplaceAndDeleteLeaveNothingBehind(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	old := fileData("x.go", []string{"Old", "Shared"}, "v1 ")
	if _, _, err := db.PutFile(old); err != nil {
		t.Fatal(err)
	}
	before := db.Snapshot()
	defer before.Release()
	_, replaced, err := db.PutFile(fileData("x.go", []string{"New", "Shared"}, "v2 "))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(replaced, []ChunkID{old.Chunks[0].ID, old.Chunks[1].ID}) {
		t.Fatalf("replaced = %v", replaced)
	}
	snap := db.Snapshot()
	if refs, _ := snap.SymbolsNamed("old"); len(refs) != 0 {
		t.Fatalf("stale name index entry: %v", refs)
	}
	if _, err := snap.Chunk(old.Chunks[0].ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("stale chunk: %v", err)
	}
	n := 0
	snap.Reverse("oldcallee", func(string, []byte) bool { n++; return true })
	if n != 0 {
		t.Fatal("stale reverse entry")
	}
	// The earlier snapshot still sees the old version, whole.
	if refs, _ := before.SymbolsNamed("old"); len(refs) != 1 {
		t.Fatal("snapshot isolation broken")
	}
	snap.Release()

	if _, removed, err := db.DeleteFile("x.go"); err != nil || len(removed) != 2 {
		t.Fatal(err)
	}
	snap = db.Snapshot()
	defer snap.Release()
	if _, err := snap.File("x.go"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("file survived delete: %v", err)
	}
	count := 0
	snap.DistinctNames(func([]byte) bool { count++; return true })
	if count != 0 {
		t.Fatalf("%d names survived delete", count)
	}
	var changes []string
	snap.Changes(0, func(seq uint64, p string) bool { changes = append(changes, p); return true })
	if len(changes) != 3 {
		t.Fatalf("change log = %v", changes)
	}
	if err := db.TrimLog(2); err != nil {
		t.Fatal(err)
	}
	s2 := db.Snapshot()
	defer s2.Release()
	changes = nil
	s2.Changes(0, func(seq uint64, p string) bool { changes = append(changes, p); return true })
	if len(changes) != 1 {
		t.Fatalf("trimmed change log = %v", changes)
	}
}

func TestSchemaMismatchRebuilds(t *testing.T) {
	fs := vfs.NewMem()
	db := openMem(t, fs)
	if _, _, err := db.PutFile(fileData("x.go", []string{"A"}, "t")); err != nil {
		t.Fatal(err)
	}
	recipe := NewRecipe(1, "some text")
	if err := db.PutVector("model@1", recipe, []byte("vec")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPins(pinA, pinB); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMeta("schema", "0"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openMem(t, fs)
	defer db.Close()
	if !db.Rebuilt {
		t.Fatal("expected rebuild on schema mismatch")
	}
	snap := db.Snapshot()
	defer snap.Release()
	if _, err := snap.File("x.go"); !errors.Is(err, ErrNotFound) {
		t.Fatal("old data survived a schema mismatch")
	}
	if v, _ := db.Meta("schema"); v != strconv.Itoa(SchemaVersion) {
		t.Fatalf("schema = %q", v)
	}
	// The embedding cache survives: vectors do not depend on the schema.
	if v, err := snap.Vector("model@1", recipe); err != nil || string(v) != "vec" {
		t.Fatalf("embedding cache lost in rebuild: %q %v", v, err)
	}
	// So do the pins: they are the user's.
	pins, err := snap.Pins()
	wantPins(t, "pins after the rebuild", pins, err, pinA, pinB)
}

func TestSeqSurvivesReopen(t *testing.T) {
	fs := vfs.NewMem()
	db := openMem(t, fs)
	db.PutFile(fileData("a.go", nil, ""))
	db.PutFile(fileData("b.go", nil, ""))
	db.Close()
	db = openMem(t, fs)
	defer db.Close()
	if db.Seq() != 2 {
		t.Fatalf("seq = %d", db.Seq())
	}
}

func TestSecondOpenIsLocked(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
}

// TestIndexDir: one base holds one index per workspace; a workspace reached
// through a symlink, or named relative to the working directory, gets the
// same index; a relative base is relative to the workspace.
func TestIndexDir(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a", "repo"), filepath.Join(tmp, "b", "repo")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(tmp, "idx")
	dirA, err := IndexDir(base, a)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dirA) != base || !strings.HasPrefix(filepath.Base(dirA), "repo-") {
		t.Fatalf("IndexDir(%s, %s) = %s, want %s/repo-<hash>", base, a, dirA, base)
	}
	if dirB, _ := IndexDir(base, b); dirB == dirA {
		t.Fatalf("two workspaces named repo share %s", dirA)
	}
	if viaLink, _ := IndexDir(base, link); viaLink != dirA {
		t.Fatalf("through a symlink: %s, want %s", viaLink, dirA)
	}
	t.Chdir(filepath.Join(tmp, "a"))
	if rel, _ := IndexDir(base, "repo"); rel != dirA {
		t.Fatalf("relative root: %s, want %s", rel, dirA)
	}
	if inside, _ := IndexDir(".ctx", a); filepath.Dir(inside) != filepath.Join(a, ".ctx") {
		t.Fatalf("relative base: %s, want it under %s/.ctx", inside, a)
	}
	def, err := IndexDir("", a)
	if want, _ := DefaultDir(a); err != nil || def != want {
		t.Fatalf("empty base: %s %v, want %s", def, err, want)
	}
}

// TestSettle writes many memtables' worth (small memtables, so there is
// a compaction debt) and checks that Settle returns once no level is due
// for compaction, well before its deadline.
func TestSettle(t *testing.T) {
	db, err := Open(t.TempDir(), Options{memTable: 256 << 10, MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	text := strings.Repeat("func body of some length; ", 200)
	for i := 0; i < 400; i++ {
		if _, _, err := db.PutFile(fileData("d/f"+strconv.Itoa(i)+".go", []string{"A", "B", "C"}, text+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	// A last small table in L0: Pebble's "estimated debt" counts it
	// although no level is due, so a wait on that debt never ends.
	time.Sleep(100 * time.Millisecond)
	if _, _, err := db.PutFile(fileData("z.go", []string{"Z"}, "z")); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := db.Settle(ctx); err != nil {
		t.Fatalf("Settle: %v (a level still due: %v)", err, db.db.Metrics().Levels)
	}
	m := db.db.Metrics()
	for i, l := range m.Levels {
		if l.Score >= 1 {
			t.Errorf("level %d still due for compaction after Settle (score %.2f)", i, l.Score)
		}
	}
	if m.Compact.Count == 0 {
		t.Error("no compaction ran: the test wrote too little to need one")
	}
}
