package graph

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/context-ls/context-ls/symbols"
)

// Edge is one caller or callee of a definition, with the call sites.
type Edge struct {
	// Def is the other end: the calling definition (Callers) or the called
	// one (Callees). For a call made at file level Def.Ord is -1 and only
	// Path and Lang are set.
	Def Def
	// Test is set when the caller is a test; a Jest/Mocha block that is
	// not a symbol has Def.Ord -1 and its name and span here.
	Test *Test
	// Sites are the call-site ranges (the callee name) in the calling
	// file, in source order.
	Sites      []symbols.Span
	Confidence Confidence
	// Reason says what decided the edge ("qualified by import strings",
	// "receiver type DB", "name only: receiver type unknown" …).
	Reason string
}

// Result is the answer to Callers or Callees.
type Result struct {
	// Edges are the edges the graph can justify: exact and likely, best
	// first.
	Edges []Edge
	// Guesses are name-only edges: the name matches but nothing known
	// about the qualifier ties the call to the definition. They are never
	// part of Edges; the first Options.MaxNameOnly are kept.
	Guesses []Edge
	// Omitted counts the edges past MaxResults and the guesses past
	// MaxNameOnly that were left out.
	Omitted int
	// Unresolved lists callees of Callees that match no workspace
	// definition, as written ("fmt.Println"), deduplicated.
	Unresolved []string
}

// ErrNotFound is returned when a query's definition is not in the index.
var ErrNotFound = errors.New("graph: definition not found")

// edgeKey groups call sites by their calling definition (or test block).
type edgeKey struct {
	path string
	ord  int
	test string
}

type collector struct {
	edges map[edgeKey]*Edge
	order []edgeKey
}

func newCollector() *collector { return &collector{edges: map[edgeKey]*Edge{}} }

func (c *collector) add(k edgeKey, def Def, test *Test, site symbols.Span, conf Confidence, reason string) {
	e, ok := c.edges[k]
	if !ok {
		e = &Edge{Def: def, Test: test, Confidence: conf, Reason: reason}
		c.edges[k] = e
		c.order = append(c.order, k)
	} else if conf > e.Confidence {
		e.Confidence, e.Reason = conf, reason
	}
	for _, s := range e.Sites {
		if s.StartByte == site.StartByte {
			return
		}
	}
	e.Sites = append(e.Sites, site)
}

// result sorts edges (confidence, then path and line) and splits them into
// justified edges and name-only guesses, each capped.
func (c *collector) result(opts Options) Result {
	var res Result
	edges := make([]Edge, 0, len(c.order))
	for _, k := range c.order {
		e := c.edges[k]
		sort.Slice(e.Sites, func(i, j int) bool { return e.Sites[i].StartByte < e.Sites[j].StartByte })
		edges = append(edges, *e)
	}
	sort.SliceStable(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		if a.Def.Path != b.Def.Path {
			return a.Def.Path < b.Def.Path
		}
		return firstLine(a) < firstLine(b)
	})
	for _, e := range edges {
		switch {
		case e.Confidence == NameOnly && len(res.Guesses) < opts.MaxNameOnly:
			res.Guesses = append(res.Guesses, e)
		case e.Confidence != NameOnly && len(res.Edges) < opts.MaxResults:
			res.Edges = append(res.Edges, e)
		default:
			res.Omitted++
		}
	}
	return res
}

func firstLine(e Edge) int {
	if len(e.Sites) > 0 {
		return e.Sites[0].Start.Line
	}
	return e.Def.Span.Start.Line
}

// Member finds method m of type definition d as a call on a value of the
// type reaches it: the type's own, else the one it inherits from a base
// class or an embedded field (bases in order, depth first).
func (r *Resolver) Member(d Def, m string) (Def, bool, error) {
	g, err := r.graph(d.Path)
	if err != nil || g == nil || !isTypeKind(d.Kind) {
		return Def{}, false, err
	}
	return r.findMethod(typeRef{name: d.Name, module: g.Module, lang: d.Lang, from: d.Path}, m, 0)
}

