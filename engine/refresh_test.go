package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/symbols"
)

// TestRefreshManyIsOneUpdate: a refresh of many paths (a branch switch)
// writes every file and brings the text index up to date once, not once
// per file; changed, new and deleted files all end up right.
func TestRefreshManyIsOneUpdate(t *testing.T) {
	e, root := indexedEngine(t, testutil.Fixture)
	defer e.Close()
	ctx := context.Background()
	var rels []string
	for i := 0; i < 300; i++ {
		rel := fmt.Sprintf("branch/f%d.go", i)
		testutil.WriteFiles(t, root, map[string]string{rel: fmt.Sprintf("package branch\n\n// Branch%d is on the other branch.\nfunc Branch%d() int { return %d }\n", i, i, i)})
		rels = append(rels, rel)
	}
	if err := os.WriteFile(filepath.Join(root, "geo/shapes.go"), []byte("package geo\n\n// Volume of a sphere.\nfunc Volume(r float64) float64 { return r * r * r }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "util/retry.py")); err != nil {
		t.Fatal(err)
	}
	rels = append(rels, "geo/shapes.go", "util/retry.py", "docs/guide.md") // the guide is unchanged

	var applies atomic.Int32
	e.writeMu.Lock()
	e.tw.onApply = func() { applies.Add(1) }
	e.writeMu.Unlock()
	if err := e.Refresh(ctx, rels); err != nil {
		t.Fatal(err)
	}
	if n := applies.Load(); n != 1 {
		t.Errorf("the text index was updated %d times for one refresh, want once", n)
	}
	if hits := query(t, e, "Branch217"); len(hits) == 0 || hits[0].Symbol != "Branch217" {
		t.Errorf("a new file not found: %v", hitPaths(hits))
	}
	if hits := query(t, e, "sphere volume"); len(hits) == 0 || hits[0].Symbol != "Volume" {
		t.Errorf("a changed file not found: %v", hitPaths(hits))
	}
	if hits := query(t, e, "retry upload"); len(hits) != 0 {
		t.Errorf("a deleted file still found: %v", hitPaths(hits))
	}
	s := e.Snapshot()
	st, err := s.Stats()
	s.Release()
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, r := range st.Recent {
		if strings.Contains(r, "refreshed") {
			runs++
			if !strings.Contains(r, "refreshed 303 files in one update (301 written, 1 removed, 1 unchanged)") {
				t.Errorf("activity %q", r)
			}
		}
	}
	if runs != 1 {
		t.Errorf("%d refresh runs in %q, want 1", runs, st.Recent)
	}
}

// TestOverlayEditsReparse: successive versions of an editor buffer are
// re-parsed from the previous parse, and what they index is what a full
// build of the same text gives.
func TestOverlayEditsReparse(t *testing.T) {
	e, root := indexedEngine(t, testutil.Fixture)
	defer e.Close()
	ctx := context.Background()
	text, err := os.ReadFile(filepath.Join(root, "geo/shapes.go"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		text = append(text, fmt.Sprintf("\n// Shape%d is added in the editor.\nfunc Shape%d() int { return %d }\n", i, i, i)...)
		if err := e.UpdateOverlay(ctx, "geo/shapes.go", text); err != nil {
			t.Fatal(err)
		}
		e.parserMu.Lock()
		kept := e.parsed["geo/shapes.go"]
		e.parserMu.Unlock()
		if kept == nil || string(kept.file.Source) != string(text) {
			t.Fatalf("edit %d: the buffer's parse is not kept for the next version", i)
		}
	}
	p := symbols.NewParser()
	defer p.Close()
	want, err := e.build(ctx, p, "geo/shapes.go", text, true)
	if err != nil {
		t.Fatal(err)
	}
	s := e.Snapshot()
	defer s.Release()
	got, err := s.DocumentSymbols("geo/shapes.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want.Symbols) {
		t.Fatalf("%d definitions indexed, a full build has %d", len(got), len(want.Symbols))
	}
	for i := range got {
		if got[i].Name != want.Symbols[i].Name || got[i].Span != want.Symbols[i].Span {
			t.Errorf("definition %d: %s %+v, a full build has %s %+v", i, got[i].Name, got[i].Span, want.Symbols[i].Name, want.Symbols[i].Span)
		}
	}
	// Closed, as the session closes a buffer: the overlay and its parse go.
	if err := e.ClearOverlay(ctx, "geo/shapes.go"); err != nil {
		t.Fatal(err)
	}
	e.ForgetParse("geo/shapes.go")
	e.parserMu.Lock()
	defer e.parserMu.Unlock()
	if e.parsed["geo/shapes.go"] != nil {
		t.Error("the parse of a closed buffer is kept")
	}
}
