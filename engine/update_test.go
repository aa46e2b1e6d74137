package engine

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
)

// TestOverlayParallelGraphMatches: a large editor buffer, whose graph is
// extracted on a goroutine of its own (its query beside the extraction of
// the definitions, the rest beside the chunking), gets the data a file on
// disk gets (graph, reverse entries, chunks, definitions), and so does its
// next version, re-parsed from the kept tree and spliced (only the added
// function extracted).
func TestOverlayParallelGraphMatches(t *testing.T) {
	var b strings.Builder
	b.WriteString("package big\n\nimport \"strings\"\n\ntype T struct{ s string }\n\n")
	for i := 0; b.Len() < 2*overlayParallelBytes; i++ {
		fmt.Fprintf(&b, "// F%d calls the one before.\nfunc F%d(t *T) string {\n\tif t == nil {\n\t\treturn \"\"\n\t}\n\treturn strings.ToUpper(t.s) + F%d(t)\n}\n\nfunc (t *T) M%d() string { return F%d(t) }\n\n", i, i, max(i-1, 0), i, i)
	}
	root := testutil.WriteTree(t, map[string]string{"big/big.go": "package big\n"})
	ctx := context.Background()
	e, err := Open(ctx, root, Options{DBDir: t.TempDir(), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for round, text := range []string{b.String(), b.String() + "\nfunc Added() string { return F3(nil) }\n"} {
		got, err := e.buildOverlay(ctx, "big/big.go", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		p := e.parser()
		want, err := e.build(ctx, p, "big/big.go", []byte(text), false)
		e.releaseParser(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Graph) == 0 || len(want.Reverse) == 0 || len(want.Chunks) < 10 {
			t.Fatalf("round %d: the fixture has no graph or chunks: %d bytes, %d reverse, %d chunks", round, len(want.Graph), len(want.Reverse), len(want.Chunks))
		}
		sameData(t, fmt.Sprint("round ", round), got, want)
		if spliced := e.keptSplice("big/big.go") != nil; spliced != (round == 1) {
			t.Errorf("round %d: spliced %v", round, spliced)
		}
	}
}

// TestOverlaySplicedMatchesBuild: a chain of editor-like edits of
// net/http/server.go (testutil.GoEdit: functions added, deleted and
// changed, doc comments, stray characters), each version built from the
// one before as an editor buffer is (spliced where only functions
// changed), gives the data a full build of the same text gives.
func TestOverlaySplicedMatchesBuild(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		t.Skipf("no Go sources: %v", err)
	}
	const rel = "http/server.go"
	e, _ := indexedEngine(t, map[string]string{rel: string(src)})
	defer e.Close()
	ctx := context.Background()
	if err := e.KeepParse(ctx, rel, src); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(3))
	text, spliced := src, 0
	const steps = 24
	for step := 0; step < steps; step++ {
		var kind string
		text, kind = testutil.GoEdit(rng, text, step)
		got, err := e.buildOverlay(ctx, rel, text)
		if err != nil {
			t.Fatal(err)
		}
		if e.keptSplice(rel) != nil {
			spliced++
		}
		p := e.parser()
		want, err := e.build(ctx, p, rel, text, true)
		e.releaseParser(p)
		if err != nil {
			t.Fatal(err)
		}
		sameData(t, fmt.Sprintf("step %d (%s)", step, kind), got, want)
	}
	if spliced < steps/3 {
		t.Errorf("%d of %d versions spliced", spliced, steps)
	}
}

// keptSplice is the Splice of the parse kept for the buffer of rel.
func (e *Engine) keptSplice(rel string) *symbols.Splice {
	e.parserMu.Lock()
	defer e.parserMu.Unlock()
	if b := e.parsed[rel]; b != nil {
		return b.file.Splice
	}
	return nil
}

// sameData reports where a buffer's data differs from a full build's.
func sameData(t *testing.T, what string, got, want *store.FileData) {
	t.Helper()
	if !reflect.DeepEqual(got.Graph, want.Graph) || !reflect.DeepEqual(got.Reverse, want.Reverse) {
		t.Errorf("%s: the buffer's graph differs from the file's", what)
	}
	if !reflect.DeepEqual(got.Chunks, want.Chunks) || !reflect.DeepEqual(got.Symbols, want.Symbols) || !reflect.DeepEqual(got.SymbolChunks, want.SymbolChunks) {
		t.Errorf("%s: the buffer's chunks or definitions differ from the file's", what)
	}
}

// TestOverlayEditsKeepTheStoreWhole: a buffer edited many times — whole
// functions inserted, removed and changed in the middle, so later
// definitions shift — leaves a store that verifies clean and holds what
// one write of the final text holds (each version after the first is
// written as the difference from the one before, store/kept.go).
func TestOverlayEditsKeepTheStoreWhole(t *testing.T) {
	fn := func(i, v int) string {
		return fmt.Sprintf("// F%d is version %d.\nfunc F%d(s string) string { return strings.Repeat(s, %d) + F%d(s) }\n\n", i, v, i, v, max(i-1, 0))
	}
	var funcs []string
	for i := 0; i < 40; i++ {
		funcs = append(funcs, fn(i, 0))
	}
	text := func() string {
		return "package big\n\nimport \"strings\"\n\n" + strings.Join(funcs, "")
	}
	e, _ := indexedEngine(t, map[string]string{"big/big.go": text()})
	defer e.Close()
	ctx := context.Background()
	for step := 1; step <= 30; step++ {
		i := (step * 7) % len(funcs)
		switch step % 3 {
		case 0:
			funcs = append(funcs[:i], funcs[i+1:]...) // remove one
		case 1:
			funcs = slices.Insert(funcs, i, fn(100+step, step)) // insert one
		default:
			funcs[i] = fn(i, step) // change one in place
		}
		if err := e.UpdateOverlay(ctx, "big/big.go", []byte(text())); err != nil {
			t.Fatal(err)
		}
	}
	r, err := e.Verify(ctx)
	if err != nil || len(r.Store.Problems) > 0 || len(r.Text.Problems) > 0 {
		t.Fatalf("verify after the edits: %+v, %v", r, err)
	}

	once, _ := indexedEngine(t, map[string]string{"big/big.go": "package big\n"})
	defer once.Close()
	if err := once.UpdateOverlay(ctx, "big/big.go", []byte(text())); err != nil {
		t.Fatal(err)
	}
	type stored struct {
		syms   []symbols.Symbol
		graph  []byte
		chunks []string
	}
	read := func(e *Engine) stored {
		snap := e.db.Snapshot()
		defer snap.Release()
		var out stored
		var err error
		if out.syms, err = snap.Symbols("big/big.go"); err != nil {
			t.Fatal(err)
		}
		if out.graph, err = snap.Graph("big/big.go"); err != nil {
			t.Fatal(err)
		}
		rec, err := snap.File("big/big.go")
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range rec.Chunks {
			c, err := snap.Chunk(id)
			if err != nil {
				t.Fatal(err)
			}
			out.chunks = append(out.chunks, fmt.Sprintf("%d-%d %s %v %q", c.StartLine, c.EndLine, c.Label, c.Symbols, c.Text))
		}
		return out
	}
	if got, want := read(e), read(once); !reflect.DeepEqual(got, want) {
		t.Fatalf("after 30 edits the store differs from one write of the final text")
	}
}

// TestKeepParse: an opened buffer of keepParseBytes or more is parsed
// ahead and its first edit re-parses from that parse (the kept parse is
// consumed), giving what a build from scratch gives; the same content is
// not parsed twice, nor a saved buffer's; a small buffer is left alone;
// ForgetParse drops the parse.
func TestKeepParse(t *testing.T) {
	var big strings.Builder
	big.WriteString("package big\n")
	for i := 0; big.Len() < 2*keepParseBytes; i++ {
		fmt.Fprintf(&big, "\n// F%d returns %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
	}
	src := big.String()
	root := testutil.WriteTree(t, map[string]string{"big/big.go": src, "small/small.go": "package small\n\nfunc S() {}\n"})
	ctx := context.Background()
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	kept := func(rel string) *symbols.File {
		e.parserMu.Lock()
		defer e.parserMu.Unlock()
		if b := e.parsed[rel]; b != nil {
			return b.file
		}
		return nil
	}
	if err := e.KeepParse(ctx, "small/small.go", []byte("package small\n\nfunc S() {}\n")); err != nil || kept("small/small.go") != nil {
		t.Fatalf("a small buffer was parsed ahead (err %v)", err)
	}
	if err := e.KeepParse(ctx, "big/big.go", []byte(src)); err != nil {
		t.Fatal(err)
	}
	first := kept("big/big.go")
	if first == nil || first.Tree == nil || string(first.Source) != src {
		t.Fatal("no parse kept for the opened buffer")
	}
	if err := e.KeepParse(ctx, "big/big.go", []byte(src)); err != nil || kept("big/big.go") != first {
		t.Fatalf("the same content was parsed again (err %v)", err)
	}
	edited := src + "\n// Added is new.\nfunc Added() int { return 1 }\n"
	if err := e.UpdateOverlay(ctx, "big/big.go", []byte(edited)); err != nil {
		t.Fatal(err)
	}
	if now := kept("big/big.go"); now == nil || now == first || string(now.Source) != edited {
		t.Fatal("the edit did not re-parse from the kept parse")
	}
	if hits := query(t, e, "Added"); len(hits) == 0 || hits[0].Path != "big/big.go" {
		t.Errorf("the edit's definition is not found: %+v", hits)
	}
	// Saved: the overlay goes, its parse (of the saved text) stays.
	if err := os.WriteFile(filepath.Join(root, "big", "big.go"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	last := kept("big/big.go")
	if err := e.ClearOverlay(ctx, "big/big.go"); err != nil {
		t.Fatal(err)
	}
	if err := e.KeepParse(ctx, "big/big.go", []byte(edited)); err != nil || kept("big/big.go") != last {
		t.Fatalf("the saved buffer was parsed again (err %v)", err)
	}
	want, err := e.buildOverlay(ctx, "big/big.go", []byte(edited)) // from the kept parse of the same text
	if err != nil {
		t.Fatal(err)
	}
	e.ForgetParse("big/big.go")
	if kept("big/big.go") != nil {
		t.Fatal("ForgetParse kept the parse")
	}
	scratch, err := e.buildOverlay(ctx, "big/big.go", []byte(edited)) // no parse kept: from scratch
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want.Symbols, scratch.Symbols) || !reflect.DeepEqual(want.Chunks, scratch.Chunks) {
		t.Error("a build from the kept parse differs from one from scratch")
	}
}

// TestMovedChunkKeepsItsID: a function added above another moves that
// one's chunk without changing its id (its text-index document and vector
// stay), and search finds it where it now is.
func TestMovedChunkKeepsItsID(t *testing.T) {
	body := func(name, word string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "// %s reconciles the %s ledger.\nfunc %s(xs []int) int {\n\tn := 0\n", name, word, name)
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&b, "\tn += xs[%d] * %d // %s step %d\n", i, i, word, i)
		}
		return b.String() + "\treturn n\n}\n"
	}
	src := "package ledger\n\n" + body("Alpha", "quarterly") + "\n" + body("Beta", "zanzibar")
	e, _ := indexedEngine(t, map[string]string{"ledger/ledger.go": src})
	defer e.Close()
	ctx := context.Background()
	find := func() Hit {
		t.Helper()
		s := e.Snapshot()
		defer s.Release()
		res, err := s.Search(ctx, SearchRequest{Query: "zanzibar ledger", K: 1})
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("search: %v, %d hits", err, len(res.Hits))
		}
		return res.Hits[0]
	}
	before := find()
	added := body("Gamma", "gamma") + "\n"
	edited := strings.Replace(src, "// Alpha", added+"// Alpha", 1)
	if err := e.UpdateOverlay(ctx, "ledger/ledger.go", []byte(edited)); err != nil {
		t.Fatal(err)
	}
	after := find()
	lines := strings.Count(added, "\n")
	if after.Chunk != before.Chunk || after.StartLine != before.StartLine+lines || after.Symbol != "Beta" {
		t.Errorf("after a function was added above it: %s at line %d (chunk %v); before: %s at line %d (chunk %v), want the same chunk %d lines down",
			after.Symbol, after.StartLine, after.Chunk, before.Symbol, before.StartLine, before.Chunk, lines)
	}
}
