// Command bench-graph measures context-ls's code graph against gopls and
// prints one FIGURE line per tracked figure with its floor and PASS/MISS;
// it exits with status 1 when a figure misses its floor.
//
//   - callers vs gopls's incoming calls on a real module (pebble v1.1.5 from
//     the module cache): precision and recall of the default list (what a
//     client shows: exact and likely; name-only guesses are reported apart),
//     over targets sampled at random with a fixed seed from every function,
//     method and interface method of the module, plus one definition of
//     each of a list of common method names (Len, Key, Name, Create …);
//   - tests-for-symbol on the same targets: of those gopls shows a test
//     for (calling it directly or through one caller), how many get one of
//     those tests from us;
//   - the same on a generics-heavy module (gods v2: generic containers,
//     constructors and interfaces), recall floor 0.95;
//   - callers and tests-for-symbol in Python and TypeScript against
//     pyright and tsserver (refs.go says how they are compared);
//   - tests-for-symbol on exported Go standard library functions;
//   - callers/tests latency (p50, p95; the floor is on the process CPU time
//     per query, which a busy machine disturbs less than wall time) on the
//     standard library index;
//   - the graph extraction share of indexing time (informational).
//
// A caller is compared by its file and the line of its enclosing
// function's name, as gopls's call hierarchy groups references: by the
// named function around them (a package-level initializer by the name it
// initializes).
//
// It needs gopls (golang.org/x/tools/gopls@v0.21.1: installed with "go
// install" when missing) and the Go toolchain's sources; for Python and
// TypeScript, git copies of the repositories under --mirrors and npm. The
// standard library index is kept in --db and reused across runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

const goplsVersion = "v0.21.1"

// Floors of the tracked figures: the run fails below them.
const (
	floorPrecision  = 0.95
	floorRecall     = 0.85
	floorTestsFound = 0.94 // 16 of 17
	floorStdTests   = 0.90
	floorLatencyMs  = 10.0 // CPU per callers/tests query, p95
	// Recall on a generics-heavy module.
	floorGenericsRecall = 0.95
)

type options struct {
	work, db, gopls string
	targets, tests  int
	seed            uint64
	spread          bool
	latency         int
	verbose         bool
	skipGopls       bool
	only            map[string]bool
	// The reference comparisons in Python and TypeScript.
	mirrors, tools string
	refTargets     int
	repos          map[string]bool
}

// want reports whether a part of the benchmark runs.
func (o options) want(part string) bool { return len(o.only) == 0 || o.only[part] }

func main() {
	var o options
	tmp := filepath.Join(os.TempDir(), "context-ls-bench-graph")
	flag.StringVar(&o.work, "work", tmp, "scratch `DIR` for the module copy and its index")
	flag.StringVar(&o.db, "db", filepath.Join(tmp, "stdlib-index"), "index `DIR` of the Go standard library (reused)")
	flag.StringVar(&o.gopls, "gopls", "", "gopls binary (default: PATH, GOBIN, GOPATH/bin, else go install)")
	flag.IntVar(&o.targets, "targets", 60, "randomly sampled pebble functions and methods compared for callers (common names come on top)")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the target sample")
	flag.BoolVar(&o.spread, "spread", false, "pick targets evenly spread over the sorted declarations instead of at random (the sampling of earlier runs)")
	flag.IntVar(&o.tests, "tests", 36, "exported standard library functions compared for tests")
	flag.IntVar(&o.latency, "latency", 200, "queries timed for latency")
	flag.BoolVar(&o.verbose, "v", false, "print every disagreement")
	flag.BoolVar(&o.skipGopls, "skip-gopls", false, "only measure latency and extraction share")
	flag.StringVar(&o.mirrors, "mirrors", os.Getenv("CONTEXT_EVAL_MIRRORS"), "`DIR` of git copies (owner+name[/repo]) of the Python and TypeScript repositories")
	flag.StringVar(&o.tools, "tools", "", "`DIR` the reference servers are installed into from npm (default: WORK/tools)")
	flag.IntVar(&o.refTargets, "ref-targets", 60, "randomly sampled functions and methods per Python or TypeScript repository")
	repos := flag.String("repos", "", "measure only these Python and TypeScript repositories (comma-separated: httpx, hono, p-queue)")
	only := flag.String("only", "", "run only these parts (comma-separated: callers, generics, refs, tests, latency, share)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to `FILE`")
	flag.Parse()
	// gopls is given the module copy as a file URI, which must be absolute:
	// a relative --work made it answer "no views" to every query.
	for _, p := range []*string{&o.work, &o.db, &o.tools} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-graph:", err)
			os.Exit(2)
		}
		*p = abs
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-graph:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if o.tools == "" {
		o.tools = filepath.Join(o.work, "tools")
	}
	if *repos != "" {
		o.repos = map[string]bool{}
		for _, p := range strings.Split(*repos, ",") {
			o.repos[strings.TrimSpace(p)] = true
		}
	}
	if *only != "" {
		o.only = map[string]bool{}
		for _, p := range strings.Split(*only, ",") {
			o.only[strings.TrimSpace(p)] = true
		}
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-graph:", err)
		exit(1)
	}
	if len(misses) > 0 {
		fmt.Fprintf(os.Stderr, "bench-graph: %d figure(s) below their floor: %s\n", len(misses), strings.Join(misses, "; "))
		exit(1)
	}
}

