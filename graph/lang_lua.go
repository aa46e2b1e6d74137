package graph

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// Lua. The grammar (tjdevries') is flat: a.b.c:m() is one function_call
// whose "prefix" children are a, ".", b, ".", c, then ":" and m; and the
// white space before a statement belongs to its first token. The hooks
// below read those runs of children themselves, and trim every span.
//
// What the file tells: require("a.b") is an import of module a/b (bound to
// the local it is assigned to); a call is bare (f()), on a table path
// (M.f(), a.b:m()), on self, on a local (through what it was assigned:
// local x = Foo.new() makes x:m() a call on an instance of Foo), or on an
// expression. Busted blocks (describe/it/test …) in test files are tests.
// Resolution (matchLua) follows Lua's scoping: file-level locals are seen
// by their file only, a required module's functions through the table it
// returns (FileGraph.DefaultExport), globals everywhere.

var luaSpec = &langSpec{
	query: `
(function_call) @lua.call
(variable_declaration) @lua.decl
(function_statement) @lua.func
(function) @lua.func
(for_generic) @lua.for
(for_numeric) @lua.for
(module_return_statement) @lua.return
`,
	family: "lua",
	module: luaModule,
	builtins: setOf("require print pairs ipairs next type tostring tonumber error assert pcall xpcall select " +
		"setmetatable getmetatable rawget rawset rawequal rawlen unpack load loadstring loadfile dofile collectgarbage " +
		"describe context it test spec insulate expose pending before_each after_each setup teardown lazy_setup " +
		"lazy_teardown strict_setup strict_teardown finally"),
	handlers: map[string]func(*extractor, *sitter.Node, []capNode){
		"lua.call":   luaCall,
		"lua.decl":   luaDecl,
		"lua.func":   luaParams,
		"lua.for":    luaLoop,
		"lua.return": luaReturn,
	},
	finish: luaFinish,
}

func init() {
	luaSpec.rules = langRules{
		match: (*Resolver).matchLua,
		// require("a.b") finds a/b.lua or a/b/init.lua on the package
		// path, which may start anywhere (lua/ on Neovim's runtime path).
		matchModule: func(_ *Resolver, ref, _, module, _ string) bool { return strings.HasSuffix(module, "/"+ref) },
		testFiles:   luaTestFiles,
	}
	registerSpec(luaSpec, "lua")
}

// luaTestFiles: x_spec.lua or x_test.lua beside it, or under spec/,
// test/ or tests/ at the root or beside lua/, mirroring the module path
// (lua/a/b.lua ↔ spec/a/b_spec.lua); a/b/init.lua is module a/b.
func luaTestFiles(dir, name, ext string) []string {
	if ext != ".lua" || strings.HasSuffix(name, "_spec") || strings.HasSuffix(name, "_test") {
		return nil
	}
	if name == "init" {
		dir, name = path.Dir(dir), path.Base(dir)
	}
	out := []string{joinPath(dir, name+"_spec.lua"), joinPath(dir, name+"_test.lua")}
	base, mod := "", dir
	segs := strings.Split(dir, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i] == "lua" {
			base, mod = strings.Join(segs[:i], "/"), strings.Join(segs[i+1:], "/")
			break
		}
	}
	for _, td := range []string{"spec", "test", "tests"} {
		out = append(out, joinPath(base, td, mod, name+"_spec.lua"), joinPath(base, td, name+"_spec.lua"))
	}
	return dedupe(out)
}

// luaStdlib lists the standard library tables: calls on them (string.format,
// table.insert) never reach a workspace definition and are not recorded.
var luaStdlib = setOf("string table math io os coroutine debug utf8 package bit bit32 jit ffi assert")

// luaModule is the module a Lua file is required as: its path without
// ".lua", and a directory's init.lua is the directory ("a/b/init.lua" is
// module a/b). require("a.b") names it as "a/b", found at any depth
// (lua/a/b.lua on Neovim's runtime path).
func luaModule(p string) string {
	m := strings.TrimSuffix(p, path.Ext(p))
	if m == "init" {
		return "."
	}
	return strings.TrimSuffix(m, "/init")
}

