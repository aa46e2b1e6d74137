// Package graphtest holds the fixtures machinery the graph tests and the
// language packages (lang/<name>) share: an in-memory Index over a
// fixture tree, the rendering of a file's graph for golden files with its
// invariants, and descriptions of resolved edges and test hits.
package graphtest

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/symbols"
)

// Index is an in-memory graph.Index over a fixture tree. Graphs are stored
// encoded and decoded on every read, like the engine's store.
type Index struct {
	syms  map[string][]symbols.Symbol
	lang  map[string]string
	graph map[string][]byte
	rev   map[string][]entry
	gomod map[string]string // directory → module path of its go.mod
}

type entry struct {
	path  string
	value []byte
}

// NewIndex returns an empty Index.
func NewIndex() *Index {
	return &Index{syms: map[string][]symbols.Symbol{}, lang: map[string]string{}, graph: map[string][]byte{},
		rev: map[string][]entry{}, gomod: map[string]string{}}
}

// Build indexes every file under dir (paths relative to dir).
func Build(t testing.TB, dir string) *Index {
	t.Helper()
	ix := NewIndex()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if path.Base(rel) == "go.mod" {
			for _, l := range strings.Split(string(src), "\n") {
				if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
					ix.gomod[path.Dir(rel)] = f[1]
				}
			}
			return nil
		}
		if lang := symbols.ForContent(rel, src); lang == nil || !lang.HasGrammar() {
			return nil
		}
		ix.Put(t, rel, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// Put (re)indexes one file, replacing its previous entries.
func (ix *Index) Put(t testing.TB, rel string, src []byte) {
	t.Helper()
	ix.Remove(rel)
	f, g := Parse(t, rel, src)
	ix.syms[rel] = f.Symbols
	ix.lang[rel] = g.Lang
	ix.graph[rel] = graph.Encode(g)
	for _, r := range graph.ReverseEntries(g) {
		ix.rev[r.Key] = append(ix.rev[r.Key], entry{rel, r.Value})
	}
	for k := range ix.rev {
		sort.SliceStable(ix.rev[k], func(i, j int) bool { return ix.rev[k][i].path < ix.rev[k][j].path })
	}
}

// Remove deletes a file and its reverse entries.
func (ix *Index) Remove(rel string) {
	delete(ix.syms, rel)
	delete(ix.lang, rel)
	delete(ix.graph, rel)
	for k, es := range ix.rev {
		out := es[:0]
		for _, e := range es {
			if e.path != rel {
				out = append(out, e)
			}
		}
		ix.rev[k] = out
	}
}

func (ix *Index) DefinitionRefs(name string) ([]graph.DefRef, error) {
	var out []graph.DefRef
	paths := make([]string, 0, len(ix.syms))
	for p := range ix.syms {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for i, s := range ix.syms[p] {
			if strings.EqualFold(s.Name, name) {
				out = append(out, graph.DefRef{Path: p, Ord: i, Lang: ix.lang[p]})
			}
		}
	}
	return out, nil
}

func (ix *Index) Symbol(p string, ord int) (symbols.Symbol, error) {
	syms := ix.syms[p]
	if ord < 0 || ord >= len(syms) {
		return symbols.Symbol{}, graph.ErrNotFound
	}
	return syms[ord], nil
}

func (ix *Index) Symbols(p string) ([]symbols.Symbol, error) { return ix.syms[p], nil }

func (ix *Index) GraphData(p string) ([]byte, error) { return ix.graph[p], nil }

// Paths lists the indexed files, sorted.
func (ix *Index) Paths() []string {
	out := make([]string, 0, len(ix.graph))
	for p := range ix.graph {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Graph decodes a file's whole graph (nil when absent).
func (ix *Index) Graph(p string) (*graph.FileGraph, error) {
	b, ok := ix.graph[p]
	if !ok {
		return nil, nil
	}
	return graph.Decode(b)
}

func (ix *Index) Sites(key string, fn func(string, []byte) bool) error {
	for _, e := range ix.rev[key] {
		if !fn(e.path, e.value) {
			break
		}
	}
	return nil
}

func (ix *Index) GoModulePath(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if m, ok := ix.gomod[d]; ok {
			return m
		}
		if d == "." || d == "/" {
			return ""
		}
	}
}

// Def finds a definition by "path:Qualified.Name".
func (ix *Index) Def(t testing.TB, spec string) graph.Def {
	t.Helper()
	p, q, ok := strings.Cut(spec, ":")
	if !ok {
		t.Fatalf("bad def spec %q", spec)
	}
	// Name#2 is the second definition of Name (a property's setter).
	skip := 0
	if i := strings.LastIndexByte(q, '#'); i >= 0 {
		if n, err := strconv.Atoi(q[i+1:]); err == nil && n >= 1 {
			q, skip = q[:i], n-1
		}
	}
	for i, s := range ix.syms[p] {
		if s.QualifiedName() == q {
			if skip > 0 {
				skip--
				continue
			}
			return graph.Def{Path: p, Ord: i, Lang: ix.lang[p], Symbol: s}
		}
	}
	t.Fatalf("no definition %s", spec)
	return graph.Def{}
}

// Describe renders an edge as "path:Caller conf".
func Describe(e graph.Edge) string {
	name := "<file>"
	switch {
	case e.Test != nil && e.Def.Ord < 0:
		name = e.Test.Name
	case e.Def.Ord >= 0:
		name = e.Def.QualifiedName()
	}
	return e.Def.Path + ":" + name + " " + e.Confidence.String()
}

// Callers returns the described callers of spec in ix.
func Callers(t *testing.T, ix *Index, spec string) []string {
	t.Helper()
	r := graph.NewResolver(ix, graph.Options{})
	res, err := r.Callers(context.Background(), ix.Def(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, e := range res.Edges {
		out = append(out, Describe(e))
	}
	sort.Strings(out)
	return out
}

// Case is one row of a table test: a definition ("path:Name") and the
// described callers or tests expected of it, sorted. An alias of a struct
// literal type, so tables list their rows without field names.
type Case = struct {
	Name, Target string
	Want         []string
}

// ExpectCallers runs each case as a subtest comparing Callers with Want.
func ExpectCallers(t *testing.T, ix *Index, cases []Case) {
	t.Helper()
	expect(t, ix, "callers", Callers, cases)
}

// ExpectTests runs each case as a subtest comparing Tests with Want.
func ExpectTests(t *testing.T, ix *Index, cases []Case) {
	t.Helper()
	expect(t, ix, "tests", Tests, cases)
}

func expect(t *testing.T, ix *Index, what string, list func(*testing.T, *Index, string) []string, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if got := list(t, ix, c.Target); !reflect.DeepEqual(got, c.Want) {
				t.Errorf("%s of %s:\n got %q\nwant %q", what, c.Target, got, c.Want)
			}
		})
	}
}

// Tests returns the described tests of spec in ix (DescribeTests), sorted.
func Tests(t *testing.T, ix *Index, spec string) []string {
	t.Helper()
	res, err := graph.NewResolver(ix, graph.Options{}).Tests(context.Background(), ix.Def(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	out := DescribeTests(res.Hits)
	sort.Strings(out)
	return out
}

// ResolveAt resolves the call site at line (0-based) and byte column col
// of file p with r and describes its targets; found is ResolveAt's.
func ResolveAt(t *testing.T, r *graph.Resolver, p string, line, col int) (got []string, found bool) {
	t.Helper()
	ms, found, err := r.ResolveAt(p, line, col)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		got = append(got, Describe(graph.Edge{Def: m.Def, Confidence: m.Confidence}))
	}
	return got, found
}

// DescribeTests renders test hits as "path:Test reason [via Def]".
func DescribeTests(hits []graph.TestHit) []string {
	out := []string{}
	for _, h := range hits {
		s := h.Path + ":" + h.Test.Name + " " + string(h.Reason)
		if h.Via != nil {
			s += " via " + h.Via.QualifiedName()
		}
		out = append(out, s)
	}
	return out
}

// Parse parses src as the language of rel and extracts its graph.
func Parse(t testing.TB, rel string, src []byte) (*symbols.File, *graph.FileGraph) {
	t.Helper()
	lang := symbols.ForContent(rel, src)
	if lang == nil || !lang.HasGrammar() {
		t.Fatalf("%s: no grammar (is its language package imported?)", rel)
	}
	p := symbols.NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), lang, src)
	if err != nil {
		t.Fatalf("parse %s: %v", rel, err)
	}
	defer f.Close()
	return f, graph.Extract(f, rel)
}

