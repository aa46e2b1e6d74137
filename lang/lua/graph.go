package lua

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/graph"
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

var graphSpec = &graph.Lang{
	Query: `
(function_call) @lua_call
(variable_declaration) @lua_decl
(function_statement) @lua_func
(function) @lua_func
(for_generic) @lua_for
(for_numeric) @lua_for
(module_return_statement) @lua_return
`,
	Family: "lua",
	Module: luaModule,
	Builtins: graph.SetOf("require print pairs ipairs next type tostring tonumber error assert pcall xpcall select " +
		"setmetatable getmetatable rawget rawset rawequal rawlen unpack load loadstring loadfile dofile collectgarbage " +
		"describe context it test spec insulate expose pending before_each after_each setup teardown lazy_setup " +
		"lazy_teardown strict_setup strict_teardown finally"),
	Handlers: map[string]func(*graph.Extractor, *sitter.Node, graph.Captures){
		"lua_call":   luaCall,
		"lua_decl":   luaDecl,
		"lua_func":   luaParams,
		"lua_for":    luaLoop,
		"lua_return": luaReturn,
	},
	Finish: luaFinish,
	Match:  matchLua,
	// require("a.b") finds a/b.lua or a/b/init.lua on the package path,
	// which may start anywhere (lua/ on Neovim's runtime path).
	MatchModule: func(ref, _, module, _ string) bool { return strings.HasSuffix(module, "/"+ref) },
	TestFiles:   luaTestFiles,
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
	out := []string{path.Join(dir, name+"_spec.lua"), path.Join(dir, name+"_test.lua")}
	base, mod := "", dir
	segs := strings.Split(dir, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i] == "lua" {
			base, mod = strings.Join(segs[:i], "/"), strings.Join(segs[i+1:], "/")
			break
		}
	}
	for _, td := range []string{"spec", "test", "tests"} {
		out = append(out, path.Join(base, td, mod, name+"_spec.lua"), path.Join(base, td, name+"_spec.lua"))
	}
	return out
}

// luaStdlib lists the standard library tables: calls on them (string.format,
// table.insert) never reach a workspace definition and are not recorded.
var luaStdlib = graph.SetOf("string table math io os coroutine debug utf8 package bit bit32 jit ffi assert")

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
func luaFinish(x *graph.Extractor) {
	x.NestTests()
	for _, im := range x.Imports() {
		x.BindModule(luaRequireKey+im.Path, im.Module)
	}
}

// TestBusted is the kind of busted's describe/it/test blocks.
const TestBusted graph.TestKind = "busted"

// luaTestFns open busted blocks (describe, it and their aliases).
var luaTestFns = graph.SetOf("describe context it test spec insulate expose")

// trimmed is the span of n without the white space the grammar folds into
// its start.
func trimmed(x *graph.Extractor, n *sitter.Node) symbols.Span {
	return symbols.SkipSpace(x.Source(), x.Span(n))
}

// luaText is the text of n without folded white space.
func luaText(x *graph.Extractor, n *sitter.Node) string {
	return strings.TrimLeft(x.Text(n), " \t\r\n\f\v")
}