// luaTestFile reports busted's and Neovim plugins' test file conventions:
// *_spec.lua, *_test.lua, test_*.lua, or a file under spec/, test/ or tests/.
func luaTestFile(p string) bool {
	base := path.Base(p)
	if strings.HasSuffix(base, "_spec.lua") || strings.HasSuffix(base, "_test.lua") || strings.HasPrefix(base, "test_") {
		return true
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "spec" || seg == "test" || seg == "tests" {
			return true
		}
	}
	return false
}

// luaRequireKey prefixes the module name of a require call used as a
// value (require("a.b").f(), local x; x = require("a.b")): the chain root
// is that key, bound to the import by luaFinish. It cannot clash with an
// identifier.
const luaRequireKey = "require:"

// luaFinish names nested busted blocks and binds every required module
// to its luaRequireKey.
func luaFinish(x *extractor) {
	jsFinish(x)
	for _, im := range x.g.Imports {
		x.aliases[luaRequireKey+im.Path] = importBinding{module: im.Module}
	}
}

// luaTestFns open busted blocks (describe, it and their aliases).
var luaTestFns = setOf("describe context it test spec insulate expose")

// trimmed is the span of n without the white space the grammar folds into
// its start.
func (x *extractor) trimmed(n *sitter.Node) symbols.Span { return symbols.SkipSpace(x.src, spanOf(n)) }

// luaText is the text of n without folded white space.
func (x *extractor) luaText(n *sitter.Node) string {
	return strings.TrimLeft(x.text(n), " \t\r\n\f\v")
}

// luaString returns the value of a string literal node (its content
// field), and false for anything else.
func (x *extractor) luaString(n *sitter.Node) (string, bool) {
	if n == nil || (n.Type() != "string" && n.Type() != "string_argument") {
		return "", false
	}
	if c := n.ChildByFieldName("content"); c != nil {
		return x.text(c), true
	}
	return "", true // ""
}

// luaCallee splits a function_call into the nodes of its qualifier (the
// flat prefix run before the callee, without the final "." or ":") and the
// callee identifier; name is nil when the callee is not a name (a["k"](),
// f()()).
func luaCallee(n *sitter.Node) (qual []*sitter.Node, name *sitter.Node) {
	var pre []*sitter.Node
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		if n.FieldNameForChild(i) == "prefix" {
			pre = append(pre, c)
			continue
		}
		if c.Type() == "self_call_colon" {
			for j := i + 1; j < count; j++ {
				if m := n.Child(j); m.Type() == "identifier" {
					return pre, m
				}
			}
			return nil, nil
		}
	}
	if len(pre) == 0 || pre[len(pre)-1].Type() != "identifier" {
		return nil, nil
	}
	name = pre[len(pre)-1]
	qual = pre[:len(pre)-1]
	if k := len(qual); k > 0 && qual[k-1].Type() == "." {
		qual = qual[:k-1]
	}
	return qual, name
}

// luaArgs returns the argument nodes of a call: the expressions of its
// argument list, or its single string or table argument.
func luaArgs(n *sitter.Node) []*sitter.Node {
	a := n.ChildByFieldName("args")
	if a == nil {
		return nil
	}
	if a.Type() != "function_arguments" {
		return []*sitter.Node{a}
	}
	return namedChildren(a)
}

// luaChain reads a flat run of nodes (a, ".", b, "[", k, "]", …) as a
// qualifier chain. A leading call contributes its own chain and a call
// step; self is the enclosing table unless a local named self is in scope.
func (x *extractor) luaChain(nodes []*sitter.Node, depth int) chain {
	if len(nodes) == 0 || depth > 12 {
		return chain{root: rootUnknown}
	}
	var c chain
	first := nodes[0]
	switch first.Type() {
	case "identifier":
		id := x.luaText(first)
		if id == "" {
			return chain{root: rootUnknown}
		}
		if _, bound := x.lookup(id, first.StartByte()); id == "self" && !bound {
			c = chain{root: rootSelf}
		} else {
			c = chain{root: rootIdent, ident: id}
		}
	case "function_call":
		qual, name := luaCallee(first)
		if name == nil {
			return chain{root: rootUnknown}
		}
		if spec, ok := x.luaRequired(first); ok {
			c = chain{root: rootIdent, ident: luaRequireKey + spec} // require("a.b").f()
			break
		}
		if len(qual) == 0 {
			c = chain{root: rootType, typ: rawType{name: x.luaText(name), call: true}}
		} else {
			c = x.luaChain(qual, depth+1)
			if c.root == rootUnknown {
				return c
			}
			c.fields = append(c.fields, CallStep(x.luaText(name), 0))
		}
	default:
		return chain{root: rootUnknown}
	}
	for i := 1; i < len(nodes); i++ {
		if len(c.fields) >= maxFields {
			return chain{root: rootUnknown}
		}
		switch nodes[i].Type() {
		case ".":
		case "identifier":
			f := x.luaText(nodes[i])
			if f == "" {
				return chain{root: rootUnknown}
			}
			c.fields = append(c.fields, f)
		case "[":
			if i+2 < len(nodes) && nodes[i+2].Type() == "]" {
				if k, ok := x.luaString(nodes[i+1]); ok && isIdentifier(k) {
					c.fields = append(c.fields, k) // t["k"] is t.k
				} else {
					c.fields = append(c.fields, ElemStep)
				}
				i += 2
				continue
			}
			return chain{root: rootUnknown}
		default:
			return chain{root: rootUnknown}
		}
	}
	return c
}

