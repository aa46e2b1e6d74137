package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
)

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

// graphLocs collects the name locations of graph items gopls can see,
// with the kind of reason that resolved each (its first two words).
func graphLocs(root string, items []engine.GraphItem, into map[loc]string) {
	for _, it := range items {
		if l := (loc{it.Path, it.NameLine}); seenByGopls(root, l) {
			words := strings.Fields(it.Reason)
			into[l] = strings.Join(words[:min(2, len(words))], " ")
		}
	}
}

func locSet[V any](m map[loc]V) map[loc]bool {
	out := make(map[loc]bool, len(m))
	for l := range m {
		out[l] = true
	}
	return out
}

// ourCallers returns our callers of a function as name locations with
// their reason kind: the default list a client shows (Items), and the
// name-only guesses apart.
func ourCallers(ctx context.Context, e *engine.Engine, root string, f funcDecl) (items, guesses map[loc]string, err error) {
	s := e.Snapshot()
	defer s.Release()
	res, err := s.Callers(ctx, engine.Target{Path: f.rel, Line: f.line, Col: f.col})
	if err != nil {
		return nil, nil, err
	}
	items, guesses = map[loc]string{}, map[loc]string{}
	for _, r := range res {
		graphLocs(root, r.Items, items)
		graphLocs(root, r.Guesses, guesses)
	}
	return items, guesses, nil
}

// ourTests returns the name locations of our tests of a function (the
// default list).
func ourTests(ctx context.Context, e *engine.Engine, root string, f funcDecl) (map[loc]bool, error) {
	s := e.Snapshot()
	defer s.Release()
	res, err := s.Tests(ctx, engine.Target{Path: f.rel, Line: f.line, Col: f.col})
	if err != nil {
		return nil, err
	}
	out := map[loc]string{}
	for _, r := range res {
		graphLocs(root, r.Items, out)
	}
	return locSet(out), nil
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

// goplsTests collects the tests gopls shows calling f directly or through
// one non-test caller (of at most 20 callers, spread over them).
func goplsTests(ctx context.Context, c *lspClient, root string, calls []incomingCall) (map[loc]bool, error) {
	out := map[loc]bool{}
	var mids []incomingCall
	for _, ic := range calls {
		if !addTest(root, ic, out) {
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
			addTest(root, ic, out)
		}
	}
	return out, nil
}

// addTest adds the caller of ic to tests when it is a Go test, and
// reports whether it was.
func addTest(root string, ic incomingCall, tests map[loc]bool) bool {
	rel, err := filepath.Rel(root, uriPath(ic.From.URI))
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	if !isGoTest(rel, ic.From.Name) {
		return false
	}
	tests[loc{rel, ic.From.SelectionRange.Start.Line + 1}] = true
	return true
}

// prCounts counts agreements with a reference set.
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
	sortLocs(fps)
	sortLocs(fns)
	return fps, fns
}

func sortLocs(ls []loc) {
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].path != ls[j].path {
			return ls[i].path < ls[j].path
		}
		return ls[i].line < ls[j].line
	})
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

func (c prCounts) String() string {
	return fmt.Sprintf("precision %.3f, recall %.3f (reference %d, ours %d, agree %d)", c.precision(), c.recall(), c.tp+c.fn, c.tp+c.fp, c.tp)
}

// goModule is a Go module measured against gopls.
type goModule struct {
	name    string // short name in figures
	module  string // path@version, from the module proxy
	recall  float64
	testsOK float64 // floor of the tests found rate
}

var (
	pebble = goModule{name: "pebble", module: "github.com/cockroachdb/pebble@v1.1.5", recall: floorRecall, testsOK: floorTestsFound}
	// A generics-heavy module (generic containers: New[T]() constructors,
	// methods on generic types, generic interfaces), not one the team
	// measures on.
	gods = goModule{name: "gods", module: "github.com/emirpasic/gods/v2@v2.0.0-alpha", recall: floorGenericsRecall, testsOK: floorTestsFound}
)

