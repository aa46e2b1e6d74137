package reliability

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestShapedFiles: files laid out to make indexing superlinear (issue 29:
// a bundle whose first 8 KiB look ordinary took 2.9 GB at 128 KiB; 256
// KiB of "(" took 201 s) index in time and memory bounded by their size,
// and the index answers beside them. The limits here are generous
// multiples of the long suite's (2 s and 300 MiB for the bundle and 1 MiB
// of "(", go run ./bench reliability -only shapes).
func TestShapedFiles(t *testing.T) {
	for _, s := range Shapes {
		size := 128 << 10
		if strings.HasPrefix(s.Name, "bundle") {
			size = 190_000 // the file
		}
		r, err := IndexShape(bin, t.TempDir(), s, size)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s, %d KiB: %s wall, %s CPU, %d MiB; %d symbols, %d chunks", s.Name, size>>10,
			r.Index.Elapsed.Round(time.Millisecond), r.Index.CPU.Round(time.Millisecond), r.Index.MaxRSS>>20, r.Stats.Symbols, r.Stats.Chunks)
		report(t, r.Problems(20*time.Second, 600<<20))
	}
}

// TestInterruptShapedFile: SIGTERM while a shaped file is indexed ends the
// run within about a second wherever it lands (the long suite: every
// shape at 1 MiB, within 1 s). 1 MiB of an unclosed C comment takes
// seconds to index (262,143 declarations).
func TestInterruptShapedFile(t *testing.T) {
	s := ShapeNamed("unclosed comment, C")
	for _, delay := range []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, 1500 * time.Millisecond} {
		res, latency, err := InterruptShape(bin, t.TempDir(), s, 1<<20, delay)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("SIGTERM %s in → exit in %s: %s", delay, latency.Round(time.Millisecond), res)
		if latency > 2*time.Second || res.Code == 0 {
			t.Errorf("SIGTERM %s into indexing %s: exit after %s: %s", delay, s.Name, latency, res)
		}
	}
}

// TestServeShapedBuffer: an unsaved 1 MiB buffer of "(" (issue 29: the
// pack timed out at 30 s, every later search took 2 s and shutdown got no
// answer in 60 s) and one of NUL bytes leave the language server
// answering at once.
func TestServeShapedBuffer(t *testing.T) {
	for _, name := range []string{"( only, Go", "NUL bytes, Go"} {
		r := bin.ServeBuffer(t.TempDir(), ShapeNamed(name), 1<<20)
		t.Logf("%s: pack %s, search %s, shutdown %s, exit %d", name, r.Pack.Round(time.Millisecond), r.Search.Round(time.Millisecond), r.Shutdown.Round(time.Millisecond), r.Code)
		if r.Err != nil || !r.Found || r.Code != 0 {
			t.Errorf("%s: %v (found %v, exit %d): %s", name, r.Err, r.Found, r.Code, r.Stderr)
		}
		// Generous multiples of what the long suite holds to a second.
		if r.Pack > 10*time.Second || r.Search > 5*time.Second || r.Shutdown > 5*time.Second {
			t.Errorf("%s: pack %s, search %s, shutdown %s", name, r.Pack, r.Search, r.Shutdown)
		}
	}
}

// TestUnopenableIndexIsRebuilt: a damaged MANIFEST, a table cut to half
// or deleted made every command fail (index --verify included) until the
// directory was deleted by hand, and after a read marked the store
// damaged, index --verify said "index ok" of the emptied store (issue
// 29, item 7). Each is rebuilt, saying so.
func TestUnopenableIndexIsRebuilt(t *testing.T) {
	cases, problems, err := Unopenable(bin, t.TempDir(), 200)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Logf("%s: search stderr %q; verify: %s", c.Name, strings.TrimSpace(c.Search.Stderr), strings.TrimSpace(c.Verify.Stdout))
	}
	report(t, problems)
}

// TestSmallCases: issue 29's item 8 — a 20,000-pattern .gitignore with a
// chain of directories deeper than PATH_MAX made every scan of 27 files
// take seconds and skipped the deep file without a word; a TARGET whose
// path holds a newline exited 2. (The long suite: 10,000 levels.)
func TestSmallCases(t *testing.T) {
	r, err := Small(bin, t.TempDir(), 2500, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("files %s, index %s, again %s", r.Files.Elapsed.Round(time.Millisecond), r.Index.Elapsed.Round(time.Millisecond), r.Again.Elapsed.Round(time.Millisecond))
	report(t, r.Problems)
}

// TestLiveIndexAfterEvents: issue 29's item 5 — edits saved while the
// language server's first scan runs are seen once it ends (a), a
// definition saved then removed on disk by another writer leaves the
// index (b), and a file changed while the disk was below the reserve is
// indexed once space is freed, without a restart (c, needs root). The
// long suite runs more trials.
func TestLiveIndexAfterEvents(t *testing.T) {
	for _, clientWatches := range []bool{true, false} {
		missed, err := bin.EditsDuringScan(t.TempDir(), 3000, 2, clientWatches)
		if err != nil {
			t.Fatal(err)
		}
		report(t, missed)
	}
	stale, err := bin.RemovedAfterSave(t.TempDir(), 4)
	if err != nil {
		t.Fatal(err)
	}
	report(t, stale)
	took, err := bin.EditWhileDiskFull(t.TempDir())
	if errors.Is(err, ErrNoTmpfs) {
		t.Skipf("the full-disk case skipped: %v (run as root to mount a small tmpfs)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a change made while the disk was full indexed %s after space was freed", took.Round(time.Millisecond))
}