// luaCall records a call site, a require import or a busted block.
func luaCall(x *extractor, n *sitter.Node, _ []capNode) {
	qual, name := luaCallee(n)
	if name == nil {
		return
	}
	callee := x.luaText(name)
	if callee == "" {
		return // a name tree-sitter made up to recover from an error
	}
	if len(qual) == 0 {
		switch {
		case callee == "require":
			if p := n.Parent(); p == nil || p.Type() != "variable_declaration" {
				if spec, ok := x.luaRequired(n); ok {
					x.luaImport(spec, "", name) // an assigned require is luaDecl's
				}
			}
		case luaTestFns[callee] && luaTestFile(x.path):
			x.luaTestBlock(n)
		}
		if x.spec.builtins[callee] {
			return
		}
	} else if qual[0].Type() == "identifier" && luaStdlib[x.luaText(qual[0])] {
		if _, bound := x.lookup(x.luaText(qual[0]), qual[0].StartByte()); !bound {
			return
		}
	}
	if len(x.calls) >= MaxCallsPerFile {
		x.truncated = true
		return
	}
	pc := pendingCall{name: callee, site: x.trimmed(name)}
	if len(qual) > 0 {
		var b strings.Builder
		for _, q := range qual {
			b.WriteString(strings.Join(strings.Fields(x.text(q)), ""))
		}
		pc.text = cut(b.String(), maxTextBytes)
		pc.ch = x.luaChain(qual, 0)
	}
	x.calls = append(x.calls, pc)
}

// luaRequired returns the module a call of require names ("a.b" for
// require("a.b") and require "a.b"); ok is false for other calls.
func (x *extractor) luaRequired(call *sitter.Node) (string, bool) {
	if call == nil || call.Type() != "function_call" {
		return "", false
	}
	if qual, fn := luaCallee(call); len(qual) > 0 || fn == nil || x.luaText(fn) != "require" {
		return "", false
	}
	args := luaArgs(call)
	if len(args) != 1 {
		return "", false
	}
	spec, ok := x.luaString(args[0])
	return spec, ok && spec != ""
}

// luaImport records an import of module spec ("a.b", module a/b) bound to
// alias, written at node at.
func (x *extractor) luaImport(spec, alias string, at *sitter.Node) {
	x.g.Imports = append(x.g.Imports, Import{
		Path: spec, Module: strings.ReplaceAll(spec, ".", "/"), Alias: alias, Line: x.trimmed(at).Start.Line,
	})
}

// luaTestBlock records a busted block: it("does x", function() … end).
func (x *extractor) luaTestBlock(call *sitter.Node) {
	args := luaArgs(call)
	if len(args) < 2 || args[len(args)-1].Type() != "function" {
		return
	}
	name, ok := x.luaString(args[0])
	if !ok {
		return
	}
	x.g.Tests = append(x.g.Tests, Test{Ord: -1, Name: cut(name, 200), Kind: TestBusted, Span: x.trimmed(call)})
}

// luaValueRuns splits the values of a declaration at its top-level commas:
// the grammar flattens a.b.c into several "value" children.
func luaValueRuns(n *sitter.Node) [][]*sitter.Node {
	var out [][]*sitter.Node
	count := int(n.ChildCount())
	afterEq := false
	for i := 0; i < count; i++ {
		c := n.Child(i)
		switch {
		case !afterEq:
			if c.Type() == "=" {
				afterEq = true
				out = append(out, nil)
			}
		case c.Type() == ",":
			out = append(out, nil)
		case n.FieldNameForChild(i) == "value":
			out[len(out)-1] = append(out[len(out)-1], c)
		}
	}
	return out
}

