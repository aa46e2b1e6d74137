package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/testutil"

	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/workspace"
)

func openTest(t *testing.T, root, db string) *Engine {
	t.Helper()
	e, err := Open(context.Background(), root, Options{DBDir: db, Config: workspace.DefaultConfig(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// indexedEngine indexes files in a new workspace; the caller closes the
// engine.
func indexedEngine(t *testing.T, files map[string]string) (*Engine, string) {
	t.Helper()
	root := testutil.WriteTree(t, files)
	e := openTest(t, root, filepath.Join(t.TempDir(), "db"))
	if _, err := e.Index(context.Background(), nil); err != nil {
		e.Close()
		t.Fatal(err)
	}
	return e, root
}

func query(t *testing.T, e *Engine, q string) []Hit {
	t.Helper()
	s := e.Snapshot()
	defer s.Release()
	res, err := s.Search(context.Background(), SearchRequest{Query: q, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	return res.Hits
}

func hitPaths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path+":"+h.Symbol)
	}
	return out
}

func TestIndexSearchAndIncrementalUpdates(t *testing.T) {
	root := testutil.WriteTree(t, testutil.Fixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	ctx := context.Background()

	res, err := e.Index(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 3 || res.Indexed != 3 {
		t.Fatalf("first index: %+v", res)
	}
	hits := query(t, e, "returns the area of the circle")
	if len(hits) == 0 || hits[0].Path != "geo/shapes.go" || hits[0].Symbol != "Circle.Area" {
		t.Fatalf("search area: %v", hitPaths(hits))
	}
	if hits[0].StartLine != 8 || hits[0].EndLine < 9 {
		t.Fatalf("Area chunk lines %d-%d, want it to start at its doc comment (8) and hold the body (9)", hits[0].StartLine, hits[0].EndLine)
	}
	if hits := query(t, e, "retry_upload"); len(hits) == 0 || hits[0].Symbol != "retry_upload" || !contains(hits[0].Sources, "symbol") {
		t.Fatalf("exact identifier: %+v", hits)
	}

	// Unchanged tree: nothing re-indexed.
	res, err = e.Index(ctx, nil)
	if err != nil || res.Indexed != 0 || res.Unchanged != 3 {
		t.Fatalf("re-index unchanged: %+v %v", res, err)
	}
	// Touch without changing content: hash confirms, nothing re-parsed.
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(root, "geo/shapes.go"), later, later)
	res, err = e.Index(ctx, nil)
	if err != nil || res.Indexed != 0 {
		t.Fatalf("touched file re-indexed: %+v %v", res, err)
	}
	// Change one file, delete another.
	os.WriteFile(filepath.Join(root, "geo/shapes.go"), []byte("package geo\n\n// Volume of a sphere.\nfunc Volume(r float64) float64 { return r * r * r }\n"), 0o644)
	os.Remove(filepath.Join(root, "util/retry.py"))
	res, err = e.Index(ctx, nil)
	if err != nil || res.Indexed != 1 || res.Deleted != 1 {
		t.Fatalf("incremental: %+v %v", res, err)
	}
	for _, h := range query(t, e, "circle area perimeter") {
		if strings.HasPrefix(h.Symbol, "Circle") {
			t.Fatalf("stale chunk after edit: %v", h)
		}
	}
	if hits := query(t, e, "retry upload"); len(hits) != 0 {
		t.Fatalf("deleted file still found: %v", hitPaths(hits))
	}
	if hits := query(t, e, "sphere volume"); len(hits) == 0 || hits[0].Symbol != "Volume" {
		t.Fatalf("new content not found: %v", hitPaths(hits))
	}
	s := e.Snapshot()
	st, err := s.Stats()
	s.Release()
	if err != nil || st.Files != 2 || st.Languages["go"] != 1 || st.Languages["markdown"] != 1 || st.LastIndex == "" {
		t.Fatalf("stats: %+v %v", st, err)
	}
}

func TestSnapshotIsolation(t *testing.T) {
	root := testutil.WriteTree(t, testutil.Fixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	old := e.Snapshot()
	defer old.Release()
	if err := e.UpdateOverlay(ctx, "geo/shapes.go", []byte("package geo\n\nfunc Renamed() {}\n")); err != nil {
		t.Fatal(err)
	}
	// The old snapshot still sees the whole old version; the new one the new.
	if syms, _ := old.FindSymbols("Circle.Area"); len(syms) != 1 {
		t.Fatalf("old snapshot lost Circle.Area: %v", syms)
	}
	cur := e.Snapshot()
	defer cur.Release()
	if syms, _ := cur.FindSymbols("Circle.Area"); len(syms) != 0 {
		t.Fatalf("new snapshot still has Circle.Area")
	}
	if syms, _ := cur.FindSymbols("Renamed"); len(syms) != 1 {
		t.Fatalf("new snapshot lacks Renamed")
	}
}

func TestOverlayWinsUntilClosed(t *testing.T) {
	root := testutil.WriteTree(t, testutil.Fixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateOverlay(ctx, "util/retry.py", []byte("def zanzibar_quux():\n    pass\n")); err != nil {
		t.Fatal(err)
	}
	if hits := query(t, e, "zanzibar_quux"); len(hits) == 0 || hits[0].Path != "util/retry.py" {
		t.Fatalf("overlay not searchable: %v", hitPaths(hits))
	}
	// A disk scan must not clobber the unsaved buffer.
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if hits := query(t, e, "zanzibar_quux"); len(hits) == 0 {
		t.Fatal("disk scan clobbered the overlay")
	}
	// Closing the buffer reconciles with disk.
	if err := e.ClearOverlay(ctx, "util/retry.py"); err != nil {
		t.Fatal(err)
	}
	if hits := query(t, e, "zanzibar_quux"); len(hits) != 0 {
		t.Fatalf("overlay survived close: %v", hitPaths(hits))
	}
	if hits := query(t, e, "retry_upload"); len(hits) == 0 {
		t.Fatal("disk content not restored after close")
	}
}

// TestReopenDropsBuffersOfThePreviousOwner: an editor's process dies with
// an unsaved buffer in the index; whoever opens the index next answers from
// disk at once (not after its first scan), and the overlay marker is gone.
func TestReopenDropsBuffersOfThePreviousOwner(t *testing.T) {
	root, db := testutil.WriteTree(t, testutil.Fixture), t.TempDir()
	ctx := context.Background()
	e := openTest(t, root, db)
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateOverlay(ctx, "util/retry.py", []byte("def zanzibar_quux():\n    pass\n")); err != nil {
		t.Fatal(err)
	}
	if err := e.UpdateOverlay(ctx, "geo/shapes.go", []byte("package geo\n\nfunc Unsaved() {}\n")); err != nil {
		t.Fatal(err)
	}
	snap := e.db.Snapshot()
	marked, err := snap.Overlays()
	snap.Release()
	if err != nil || len(marked) != 2 {
		t.Fatalf("overlay markers before close: %v %v", marked, err)
	}
	e.Close() // the store keeps the buffers, as after a crash

	e = openTest(t, root, db)
	defer e.Close()
	if hits := query(t, e, "zanzibar_quux"); len(hits) != 0 {
		t.Fatalf("a dead editor's buffer is still served: %v", hitPaths(hits))
	}
	cur := e.Snapshot()
	defer cur.Release()
	if syms, _ := cur.FindSymbols("Unsaved"); len(syms) != 0 {
		t.Fatalf("a dead editor's definition is still served: %v", syms)
	}
	if syms, _ := cur.FindSymbols("Circle.Area"); len(syms) != 1 {
		t.Fatalf("disk content not restored at open: %v", syms)
	}
	snap = e.db.Snapshot()
	marked, err = snap.Overlays()
	snap.Release()
	if err != nil || len(marked) != 0 {
		t.Fatalf("overlay markers after reopen: %v %v", marked, err)
	}
}

// indexedWithVersion indexes the fixture and builds (without writing it) a
// new version of util/retry.py holding content.
func indexedWithVersion(t *testing.T, content string) (e *Engine, root, db string, data *store.FileData) {
	t.Helper()
	root, db = testutil.WriteTree(t, testutil.Fixture), t.TempDir()
	e = openTest(t, root, db)
	ctx := context.Background()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	p := e.parser()
	data, err := e.build(ctx, p, "util/retry.py", []byte(content), false)
	e.releaseParser(p)
	if err != nil {
		t.Fatal(err)
	}
	return e, root, db, data
}

func TestTextIndexReplaysAfterCrash(t *testing.T) {
	// Simulate a crash between a store batch and its text batch: write a new
	// version straight to the store, bypassing the text index.
	e, root, db, data := indexedWithVersion(t, "def resumable_transfer():\n    pass\n")
	if _, _, err := e.db.PutFile(data); err != nil {
		t.Fatal(err)
	}
	e.db.Flush()
	e.text.Close()
	e.db.Close()

	e = openTest(t, root, db)
	defer e.Close()
	if hits := query(t, e, "resumable_transfer"); len(hits) == 0 {
		t.Fatal("text index did not replay the store change log")
	}
	textMatchesStore(t, e, "util/retry.py")
}

// textMatchesStore fails unless the text index holds exactly the chunks
// the store has for rel.
func textMatchesStore(t *testing.T, e *Engine, rel string) {
	t.Helper()
	docs, err := e.text.DocsOf(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	snap := e.Snapshot()
	rec, err := snap.st.File(rel)
	snap.Release()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, id := range rec.Chunks {
		want = append(want, id.String())
	}
	sort.Strings(docs)
	sort.Strings(want)
	if !reflect.DeepEqual(docs, want) {
		t.Fatalf("text index documents of %s %v, want the stored chunks %v", rel, docs, want)
	}
}

// TestTextIndexAheadOfStore: the store loses its last write in a crash
// (committed without sync) after the text index persisted it. The reopened
// engine must not trust the text index: it holds a document the store
// never kept and misses the one the store still has.
func TestTextIndexAheadOfStore(t *testing.T) {
	// The text index alone gets a version of util/retry.py the store
	// never holds, with a watermark past the store's sequence.
	e, root, db, data := indexedWithVersion(t, "def lost_in_crash():\n    pass\n")
	old, err := e.text.DocsOf(context.Background(), "util/retry.py")
	if err != nil {
		t.Fatal(err)
	}
	b := e.text.NewBatch()
	for _, id := range old {
		b.Delete(id)
	}
	for i := range data.Chunks {
		if err := b.Add(textDoc(&data.Chunks[i])); err != nil {
			t.Fatal(err)
		}
	}
	b.SetWatermark(e.db.Seq() + 1)
	if err := e.text.Apply(b); err != nil {
		t.Fatal(err)
	}
	e.Close()

	e = openTest(t, root, db)
	defer e.Close()
	textMatchesStore(t, e, "util/retry.py")
	if wm, err := e.text.Watermark(); err != nil || wm != e.db.Seq() {
		t.Fatalf("watermark %d (%v), store sequence %d", wm, err, e.db.Seq())
	}
}

func TestInterruptedIndexResumesToSameResult(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 60; i++ {
		files[filepath.ToSlash(filepath.Join("pkg", string(rune('a'+i%26)), "f"+strconv.Itoa(i)+".go"))] =
			"package p\n\n// Handler" + strconv.Itoa(i) + " serves request kind " + strconv.Itoa(i) + ".\nfunc Handler" + strconv.Itoa(i) + "() int { return " + strconv.Itoa(i) + " }\n"
	}
	root := testutil.WriteTree(t, files)
	ctx := context.Background()

	clean := openTest(t, root, t.TempDir())
	defer clean.Close()
	if _, err := clean.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}

	db := t.TempDir()
	e := openTest(t, root, db)
	cctx, cancel := context.WithCancel(ctx)
	_, err := e.Index(cctx, func(p Progress) {
		if p.Phase == "index" && p.Done == 25 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted index: %v", err)
	}
	e.Close()
	e = openTest(t, root, db)
	defer e.Close()
	res, err := e.Index(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed == 0 || res.Indexed == 60 {
		t.Fatalf("resume re-did %d files; want only the missing ones", res.Indexed)
	}
	for _, q := range []string{"request kind 7", "Handler42", "serves request"} {
		if a, b := hitPaths(query(t, clean, q)), hitPaths(query(t, e, q)); !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: resumed %v != clean %v", q, b, a)
		}
	}
}

func TestRefusesIndexOfAnotherRoot(t *testing.T) {
	db := t.TempDir()
	e := openTest(t, testutil.WriteTree(t, testutil.Fixture), db)
	e.Close()
	_, err := Open(context.Background(), testutil.WriteTree(t, testutil.Fixture), Options{DBDir: db, Config: workspace.DefaultConfig()})
	if !errors.Is(err, ErrWrongIndex) {
		t.Fatalf("err = %v, want ErrWrongIndex", err)
	}
}

func TestIdentifierAt(t *testing.T) {
	src := []byte("x := strings.TrimSpace(s) + a::b + p->q")
	cases := []struct {
		off         int
		ident, qual string
	}{
		{15, "TrimSpace", "strings"},
		{7, "strings", ""},
		{31, "b", "a"},
		{38, "q", "p"},
		{2, "", ""},
	}
	for _, c := range cases {
		id, q, _ := IdentifierAt(src, c.off)
		if id != c.ident || q != c.qual {
			t.Errorf("IdentifierAt(%d) = %q,%q want %q,%q", c.off, id, q, c.ident, c.qual)
		}
	}
}

func TestNewIndexerVersionReindexes(t *testing.T) {
	root := testutil.WriteTree(t, testutil.Fixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Pretend geo/shapes.go was indexed by an older chunker or extractor.
	p := e.parser()
	content, _ := os.ReadFile(filepath.Join(root, "geo/shapes.go"))
	data, err := e.build(ctx, p, "geo/shapes.go", content, false)
	e.releaseParser(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(root, "geo/shapes.go"))
	data.File.Size, data.File.ModTime, data.File.Indexer = fi.Size(), fi.ModTime().UnixNano(), "chunk0.extract0"
	if err := e.writeFile(context.Background(), data, false); err != nil {
		t.Fatal(err)
	}
	res, err := e.Index(ctx, nil)
	if err != nil || res.Indexed != 1 || res.Unchanged != 2 {
		t.Fatalf("after an indexer change: %+v %v", res, err)
	}
	if res, _ := e.Index(ctx, nil); res.Indexed != 0 {
		t.Fatalf("re-indexed again: %+v", res)
	}
}

func TestDefinitionUsesImportsAndTypes(t *testing.T) {
	root := testutil.WriteTree(t, map[string]string{
		"go.mod":       "module example.com/m\n",
		"a/a.go":       "package a\n\n// Close releases a.\nfunc Close() {}\n",
		"b/b.go":       "package b\n\n// Close releases b.\nfunc Close() {}\n",
		"main/main.go": "package main\n\nimport alias \"example.com/m/b\"\n\nfunc main() {\n\talias.Close()\n}\n",
	})
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	content, _ := os.ReadFile(filepath.Join(root, "main/main.go"))
	off := strings.Index(string(content), "Close()")
	s := e.Snapshot()
	defer s.Release()
	defs, err := s.Definition(ctx, "main/main.go", content, off+1)
	if err != nil || len(defs) == 0 || defs[0].Path != "b/b.go" {
		t.Fatalf("definition through an aliased import: %+v %v", defs, err)
	}
	// An unsaved buffer that differs from the index falls back to names.
	edited := append([]byte("// edited\n"), content...)
	defs, err = s.Definition(ctx, "main/main.go", edited, off+1+len("// edited\n"))
	if err != nil || len(defs) != 2 {
		t.Fatalf("name fallback: %+v %v", defs, err)
	}
}

// TestDefinitionAtItsOwnName: the identifier of a definition's own name
// is that definition, not another of the same name in the file (issue 29:
// hover on IntSlice.Sort showed the package function Sort and its
// callers; (*Writer).Size showed Reader.Size; (*Error).Error showed type
// Error), in the indexed version and in an editor buffer's alike.
func TestDefinitionAtItsOwnName(t *testing.T) {
	src := "package p\n\n// Sort sorts data.\nfunc Sort(data []int) {}\n\n// IntSlice is a sortable slice.\ntype IntSlice []int\n\n" +
		"// Sort sorts x.\nfunc (x IntSlice) Sort() { Sort(x) }\n\ntype Reader struct{}\n\nfunc (r *Reader) Size() int { return 0 }\n\n" +
		"type Writer struct{}\n\nfunc (w *Writer) Size() int { return 1 }\n\ntype Error struct{}\n\nfunc (e *Error) Error() string { return \"\" }\n"
	root := testutil.WriteTree(t, map[string]string{"go.mod": "module example.com/p\n", "p.go": src})
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	buffer := "package p\n\n// A buffer's first line.\n" + strings.TrimPrefix(src, "package p\n")
	for _, content := range []string{src, buffer} {
		if content == buffer {
			if err := e.UpdateOverlay(ctx, "p.go", []byte(buffer)); err != nil {
				t.Fatal(err)
			}
		}
		s := e.Snapshot()
		for _, c := range []struct{ at, want string }{
			{"Sort(data", "Sort"},
			{"Sort() {", "IntSlice.Sort"},
			{"Size() int { return 0", "Reader.Size"},
			{"Size() int { return 1", "Writer.Size"},
			{"Error() string", "Error.Error"},
			{"Error struct", "Error"},
		} {
			off := strings.Index(content, c.at) + 1
			defs, err := s.Definition(ctx, "p.go", []byte(content), off)
			if err != nil || len(defs) == 0 || defs[0].Qualified() != c.want {
				var got []string
				for _, d := range defs {
					got = append(got, d.Qualified())
				}
				t.Errorf("definition at %q (buffer %v): %v %v, want %s first", c.at, content == buffer, got, err, c.want)
			}
		}
		s.Release()
	}
}

func TestFiltersApplyToEveryLeg(t *testing.T) {
	root := testutil.WriteTree(t, testutil.Fixture)
	e := openTest(t, root, t.TempDir())
	ctx := context.Background()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s := e.Snapshot()
	// "Circle.Area" is an identifier: the symbol leg looks it up exactly,
	// but only markdown sections are asked for.
	res, err := s.Search(ctx, SearchRequest{Query: "Circle.Area", Kinds: []string{"markdown_section"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Kind != "markdown_section" {
			t.Fatalf("kind filter leaked %+v", h)
		}
	}
	res, _ = s.Search(ctx, SearchRequest{Query: "retry_upload", Languages: []string{"go"}})
	for _, h := range res.Hits {
		if h.Language != "go" {
			t.Fatalf("language filter leaked %+v", h)
		}
	}
	s.Release()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestMMRDemotesNearDuplicates(t *testing.T) {
	dup := "package p\n\n// ParseWidget parses a widget description from text and validates its fields.\nfunc ParseWidget(s string) (Widget, error) { return parseWidgetText(s, strictMode) }\n"
	root := testutil.WriteTree(t, map[string]string{
		"a/widget.go":        dup,
		"b/widget_mirror.go": dup, // a generated mirror of a/widget.go
		"c/gadget.go":        "package p\n\n// ParseGadget parses a gadget, a kind of widget, from its text form.\nfunc ParseGadget(s string) Gadget { return Gadget{} }\n",
	})
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	order := func(lambda float64) []string {
		e.cfg.Search.MMRLambda = lambda
		var paths []string
		for _, h := range query(t, e, "parse a widget from text") {
			if h.Kind == "function" {
				paths = append(paths, h.Path)
			}
		}
		return paths
	}
	if got := order(1); len(got) != 3 || got[2] != "c/gadget.go" {
		t.Fatalf("pure relevance order %v: the fixture must rank the mirror second", got)
	}
	if got := order(0.7); len(got) != 3 || got[1] != "c/gadget.go" {
		t.Fatalf("MMR order %v: the near-duplicate should give way to different code", got)
	}
}

// TestOneScanAtATime: Index and Reindex wait for a running scan, and give
// up when their context ends first.
func TestOneScanAtATime(t *testing.T) {
	e := openTest(t, testutil.WriteTree(t, testutil.Fixture), t.TempDir())
	defer e.Close()
	unlock, err := e.lockScan(context.Background()) // a scan is running
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.Index(ctx, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Index while a scan runs: %v, want it to wait until its context ends", err)
	}
	if _, err := e.Reindex(ctx, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Reindex while a scan runs: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.Index(context.Background(), nil)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Index ran beside a running scan: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestShebangScripts: an extension-less file is indexed by the language
// its shebang names, one without a shebang is not, and a second run finds
// both as they were.
func TestShebangScripts(t *testing.T) {
	root := testutil.WriteTree(t, map[string]string{
		"tools/regen": "#!/usr/bin/env python3\n\ndef regenerate_tables():\n    return 1\n",
		"tools/notes": "regenerate the tables before a release\n",
		"main.go":     "package main\n\nfunc main() {}\n",
	})
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	ctx := context.Background()
	res, err := e.Index(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || res.Indexed != 2 {
		t.Fatalf("first run: %+v; want tools/regen and main.go", res)
	}
	s := e.Snapshot()
	rec, err := s.st.File("tools/regen")
	s.Release()
	if err != nil || rec.Language != "python" {
		t.Fatalf("tools/regen: %+v, %v", rec, err)
	}
	if res, err = e.Index(ctx, nil); err != nil || res.Files != 2 || res.Unchanged != 2 {
		t.Fatalf("second run: %+v, %v", res, err)
	}
}

// TestCalibrationPersists: the term-overlap threshold measured after a
// bulk run is what the next process uses, without measuring again.
func TestCalibrationPersists(t *testing.T) {
	root, db := testutil.WriteTree(t, testutil.Fixture), t.TempDir()
	e := openTest(t, root, db)
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := e.calibrate(); err != nil {
		t.Fatal(err)
	}
	want := e.simCal.jaccard
	e.Close()
	e = openTest(t, root, db)
	defer e.Close()
	if v, err := e.db.Meta(jaccardMeta); err != nil || v == "" {
		t.Fatalf("stored threshold: %q, %v", v, err)
	}
	e.db.SetMeta(jaccardMeta, "0.75") // what the next process reads, not a measurement
	s := e.Snapshot()
	defer s.Release()
	if got := e.simCal.jaccardThreshold(s); got != 0.75 {
		t.Errorf("threshold = %v, want the stored 0.75 (measured was %v)", got, want)
	}
}
