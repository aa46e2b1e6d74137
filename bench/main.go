// Command bench measures context-ls on real code and prints the figures the
// project tracks, each with its target and PASS/MISS. It is run by
// `make bench`; see README.md ("Benchmarks").
//
//	go run ./bench index   cold and warm index of the Go and Python stdlibs
//	go run ./bench search  search latency and quality on the golden queries
//	go run ./bench localise  file localisation from change descriptions
//	go run ./bench edit    edit-to-fresh latency of the language server, its memory
//
// Timings come from this shared 2-core machine: treat them as indicative and
// compare ratios printed side by side in the same run. Quality figures on
// fixed data have floors: a run that falls below one exits non-zero.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"
)

type benchCmd struct {
	name, summary string
	run           func(args []string) error
}

var benches []benchCmd

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench NAME [flags]")
		for _, b := range benches {
			fmt.Fprintf(os.Stderr, "  %-8s %s\n", b.name, b.summary)
		}
		os.Exit(2)
	}
	for _, b := range benches {
		if b.name == os.Args[1] {
			if err := b.run(os.Args[2:]); err != nil {
				fmt.Fprintf(os.Stderr, "bench %s: %v\n", b.name, err)
				os.Exit(1)
			}
			if len(belowFloor) > 0 {
				fmt.Fprintf(os.Stderr, "bench %s: below a floor or above a limit: %s\n", b.name, strings.Join(belowFloor, "; "))
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "bench: unknown %q\n", os.Args[1])
	os.Exit(2)
}

// figure prints one measured figure with its target.
func figure(name string, value float64, unit string, target float64, lowerIsBetter bool) {
	verdict := "PASS"
	if (lowerIsBetter && value > target) || (!lowerIsBetter && value < target) {
		verdict = "MISS"
	}
	cmp := "≥"
	if lowerIsBetter {
		cmp = "≤"
	}
	fmt.Printf("%-44s %10.3f %-6s target %s %g  %s\n", name, value, unit, cmp, target, verdict)
}

// belowFloor lists the floors (floor) a run fell below: the run exits
// non-zero after printing everything.
var belowFloor []string

// floor prints a quality figure that must not regress: below min, the
// bench exits non-zero. Floors are for deterministic figures (quality on
// fixed data), never for timings of a shared machine.
func floor(name string, value float64, min float64) {
	verdict := "ok"
	if value < min {
		verdict = "BELOW FLOOR"
		belowFloor = append(belowFloor, fmt.Sprintf("%s %.3f < %g", name, value, min))
	}
	fmt.Printf("%-44s %10.3f        floor  ≥ %g  %s\n", name, value, min, verdict)
}

// limit prints a speed figure with the ceiling the issue sets (lower is
// better): above max, the bench exits non-zero after printing everything.
// Timings on a shared machine are noisy: where a reference can be run in
// the same run (ctags), the figure is a ratio to it.
func limit(name string, value float64, unit string, max float64) {
	verdict := "PASS"
	if value > max {
		verdict = "ABOVE LIMIT"
		belowFloor = append(belowFloor, fmt.Sprintf("%s %.3f %s > %g", name, value, unit, max))
	}
	fmt.Printf("%-44s %10.3f %-6s limit  ≤ %g  %s\n", name, value, unit, max, verdict)
}

// info prints a figure without a target.
func info(name string, value float64, unit string) {
	fmt.Printf("%-44s %10.3f %s\n", name, value, unit)
}

func goroot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src"), nil
}

func pythonStdlib() (string, error) {
	out, err := exec.Command("python3", "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output()
	if err != nil {
		return "", fmt.Errorf("python3 stdlib path: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// repoRoot finds the checkout root (the directory holding go.mod).
func repoRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// benchDir is where benchmark indexes live (reused across runs and benches).
func benchDir() string {
	if d := os.Getenv("CONTEXT_LS_BENCH_DIR"); d != "" {
		return d
	}
	return filepath.Join(repoRoot(), ".cache", "bench")
}

func binary() string { return filepath.Join(repoRoot(), "bin", "context-ls") }

// percentile returns the q-quantile (nearest rank) of ds.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cpuTime is the CPU time (user and system) this process has used: on a
// shared machine, a steadier measure of work than elapsed time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func machine() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s %s/%s, %d CPUs, %s", host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
}

func newFlags(name string) *flag.FlagSet { return flag.NewFlagSet(name, flag.ExitOnError) }

// startProfile starts a CPU profile written to path (nothing when path is
// empty); the returned function stops it.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
