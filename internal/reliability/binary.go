// Package reliability drives the built context-ls binary through what a
// real machine does to it — a full disk, a huge file, a corrupted index,
// kill -9 in the middle of an index — and reports what it saw. The short
// suite (this package's tests, run by make test) and the long one (go run
// ./bench reliability, make bench-reliability) run the same scenarios at
// different sizes. Only the command line is used, so the scenarios hold
// whatever the front ends become.
package reliability

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Bin is a built context-ls binary.
type Bin struct{ Path string }

// Build compiles the context-ls command of the module holding the
// current directory into dir.
func Build(dir string) (Bin, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return Bin{}, fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return Bin{}, errors.New("not inside the context-ls module")
	}
	bin := filepath.Join(dir, "context-ls")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/context-ls")
	cmd.Dir = filepath.Dir(mod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return Bin{}, fmt.Errorf("build context-ls: %w\n%s", err, out)
	}
	return Bin{Path: bin}, nil
}

// Result is what one run of the binary did.
type Result struct {
	Stdout, Stderr string
	Code           int // exit status; -1 when killed by a signal
	Elapsed        time.Duration
	CPU            time.Duration // user and system time
	MaxRSS         int64         // peak resident memory, bytes
}

// OneLine reports whether stderr holds exactly one non-empty line.
func (r Result) OneLine() bool {
	s := strings.TrimSpace(r.Stderr)
	return s != "" && !strings.Contains(s, "\n")
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d after %s, stdout %q, stderr %q", r.Code, r.Elapsed.Round(time.Millisecond), clip(r.Stdout), clip(r.Stderr))
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// runTimeout bounds every run: a hang is a failure, not a stuck suite.
const runTimeout = 5 * time.Minute

// Run runs the binary with args (embeddings off) to completion.
func (b Bin) Run(args ...string) Result {
	p, err := b.Start(args...)
	if err != nil {
		return Result{Stderr: err.Error(), Code: -1}
	}
	return p.Wait()
}

// Proc is a running binary.
type Proc struct {
	cmd      *exec.Cmd
	out, err bytes.Buffer
	start    time.Time
	cancel   context.CancelFunc
}

// Start starts the binary with args (embeddings off).
func (b Bin) Start(args ...string) (*Proc, error) { return b.start(nil, args...) }

func (b Bin) start(stdin io.Reader, args ...string) (*Proc, error) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	p := &Proc{cancel: cancel}
	p.cmd = exec.CommandContext(ctx, b.Path, args...)
	p.cmd.Stdin = stdin
	p.cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start %s: %w", b.Path, err)
	}
	return p, nil
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Wait waits for the process to end.
func (p *Proc) Wait() Result {
	err := p.cmd.Wait()
	p.cancel()
	r := Result{Stdout: p.out.String(), Stderr: p.err.String(), Elapsed: time.Since(p.start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		r.Code, r.Stderr = -1, r.Stderr+err.Error()
	}
	r.CPU = p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSS = ru.Maxrss * 1024
	}
	return r
}

// Index is the --root/--db pair of a workspace and an index location.
type Index struct{ Root, DB string }

// Args returns args followed by --root and --db.
func (ix Index) Args(args ...string) []string {
	return append(args, "--root", ix.Root, "--db", ix.DB)
}

// Dir returns the index directory inside DB (there is one per workspace).
func (ix Index) Dir() (string, error) {
	entries, err := os.ReadDir(ix.DB)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() {
			return filepath.Join(ix.DB, e.Name()), nil
		}
	}
	return "", fmt.Errorf("no index in %s", ix.DB)
}

// SameAnswers runs each query against both indexes and returns an error
// describing the first difference in search results or counts.
func (b Bin) SameAnswers(want, got Index, queries []string) error {
	for _, q := range queries {
		a, g := b.Run(want.Args("search", "--json", "--k", "10", q)...), b.Run(got.Args("search", "--json", "--k", "10", q)...)
		if a.Code != 0 || g.Code != 0 || a.Stdout != g.Stdout {
			return fmt.Errorf("search %q: reference: %s; checked: %s", q, a, g)
		}
	}
	a, g := b.Run(want.Args("symbols", "--json")...), b.Run(got.Args("symbols", "--json")...)
	if a.Code != 0 || g.Code != 0 || a.Stdout != g.Stdout {
		return fmt.Errorf("symbols differ: reference: %s; checked: %s", a, g)
	}
	return nil
}