// Lookup returns the definition at ord of path.
func (r *Resolver) Lookup(p string, ord int) (Def, error) {
	g, err := r.graph(p)
	if err != nil {
		return Def{}, err
	}
	lang := ""
	if g != nil {
		lang = g.Lang
	}
	return r.lookup(p, ord, lang)
}

// lookup returns the definition at ord of path, of a known language.
func (r *Resolver) lookup(p string, ord int, lang string) (Def, error) {
	if ord < 0 {
		return Def{}, fmt.Errorf("%s#%d: %w", p, ord, ErrNotFound)
	}
	sym, err := r.symbol(p, ord)
	if err != nil {
		return Def{}, fmt.Errorf("%s#%d: %w", p, ord, ErrNotFound)
	}
	return Def{Path: p, Ord: ord, Lang: lang, Symbol: sym}, nil
}

// target maps a definition to the one whose call sites reach it: a
// constructor is called through its class name.
func (r *Resolver) target(d Def) (Def, error) {
	if d.Kind != symbols.KindConstructor || d.Parent < 0 {
		return d, nil
	}
	cls, err := r.lookup(d.Path, d.Parent, d.Lang)
	if errors.Is(err, ErrNotFound) {
		return d, nil
	}
	if err != nil {
		return Def{}, err
	}
	if isTypeKind(cls.Kind) {
		return cls, nil
	}
	return d, nil
}

// siteKeys lists the reverse keys under which calls of d are stored.
func (r *Resolver) siteKeys(d Def) ([]string, error) {
	keys := []string{CalleeKey(d.Name), TestCalleeKey(d.Name)}
	g, err := r.graph(d.Path)
	if err != nil {
		return nil, err
	}
	if g != nil && g.DefaultExport != "" && g.DefaultExport == d.Name {
		keys = append(keys, DefaultExportKey)
	}
	if isAccessor(g, d) {
		keys = append(keys, AccessKey(d.Name), TestAccessKey(d.Name))
	}
	return keys, nil
}

// accessorOf returns d's entry in FileGraph.Accessors of g, the graph of
// its file: whether d is a getter or setter.
func accessorOf(g *FileGraph, d Def) (Accessor, bool) {
	if g != nil {
		for _, a := range g.Accessors {
			if a.Ord == d.Ord {
				return a, true
			}
		}
	}
	return Accessor{}, false
}

// isAccessor reports whether d, declared in the file of graph g, is a
// getter or setter.
func isAccessor(g *FileGraph, d Def) bool {
	_, ok := accessorOf(g, d)
	return ok
}

// callerOf turns a site into its caller: the definition's location (its
// symbol is loaded later, only for edges that are kept) and the test.
func (r *Resolver) callerOf(s *Site) (edgeKey, Def, *Test) {
	k := edgeKey{path: s.Path, ord: s.Call.Caller}
	if s.CallerTest != nil && s.CallerTest.Ord < 0 {
		k.test = s.CallerTest.Name + "@" + fmt.Sprint(s.CallerTest.Span.StartByte)
		k.ord = -1
		return k, Def{Path: s.Path, Ord: -1, Lang: s.Lang}, s.CallerTest
	}
	if s.Call.Caller < 0 {
		return k, Def{Path: s.Path, Ord: -1, Lang: s.Lang}, s.CallerTest
	}
	return k, Def{Path: s.Path, Ord: s.Call.Caller, Lang: s.Lang}, s.CallerTest
}

// fill loads the symbol of a definition located by callerOf. A caller
// whose symbol is missing (only a corrupt index does that: a file's
// symbols and sites are written in one batch) becomes a file-level caller.
func (r *Resolver) fill(d *Def) error {
	if d.Ord < 0 || d.Name != "" {
		return nil
	}
	full, err := r.lookup(d.Path, d.Ord, d.Lang)
	if errors.Is(err, ErrNotFound) {
		d.Ord = -1
		return nil
	}
	if err != nil {
		return err
	}
	*d = full
	return nil
}

// fillEdges loads the callers' symbols of the edges and guesses kept in a
// result.
func (r *Resolver) fillEdges(res *Result) error {
	for _, list := range [][]Edge{res.Edges, res.Guesses} {
		for i := range list {
			if err := r.fill(&list[i].Def); err != nil {
				return err
			}
		}
	}
	return nil
}

