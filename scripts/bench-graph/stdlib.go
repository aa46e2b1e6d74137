package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/context-ls/context-ls/engine"
)

// stdTestPackages are the standard library packages whose exported
// functions are compared for tests.
var stdTestPackages = []string{"bytes", "strings", "strconv", "unicode/utf8", "path", "sort", "encoding/hex", "encoding/base64", "container/ring", "text/tabwriter"}

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
		_, calls, err := goplsCallers(ctx, c, root, f)
		if err != nil {
			return fmt.Errorf("gopls on %s %s: %w", f.rel, f.name, err)
		}
		ref, err := goplsTests(ctx, c, root, calls)
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
	figure("stdlib tests agreeing with gopls (rate)", float64(hits)/float64(compared), "", ">=", floorStdTests)
	return nil
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
		if o.verbose {
			order := make([]int, len(times))
			for i := range order {
				order[i] = i
			}
			sort.Slice(order, func(a, b int) bool { return cpus[order[a]] > cpus[order[b]] })
			for _, i := range order[:min(5, len(order))] {
				fmt.Printf("  slowest: %s %s (%s): %s, CPU %s\n", targets[i].Path, targets[i].Qualified(), kind, times[i].Round(10*time.Microsecond), cpus[i].Round(10*time.Microsecond))
			}
		}
		// The floor is on CPU time: on a machine shared with other work the
		// wall time mostly measures the queue for a core.
		figure(kind+" CPU per query p95", float64(c95.Microseconds())/1000, "ms", "<=", floorLatencyMs)
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
