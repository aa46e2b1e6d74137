package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// TestGitignoreOnlyInsideRepository: a .gitignore applies inside a git
// repository only (ripgrep's rule): an unpacked tarball whose .gitignore
// says "/*" (Debian's linux-source) is indexed whole, a repository below
// the root applies its own, and .contextignore applies everywhere.
func TestGitignoreOnlyInsideRepository(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "linux")
	testutil.WriteFiles(t, root, map[string]string{
		".gitignore":          "/*\n!/debian/\n",
		".contextignore":      "skip.c\n",
		"kernel/fork.c":       "int fork;\n",
		"kernel/.gitignore":   "*.c\n",
		"skip.c":              "int s;\n",
		"repo/.git/HEAD":      "ref: refs/heads/main\n",
		"repo/.gitignore":     "gen.c\n",
		"repo/gen.c":          "int g;\n",
		"repo/keep.c":         "int k;\n",
		"repo/sub/.gitignore": "x.c\n",
		"repo/sub/x.c":        "int x;\n",
	})
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	got := walkAll(t, w)
	want := []string{".contextignore", ".gitignore", "kernel/.gitignore", "kernel/fork.c", "repo/.gitignore", "repo/keep.c", "repo/sub/.gitignore"}
	if !slices.Equal(got, want) {
		t.Errorf("outside a repository: walk = %q, want %q", got, want)
	}
	for _, p := range got {
		if !w.Explain(p).Included {
			t.Errorf("Explain(%s) excludes a walked file", p)
		}
	}
	if d := w.Explain("repo/gen.c"); d.Included || d.Source != "repo/.gitignore:1" {
		t.Errorf("Explain(repo/gen.c) = %+v, want excluded by repo/.gitignore:1", d)
	}

	// The same tree inside a repository: its .gitignore applies.
	if err := os.Mkdir(filepath.Join(tmp, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err = Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := walkAll(t, w); len(got) != 0 {
		t.Errorf("inside a repository, /* ignores everything; walk = %q", got)
	}
}

// TestWalkKnownSkipsHeadRead: a file the caller knows (same size and
// mtime) is reported without its head being read — a binary file the
// caller vouches for passes, one it does not is skipped as binary.
func TestWalkKnownSkipsHeadRead(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"a.go": "package a\x00\x01\x02", "b.go": "package b\x00\x01\x02", "c.go": "package c\n"})
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	var got []string
	err = w.WalkKnown(context.Background(), Known{Judged: func(rel string, size, mtime int64) bool {
		asked = append(asked, rel)
		return rel == "a.go"
	}}, func(fi FileInfo) error {
		got = append(got, fi.Rel)
		if fi.Size == 0 || fi.ModTime == 0 {
			t.Errorf("%s: size %d mtime %d", fi.Rel, fi.Size, fi.ModTime)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.go", "c.go"}; !slices.Equal(got, want) {
		t.Errorf("WalkKnown = %q, want %q", got, want)
	}
	if want := []string{"a.go", "b.go", "c.go"}; !slices.Equal(asked, want) {
		t.Errorf("known asked for %q, want %q", asked, want)
	}
}

// TestWalkKnownUnwanted: a file the caller wants in no version (by name)
// is left out before its stat, so the size-and-time judgement is never
// asked about it; directories are still walked.
func TestWalkKnownUnwanted(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"a.go": "package a\n", "b.dat": "data\n", "sub.dat/c.go": "package c\n"})
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked, got []string
	known := Known{
		Unwanted: func(rel string) bool { return strings.HasSuffix(rel, ".dat") },
		Judged: func(rel string, _, _ int64) bool {
			mu.Lock()
			asked = append(asked, rel)
			mu.Unlock()
			return false
		},
	}
	if err := w.WalkKnown(context.Background(), known, func(fi FileInfo) error { got = append(got, fi.Rel); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(asked)
	if want := []string{"a.go", "sub.dat/c.go"}; !slices.Equal(got, want) || !slices.Equal(asked, want) {
		t.Errorf("walk = %q, judged %q; want %q for both", got, asked, want)
	}
}
