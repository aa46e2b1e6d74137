package graph

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/context-ls/context-ls/symbols"
)

// Def is a definition in the index: a file's symbol and its language.
type Def struct {
	Path string
	// Ord is the symbol's index in its file; -1 for a file-level caller.
	Ord  int
	Lang string
	symbols.Symbol
}

// DefRef locates a definition without loading it.
type DefRef struct {
	Path string
	Ord  int
	Lang string
}

// Index is what resolution reads. The engine implements it over one store
// snapshot; every answer must come from that snapshot so nothing stale
// survives an edit.
type Index interface {
	// DefinitionRefs locates the definitions whose name equals name,
	// ignoring case.
	DefinitionRefs(name string) ([]DefRef, error)
	// Symbol returns the ord-th definition of a file.
	Symbol(path string, ord int) (symbols.Symbol, error)
	// Symbols returns the definitions of a file in order; nil when the file
	// is not indexed.
	Symbols(path string) ([]symbols.Symbol, error)
	// GraphData returns the encoded graph of a file (Encode); nil when the
	// file is not indexed or has no graph.
	GraphData(path string) ([]byte, error)
	// Sites calls fn with every reverse entry stored under key (see
	// CalleeKey) until fn returns false.
	Sites(key string, fn func(path string, value []byte) bool) error
	// GoModulePath returns the module path of the go.mod governing the
	// workspace directory dir ("" when unknown).
	GoModulePath(dir string) string
}

// Options tune queries.
type Options struct {
	// MaxNameOnly caps name-only results of one query (default 20).
	MaxNameOnly int
	// MaxResults caps the results of one query (default 500).
	MaxResults int
	// MaxIntermediates caps the callers explored for two-hop tests
	// (default 64, best resolved first).
	MaxIntermediates int
}

func (o Options) withDefaults() Options {
	if o.MaxNameOnly <= 0 {
		o.MaxNameOnly = 20
	}
	if o.MaxResults <= 0 {
		o.MaxResults = 500
	}
	if o.MaxIntermediates <= 0 {
		o.MaxIntermediates = 64
	}
	return o
}

// Resolver answers graph queries over an Index. It caches what it reads
// (decoded graphs, symbols, definitions by name) and memoizes type
// resolution, so it must not outlive the snapshot its Index reads: make one
// per snapshot or query. It is safe for concurrent use.
type Resolver struct {
	ix   Index
	opts Options

	mu      sync.Mutex
	graphs  map[string]*FileGraph // headers
	fulls   map[string]*FileGraph
	syms    map[string][]symbols.Symbol
	sym     map[symKey]symbols.Symbol
	refs    map[string][]DefRef
	named   map[string][]Def
	modPath map[string]string
	memo    map[string]any
}

type symKey struct {
	path string
	ord  int
}

// NewResolver returns a Resolver reading ix.
func NewResolver(ix Index, opts Options) *Resolver {
	return &Resolver{
		ix: ix, opts: opts.withDefaults(),
		graphs: map[string]*FileGraph{}, fulls: map[string]*FileGraph{}, syms: map[string][]symbols.Symbol{}, sym: map[symKey]symbols.Symbol{},
		refs: map[string][]DefRef{}, named: map[string][]Def{}, modPath: map[string]string{}, memo: map[string]any{},
	}
}

// CacheSize returns the number of entries the resolver caches (decoded
// graphs, symbols, name lookups, memoized facts), for callers that keep a
// resolver for a whole snapshot and want to bound its memory.
func (r *Resolver) CacheSize() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.graphs) + len(r.fulls) + len(r.syms) + len(r.sym) + len(r.refs) + len(r.named) + len(r.memo)
}

// cached returns m[k], loading and storing it on a miss (an error is not
// stored). m is one of the resolver's caches, guarded by r.mu.
func cached[K comparable, V any](r *Resolver, m map[K]V, k K, load func() (V, error)) (V, error) {
	r.mu.Lock()
	v, ok := m[k]
	r.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := load()
	if err != nil {
		return v, err
	}
	r.mu.Lock()
	m[k] = v
	r.mu.Unlock()
	return v, nil
}

// memoKey joins the parts of a memoization key.
func memoKey(parts ...string) string { return strings.Join(parts, "\x00") }

// memoized returns the cached value of key, computing it with fn once.
func memoized[T any](r *Resolver, key string, fn func() (T, error)) (T, error) {
	v, err := cached(r, r.memo, key, func() (any, error) { return fn() })
	t, _ := v.(T)
	return t, err
}

// memoizedType is memoized for the resolutions of a type: the type, how
// sure it is, and whether it was found.
func memoizedType(r *Resolver, key string, fn func() (typeRef, Confidence, bool, error)) (typeRef, Confidence, bool, error) {
	type result struct {
		t    typeRef
		conf Confidence
		ok   bool
	}
	res, err := memoized(r, key, func() (result, error) {
		t, conf, ok, err := fn()
		return result{t, conf, ok}, err
	})
	return res.t, res.conf, res.ok, err
}

// graph returns the header of a file's graph (no calls), or nil.
func (r *Resolver) graph(p string) (*FileGraph, error) {
	return r.loadGraph(p, r.graphs, DecodeHeader)
}

// graphFull returns a file's whole graph, or nil.
func (r *Resolver) graphFull(p string) (*FileGraph, error) {
	return r.loadGraph(p, r.fulls, Decode)
}

