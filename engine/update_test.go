package engine

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// TestOverlayParallelGraphMatches: a large editor buffer, whose graph is
// extracted beside its chunking, gets the data a file on disk gets
// (graph, reverse entries, chunks, definitions), and so does its next
// version, re-parsed from the kept tree.
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
		if !reflect.DeepEqual(got.Graph, want.Graph) || !reflect.DeepEqual(got.Reverse, want.Reverse) {
			t.Errorf("round %d: the buffer's graph differs from the file's", round)
		}
		if !reflect.DeepEqual(got.Chunks, want.Chunks) || !reflect.DeepEqual(got.Symbols, want.Symbols) || !reflect.DeepEqual(got.SymbolChunks, want.SymbolChunks) {
			t.Errorf("round %d: the buffer's chunks or definitions differ from the file's", round)
		}
	}
}