// luaScope returns the block a local declared at n is visible in: the
// innermost enclosing function, loop, conditional or do block, else the
// file.
func (x *extractor) luaScope(n *sitter.Node) (uint32, uint32) {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "function_body", "function", "function_statement", "do_statement", "if_statement",
			"for_statement", "while_statement", "repeat_statement":
			return p.StartByte(), p.EndByte()
		}
	}
	return 0, uint32(len(x.src))
}

// luaDecl handles a variable_declaration: requires become imports, locals
// are bound (through what they were assigned, when that is a table path,
// a call or setmetatable(…, T)), and assigning a local declared without a
// value gives it one (local x … x = require("a.b")).
func luaDecl(x *extractor, n *sitter.Node, _ []capNode) {
	isLocal := hasChild(n, "local")
	var names []string
	for _, d := range symbols.FieldChildren(n, "name") {
		if ids := namedChildren(d); len(ids) == 1 && ids[0].Type() == "identifier" {
			names = append(names, x.luaText(ids[0]))
		} else {
			names = append(names, "") // a table member: M.x = …
		}
	}
	values := luaValueRuns(n)
	if len(names) == 2 && len(values) == 1 && len(values[0]) == 1 && values[0][0].Type() == "function_call" {
		// local ok, mod = pcall(require, "a.b")
		if qual, fn := luaCallee(values[0][0]); len(qual) == 0 && fn != nil && x.luaText(fn) == "pcall" {
			if args := luaArgs(values[0][0]); len(args) == 2 && x.luaText(args[0]) == "require" {
				if spec, ok := x.luaString(args[1]); ok && spec != "" && names[1] != "" {
					x.luaImport(spec, names[1], args[1])
					names[1] = ""
				}
			}
		}
	}
	fileLevel := n.Parent() != nil && n.Parent().Type() == "program"
	start, end := x.luaScope(n)
	for i, name := range names {
		var v []*sitter.Node
		if i < len(values) {
			v = values[i]
		}
		if len(v) == 1 {
			if spec, ok := x.luaRequired(v[0]); ok {
				x.luaImport(spec, name, v[0])
				if isLocal {
					continue // bound by the import
				}
			}
		}
		switch {
		case name == "":
		case !isLocal:
			x.luaAssign(name, n.StartByte(), v)
		case fileLevel && len(v) == 1 && (v[0].Type() == "tableconstructor" || v[0].Type() == "function"):
			// A definition of the file (symbols lists it): found by name.
		default:
			l := local{at: n.EndByte(), scopeStart: start, scopeEnd: end}
			l.via, l.viaAt = x.luaVia(v)
			x.locals[name] = append(x.locals[name], l)
		}
	}
}

// luaVia reads what a local is assigned, when calls on the local can be
// resolved through it: a table path, a call or setmetatable(…, T) (an
// instance of T). It returns nil otherwise.
func (x *extractor) luaVia(v []*sitter.Node) (*chain, uint32) {
	if len(v) == 0 {
		return nil, 0
	}
	ch := x.luaChain(v, 0)
	if len(v) == 1 && v[0].Type() == "function_call" {
		if qual, fn := luaCallee(v[0]); len(qual) == 0 && fn != nil && x.luaText(fn) == "setmetatable" {
			ch = chain{root: rootUnknown}
			if args := luaArgs(v[0]); len(args) == 2 {
				ch = x.luaChain(args[1:], 0)
			}
		}
	}
	if ch.root != rootIdent && ch.root != rootSelf && ch.root != rootType {
		return nil, 0
	}
	return &ch, v[0].StartByte()
}

// luaAssign gives the local name visible at off, when it was declared
// without a value, the value v: forward-declared locals (local client …
// client = require("x")) resolve through their assignment everywhere.
func (x *extractor) luaAssign(name string, off uint32, v []*sitter.Node) {
	ls := x.locals[name]
	best := -1
	for i, l := range ls {
		if off >= l.scopeStart && off < l.scopeEnd && l.at <= off && (best < 0 || l.scopeStart >= ls[best].scopeStart) {
			best = i
		}
	}
	if best < 0 || ls[best].via != nil || ls[best].def {
		return
	}
	ls[best].via, ls[best].viaAt = x.luaVia(v)
}

