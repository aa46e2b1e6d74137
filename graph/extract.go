package graph

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// Limits that keep one pathological file from bloating the index.
const (
	// MaxCallsPerFile caps the call sites kept for one file; generated
	// files can hold hundreds of thousands.
	MaxCallsPerFile = 50000
	// maxTextBytes caps Call.Text.
	maxTextBytes = 80
	// maxFields caps a qualifier's field chain.
	maxFields = 6
)

// langSpec is the per-language part of extraction.
type langSpec struct {
	// query captures, per pattern, one outer node whose capture name says
	// what it is, plus inner captures:
	//   @call / @new / @ref  with @name (callee identifier) and optional @qual
	//   @access  with @name (a member) and @qual (its object): a member
	//   read or assigned (access says which) unless it is also matched as
	//   a call or reference
	//   @param (the function) with @name and optional @type
	//   @import, @local, @field, @type, @package, @export, @typeref
	//   @test with @name and @test.name (JS blocks)
	query string
	// family groups languages whose definitions call each other
	// ("js" for JavaScript and TypeScript, "c" for C and C++).
	family string
	// module returns the path-derived module identity (before Package is
	// known); nil means the file path.
	module func(path string) string
	// packageModule makes the declared package the module identity
	// (Java, Kotlin, C#, PHP).
	packageModule bool
	// handlers process the outer captures other than calls.
	handlers map[string]func(x *extractor, outer *sitter.Node, caps []capNode)
	// chain describes qualifier expressions for the generic walker.
	chain chainSpec
	// chainHook, when set, analyses qualifier nodes the tables cannot
	// describe (grammars without field names); ok false falls back to the
	// tables.
	chainHook func(x *extractor, n *sitter.Node, depth int) (chain, bool)
	// recvHook, when set, may resolve a call's receiver before the generic
	// rules (Rust module paths); it returns true when it did.
	recvHook func(x *extractor, c *Call, ch chain) bool
	// types describes type expressions for rawTypeOf.
	types typeSpec
	// finish runs after all matches (tests, default exports …).
	finish func(x *extractor)
	// access says how the member access n (an @access match that is no
	// call or reference) uses the member: read, write (x.p = v), both
	// (x.p += v) or neither (del x.p).
	access func(x *extractor, n *sitter.Node) (read, write bool)
	// implicitThis reports languages where a bare call inside a class may
	// call a method of that class (Java, C#, Kotlin, C++, Ruby).
	implicitThis bool
	// hoisted reports languages whose local bindings are visible in the
	// whole function (Python, and JS function declarations).
	hoisted bool
	// builtins lists names whose bare calls are never recorded (len,
	// print …): they are not workspace definitions and would only bloat
	// the reverse index.
	builtins map[string]bool
	// builtinsAlways applies builtins to qualified calls too (Ruby, where
	// x.puts and Foo.new are never workspace definitions by those names).
	builtinsAlways bool
	// prelude lists the node types of the top-level declarations at the
	// start of a file that the rest of it is resolved with (Go's package
	// clause and imports). A language with a prelude has the graph of a
	// spliced file version (symbols.Splice) extracted from the prelude and
	// the splice only (ExtractSpliced): the declarations its symbols
	// language lets be spliced must depend on nothing else.
	prelude map[string]bool
	// rules are the language's rules of resolution (rules.go).
	rules langRules

	// queries holds the query compiled for each grammar the spec serves:
	// TypeScript's serves typescript and tsx, whose node ids differ.
	mu      sync.Mutex
	queries map[*sitter.Language]*specQuery
}

// specQuery is a spec's query compiled for one grammar.
type specQuery struct {
	q       *sitter.Query
	capName []string
	err     error
}

// chainSpec tells the qualifier walker how member accesses, calls and
// constructors look in a grammar.
type chainSpec struct {
	// member maps a member-access node type to its object and property
	// field names.
	member map[string][2]string
	// call maps a call node type to its function field name.
	call map[string]string
	// newExpr maps a constructor node type to the field holding the type.
	newExpr map[string]string
	// ident lists identifier node types that can be a root.
	ident map[string]bool
	// self lists node types or identifier texts meaning self/this.
	self map[string]bool
	// super lists node types or identifier texts meaning super.
	super map[string]bool
	// wrap lists node types to look through (parentheses, &x, x!, await).
	wrap map[string]bool
	// typed maps expression node types that carry a type to that field
	// (Go composite literals, type assertions, casts).
	typed map[string]string
	// index maps indexing node types to the field holding the indexed
	// expression (x[i] selects an element).
	index map[string]string
	// literal lists the node types of literal values (strings, numbers,
	// lists …): their members are the language's own, never a workspace
	// definition (", ".join(x) calls no workspace join). True: so are the
	// results of those members (a string's methods give strings; a list's
	// may give any of its elements).
	literal map[string]bool
}

// typeSpec tells rawTypeOf how type expressions look.
type typeSpec struct {
	// names lists node types that are a plain type name.
	names map[string]bool
	// qualified maps qualified type node types to (qualifier, name) fields.
	qualified map[string][2]string
	// wrap lists wrappers whose first named child is the interesting type
	// (pointers, references, generics, optionals, annotations).
	wrap map[string]bool
	// generic maps generic node types to the field holding the base type.
	generic map[string]string
	// elem maps container types to the field holding the element type
	// ([]T, map[K]T).
	elem map[string]string
}

// capNode is one capture of a match.
type capNode struct {
	name string
	node *sitter.Node
}

// compile returns s's query compiled for grammar lang, once per grammar.
func (s *langSpec) compile(lang *sitter.Language) (*specQuery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sq := s.queries[lang]; sq != nil {
		return sq, sq.err
	}
	sq := &specQuery{}
	if q, err := sitter.NewQuery([]byte(s.query), lang); err != nil {
		sq.err = fmt.Errorf("graph: compile query: %w", err)
	} else {
		sq.q = q
		sq.capName = make([]string, q.CaptureCount())
		for i := range sq.capName {
			sq.capName[i] = q.CaptureNameForId(uint32(i))
		}
	}
	if s.queries == nil {
		s.queries = map[*sitter.Language]*specQuery{}
	}
	s.queries[lang] = sq
	return sq, sq.err
}

