package engine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

func TestReindex(t *testing.T) {
	ctx := context.Background()
	root := testutil.WriteTree(t, testutil.Fixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Changes the engine has not heard of: a new file, a deleted one.
	if err := os.WriteFile(filepath.Join(root, "geo", "square.go"), []byte("package geo\n\n// Square is a shape.\ntype Square struct{ A float64 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "docs", "guide.md")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		rels          []string
		reindex, gone []string
	}{
		{"whole workspace", nil, []string{"geo/shapes.go", "geo/square.go", "util/retry.py"}, []string{"docs/guide.md"}},
		{"root", []string{"."}, []string{"geo/shapes.go", "geo/square.go", "util/retry.py"}, []string{"docs/guide.md"}},
		{"a directory", []string{"geo"}, []string{"geo/shapes.go", "geo/square.go"}, []string{}},
		{"a file and a vanished directory", []string{"util/retry.py", "docs"}, []string{"util/retry.py"}, []string{"docs/guide.md"}},
		{"an excluded file", []string{"node_modules/x/index.js"}, []string{}, []string{}},
		{"a missing file", []string{"no/such.go"}, []string{}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := e.PlanReindex(ctx, tc.rels)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(plan.Reindex, tc.reindex) || !reflect.DeepEqual(plan.Remove, tc.gone) {
				t.Errorf("plan %+v, want reindex %v remove %v", plan, tc.reindex, tc.gone)
			}
		})
	}
	if _, err := e.PlanReindex(ctx, []string{"../outside"}); err == nil {
		t.Error("a path leaving the root was accepted")
	}

	// The plan changed nothing; Reindex does what it said.
	if hits := query(t, e, "Square"); len(hits) != 0 {
		t.Errorf("the plan indexed something: %+v", hits)
	}
	var reports int
	res, err := e.Reindex(ctx, nil, func(p Progress) {
		if p.Phase == "index" && p.Done > 0 {
			reports++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 3 || res.Deleted != 1 || res.Failed != 0 || reports != 3 {
		t.Errorf("reindex %+v with %d reports", res, reports)
	}
	if hits := query(t, e, "Square"); len(hits) == 0 || hits[0].Path != "geo/square.go" {
		t.Errorf("Square after reindex: %+v", hits)
	}
	snap := e.Snapshot()
	files, err := snap.IndexedFiles(".")
	snap.Release()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(files, []string{"geo/shapes.go", "geo/square.go", "util/retry.py"}) {
		t.Errorf("indexed files %v", files)
	}

	// An unchanged file is parsed again all the same (Index would skip it),
	// and an overlay keeps its buffer.
	if err := e.UpdateOverlay(ctx, "util/retry.py", []byte("def buffer_only():\n    pass\n")); err != nil {
		t.Fatal(err)
	}
	res, err = e.Reindex(ctx, []string{"geo/shapes.go", "util"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 1 || res.Unchanged != 1 {
		t.Errorf("partial reindex %+v", res)
	}
	if hits := query(t, e, "buffer_only"); len(hits) == 0 {
		t.Error("the reindex replaced an overlay")
	}
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Reindex(ctx2, nil, nil); err == nil {
		t.Error("a cancelled reindex reported success")
	}
}

func TestSnapshotLookups(t *testing.T) {
	ctx := context.Background()
	root := testutil.WriteTree(t, testutil.Fixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	disk, err := os.ReadFile(filepath.Join(root, "geo", "shapes.go"))
	if err != nil {
		t.Fatal(err)
	}
	snap := e.Snapshot()
	defer snap.Release()
	if !snap.HasContent("geo/shapes.go", disk) || snap.HasContent("geo/shapes.go", append(disk, ' ')) || snap.HasContent("nope.go", nil) {
		t.Error("HasContent")
	}
	under, err := snap.IndexedFiles("geo/")
	if err != nil || !reflect.DeepEqual(under, []string{"geo/shapes.go"}) {
		t.Errorf("IndexedFiles(geo/) = %v, %v", under, err)
	}
	if one, _ := snap.IndexedFiles("geo/shapes.go"); len(one) != 1 {
		t.Errorf("IndexedFiles of a file: %v", one)
	}
	if none, _ := snap.IndexedFiles("ge"); len(none) != 0 {
		t.Errorf("IndexedFiles matched a name prefix: %v", none)
	}
	fs, err := snap.File("util/retry.py")
	if err != nil || fs.Language != "python" || fs.Overlay || fs.Hash == "" {
		t.Errorf("File = %+v, %v", fs, err)
	}
	if _, err := snap.File("missing.go"); err == nil {
		t.Error("File of a missing path")
	}
}

func TestSymbolScore(t *testing.T) {
	tests := []struct {
		query, better, worse string
	}{
		{"area", "area", "Area"}, // exact case
		{"Area", "Area", "AreaOf"},
		{"qe", "QueryEscape", "quiet"},
		{"total", "total_area", "TotalArea"},
		{"ra", "readAll", "xyz"},
	}
	for _, tc := range tests {
		b, w := SymbolScore(tc.query, tc.better), SymbolScore(tc.query, tc.worse)
		if b <= w {
			t.Errorf("%q: %s scores %d, %s scores %d", tc.query, tc.better, b, tc.worse, w)
		}
	}
	if SymbolScore("", "x") != 0 || SymbolScore("zz", "abc") != 0 {
		t.Error("non-matches score")
	}
}

// TestEditKeepsUnchangedChunks: an edit re-adds only the chunks it changed
// to the text index; the text index still holds exactly the file's chunks,
// unchanged ones stay searchable, and changed ones are found by their new
// text only.
func TestEditKeepsUnchangedChunks(t *testing.T) {
	ctx := context.Background()
	root := testutil.WriteTree(t, testutil.Fixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	const rel = "geo/shapes.go"
	src := testutil.Fixture[rel]
	tail := "\n// Diameter returns twice the radius; zebracount.\nfunc (c Circle) Diameter() float64 {\n\td := 2 * c.R\n\treturn d\n}\n"
	edits := []string{src + tail, src + strings.Replace(tail, "zebracount", "yakcount", 1)}
	for i, text := range edits {
		if err := e.UpdateOverlay(ctx, rel, []byte(text)); err != nil {
			t.Fatal(err)
		}
		checkTextDocs(t, e, rel)
		if !hitIn(query(t, e, "round shape"), rel) {
			t.Errorf("edit %d: an unchanged chunk is no longer found", i)
		}
	}
	if !hitIn(query(t, e, "yakcount"), rel) {
		t.Error("the changed chunk is not found by its new text")
	}
	if hitIn(query(t, e, "zebracount"), rel) {
		t.Error("the changed chunk is still found by its old text")
	}
	// A forced reindex rewrites every document.
	if err := e.ClearOverlay(ctx, rel); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Reindex(ctx, []string{"geo"}, nil); err != nil {
		t.Fatal(err)
	}
	checkTextDocs(t, e, rel)
	if hitIn(query(t, e, "yakcount"), rel) || !hitIn(query(t, e, "round shape"), rel) {
		t.Error("after reindex the text index does not match the disk")
	}
}

// checkTextDocs compares the text index's documents of rel with the
// store's chunks.
func checkTextDocs(t *testing.T, e *Engine, rel string) {
	t.Helper()
	docs, err := e.text.DocsOf(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	snap := e.Snapshot()
	defer snap.Release()
	rec, err := snap.st.File(rel)
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
		t.Errorf("text documents of %s %v, store chunks %v", rel, docs, want)
	}
}

func hitIn(hits []Hit, rel string) bool {
	for _, h := range hits {
		if h.Path == rel {
			return true
		}
	}
	return false
}

// TestSmallRunMakesNoTable: a run that writes a few files makes them
// durable without flushing the store's memtable into a table of its own
// (each level-0 table brings a compaction of the level below closer); the
// change survives the engine's close and reopening.
func TestSmallRunMakesNoTable(t *testing.T) {
	ctx := context.Background()
	root := testutil.WriteTree(t, testutil.Fixture)
	dbDir := t.TempDir()
	e := openTest(t, root, dbDir)
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tables := func() int {
		n := 0
		filepath.WalkDir(dbDir, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".sst") {
				n++
			}
			return nil
		})
		return n
	}
	before := tables()
	if err := os.WriteFile(filepath.Join(root, "geo", "square.go"), []byte("package geo\n\n// Square is a shape.\ntype Square struct{ A float64 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := e.Reindex(ctx, []string{"geo/square.go"}, nil); err != nil || res.Indexed != 1 {
		t.Fatalf("reindex: %+v, %v", res, err)
	}
	if after := tables(); after != before {
		t.Errorf("a one-file run made store tables: %d → %d", before, after)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, root, dbDir)
	defer e.Close()
	if hits := query(t, e, "Square"); len(hits) == 0 || hits[0].Path != "geo/square.go" {
		t.Errorf("Square after reopening: %+v", hits)
	}
}