// siteFilter returns a cheap test for reverse entries that cannot call d:
// another exact name, another language family, or (for a method of a
// language without implicit this) a bare or module-qualified call.
func siteFilter(d Def) func(v []byte, defaultKey bool) bool {
	fam := family(d.Lang)
	bareCannot := isMember(d)
	if s := specs[d.Lang]; s != nil && (s.implicitThis || s.rules.namespace == nsPackage || s.rules.namespace == nsGlobal) {
		// Static imports, using aliases, Type::method: a member of a
		// package's or the global namespace may be called bare.
		bareCannot = false
	}
	return func(v []byte, defaultKey bool) bool {
		name, kind, lang, err := PeekSite(v)
		if err != nil {
			return false // let DecodeSite report it
		}
		if !defaultKey && string(name) != d.Name {
			return true
		}
		if family(string(lang)) != fam {
			return true
		}
		return bareCannot && (kind == RecvNone || kind == RecvLocal || kind == RecvImport)
	}
}

// Callers returns the definitions that call d (or reference it as a
// function value), best first. ctx bounds the work.
func (r *Resolver) Callers(ctx context.Context, d Def) (Result, error) {
	t, err := r.target(d)
	if err != nil {
		return Result{}, err
	}
	keys, err := r.siteKeys(t)
	if err != nil {
		return Result{}, err
	}
	col := newCollector()
	skip := siteFilter(t)
	for _, key := range keys {
		var ferr error
		err := r.ix.Sites(key, func(p string, v []byte) bool {
			if ferr = ctx.Err(); ferr != nil {
				return false
			}
			if skip(v, key == DefaultExportKey) {
				return true
			}
			s, err := DecodeSite(p, v)
			if err != nil {
				return true // a corrupt entry: skip it, the rest still answer
			}
			conf, reason, ok, err := r.match(&s, t)
			if err != nil {
				ferr = err
				return false
			}
			if !ok {
				return true
			}
			k, caller, test := r.callerOf(&s)
			col.add(k, caller, test, s.Call.Site, conf, reason)
			return true
		})
		if err == nil {
			err = ferr
		}
		if err != nil {
			return Result{}, fmt.Errorf("callers of %s: %w", d.Name, err)
		}
	}
	res := col.result(r.opts)
	if err := r.fillEdges(&res); err != nil {
		return Result{}, fmt.Errorf("callers of %s: %w", d.Name, err)
	}
	return res, nil
}

// Callees returns the definitions d calls, best first, and the callees
// that match nothing in the workspace.
func (r *Resolver) Callees(ctx context.Context, d Def) (Result, error) {
	g, err := r.graphFull(d.Path)
	if err != nil {
		return Result{}, err
	}
	if g == nil {
		return Result{}, nil
	}
	col := newCollector()
	unresolved := map[string]bool{}
	var unresolvedList []string
	for i := range g.Calls {
		c := g.Calls[i]
		if c.Caller != d.Ord {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("callees of %s: %w", d.Name, err)
		}
		s := Site{Path: d.Path, Lang: g.Lang, Package: g.Package, Module: g.Module, Call: c}
		matches, err := r.resolveSite(&s)
		if err != nil {
			return Result{}, fmt.Errorf("callees of %s: %w", d.Name, err)
		}
		for _, m := range matches {
			if c.Ref && !valueOfCall(m.Def.Kind) {
				continue // a value the code uses (a variable, a constant), not a function it calls
			}
			col.add(edgeKey{path: m.Def.Path, ord: m.Def.Ord}, m.Def, nil, c.Site, m.Confidence, m.Reason)
		}
		if len(matches) == 0 && !c.Ref && !c.Access() && c.Recv.Kind != RecvLocal {
			name := c.Name
			if c.Text != "" {
				name = c.Text + "." + c.Name
			}
			if !unresolved[name] {
				unresolved[name] = true
				unresolvedList = append(unresolvedList, name)
			}
		}
	}
	res := col.result(r.opts)
	res.Unresolved = unresolvedList
	return res, nil
}

// Match is one definition a call site resolves to.
type Match struct {
	Def        Def
	Confidence Confidence
	Reason     string
}

