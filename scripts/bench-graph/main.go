// Command bench-graph measures context-ls's code graph against gopls and
// prints one line per figure with its target and PASS/MISS:
//
//   - callers vs gopls incoming calls on a real module (pebble from the
//     module cache): precision and recall;
//   - tests-for-symbol on the Go standard library: the share of exported
//     functions for which one of our tests is a test gopls shows calling
//     the function directly or through two hops;
//   - callers/tests latency (p50, p95) on the standard library index;
//   - the graph extraction share of indexing time.
//
// It needs gopls (golang.org/x/tools/gopls@v0.21.1: installed with "go
// install" when missing) and the Go toolchain's sources. The standard
// library index is kept in --db and reused across runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

const goplsVersion = "v0.21.1"

type options struct {
	work, db, gopls string
	targets, tests  int
	latency         int
	verbose         bool
	skipGopls       bool
	only            map[string]bool
}

// want reports whether a part of the benchmark runs.
func (o options) want(part string) bool { return len(o.only) == 0 || o.only[part] }

func main() {
	var o options
	tmp := filepath.Join(os.TempDir(), "context-ls-bench-graph")
	flag.StringVar(&o.work, "work", tmp, "scratch `DIR` for the module copy and its index")
	flag.StringVar(&o.db, "db", filepath.Join(tmp, "stdlib-index"), "index `DIR` of the Go standard library (reused)")
	flag.StringVar(&o.gopls, "gopls", "", "gopls binary (default: PATH, GOBIN, GOPATH/bin, else go install)")
	flag.IntVar(&o.targets, "targets", 60, "functions and methods compared for callers")
	flag.IntVar(&o.tests, "tests", 36, "exported standard library functions compared for tests")
	flag.IntVar(&o.latency, "latency", 200, "queries timed for latency")
	flag.BoolVar(&o.verbose, "v", false, "print every disagreement")
	flag.BoolVar(&o.skipGopls, "skip-gopls", false, "only measure latency and extraction share")
	only := flag.String("only", "", "run only these parts (comma-separated: callers, tests, latency, share)")
	flag.Parse()
	if *only != "" {
		o.only = map[string]bool{}
		for _, p := range strings.Split(*only, ",") {
			o.only[strings.TrimSpace(p)] = true
		}
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-graph:", err)
		os.Exit(1)
	}
}

// figure prints one result line.
func figure(name string, value float64, unit, cmp string, target float64) {
	ok := value >= target
	if cmp == "<=" {
		ok = value <= target
	}
	verdict := "MISS"
	if ok {
		verdict = "PASS"
	}
	fmt.Printf("FIGURE %-34s %8.3f %-3s (target %s %g) %s\n", name, value, unit, cmp, target, verdict)
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
	if !o.skipGopls && (o.want("callers") || o.want("tests")) {
		bin, err := findGopls(ctx, o.gopls)
		if err != nil {
			return err
		}
		o.gopls = bin
	}
	if !o.skipGopls && o.want("callers") {
		if err := benchCallers(ctx, o); err != nil {
			return fmt.Errorf("callers vs gopls: %w", err)
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

// funcDecl is a Go function or method picked as a benchmark target.
type funcDecl struct {
	rel       string // slash path relative to the root
	name      string
	line, col int // 1-based line, 1-based byte column of the name
	utf16Col  int // 0-based UTF-16 column for LSP
	recv      bool
	exported  bool
}

// goFuncs lists the functions and methods with bodies declared in the
// non-test, buildable Go files under root (restricted to dirs when set),
// sorted by path and position.
func goFuncs(root string, dirs []string) ([]funcDecl, error) {
	var out []funcDecl
	walk := func(base string) error {
		return filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				n := d.Name()
				if p != base && (n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
					return filepath.SkipDir
				}
				if len(dirs) > 0 && p != base {
					return filepath.SkipDir // only the package itself
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || !buildable(p) {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil || fd.Name.Name == "_" || fd.Name.Name == "init" || fd.Name.Name == "main" {
					continue
				}
				pos := fset.Position(fd.Name.Pos())
				out = append(out, funcDecl{
					rel: filepath.ToSlash(rel), name: fd.Name.Name, line: pos.Line, col: pos.Column,
					utf16Col: utf16Column(src, pos.Offset), recv: fd.Recv != nil, exported: fd.Name.IsExported(),
				})
			}
			return nil
		})
	}
	if len(dirs) == 0 {
		if err := walk(root); err != nil {
			return nil, err
		}
	}
	for _, d := range dirs {
		if err := walk(filepath.Join(root, filepath.FromSlash(d))); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].rel != out[j].rel {
			return out[i].rel < out[j].rel
		}
		return out[i].line < out[j].line
	})
	return out, nil
}

