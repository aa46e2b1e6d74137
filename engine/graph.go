package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
)

// Target names the definition a graph query is about: a position in a file
// (Path with a 1-based Line and optional 1-based byte Col), or a Symbol name
// — qualified ("pkg.Func", "Type.Method") or bare (every definition with
// that name).
type Target struct {
	Path   string
	Line   int
	Col    int
	Symbol string
}

// String renders the target as the CLI takes it.
func (t Target) String() string {
	switch {
	case t.Symbol != "":
		return t.Symbol
	case t.Col > 0:
		return fmt.Sprintf("%s:%d:%d", t.Path, t.Line, t.Col)
	}
	return fmt.Sprintf("%s:%d", t.Path, t.Line)
}

// Sentinel errors of graph queries (besides ErrNoSymbol and ErrNotIndexed).
var (
	// ErrBadTarget: the target has neither a path and line nor a symbol.
	ErrBadTarget = errors.New("target needs PATH:LINE[:COL] or a symbol name")
)

// SiteRange is a call site: 1-based line and byte column of the callee
// name, end exclusive.
type SiteRange struct {
	Line    int `json:"line"`
	Col     int `json:"col"`
	EndLine int `json:"endLine"`
	EndCol  int `json:"endCol"`
}

// GraphItem is one caller, callee or test of a target.
type GraphItem struct {
	Path      string `json:"path"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Symbol    string `json:"symbol"`
	Kind      string `json:"kind"`
	// Confidence is "exact", "likely" or "name-only".
	Confidence string `json:"confidence"`
	// Reason says why the item is reported: for callers and callees what
	// resolved the call ("qualified by import strings", "receiver type
	// DB" …); for tests "direct", "two-hops" or "naming".
	Reason string `json:"reason"`
	// Detail explains a test hit in words.
	Detail   string `json:"detail,omitempty"`
	Language string `json:"language,omitempty"`
	// NameLine and NameCol locate the item's name (1-based line, byte
	// column): the call hierarchy's selection range.
	NameLine int `json:"nameLine"`
	NameCol  int `json:"nameCol"`
	// Sites are the call sites: in Path for callers and tests, in the
	// target's file for callees.
	Sites []SiteRange `json:"sites,omitempty"`
	// Via names the intermediate definition of a two-hop test.
	Via string `json:"via,omitempty"`
}

// GraphResult answers a graph query for one target definition.
type GraphResult struct {
	Target SymbolInfo `json:"target"`
	// Items are what the graph can justify (confidence exact or likely),
	// best first: the callers, callees or tests a client shows and counts.
	Items []GraphItem `json:"items"`
	// Guesses are name-only matches, apart from Items and never counted
	// with them: calls of the target's name on a receiver whose type the
	// index cannot tell (callers, tests), or calls whose callee is only
	// known by its name (callees). A client shows them on request, labelled
	// as guesses. At most maxGuesses are kept, best first (the service
	// pages them like the items).
	Guesses []GraphItem `json:"guesses,omitempty"`
	// Omitted counts what Items leaves out: every name-only match (the
	// first of them are Guesses) and items past the cap.
	Omitted int `json:"omitted,omitempty"`
	// Unresolved lists callees that match no workspace definition
	// ("fmt.Println"), for Callees.
	Unresolved []string `json:"unresolved,omitempty"`
}

// maxTargets caps the definitions a bare name expands to.
const maxTargets = 20

// Callers returns, per definition the target names, the definitions that
// call it, best first.
func (s *Snapshot) Callers(ctx context.Context, t Target) ([]GraphResult, error) {
	return s.graphQuery(ctx, t, func(r *graph.Resolver, d graph.Def) (GraphResult, error) {
		res, err := r.Callers(ctx, d)
		if err != nil {
			return GraphResult{}, err
		}
		return s.edgeResult(res), nil
	})
}

// Callees returns, per definition the target names, the definitions it
// calls, best first, and the calls that resolve to nothing indexed.
func (s *Snapshot) Callees(ctx context.Context, t Target) ([]GraphResult, error) {
	return s.graphQuery(ctx, t, func(r *graph.Resolver, d graph.Def) (GraphResult, error) {
		res, err := r.Callees(ctx, d)
		if err != nil {
			return GraphResult{}, err
		}
		out := s.edgeResult(res)
		out.Unresolved = res.Unresolved
		return out, nil
	})
}

// Implementations returns, per definition the target names, the
// definitions implementing or overriding it (graph.Resolver.Implementations).
func (s *Snapshot) Implementations(ctx context.Context, t Target) ([]GraphResult, error) {
	return s.graphQuery(ctx, t, func(r *graph.Resolver, d graph.Def) (GraphResult, error) {
		res, err := r.Implementations(ctx, d)
		if err != nil {
			return GraphResult{}, err
		}
		return s.edgeResult(res), nil
	})
}

// Tests returns, per definition the target names, the tests that exercise
// it: calling it directly, within two hops through non-test code, or by the
// naming convention. Each item's Reason says which.
func (s *Snapshot) Tests(ctx context.Context, t Target) ([]GraphResult, error) {
	return s.graphQuery(ctx, t, func(r *graph.Resolver, d graph.Def) (GraphResult, error) {
		res, err := r.Tests(ctx, d)
		if err != nil {
			return GraphResult{}, err
		}
		return GraphResult{Items: testItems(res.Hits), Guesses: testItems(res.Guesses), Omitted: len(res.Guesses)}, nil
	})
}

// testItems converts test hits to items.
func testItems(hits []graph.TestHit) []GraphItem {
	if len(hits) == 0 {
		return nil
	}
	items := make([]GraphItem, 0, len(hits))
	for _, h := range hits {
		it := GraphItem{
			Path: h.Path, Symbol: h.Test.Name, Kind: "test", Confidence: h.Confidence.String(),
			Reason: string(h.Reason), Detail: h.Detail, Language: h.Def.Lang,
			StartLine: h.Test.Span.Start.Line + 1, EndLine: h.Test.Span.End.Line + 1,
			NameLine: h.Test.Span.Start.Line + 1, NameCol: h.Test.Span.Start.Column + 1,
			Sites: siteRanges(h.Sites),
		}
		if h.Def.Ord >= 0 {
			it.NameLine, it.NameCol = h.Def.NameSpan.Start.Line+1, h.Def.NameSpan.Start.Column+1
		}
		if h.Via != nil {
			it.Via = h.Via.QualifiedName()
		}
		items = append(items, it)
	}
	return items
}

// edgeResult converts a callers or callees answer: justified edges are
// the items, name-only edges the guesses.
func (s *Snapshot) edgeResult(res graph.Result) GraphResult {
	var guesses []GraphItem
	if len(res.Guesses) > 0 {
		guesses = s.edgeItems(res.Guesses)
	}
	return GraphResult{Items: s.edgeItems(res.Edges), Guesses: guesses, Omitted: len(res.Guesses) + res.Omitted}
}

// graphQuery resolves the target to definitions and runs q for each with
// a resolver reading this snapshot (nothing is cached across snapshots).
func (s *Snapshot) graphQuery(ctx context.Context, t Target, q func(*graph.Resolver, graph.Def) (GraphResult, error)) ([]GraphResult, error) {
	r := s.Resolver()
	defs, err := s.targetDefs(ctx, r, t)
	if err != nil {
		return nil, err
	}
	out := make([]GraphResult, 0, len(defs))
	for _, d := range defs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := q(r, d)
		if err != nil {
			return nil, err
		}
		res.Target = SymbolInfo{Path: d.Path, Language: d.Lang, Symbol: d.Symbol}
		if res.Items == nil {
			res.Items = []GraphItem{}
		}
		out = append(out, res)
	}
	return out, nil
}

// resolvers keeps one graph resolver per live snapshot: a snapshot is
// immutable, so what a resolver caches (decoded graphs, type facts) stays
// true for its whole life and later queries on it start warm. Resolvers of
// released snapshots are dropped, and a resolver that has cached too much
// is replaced by a fresh one.
var resolvers = struct {
	sync.Mutex
	m map[*Snapshot]*graph.Resolver
}{m: map[*Snapshot]*graph.Resolver{}}

// maxGuesses caps the name-only guesses of one query: as many as a request
// may ask for (service's GraphRequest limit).
const maxGuesses = 1000

// maxResolverCache bounds the entries one snapshot's resolver caches.
const maxResolverCache = 200000

// Resolver returns the graph resolver of this snapshot (one per snapshot,
// shared by its queries; package packing resolves the names a selection
// uses with it).
func (s *Snapshot) Resolver() *graph.Resolver {
	resolvers.Lock()
	defer resolvers.Unlock()
	for snap := range resolvers.m {
		if snap.refs.Load() <= 0 {
			delete(resolvers.m, snap)
		}
	}
	if r, ok := resolvers.m[s]; ok && r.CacheSize() < maxResolverCache {
		return r
	}
	r := graph.NewResolver(&graphIndex{s: s, langs: map[string]string{}}, graph.Options{MaxNameOnly: maxGuesses})
	resolvers.m[s] = r
	return r
}

// targetDefs turns a Target into the definitions it names.
func (s *Snapshot) targetDefs(ctx context.Context, r *graph.Resolver, t Target) ([]graph.Def, error) {
	if t.Path == "" {
		name := strings.TrimSpace(t.Symbol)
		if name == "" {
			return nil, ErrBadTarget
		}
		syms, err := s.FindSymbols(name)
		if err != nil {
			return nil, err
		}
		var out []graph.Def
		for _, si := range syms {
			if len(out) >= maxTargets {
				break
			}
			d, err := s.defOf(si)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
		if len(out) == 0 {
			if out, err = s.inheritedDefs(r, name); err != nil {
				return nil, err
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%q: %w", name, ErrNoSymbol)
		}
		return out, nil
	}
	if t.Line <= 0 {
		return nil, fmt.Errorf("%s: line must be 1 or more: %w", t.Path, ErrBadTarget)
	}
	rel, err := s.e.ws.Resolve(t.Path)
	if err != nil {
		return nil, err
	}
	rec, err := s.st.File(rel)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%s: %w", rel, ErrNotIndexed)
	}
	if err != nil {
		return nil, err
	}
	pos, err := s.symbolAtPosition(r, rel, rec.Symbols, t)
	if err != nil {
		return nil, err
	}
	if pos.def != nil {
		return []graph.Def{*pos.def}, nil
	}
	sym, err := s.st.Symbol(rel, pos.i)
	if err != nil {
		return nil, err
	}
	return []graph.Def{{Path: rel, Ord: pos.i, Lang: rec.Language, Symbol: sym}}, nil
}

// inheritedDefs resolves Type.method where the type does not declare the
// method but inherits it (a base class's, an embedded field's): the
// definition a call on a value of the type reaches (Flask.add_url_rule is
// App's).
func (s *Snapshot) inheritedDefs(r *graph.Resolver, name string) ([]graph.Def, error) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return nil, nil
	}
	types, err := s.FindSymbols(name[:i])
	if err != nil {
		return nil, err
	}
	var out []graph.Def
	seen := map[graph.DefRef]bool{}
	for _, si := range types {
		d, err := s.defOf(si)
		if err != nil {
			return nil, err
		}
		m, ok, err := r.Member(d, name[i+1:])
		if err != nil {
			return nil, err
		}
		if ref := (graph.DefRef{Path: m.Path, Ord: m.Ord, Lang: m.Lang}); ok && !seen[ref] && len(out) < maxTargets {
			seen[ref] = true
			out = append(out, m)
		}
	}
	return out, nil
}

// position is what a path:line[:col] target points at: a symbol of the
// file, or (on a call site) the definition the call resolves to.
type position struct {
	i   int
	def *graph.Def
}

// symbolAtPosition picks the definition at a 1-based line and optional
// byte column: a definition's name there, else a call site there (resolved
// to its callee), else the innermost function-like definition around it.
// Symbols are read one at a time (binary search by start line): files can
// hold thousands.
func (s *Snapshot) symbolAtPosition(r *graph.Resolver, rel string, n int, t Target) (position, error) {
	line, col := t.Line-1, t.Col-1
	get := func(i int) (symbols.Symbol, error) { return s.st.Symbol(rel, i) }
	// first symbol starting after line
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		sym, err := get(mid)
		if err != nil {
			return position{}, err
		}
		if sym.Span.Start.Line <= line {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	after := lo
	// A name on the line: definitions starting up to a few lines above
	// (annotations, decorators) whose name is there; the last is innermost.
	best := -1
	for i := after - 1; i >= 0 && i >= after-64; i-- {
		sym, err := get(i)
		if err != nil {
			return position{}, err
		}
		if sym.Span.Start.Line < line-8 {
			break
		}
		ns := sym.NameSpan
		if ns.Start.Line == line && (col < 0 || (col >= ns.Start.Column && col <= ns.End.Column)) && best < 0 {
			best = i
		}
	}
	if best >= 0 {
		return position{i: best}, nil
	}
	if col >= 0 {
		matches, found, err := r.ResolveAt(rel, line, col)
		if err != nil {
			return position{}, err
		}
		if found && len(matches) > 0 {
			d := matches[0].Def
			return position{def: &d}, nil
		}
	}
	// The innermost definition containing the line: walk up the parents
	// of the last definition starting at or before it.
	inner, innerFn := -1, -1
	for i, guard := after-1, 0; i >= 0 && guard < 256; guard++ {
		sym, err := get(i)
		if err != nil {
			return position{}, err
		}
		if sym.Span.Start.Line <= line && line <= sym.Span.End.Line {
			if inner < 0 {
				inner = i
			}
			if innerFn < 0 && (sym.Kind == symbols.KindFunction || sym.Kind == symbols.KindMethod || sym.Kind == symbols.KindConstructor) {
				innerFn = i
				break
			}
		}
		if sym.Parent >= 0 && sym.Parent < i {
			i = sym.Parent
		} else {
			i--
		}
	}
	if innerFn >= 0 {
		return position{i: innerFn}, nil
	}
	if inner >= 0 {
		return position{i: inner}, nil
	}
	return position{}, fmt.Errorf("%s: no definition at %s: %w", rel, t, ErrNoSymbol)
}

// defOf converts a SymbolInfo to a graph definition (finding its ordinal).
func (s *Snapshot) defOf(si SymbolInfo) (graph.Def, error) {
	syms, err := s.st.Symbols(si.Path)
	if err != nil {
		return graph.Def{}, err
	}
	for i, sym := range syms {
		if sym.NameSpan == si.NameSpan && sym.Name == si.Name {
			return graph.Def{Path: si.Path, Ord: i, Lang: si.Language, Symbol: sym}, nil
		}
	}
	return graph.Def{}, fmt.Errorf("%s %s: %w", si.Path, si.Name, ErrNoSymbol)
}

// edgeItems converts graph edges to items.
func (s *Snapshot) edgeItems(edges []graph.Edge) []GraphItem {
	items := make([]GraphItem, 0, len(edges))
	for _, e := range edges {
		it := GraphItem{Path: e.Def.Path, Confidence: e.Confidence.String(), Reason: e.Reason, Language: e.Def.Lang, Sites: siteRanges(e.Sites)}
		switch {
		case e.Def.Ord >= 0:
			d := e.Def
			it.Symbol, it.Kind = d.QualifiedName(), string(d.Kind)
			it.StartLine, it.EndLine = d.Span.Start.Line+1, d.Span.End.Line+1
			it.NameLine, it.NameCol = d.NameSpan.Start.Line+1, d.NameSpan.Start.Column+1
		case e.Test != nil:
			it.Symbol, it.Kind = e.Test.Name, "test"
			it.StartLine, it.EndLine = e.Test.Span.Start.Line+1, e.Test.Span.End.Line+1
			it.NameLine, it.NameCol = it.StartLine, e.Test.Span.Start.Column+1
		default:
			it.Symbol, it.Kind = path.Base(e.Def.Path), "file"
			if len(e.Sites) > 0 {
				it.StartLine, it.EndLine = e.Sites[0].Start.Line+1, e.Sites[len(e.Sites)-1].End.Line+1
				it.NameLine, it.NameCol = it.StartLine, e.Sites[0].Start.Column+1
			}
		}
		items = append(items, it)
	}
	return items
}

func siteRanges(spans []symbols.Span) []SiteRange {
	if len(spans) == 0 {
		return nil
	}
	out := make([]SiteRange, len(spans))
	for i, sp := range spans {
		out[i] = SiteRange{Line: sp.Start.Line + 1, Col: sp.Start.Column + 1, EndLine: sp.End.Line + 1, EndCol: sp.End.Column + 1}
	}
	return out
}

// ResolveCall resolves the call site whose callee name covers the 0-based
// line and byte column of the indexed version of rel, with import- and
// type-aware resolution, best first. found is false when no call site is
// recorded there (fall back to name-based lookup).
func (s *Snapshot) ResolveCall(ctx context.Context, rel string, line, col int) (defs []SymbolInfo, found bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	matches, found, err := s.Resolver().ResolveAt(rel, line, col)
	if err != nil || !found {
		return nil, found, err
	}
	for _, m := range matches {
		defs = append(defs, SymbolInfo{Path: m.Def.Path, Language: m.Def.Lang, Symbol: m.Def.Symbol})
	}
	return defs, true, nil
}

// graphIndex adapts a snapshot to graph.Index. It lives as long as the
// snapshot's resolver.
type graphIndex struct {
	s     *Snapshot
	mu    sync.Mutex
	langs map[string]string
}

// lang returns the language of an indexed file: from its name when that
// is unambiguous, else from its record.
func (g *graphIndex) lang(p string) (string, error) {
	g.mu.Lock()
	l, ok := g.langs[p]
	g.mu.Unlock()
	if ok {
		return l, nil
	}
	if lang := symbols.ForPath(p); lang != nil && path.Ext(p) != ".h" {
		l = lang.Name
	} else {
		rec, err := g.s.st.File(p)
		if err != nil {
			return "", fmt.Errorf("file %s: %w", p, err)
		}
		l = rec.Language
	}
	g.mu.Lock()
	g.langs[p] = l
	g.mu.Unlock()
	return l, nil
}

func (g *graphIndex) DefinitionRefs(name string) ([]graph.DefRef, error) {
	refs, err := g.s.st.SymbolsNamed(name)
	if err != nil {
		return nil, err
	}
	out := make([]graph.DefRef, 0, len(refs))
	for _, ref := range refs {
		lang, err := g.lang(ref.Path)
		if err != nil {
			return nil, err
		}
		out = append(out, graph.DefRef{Path: ref.Path, Ord: ref.Ord, Lang: lang})
	}
	return out, nil
}

func (g *graphIndex) Symbol(p string, ord int) (symbols.Symbol, error) { return g.s.st.Symbol(p, ord) }

func (g *graphIndex) Symbols(p string) ([]symbols.Symbol, error) { return g.s.st.Symbols(p) }

func (g *graphIndex) GraphData(p string) ([]byte, error) { return g.s.st.Graph(p) }

func (g *graphIndex) Sites(key string, fn func(string, []byte) bool) error {
	return g.s.st.Reverse(key, fn)
}

// GoModulePath reads the module line of the go.mod in dir or the nearest
// directory above it inside the workspace. go.mod is not indexed, so it is
// read from disk.
func (g *graphIndex) GoModulePath(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if mp := readModulePath(filepath.Join(g.s.e.ws.Root(), filepath.FromSlash(d), "go.mod")); mp != "" {
			return mp
		}
		if d == "." || d == "/" || d == "" {
			return ""
		}
	}
}

func readModulePath(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`)
		}
	}
	return ""
}