// specs maps symbols language names to their graph spec.
var specs = map[string]*langSpec{}

func registerSpec(spec *langSpec, langs ...string) {
	for _, l := range langs {
		specs[l] = spec
	}
}

// ModuleOf returns the module identity (FileGraph.Module) of a file of
// language lang at path whose declared package is pkg.
func ModuleOf(lang, path, pkg string) string {
	spec := specs[lang]
	switch {
	case spec == nil:
		return path
	case spec.packageModule && pkg != "":
		return pkg
	case spec.module != nil:
		return spec.module(path)
	}
	return path
}

// Supported reports whether Extract finds call sites in language lang.
func Supported(lang string) bool { return specs[lang] != nil }

// rawType is a type as written in the file, before its qualifier is
// resolved against the imports.
type rawType struct {
	name string
	qual string // package alias / module prefix as written
	call bool   // result of calling name
	res  int    // which result of the call
	elem bool   // a container of name
}

func (t rawType) known() bool { return t.name != "" }

// local is a name bound inside a function: a parameter, variable or
// nested function.
type local struct {
	at         uint32 // offset where the binding takes effect
	scopeStart uint32
	scopeEnd   uint32
	typ        rawType
	hoisted    bool // visible in its whole scope
	def        bool // a nested named definition (a symbol), not a value
	// via, when set, is the expression the name stands for (x := d.opts,
	// for _, x := range d.items): calls on x are resolved through it, as
	// seen from viaAt.
	via   *chain
	viaAt uint32
	// ret is the result type of calling the name (a local closure).
	ret rawType
}

// rootKind is what a qualifier chain starts with.
type rootKind uint8

const (
	rootNone rootKind = iota
	rootIdent
	rootSelf
	rootSuper
	rootType
	rootUnknown
	rootLiteral // a literal value (chainSpec.literal)
)

// chain is a qualifier expression: a root and the fields selected after it.
type chain struct {
	root   rootKind
	ident  string  // rootIdent
	typ    rawType // rootType
	fields []string
	// closed: a literal whose members' results are the language's own
	// values too (rootLiteral).
	closed bool
}

// chainType is the type of value v when the chain read reads from it is
// rooted at a type (a constructor call: Foo(), Foo.new, new Foo), else
// none.
func chainType(x *extractor, v *sitter.Node, read func(*extractor, *sitter.Node, int) (chain, bool)) rawType {
	if v == nil {
		return rawType{}
	}
	if c, ok := read(x, v, 0); ok && c.root == rootType {
		return c.typ
	}
	return rawType{}
}

type pendingCall struct {
	name     string
	site     symbols.Span
	ch       chain
	text     string
	new, ref bool
	// access is the member access node of a member read or assignment
	// (spec.access tells which, once its receiver is known); nil for
	// calls and references.
	access *sitter.Node
}

type pendingField struct {
	owner, name string
	typ         rawType
	embedded    bool
}

type pendingType struct {
	name, container string
	bases           []rawType
	iface, alias    bool
	calls           []string
}

type pendingRef struct {
	at   uint32
	name string
	qual string
}

// extractor is the state of one Extract call.
type extractor struct {
	spec   *langSpec
	query  *specQuery // spec's query for the file's grammar
	lang   string
	path   string
	src    []byte
	tree   *sitter.Tree
	syms   []symbols.Symbol
	g      *FileGraph
	locals map[string][]local
	calls  []pendingCall
	fields []pendingField
	types  []pendingType
	refs   []pendingRef
	// names maps a locally bound import name to its import and name.
	aliases map[string]importBinding
	// truncated is set when MaxCallsPerFile cut the call list.
	truncated bool
	// accesses are the @access matches, recorded once the calls are
	// known (addAccesses).
	accesses []access
	// linePos and lineNo cache lineOf's last answer.
	linePos, lineNo int
}

// importBinding is what an imported name refers to.
type importBinding struct {
	module string
	name   string // original name for a from-import, "" for a module
	def    bool   // JS default import
}

// Extract builds the graph of a parsed file. path is the slash-separated
// path relative to the workspace root; it decides module identity and test
// conventions. Languages without graph support, and files whose tree is
// gone, yield a graph with only the file identity.
func Extract(f *symbols.File, path string) *FileGraph {
	var m *TreeMatches
	if f != nil && f.Tree != nil {
		m = MatchTree(f.Lang, f.Tree)
	}
	return ExtractMatched(f, path, m)
}

// TreeMatches are the graph query's matches in one syntax tree, in the order
// the query found them: the part of extraction that needs the tree alone,
// not the file's definitions. A caller holding the tree before the
// definitions are known (an editor buffer being re-indexed) runs MatchTree on
// a copy of the tree beside the extraction of the definitions, then
// ExtractMatched. The captured nodes belong to the tree MatchTree ran on,
// which must stay open until ExtractMatched returns.
type TreeMatches struct {
	spec  *langSpec
	query *specQuery
	caps  []capNode // every match's captures, one match after the other
	ends  []int     // the end of each match in caps
	outer []int     // each match's outer capture, an index in caps
	calls int       // matches of calls, constructors and references
}

// MatchTree runs the graph query of lang on tree. It returns nil when lang has
// no graph support. The tree is not safe for concurrent use: give MatchTree a
// copy (Tree.Copy) when another goroutine uses the tree meanwhile.
func MatchTree(lang *symbols.Language, tree *sitter.Tree) *TreeMatches {
	if lang == nil || tree == nil || !lang.HasGrammar() {
		return nil
	}
	spec := specs[lang.Name]
	if spec == nil {
		return nil
	}
	sq, err := spec.compile(lang.Grammar())
	if err != nil {
		return nil
	}
	m := &TreeMatches{spec: spec, query: sq}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	m.add(qc, tree)
	return m
}