func (r *Resolver) loadGraph(p string, cache map[string]*FileGraph, decode func([]byte) (*FileGraph, error)) (*FileGraph, error) {
	return cached(r, cache, p, func() (*FileGraph, error) {
		b, err := r.ix.GraphData(p)
		if err != nil {
			return nil, fmt.Errorf("graph of %s: %w", p, err)
		}
		if len(b) == 0 {
			return nil, nil
		}
		g, err := decode(b)
		if err != nil {
			return nil, fmt.Errorf("graph of %s: %w", p, err)
		}
		return g, nil
	})
}

// SymbolsOf returns the definitions of file p in order (cached for the
// Resolver's life).
func (r *Resolver) SymbolsOf(p string) ([]symbols.Symbol, error) {
	return cached(r, r.syms, p, func() ([]symbols.Symbol, error) {
		s, err := r.ix.Symbols(p)
		if err != nil {
			return nil, fmt.Errorf("symbols of %s: %w", p, err)
		}
		return s, nil
	})
}

// symbol returns one definition of a file: from the file's symbols when
// they are loaded, else read alone.
func (r *Resolver) symbol(p string, ord int) (symbols.Symbol, error) {
	r.mu.Lock()
	all, loaded := r.syms[p]
	r.mu.Unlock()
	if loaded && ord >= 0 && ord < len(all) {
		return all[ord], nil
	}
	return cached(r, r.sym, symKey{p, ord}, func() (symbols.Symbol, error) {
		s, err := r.ix.Symbol(p, ord)
		if err != nil {
			return s, fmt.Errorf("symbol %s#%d: %w", p, ord, err)
		}
		return s, nil
	})
}

// defRefs returns the locations of definitions named name (any case).
func (r *Resolver) defRefs(name string) ([]DefRef, error) {
	return cached(r, r.refs, name, func() ([]DefRef, error) {
		refs, err := r.ix.DefinitionRefs(name)
		if err != nil {
			return nil, fmt.Errorf("definitions of %s: %w", name, err)
		}
		return refs, nil
	})
}

// definitionsWhere returns the definitions named exactly name whose
// location passes keep (nil keeps all); only those are loaded.
func (r *Resolver) definitionsWhere(name string, keep func(DefRef) bool) ([]Def, error) {
	refs, err := r.defRefs(name)
	if err != nil {
		return nil, err
	}
	var out []Def
	for _, ref := range refs {
		if keep != nil && !keep(ref) {
			continue
		}
		sym, err := r.symbol(ref.Path, ref.Ord)
		if err != nil {
			return nil, err
		}
		if sym.Name == name {
			out = append(out, Def{Path: ref.Path, Ord: ref.Ord, Lang: ref.Lang, Symbol: sym})
		}
	}
	return out, nil
}

// definitions returns the definitions named exactly name.
func (r *Resolver) definitions(name string) ([]Def, error) {
	return cached(r, r.named, name, func() ([]Def, error) { return r.definitionsWhere(name, nil) })
}

// pathModule returns the module identity a file's path implies, and false
// for languages whose module is a declared package (Java, Kotlin, C#, PHP).
func pathModule(lang, p string) (string, bool) {
	spec := specs[lang]
	if spec == nil || spec.packageModule {
		return "", false
	}
	return ModuleOf(lang, p, ""), true
}

// inModule returns a location filter keeping definitions that can live in
// module mod (conservatively: it keeps what it cannot decide, and every
// definition when mod re-exports names of other modules).
func (r *Resolver) inModule(mod, fam string) func(DefRef) bool {
	return func(ref DefRef) bool {
		if family(ref.Lang) != fam {
			return false
		}
		pm, ok := pathModule(ref.Lang, ref.Path)
		if !ok || mod == "" {
			return true
		}
		return r.moduleMatchPath(mod, ref.Lang, ref.Path, pm, "") || r.reexporting(mod, ref.Lang)
	}
}

// family returns the language family used to decide which definitions a
// call can reach.
func family(lang string) string {
	if s := specs[lang]; s != nil && s.family != "" {
		return s.family
	}
	return lang
}

func isTypeKind(k symbols.Kind) bool {
	switch k {
	case symbols.KindClass, symbols.KindStruct, symbols.KindInterface, symbols.KindTrait, symbols.KindEnum, symbols.KindType:
		return true
	}
	return false
}

// typeName is the type a method belongs to: the last component of its
// container.
func typeName(d Def) string { return LastComponent(d.Container) }

// typeRef is a resolved type: a name and the module identity it lives in.
type typeRef struct {
	name   string
	module string // module identity, a Go import path or directory, a dotted module …
	lang   string
	// from is the path of a file the name was read in; an empty module
	// means that file's own module.
	from string
	// elem marks a container of the type (a slice, map or channel).
	elem bool
}

// key identifies a type reference for memoization.
func (t typeRef) key() string {
	from := ""
	if t.module == "" {
		from = t.from // only then does the reading file matter
	}
	elem := ""
	if t.elem {
		elem = "[]"
	}
	return memoKey(t.name, t.module, family(t.lang), elem, from)
}

