package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/context-ls/context-ls/store"
)

// KillReport is what the kill -9 scenario saw.
type KillReport struct {
	Resumed  []Result // index after each kill
	Problems []string
}

// KillMidIndex runs the kill -9 scenario: `index` of a workspace of files
// Go files is killed with SIGKILL kills times, each time once its index
// has grown past a different size; each resumed run must give an index
// that answers like an uninterrupted one.
func KillMidIndex(b Bin, work string, files, kills int) (KillReport, error) {
	var r KillReport
	root := filepath.Join(work, "kill-repo")
	if err := WriteFiles(root, Repo(files)); err != nil {
		return r, err
	}
	clean := Index{root, filepath.Join(work, "kill-clean")}
	if res := b.Run(clean.Args("index")...); res.Code != 0 {
		return r, fmt.Errorf("clean index: %s", res)
	}
	full := store.DirBytes(clean.DB)
	for k := 0; k < kills; k++ {
		killed := Index{root, filepath.Join(work, fmt.Sprintf("kill-%d", k))}
		p, err := b.Start(killed.Args("index")...)
		if err != nil {
			return r, err
		}
		// Kill at a different point each time: after 5 % … 80 % of the
		// bytes a full index takes.
		at := full * int64(5+75*k/max(1, kills-1)) / 100
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) && store.DirBytes(killed.DB) < at {
			time.Sleep(2 * time.Millisecond)
		}
		p.Signal(syscall.SIGKILL)
		p.Wait()
		res := b.Run(killed.Args("index")...)
		r.Resumed = append(r.Resumed, res)
		if res.Code != 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("kill %d: resumed index: %s", k, res))
			continue
		}
		if err := b.SameAnswers(clean, killed, RepoQueries); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("kill %d (at %d bytes): %v", k, at, err))
		}
		os.RemoveAll(killed.DB)
	}
	return r, nil
}