// add appends the matches qc finds in tree (in the range set on qc, if
// any).
func (m *TreeMatches) add(qc *sitter.QueryCursor, tree *sitter.Tree) {
	qc.Exec(m.query.q, tree.RootNode())
	for {
		qm, ok := qc.NextMatch()
		if !ok {
			break
		}
		if len(qm.Captures) == 0 {
			continue
		}
		begin := len(m.caps)
		outer := -1
		for _, c := range qm.Captures {
			name := m.query.capName[c.Index]
			if outer < 0 && !strings.Contains(name, ".") && name != "name" && name != "qual" {
				outer = len(m.caps)
			}
			m.caps = append(m.caps, capNode{name, c.Node})
		}
		if outer < 0 {
			outer = begin
		}
		switch m.caps[outer].name {
		case "call", "new", "ref":
			m.calls++
		}
		m.ends = append(m.ends, len(m.caps))
		m.outer = append(m.outer, outer)
	}
}

// ExtractMatched is Extract of f whose graph query matches are m (MatchTree of
// f.Tree or of a copy of it; nil when the language has no graph support).
func ExtractMatched(f *symbols.File, path string, m *TreeMatches) *FileGraph {
	x := newExtractor(f, path)
	if x == nil || m == nil || m.spec != x.spec || m.query != x.query {
		g := &FileGraph{Path: path}
		if f != nil && f.Lang != nil {
			g.Lang = f.Lang.Name
			g.Module = ModuleOf(g.Lang, path, "")
		}
		return g
	}
	x.run(m)
	return x.g
}

// newExtractor prepares the extraction of a parsed file; nil when the
// language has no graph support or the tree is gone.
func newExtractor(f *symbols.File, path string) *extractor {
	if f == nil || f.Lang == nil {
		return nil
	}
	spec := specs[f.Lang.Name]
	if spec == nil || f.Tree == nil || !f.Lang.HasGrammar() {
		return nil
	}
	sq, err := spec.compile(f.Lang.Grammar())
	if err != nil {
		return nil
	}
	g := &FileGraph{Path: path, Lang: f.Lang.Name, Module: ModuleOf(f.Lang.Name, path, "")}
	return &extractor{
		spec: spec, query: sq, lang: g.Lang, path: path, src: f.Source, tree: f.Tree, syms: f.Symbols, g: g,
		locals: map[string][]local{}, aliases: map[string]importBinding{},
	}
}

// run handles the query's matches in order, then resolves what they
// recorded.
func (x *extractor) run(m *TreeMatches) {
	x.calls = make([]pendingCall, 0, min(m.calls, MaxCallsPerFile))
	begin := 0
	for i, end := range m.ends {
		caps := m.caps[begin:end:end]
		begin = end
		outer := m.caps[m.outer[i]]
		switch outer.name {
		case "call", "new", "ref":
			x.addCall(outer, caps)
		case "access":
			if name := capture(caps, "name"); name != nil && x.spec.access != nil {
				x.accesses = append(x.accesses, access{outer.node, name, capture(caps, "qual")})
			}
		case "param":
			x.addParam(outer.node, caps)
		default:
			if h := x.spec.handlers[outer.name]; h != nil {
				if outer.name == "field" || outer.name == "type" {
					x.g.memberAt = append(x.g.memberAt, int(outer.node.StartByte()))
				}
				h(x, outer.node, caps)
			}
		}
	}
	x.g.Module = ModuleOf(x.lang, x.path, x.g.Package)
	x.buildAliases()
	if x.spec.finish != nil {
		x.spec.finish(x)
	}
	x.addAccesses()
	x.resolveCalls()
	x.resolveMembers()
}

// capture returns the first capture called name, or nil.
func capture(caps []capNode, name string) *sitter.Node {
	for _, c := range caps {
		if c.name == name {
			return c.node
		}
	}
	return nil
}

// text returns the source text of n, valid UTF-8.
func (x *extractor) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return x.textIn(int(n.StartByte()), int(n.EndByte()))
}

// textIn returns the source text of the byte range [s, e), valid UTF-8.
func (x *extractor) textIn(s, e int) string {
	if s < 0 || e > len(x.src) || s > e {
		return ""
	}
	return clean(string(x.src[s:e]))
}

// clean makes s valid UTF-8.
func clean(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// cut shortens s to at most n bytes on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func spanOf(n *sitter.Node) symbols.Span {
	return symbols.Span{
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte()),
		Start: symbols.Point{Line: int(n.StartPoint().Row), Column: int(n.StartPoint().Column)},
		End:   symbols.Point{Line: int(n.EndPoint().Row), Column: int(n.EndPoint().Column)},
	}
}

// addCall records a call site from a @call/@new/@ref match; false when
// it records none.
func (x *extractor) addCall(outer capNode, caps []capNode) bool {
	nameNode := capture(caps, "name")
	if nameNode == nil {
		return false
	}
	if len(x.calls) >= MaxCallsPerFile {
		x.truncated = true
		return false
	}
	site := spanOf(nameNode)
	name := x.textIn(site.StartByte, site.EndByte)
	name = strings.TrimPrefix(name, "$") // PHP function names never carry $
	if name == "" || strings.ContainsAny(name, "\x00\n") {
		return false
	}
	pc := pendingCall{name: name, site: site, new: outer.name == "new", ref: outer.name == "ref"}
	if m := capture(caps, "method"); m != nil && x.text(m) != "new" {
		return false // Ruby: only Foo.new is a constructor call
	}
	q := capture(caps, "qual")
	if (q == nil || x.spec.builtinsAlways) && x.spec.builtins[name] {
		return false
	}
	if q != nil {
		pc.text = cut(strings.Join(strings.Fields(x.text(q)), ""), maxTextBytes)
		pc.ch = x.chainOf(q, 0)
		if pc.ch.root == rootNone {
			pc.ch.root = rootUnknown
		}
	}
	x.calls = append(x.calls, pc)
	return true
}