// ModuleMatch reports whether module reference ref (as a file records it:
// an import path, a dotted module, a resolved JS path, a package) names
// the module of definition d, whose file graph is dg, or a module that
// re-exports d (a Python package's __init__, a JS index: a member through
// its type's name).
func (r *Resolver) ModuleMatch(ref string, d Def, dg *FileGraph) bool {
	if ref == "" || dg == nil {
		return false
	}
	if r.moduleMatchPath(ref, d.Lang, d.Path, dg.Module, dg.Package) {
		return true
	}
	if rulesOf(d.Lang).moduleFiles == nil {
		return false
	}
	ok, _ := r.reexports(ref, exportedAs(d), d, dg, 0)
	return ok
}

// maxReexports bounds the chain of modules re-exporting a name (an index
// exporting from an index …).
const maxReexports = 4

// reexports reports whether module mod (a Python package, a JS index)
// imports name from d's module, or from a module that re-exports it, so
// that name of mod is d's (or d's type's) name. Read errors count as no.
func (r *Resolver) reexports(mod, name string, d Def, dg *FileGraph, depth int) (bool, error) {
	if depth >= maxReexports {
		return false, nil
	}
	return memoized(r, memoKey("reexports", mod, name, d.Path, exportedAs(d), strconv.Itoa(depth)), func() (bool, error) {
		for _, p := range rulesOf(d.Lang).moduleFiles(mod) {
			if p == d.Path {
				continue // the module itself: moduleMatchPath decided
			}
			g, err := r.graph(p)
			if err != nil {
				return false, err
			}
			if g == nil {
				continue
			}
			for _, im := range g.Imports {
				for _, n := range im.Names {
					orig := n.Name
					switch {
					case n.Name == "*":
						orig = name
					case n.Local() != name:
						continue
					}
					if im.Module == mod {
						continue
					}
					if r.moduleMatchPath(im.Module, d.Lang, d.Path, dg.Module, dg.Package) && orig == exportedAs(d) {
						return true, nil
					}
					if ok, err := r.reexports(im.Module, orig, d, dg, depth+1); err != nil || ok {
						return ok, err
					}
				}
			}
			return false, nil // the first file that exists is the module
		}
		return false, nil
	})
}

// renamedExport follows a name a module re-exports under another name
// (export { A as B } from "./a", from .a import A as B) to the original.
func (r *Resolver) renamedExport(t typeRef) (typeRef, bool, error) {
	return r.renamedExportDepth(t, 0)
}

func (r *Resolver) renamedExportDepth(t typeRef, depth int) (typeRef, bool, error) {
	files := rulesOf(t.lang).moduleFiles
	if files == nil || t.module == "" || depth >= maxReexports {
		return typeRef{}, false, nil
	}
	for _, p := range files(t.module) {
		g, err := r.graph(p)
		if err != nil || g == nil {
			if err != nil {
				return typeRef{}, false, err
			}
			continue
		}
		for _, im := range g.Imports {
			for _, n := range im.Names {
				if n.Alias == t.name && n.Name != t.name && n.Name != "*" && n.Name != "default" {
					return typeRef{name: n.Name, module: im.Module, lang: t.lang, from: p}, true, nil
				}
				if n.Name == "*" && im.Module != t.module {
					sub := t
					sub.module, sub.from = im.Module, p
					if orig, ok, err := r.renamedExportDepth(sub, depth+1); err != nil || ok {
						return orig, ok, err
					}
				}
			}
		}
		return typeRef{}, false, nil
	}
	return typeRef{}, false, nil
}

// exportedAs is the name d's own module exports it by: its own, or its
// type's for a member.
func exportedAs(d Def) string {
	if isMember(d) {
		return typeName(d)
	}
	return d.Name
}

// reexporting reports whether module mod has a file that imports names
// (so may re-export other modules' definitions).
func (r *Resolver) reexporting(mod, lang string) bool {
	files := rulesOf(lang).moduleFiles
	if files == nil {
		return false
	}
	ok, _ := memoized(r, memoKey("reexporting", mod, family(lang)), func() (bool, error) {
		for _, p := range files(mod) {
			g, err := r.graph(p)
			if err != nil || g == nil {
				continue
			}
			for _, im := range g.Imports {
				if len(im.Names) > 0 {
					return true, nil
				}
			}
			return false, nil
		}
		return false, nil
	})
	return ok
}

// moduleMatchPath is moduleMatch for a definition in file p of language
// lang whose module identity is module and declared package pkg.
func (r *Resolver) moduleMatchPath(ref, lang, p, module, pkg string) bool {
	if ref == "" {
		return false
	}
	if ref == module {
		return true
	}
	if m := rulesOf(lang).matchModule; m != nil {
		return m(r, ref, p, module, pkg)
	}
	return matchPathModule(ref, p)
}

func stem(p string) string {
	b := path.Base(p)
	return strings.TrimSuffix(b, path.Ext(b))
}

// sameModule reports whether a call site and definition d share a package
// or module, so bare names are visible without imports.
func sameModule(s *Site, d Def, dg *FileGraph) bool {
	switch rulesOf(d.Lang).namespace {
	case nsDirPackage:
		return path.Dir(s.Path) == path.Dir(d.Path) && s.Package == dg.Package
	case nsPackage:
		return s.Package == dg.Package
	case nsGlobal:
		return true
	}
	return s.Path == d.Path || (s.Module != "" && s.Module == dg.Module)
}

