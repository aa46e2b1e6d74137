package reliability

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/context-ls/context-ls/store"
)

// ErrNoTmpfs: this process may not mount a file system (not root), so the
// full-disk scenario cannot run.
var ErrNoTmpfs = errors.New("cannot mount a tmpfs")

// DiskFullReport is what the full-disk scenario saw.
type DiskFullReport struct {
	Tiny      Result        // index of a new workspace on a 3 MiB disk
	Refused   Result        // index with changes on a disk below the reserve
	Sigterm   Result        // index on the full disk, SIGTERM soon after the start
	Stats     Result        // stats on the full disk
	Unchanged Result        // search on the full disk with nothing to write
	Changed   Result        // search on the full disk with changed files it cannot index
	MCP       Result        // an MCP session on the full disk
	Serve     ServeReport   // a language-server session on the full disk
	MidIndex  Result        // index that fills the disk part way through
	Recovered Result        // index once space is back
	Same      error         // the recovered index against a clean one: nil when equal
	Latency   time.Duration // SIGTERM → exit
	Problems  []string
}

func (r *DiskFullReport) check(ok bool, format string, args ...any) {
	if !ok {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// maxSigtermLatency bounds the time from SIGTERM to exit.
const maxSigtermLatency = 10 * time.Second

// DiskFull runs the full-disk scenario in work with a workspace of files
// Go files (half of them added once the first half is indexed): a tiny
// disk refuses a new index in one line; a disk filled below the reserve
// refuses writes at once and in one line, honours SIGTERM, answers stats
// and (with nothing to write) searches from the index as it is; a disk
// that fills part way through stops the run the same way; once space is
// back the next run completes and the index answers like a clean one.
// It needs root (ErrNoTmpfs otherwise) and a tmpfs of 128 MiB plus the
// index.
func DiskFull(b Bin, work string, files int) (DiskFullReport, error) {
	var r DiskFullReport
	tiny := filepath.Join(work, "tiny")
	unmount, err := MountTmpfs(tiny, 3<<20)
	if err != nil {
		return r, err
	}
	defer unmount()
	root := filepath.Join(work, "repo")
	if err := WriteFiles(filepath.Join(root, "a"), Repo(files/2)); err != nil {
		return r, err
	}
	r.Tiny = b.Run(Index{root, tiny}.Args("index")...)
	r.check(r.Tiny.Code == 1 && r.Tiny.OneLine() && containsAll(r.Tiny.Stderr, "disk full", tiny),
		"index on a 3 MiB disk: %s, want one line naming the disk", r.Tiny)

	disk := filepath.Join(work, "disk")
	unmountDisk, err := MountTmpfs(disk, store.DefaultMinFree+64<<20)
	if err != nil {
		return r, err
	}
	defer unmountDisk()
	ix := Index{root, disk}
	if res := b.Run(ix.Args("index")...); res.Code != 0 {
		return r, fmt.Errorf("index of the first half on a roomy disk: %s", res)
	}
	second := Repo(files)
	for rel := range Repo(files / 2) {
		delete(second, rel)
	}
	if err := WriteFiles(filepath.Join(root, "b"), second); err != nil {
		return r, err
	}

	// Below the reserve: every write is refused.
	// (well below: opening the index frees some space, reused logs)
	unfill, err := Fill(disk, store.DefaultMinFree-8<<20)
	if err != nil {
		return r, err
	}
	r.Refused = b.Run(ix.Args("index")...)
	r.check(r.Refused.Code == 1 && r.Refused.OneLine() && containsAll(r.Refused.Stderr, "disk full", disk),
		"index on a full disk: %s, want one line naming the disk", r.Refused)
	p, err := b.Start(ix.Args("index")...)
	if err != nil {
		return r, err
	}
	time.Sleep(20 * time.Millisecond)
	sent := time.Now()
	p.Signal(syscall.SIGTERM)
	r.Sigterm = p.Wait()
	r.Latency = time.Since(sent)
	// Whether the signal lands before the handler is set, during the run
	// or after the refusal, the process must be gone at once.
	r.check(r.Latency < maxSigtermLatency && r.Sigterm.Code != 0, "SIGTERM on a full disk: %s after %s", r.Sigterm, r.Latency)
	r.Stats = b.Run(ix.Args("stats", "--json")...)
	var st struct {
		Files   int
		Storage struct{ State string }
	}
	json.Unmarshal([]byte(r.Stats.Stdout), &st)
	r.check(r.Stats.Code == 0 && st.Storage.State == store.HealthDiskFull && st.Files == files/2,
		"stats on a full disk: %s, want the first half's files and storage diskFull", r.Stats)
	away := filepath.Join(work, "b-away")
	if err := os.Rename(filepath.Join(root, "b"), away); err != nil {
		return r, err
	}
	r.Unchanged = b.Run(ix.Args("search", "--json", "Handler3")...)
	r.check(r.Unchanged.Code == 0 && strings.Contains(r.Unchanged.Stdout, `"symbol": "Handler3"`),
		"search on a full disk with nothing to write: %s", r.Unchanged)
	if err := os.Rename(away, filepath.Join(root, "b")); err != nil {
		return r, err
	}
	// With changes it cannot index, a search warns in one line and answers.
	r.Changed = b.Run(ix.Args("search", "--json", "Handler3")...)
	r.check(r.Changed.Code == 0 && strings.Contains(r.Changed.Stdout, `"symbol": "Handler3"`) &&
		containsAll(r.Changed.Stderr, "warning", "disk full") && strings.Count(strings.TrimSpace(r.Changed.Stderr), "\n") == 0,
		"search on a full disk with changes to index: %s, want the answer and a one-line warning", r.Changed)
	// An agent: a refresh is a tool error naming the disk; queries answer;
	// stats say diskFull.
	tools, res := b.MCPSession(ix, [][2]string{
		{"refresh_context", `{}`}, {"query_context", `{"query":"Handler3"}`}, {"get_context_stats", `{}`}})
	r.MCP = res
	refresh, query, stats := tools["refresh_context"], tools["query_context"], tools["get_context_stats"]
	r.check(res.Code == 0 && refresh.IsError && strings.Contains(string(refresh.Content), "disk full"),
		"MCP refresh_context on a full disk: %s: %s, want a tool error naming the disk", res, refresh.Content)
	r.check(!query.IsError && strings.Contains(string(query.StructuredContent), `"Handler3"`),
		"MCP query_context on a full disk: %s", query.Content)
	r.check(strings.Contains(string(stats.StructuredContent), `"state":"diskFull"`),
		"MCP get_context_stats on a full disk: %.300s, want storage diskFull", stats.StructuredContent)
	// An editor: one message says the index cannot be written; the
	// session shuts down cleanly.
	r.Serve = b.ServeSession(ix, 3*time.Second)
	full := 0
	for _, m := range r.Serve.ShowMessages {
		if strings.Contains(m, "cannot be written") && strings.Contains(m, "disk full") {
			full++
		}
	}
	r.check(r.Serve.Err == nil && r.Serve.Code == 0 && full == 1,
		"language server on a full disk: exit %d, error %v, messages %q, want one saying the index cannot be written", r.Serve.Code, r.Serve.Err, r.Serve.ShowMessages)
	if err := unfill(); err != nil {
		return r, err
	}

	// The disk fills part way through a run.
	if unfill, err = Fill(disk, store.DefaultMinFree+256<<10); err != nil {
		return r, err
	}
	r.MidIndex = b.Run(ix.Args("index")...)
	r.check(r.MidIndex.Code == 1 && r.MidIndex.OneLine() && strings.Contains(r.MidIndex.Stderr, "disk full"),
		"index that fills the disk: %s, want one line", r.MidIndex)
	if err := unfill(); err != nil {
		return r, err
	}

	r.Recovered = b.Run(ix.Args("index")...)
	r.check(r.Recovered.Code == 0, "index once space is back: %s", r.Recovered)
	clean := Index{root, filepath.Join(work, "clean")}
	if res := b.Run(clean.Args("index")...); res.Code != 0 {
		return r, fmt.Errorf("clean index: %s", res)
	}
	r.Same = b.SameAnswers(clean, ix, RepoQueries)
	r.check(r.Same == nil, "recovered index: %v", r.Same)
	return r, nil
}