// access is an @access match: the member access node, the member's name
// and the object.
type access struct {
	node, name, qual *sitter.Node
}

// addAccesses records the member accesses that are no call or reference
// (the member of x.m() and of f(x.m) is matched as both): calls of the
// member's getter or setter when it is an accessor (resolveCalls keeps
// those whose receiver may have one). A member of an object of unknown
// type calls nothing the graph can name: it is left out.
func (x *extractor) addAccesses() {
	if len(x.accesses) == 0 {
		return
	}
	called := make(map[int]bool, len(x.calls))
	for i := range x.calls {
		called[x.calls[i].site.StartByte] = true
	}
	for _, a := range x.accesses {
		if called[int(a.name.StartByte())] || a.qual == nil {
			continue
		}
		if !x.addCall(capNode{name: "access"}, []capNode{{"name", a.name}, {"qual", a.qual}}) {
			continue
		}
		if pc := &x.calls[len(x.calls)-1]; pc.ch.root == rootUnknown {
			x.calls = x.calls[:len(x.calls)-1]
		} else {
			pc.access = a.node
		}
	}
	// In source order, as the calls are.
	sort.SliceStable(x.calls, func(i, j int) bool { return x.calls[i].site.StartByte < x.calls[j].site.StartByte })
}

// addParam binds a parameter captured as @name (with an optional @type)
// inside the function-like node captured as @param.
func (x *extractor) addParam(fn *sitter.Node, caps []capNode) {
	name := capture(caps, "name")
	if name == nil {
		return
	}
	var rt rawType
	if t := capture(caps, "type"); t != nil {
		rt = x.rawTypeOf(t)
		if x.spec == goSpec {
			rt = x.goConstraint(fn, rt)
		}
	} else if t := capture(caps, "type.variadic"); t != nil {
		// xs ...T: a slice of T.
		if rt = x.rawTypeOf(t); rt.elem {
			rt = rawType{}
		}
		rt.elem = rt.known()
	}
	x.bind(x.text(name), fn.StartByte(), fn.StartByte(), fn.EndByte(), rt)
}

// chainOf analyses a qualifier expression into a root and a field path.
func (x *extractor) chainOf(n *sitter.Node, depth int) chain {
	cs := &x.spec.chain
	if n == nil || depth > 12 {
		return chain{root: rootUnknown}
	}
	if x.spec.chainHook != nil {
		if c, ok := x.spec.chainHook(x, n, depth); ok {
			return c
		}
	}
	t := n.Type()
	switch {
	case cs.self[t]:
		return chain{root: rootSelf}
	case cs.super[t]:
		return chain{root: rootSuper}
	case cs.ident[t]:
		s := x.text(n)
		switch {
		case cs.self[s]:
			return chain{root: rootSelf}
		case cs.super[s]:
			return chain{root: rootSuper}
		}
		return chain{root: rootIdent, ident: s}
	case cs.wrap[t]:
		if c := firstNamedChild(n); c != nil {
			return x.chainOf(c, depth+1)
		}
	}
	if closed, ok := cs.literal[t]; ok {
		return chain{root: rootLiteral, closed: closed}
	}
	if f, ok := cs.member[t]; ok {
		obj := n.ChildByFieldName(f[0])
		prop := n.ChildByFieldName(f[1])
		if obj == nil || prop == nil {
			return chain{root: rootUnknown}
		}
		c := x.chainOf(obj, depth+1)
		if c.root == rootUnknown || c.root == rootLiteral {
			return ofLiteral(c)
		}
		if len(c.fields) >= maxFields {
			return chain{root: rootUnknown}
		}
		c.fields = append(c.fields, x.text(prop))
		return c
	}
	if f, ok := cs.index[t]; ok {
		c := x.chainOf(n.ChildByFieldName(f), depth+1)
		if c.root == rootUnknown || c.root == rootLiteral || len(c.fields) >= maxFields {
			return chain{root: rootUnknown}
		}
		c.fields = append(c.fields, ElemStep)
		return c
	}
	if f, ok := cs.newExpr[t]; ok {
		if tn := n.ChildByFieldName(f); tn != nil {
			if rt := x.rawTypeOf(tn); rt.known() {
				return chain{root: rootType, typ: rt}
			}
		}
		return chain{root: rootUnknown}
	}
	if f, ok := cs.typed[t]; ok {
		if tn := n.ChildByFieldName(f); tn != nil {
			if rt := x.rawTypeOf(tn); rt.known() {
				return chain{root: rootType, typ: rt}
			}
		}
		return chain{root: rootUnknown}
	}
	if f, ok := cs.call[t]; ok {
		fn := n.ChildByFieldName(f)
		if fn == nil {
			return chain{root: rootUnknown}
		}
		if cs.super[x.text(fn)] {
			return chain{root: rootSuper} // Python super().m()
		}
		if g, ok := x.spec.types.generic[fn.Type()]; ok {
			if b := fn.ChildByFieldName(g); b != nil {
				fn = b // F[T](), pkg.F[T]()
			}
		}
		if g, ok := cs.index[fn.Type()]; ok {
			if b := fn.ChildByFieldName(g); b != nil {
				fn = b
			}
		}
		if m, ok := cs.member[fn.Type()]; ok {
			// obj.m(): the result of obj's method m (or of function m of
			// module obj).
			return x.callChain(fn.ChildByFieldName(m[0]), fn.ChildByFieldName(m[1]), depth)
		}
		if cs.ident[fn.Type()] {
			if l, ok := x.lookup(x.text(fn), fn.StartByte()); ok && !l.def && l.typ.known() && !l.typ.elem && !l.ret.known() {
				// f() of a local f of a named function type: its result.
				return chain{root: rootIdent, ident: x.text(fn), fields: []string{CallStep("", 0)}}
			}
		}
		if rt := x.callResult(fn); rt.known() {
			return chain{root: rootType, typ: rt}
		}
	}
	return chain{root: rootUnknown}
}

