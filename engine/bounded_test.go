package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/workspace"
)

// manyFuncs is Go source with n small documented functions.
func manyFuncs(n int) string {
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "// Compute%d answers request kind %d.\nfunc Compute%d(x int) int {\n\tif x > %d {\n\t\treturn x - %d\n\t}\n\treturn x * %d\n}\n\n", i, i, i, i, i, i)
	}
	return b.String()
}

// TestLargeFileSpreadsOverTextBatches: a file with more chunks than a
// text batch holds is indexed in several batches, all of them applied.
func TestLargeFileSpreadsOverTextBatches(t *testing.T) {
	root := testutil.WriteTree(t, map[string]string{"big/big.go": manyFuncs(300)})
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	e.tw.max = 16 // a few hundred chunks: many batches for one file
	batches := 0
	e.tw.onApply = func() { batches++ }
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if batches < 5 {
		t.Fatalf("one file went into %d text batches, want it spread over several", batches)
	}
	textMatchesStore(t, e, "big/big.go")
	if hits := query(t, e, "Compute277"); len(hits) == 0 || hits[0].Symbol != "Compute277" {
		t.Fatalf("search in a file spread over batches: %v", hitPaths(hits))
	}
}

// TestCancelMidFileCatchesUpText: cancelled while a large file's text
// batches are written, the text index is behind the store; the next write
// catches it up from the change log.
func TestCancelMidFileCatchesUpText(t *testing.T) {
	root := testutil.WriteTree(t, map[string]string{"big/big.go": manyFuncs(100), "a.go": "package a\n\nfunc A() {}\n"})
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	e.tw.max = 16
	p := e.parser()
	content, _ := os.ReadFile(filepath.Join(root, "big/big.go"))
	data, err := e.build(context.Background(), p, "big/big.go", content, false)
	e.releaseParser(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.writeFile(ctx, data, false); !errors.Is(err, context.Canceled) {
		t.Fatalf("writeFile with a cancelled context: %v", err)
	}
	if err := e.flushText(); !errors.Is(err, errTextBehind) {
		t.Fatalf("text writer after a cancelled file: %v, want errTextBehind", err)
	}
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	textMatchesStore(t, e, "big/big.go")
	if hits := query(t, e, "Compute93"); len(hits) == 0 || hits[0].Symbol != "Compute93" {
		t.Fatalf("after catching up: %v", hitPaths(hits))
	}
}

// TestHugeFilesAreNotIndexed: above the hard limit a file is excluded
// whatever maxFileSize says (on disk and as an editor buffer), and the
// reason names the limit.
func TestHugeFilesAreNotIndexed(t *testing.T) {
	root := testutil.WriteTree(t, map[string]string{"small.go": "package a\n\nfunc Small() {}\n"})
	huge := strings.Repeat("// padding line of a generated file\n", workspace.HardMaxFileSize/36+1)
	if err := os.WriteFile(filepath.Join(root, "huge.go"), []byte("package a\n\n"+huge), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := workspace.DefaultConfig()
	cfg.MaxFileSize = 1 << 30
	e, err := Open(context.Background(), root, Options{DBDir: t.TempDir(), Config: cfg, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Index(context.Background(), nil)
	if err != nil || res.Files != 1 {
		t.Fatalf("index with a huge file: %+v %v", res, err)
	}
	d, err := ExplainFile(root, cfg, "huge.go")
	if err != nil || d.Included || d.Source != workspace.SourceMaxSize || !strings.Contains(d.Rule, "hard limit") {
		t.Fatalf("why huge.go: %+v %v", d, err)
	}
	// An editor buffer that grows past the limit leaves the index.
	if err := e.UpdateOverlay(context.Background(), "small.go", []byte("package a\n\n"+huge)); err != nil {
		t.Fatal(err)
	}
	if hits := query(t, e, "Small"); len(hits) != 0 {
		t.Fatalf("a huge buffer is still indexed: %v", hitPaths(hits))
	}
}

// TestDataFilesAreChunkedNotParsed: a large generated register header is
// indexed as line windows of kind data, with a note and no definitions or
// graph, and its text is still found; code next to it is parsed as usual.
func TestDataFilesAreChunkedNotParsed(t *testing.T) {
	var regs strings.Builder
	regs.WriteString("/* generated register offsets */\n")
	for i := 0; regs.Len() < chunking.DataMinSize+4096; i++ {
		fmt.Fprintf(&regs, "#define mmBLOCK%d_STATUS                                        0x%04x\n", i, i*4)
	}
	regs.WriteString("#define mmFROBNICATOR_DOORBELL 0x7ffc\n")
	root := testutil.WriteTree(t, map[string]string{
		"regs/block_offset.h": regs.String(),
		"drv/drv.c":           "#include \"block_offset.h\"\n\nint frob_ring(int n) { return n + mmFROBNICATOR_DOORBELL; }\n",
	})
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s := e.Snapshot()
	defer s.Release()
	fs, err := s.File("regs/block_offset.h")
	if err != nil {
		t.Fatal(err)
	}
	if fs.Note != dataNote {
		t.Fatalf("note of the register header: %q", fs.Note)
	}
	if syms, err := s.DocumentSymbols("regs/block_offset.h"); err != nil || len(syms) != 0 {
		t.Fatalf("register header symbols: %d (%v), want none", len(syms), err)
	}
	if syms, err := s.DocumentSymbols("drv/drv.c"); err != nil || len(syms) == 0 {
		t.Fatalf("code next to it: %d symbols (%v)", len(syms), err)
	}
	res, err := s.Search(context.Background(), SearchRequest{Query: "mmFROBNICATOR_DOORBELL", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, h := range res.Hits {
		kinds[h.Path] = h.Kind
	}
	if kinds["regs/block_offset.h"] != chunking.KindData {
		t.Fatalf("search for a register: hits %v (kinds %v), want the header's data window", hitPaths(res.Hits), kinds)
	}
	textMatchesStore(t, e, "regs/block_offset.h")
}