// luaString returns the value of a string literal node (its content
// field), and false for anything else.
func luaString(x *graph.Extractor, n *sitter.Node) (string, bool) {
	if n == nil || (n.Type() != "string" && n.Type() != "string_argument") {
		return "", false
	}
	if c := n.ChildByFieldName("content"); c != nil {
		return x.Text(c), true
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
	return graph.NamedChildren(a)
}

// luaChain reads a flat run of nodes (a, ".", b, "[", k, "]", …) as a
// qualifier chain. A leading call contributes its own chain and a call
// step; self is the enclosing table unless a local named self is in scope.
func luaChain(x *graph.Extractor, nodes []*sitter.Node, depth int) graph.Chain {
	if len(nodes) == 0 || depth > 12 {
		return graph.UnknownChain
	}
	var c graph.Chain
	first := nodes[0]
	switch first.Type() {
	case "identifier":
		id := luaText(x, first)
		if id == "" {
			return graph.UnknownChain
		}
		if id == "self" && !x.Bound(id, first.StartByte()) {
			c = graph.SelfChain()
		} else {
			c = graph.NameChain(id)
		}
	case "function_call":
		qual, name := luaCallee(first)
		if name == nil {
			return graph.UnknownChain
		}
		if spec, ok := luaRequired(x, first); ok {
			c = graph.NameChain(luaRequireKey + spec) // require("a.b").f()
			break
		}
		if len(qual) == 0 {
			c = graph.ResultChain(luaText(x, name))
		} else {
			c = luaChain(x, qual, depth+1)
			if !c.Known() {
				return c
			}
			c = c.With(graph.CallStep(luaText(x, name), 0))
		}
	default:
		return graph.UnknownChain
	}
	for i := 1; i < len(nodes); i++ {
		var ok bool
		switch nodes[i].Type() {
		case ".":
			continue
		case "identifier":
			f := luaText(x, nodes[i])
			if f == "" {
				return graph.UnknownChain
			}
			c, ok = c.Field(f)
		case "[":
			if i+2 >= len(nodes) || nodes[i+2].Type() != "]" {
				return graph.UnknownChain
			}
			step := graph.ElemStep
			if k, isStr := luaString(x, nodes[i+1]); isStr && graph.IsIdentifier(k) {
				step = k // t["k"] is t.k
			}
			c, ok = c.Field(step)
			i += 2
		default:
			return graph.UnknownChain
		}
		if !ok {
			return graph.UnknownChain
		}
	}
	return c
}

// luaCall records a call site, a require import or a busted block.
func luaCall(x *graph.Extractor, n *sitter.Node, _ graph.Captures) {
	qual, name := luaCallee(n)
	if name == nil {
		return
	}
	callee := luaText(x, name)
	if callee == "" {
		return // a name tree-sitter made up to recover from an error
	}
	if len(qual) == 0 {
		switch {
		case callee == "require":
			if p := n.Parent(); p == nil || p.Type() != "variable_declaration" {
				if spec, ok := luaRequired(x, n); ok {
					luaImport(x, spec, "", name) // an assigned require is luaDecl's
				}
			}
		case luaTestFns[callee] && luaTestFile(x.Path()):
			luaTestBlock(x, n)
		}
		if x.Builtin(callee) {
			return
		}
	} else if qual[0].Type() == "identifier" && luaStdlib[luaText(x, qual[0])] {
		if !x.Bound(luaText(x, qual[0]), qual[0].StartByte()) {
			return
		}
	}
	var text string
	var recv graph.Chain
	if len(qual) > 0 {
		var b strings.Builder
		for _, q := range qual {
			b.WriteString(strings.Join(strings.Fields(x.Text(q)), ""))
		}
		text, recv = b.String(), luaChain(x, qual, 0)
	}
	x.AddCall(callee, trimmed(x, name), text, recv)
}

// luaRequired returns the module a call of require names ("a.b" for
// require("a.b") and require "a.b"); ok is false for other calls.
func luaRequired(x *graph.Extractor, call *sitter.Node) (string, bool) {
	if call == nil || call.Type() != "function_call" {
		return "", false
	}
	if qual, fn := luaCallee(call); len(qual) > 0 || fn == nil || luaText(x, fn) != "require" {
		return "", false
	}
	args := luaArgs(call)
	if len(args) != 1 {
		return "", false
	}
	spec, ok := luaString(x, args[0])
	return spec, ok && spec != ""
}

// luaImport records an import of module spec ("a.b", module a/b) bound to
// alias, written at node at.
func luaImport(x *graph.Extractor, spec, alias string, at *sitter.Node) {
	x.AddImport(graph.Import{
		Path: spec, Module: strings.ReplaceAll(spec, ".", "/"), Alias: alias, Line: trimmed(x, at).Start.Line,
	})
}

// luaTestBlock records a busted block: it("does x", function() … end).
func luaTestBlock(x *graph.Extractor, call *sitter.Node) {
	args := luaArgs(call)
	if len(args) < 2 || args[len(args)-1].Type() != "function" {
		return
	}
	name, ok := luaString(x, args[0])
	if !ok {
		return
	}
	x.AddTest(name, TestBusted, trimmed(x, call))
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
func luaScope(x *graph.Extractor, n *sitter.Node) (uint32, uint32) {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "function_body", "function", "function_statement", "do_statement", "if_statement",
			"for_statement", "while_statement", "repeat_statement":
			return p.StartByte(), p.EndByte()
		}
	}
	return 0, uint32(len(x.Source()))
}

