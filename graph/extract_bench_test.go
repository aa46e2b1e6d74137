package graph

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/context-ls/context-ls/symbols"
)

// stdlibFiles returns up to n parsed-ready Go files of the Go standard
// library, skipping the benchmark when GOROOT has no sources.
func stdlibFiles(b *testing.B, n int) map[string][]byte {
	b.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	out := map[string][]byte{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || len(out) >= n {
			return filepath.SkipDir
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			if src, err := os.ReadFile(p); err == nil {
				rel, _ := filepath.Rel(root, p)
				out[filepath.ToSlash(rel)] = src
			}
		}
		return nil
	})
	if len(out) == 0 {
		b.Skipf("no Go sources under %s", root)
	}
	return out
}

// BenchmarkExtract measures Extract alone (parsing excluded) on Go
// standard library files; it reports MB/s of source.
func BenchmarkExtract(b *testing.B) {
	files := stdlibFiles(b, 400)
	p := symbols.NewParser()
	defer p.Close()
	var parsed []*symbols.File
	var paths []string
	size := 0
	for rel, src := range files {
		f, err := p.Parse(context.Background(), symbols.ByName("go"), src)
		if err != nil {
			continue
		}
		parsed = append(parsed, f)
		paths = append(paths, rel)
		size += len(src)
	}
	defer func() {
		for _, f := range parsed {
			f.Close()
		}
	}()
	b.SetBytes(int64(size))
	b.ResetTimer()
	start, cgo := cpuTime(), runtime.NumCgoCall()
	for i := 0; i < b.N; i++ {
		for j, f := range parsed {
			Extract(f, paths[j])
		}
	}
	// Wall time is unreliable on a shared machine; CPU time is steadier,
	// and the count of calls into C (tree-sitter) does not vary at all.
	b.ReportMetric(float64(size)*float64(b.N)/1e6/(cpuTime()-start).Seconds(), "cpu-MB/s")
	b.ReportMetric(float64(runtime.NumCgoCall()-cgo)/float64(b.N), "cgo-calls/op")
}

// BenchmarkParse measures symbols.Parse on the same files, for the ratio
// of extraction to parsing.
func BenchmarkParse(b *testing.B) {
	files := stdlibFiles(b, 400)
	p := symbols.NewParser()
	defer p.Close()
	size := 0
	for _, src := range files {
		size += len(src)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, src := range files {
			f, err := p.Parse(context.Background(), symbols.ByName("go"), src)
			if err == nil {
				f.Close()
			}
		}
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/(cpuTime()-start).Seconds(), "cpu-MB/s")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// largeGoFiles are large hand-written files of the Go standard library:
// the files whose unsaved edits cost the most to re-extract (an editor
// buffer's graph is extracted again on every version).
var largeGoFiles = []string{"net/http/server.go", "net/http/transport.go", "runtime/proc.go", "go/parser/parser.go"}

// BenchmarkExtractLarge measures Extract alone on largeGoFiles; ns/op is
// one extraction of all of them.
func BenchmarkExtractLarge(b *testing.B) {
	p := symbols.NewParser()
	defer p.Close()
	var parsed []*symbols.File
	size := 0
	for _, rel := range largeGoFiles {
		src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(rel)))
		if err != nil {
			b.Skipf("no Go sources: %v", err)
		}
		f, err := p.Parse(context.Background(), symbols.ByName("go"), src)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		parsed = append(parsed, f)
		size += len(src)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	start, cgo := cpuTime(), runtime.NumCgoCall()
	for i := 0; i < b.N; i++ {
		for j, f := range parsed {
			Extract(f, largeGoFiles[j])
		}
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/(cpuTime()-start).Seconds(), "cpu-MB/s")
	b.ReportMetric(float64(runtime.NumCgoCall()-cgo)/float64(b.N), "cgo-calls/op")
}
