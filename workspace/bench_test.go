package workspace

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkWalkGoStdlib walks the Go standard library's source tree with
// the default configuration, reading the first 8 KiB of every candidate
// file. It reports files visited per second and the tree's entry count.
func BenchmarkWalkGoStdlib(b *testing.B) {
	root := goSrc(b)
	w, err := Open(root, DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	entries := 0
	filepath.WalkDir(root, func(string, fs.DirEntry, error) error { entries++; return nil })
	files := 0
	b.ResetTimer()
	for b.Loop() {
		files = 0
		if err := w.Walk(context.Background(), func(FileInfo) error { files++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(files), "files/op")
	b.ReportMetric(float64(entries), "entries")
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// benchPaths returns every 10th file Walk visits in the Go standard library
// plus some excluded and missing paths.
func benchPaths(b *testing.B, w *Workspace) []string {
	var paths []string
	i := 0
	w.Walk(context.Background(), func(fi FileInfo) error {
		if i%10 == 0 {
			paths = append(paths, fi.Rel)
		}
		i++
		return nil
	})
	return append(paths, "vendor/golang.org/x/net/idna/idna10.0.0.go", "image/testdata/video-001.png", "go.sum", "no/such/file.go")
}

// BenchmarkExplain reports the cost of one Explain call on Go standard
// library paths (a sample of included files plus a few excluded ones).
func BenchmarkExplain(b *testing.B) {
	w, err := Open(goSrc(b), DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	paths := benchPaths(b, w)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		w.Explain(paths[i%len(paths)])
		i++
	}
}

// BenchmarkIncluded reports the cost of one Included call (the watcher's
// per-event check).
func BenchmarkIncluded(b *testing.B) {
	w, err := Open(goSrc(b), DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	paths := benchPaths(b, w)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, err := w.Included(paths[i%len(paths)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkPatternList matches a path against a 12-pattern ignore file.
func BenchmarkPatternList(b *testing.B) {
	l := parsePatternList([]byte("*.log\n!important.log\n/build/\ndocs/**/*.tmp\n*.o\n*.[ao]\nnode_modules/\n**/gen/*.go\n!gen/keep.go\ncache/*\n*~\n.DS_Store\n"), ".gitignore", "", "")
	paths := []string{"src/net/http/server.go", "docs/a/b/c.tmp", "x/gen/y.go", "a.log", "deep/path/with/many/segments/file.txt"}
	i := 0
	for b.Loop() {
		l.match(paths[i%len(paths)], false)
		i++
	}
}

// BenchmarkIsBinary classifies 8 KiB of Go source.
func BenchmarkIsBinary(b *testing.B) {
	head := []byte(strings.Repeat("func (s *Server) Serve(l net.Listener) error { // héllo\n", 150))[:headSize]
	b.SetBytes(int64(len(head)))
	for b.Loop() {
		if IsBinary(head) {
			b.Fatal("text classified binary")
		}
	}
}

// BenchmarkWalkKnownGoStdlib is the walk of an unchanged re-index: every
// file is known (one stat, no read).
func BenchmarkWalkKnownGoStdlib(b *testing.B) {
	w, err := Open(goSrc(b), DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	known := func(string, int64, int64) bool { return true }
	files := 0
	for b.Loop() {
		files = 0
		if err := w.WalkKnown(context.Background(), Known{Judged: known}, func(FileInfo) error { files++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}