// luaDecl handles a variable_declaration: requires become imports, locals
// are bound (through what they were assigned, when that is a table path,
// a call or setmetatable(…, T)), and assigning a local declared without a
// value gives it one (local x … x = require("a.b")).
func luaDecl(x *graph.Extractor, n *sitter.Node, _ graph.Captures) {
	isLocal := symbols.HasChildOfType(n, "local")
	var names []string
	for _, d := range symbols.FieldChildren(n, "name") {
		if ids := graph.NamedChildren(d); len(ids) == 1 && ids[0].Type() == "identifier" {
			names = append(names, luaText(x, ids[0]))
		} else {
			names = append(names, "") // a table member: M.x = …
		}
	}
	values := luaValueRuns(n)
	if len(names) == 2 && len(values) == 1 && len(values[0]) == 1 && values[0][0].Type() == "function_call" {
		// local ok, mod = pcall(require, "a.b")
		if qual, fn := luaCallee(values[0][0]); len(qual) == 0 && fn != nil && luaText(x, fn) == "pcall" {
			if args := luaArgs(values[0][0]); len(args) == 2 && luaText(x, args[0]) == "require" {
				if spec, ok := luaString(x, args[1]); ok && spec != "" && names[1] != "" {
					luaImport(x, spec, names[1], args[1])
					names[1] = ""
				}
			}
		}
	}
	fileLevel := n.Parent() != nil && n.Parent().Type() == "program"
	start, end := luaScope(x, n)
	for i, name := range names {
		var v []*sitter.Node
		if i < len(values) {
			v = values[i]
		}
		if len(v) == 1 {
			if spec, ok := luaRequired(x, v[0]); ok {
				luaImport(x, spec, name, v[0])
				if isLocal {
					continue // bound by the import
				}
			}
		}
		switch {
		case name == "":
		case !isLocal:
			via, at := luaVia(x, v)
			x.Assign(name, n.StartByte(), via, at)
		case fileLevel && len(v) == 1 && (v[0].Type() == "tableconstructor" || v[0].Type() == "function"):
			// A definition of the file (symbols lists it): found by name.
		default:
			via, at := luaVia(x, v)
			x.BindVia(name, n.EndByte(), start, end, via, at)
		}
	}
}

// luaVia reads what a local is assigned, when calls on the local can be
// resolved through it: a table path, a call or setmetatable(…, T) (an
// instance of T). The chain is not Known otherwise.
func luaVia(x *graph.Extractor, v []*sitter.Node) (graph.Chain, uint32) {
	if len(v) == 0 {
		return graph.UnknownChain, 0
	}
	ch := luaChain(x, v, 0)
	if len(v) == 1 && v[0].Type() == "function_call" {
		if qual, fn := luaCallee(v[0]); len(qual) == 0 && fn != nil && luaText(x, fn) == "setmetatable" {
			ch = graph.UnknownChain
			if args := luaArgs(v[0]); len(args) == 2 {
				ch = luaChain(x, args[1:], 0)
			}
		}
	}
	return ch, v[0].StartByte()
}