// resolveSite returns the definitions a call site may reach.
func (r *Resolver) resolveSite(s *Site) ([]Match, error) {
	c := &s.Call
	var cands []Def
	if files := rulesOf(s.Lang).moduleFiles; c.DefaultImport && files != nil {
		for _, p := range files(c.Recv.Module) {
			g, err := r.graph(p)
			if err != nil {
				return nil, err
			}
			if g == nil || g.DefaultExport == "" {
				continue
			}
			defs, err := r.definitions(g.DefaultExport)
			if err != nil {
				return nil, err
			}
			for _, d := range defs {
				if d.Path == p {
					cands = append(cands, d)
				}
			}
			break
		}
	} else {
		defs, err := r.definitions(c.Name)
		if err != nil {
			return nil, err
		}
		cands = defs
	}
	var out []Match
	for _, d := range cands {
		conf, reason, ok, err := r.match(s, d)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, Match{Def: d, Confidence: conf, Reason: reason})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Confidence > out[j].Confidence })
	// A bare name that resolves exactly hides weaker guesses.
	if len(out) > 1 && out[0].Confidence == Exact {
		k := 1
		for k < len(out) && out[k].Confidence == Exact {
			k++
		}
		out = out[:k]
	}
	return out, nil
}

// valueOfCall reports kinds of definition a function value can name:
// what can be called (a class is called to construct it).
func valueOfCall(k symbols.Kind) bool {
	switch k {
	case symbols.KindFunction, symbols.KindMethod, symbols.KindConstructor, symbols.KindClass, symbols.KindMacro:
		return true
	}
	return false
}

// ResolveAt resolves the call site whose callee name covers the 0-based
// line and byte column in file p (the name's end counts, so a cursor just
// after it still resolves). found is false when no recorded call site is
// there.
func (r *Resolver) ResolveAt(p string, line, col int) (matches []Match, found bool, err error) {
	g, err := r.graphFull(p)
	if err != nil || g == nil {
		return nil, false, err
	}
	for i := range g.Calls {
		c := g.Calls[i]
		st, en := c.Site.Start, c.Site.End
		if line < st.Line || line > en.Line || (line == st.Line && col < st.Column) || (line == en.Line && col > en.Column) {
			continue
		}
		s := Site{Path: p, Lang: g.Lang, Package: g.Package, Module: g.Module, Call: c}
		m, err := r.resolveSite(&s)
		return m, true, err
	}
	return nil, false, nil
}

// TestReason says why a test is reported for a definition.
type TestReason string

const (
	// TestDirect: the test calls the definition.
	TestDirect TestReason = "direct"
	// TestTwoHops: the test calls a non-test definition that calls it.
	TestTwoHops TestReason = "two-hops"
	// TestNaming: the test's file and name follow the naming convention
	// for the definition's file and name.
	TestNaming TestReason = "naming"
)

// TestHit is a test that exercises a definition.
type TestHit struct {
	Path string
	Test Test
	// Def is the test's symbol (Ord -1 for a Jest block).
	Def    Def
	Reason TestReason
	// Via is the intermediate definition of a two-hop hit.
	Via        *Def
	Confidence Confidence
	// Detail explains the hit in words.
	Detail string
	// Sites are the call sites in the test's file (direct and two-hop).
	Sites []symbols.Span
}

// TestResult is the answer to Tests.
type TestResult struct {
	// Hits are the tests the graph can justify: direct callers (exact or
	// likely), two-hop callers and naming-convention tests, in that order.
	Hits []TestHit
	// Guesses are tests that call a function of d's name whose receiver
	// the graph cannot tie to d (name-only).
	Guesses []TestHit
}