// exit stops the CPU profile, if any, and exits with code.
func exit(code int) {
	pprof.StopCPUProfile()
	os.Exit(code)
}

// misses names the figures that missed their floor.
var misses []string

// figure prints one result line and records a miss.
func figure(name string, value float64, unit, cmp string, target float64) {
	ok := value >= target
	if cmp == "<=" {
		ok = value <= target
	}
	verdict := "PASS"
	if !ok {
		verdict = "MISS"
		misses = append(misses, fmt.Sprintf("%s %.3f (floor %s %g)", name, value, cmp, target))
	}
	fmt.Printf("FIGURE %-38s %8.3f %-3s (target %s %g) %s\n", name, value, unit, cmp, target, verdict)
}

func run(ctx context.Context, o options) error {
	start := time.Now()
	fmt.Printf("bench-graph: GOMAXPROCS=%d, %s; figures from a shared machine, expect noise\n", runtime.GOMAXPROCS(0), runtime.Version())
	if err := os.MkdirAll(o.work, 0o755); err != nil {
		return err
	}
	goroot := runtime.GOROOT()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		goroot = strings.TrimSpace(string(out))
	}
	stdSrc := filepath.Join(goroot, "src")
	if _, err := os.Stat(filepath.Join(stdSrc, "strings", "strings.go")); err != nil {
		return fmt.Errorf("no Go standard library sources under %s: %w", stdSrc, err)
	}
	if !o.skipGopls && (o.want("callers") || o.want("generics") || o.want("tests")) {
		bin, err := findGopls(ctx, o.gopls)
		if err != nil {
			return err
		}
		o.gopls = bin
	}
	if !o.skipGopls && o.want("callers") {
		if err := benchCallers(ctx, o, pebble); err != nil {
			return fmt.Errorf("callers vs gopls: %w", err)
		}
	}
	if !o.skipGopls && o.want("generics") {
		err := benchCallers(ctx, o, gods)
		var skip skipError
		if errors.As(err, &skip) {
			fmt.Printf("bench-graph: SKIP %s: %s\n", gods.name, skip)
		} else if err != nil {
			return fmt.Errorf("callers vs gopls on %s: %w", gods.module, err)
		}
	}
	if o.want("refs") {
		if err := benchRefs(ctx, o); err != nil {
			return fmt.Errorf("callers vs pyright and tsserver: %w", err)
		}
	}
	if o.want("tests") || o.want("latency") {
		std, err := openIndexed(ctx, stdSrc, o.db, 0)
		if err != nil {
			return fmt.Errorf("standard library index: %w", err)
		}
		defer std.Close()
		if !o.skipGopls && o.want("tests") {
			if err := benchTests(ctx, o, std, stdSrc); err != nil {
				return fmt.Errorf("tests vs gopls: %w", err)
			}
		}
		if o.want("latency") {
			if err := benchLatency(ctx, o, std); err != nil {
				return fmt.Errorf("latency: %w", err)
			}
		}
	}
	if o.want("share") {
		if err := benchShare(ctx, o, stdSrc); err != nil {
			return fmt.Errorf("extraction share: %w", err)
		}
	}
	fmt.Printf("bench-graph: done in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// findGopls returns a gopls binary, installing the pinned version when
// none is found.
func findGopls(ctx context.Context, flagPath string) (string, error) {
	if flagPath != "" {
		return flagPath, nil
	}
	if p, err := exec.LookPath("gopls"); err == nil {
		return p, nil
	}
	var dirs []string
	for _, v := range []string{"GOBIN", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil || strings.TrimSpace(string(out)) == "" {
			continue
		}
		d := strings.TrimSpace(string(out))
		if v == "GOPATH" {
			d = filepath.Join(strings.Split(d, string(os.PathListSeparator))[0], "bin")
		}
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if p := filepath.Join(d, "gopls"); isFile(p) {
			return p, nil
		}
	}
	fmt.Printf("bench-graph: installing gopls@%s\n", goplsVersion)
	cmd := exec.CommandContext(ctx, "go", "install", "golang.org/x/tools/gopls@"+goplsVersion)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go install gopls: %w", err)
	}
	for _, d := range dirs {
		if p := filepath.Join(d, "gopls"); isFile(p) {
			return p, nil
		}
	}
	return "", errors.New("gopls installed but not found in GOBIN or GOPATH/bin")
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// openIndexed opens (and brings up to date) the index of root in db.
func openIndexed(ctx context.Context, root, db string, workers int) (*engine.Engine, error) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false // the graph needs no vectors
	e, err := engine.Open(ctx, root, engine.Options{DBDir: db, Config: cfg, Workers: workers, Logger: log})
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	res, err := e.Index(ctx, nil)
	if err != nil {
		e.Close()
		return nil, err
	}
	fmt.Printf("bench-graph: index of %s: %d files (%d indexed, %d unchanged) in %s\n",
		root, res.Files, res.Indexed, res.Unchanged, time.Since(t0).Round(time.Millisecond))
	return e, nil
}

// copyTree copies a directory tree (module cache files are read-only).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