func typeString(t graph.TypeExpr) string {
	if !t.Known() {
		return "?"
	}
	s := t.Name
	if t.Call {
		s += "()"
	}
	if t.Elem {
		s = "[]" + s
	}
	if t.Module != "" {
		s = "{" + t.Module + "}" + s
	}
	return s
}

// Render prints a graph as one line per fact, in a stable order.
func Render(g *graph.FileGraph, syms []symbols.Symbol) string {
	var b strings.Builder
	fmt.Fprintf(&b, "file %s lang=%s package=%q module=%q", g.Path, g.Lang, g.Package, g.Module)
	if g.DefaultExport != "" {
		fmt.Fprintf(&b, " default=%s", g.DefaultExport)
	}
	b.WriteByte('\n')
	for _, im := range g.Imports {
		fmt.Fprintf(&b, "import L%d %q module=%q", im.Line+1, im.Path, im.Module)
		if im.Alias != "" {
			fmt.Fprintf(&b, " as %s", im.Alias)
		}
		if im.Level > 0 {
			fmt.Fprintf(&b, " level=%d", im.Level)
		}
		for _, n := range im.Names {
			if n.Alias != "" {
				fmt.Fprintf(&b, " %s→%s", n.Name, n.Alias)
			} else {
				fmt.Fprintf(&b, " %s", n.Name)
			}
		}
		b.WriteByte('\n')
	}
	for _, t := range g.Types {
		fmt.Fprintf(&b, "type %s", t.Name)
		if t.Container != "" {
			fmt.Fprintf(&b, " in %s", t.Container)
		}
		if t.Interface {
			b.WriteString(" interface")
		}
		for _, bs := range t.Bases {
			fmt.Fprintf(&b, " base=%s", typeString(bs))
		}
		for _, c := range t.Calls {
			fmt.Fprintf(&b, " call=(%s)", c)
		}
		b.WriteByte('\n')
	}
	for _, f := range g.Fields {
		owner := f.Owner
		if owner == "" {
			owner = "<package>"
		}
		emb := ""
		if f.Embedded {
			emb = " embedded"
		}
		fmt.Fprintf(&b, "field %s.%s %s%s\n", owner, f.Name, typeString(f.Type), emb)
	}
	caller := func(i int) string {
		if i < 0 || i >= len(syms) {
			return "<file>"
		}
		return syms[i].QualifiedName()
	}
	for _, c := range g.Calls {
		kind := "call"
		switch {
		case c.New:
			kind = "new"
		case c.Ref:
			kind = "ref"
		case c.Read && c.Write:
			kind = "read-write"
		case c.Read:
			kind = "read"
		case c.Write:
			kind = "write"
		}
		fmt.Fprintf(&b, "%s L%d:%d %s -> ", kind, c.Site.Start.Line+1, c.Site.Start.Column+1, caller(c.Caller))
		if c.Text != "" {
			fmt.Fprintf(&b, "%s.", c.Text)
		}
		fmt.Fprintf(&b, "%s recv=%s", c.Name, c.Recv.Kind)
		if c.Recv.Module != "" {
			fmt.Fprintf(&b, " module=%s", c.Recv.Module)
		}
		if c.Recv.Type.Known() {
			fmt.Fprintf(&b, " type=%s", typeString(c.Recv.Type))
		}
		if c.Recv.Root != "" {
			fmt.Fprintf(&b, " root=%s", c.Recv.Root)
		}
		if len(c.Recv.Fields) > 0 {
			fmt.Fprintf(&b, " fields=%s", strings.Join(c.Recv.Fields, "."))
		}
		if c.Self != "" {
			fmt.Fprintf(&b, " self=%s", c.Self)
		}
		if c.DefaultImport {
			b.WriteString(" default-import")
		}
		if c.Test >= 0 {
			fmt.Fprintf(&b, " test=%q", g.Tests[c.Test].Name)
		}
		b.WriteByte('\n')
	}
	for _, r := range g.TypeRefs {
		mod := ""
		if r.Module != "" {
			mod = "{" + r.Module + "}"
		}
		fmt.Fprintf(&b, "typeref L%d %s -> %s%s\n", r.Line+1, caller(r.Caller), mod, r.Name)
	}
	for _, t := range g.Tests {
		fmt.Fprintf(&b, "test %s %q L%d-%d\n", t.Kind, t.Name, t.Span.Start.Line+1, t.Span.End.Line+1)
	}
	for _, a := range g.Accessors {
		kind := "getter"
		if a.Set {
			kind = "setter"
		}
		fmt.Fprintf(&b, "accessor %s %s\n", kind, caller(a.Ord))
	}
	return b.String()
}

