package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// BenchmarkOverlayEditLarge measures what an unsaved edit of a large Go
// file costs to build (re-parse, definitions, chunks, call graph; the
// store write and the text index left out): each op appends a function
// to net/http/server.go of the Go standard library (130 KB), as the edit
// benchmark's language-server edits do.
func BenchmarkOverlayEditLarge(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skipf("no Go sources: %v", err)
	}
	root := testutil.WriteTree(b, map[string]string{"http/server.go": string(src)})
	ctx := context.Background()
	e, err := Open(ctx, root, Options{DBDir: b.TempDir(), Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	text := src
	if _, err := e.buildOverlay(ctx, "http/server.go", text); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text = fmt.Appendf(text, "\n// Edit%d is added by the benchmark.\nfunc Edit%d() int { return %d }\n", i, i, i)
		if _, err := e.buildOverlay(ctx, "http/server.go", text); err != nil {
			b.Fatal(err)
		}
	}
}
