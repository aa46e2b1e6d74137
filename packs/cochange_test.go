package packs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// gitRepo makes a repository in a temp dir and returns a function that
// commits the given files (writing new content to each).
func gitRepo(t *testing.T) (string, func(files ...string)) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) { t.Helper(); testutil.Git(t, dir, args...) }
	git("init", "-q")
	n := 0
	commit := func(files ...string) {
		t.Helper()
		n++
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(fmt.Sprintf("change %d\n", n)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "-q", "-m", fmt.Sprintf("commit %d", n))
	}
	return dir, commit
}

func TestCoChanged(t *testing.T) {
	dir, commit := gitRepo(t)
	ctx := context.Background()

	// No commits yet: empty, not an error.
	got, err := CoChanged(ctx, dir, "a.go", 10)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty repo: got %v, %v", got, err)
	}

	commit("a.go", "b.go", "sub/c.go")
	commit("a.go", "b.go")
	commit("a.go", "d.go")
	commit("b.go", "e.go") // does not touch a.go
	var many []string
	for i := 0; i < maxCommitFiles+1; i++ {
		many = append(many, fmt.Sprintf("gen/f%02d.go", i))
	}
	commit(append(many, "a.go")...) // too big to mean anything
	commit("a.go", "sub/c.go")

	for _, c := range []struct {
		name    string
		root    string
		file    string
		commits int
		want    []string
	}{
		// b.go and sub/c.go co-changed twice; sub/c.go most recently.
		{"ranked", dir, "a.go", 0, []string{"sub/c.go", "b.go", "d.go"}},
		{"window", dir, "a.go", 2, []string{"sub/c.go"}},
		{"other file", dir, "b.go", 0, []string{"a.go", "e.go", "sub/c.go"}},
		{"never changed", dir, "zzz.go", 0, []string{}},
		{"root in a subdirectory", filepath.Join(dir, "sub"), "c.go", 0, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := CoChanged(ctx, c.root, c.file, c.commits)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				got = []string{}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}

	// Inside a subdirectory root, co-changes are reported relative to it
	// and files outside it are left out.
	commit("sub/c.go", "sub/x.go", "a.go")
	got, err = CoChanged(ctx, filepath.Join(dir, "sub"), "c.go", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"x.go"}) {
		t.Errorf("subdirectory root: got %v, want [x.go]", got)
	}

	if _, err := CoChanged(ctx, dir, "../outside.go", 0); err == nil {
		t.Error("a path leaving the root must be an error")
	}
}

func TestCoChangedNotARepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	got, err := CoChanged(context.Background(), dir, "a.go", 10)
	if err != nil || len(got) != 0 {
		t.Fatalf("not a repository: got %v, %v; want empty and nil", got, err)
	}
}