// globalNamespace reports languages whose type and function names are
// global (not scoped by file or package).
func globalNamespace(lang string) bool { return rulesOf(lang).namespace == nsGlobal }

// ownModule is the module identity a site's unqualified type names live
// in ("" where names are global).
func ownModule(s *Site) string {
	if globalNamespace(s.Lang) {
		return ""
	}
	return s.Module
}

// typeMatches reports whether type t names the type that declares method
// d.
func (r *Resolver) typeMatches(t typeRef, d Def, dg *FileGraph) bool {
	if t.elem || t.name != typeName(d) {
		return false
	}
	if t.module == "" {
		return true // nothing better known: the name decides
	}
	if t.module == dg.Module {
		return true
	}
	return r.ModuleMatch(t.module, d, dg)
}

// typeDecl is a type definition with its file graph.
type typeDecl struct {
	def Def
	g   *FileGraph
}

// findTypes returns the type definitions t can name, with aliases
// replaced by what they alias.
func (r *Resolver) findTypes(t typeRef) ([]typeDecl, error) {
	return memoized(r, "types\x00"+t.key(), func() ([]typeDecl, error) { return r.findTypesDepth(t, 0) })
}

func (r *Resolver) findTypesDepth(t typeRef, depth int) ([]typeDecl, error) {
	if t.elem || isBuiltinType(t) || (rulesOf(t.lang).anonStructs && isAnonStruct(t.name)) {
		return nil, nil
	}
	decls, err := r.findDecls(t)
	if err != nil || depth > 3 {
		return decls, err
	}
	if len(decls) == 0 {
		// export { A as B } from "./a": B of this module is A of ./a.
		if orig, ok, err := r.renamedExport(t); err != nil || ok {
			if err != nil {
				return nil, err
			}
			return r.findTypesDepth(orig, depth+1)
		}
	}
	var out []typeDecl
	for _, td := range decls {
		target, isAlias := aliasOf(td)
		if !isAlias {
			out = append(out, td)
			continue
		}
		more, err := r.findTypesDepth(target, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// isBuiltinType reports a predeclared type of the language (Go error,
// string, int …), which no workspace file declares.
func isBuiltinType(t typeRef) bool {
	spec := specs[t.lang]
	return spec != nil && spec.rules.builtinTypes && spec.builtins[t.name]
}

// aliasOf returns the type an alias declaration stands for.
func aliasOf(td typeDecl) (typeRef, bool) {
	for _, t := range td.g.Types {
		if t.Name == td.def.Name && t.Alias && len(t.Bases) == 1 {
			return qualify(t.Bases[0], td.g), true
		}
	}
	return typeRef{}, false
}

// findDecls returns the type definitions named like t in its module.
func (r *Resolver) findDecls(t typeRef) ([]typeDecl, error) {
	defs, err := r.definitionsWhere(t.name, r.inModule(t.module, family(t.lang)))
	if err != nil {
		return nil, err
	}
	var out []typeDecl
	for _, d := range defs {
		if !isTypeKind(d.Kind) || family(d.Lang) != family(t.lang) {
			continue
		}
		dg, err := r.graph(d.Path)
		if err != nil {
			return nil, err
		}
		if dg == nil {
			continue
		}
		if t.module != "" && t.module != dg.Module && !r.ModuleMatch(t.module, d, dg) {
			continue
		}
		out = append(out, typeDecl{d, dg})
	}
	if t.module == "" && len(out) > 1 && t.from != "" {
		// Unqualified: prefer the declaring file's own module.
		var own []typeDecl
		fg, err := r.graph(t.from)
		if err != nil {
			return nil, err
		}
		for _, td := range out {
			if fg != nil && td.g.Module == fg.Module {
				own = append(own, td)
			}
		}
		if len(own) > 0 {
			out = own
		}
	}
	return out, nil
}

// qualify turns a TypeExpr read in file g into a typeRef.
func qualify(te TypeExpr, g *FileGraph) typeRef {
	t := typeRef{name: te.Name, module: te.Module, lang: g.Lang, from: g.Path, elem: te.Elem}
	if t.module == "" && !globalNamespace(g.Lang) {
		t.module = g.Module
	}
	return t
}

// fieldType returns the type of member field of type t, looking through
// embedded fields and base types.
func (r *Resolver) fieldType(t typeRef, field string, depth int) (typeRef, Confidence, bool, error) {
	return memoizedType(r, memoKey("field", t.key(), field, strconv.Itoa(depth)), func() (typeRef, Confidence, bool, error) {
		return r.fieldTypeUncached(t, field, depth)
	})
}

func (r *Resolver) fieldTypeUncached(t typeRef, field string, depth int) (typeRef, Confidence, bool, error) {
	if field == ElemStep && t.elem {
		t.elem = false
		return t, Exact, true, nil
	}
	if depth > 3 || t.elem {
		return typeRef{}, 0, false, nil
	}
	if rulesOf(t.lang).anonStructs && isAnonStruct(t.name) {
		// A field of an anonymous struct, recorded where it is declared,
		// or promoted from one of its embedded fields.
		fields, g, err := r.anonFields(t)
		if err != nil {
			return typeRef{}, 0, false, err
		}
		for _, f := range fields {
			if f.Name == field && f.Type.Known() {
				return r.memberType(f.Type, g)
			}
		}
		for _, f := range fields {
			if f.Embedded {
				if ft, fc, ok, err := r.fieldType(qualify(f.Type, g), field, depth+1); err != nil || ok {
					return ft, fc, ok, err
				}
			}
		}
		return typeRef{}, 0, false, nil
	}
	decls, err := r.findTypes(t)
	if err != nil || len(decls) == 0 {
		return typeRef{}, 0, false, err
	}
	for _, td := range decls {
		for _, f := range td.g.Fields {
			if f.Owner == td.def.Name && f.Name == field && f.Type.Known() {
				return r.memberType(f.Type, td.g)
			}
		}
	}
	for _, td := range decls {
		for _, b := range r.basesOf(td) {
			if ft, fc, ok, err := r.fieldType(b, field, depth+1); err != nil || ok {
				return ft, fc, ok, err
			}
		}
	}
	return typeRef{}, 0, false, nil
}

// anonFields returns the fields of the anonymous Go struct t names (see
// AnonStructName) and the graph of the file declaring them.
func (r *Resolver) anonFields(t typeRef) ([]Field, *FileGraph, error) {
	g, err := r.graph(t.from)
	if err != nil || g == nil {
		return nil, nil, err
	}
	var out []Field
	for _, f := range g.Fields {
		if f.Owner == t.name {
			out = append(out, f)
		}
	}
	return out, g, nil
}

// memberType resolves a declared member or variable type read in file g.
func (r *Resolver) memberType(te TypeExpr, g *FileGraph) (typeRef, Confidence, bool, error) {
	if te.Call {
		return r.callResult(te, &Site{Path: g.Path, Lang: g.Lang, Package: g.Package, Module: g.Module})
	}
	return qualify(te, g), Exact, true, nil
}

// basesOf returns the embedded and base types of a declaration.
func (r *Resolver) basesOf(td typeDecl) []typeRef {
	var out []typeRef
	for _, t := range td.g.Types {
		if t.Name == td.def.Name {
			for _, b := range t.Bases {
				out = append(out, qualify(b, td.g))
			}
		}
	}
	return out
}

// recvType resolves the type a call's receiver has, with the confidence
// the chain allows. ok is false when the type is unknown.
func (r *Resolver) recvType(s *Site) (typeRef, Confidence, bool, error) {
	c := &s.Call
	conf := Exact
	var t typeRef
	var err error
	fields := c.Recv.Fields
	if callee, a, k, ok := calleeArg(c.Recv); ok {
		// define((c) => c.m()): the type define declares for its argument.
		t, conf, ok, err = r.calleeArgParam(callee, s, a, k)
		if err != nil || !ok {
			return typeRef{}, 0, false, err
		}
		return r.walkFields(t, conf, fields[1:])
	}
	switch c.Recv.Kind {
	case RecvSelf:
		if c.Recv.Type.Name == "" {
			return typeRef{}, 0, false, nil
		}
		t = typeRef{name: c.Recv.Type.Name, module: ownModule(s), lang: s.Lang, from: s.Path}
	case RecvVar:
		te := c.Recv.Type
		if te.Call {
			var ok bool
			t, conf, ok, err = r.callResult(te, s)
			if err != nil || !ok {
				return typeRef{}, 0, false, err
			}
		} else {
			t = typeRef{name: te.Name, module: te.Module, lang: s.Lang, from: s.Path, elem: te.Elem}
			if t.module == "" {
				t.module = ownModule(s)
			}
			if te.Module != "" && !te.Elem {
				// An imported name is a class, or a module-level value
				// (from m import current_app) whose type m declares.
				if vt, vc, ok, err := r.importedValue(s, te); err != nil || ok {
					if err != nil {
						return typeRef{}, 0, false, err
					}
					t, conf = vt, vc
				}
			}
		}
	case RecvFree:
		var ok bool
		t, conf, ok, err = r.freeRoot(s)
		if err != nil || !ok {
			return typeRef{}, 0, false, err
		}
	default:
		return typeRef{}, 0, false, nil
	}
	return r.walkFields(t, conf, fields)
}

// walkFields follows the steps of a receiver from its root's type t.
func (r *Resolver) walkFields(t typeRef, conf Confidence, fields []string) (typeRef, Confidence, bool, error) {
	for _, f := range fields {
		var ft typeRef
		var fc Confidence
		var ok bool
		var err error
		if m, k, isCall := ParseCallStep(f); isCall {
			ft, fc, ok, err = r.methodResult(t, m, k)
		} else if m, a, k, isParam := ParseParamStep(f); isParam {
			switch {
			case a < 0:
				ft, fc, ok, err = r.fnTypeParam(t, k, 0)
			case m != "":
				ft, fc, ok, err = r.methodArgParam(t, m, a, k)
			}
		} else {
			ft, fc, ok, err = r.fieldType(t, f, 0)
		}
		if err != nil || !ok {
			return typeRef{}, 0, false, err
		}
		t, conf = ft, min(conf, fc)
	}
	return t, conf, true, nil
}

// calleeArg reports a receiver that starts with the argument of a function
// (ArgStep with no method): the function's name, the argument and the
// parameter of the function passed there.
func calleeArg(rv Recv) (te TypeExpr, a, k int, ok bool) {
	if len(rv.Fields) == 0 {
		return TypeExpr{}, 0, 0, false
	}
	m, a, k, ok := ParseParamStep(rv.Fields[0])
	if !ok || m != "" || a < 0 {
		return TypeExpr{}, 0, 0, false
	}
	switch {
	case rv.Kind == RecvFree:
		return TypeExpr{Name: rv.Root, Module: rv.Module}, a, k, true
	case rv.Kind == RecvVar && !rv.Type.Call && !rv.Type.Elem:
		return TypeExpr{Name: rv.Type.Name, Module: rv.Type.Module}, a, k, true
	}
	return TypeExpr{}, 0, 0, false
}

// importedValue resolves an imported name that names no type of its
// module but a module-level variable of it: the variable's type.
func (r *Resolver) importedValue(s *Site, te TypeExpr) (typeRef, Confidence, bool, error) {
	types, err := r.findTypes(typeRef{name: te.Name, module: te.Module, lang: s.Lang, from: s.Path})
	if err != nil || len(types) > 0 {
		return typeRef{}, 0, false, err
	}
	v := *s
	v.Call.Recv = Recv{Kind: RecvFree, Module: te.Module, Root: te.Name}
	return r.freeRoot(&v)
}

// outside reports a module no workspace file holds (the standard
// library's, a dependency's), for languages that list a module's files: a
// type from it declares no workspace method. A Python package under a
// source root other than the workspace's or src/ looks outside too; this
// is asked only of receivers whose type was not found.
func (r *Resolver) outside(mod, lang string) (bool, error) {
	files := rulesOf(lang).moduleFiles
	if files == nil || mod == "" {
		return false, nil
	}
	return memoized(r, memoKey("outside", mod, family(lang)), func() (bool, error) {
		for _, p := range files(mod) {
			g, err := r.graph(p)
			if err != nil || g != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// freeRoot resolves an identifier the calling file does not bind: an
// implicit field of the enclosing type, a package-level variable, or a
// type name (a static or class-method call).
func (r *Resolver) freeRoot(s *Site) (typeRef, Confidence, bool, error) {
	c := &s.Call
	key := memoKey("free", s.Lang, s.Module, s.Package, path.Dir(s.Path), c.Recv.Root, c.Recv.Module, c.Self)
	if rulesOf(s.Lang).namespace != nsDirPackage {
		key += "\x00" + s.Path // wildcard imports are per file
	}
	return memoizedType(r, key, func() (typeRef, Confidence, bool, error) {
		return r.freeRootUncached(s)
	})
}

func (r *Resolver) freeRootUncached(s *Site) (typeRef, Confidence, bool, error) {
	c := &s.Call
	root := c.Recv.Root
	if c.Recv.Module == "" && c.Self != "" && specs[s.Lang] != nil && specs[s.Lang].implicitThis {
		self := typeRef{name: c.Self, module: ownModule(s), lang: s.Lang, from: s.Path}
		if ft, fc, ok, err := r.fieldType(self, root, 0); err != nil || ok {
			return ft, fc, ok, err
		}
	}
	keep := r.inModule(c.Recv.Module, family(s.Lang))
	if c.Recv.Module == "" && rulesOf(s.Lang).namespace == nsDirPackage {
		dir, fam := path.Dir(s.Path), family(s.Lang)
		keep = func(ref DefRef) bool { return family(ref.Lang) == fam && path.Dir(ref.Path) == dir }
	}
	defs, err := r.definitionsWhere(root, keep)
	if err != nil {
		return typeRef{}, 0, false, err
	}
	for _, d := range defs {
		if family(d.Lang) != family(s.Lang) {
			continue
		}
		dg, err := r.graph(d.Path)
		if err != nil {
			return typeRef{}, 0, false, err
		}
		if dg == nil {
			continue
		}
		visible := false
		if c.Recv.Module != "" {
			visible = r.ModuleMatch(c.Recv.Module, d, dg)
		} else {
			visible = sameModule(s, d, dg)
			if !visible {
				visible, err = r.wildcardImported(s, d, dg)
				if err != nil {
					return typeRef{}, 0, false, err
				}
			}
		}
		if !visible {
			continue
		}
		switch {
		case d.Kind == symbols.KindVar || d.Kind == symbols.KindConst:
			for _, f := range dg.Fields {
				if f.Owner == "" && f.Name == root && f.Type.Known() {
					return r.memberType(f.Type, dg)
				}
			}
		case isTypeKind(d.Kind):
			return typeRef{name: d.Name, module: dg.Module, lang: d.Lang, from: d.Path}, Exact, true, nil
		}
	}
	return typeRef{}, 0, false, nil
}

// wildcardImported reports whether the calling file imports every name of
// d's module (using Namespace; import a.b.*; from m import *).
func (r *Resolver) wildcardImported(s *Site, d Def, dg *FileGraph) (bool, error) {
	cg, err := r.graph(s.Path)
	if err != nil || cg == nil {
		return false, err
	}
	for _, im := range cg.Imports {
		for _, n := range im.Names {
			if n.Name == "*" && (im.Module == dg.Package || r.ModuleMatch(im.Module, d, dg)) {
				return true, nil
			}
		}
	}
	return false, nil
}

// callResult resolves the type of calling te.Name from site s: a class
// instance, or the declared result of a function. It is exact when one
// visible definition answers, likely when several do (the first wins).
func (r *Resolver) callResult(te TypeExpr, s *Site) (typeRef, Confidence, bool, error) {
	key := memoKey("call", te.Name, te.Module, strconv.Itoa(te.Result), s.Lang, s.Module, s.Package, path.Dir(s.Path))
	return memoizedType(r, key, func() (typeRef, Confidence, bool, error) {
		return r.callResultUncached(te, s)
	})
}

func (r *Resolver) callResultUncached(te TypeExpr, s *Site) (typeRef, Confidence, bool, error) {
	defs, err := r.visibleCallees(te, s)
	if err != nil {
		return typeRef{}, 0, false, err
	}
	var found []typeRef
	for _, cd := range defs {
		d, dg := cd.def, cd.g
		if isTypeKind(d.Kind) {
			// An instantiation: the value is an instance of the class.
			found = append(found, typeRef{name: d.Name, module: dg.Module, lang: d.Lang, from: d.Path})
			continue
		}
		rt, ok := resultType(d.Lang, d.Signature, d.Name, te.Result)
		if !ok {
			continue
		}
		found = append(found, qualifyRaw(rt, d, dg))
	}
	switch len(found) {
	case 0:
		return typeRef{}, 0, false, nil
	case 1:
		return found[0], Exact, true, nil
	}
	return found[0], Likely, true, nil
}

// visibleCallees returns the functions and classes (never methods) named
// te.Name that a call from site s reaches: of module te.Module, else of
// the caller's own module.
func (r *Resolver) visibleCallees(te TypeExpr, s *Site) ([]typeDecl, error) {
	keep := r.inModule(te.Module, family(s.Lang))
	if te.Module == "" {
		if pm, ok := pathModule(s.Lang, s.Path); ok {
			fam := family(s.Lang)
			keep = func(ref DefRef) bool {
				m, ok := pathModule(ref.Lang, ref.Path)
				return family(ref.Lang) == fam && (!ok || m == pm || globalNamespace(ref.Lang))
			}
		}
	}
	defs, err := r.definitionsWhere(te.Name, keep)
	if err != nil {
		return nil, err
	}
	var out []typeDecl
	for _, d := range defs {
		if family(d.Lang) != family(s.Lang) || d.Container != "" && !isTypeKind(d.Kind) {
			continue
		}
		dg, err := r.graph(d.Path)
		if err != nil {
			return nil, err
		}
		if dg == nil {
			continue
		}
		if te.Module != "" {
			if !r.ModuleMatch(te.Module, d, dg) {
				continue
			}
		} else if !sameModule(s, d, dg) {
			continue
		}
		out = append(out, typeDecl{def: d, g: dg})
	}
	return out, nil
}

// qualifyRaw resolves a type as written in definition d's file.
func qualifyRaw(rt rawType, d Def, dg *FileGraph) typeRef {
	t := typeRef{name: rt.name, lang: d.Lang, from: d.Path, module: dg.Module, elem: rt.elem}
	if globalNamespace(d.Lang) {
		t.module = ""
	}
	if rt.qual != "" {
		t.module = rt.qual
		for _, im := range dg.Imports {
			if im.Alias == rt.qual || (im.Alias == "" && defaultBinding(dg.Lang, im.Path) == rt.qual) {
				t.module = im.Module
				break
			}
		}
		return t
	}
	for _, im := range dg.Imports {
		for _, n := range im.Names {
			if n.Local() == rt.name {
				t.module, t.name = im.Module, n.Name
			}
		}
	}
	return t
}

// methodResult resolves the k-th result type of method m of type t
// (declared, promoted from an embedded field, or of an interface).
func (r *Resolver) methodResult(t typeRef, m string, k int) (typeRef, Confidence, bool, error) {
	return memoizedType(r, memoKey("result", t.key(), m, strconv.Itoa(k)), func() (typeRef, Confidence, bool, error) {
		return r.methodResultUncached(t, m, k)
	})
}

func (r *Resolver) methodResultUncached(t typeRef, m string, k int) (typeRef, Confidence, bool, error) {
	if m == "" {
		return r.valueCallResult(t, k)
	}
	if mr := rulesOf(t.lang).methodResult; mr != nil {
		return mr(r, t, m, k)
	}
	d, ok, err := r.findMethod(t, m, 0)
	if err != nil || !ok {
		return typeRef{}, 0, false, err
	}
	rt, ok := resultType(d.Lang, d.Signature, d.Name, k)
	if !ok {
		return typeRef{}, 0, false, nil
	}
	if rt.qual == "" && (rt.name == "this" || rt.name == "Self") {
		return t, Exact, true, nil // a builder's method returns its receiver (TS this, Python Self)
	}
	dg, err := r.graph(d.Path)
	if err != nil || dg == nil {
		return typeRef{}, 0, false, err
	}
	return qualifyRaw(rt, d, dg), Exact, true, nil
}

// valueCallResult resolves the k-th result of calling a value of type t, a
// named function type (type Factory func() *Cache).
func (r *Resolver) valueCallResult(t typeRef, k int) (typeRef, Confidence, bool, error) {
	decls, err := r.findTypes(t)
	if err != nil {
		return typeRef{}, 0, false, err
	}
	for _, td := range decls {
		if rt, ok := resultType(td.def.Lang, td.def.Signature, td.def.Name, k); ok {
			return qualifyRaw(rt, td.def, td.g), Exact, true, nil
		}
	}
	return typeRef{}, 0, false, nil
}

// findMethod finds method m of type t, looking through aliases, embedded
// fields and base types.
func (r *Resolver) findMethod(t typeRef, m string, depth int) (Def, bool, error) {
	if depth > 3 || t.elem {
		return Def{}, false, nil
	}
	decls, err := r.findTypes(t)
	if err != nil || len(decls) == 0 {
		return Def{}, false, err
	}
	for _, td := range decls {
		if d, ok, err := r.declaredMethod(td, m); err != nil || ok {
			return d, ok, err
		}
	}
	for _, td := range decls {
		for _, b := range r.basesOf(td) {
			if d, ok, err := r.findMethod(b, m, depth+1); err != nil || ok {
				return d, ok, err
			}
		}
	}
	return Def{}, false, nil
}

// inDecls keeps definitions in the modules of the given type declarations
// (a method lives in its type's package).
func (r *Resolver) inDecls(decls []typeDecl) func(DefRef) bool {
	mods := map[string]bool{}
	for _, td := range decls {
		mods[td.g.Module] = true
	}
	return func(ref DefRef) bool {
		pm, ok := pathModule(ref.Lang, ref.Path)
		return !ok || mods[pm] || globalNamespace(ref.Lang)
	}
}

// resultType reads the k-th declared result type of a function from its
// signature.
func resultType(lang, sig, name string, k int) (rawType, bool) {
	read := rulesOf(lang).resultType
	if read == nil {
		read = leadingResult
	}
	res, ok := read(sig, name, k)
	if !ok {
		return rawType{}, false
	}
	return parseTypeText(res)
}

// parseTypeText reads "*pkg.T[X]", "Optional[T]", "Box<T>", "&mut T" into a
// rawType.
func parseTypeText(s string) (rawType, bool) {
	s = strings.TrimSpace(s)
	elem := false
	switch {
	case strings.HasPrefix(s, "[]"):
		s, elem = s[2:], true
	case strings.HasPrefix(s, "map["):
		if rest := skipBalanced(s[3:], '[', ']'); rest != "" {
			s, elem = rest, true
		}
	case strings.HasPrefix(s, "chan "):
		s, elem = s[5:], true
	}
	rt, ok := parseTypeName(s)
	rt.elem = elem
	return rt, ok
}

// parseTypeName reads "*pkg.T[X]", "Optional[T]", "Box<T>", "&mut T".
func parseTypeName(s string) (rawType, bool) {
	s = strings.TrimSpace(s)
	for _, p := range []string{"*", "&", "mut ", "const ", "Optional[", "?"} {
		for strings.HasPrefix(s, p) {
			s = strings.TrimSpace(s[len(p):])
		}
	}
	if i := strings.IndexAny(s, "[<({ "); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, "*&?]")
	if s == "" || strings.HasPrefix(s, "[") {
		return rawType{}, false
	}
	sep := strings.LastIndexAny(s, ".:\\")
	if sep < 0 {
		return rawType{name: s}, IsIdentifier(s)
	}
	name := s[sep+1:]
	qual := strings.TrimRight(s[:sep], ".:\\")
	return rawType{name: name, qual: qual}, IsIdentifier(name)
}

// skipBalanced returns s after the balanced group that starts it.
func skipBalanced(s string, open, close byte) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return s[i+1:]
			}
		}
	}
	return ""
}

// walkBrackets calls fn for each byte of s outside quotes with the depth
// of brackets, parentheses and braces around it — an opening one's before
// it, a closing one's after it — until fn returns false. The ">" of "=>"
// closes nothing.
func walkBrackets(s string, fn func(i int, c byte, depth int) bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		d := depth
		switch {
		case quote != 0:
			if c == quote && s[i-1] != '\\' {
				quote = 0
			}
			continue
		case c == '\'' || c == '"' || c == '`':
			quote = c
			continue
		case c == '(' || c == '[' || c == '{' || c == '<':
			depth++
		case c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || s[i-1] != '=')):
			depth--
			d = depth
		}
		if !fn(i, c, d) {
			return
		}
	}
}

