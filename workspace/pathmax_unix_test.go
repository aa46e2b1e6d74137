//go:build unix

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPathDeeperThanPathMax: a file whose path is longer than the system
// allows is not indexed, and Explain says why (issue 29: it was skipped
// without a word, and files --why refused the path).
func TestPathDeeperThanPathMax(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, "top.go"), []byte("package top\n"), 0o644))
	// 2,500 levels of "dir/": 10 KB, past Linux's 4,096 bytes. Built with
	// paths relative to an open directory, which no length limits.
	fd, err := unix.Open(root, unix.O_DIRECTORY|unix.O_RDONLY, 0)
	must(err)
	var segs []string
	for i := 0; i < 2500; i++ {
		must(unix.Mkdirat(fd, "dir", 0o755))
		next, err := unix.Openat(fd, "dir", unix.O_DIRECTORY|unix.O_RDONLY, 0)
		must(err)
		unix.Close(fd)
		fd = next
		segs = append(segs, "dir")
	}
	f, err := unix.Openat(fd, "deep.go", unix.O_CREAT|unix.O_WRONLY, 0o644)
	must(err)
	unix.Close(f)
	unix.Close(fd)
	var skipped []string
	w, err := Open(root, Config{OnSkip: func(rel, reason string) { skipped = append(skipped, reason) }})
	must(err)
	var got []string
	must(w.Walk(context.Background(), func(fi FileInfo) error { got = append(got, fi.Rel); return nil }))
	if strings.Join(got, " ") != "top.go" {
		t.Errorf("walk = %v, want top.go alone", got)
	}
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], SourcePathTooLong+": ") {
		t.Errorf("skips reported: %v, want one %q", skipped, SourcePathTooLong)
	}
	d := w.Explain(strings.Join(segs, "/") + "/deep.go")
	if d.Included || d.Source != SourcePathTooLong || !strings.Contains(d.Rule, "PATH_MAX") {
		t.Errorf("Explain(the deep file) = %+v, want excluded as %q", d, SourcePathTooLong)
	}
}
