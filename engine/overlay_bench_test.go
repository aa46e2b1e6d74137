package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/testutil"
)

// BenchmarkOverlayEditLarge measures what an unsaved edit of a large Go
// file costs: each op appends a function to net/http/server.go of the Go
// standard library (130 KB), as the edit benchmark's language-server
// edits do. "build" is the file version's data (re-parse, definitions,
// chunks, call graph), "update" all of Engine.UpdateOverlay (the store
// batch and the text index too).
func BenchmarkOverlayEditLarge(b *testing.B) {
	b.Run("build", func(b *testing.B) { benchOverlayEdit(b, false) })
	b.Run("update", func(b *testing.B) { benchOverlayEdit(b, true) })
}

func benchOverlayEdit(b *testing.B, update bool) {
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
	if _, err := e.Index(ctx, nil); err != nil {
		b.Fatal(err)
	}
	edit := func(text []byte) error {
		if update {
			return e.UpdateOverlay(ctx, "http/server.go", text)
		}
		_, err := e.buildOverlay(ctx, "http/server.go", text)
		return err
	}
	text := src
	if err := edit(text); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		text = fmt.Appendf(text, "\n// Edit%d is added by the benchmark.\nfunc Edit%d() int { return %d }\n", i, i, i)
		if err := edit(text); err != nil {
			b.Fatal(err)
		}
	}
	// Wall time is unreliable on a shared machine; the process's CPU time
	// per edit (background work included: compactions, merges, GC) is
	// steadier.
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
