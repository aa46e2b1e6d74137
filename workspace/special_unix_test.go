//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestSpecialAndUnreadable(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	os.Mkdir(filepath.Join(tmp, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, "locked"), 0o755)
	os.WriteFile(filepath.Join(root, "locked", "x.go"), []byte("package x\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "bad\xffname.go"), []byte("package a\n"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	asRoot := os.Geteuid() == 0
	if !asRoot {
		if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
	}
	var skips []string
	cfg := DefaultConfig()
	cfg.OnSkip = func(rel, reason string) { skips = append(skips, rel+": "+reason) }
	w, err := Open(root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := walkAll(t, w)
	want := []string{"a.go", "locked/x.go"}
	if !asRoot {
		want = []string{"a.go"}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Walk = %q, want %q", got, want)
	}
	wantSkips := []string{"bad\xffname.go: invalid name", "pipe: not a regular file"}
	if !asRoot {
		wantSkips = append(wantSkips, "locked: unreadable")
	} else {
		t.Log("running as root: permissions are not enforced, the unreadable-directory case is not exercised")
	}
	for _, ws := range wantSkips {
		if !slices.ContainsFunc(skips, func(s string) bool { return strings.HasPrefix(s, ws) }) {
			t.Errorf("OnSkip reports %q, want one starting %q", skips, ws)
		}
	}
	if d := w.Explain("pipe"); d.Included || d.Source != SourceSpecial {
		t.Errorf("Explain(pipe) = %s", formatDecision(d))
	}
	if !asRoot {
		if d := w.Explain("locked/x.go"); d.Included || d.Source != SourceUnreadable || d.Ancestor != "locked" {
			t.Errorf("Explain(locked/x.go) = %s", formatDecision(d))
		}
	}
	checkConsistency(t, w, root, got)
}
