package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/context-ls/context-ls/workspace"
)

// LargeFileReport is what the large-file scenario saw.
type LargeFileReport struct {
	Index    Result // index of a workspace holding the large file
	Why      Result // files --why on the large file
	Search   Result // search for a function of an ordinary file beside it
	Problems []string
}

// maxIndexRSS bounds the memory of indexing a workspace whose large file
// is refused (a small workspace otherwise).
const maxIndexRSS = 400 << 20

// LargeFile runs the large-file scenario: a dense Go file of size bytes
// beside an ordinary one, under maxFileSize = "1GiB". Above the hard
// limit the file is refused with a reason files --why gives, and the
// index stays small; below it, it is indexed.
func LargeFile(b Bin, work string, size int64) (LargeFileReport, error) {
	var r LargeFileReport
	root := filepath.Join(work, "large")
	if err := WriteFiles(root, map[string]string{
		".context-ls.toml": "maxFileSize = \"1GiB\"\n",
		"small/small.go":   "package small\n\n// Ordinary is an ordinary function.\nfunc Ordinary() {}\n",
	}); err != nil {
		return r, err
	}
	if err := WriteDenseGo(filepath.Join(root, "big.go"), size); err != nil {
		return r, err
	}
	ix := Index{root, filepath.Join(work, "large-db")}
	r.Index = b.Run(ix.Args("index")...)
	r.Why = b.Run("files", "--root", root, "--why", "big.go")
	r.Search = b.Run(ix.Args("search", "--json", "Ordinary")...)
	check := func(ok bool, format string, args ...any) {
		if !ok {
			r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
		}
	}
	check(r.Index.Code == 0, "index with a %d-byte file: %s", size, r.Index)
	if size > workspace.HardMaxFileSize {
		check(strings.Contains(r.Why.Stdout, "excluded") && strings.Contains(r.Why.Stdout, "hard limit"),
			"files --why on a %d-byte file: %s, want it excluded by the hard limit", size, r.Why)
		check(r.Index.MaxRSS < maxIndexRSS, "index refusing a %d-byte file peaked at %d MiB", size, r.Index.MaxRSS>>20)
	} else {
		check(strings.Contains(r.Why.Stdout, "included"), "files --why on a %d-byte file: %s", size, r.Why)
	}
	check(r.Search.Code == 0 && strings.Contains(r.Search.Stdout, `"symbol": "Ordinary"`), "search beside a large file: %s", r.Search)
	return r, nil
}

// Interrupt starts `index` on a workspace holding one dense Go file of
// size bytes, sends SIGTERM after delay and returns the run and the time
// from the signal to the exit.
func Interrupt(b Bin, work string, size int64, delay time.Duration) (Result, time.Duration, error) {
	root := filepath.Join(work, "interrupt")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return Result{}, 0, err
	}
	if err := os.WriteFile(filepath.Join(root, ".context-ls.toml"), []byte("maxFileSize = \"1GiB\"\n"), 0o644); err != nil {
		return Result{}, 0, err
	}
	if err := WriteDenseGo(filepath.Join(root, "big.go"), size); err != nil {
		return Result{}, 0, err
	}
	return interruptIndex(b, Index{root, filepath.Join(work, "interrupt-db")}, delay)
}

// interruptIndex starts index on ix (its DB removed first), sends SIGTERM
// after delay and returns the run and the time from the signal to the
// exit.
func interruptIndex(b Bin, ix Index, delay time.Duration) (Result, time.Duration, error) {
	os.RemoveAll(ix.DB)
	p, err := b.Start(ix.Args("index")...)
	if err != nil {
		return Result{}, 0, err
	}
	time.Sleep(delay)
	sent := time.Now()
	p.Signal(syscall.SIGTERM)
	res := p.Wait()
	return res, time.Since(sent), nil
}