// moduleCopy copies a module from the module cache (downloaded through
// the module proxy when missing) into the work directory (once) and
// downloads its dependencies for gopls.
func moduleCopy(ctx context.Context, o options, m goModule, env []string) (string, error) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	path, version, _ := strings.Cut(m.module, "@")
	src := filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(escapeModule(path)+"@"+version))
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		dl := exec.CommandContext(ctx, "go", "mod", "download", m.module)
		dl.Dir = o.work
		if b, err := dl.CombinedOutput(); err != nil {
			return "", errSkip(fmt.Sprintf("%s is not in the module cache and go mod download failed: %v: %s", m.module, err, lastLines(b, 2)))
		}
	}
	root := filepath.Join(o.work, m.name)
	if !isFile(filepath.Join(root, "go.mod")) {
		if err := copyTree(src, root); err != nil {
			return "", fmt.Errorf("copy %s: %w", m.module, err)
		}
	}
	dl := exec.CommandContext(ctx, "go", "mod", "download")
	dl.Dir, dl.Env = root, append(os.Environ(), env...)
	if b, err := dl.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go mod download in the %s copy: %w: %s", m.name, err, b)
	}
	return root, nil
}

// escapeModule is a module path as the module cache spells it (upper
// case letters as !lower).
func escapeModule(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// benchCallers compares our callers and tests with gopls's incoming calls
// on a module, over the sampled targets.
func benchCallers(ctx context.Context, o options, m goModule) error {
	env := []string{"GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local"}
	root, err := moduleCopy(ctx, o, m, env)
	if err != nil {
		return err
	}
	e, err := openIndexed(ctx, root, filepath.Join(o.work, m.name+"-index"), 0)
	if err != nil {
		return err
	}
	defer e.Close()
	funcs, err := goFuncs(root, nil)
	if err != nil {
		return err
	}
	targets := sampleTargets(funcs, o.targets, o.seed, o.spread)
	kinds := map[string]int{}
	for _, t := range targets {
		kinds[t.kind()]++
	}
	how := fmt.Sprintf("at random (seed %d)", o.seed)
	if o.spread {
		how = "spread evenly"
	}
	fmt.Printf("bench-graph: callers of %d %s targets of %d candidates, %d %s plus %d of common names: %d functions, %d methods, %d interface methods\n",
		len(targets), m.name, len(funcs), min(o.targets, len(funcs)), how, len(targets)-min(o.targets, len(funcs)),
		kinds["function"], kinds["method"], kinds["interface method"])
	c, err := startLSP(o.gopls, root, env, map[string]any{})
	if err != nil {
		return err
	}
	defer c.close()
	t0 := time.Now()
	if err := c.initialize(ctx, root); err != nil {
		return err
	}
	var items, withGuesses prCounts
	strata := map[string]*prCounts{}
	byReason := map[string]*prCounts{} // callers we list, by the kind of reason
	withTests, testsFound := 0, 0
	var ourTime, goplsTime time.Duration
	for i, t := range targets {
		g0 := time.Now()
		ref, calls, err := goplsCallers(ctx, c, root, t.funcDecl)
		if err != nil {
			return fmt.Errorf("gopls on %s:%d %s: %w", t.rel, t.line, t.name, err)
		}
		if i == 0 {
			fmt.Printf("bench-graph: gopls loaded %s and answered the first query in %s\n", m.name, time.Since(t0).Round(time.Millisecond))
		} else {
			goplsTime += time.Since(g0)
		}
		q0 := time.Now()
		reasons, guesses, err := ourCallers(ctx, e, root, t.funcDecl)
		if err != nil {
			return fmt.Errorf("context-ls on %s:%d %s: %w", t.rel, t.line, t.name, err)
		}
		ourTime += time.Since(q0)
		ours := locSet(reasons)
		fps, fns := items.add(ours, ref)
		all := locSet(guesses)
		for l := range ours {
			all[l] = true
		}
		withGuesses.add(all, ref)
		for l, why := range reasons {
			if byReason[why] == nil {
				byReason[why] = &prCounts{}
			}
			if ref[l] {
				byReason[why].tp++
			} else {
				byReason[why].fp++
			}
		}
		for _, s := range []string{t.kind(), t.stratum} {
			if strata[s] == nil {
				strata[s] = &prCounts{}
			}
			strata[s].add(ours, ref)
		}
		if o.verbose && (len(fps) > 0 || len(fns) > 0) {
			fmt.Printf("  %s:%d %s (%s, %s): gopls %d, ours %d\n", t.rel, t.line, t.name, t.kind(), t.stratum, len(ref), len(ours))
			explain(root, t.funcDecl, e, fps, fns, calls)
		}
		refTests, err := goplsTests(ctx, c, root, calls)
		if err != nil {
			return fmt.Errorf("gopls tests of %s:%d %s: %w", t.rel, t.line, t.name, err)
		}
		if len(refTests) == 0 {
			continue
		}
		withTests++
		tests, err := ourTests(ctx, e, root, t.funcDecl)
		if err != nil {
			return fmt.Errorf("context-ls tests of %s:%d %s: %w", t.rel, t.line, t.name, err)
		}
		found := false
		for l := range tests {
			found = found || refTests[l]
		}
		if found {
			testsFound++
		} else if o.verbose {
			fmt.Printf("  tests of %s:%d %s: none of our %d in gopls's %d\n", t.rel, t.line, t.name, len(tests), len(refTests))
		}
	}
	fmt.Printf("bench-graph: callers query time gopls %s, context-ls %s\n", goplsTime.Round(time.Millisecond), ourTime.Round(time.Millisecond))
	for _, s := range []string{"function", "method", "interface method", "random", "common name"} {
		if strata[s] != nil {
			fmt.Printf("bench-graph: callers of %-16s targets: %s\n", s, strata[s])
		}
	}
	if o.verbose {
		var whys []string
		for why := range byReason {
			whys = append(whys, why)
		}
		sort.Strings(whys)
		for _, why := range whys {
			fmt.Printf("bench-graph: callers listed for reason %-26q agree with gopls %4d, not %4d\n", why, byReason[why].tp, byReason[why].fp)
		}
	}
	prefix := ""
	if m != pebble {
		prefix = m.name + " " // pebble's figures keep their names
	}
	fmt.Printf("bench-graph: %scallers, default list:             %s\n", prefix, items)
	fmt.Printf("bench-graph: %scallers, name-only guesses added:  %s\n", prefix, withGuesses)
	figure(prefix+"callers precision vs gopls", items.precision(), "", ">=", floorPrecision)
	figure(prefix+"callers recall vs gopls", items.recall(), "", ">=", m.recall)
	fmt.Printf("bench-graph: tests-for-symbol on %s: %d of the %d targets gopls shows a test for\n", m.name, testsFound, withTests)
	if withTests > 0 {
		figure(m.name+" tests found (rate)", float64(testsFound)/float64(withTests), "", ">=", m.testsOK)
	}
	return nil
}

// explain prints, for a target's disagreements, the reason of each extra
// caller and the first call site of each missed one.
func explain(root string, f funcDecl, e *engine.Engine, fps, fns []loc, calls []incomingCall) {
	s := e.Snapshot()
	defer s.Release()
	res, err := s.Callers(context.Background(), engine.Target{Path: f.rel, Line: f.line, Col: f.col})
	if err != nil {
		return
	}
	for _, l := range fps {
		for _, r := range res {
			for _, it := range r.Items {
				if it.Path == l.path && it.NameLine == l.line {
					fmt.Printf("    extra  %s:%d %s: %s %s\n", l.path, l.line, it.Symbol, it.Confidence, it.Reason)
				}
			}
		}
	}
	for _, l := range fns {
		for _, ic := range calls {
			rel, _ := filepath.Rel(root, uriPath(ic.From.URI))
			if filepath.ToSlash(rel) != l.path || ic.From.SelectionRange.Start.Line+1 != l.line || len(ic.FromRanges) == 0 {
				continue
			}
			line := ic.FromRanges[0].Start.Line
			text := ""
			if b, err := os.ReadFile(filepath.Join(root, rel)); err == nil {
				if lines := strings.Split(string(b), "\n"); line < len(lines) {
					text = strings.TrimSpace(lines[line])
				}
			}
			fmt.Printf("    missed %s:%d %s at line %d: %s\n", l.path, l.line, ic.From.Name, line+1, text)
		}
	}
}