// luaParams binds a function's parameters, and a nested local function's
// name in its block (a file-level function is a symbol).
func luaParams(x *graph.Extractor, n *sitter.Node, _ graph.Captures) {
	if n.Type() == "function_statement" && symbols.HasChildOfType(n, "local") {
		if p := n.Parent(); p != nil && p.Type() != "program" {
			if name := n.ChildByFieldName("name"); name != nil {
				start, end := luaScope(x, n)
				x.Bind(luaText(x, name), n.StartByte(), start, end)
			}
		}
	}
	for _, params := range graph.NamedChildren(n) {
		if params.Type() != "parameter_list" {
			continue
		}
		for _, p := range graph.NamedChildren(params) {
			if p.Type() == "identifier" {
				x.Bind(luaText(x, p), n.StartByte(), n.StartByte(), n.EndByte())
			}
		}
	}
}

// luaLoop binds the variables of a for loop in the loop.
func luaLoop(x *graph.Extractor, n *sitter.Node, _ graph.Captures) {
	loop := n.Parent()
	if loop == nil {
		return
	}
	vars := symbols.FieldChildren(n, "var")
	if l := n.ChildByFieldName("identifier_list"); l != nil {
		vars = graph.NamedChildren(l)
	}
	for _, v := range vars {
		if v.Type() == "identifier" {
			x.Bind(luaText(x, v), n.StartByte(), loop.StartByte(), loop.EndByte())
		}
	}
}

// luaReturn records the table a module returns (return M) as the file's
// default export: a required module's functions are that table's.
func luaReturn(x *graph.Extractor, n *sitter.Node, _ graph.Captures) {
	if p := n.Parent(); p == nil || p.Type() != "program" {
		return
	}
	if vs := graph.NamedChildren(n); len(vs) == 1 && vs[0].Type() == "identifier" {
		x.SetDefaultExport(luaText(x, vs[0]))
	}
}

// matchLua decides whether Lua call site s refers to definition d (of the
// file whose graph is dg), by Lua's scoping: a bare name is a function of
// the calling file or a global; a table path names the table holding d; a
// required module reaches the table it returns.
func matchLua(r *graph.Resolver, s *graph.Site, d graph.Def, dg *graph.FileGraph) (graph.Confidence, string, bool, error) {
	c := &s.Call
	switch c.Recv.Kind {
	case graph.RecvLocal:
		return 0, "", false, nil
	case graph.RecvNone:
		return luaBare(r, s, d, dg)
	case graph.RecvImport:
		return luaInModule(r, c.Recv.Module, nil, d, dg)
	case graph.RecvFree:
		p := append([]string{c.Recv.Root}, c.Recv.Fields...)
		if c.Recv.Module != "" {
			return luaInModule(r, c.Recv.Module, p, d, dg) // m.sub.f() with m = require(…)
		}
		return luaTable(r, s, p, d, dg)
	case graph.RecvSelf:
		if len(c.Recv.Fields) == 0 && c.Self != "" {
			if graph.LastComponent(d.Container) != c.Self {
				return 0, "", false, nil
			}
			if d.Path == s.Path {
				return graph.Exact, "self call in " + c.Self, true, nil
			}
			return luaGlobalTable(r, d, "self call in "+c.Self)
		}
	case graph.RecvVar:
		// x = m.new(): an instance of the table module m returns.
		if te := c.Recv.Type; te.Call && te.Module != "" && len(c.Recv.Fields) == 0 {
			conf, reason, ok, err := luaInModule(r, te.Module, nil, d, dg)
			return min(conf, graph.Likely), reason, ok, err
		}
	}
	return luaUnknown(r, d)
}