// graphNanos accumulates the time spent in graph extraction by every
// engine of the process (GraphExtractTime).
var graphNanos atomic.Int64

// GraphExtractTime returns the total time this process spent extracting
// graphs during indexing (summed over parsing workers), for measuring the
// graph's share of indexing.
func GraphExtractTime() time.Duration { return time.Duration(graphNanos.Load()) }

// addGraph extracts the graph of a parsed file into its batch, spliced
// from prev, its previous version's, when only some declarations changed
// (graph.ExtractSpliced); it returns the graph, nil for a language without
// one.
func addGraph(data *store.FileData, f *symbols.File, rel string, prev *graph.FileGraph) *graph.FileGraph {
	if !graph.Supported(f.Lang.Name) {
		return nil
	}
	start := time.Now()
	g := graph.ExtractSpliced(prev, f, rel)
	putGraph(data, g)
	graphNanos.Add(int64(time.Since(start)))
	return g
}

// putGraph adds an extracted graph to a file's batch: encoded, and its
// reverse entries.
func putGraph(data *store.FileData, g *graph.FileGraph) {
	data.Graph = graph.Encode(g)
	rev := graph.ReverseEntries(g)
	data.Reverse = make([]store.ReverseEntry, len(rev))
	for i, r := range rev {
		data.Reverse[i] = store.ReverseEntry{Callee: r.Key, Value: r.Value}
	}
}
