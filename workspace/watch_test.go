package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// watchHarness runs Watch on a temporary root and collects its batches.
type watchHarness struct {
	t       *testing.T
	root    string
	batches chan []string
	done    chan error
	cancel  context.CancelFunc
	mu      sync.Mutex
	seen    []string // every path reported so far
}

func startWatch(t *testing.T, setup func(root string)) *watchHarness {
	t.Helper()
	return startWatchWith(t, 30*time.Millisecond, setup)
}

// startWatchWith is startWatch with Watch's debounce.
func startWatchWith(t *testing.T, debounce time.Duration, setup func(root string)) *watchHarness {
	t.Helper()
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	os.Mkdir(filepath.Join(tmp, ".git"), 0o755)
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(root)
	}
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &watchHarness{t: t, root: w.Root(), batches: make(chan []string, 100), done: make(chan error, 1), cancel: cancel}
	go func() {
		h.done <- w.Watch(ctx, debounce, func(changed []string) {
			if !slices.IsSorted(changed) || len(slices.Compact(slices.Clone(changed))) != len(changed) {
				t.Errorf("batch not sorted and de-duplicated: %q", changed)
			}
			h.batches <- changed
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(5 * time.Second):
			t.Error("Watch did not return after cancel")
		}
	})
	// Let the watcher install its watches before the test changes files:
	// rewrite a marker until it is reported.
	deadline := time.After(10 * time.Second)
	for ready := false; !ready; {
		h.write("watch-ready.txt", "x")
		select {
		case b := <-h.batches:
			ready = slices.Contains(b, "watch-ready.txt")
		case <-time.After(100*time.Millisecond + 2*debounce): // the batch ends once quiet
		case <-deadline:
			t.Fatal("the watcher never reported the marker file")
		}
	}
	// Drain the marker's later batches.
	time.Sleep(100*time.Millisecond + 2*debounce)
	for len(h.batches) > 0 {
		<-h.batches
	}
	return h
}

func (h *watchHarness) path(rel string) string { return filepath.Join(h.root, filepath.FromSlash(rel)) }

func (h *watchHarness) write(rel, content string) {
	h.t.Helper()
	p := h.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// expect waits until every path in want has been reported (in one batch or
// several), and fails after a generous timeout.
func (h *watchHarness) expect(want ...string) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	pending := map[string]bool{}
	for _, p := range want {
		pending[p] = true
	}
	for len(pending) > 0 {
		select {
		case b := <-h.batches:
			h.mu.Lock()
			h.seen = append(h.seen, b...)
			h.mu.Unlock()
			for _, p := range b {
				delete(pending, p)
			}
		case <-deadline:
			h.t.Fatalf("not reported: %v (seen so far: %q)", mapKeys(pending), h.seen)
		}
	}
}

// forget clears the record of reported paths.
func (h *watchHarness) forget() {
	h.mu.Lock()
	h.seen = nil
	h.mu.Unlock()
}

// never fails if any path reported since the last forget lies in prefix.
func (h *watchHarness) never(prefix string) {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.seen {
		if p == prefix || strings.HasPrefix(p, prefix+"/") {
			h.t.Errorf("reported %q, inside %q which is not watched", p, prefix)
		}
	}
}

func mapKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestWatchFileEvents(t *testing.T) {
	h := startWatch(t, func(root string) {
		os.WriteFile(filepath.Join(root, "old.go"), []byte("package x\n"), 0o644)
		os.WriteFile(filepath.Join(root, "gone.go"), []byte("package x\n"), 0o644)
		os.WriteFile(filepath.Join(root, "from.go"), []byte("package x\n"), 0o644)
	})
	h.write("new.go", "package x\n")
	h.expect("new.go")
	h.write("old.go", "package y\n")
	h.expect("old.go")
	if err := os.Remove(h.path("gone.go")); err != nil {
		t.Fatal(err)
	}
	h.expect("gone.go")
	if err := os.Rename(h.path("from.go"), h.path("to.go")); err != nil {
		t.Fatal(err)
	}
	h.expect("from.go", "to.go")
}