// luaParams binds a function's parameters, and a nested local function's
// name in its block (a file-level function is a symbol).
func luaParams(x *extractor, n *sitter.Node, _ []capNode) {
	if n.Type() == "function_statement" && hasChild(n, "local") {
		if p := n.Parent(); p != nil && p.Type() != "program" {
			if name := n.ChildByFieldName("name"); name != nil {
				start, end := x.luaScope(n)
				x.bind(x.luaText(name), n.StartByte(), start, end, rawType{})
			}
		}
	}
	for _, params := range namedChildren(n) {
		if params.Type() != "parameter_list" {
			continue
		}
		for _, p := range namedChildren(params) {
			if p.Type() == "identifier" {
				x.bind(x.luaText(p), n.StartByte(), n.StartByte(), n.EndByte(), rawType{})
			}
		}
	}
}

// luaLoop binds the variables of a for loop in the loop.
func luaLoop(x *extractor, n *sitter.Node, _ []capNode) {
	loop := n.Parent()
	if loop == nil {
		return
	}
	vars := symbols.FieldChildren(n, "var")
	if l := n.ChildByFieldName("identifier_list"); l != nil {
		vars = namedChildren(l)
	}
	for _, v := range vars {
		if v.Type() == "identifier" {
			x.bind(x.luaText(v), n.StartByte(), loop.StartByte(), loop.EndByte(), rawType{})
		}
	}
}

// luaReturn records the table a module returns (return M) as the file's
// default export: a required module's functions are that table's.
func luaReturn(x *extractor, n *sitter.Node, _ []capNode) {
	if p := n.Parent(); p == nil || p.Type() != "program" {
		return
	}
	if vs := namedChildren(n); len(vs) == 1 && vs[0].Type() == "identifier" {
		x.g.DefaultExport = x.luaText(vs[0])
	}
}

// matchLua decides whether Lua call site s refers to definition d (of the
// file whose graph is dg), by Lua's scoping: a bare name is a function of
// the calling file or a global; a table path names the table holding d; a
// required module reaches the table it returns.
func (r *Resolver) matchLua(s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	c := &s.Call
	switch c.Recv.Kind {
	case RecvLocal:
		return 0, "", false, nil
	case RecvNone:
		return r.luaBare(s, d, dg)
	case RecvImport:
		return r.luaInModule(c.Recv.Module, nil, d, dg)
	case RecvFree:
		p := append([]string{c.Recv.Root}, c.Recv.Fields...)
		if c.Recv.Module != "" {
			return r.luaInModule(c.Recv.Module, p, d, dg) // m.sub.f() with m = require(…)
		}
		return r.luaTable(s, p, d, dg)
	case RecvSelf:
		if len(c.Recv.Fields) == 0 && c.Self != "" {
			if lastComponent(d.Container) != c.Self {
				return 0, "", false, nil
			}
			if d.Path == s.Path {
				return Exact, "self call in " + c.Self, true, nil
			}
			return r.luaGlobalTable(d, "self call in "+c.Self)
		}
	case RecvVar:
		// x = m.new(): an instance of the table module m returns.
		if te := c.Recv.Type; te.Call && te.Module != "" && len(c.Recv.Fields) == 0 {
			conf, reason, ok, err := r.luaInModule(te.Module, nil, d, dg)
			return min(conf, Likely), reason, ok, err
		}
	}
	return r.luaUnknown(d)
}

// luaBare decides a bare call f().
func (r *Resolver) luaBare(s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	c := &s.Call
	if c.Recv.Module != "" {
		// local f = require("m"); f(): the function module m returns.
		if d.Container == "" && dg.DefaultExport == d.Name && r.moduleMatch(c.Recv.Module, d, dg) {
			return Exact, "returned by " + c.Recv.Module, true, nil
		}
		return 0, "", false, nil
	}
	if d.Container != "" {
		return 0, "", false, nil // Lua has no implicit self
	}
	if d.Path == s.Path {
		return Exact, "same file", true, nil
	}
	if luaLocalDef(d.Symbol) {
		return 0, "", false, nil
	}
	if own, err := r.definesTopLevel(s.Path, c.Name); err != nil || own {
		return 0, "", false, err
	}
	n, err := r.countDefs(d, func(o Def) bool { return o.Container == "" && isFunctionKind(o.Kind) && !luaLocalDef(o.Symbol) })
	if err != nil {
		return 0, "", false, err
	}
	if n == 1 {
		return Likely, "the only global function " + d.Name, true, nil
	}
	return NameOnly, "name only: global function", true, nil
}