// callChain is the chain of calling member prop of obj.
func (x *extractor) callChain(obj, prop *sitter.Node, depth int) chain {
	if obj == nil || prop == nil {
		return chain{root: rootUnknown}
	}
	c := x.chainOf(obj, depth+1)
	if c.root == rootLiteral {
		return ofLiteral(c)
	}
	if c.root == rootUnknown || len(c.fields) >= maxFields {
		return chain{root: rootUnknown}
	}
	c.fields = append(c.fields, CallStep(x.text(prop), 0))
	return c
}

// ofLiteral is the chain of a member of c, or of its result when called:
// the language's own value when c is a closed literal, else unknown.
func ofLiteral(c chain) chain {
	if c.root == rootLiteral && c.closed {
		return c
	}
	return chain{root: rootUnknown}
}

// withResult makes a call chain take the k-th result of its last call
// (a, b := x.m()); ok is false when the chain does not end in a call.
func withResult(c chain, k int) (chain, bool) {
	if k == 0 {
		return c, true
	}
	if n := len(c.fields); n > 0 {
		if m, _, ok := ParseCallStep(c.fields[n-1]); ok {
			c.fields = append(append([]string(nil), c.fields[:n-1]...), CallStep(m, k))
			return c, true
		}
		return c, false
	}
	if c.root == rootType && c.typ.call {
		c.typ.res = k
		return c, true
	}
	return c, false
}

// callResult returns the type of calling fn when fn is a plain or
// module-qualified function name (New(), pkg.New(), mod.make()).
func (x *extractor) callResult(fn *sitter.Node) rawType {
	cs := &x.spec.chain
	t := fn.Type()
	if cs.ident[t] || x.spec.types.names[t] {
		return rawType{name: x.text(fn), call: true}
	}
	if f, ok := cs.member[t]; ok {
		obj := fn.ChildByFieldName(f[0])
		prop := fn.ChildByFieldName(f[1])
		if obj != nil && prop != nil && cs.ident[obj.Type()] {
			return rawType{name: x.text(prop), qual: x.text(obj), call: true}
		}
	}
	if f, ok := x.spec.types.generic[t]; ok {
		if b := fn.ChildByFieldName(f); b != nil {
			return x.callResult(b)
		}
	}
	return rawType{}
}

// rawTypeOf reads a type expression: the base name and its qualifier.
func (x *extractor) rawTypeOf(n *sitter.Node) rawType {
	ts := &x.spec.types
	for i := 0; n != nil && i < 8; i++ {
		t := n.Type()
		switch {
		case ts.names[t]:
			return rawType{name: x.text(n)}
		case ts.wrap[t]:
			n = firstNamedChild(n)
			continue
		}
		if f, ok := ts.qualified[t]; ok {
			q, nm := n.ChildByFieldName(f[0]), n.ChildByFieldName(f[1])
			if nm == nil {
				return rawType{}
			}
			rt := x.rawTypeOf(nm)
			if q != nil {
				rt.qual = x.text(q)
			}
			return rt
		}
		if f, ok := ts.generic[t]; ok {
			n = n.ChildByFieldName(f)
			continue
		}
		if f, ok := ts.elem[t]; ok {
			rt := x.rawTypeOf(n.ChildByFieldName(f))
			if !rt.known() || rt.elem {
				return rawType{} // nested containers are not tracked
			}
			rt.elem = true
			return rt
		}
		return rawType{}
	}
	return rawType{}
}

func firstNamedChild(n *sitter.Node) *sitter.Node {
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		if c.Type() != "comment" {
			return c
		}
	}
	return nil
}

// NamedChildren returns n's named children that are not comments.
func NamedChildren(n *sitter.Node) []*sitter.Node {
	if n == nil {
		return nil
	}
	count := int(n.NamedChildCount())
	out := make([]*sitter.Node, 0, count)
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		if c.Type() != "comment" {
			out = append(out, c)
		}
	}
	return out
}

// bind records a local binding of name visible from at within [scopeStart,
// scopeEnd).
func (x *extractor) bind(name string, at, scopeStart, scopeEnd uint32, typ rawType) {
	x.noteType(typ, at)
	x.bindLocal(name, local{at: at, scopeStart: scopeStart, scopeEnd: scopeEnd, typ: typ})
}

// bindLocal records binding l of name (hoisted as the language does).
func (x *extractor) bindLocal(name string, l local) {
	if name == "" || name == "_" {
		return
	}
	l.hoisted = x.spec.hoisted
	x.locals[name] = append(x.locals[name], l)
}

// bindDef binds the name of a definition nested in a function for the
// rest of that function: it shadows imports and outer names.
func (x *extractor) bindDef(name string, at uint32) {
	s, e := x.functionScope(int(at))
	if s == 0 && e == len(x.src) {
		return // top level: resolved as a definition of the file
	}
	x.bindLocal(name, local{at: at, scopeStart: uint32(s), scopeEnd: uint32(e), def: true})
}

// bindVia binds name to the expression v (a field chain, an index, or
// with elem an element of it) for the rest of [scopeStart, scopeEnd).
func (x *extractor) bindVia(name string, at, scopeStart, scopeEnd uint32, v *sitter.Node, elem bool) bool {
	if name == "" || name == "_" || v == nil {
		return false
	}
	ch := x.chainOf(v, 0)
	if ch.root == rootUnknown || ch.root == rootNone || (ch.root == rootIdent && ch.ident == name && len(ch.fields) == 0) {
		return false // unknown, or the name itself (x = x)
	}
	if elem {
		ch.fields = append(ch.fields, ElemStep)
	}
	x.bindChain(name, at, scopeStart, scopeEnd, ch, v.StartByte())
	return true
}

// bindChain binds name to the expression chain ch, read as seen from
// offset viaAt.
func (x *extractor) bindChain(name string, at, scopeStart, scopeEnd uint32, ch chain, viaAt uint32) {
	x.bindLocal(name, local{at: at, scopeStart: scopeStart, scopeEnd: scopeEnd, via: &ch, viaAt: viaAt})
}