// luaBare decides a bare call f().
func luaBare(r *graph.Resolver, s *graph.Site, d graph.Def, dg *graph.FileGraph) (graph.Confidence, string, bool, error) {
	c := &s.Call
	if c.Recv.Module != "" {
		// local f = require("m"); f(): the function module m returns.
		if d.Container == "" && dg.DefaultExport == d.Name && r.ModuleMatch(c.Recv.Module, d, dg) {
			return graph.Exact, "returned by " + c.Recv.Module, true, nil
		}
		return 0, "", false, nil
	}
	if d.Container != "" {
		return 0, "", false, nil // Lua has no implicit self
	}
	if d.Path == s.Path {
		return graph.Exact, "same file", true, nil
	}
	if luaLocalDef(d.Symbol) {
		return 0, "", false, nil
	}
	if own, err := r.DefinesTopLevel(s.Path, c.Name); err != nil || own {
		return 0, "", false, err
	}
	n, err := r.CountDefs(d, func(o graph.Def) bool {
		return o.Container == "" && symbols.IsFunctionKind(o.Kind) && !luaLocalDef(o.Symbol)
	})
	if err != nil {
		return 0, "", false, err
	}
	if n == 1 {
		return graph.Likely, "the only global function " + d.Name, true, nil
	}
	return graph.NameOnly, "name only: global function", true, nil
}

// luaInModule decides a call through required module mod: d must live in
// the module's file, in the table it returns (then the table path p below
// it), or anywhere in it when the module returns no named table.
func luaInModule(r *graph.Resolver, mod string, p []string, d graph.Def, dg *graph.FileGraph) (graph.Confidence, string, bool, error) {
	p, conf, ok := luaTablePath(p)
	if !ok {
		return luaUnknown(r, d)
	}
	if !r.ModuleMatch(mod, d, dg) {
		return 0, "", false, nil
	}
	reason := "qualified by required " + mod
	if dg.DefaultExport == "" {
		return graph.Likely, reason, true, nil
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
func luaTablePath(p []string) ([]string, graph.Confidence, bool) {
	for i, step := range p {
		if step == graph.ElemStep {
			return nil, 0, false
		}
		if _, _, isCall := graph.ParseCallStep(step); isCall {
			if i != len(p)-1 {
				return nil, 0, false
			}
			return p[:i], graph.Likely, true
		}
	}
	return p, graph.Exact, true
}

// luaTable decides a call on table path p (T.f(), a.b:m(), T.new():m()).
func luaTable(r *graph.Resolver, s *graph.Site, p []string, d graph.Def, dg *graph.FileGraph) (graph.Confidence, string, bool, error) {
	p, conf, ok := luaTablePath(p)
	if !ok {
		return luaUnknown(r, d)
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
	if own, err := r.DefinesTopLevelName(s.Path, p[0]); err != nil || own {
		return 0, "", false, err
	}
	c, reason, ok, err := luaGlobalTable(r, d, "global "+what)
	return min(c, conf), reason, ok, err
}

// luaGlobalTable accepts member d of another file when the root table of
// its container is global there (not a file-level local).
func luaGlobalTable(r *graph.Resolver, d graph.Def, reason string) (graph.Confidence, string, bool, error) {
	root, _, _ := strings.Cut(d.Container, ".")
	syms, err := r.SymbolsOf(d.Path)
	if err != nil {
		return 0, "", false, err
	}
	for _, o := range syms {
		if o.Name == root && o.Container == "" && luaLocalDef(o) {
			return 0, "", false, nil
		}
	}
	return graph.Likely, reason, true, nil
}

// luaUnknown decides a call on a receiver of unknown value: a function of
// some table with that name; likely when only one table has one.
func luaUnknown(r *graph.Resolver, d graph.Def) (graph.Confidence, string, bool, error) {
	if d.Container == "" {
		return 0, "", false, nil
	}
	n, err := r.CountDefs(d, func(o graph.Def) bool { return o.Container != "" })
	if err != nil {
		return 0, "", false, err
	}
	if n == 1 {
		return graph.Likely, "the only table function named " + d.Name, true, nil
	}
	return graph.NameOnly, "name only: receiver unknown", true, nil
}

// luaLocalDef reports a file-level local (local function f, local M = {}):
// its signature says so.
func luaLocalDef(s symbols.Symbol) bool { return strings.HasPrefix(s.Signature, "local ") }