// scanTopLevel calls fn for each byte of s outside brackets and quotes
// (an opening bracket included) until fn returns false.
func scanTopLevel(s string, fn func(i int, c byte) bool) {
	walkBrackets(s, func(i int, c byte, depth int) bool {
		if depth != 0 || c == ')' || c == ']' || c == '}' || c == '>' {
			return true
		}
		return fn(i, c)
	})
}

// closingIndex is the index of the bracket closing the one at s[open], or
// -1.
func closingIndex(s string, open int) int {
	end := -1
	walkBrackets(s[open:], func(i int, c byte, depth int) bool {
		if depth == 0 && i > 0 && (c == ')' || c == ']' || c == '}' || c == '>') {
			end = open + i
			return false
		}
		return true
	})
	return end
}

// splitTopLevel splits s at sep outside brackets, parentheses, braces and
// quotes; it trims the parts and drops empty ones.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	start := 0
	scanTopLevel(s, func(i int, c byte) bool {
		if c == sep {
			out = appendTrimmed(out, s[start:i])
			start = i + 1
		}
		return true
	})
	return appendTrimmed(out, s[start:])
}

func appendTrimmed(out []string, s string) []string {
	if s = strings.Trim(s, " \t\n"); s != "" {
		out = append(out, s)
	}
	return out
}