// fixtures returns the files under dir whose language has a
// grammar, as paths relative to that directory.
func fixtures(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".golden") || symbols.ForPath(p) == nil {
			return nil // goldens and files of no language (go.mod)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Check asserts invariants every consumer relies on.
func Check(t testing.TB, g *graph.FileGraph, syms []symbols.Symbol, n int) {
	t.Helper()
	for i, c := range g.Calls {
		if c.Caller < -1 || c.Caller >= len(syms) {
			t.Fatalf("call %d caller %d out of range", i, c.Caller)
		}
		if c.Test < -1 || c.Test >= len(g.Tests) {
			t.Fatalf("call %d test %d out of range", i, c.Test)
		}
		if c.Site.StartByte < 0 || c.Site.EndByte > n || c.Site.StartByte > c.Site.EndByte {
			t.Fatalf("call %d site %+v out of range", i, c.Site)
		}
		if c.Name == "" {
			t.Fatalf("call %d has no name", i)
		}
	}
	for _, tt := range g.Tests {
		if tt.Ord >= len(syms) {
			t.Fatalf("test %q ord %d out of range", tt.Name, tt.Ord)
		}
	}
	for _, a := range g.Accessors {
		if a.Ord < 0 || a.Ord >= len(syms) || syms[a.Ord].Kind != symbols.KindMethod {
			t.Fatalf("accessor %d is no method", a.Ord)
		}
	}
}

// Golden extracts every fixture under dir (paths relative to it) and
// compares the rendering with <file>.golden (testutil.Golden: -update
// rewrites them).
func Golden(t *testing.T, dir string) {
	t.Helper()
	rels := fixtures(t, dir)
	if len(rels) == 0 {
		t.Fatalf("no fixtures in %s", dir)
	}
	for _, rel := range rels {
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			f, g := Parse(t, rel, src)
			Check(t, g, f.Symbols, len(src))
			testutil.Golden(t, filepath.Join(dir, rel+".golden"), []byte(Render(g, f.Symbols)))
		})
	}
}