// Tests returns the tests that exercise d: those calling it directly,
// those calling a non-test definition that calls it, and those named
// after it in the conventional test file of its file. Direct hits come
// first, then two-hop, then naming; within each, by confidence and path.
// Tests calling d's name on a receiver of unknown type are guesses, apart.
func (r *Resolver) Tests(ctx context.Context, d Def) (TestResult, error) {
	callers, err := r.Callers(ctx, d)
	if err != nil {
		return TestResult{}, err
	}
	hits := newTestHits()
	var inter []Edge
	for _, e := range callers.Edges {
		if e.Test != nil {
			hits.add(directHit(e, d))
			continue
		}
		if e.Def.Ord >= 0 && len(inter) < r.opts.MaxIntermediates {
			inter = append(inter, e)
		}
	}
	for _, mid := range inter {
		if err := ctx.Err(); err != nil {
			return TestResult{}, fmt.Errorf("tests of %s: %w", d.Name, err)
		}
		if err := r.testCallers(ctx, mid, d, hits.add); err != nil {
			return TestResult{}, err
		}
	}
	if err := r.namingTests(d, hits.add); err != nil {
		return TestResult{}, err
	}
	guesses := newTestHits()
	for _, e := range callers.Guesses {
		if e.Test == nil {
			continue
		}
		if h := directHit(e, d); !hits.has(h) {
			guesses.add(h) // a test already justified is no guess
		}
	}
	return TestResult{Hits: hits.sorted(r.opts.MaxResults), Guesses: guesses.sorted(r.opts.MaxNameOnly)}, nil
}

// directHit is the hit of a test calling d directly.
func directHit(e Edge, d Def) TestHit {
	return TestHit{Path: e.Def.Path, Test: *e.Test, Def: e.Def, Reason: TestDirect, Confidence: e.Confidence,
		Detail: "calls " + d.Name + " (" + e.Reason + ")", Sites: e.Sites}
}

// testHits collects test hits, one per test, keeping the best reason.
type testHits struct {
	m     map[string]*TestHit
	order []string
}

func newTestHits() *testHits { return &testHits{m: map[string]*TestHit{}} }

func testKey(h TestHit) string {
	return h.Path + "\x00" + h.Test.Name + "\x00" + fmt.Sprint(h.Test.Span.StartByte)
}

func (t *testHits) has(h TestHit) bool { return t.m[testKey(h)] != nil }

func (t *testHits) add(h TestHit) {
	k := testKey(h)
	if old, ok := t.m[k]; ok {
		if rank(h) > rank(*old) {
			*old = h
		}
		return
	}
	t.m[k] = &h
	t.order = append(t.order, k)
}

// sorted returns the hits by reason, confidence, path and position, at
// most max of them.
func (t *testHits) sorted(max int) []TestHit {
	out := make([]TestHit, 0, len(t.order))
	for _, k := range t.order {
		out = append(out, *t.m[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ra, rb := reasonRank(a.Reason), reasonRank(b.Reason); ra != rb {
			return ra < rb
		}
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Test.Span.StartByte < b.Test.Span.StartByte
	})
	if len(out) > max {
		out = out[:max]
	}
	return out
}

func reasonRank(r TestReason) int {
	switch r {
	case TestDirect:
		return 0
	case TestTwoHops:
		return 1
	}
	return 2
}

func rank(h TestHit) int { return (3-reasonRank(h.Reason))*10 + int(h.Confidence) }

// testCallers adds the tests that call intermediate mid (a caller of d).
func (r *Resolver) testCallers(ctx context.Context, mid Edge, d Def, add func(TestHit)) error {
	m := mid.Def
	g, err := r.graph(m.Path)
	if err != nil {
		return fmt.Errorf("tests of %s via %s: %w", d.Name, m.Name, err)
	}
	sites, err := r.testSites(TestCalleeKey(m.Name))
	if err == nil && isAccessor(g, m) {
		var reads []Site
		reads, err = r.testSites(TestAccessKey(m.Name))
		sites = append(sites[:len(sites):len(sites)], reads...)
	}
	if err != nil {
		return fmt.Errorf("tests of %s via %s: %w", d.Name, m.Name, err)
	}
	fam := family(m.Lang)
	for i := range sites {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("tests of %s via %s: %w", d.Name, m.Name, err)
		}
		s := &sites[i]
		if s.Call.Name != m.Name || family(s.Lang) != fam {
			continue
		}
		conf, _, ok, err := r.match(s, m)
		if err != nil {
			return fmt.Errorf("tests of %s via %s: %w", d.Name, m.Name, err)
		}
		if !ok || conf < Likely {
			continue
		}
		_, caller, test := r.callerOf(s)
		if err := r.fill(&caller); err != nil {
			return fmt.Errorf("tests of %s via %s: %w", d.Name, m.Name, err)
		}
		if conf > mid.Confidence {
			conf = mid.Confidence
		}
		via := m
		add(TestHit{Path: s.Path, Test: *test, Def: caller, Reason: TestTwoHops, Via: &via, Confidence: conf,
			Detail: "calls " + m.QualifiedName() + ", which calls " + d.Name, Sites: []symbols.Span{s.Call.Site}})
	}
	return nil
}