// buildable reports whether the default build context includes file p
// (gopls sees only those files).
func buildable(p string) bool {
	ok, err := build.Default.MatchFile(filepath.Dir(p), filepath.Base(p))
	return err == nil && ok
}

// utf16Column is the UTF-16 column of byte offset off within its line.
func utf16Column(src []byte, off int) int {
	ls := off
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	n := 0
	for _, r := range string(src[ls:off]) {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

// pick chooses n items spread evenly over list (deterministic).
func pick[T any](list []T, n int) []T {
	if len(list) <= n {
		return list
	}
	out := make([]T, 0, n)
	step := float64(len(list)) / float64(n)
	for i := 0; i < n; i++ {
		out = append(out, list[int(float64(i)*step+step/2)])
	}
	return out
}

// loc is a definition identified by file and the line of its name.
type loc struct {
	path string
	line int
}

// seenByGopls reports whether a caller location is in a file gopls
// type-checks: buildable with the default context and not in testdata.
func seenByGopls(root string, l loc) bool {
	if strings.Contains("/"+l.path, "/testdata/") {
		return false
	}
	return buildable(filepath.Join(root, filepath.FromSlash(l.path)))
}

// ourCallers returns our callers of a function: the resolved ones (exact
// and likely) and all (name-only too), as name locations.
func ourCallers(ctx context.Context, e *engine.Engine, root string, f funcDecl) (resolved, all map[loc]bool, err error) {
	s := e.Snapshot()
	defer s.Release()
	res, err := s.Callers(ctx, engine.Target{Path: f.rel, Line: f.line, Col: f.col})
	if err != nil {
		return nil, nil, err
	}
	resolved, all = map[loc]bool{}, map[loc]bool{}
	for _, r := range res {
		for _, it := range r.Items {
			l := loc{it.Path, it.NameLine}
			if !seenByGopls(root, l) {
				continue
			}
			all[l] = true
			if it.Confidence != "name-only" {
				resolved[l] = true
			}
		}
	}
	return resolved, all, nil
}

// goplsCallers asks gopls for the incoming calls of f.
func goplsCallers(ctx context.Context, c *lspClient, root string, f funcDecl) (map[loc]bool, []incomingCall, error) {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	abs := filepath.Join(root, filepath.FromSlash(f.rel))
	calls, err := c.incoming(qctx, abs, lspPosition{Line: f.line - 1, Character: f.utf16Col})
	if err != nil {
		return nil, nil, err
	}
	out := map[loc]bool{}
	for _, ic := range calls {
		p := uriPath(ic.From.URI)
		rel, err := filepath.Rel(root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		out[loc{filepath.ToSlash(rel), ic.From.SelectionRange.Start.Line + 1}] = true
	}
	return out, calls, nil
}

type prCounts struct{ tp, fp, fn int }

func (c *prCounts) add(ours, ref map[loc]bool) (fps, fns []loc) {
	for l := range ours {
		if ref[l] {
			c.tp++
		} else {
			c.fp++
			fps = append(fps, l)
		}
	}
	for l := range ref {
		if !ours[l] {
			c.fn++
			fns = append(fns, l)
		}
	}
	return fps, fns
}

func (c prCounts) precision() float64 {
	if c.tp+c.fp == 0 {
		return 1
	}
	return float64(c.tp) / float64(c.tp+c.fp)
}

func (c prCounts) recall() float64 {
	if c.tp+c.fn == 0 {
		return 1
	}
	return float64(c.tp) / float64(c.tp+c.fn)
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

// benchCallers compares our callers with gopls's incoming calls on pebble.
func benchCallers(ctx context.Context, o options) error {
	const module = "github.com/cockroachdb/pebble@v1.1.5"
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(module))
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		return fmt.Errorf("%s is not in the module cache (run go mod download in the repository): %w", module, err)
	}
	root := filepath.Join(o.work, "pebble")
	if !isFile(filepath.Join(root, "go.mod")) {
		if err := copyTree(src, root); err != nil {
			return fmt.Errorf("copy %s: %w", module, err)
		}
	}
	env := []string{"GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local"}
	dl := exec.CommandContext(ctx, "go", "mod", "download")
	dl.Dir, dl.Env = root, append(os.Environ(), env...)
	if b, err := dl.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod download in the pebble copy: %w: %s", err, b)
	}
	e, err := openIndexed(ctx, root, filepath.Join(o.work, "pebble-index"), 0)
	if err != nil {
		return err
	}
	defer e.Close()
	funcs, err := goFuncs(root, nil)
	if err != nil {
		return err
	}
	targets := pick(funcs, o.targets)
	nMethods := 0
	for _, f := range targets {
		if f.recv {
			nMethods++
		}
	}
	fmt.Printf("bench-graph: callers of %d pebble targets (%d methods, %d functions) of %d candidates\n",
		len(targets), nMethods, len(targets)-nMethods, len(funcs))
	c, err := startLSP(o.gopls, root, env, map[string]any{})
	if err != nil {
		return err
	}
	defer c.close()
	t0 := time.Now()
	if err := c.initialize(ctx, root); err != nil {
		return err
	}
	var resolved, all prCounts
	var ourTime, goplsTime time.Duration
	for i, f := range targets {
		g0 := time.Now()
		ref, _, err := goplsCallers(ctx, c, root, f)
		if err != nil {
			return fmt.Errorf("gopls on %s:%d %s: %w", f.rel, f.line, f.name, err)
		}
		if i == 0 {
			fmt.Printf("bench-graph: gopls loaded pebble and answered the first query in %s\n", time.Since(t0).Round(time.Millisecond))
		} else {
			goplsTime += time.Since(g0)
		}
		q0 := time.Now()
		ours, oursAll, err := ourCallers(ctx, e, root, f)
		if err != nil {
			return fmt.Errorf("context-ls on %s:%d %s: %w", f.rel, f.line, f.name, err)
		}
		ourTime += time.Since(q0)
		fps, fns := resolved.add(ours, ref)
		all.add(oursAll, ref)
		if o.verbose && (len(fps) > 0 || len(fns) > 0) {
			fmt.Printf("  %s:%d %s: gopls %d, ours %d; extra %v; missed %v\n", f.rel, f.line, f.name, len(ref), len(ours), fps, fns)
		}
	}
	fmt.Printf("bench-graph: callers pairs: gopls %d, ours %d (resolved), %d agree; query time gopls %s, context-ls %s\n",
		resolved.tp+resolved.fn, resolved.tp+resolved.fp, resolved.tp, goplsTime.Round(time.Millisecond), ourTime.Round(time.Millisecond))
	figure("callers precision vs gopls", resolved.precision(), "", ">=", 0.90)
	figure("callers recall vs gopls", resolved.recall(), "", ">=", 0.80)
	fmt.Printf("bench-graph: with name-only matches included: precision %.3f, recall %.3f\n", all.precision(), all.recall())
	return nil
}

// stdTestPackages are the standard library packages whose exported
// functions are compared for tests.
var stdTestPackages = []string{"bytes", "strings", "strconv", "unicode/utf8", "path", "sort", "encoding/hex", "encoding/base64", "container/ring", "text/tabwriter"}

func isGoTest(rel, name string) bool {
	if !strings.HasSuffix(rel, "_test.go") {
		return false
	}
	for _, p := range []string{"Test", "Benchmark", "Example", "Fuzz"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// benchTests checks that our tests for exported standard library
// functions include one gopls shows calling them (directly or in two hops).
func benchTests(ctx context.Context, o options, e *engine.Engine, root string) error {
	funcs, err := goFuncs(root, stdTestPackages)
	if err != nil {
		return err
	}
	var exported []funcDecl
	for _, f := range funcs {
		if f.exported && !f.recv {
			exported = append(exported, f)
		}
	}
	cands := pick(exported, o.tests*3/2)
	filters := []string{"-"}
	for _, p := range stdTestPackages {
		filters = append(filters, "+"+p)
	}
	settings := map[string]any{"directoryFilters": filters}
	c, err := startLSP(o.gopls, root, []string{"GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local"}, settings)
	if err != nil {
		return err
	}
	defer c.close()
	if err := c.initialize(ctx, root); err != nil {
		return err
	}
	compared, hits, noTests := 0, 0, 0
	for _, f := range cands {
		if compared >= o.tests {
			break
		}
		ref, err := goplsTests(ctx, c, root, f)
		if err != nil {
			return fmt.Errorf("gopls on %s %s: %w", f.rel, f.name, err)
		}
		if len(ref) == 0 {
			noTests++
			continue
		}
		compared++
		s := e.Snapshot()
		res, err := s.Tests(ctx, engine.Target{Path: f.rel, Line: f.line, Col: f.col})
		s.Release()
		if err != nil {
			return fmt.Errorf("context-ls tests of %s %s: %w", f.rel, f.name, err)
		}
		found, n := false, 0
		for _, r := range res {
			for _, it := range r.Items {
				n++
				if ref[loc{it.Path, it.NameLine}] {
					found = true
				}
			}
		}
		if found {
			hits++
		} else if o.verbose {
			fmt.Printf("  tests of %s.%s: none of our %d in gopls's %d\n", filepath.Base(filepath.Dir(f.rel)), f.name, n, len(ref))
		}
	}
	fmt.Printf("bench-graph: tests compared for %d exported functions (%d candidates had no test in gopls's two hops)\n", compared, noTests)
	if compared == 0 {
		return errors.New("gopls showed no tests for any candidate")
	}
	figure("tests agreeing with gopls (rate)", float64(hits)/float64(compared), "", ">=", 0.9)
	return nil
}

// goplsTests collects the tests gopls shows calling f directly or through
// one non-test caller.
func goplsTests(ctx context.Context, c *lspClient, root string, f funcDecl) (map[loc]bool, error) {
	_, calls, err := goplsCallers(ctx, c, root, f)
	if err != nil {
		return nil, err
	}
	out := map[loc]bool{}
	var mids []incomingCall
	for _, ic := range calls {
		rel, err := filepath.Rel(root, uriPath(ic.From.URI))
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if isGoTest(rel, ic.From.Name) {
			out[loc{rel, ic.From.SelectionRange.Start.Line + 1}] = true
		} else {
			mids = append(mids, ic)
		}
	}
	sort.Slice(mids, func(i, j int) bool { return mids[i].From.URI < mids[j].From.URI })
	for _, m := range pick(mids, 20) {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		var second []incomingCall
		err := c.call(qctx, "callHierarchy/incomingCalls", map[string]any{"item": m.From}, &second)
		cancel()
		if err != nil {
			return nil, err
		}
		for _, ic := range second {
			rel, err := filepath.Rel(root, uriPath(ic.From.URI))
			if err != nil {
				continue
			}
			rel = filepath.ToSlash(rel)
			if isGoTest(rel, ic.From.Name) {
				out[loc{rel, ic.From.SelectionRange.Start.Line + 1}] = true
			}
		}
	}
	return out, nil
}

// benchLatency times callers and tests queries on the standard library.
func benchLatency(ctx context.Context, o options, e *engine.Engine) error {
	s := e.Snapshot()
	all, err := s.AllSymbols()
	s.Release()
	if err != nil {
		return err
	}
	var fns []engine.SymbolInfo
	for _, si := range all {
		if (si.Kind == "function" || si.Kind == "method") && strings.HasSuffix(si.Path, ".go") && !strings.Contains(si.Path, "testdata/") {
			fns = append(fns, si)
		}
	}
	sort.Slice(fns, func(i, j int) bool {
		if fns[i].Path != fns[j].Path {
			return fns[i].Path < fns[j].Path
		}
		return fns[i].Span.StartByte < fns[j].Span.StartByte
	})
	targets := pick(fns, o.latency)
	// One snapshot for the whole run, as an editor session queries an
	// unchanged index: its resolver's caches warm up across queries.
	s = e.Snapshot()
	defer s.Release()
	for _, kind := range []string{"callers", "tests"} {
		var times, cpus []time.Duration
		for _, si := range targets {
			t := engine.Target{Path: si.Path, Line: si.NameSpan.Start.Line + 1, Col: si.NameSpan.Start.Column + 1}
			t0, c0 := time.Now(), cpuTime()
			if kind == "callers" {
				_, err = s.Callers(ctx, t)
			} else {
				_, err = s.Tests(ctx, t)
			}
			times, cpus = append(times, time.Since(t0)), append(cpus, cpuTime()-c0)
			if err != nil {
				return fmt.Errorf("%s of %s:%s: %w", kind, si.Path, si.Name, err)
			}
		}
		p50, p95, max := quantiles(times)
		c50, c95, _ := quantiles(cpus)
		fmt.Printf("bench-graph: %s latency over %d targets: p50 %s, p95 %s, max %s (process CPU per query: p50 %s, p95 %s)\n",
			kind, len(times), p50, p95, max, c50, c95)
		figure(kind+" latency p95", float64(p95.Microseconds())/1000, "ms", "<=", 10)
	}
	return nil
}

// quantiles returns the p50, p95 and maximum, rounded for printing.
func quantiles(d []time.Duration) (p50, p95, max time.Duration) {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	r := func(x time.Duration) time.Duration { return x.Round(10 * time.Microsecond) }
	return r(s[len(s)/2]), r(s[len(s)*95/100]), r(s[len(s)-1])
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchShare indexes a part of the standard library from scratch with one
// worker and reports the graph extraction's share of the indexing time.
func benchShare(ctx context.Context, o options, stdSrc string) error {
	root := filepath.Join(stdSrc, "go")
	db, err := os.MkdirTemp(o.work, "share-index-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(db)
	before := engine.GraphExtractTime()
	t0 := time.Now()
	e, err := openIndexed(ctx, root, db, 1)
	if err != nil {
		return err
	}
	total := time.Since(t0)
	e.Close()
	graphTime := engine.GraphExtractTime() - before
	fmt.Printf("bench-graph: fresh index of %s with one worker: %s, graph extraction %s\n", root, total.Round(time.Millisecond), graphTime.Round(time.Millisecond))
	fmt.Printf("FIGURE %-34s %8.3f     (share of indexing time; informational)\n", "graph extraction share", graphTime.Seconds()/total.Seconds())
	return nil
}