func TestWatchDirectories(t *testing.T) {
	h := startWatch(t, func(root string) {
		os.MkdirAll(filepath.Join(root, "node_modules", "pkg"), 0o755)
		os.MkdirAll(filepath.Join(root, "deep", "er"), 0o755)
	})
	// A new directory with files created at once: the files may land
	// before the directory's watch exists and are reported from the scan.
	h.write("sub/a.go", "package sub\n")
	h.write("sub/inner/b.go", "package inner\n")
	h.expect("sub", "sub/a.go", "sub/inner/b.go")
	// Later writes in the new directories are seen through their watches.
	h.write("sub/inner/c.go", "package inner\n")
	h.expect("sub/inner/c.go")
	// Directories that existed when Watch started are watched recursively.
	h.write("deep/er/d.go", "package er\n")
	h.expect("deep/er/d.go")
	// Denylisted directories are not watched.
	h.write("node_modules/pkg/index.js", "x\n")
	h.write("marker.go", "package x\n")
	h.expect("marker.go")
	h.never("node_modules/pkg")

	// Delete a directory and recreate it: its new files are reported.
	if err := os.RemoveAll(h.path("sub")); err != nil {
		t.Fatal(err)
	}
	h.expect("sub")
	h.write("sub/again.go", "package sub\n")
	h.expect("sub/again.go")
	h.write("sub/later.go", "package sub\n")
	h.expect("sub/later.go")

	// Rename a directory: events below it carry the new name.
	if err := os.Rename(h.path("deep"), h.path("moved")); err != nil {
		t.Fatal(err)
	}
	h.expect("deep", "moved", "moved/er/d.go")
	h.forget()
	h.write("moved/er/e.go", "package er\n")
	h.expect("moved/er/e.go")
	h.never("deep")
}

func TestWatchIgnoreRuleChange(t *testing.T) {
	h := startWatch(t, func(root string) {
		os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gen/\n"), 0o644)
		os.MkdirAll(filepath.Join(root, "gen"), 0o755)
	})
	h.write("gen/skipped.go", "package gen\n")
	h.write("marker1.go", "package x\n")
	h.expect("marker1.go")
	h.never("gen")
	// Un-ignore gen/: the watcher re-derives its watches.
	h.write(".gitignore", "# nothing\n")
	h.expect(".gitignore")
	h.write("gen/now.go", "package gen\n")
	h.expect("gen/now.go")
}

func TestWatchCoalesces(t *testing.T) {
	h := startWatch(t, nil)
	for i := range 20 {
		h.write("hot.go", strings.Repeat("x", i))
	}
	h.expect("hot.go")
	// The batch checks in startWatch already verify sorting and
	// de-duplication; here the 20 writes must not produce 20 batches.
	time.Sleep(200 * time.Millisecond)
	extra := len(h.batches)
	if extra > 5 {
		t.Errorf("%d more batches for 20 quick writes; events are not coalesced", extra)
	}
}

func TestWatchRootRemoved(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	os.Mkdir(root, 0o755)
	os.Mkdir(filepath.Join(tmp, ".git"), 0o755)
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	batches := make(chan []string, 10)
	done := make(chan error, 1)
	go func() {
		done <- w.Watch(context.Background(), 20*time.Millisecond, func(c []string) { batches <- c })
	}()
	// Retry the removal trigger until the watch is live.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("Watch returned nil after the root was removed")
			}
			var last []string
			for len(batches) > 0 {
				last = <-batches
			}
			if !slices.Contains(last, AllChanged) {
				t.Errorf("last batch %q does not hold AllChanged", last)
			}
			return
		case <-deadline:
			t.Fatal("Watch did not notice the root's removal")
		case <-time.After(100 * time.Millisecond):
			os.RemoveAll(root)
		}
	}
}

func TestAffectsRules(t *testing.T) {
	for rel, want := range map[string]bool{
		".gitignore": true, "a/b/.gitignore": true, "x/.contextignore": true, ConfigFileName: true,
		"sub/" + ConfigFileName: false, "rust/Cargo.toml": true, "web/package.json": true,
		"main.go": false, "gitignore": false,
	} {
		if got := AffectsRules(rel); got != want {
			t.Errorf("AffectsRules(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestWatchBranchSwitchIsOneBatch: a checkout rewriting 2,000 files, in
// waves with pauses shorter than the debounce that together last several
// debounce windows, is reported as one batch holding every file.
func TestWatchBranchSwitchIsOneBatch(t *testing.T) {
	// Writing 2,000 files takes a second or more; the pauses between waves
	// are 10 ms (a loaded machine stretches them, not to 300 ms).
	h := startWatchWith(t, 300*time.Millisecond, func(root string) {
		for d := 0; d < 20; d++ {
			os.MkdirAll(filepath.Join(root, "pkg", strconv.Itoa(d)), 0o755)
		}
	})
	var want []string
	for d := 0; d < 20; d++ {
		for i := 0; i < 100; i++ {
			rel := "pkg/" + strconv.Itoa(d) + "/f" + strconv.Itoa(i) + ".go"
			want = append(want, rel)
			h.write(rel, "package p\n")
		}
		time.Sleep(10 * time.Millisecond) // well within the debounce: the checkout goes on
	}
	var got []string
	select {
	case got = <-h.batches:
	case <-time.After(10 * time.Second):
		t.Fatal("no batch after the checkout")
	}
	seen := map[string]bool{}
	for _, p := range got {
		seen[p] = true
	}
	missing := 0
	for _, p := range want {
		if !seen[p] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("the first batch holds %d paths and misses %d of the 2,000 rewritten files: the checkout was split", len(got), missing)
	}
}
