package graph

import (
	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// The extension point of a language kept in its own package (lang/<name>):
// Register adds its Lang from the package's init. Its handlers see one
// extraction run through Extractor, and its Match hook asks the Resolver
// through the exported methods ModuleMatch, CountDefs, SymbolsOf,
// DefinesTopLevel and DefinesTopLevelName. This is the whole surface a
// language package may use; the languages in lang_*.go set the unexported
// langSpec directly.

// Lang is a language's graph support: how its calls, imports and tests
// are read from a syntax tree, and its rules of resolution.
type Lang struct {
	// Query is the tree-sitter query. An outer capture named call with
	// the callee's identifier as @name is a bare call site the extraction
	// records itself, Builtins skipped; the names new, ref, access, param,
	// field and type have meanings of their own too. Every other outer
	// capture goes to Handlers by name: a language package names its own
	// ("lua_call"). An outer capture's name has no "." and is not name or
	// qual; the inner captures' names are ("import.fn").
	Query string
	// Family groups languages whose definitions call each other; "" is
	// the language's own name.
	Family string
	// Module returns the module identity of a file by its path
	// (FileGraph.Module); nil means the path.
	Module func(path string) string
	// Builtins lists names whose bare calls are never recorded (call
	// captures; a handler's calls check Extractor.Builtin).
	Builtins map[string]bool
	// Global: one global namespace, every file's definitions visible by
	// their bare names and a bare call reaching a function declared in
	// any file (shell scripts).
	Global bool
	// Handlers process the outer captures, by capture name, with the
	// match's inner captures.
	Handlers map[string]func(x *Extractor, n *sitter.Node, caps Captures)
	// Finish runs once all matches are handled.
	Finish func(x *Extractor)
	// Match decides whether call site s refers to definition d (of the
	// file whose graph is dg) entirely; nil: the general rules.
	Match func(r *Resolver, s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error)
	// MatchModule reports whether import or module reference ref names
	// file p, whose module identity is module and declared package pkg;
	// nil: ref is p's path, with or without its extension.
	MatchModule func(ref, p, module, pkg string) bool
	// TestFiles lists where the tests of file name (extension ext) in dir
	// live by the language's naming convention; nil: nowhere.
	TestFiles func(dir, name, ext string) []string
}

// Register adds graph support for l under the symbols language names
// (symbols.Language.Name). A language package calls it from its init.
func Register(l *Lang, names ...string) {
	spec := &langSpec{query: l.Query, family: l.Family, module: l.Module, builtins: l.Builtins}
	spec.handlers = make(map[string]func(*extractor, *sitter.Node, []capNode), len(l.Handlers))
	for name, h := range l.Handlers {
		spec.handlers[name] = func(x *extractor, n *sitter.Node, caps []capNode) { h((*Extractor)(x), n, Captures(caps)) }
	}
	if f := l.Finish; f != nil {
		spec.finish = func(x *extractor) { f((*Extractor)(x)) }
	}
	if l.Global {
		spec.rules.namespace, spec.rules.globalFunctions = nsGlobal, true
	}
	spec.rules.match = l.Match
	if f := l.MatchModule; f != nil {
		spec.rules.matchModule = func(_ *Resolver, ref, p, module, pkg string) bool { return f(ref, p, module, pkg) }
	}
	spec.rules.testFiles = l.TestFiles
	registerSpec(spec, names...)
}

// Captures are the inner captures of a query match.
type Captures []capNode

// Node returns the node captured as name, or nil.
func (c Captures) Node(name string) *sitter.Node { return capture(c, name) }

// Extractor is one extraction run, as a Lang's handlers see it.
type Extractor extractor

// Path is the file's slash-separated path relative to the workspace root.
func (x *Extractor) Path() string { return x.path }

// Source returns the file's text.
func (x *Extractor) Source() []byte { return x.src }

// Text returns the source text of n.
func (x *Extractor) Text(n *sitter.Node) string { return (*extractor)(x).text(n) }

// Span returns the span of n.
func (x *Extractor) Span(n *sitter.Node) symbols.Span { return spanOf(n) }

// Builtin reports a name listed in Lang.Builtins.
func (x *Extractor) Builtin(name string) bool { return x.spec.builtins[name] }

// Bound reports whether a local binding of name is visible at offset off.
func (x *Extractor) Bound(name string, off uint32) bool {
	_, ok := (*extractor)(x).lookup(name, off)
	return ok
}

// Bind binds name (a parameter, a loop variable) from offset at within
// [scopeStart, scopeEnd); "" and "_" bind nothing.
func (x *Extractor) Bind(name string, at, scopeStart, scopeEnd uint32) {
	(*extractor)(x).bind(name, at, scopeStart, scopeEnd, rawType{})
}

// BindVia binds name from offset at within [scopeStart, scopeEnd) to the
// value via, read as seen from offset viaAt: calls on the name are
// resolved through it. A via that is not Known binds a name of unknown
// value; "" and "_" bind nothing, as with Bind.
func (x *Extractor) BindVia(name string, at, scopeStart, scopeEnd uint32, via Chain, viaAt uint32) {
	l := local{at: at, scopeStart: scopeStart, scopeEnd: scopeEnd}
	if via.Known() {
		l.via, l.viaAt = &via.c, viaAt
	}
	(*extractor)(x).bindLocal(name, l)
}

// Assign gives the binding of name visible at offset off, when it was
// bound without a value, the value via (see BindVia): a forward-declared
// local resolves through its later assignment everywhere.
func (x *Extractor) Assign(name string, off uint32, via Chain, viaAt uint32) {
	i := (*extractor)(x).visible(name, off)
	if i < 0 || !via.Known() {
		return
	}
	if l := &x.locals[name][i]; l.via == nil && !l.def {
		l.via, l.viaAt = &via.c, viaAt
	}
}

// BindModule makes name stand for module (an import's Module) wherever
// no local binding shadows it.
func (x *Extractor) BindModule(name, module string) {
	x.aliases[name] = importBinding{module: module}
}

// AddCall records a call of name at site (the callee's span) on receiver
// recv, written as text; a zero recv is a bare call. Calls beyond
// MaxCallsPerFile are dropped and the graph marked truncated.
func (x *Extractor) AddCall(name string, site symbols.Span, text string, recv Chain) {
	if len(x.calls) >= MaxCallsPerFile {
		x.truncated = true
		return
	}
	x.calls = append(x.calls, pendingCall{name: name, site: site, text: cut(text, maxTextBytes), ch: recv.c})
}

// Imports returns the imports recorded so far.
func (x *Extractor) Imports() []Import { return x.g.Imports }

// AddImport records an import.
func (x *Extractor) AddImport(im Import) { x.g.Imports = append(x.g.Imports, im) }

// AddTest records a test block of kind k named name (cut to 200 bytes)
// spanning span. NestTests names nested blocks after their parents.
func (x *Extractor) AddTest(name string, k TestKind, span symbols.Span) {
	x.g.Tests = append(x.g.Tests, Test{Ord: -1, Name: cut(name, 200), Kind: k, Span: span})
}

// NestTests orders the test blocks and prefixes each name with the names
// of the blocks around it ("Cart > adds items").
func (x *Extractor) NestTests() { (*extractor)(x).nestTests() }

// SetDefaultExport records the name the module exports as a whole (the
// table a Lua file returns): FileGraph.DefaultExport.
func (x *Extractor) SetDefaultExport(name string) { x.g.DefaultExport = name }

// Chain is a call's receiver or a binding's value as a Lang's handlers
// read it: a root (a name, self, or the result of a call) and the fields
// selected after it. The zero Chain is no receiver (a bare call).
type Chain struct{ c chain }

// UnknownChain is a receiver that cannot be read.
var UnknownChain = Chain{chain{root: rootUnknown}}

// NameChain is rooted at name: a local, an import, or a global.
func NameChain(name string) Chain { return Chain{chain{root: rootIdent, ident: name}} }

// SelfChain is rooted at the enclosing type's instance (self, this).
func SelfChain() Chain { return Chain{chain{root: rootSelf}} }

// ResultChain is rooted at the result of calling fn, by convention an
// instance of the type fn constructs.
func ResultChain(fn string) Chain {
	return Chain{chain{root: rootType, typ: rawType{name: fn, call: true}}}
}

// Known reports a chain with a root that can be resolved.
func (c Chain) Known() bool { return c.c.root != rootNone && c.c.root != rootUnknown }

// Field selects step after c: a field name, ElemStep or a CallStep. ok is
// false when c already holds the most steps a chain keeps.
func (c Chain) Field(step string) (Chain, bool) {
	if len(c.c.fields) >= maxFields {
		return UnknownChain, false
	}
	return c.With(step), true
}

// With selects step after c whatever its length (a final call step).
func (c Chain) With(step string) Chain {
	c.c.fields = append(c.c.fields, step)
	return c
}
