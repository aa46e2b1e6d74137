package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/workspace"
)

// TestBranchSwitchIsOneUpdate: a branch switch rewriting 2,000 files, which
// the client reports in several didChangeWatchedFiles notifications, is
// picked up in one batched update of the index (one refresh run, the
// engine's activity says), and queries keep answering while it runs.
func TestBranchSwitchIsOneUpdate(t *testing.T) {
	_, s, _ := startBackend(t, nil) // the client watches files itself
	const n = 2000
	changes := make([]map[string]any, 0, n)
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("branch/p%d/f%d.go", i%40, i)
		writeFile(t, s.root, filepath.FromSlash(rel), fmt.Sprintf("package p%d\n\n// Switched%d is on the other branch.\nfunc Switched%d() int { return %d }\n", i%40, i, i, i))
		changes = append(changes, map[string]any{"uri": workspace.PathToURI(s.path(rel)), "type": 1})
	}
	// The client reports the checkout in four notifications.
	for k := 0; k < 4; k++ {
		must(t, s.c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": changes[k*n/4 : (k+1)*n/4]}))
		time.Sleep(20 * time.Millisecond)
	}
	refreshes := func() []string {
		var st StatsResult
		must(t, s.command("contextLs.stats", nil, &st))
		var out []string
		for _, r := range st.Folders[0].Recent {
			if strings.Contains(r, "refreshed") {
				out = append(out, r)
			}
		}
		return out
	}
	answered := 0
	poll(t, "the branch switch indexed", func() (bool, string) {
		if len(refreshes()) > 0 {
			return true, ""
		}
		// Queries answer while the update runs.
		s.search("Switched1999", 3)
		answered++
		return false, "no refresh yet"
	})
	if answered == 0 {
		t.Error("no query answered while the branch switch was indexed")
	}
	time.Sleep(300 * time.Millisecond) // a second update, if any, would show by now
	runs := refreshes()
	if len(runs) != 1 || !strings.Contains(runs[0], fmt.Sprintf("refreshed %d files in one update (%d written", n, n)) {
		t.Fatalf("refresh runs %q, want one of %d files", runs, n)
	}
	if _, ok := hasHit(s.search("Switched1999", 3), "Switched1999"); !ok {
		t.Error("a file of the other branch is not found after the update")
	}
}