// luaInModule decides a call through required module mod: d must live in
// the module's file, in the table it returns (then the table path p below
// it), or anywhere in it when the module returns no named table.
func (r *Resolver) luaInModule(mod string, p []string, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	p, conf, ok := luaTablePath(p)
	if !ok {
		return r.luaUnknown(d)
	}
	if !r.moduleMatch(mod, d, dg) {
		return 0, "", false, nil
	}
	reason := "qualified by required " + mod
	if dg.DefaultExport == "" {
		return Likely, reason, true, nil
	}
	if d.Container == strings.Join(append([]string{dg.DefaultExport}, p...), ".") {
		return conf, reason, true, nil
	}
	return 0, "", false, nil
}

// luaTablePath reads the steps of a receiver as a table path. A final call
// step (T.new():m()) stands for an instance of the table holding the
// function called, by the convention that a constructor returns one: the
// path is then that table's and the confidence at most likely. ok is
// false for paths through an index or an earlier call.
func luaTablePath(p []string) ([]string, Confidence, bool) {
	for i, step := range p {
		if step == ElemStep {
			return nil, 0, false
		}
		if _, _, isCall := ParseCallStep(step); isCall {
			if i != len(p)-1 {
				return nil, 0, false
			}
			return p[:i], Likely, true
		}
	}
	return p, Exact, true
}

// luaTable decides a call on table path p (T.f(), a.b:m(), T.new():m()).
func (r *Resolver) luaTable(s *Site, p []string, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	p, conf, ok := luaTablePath(p)
	if !ok {
		return r.luaUnknown(d)
	}
	if len(p) == 0 || d.Container != strings.Join(p, ".") {
		return 0, "", false, nil
	}
	what := "table " + d.Container
	if d.Path == s.Path {
		return conf, what, true, nil
	}
	// Another file's table: only a global one is visible, and only when
	// the calling file has no table of that name itself.
	if own, err := r.definesTopLevelName(s.Path, p[0]); err != nil || own {
		return 0, "", false, err
	}
	c, reason, ok, err := r.luaGlobalTable(d, "global "+what)
	return min(c, conf), reason, ok, err
}

// luaGlobalTable accepts member d of another file when the root table of
// its container is global there (not a file-level local).
func (r *Resolver) luaGlobalTable(d Def, reason string) (Confidence, string, bool, error) {
	root, _, _ := strings.Cut(d.Container, ".")
	syms, err := r.symbolsOf(d.Path)
	if err != nil {
		return 0, "", false, err
	}
	for _, o := range syms {
		if o.Name == root && o.Container == "" && luaLocalDef(o) {
			return 0, "", false, nil
		}
	}
	return Likely, reason, true, nil
}

// luaUnknown decides a call on a receiver of unknown value: a function of
// some table with that name; likely when only one table has one.
func (r *Resolver) luaUnknown(d Def) (Confidence, string, bool, error) {
	if d.Container == "" {
		return 0, "", false, nil
	}
	n, err := r.countDefs(d, func(o Def) bool { return o.Container != "" })
	if err != nil {
		return 0, "", false, err
	}
	if n == 1 {
		return Likely, "the only table function named " + d.Name, true, nil
	}
	return NameOnly, "name only: receiver unknown", true, nil
}

// definesTopLevelName reports whether file p has a file-level definition
// (of any kind) called name.
func (r *Resolver) definesTopLevelName(p, name string) (bool, error) {
	defs, err := r.definitionsWhere(name, func(ref DefRef) bool { return ref.Path == p })
	if err != nil {
		return false, err
	}
	for _, d := range defs {
		if d.Container == "" {
			return true, nil
		}
	}
	return false, nil
}

// hasChild reports whether n has a direct child (named or not) of type t.
func hasChild(n *sitter.Node, t string) bool {
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		if n.Child(i).Type() == t {
			return true
		}
	}
	return false
}

// luaLocalDef reports a file-level local (local function f, local M = {}):
// its signature says so.
func luaLocalDef(s symbols.Symbol) bool { return strings.HasPrefix(s.Signature, "local ") }