// bindResult binds name to the k-th result of call expression v.
func (x *extractor) bindResult(name string, at, scopeStart, scopeEnd uint32, v *sitter.Node, k int) bool {
	if name == "" || name == "_" {
		return false
	}
	ch, ok := withResult(x.chainOf(v, 0), k)
	if !ok || ch.root == rootUnknown || ch.root == rootNone {
		return false
	}
	x.bindChain(name, at, scopeStart, scopeEnd, ch, v.StartByte())
	return true
}

// bindInFunction binds name for the rest of the innermost function-like symbol
// containing off (the whole file at top level).
func (x *extractor) bindInFunction(name string, at uint32, typ rawType) {
	s, e := x.functionScope(int(at))
	x.bind(name, at, uint32(s), uint32(e), typ)
}

// functionScope returns the byte range of the innermost function-like
// symbol containing off, or of the whole file.
func (x *extractor) functionScope(off int) (int, int) {
	i := x.enclosing(off, true)
	if i < 0 || !symbols.IsFunctionKind(x.syms[i].Kind) {
		return 0, len(x.src)
	}
	return x.syms[i].Span.StartByte, x.syms[i].Span.EndByte
}

// lookup returns the innermost binding of name visible at off.
func (x *extractor) lookup(name string, off uint32) (local, bool) {
	if i := x.visible(name, off); i >= 0 {
		return x.locals[name][i], true
	}
	return local{}, false
}

// visible returns the index in x.locals[name] of the innermost binding of
// name visible at off, or -1.
func (x *extractor) visible(name string, off uint32) int {
	ls := x.locals[name]
	bi := -1
	for i, l := range ls {
		if off < l.scopeStart || off >= l.scopeEnd {
			continue
		}
		if l.at > off && !l.hoisted {
			continue
		}
		if bi < 0 {
			bi = i
			continue
		}
		best := ls[bi]
		// Prefer the innermost scope, then the latest binding before off.
		inner := l.scopeStart > best.scopeStart || (l.scopeStart == best.scopeStart && l.scopeEnd < best.scopeEnd)
		same := l.scopeStart == best.scopeStart && l.scopeEnd == best.scopeEnd
		switch {
		case inner && !same:
			bi = i
		case same:
			lBefore, bBefore := l.at <= off, best.at <= off
			if (lBefore && !bBefore) || (lBefore == bBefore && lBefore && l.at > best.at) || (!lBefore && !bBefore && l.at < best.at) {
				bi = i
			}
		}
	}
	return bi
}

// enclosing returns the index of the innermost symbol containing off;
// with funcOnly, the innermost function-like one if any (else the
// innermost of any kind); -1 if none.
func (x *extractor) enclosing(off int, funcOnly bool) int {
	syms := x.syms
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Span.StartByte > off }) - 1
	inner := -1
	for guard := 0; i >= 0 && guard < 64; guard++ {
		if syms[i].Span.Contains(off) {
			inner = i
			break
		}
		if p := syms[i].Parent; p >= 0 && p < i {
			i = p
		} else {
			i--
		}
	}
	if inner < 0 || !funcOnly {
		return inner
	}
	for j, guard := inner, 0; j >= 0 && guard < 64; guard++ {
		if symbols.IsFunctionKind(syms[j].Kind) && syms[j].Span.Contains(off) {
			return j
		}
		p := syms[j].Parent
		if p < 0 || p >= j {
			break
		}
		j = p
	}
	return inner
}

// selfType returns the type enclosing symbol i: its container's last
// component for methods, the class itself for a class.
func (x *extractor) selfType(i int) string {
	for guard := 0; i >= 0 && guard < 64; guard++ {
		s := x.syms[i]
		switch s.Kind {
		case symbols.KindClass, symbols.KindStruct, symbols.KindInterface, symbols.KindTrait, symbols.KindEnum:
			return s.Name
		case symbols.KindMethod, symbols.KindConstructor, symbols.KindField:
			if s.Container != "" {
				return LastComponent(s.Container)
			}
		}
		p := s.Parent
		if p < 0 || p >= i {
			break
		}
		i = p
	}
	return ""
}