// testSites returns the decoded calls made from tests stored under
// reverse key key (TestCalleeKey, TestAccessKey), read once per resolver:
// two-hop test lookups go through the same intermediates' names again and
// again.
func (r *Resolver) testSites(key string) ([]Site, error) {
	return memoized(r, memoKey("testsites", key), func() ([]Site, error) {
		var out []Site
		err := r.ix.Sites(key, func(p string, v []byte) bool {
			if s, err := DecodeSite(p, v); err == nil && s.CallerTest != nil {
				out = append(out, s)
			}
			return true
		})
		return out, err
	})
}

// namingTests adds tests in the conventional test files of d's file whose
// names mention d.
func (r *Resolver) namingTests(d Def, add func(TestHit)) error {
	for _, tp := range ConventionalTestFiles(d.Path) {
		g, err := r.graph(tp)
		if err != nil {
			return err
		}
		if g == nil {
			continue
		}
		for _, t := range g.Tests {
			if !TestNameMentions(t.Name, d.Name, d.Container) {
				continue
			}
			td := Def{Path: tp, Ord: t.Ord, Lang: g.Lang}
			if t.Ord >= 0 {
				if sd, err := r.lookup(tp, t.Ord, g.Lang); err == nil {
					td = sd
				}
			}
			add(TestHit{Path: tp, Test: t, Def: td, Reason: TestNaming, Confidence: Likely,
				Detail: path.Base(tp) + " ↔ " + path.Base(d.Path) + ", test named after " + d.Name})
		}
	}
	return nil
}

// ConventionalTestFiles lists where the tests of the file at p live by
// each language's naming convention (foo_test.go, test_foo.py,
// foo.test.ts, FooTest.java …), each once. The files need not exist.
func ConventionalTestFiles(p string) []string {
	lang := symbols.ForPath(p)
	if lang == nil {
		return nil
	}
	files := rulesOf(lang.Name).testFiles
	if files == nil {
		return nil
	}
	base := path.Base(p)
	ext := path.Ext(base)
	return dedupe(files(path.Dir(p), strings.TrimSuffix(base, ext), ext))
}

// joinPath joins path elements into a clean slash-separated path.
func joinPath(parts ...string) string { return path.Clean(path.Join(parts...)) }

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TestNameMentions reports whether a test name refers to a definition by
// the usual conventions: TestFoo, TestFoo_bar, TestType_Method, test_foo,
// testFoo, FooTest, "Foo > does x".
func TestNameMentions(testName, name, container string) bool {
	if name == "" {
		return false
	}
	norm := func(s string) string {
		return strings.ToLower(strings.ReplaceAll(s, "_", ""))
	}
	tn := testName
	if i := strings.LastIndexByte(tn, '.'); i >= 0 {
		tn = tn[i+1:] // Class.test_method
	}
	for _, p := range []string{"Test", "test_", "test", "Benchmark", "Fuzz", "Example", "Should", "should_"} {
		if strings.HasPrefix(tn, p) {
			tn = strings.TrimPrefix(tn[len(p):], "_")
			break
		}
	}
	n := norm(name)
	cands := []string{tn}
	if container != "" {
		cands = append(cands, strings.TrimPrefix(strings.TrimPrefix(tn, LastComponent(container)), "_"))
	}
	for _, c := range cands {
		nc := norm(c)
		if !strings.HasPrefix(nc, n) {
			continue
		}
		// The name must end at a word boundary in the original spelling.
		rest := strings.TrimPrefix(strings.ToLower(c), strings.ToLower(name))
		if rest == strings.ToLower(c) {
			rest = c[min(len(c), len(name)):] // underscores differ: accept
		}
		if rest == "" {
			return true
		}
		orig := c[len(c)-len(rest):]
		r, _ := utf8.DecodeRuneInString(orig)
		if r == '_' || r == ' ' || unicode.IsUpper(r) || unicode.IsDigit(r) {
			return true
		}
	}
	// "Foo > does x" (describe blocks) and "FooTest".
	lower := strings.ToLower(testName)
	ln := strings.ToLower(name)
	return strings.HasPrefix(lower, ln+" ") || strings.HasPrefix(lower, ln+" >") || strings.HasPrefix(norm(testName), n+"test")
}

