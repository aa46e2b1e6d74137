package reliability

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/context-ls/context-ls/workspace"
)

// bin is the binary built once for these tests.
var bin Bin

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "context-ls-reliability")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if bin, err = Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func report(t *testing.T, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Error(p)
	}
}

// TestFullDisk: the reproduction (a 3 MiB tmpfs) and a disk that
// fills before and during a run, then frees. Needs root for the mounts.
func TestFullDisk(t *testing.T) {
	r, err := DiskFull(bin, t.TempDir(), 400)
	if errors.Is(err, ErrNoTmpfs) {
		t.Skipf("full-disk case skipped: %v (run as root to mount a small tmpfs)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("3 MiB disk: %s", r.Tiny)
	t.Logf("full disk: %s; SIGTERM → exit in %s", r.Refused, r.Latency.Round(time.Millisecond))
	t.Logf("disk filled during the run: %s", r.MidIndex)
	report(t, r.Problems)
}

// TestHugeFileIsRefused: a 200 MB file under maxFileSize = "1GiB" grew
// memory without bound; above the hard limit it is refused, with a
// reason files --why gives. (The long suite uses the 200 MB file.)
func TestHugeFileIsRefused(t *testing.T) {
	r, err := LargeFile(bin, t.TempDir(), workspace.HardMaxFileSize+1<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("index: %s, peak RSS %d MiB; why: %s", r.Index, r.Index.MaxRSS>>20, r.Why.Stdout)
	report(t, r.Problems)
}

// TestInterruptLargeFile: SIGTERM while a large file is being indexed
// ends the run promptly.
func TestInterruptLargeFile(t *testing.T) {
	res, latency, err := Interrupt(bin, t.TempDir(), 4<<20, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SIGTERM → exit in %s: %s", latency.Round(time.Millisecond), res)
	if latency > maxSigtermLatency || res.Code == 0 {
		t.Fatalf("SIGTERM while indexing a 4 MiB file: exit after %s: %s", latency, res)
	}
}

// TestCorruptIndexIsRebuilt: 200 random bytes in a store table and in a
// text-index segment; index --verify finds each and rebuilds.
func TestCorruptIndexIsRebuilt(t *testing.T) {
	r, err := Corruption(bin, t.TempDir(), 300, []float64{0.4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, c := range r.Cases {
		t.Logf("%s@%d: before verify %d queries wrong silently, %d said damaged; verify: %s", c.File, c.Offset, c.Silent, c.Reported, c.Verify)
		if !c.Detected() {
			t.Errorf("%s@%d: damage not detected (erased with deleted data: %v)", c.File, c.Offset, c.Erased())
		}
		kinds[filepath.Ext(c.File)] = true
	}
	if !kinds[".sst"] || !kinds[".zap"] {
		t.Errorf("corrupted %v, want a store table and a text segment", kinds)
	}
	report(t, r.Problems)
}

// TestKillMidIndexResumes: kill -9 part way through index; the next run
// resumes to the same index as an uninterrupted one.
func TestKillMidIndexResumes(t *testing.T) {
	r, err := KillMidIndex(bin, t.TempDir(), 600, 2)
	if err != nil {
		t.Fatal(err)
	}
	report(t, r.Problems)
}