// LastComponent is the last part of a dotted, colon- or backslash-separated
// name ("b" for "a.b").
func LastComponent(s string) string {
	if i := strings.LastIndexAny(s, ".:\\"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// buildAliases maps every name the imports bind to what it refers to.
func (x *extractor) buildAliases() {
	for _, im := range x.g.Imports {
		for _, n := range im.Names {
			if n.Name == "*" {
				continue
			}
			x.aliases[n.Local()] = importBinding{module: im.Module, name: n.Name, def: n.Name == "default"}
		}
		if len(im.Names) > 0 && im.Alias == "" {
			continue
		}
		local := im.Alias
		if local == "" {
			local = defaultBinding(x.lang, im.Path)
		}
		if local != "" && local != "_" && local != "." {
			if _, taken := x.aliases[local]; !taken {
				x.aliases[local] = importBinding{module: im.Module}
			}
		}
	}
}

// defaultBinding is the name an import without alias binds.
func defaultBinding(lang, p string) string {
	if b := rulesOf(lang).defaultBinding; b != nil {
		return b(p)
	}
	return ""
}

// resolveType turns a raw type into a TypeExpr using the file's imports.
func (x *extractor) resolveType(rt rawType) TypeExpr {
	if !rt.known() {
		return TypeExpr{}
	}
	te := TypeExpr{Name: rt.name, Call: rt.call, Elem: rt.elem, Result: rt.res}
	if rt.qual != "" {
		if b, ok := x.aliases[rt.qual]; ok && b.name == "" {
			te.Module = b.module
		} else if ok && !b.def {
			// from pkg import mod; mod.T: the name is a submodule.
			te.Module = b.module + "." + b.name
		} else if b, ok := x.aliasChain(rt.qual); ok {
			te.Module = b
		} else {
			te.Module = rt.qual
		}
		return te
	}
	if b, ok := x.aliases[rt.name]; ok && b.name != "" {
		te.Module = b.module
		if !b.def {
			te.Name = b.name
		}
	} else if ok && x.spec.rules.moduleValues {
		te.Module = b.module // const Foo = require("./foo"): the module's export
	}
	return te
}

// aliasChain resolves a dotted qualifier "a.b" whose first part is an
// imported module (Python import a.b).
func (x *extractor) aliasChain(q string) (string, bool) {
	i := strings.IndexAny(q, ".:")
	if i <= 0 {
		return "", false
	}
	b, ok := x.aliases[q[:i]]
	if !ok || b.name != "" {
		return "", false
	}
	rest := strings.TrimLeft(q[i:], ".:")
	for _, im := range x.g.Imports {
		if im.Module == b.module+"."+rest || im.Path == q {
			return im.Module, true
		}
	}
	return b.module + "." + rest, true
}

// resolveCalls turns pending calls into Calls: callers, self types,
// receivers resolved against locals and imports.
func (x *extractor) resolveCalls() {
	if len(x.calls) > 0 {
		x.g.Calls = make([]Call, 0, len(x.calls))
	}
	// Test blocks that are not definitions (JS) are the only tests a call
	// can be inside: without them, no call needs looking for one.
	blocks := false
	for _, t := range x.g.Tests {
		blocks = blocks || t.Ord < 0
	}
	for i := range x.calls {
		pc := &x.calls[i]
		off := pc.site.StartByte
		test := -1
		if blocks {
			test = x.testAt(off)
		}
		// Resolved in place (the capacity holds every call): a Call is
		// large, and one on the stack per call escaped to the heap.
		x.g.Calls = append(x.g.Calls, Call{Caller: x.enclosing(off, true), Test: test, Name: clean(pc.name), Text: pc.text, New: pc.new, Ref: pc.ref, Site: pc.site})
		c := &x.g.Calls[len(x.g.Calls)-1]
		if c.Caller >= 0 {
			c.Self = x.selfType(c.Caller)
		}
		x.resolveRecv(c, *pc)
		switch k := c.Recv.Kind; {
		case c.Ref && (k == RecvLocal || k == RecvExpr):
			x.g.Calls = x.g.Calls[:len(x.g.Calls)-1] // a local value, or a member of unknown type: noise
		case pc.access == nil:
		case k == RecvLocal || k == RecvExpr || k == RecvNone || k == RecvImport:
			x.g.Calls = x.g.Calls[:len(x.g.Calls)-1] // a member of unknown type, a module's attribute: no accessor
		default:
			if c.Read, c.Write = x.spec.access(x, pc.access); !c.Access() {
				x.g.Calls = x.g.Calls[:len(x.g.Calls)-1] // del x.p
			}
		}
	}
	x.dropDataMembers()
}

// dropDataMembers drops the reads and assignments on self of members the
// file assigns on self in the same type (self.x = v) and declares no
// accessor of there: data members, which call nothing. (An accessor a base
// type declares and a subtype assigns is lost with them: rare, and the
// price of not storing every self.x of a class.)
func (x *extractor) dropDataMembers() {
	type member struct{ typ, name string }
	assigned := map[member]bool{}
	for i := range x.g.Calls {
		if c := &x.g.Calls[i]; c.Write && c.Recv.Kind == RecvSelf && len(c.Recv.Fields) == 0 {
			assigned[member{c.Self, c.Name}] = true
		}
	}
	if len(assigned) == 0 {
		return
	}
	for _, a := range x.g.Accessors {
		delete(assigned, member{x.selfType(a.Ord), x.syms[a.Ord].Name})
	}
	keep := x.g.Calls[:0]
	for _, c := range x.g.Calls {
		if !c.Access() || c.Recv.Kind != RecvSelf || len(c.Recv.Fields) > 0 || !assigned[member{c.Self, c.Name}] {
			keep = append(keep, c)
		}
	}
	x.g.Calls = keep
}

// testAt returns the innermost JS test block containing off, or -1.
func (x *extractor) testAt(off int) int {
	best := -1
	for i, t := range x.g.Tests {
		if t.Ord >= 0 || !t.Span.Contains(off) {
			continue
		}
		if best < 0 || t.Span.StartByte >= x.g.Tests[best].Span.StartByte {
			best = i
		}
	}
	return best
}

func (x *extractor) resolveRecv(c *Call, pc pendingCall) {
	x.resolveRecvAt(c, pc, uint32(pc.site.StartByte), 0)
}

// resolveRecvAt resolves pc's qualifier as seen from offset at; depth
// bounds substitutions of locals by their bound expressions.
func (x *extractor) resolveRecvAt(c *Call, pc pendingCall, at uint32, depth int) {
	ch := pc.ch
	switch ch.root {
	case rootNone:
		if l, ok := x.lookup(pc.name, at); ok {
			if !l.def {
				c.Recv.Kind = RecvLocal
			}
			return // a nested definition shadows imports: resolved by scope
		}
		if b, ok := x.aliases[pc.name]; ok {
			c.Recv.Module = b.module
			switch {
			case b.def:
				c.DefaultImport = true
			case b.name != "":
				c.Name = b.name
			default:
				// Calling a module itself (Python import of a callable
				// module is rare; JS const x = require(..); x()).
				c.DefaultImport = x.spec.rules.moduleValues
			}
		}
		c.Recv.Kind = RecvNone
		return
	case rootSelf:
		c.Recv = Recv{Kind: RecvSelf, Type: TypeExpr{Name: c.Self}, Fields: ch.fields}
		return
	case rootSuper:
		c.Recv = Recv{Kind: RecvSuper, Type: TypeExpr{Name: c.Self}, Fields: ch.fields}
		return
	case rootType:
		c.Recv = Recv{Kind: RecvVar, Type: x.resolveType(ch.typ), Fields: ch.fields}
		return
	case rootUnknown:
		c.Recv.Kind = RecvExpr
		return
	case rootLiteral:
		c.Recv.Kind = RecvLocal // a member of a literal value: the language's own
		if len(ch.fields) > 0 && !ch.closed {
			c.Recv.Kind = RecvExpr // xs = [a, b]; xs[0].m(): an element
		}
		return
	}
	// rootIdent
	if x.spec.recvHook != nil && x.spec.recvHook(x, c, ch) {
		return
	}
	if l, ok := x.lookup(ch.ident, at); ok && !l.def {
		if l.via != nil && depth < 4 {
			// x := d.opts; x.f() is d.opts.f(): resolve the expression where
			// x was bound.
			sub := *l.via
			sub.fields = append(append([]string(nil), sub.fields...), ch.fields...)
			if len(sub.fields) <= maxFields+1 {
				x.resolveRecvAt(c, pendingCall{name: pc.name, site: pc.site, ch: sub}, l.viaAt, depth+1)
				return
			}
		}
		if l.typ.known() {
			c.Recv = Recv{Kind: RecvVar, Type: x.resolveType(l.typ), Fields: ch.fields}
		} else {
			c.Recv.Kind = RecvExpr
		}
		return
	}
	if b, ok := x.aliases[ch.ident]; ok {
		if b.name != "" {
			// An imported class or object: Foo.bar() after from m import Foo.
			c.Recv = Recv{Kind: RecvVar, Type: TypeExpr{Name: b.name, Module: b.module}, Fields: ch.fields}
			if b.def {
				c.Recv.Type.Name = ch.ident
			}
			return
		}
		mod := b.module
		fields := ch.fields
		// import a.b; a.b.c() → module a.b, function c.
		for len(fields) > 0 {
			next := mod + "." + fields[0]
			if !x.hasImportModule(next) {
				break
			}
			mod, fields = next, fields[1:]
		}
		if len(fields) == 0 {
			c.Recv = Recv{Kind: RecvImport, Module: mod}
			return
		}
		if fn, k, ok := ParseCallStep(fields[0]); ok {
			// pkg.New().Do(): the result of function New of pkg.
			c.Recv = Recv{Kind: RecvVar, Type: TypeExpr{Name: fn, Module: mod, Call: true, Result: k}, Fields: fields[1:]}
			return
		}
		if fn, a, k, ok := ParseParamStep(fields[0]); ok && fn != "" {
			// pkg.define((c) => …): an argument of function define of pkg.
			c.Recv = Recv{Kind: RecvFree, Module: mod, Root: fn, Fields: append([]string{ArgStep("", a, k)}, fields[1:]...)}
			return
		}
		// pkg.Var.Method(): a package-level variable of another package.
		c.Recv = Recv{Kind: RecvFree, Module: mod, Root: fields[0], Fields: fields[1:]}
		return
	}
	c.Recv = Recv{Kind: RecvFree, Root: ch.ident, Fields: ch.fields}
}

func (x *extractor) hasImportModule(m string) bool {
	for _, im := range x.g.Imports {
		if im.Module == m {
			return true
		}
	}
	return false
}

// resolveMembers resolves field and base types and type references.
func (x *extractor) resolveMembers() {
	for _, f := range x.fields {
		x.g.Fields = append(x.g.Fields, Field{Owner: clean(f.owner), Name: clean(f.name), Type: x.resolveType(f.typ), Embedded: f.embedded})
	}
	for _, t := range x.types {
		td := TypeDecl{Name: clean(t.name), Container: clean(t.container), Interface: t.iface, Alias: t.alias, Calls: t.calls}
		for _, b := range t.bases {
			if te := x.resolveType(b); te.Known() {
				td.Bases = append(td.Bases, te)
			}
		}
		x.g.Types = append(x.g.Types, td)
	}
	type refKey struct {
		caller int
		name   string // qualifier.name
	}
	seen := map[refKey]bool{}
	for _, r := range x.refs {
		caller := x.enclosing(int(r.at), true)
		key := refKey{caller, r.qual + "." + r.name}
		if seen[key] {
			continue
		}
		seen[key] = true
		te := x.resolveType(rawType{name: r.name, qual: r.qual})
		x.g.TypeRefs = append(x.g.TypeRefs, TypeRef{Caller: caller, Name: te.Name, Module: te.Module, Line: x.lineOf(int(r.at))})
	}
}

// noteType records a declared type (of a parameter, variable or member)
// as a type reference of the enclosing definition. Only types the
// extractor reads anyway are recorded: that keeps them cheap.
func (x *extractor) noteType(rt rawType, at uint32) {
	if !rt.known() || rt.call || len(x.refs) >= MaxCallsPerFile || (rt.qual == "" && x.spec.builtins[rt.name]) || (x.spec.rules.anonStructs && isAnonStruct(rt.name)) {
		return
	}
	x.refs = append(x.refs, pendingRef{at: at, name: rt.name, qual: rt.qual})
}

// lineOf returns the 0-based line of byte offset off, counting newlines
// from the last known position (offsets arrive mostly in order).
func (x *extractor) lineOf(off int) int {
	if off > len(x.src) {
		off = len(x.src)
	}
	if off < x.linePos {
		x.linePos, x.lineNo = 0, 0
	}
	x.lineNo += bytes.Count(x.src[x.linePos:off], []byte{'\n'})
	x.linePos = off
	return x.lineNo
}

// ownerAt returns the name of the type symbol enclosing off ("" if none).
func (x *extractor) ownerAt(off int) string {
	i := x.enclosing(off, false)
	if i < 0 {
		return ""
	}
	return x.selfType(i)
}

// addTest records symbol i as a test.
func (x *extractor) addTest(i int, kind TestKind) {
	s := x.syms[i]
	name := s.Name
	if s.Container != "" {
		name = s.Container + "." + s.Name
	}
	x.g.Tests = append(x.g.Tests, Test{Ord: i, Name: name, Kind: kind, Span: s.Span})
}

// SetOf makes a set of the space-separated words of s.
func SetOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