// Implementations returns the definitions that implement or override d,
// as far as the graph knows the types: for a method of an interface or a
// base class, the methods of the same name whose types implement the
// interface (Go: by their method sets) or derive from the class; for an
// interface or a class, the types that do. Candidates are found by name
// (a type's by the name of one of its methods), so a type that declares
// none of the interface's methods itself (all promoted) is not found.
func (r *Resolver) Implementations(ctx context.Context, d Def) (Result, error) {
	dg, err := r.graph(d.Path)
	if err != nil || dg == nil {
		return Result{}, err
	}
	var decl typeDecl
	method := ""
	switch {
	case isMember(d) && symbols.IsFunctionKind(d.Kind):
		decls, err := r.findTypes(typeRef{name: typeName(d), module: dg.Module, lang: d.Lang, from: d.Path})
		if err != nil || len(decls) == 0 {
			return Result{}, err
		}
		decl, method = decls[0], d.Name
	case isTypeKind(d.Kind):
		decl = typeDecl{d, dg}
		methods, err := r.interfaceMethods(decl, 0)
		if err != nil {
			return Result{}, err
		}
		for m := range methods {
			if method == "" || m < method {
				method = m // one of them, the same every time
			}
		}
	}
	if method == "" {
		return Result{}, nil
	}
	cands, err := r.definitions(method)
	if err != nil {
		return Result{}, err
	}
	col := newCollector()
	for _, o := range cands {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if !isMember(o) || family(o.Lang) != family(d.Lang) || o.Path == d.Path && o.Ord == d.Ord {
			continue
		}
		og, err := r.graph(o.Path)
		if err != nil {
			return Result{}, err
		}
		if og == nil {
			continue
		}
		ot := typeRef{name: typeName(o), module: og.Module, lang: o.Lang, from: o.Path}
		if ot.name == decl.def.Name && og.Module == decl.g.Module {
			continue // the type itself
		}
		conf, reason, ok, err := r.implementsDecl(ot, decl)
		if err != nil {
			return Result{}, err
		}
		if !ok {
			continue
		}
		target := o
		if isTypeKind(d.Kind) {
			types, err := r.findTypes(ot)
			if err != nil || len(types) == 0 {
				if err != nil {
					return Result{}, err
				}
				continue
			}
			target = types[0].def
		}
		col.add(edgeKey{path: target.Path, ord: target.Ord}, target, nil, target.NameSpan, conf, reason)
	}
	return col.result(r.opts), nil
}

// implementsDecl reports whether type t implements the interface decl or
// derives from the type decl.
func (r *Resolver) implementsDecl(t typeRef, decl typeDecl) (Confidence, string, bool, error) {
	if ok, err := r.derives(t, decl); err != nil || ok {
		return Exact, t.name + " derives from " + decl.def.Name, ok, err
	}
	if r.isInterface(decl) && rulesOf(t.lang).structural {
		// The method set decides (Go).
		ok, err := r.goImplements(t, &decl, "")
		return Exact, t.name + " implements " + decl.def.Name, ok, err
	}
	return 0, "", false, nil
}

// derives reports whether type t has decl among its bases (embedded types,
// superclasses, implemented interfaces), up to four levels.
func (r *Resolver) derives(t typeRef, decl typeDecl) (bool, error) {
	return r.reachesBase(t, func(b typeRef) bool {
		return b.name == decl.def.Name && (b.module == "" || b.module == decl.g.Module || r.ModuleMatch(b.module, decl.def, decl.g))
	}, 0)
}
