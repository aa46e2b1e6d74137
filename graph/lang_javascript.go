package graph

import (
	"path"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// jsExtensions are tried, in order, when a relative import names a file
// without its extension.
var jsExtensions = []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}

const jsQuery = `
(import_statement) @import
(call_expression function: (identifier) @name) @call
(call_expression function: (member_expression object: (_) @qual property: (property_identifier) @name)) @call
(call_expression function: (member_expression object: (_) @qual property: (private_property_identifier) @name)) @call
(export_statement source: (_)) @import
(method_definition) @field
(new_expression constructor: (identifier) @name) @new
(new_expression constructor: (member_expression object: (_) @qual property: (property_identifier) @name)) @new
(arguments (identifier) @name) @ref
(arguments (member_expression object: (_) @qual property: (property_identifier) @name)) @ref
(variable_declarator) @local
(formal_parameters) @local
(function_declaration) @local
(for_in_statement) @local
(assignment_expression left: (member_expression object: (this))) @field
(export_statement) @export
(assignment_expression left: (member_expression object: (identifier) @export.obj property: (property_identifier) @export.prop)) @export
(call_expression function: (identifier) @test.fn arguments: (arguments . [(string) (template_string)] @test.name)) @test
(call_expression function: (member_expression object: (identifier) @test.fn) arguments: (arguments . [(string) (template_string)] @test.name)) @test
`

// jsThis reads this inside a plain function (not an arrow function, not a
// method): bound by its caller, not the class around it.
func jsThis(x *extractor, n *sitter.Node, _ int) (chain, bool) {
	if n.Type() != "this" {
		return chain{}, false
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "function_expression", "function", "function_declaration", "generator_function", "generator_function_declaration":
			return chain{root: rootUnknown}, true
		case "method_definition", "class_body", "public_field_definition", "field_definition":
			return chain{}, false
		}
	}
	return chain{}, false
}

var jsChain = chainSpec{
	member:  map[string][2]string{"member_expression": {"object", "property"}},
	call:    map[string]string{"call_expression": "function"},
	newExpr: map[string]string{"new_expression": "constructor"},
	ident:   map[string]bool{"identifier": true},
	self:    map[string]bool{"this": true},
	super:   map[string]bool{"super": true},
	wrap:    map[string]bool{"parenthesized_expression": true, "await_expression": true, "non_null_expression": true},
	literal: map[string]bool{"string": true, "template_string": true, "number": true, "regex": true, "array": false},
}

var jsHandlers = map[string]func(*extractor, *sitter.Node, []capNode){
	"import": jsImport,
	"local":  jsLocal,
	"field":  jsThisField,
	"export": jsExport,
	"test":   jsTestBlock,
	"type":   jsClass,
}

var jsBuiltins = SetOf("require describe it test expect beforeEach afterEach beforeAll afterAll parseInt parseFloat String Number Boolean Array Object Promise Symbol Error TypeError setTimeout clearTimeout setInterval clearInterval console JSON Math isNaN encodeURIComponent decodeURIComponent")

var jsSpec = &langSpec{
	query:     jsQuery + "(class_declaration) @type\n(class) @type\n",
	chainHook: jsThis,
	family:    "js",
	module:    jsModule,
	hoisted:   false,
	builtins:  jsBuiltins,
	chain:     jsChain,
	types: typeSpec{
		names: map[string]bool{"identifier": true, "type_identifier": true},
	},
	handlers: jsHandlers,
	finish:   jsFinish,
}

var tsSpec = &langSpec{
	query: jsQuery + `
(class_declaration) @type
(abstract_class_declaration) @type
(interface_declaration) @type
(public_field_definition) @field
`,
	family:    "js",
	module:    jsModule,
	builtins:  jsBuiltins,
	chain:     jsChain,
	chainHook: jsThis,
	types: typeSpec{
		names:     map[string]bool{"identifier": true, "type_identifier": true},
		qualified: map[string][2]string{"nested_type_identifier": {"module", "name"}},
		wrap:      map[string]bool{"type_annotation": true},
		generic:   map[string]string{"generic_type": "name"},
	},
	handlers: func() map[string]func(*extractor, *sitter.Node, []capNode) {
		m := map[string]func(*extractor, *sitter.Node, []capNode){}
		for k, v := range jsHandlers {
			m[k] = v
		}
		return m
	}(),
	finish: jsFinish,
}

func init() {
	rules := langRules{
		// "./a" reaches a/index; "@/a" is a path alias of the source root.
		matchModule: func(_ *Resolver, ref, _, module, _ string) bool {
			return ref == module+"/index" || strings.HasSuffix(module, "/"+strings.TrimPrefix(ref, "@/"))
		},
		unqualified: starImports,
		moduleFiles: func(mod string) []string {
			var out []string
			for _, ext := range jsExtensions {
				out = append(out, mod+ext)
			}
			for _, ext := range jsExtensions {
				out = append(out, mod+"/index"+ext)
			}
			return out
		},
		resultType:   colonResult,
		moduleValues: true,
		// Code calls the platform's methods (an array's filter, JSON's
		// parse) on values of unknown type: the only workspace method of
		// a name justifies nothing.
		outsideMethods: true,
		testFiles:      jsTestFiles,
		paramList:      tsParamList,
		listParam:      tsListParam,
		fnParams:       tsFnParams,
		aliasOf:        tsAliasOf,
	}
	jsSpec.rules, tsSpec.rules = rules, rules
	registerSpec(jsSpec, "javascript")
	registerSpec(tsSpec, "typescript", "tsx")
}

// jsTestFiles: x.test.ts, x.spec.js … beside it or in __tests__.
func jsTestFiles(dir, name, ext string) []string {
	switch ext {
	case ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs":
	default:
		return nil
	}
	if strings.Contains(name, ".test") || strings.Contains(name, ".spec") {
		return nil
	}
	var out []string
	for _, e := range []string{ext, ".ts", ".js", ".tsx", ".jsx"} {
		for _, kind := range []string{".test", ".spec"} {
			out = append(out, joinPath(dir, name+kind+e), joinPath(dir, "__tests__", name+kind+e))
		}
		out = append(out, joinPath(dir, "__tests__", name+e))
	}
	return out
}

// jsModule is a file's path without extension, and a directory for index
// files.
func jsModule(p string) string {
	ext := path.Ext(p)
	p = strings.TrimSuffix(p, ext)
	if p == "index" {
		return "."
	}
	return strings.TrimSuffix(p, "/index")
}

// jsResolve makes a relative specifier a module identity.
func jsResolve(file, spec string) string {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return spec
	}
	p := path.Join(path.Dir(file), spec)
	for _, ext := range jsExtensions {
		if strings.HasSuffix(p, ext) {
			p = strings.TrimSuffix(p, ext)
			break
		}
	}
	if p == "index" {
		return "."
	}
	return strings.TrimSuffix(p, "/index")
}

// stringValue returns the content of a JS/TS string literal node.
func (x *extractor) stringValue(n *sitter.Node) string {
	s := x.text(n)
	if len(s) >= 2 {
		q := s[0]
		if (q == '"' || q == '\'' || q == '`') && s[len(s)-1] == q {
			return s[1 : len(s)-1]
		}
	}
	return s
}

func jsImport(x *extractor, n *sitter.Node, _ []capNode) {
	src := n.ChildByFieldName("source")
	if src == nil {
		return
	}
	spec := x.stringValue(src)
	im := Import{Path: spec, Module: jsResolve(x.path, spec), Line: int(n.StartPoint().Row)}
	if n.Type() == "export_statement" {
		// export { a as b } from "./m", export * from "./m": the module
		// re-exports those names (an index).
		jsReexport(x, n, im)
		return
	}
	for _, c := range NamedChildren(n) {
		if c.Type() != "import_clause" {
			continue
		}
		for _, part := range NamedChildren(c) {
			switch part.Type() {
			case "identifier":
				im.Names = append(im.Names, ImportName{Name: "default", Alias: x.text(part)})
			case "namespace_import":
				if id := firstNamedChild(part); id != nil {
					im.Alias = x.text(id)
				}
			case "named_imports":
				im.Names = append(im.Names, x.jsSpecifiers(part, "import_specifier")...)
			}
		}
	}
	x.g.Imports = append(x.g.Imports, im)
}

// jsReexport records export ... from as an import of the names it
// re-exports, under the names it exports them by.
func jsReexport(x *extractor, n *sitter.Node, im Import) {
	clause := false
	for _, c := range NamedChildren(n) {
		switch c.Type() {
		case "export_clause":
			clause = true
			im.Names = append(im.Names, x.jsSpecifiers(c, "export_specifier")...)
		case "namespace_export":
			return // export * as ns from: a namespace, no names of its own
		}
	}
	if !clause {
		im.Names = append(im.Names, ImportName{Name: "*"})
	}
	x.g.Imports = append(x.g.Imports, im)
}

// jsSpecifiers reads the names of an import's or export's braces ({ a, b
// as c }), whose items are nodes of type kind.
func (x *extractor) jsSpecifiers(list *sitter.Node, kind string) []ImportName {
	var out []ImportName
	for _, sp := range NamedChildren(list) {
		if sp.Type() != kind {
			continue
		}
		in := ImportName{Name: x.text(sp.ChildByFieldName("name"))}
		if a := sp.ChildByFieldName("alias"); a != nil {
			in.Alias = x.text(a)
		}
		if in.Name != "" {
			out = append(out, in)
		}
	}
	return out
}

// jsRequire returns the specifier of require("spec"), or "".
func (x *extractor) jsRequire(v *sitter.Node) string {
	if v == nil || v.Type() != "call_expression" {
		return ""
	}
	fn := v.ChildByFieldName("function")
	if fn == nil || x.text(fn) != "require" {
		return ""
	}
	args := NamedChildren(v.ChildByFieldName("arguments"))
	if len(args) != 1 || args[0].Type() != "string" {
		return ""
	}
	return x.stringValue(args[0])
}

// jsValueType infers the type of an initializer.
func (x *extractor) jsValueType(v *sitter.Node) rawType {
	for i := 0; v != nil && i < 4; i++ {
		switch v.Type() {
		case "new_expression":
			if c := v.ChildByFieldName("constructor"); c != nil {
				return x.rawTypeOf(c)
			}
			return rawType{}
		case "call_expression":
			if fn := v.ChildByFieldName("function"); fn != nil {
				return x.callResult(fn)
			}
			return rawType{}
		case "await_expression", "parenthesized_expression", "non_null_expression":
			v = firstNamedChild(v)
			continue
		case "as_expression", "satisfies_expression":
			kids := NamedChildren(v)
			if len(kids) == 2 {
				return x.rawTypeOf(kids[1])
			}
		}
		return rawType{}
	}
	return rawType{}
}

// jsScope returns the range a declaration binds in: the enclosing block
// for let/const, the function for var and parameters.
func (x *extractor) jsScope(decl *sitter.Node) (uint32, uint32) {
	p := decl.Parent()
	if p == nil {
		return 0, uint32(len(x.src))
	}
	if p.Type() == "variable_declaration" {
		s, e := x.functionScope(int(decl.StartByte()))
		return uint32(s), uint32(e)
	}
	if b := p.Parent(); b != nil {
		return b.StartByte(), b.EndByte()
	}
	return 0, uint32(len(x.src))
}

func jsLocal(x *extractor, n *sitter.Node, _ []capNode) {
	switch n.Type() {
	case "variable_declarator":
		name := n.ChildByFieldName("name")
		value := n.ChildByFieldName("value")
		if name == nil {
			return
		}
		if spec := x.jsRequire(value); spec != "" {
			im := Import{Path: spec, Module: jsResolve(x.path, spec), Line: int(n.StartPoint().Row)}
			switch name.Type() {
			case "identifier":
				im.Alias = x.text(name)
			case "object_pattern":
				for _, p := range NamedChildren(name) {
					switch p.Type() {
					case "shorthand_property_identifier_pattern":
						im.Names = append(im.Names, ImportName{Name: x.text(p)})
					case "pair_pattern":
						im.Names = append(im.Names, ImportName{Name: x.text(p.ChildByFieldName("key")), Alias: x.text(p.ChildByFieldName("value"))})
					}
				}
			}
			x.g.Imports = append(x.g.Imports, im)
			return
		}
		if jsTopLevel(n) {
			if name.Type() == "identifier" {
				rt := x.jsDeclType(n, value)
				x.fields = append(x.fields, pendingField{name: x.text(name), typ: rt})
			}
			return
		}
		s, e := x.jsScope(n)
		if name.Type() == "identifier" {
			rt := x.jsDeclType(n, value)
			if (!rt.known() || rt.call) && x.bindVia(x.text(name), n.EndByte(), s, e, value, false) {
				return // const q = number().max(5): calls on q resolve through the expression
			}
			x.bind(x.text(name), n.EndByte(), s, e, rt)
			return
		}
		for _, id := range jsPatternNames(x, name) {
			x.bind(x.text(id), n.EndByte(), s, e, rawType{})
		}
	case "formal_parameters":
		fn := n.Parent()
		if fn == nil {
			return
		}
		k := -1
		for _, p := range NamedChildren(n) {
			var id *sitter.Node
			var rt rawType
			if jsParamNode(p) {
				k++
			}
			switch p.Type() {
			case "identifier":
				id = p
			case "required_parameter", "optional_parameter":
				id = p.ChildByFieldName("pattern")
				if t := p.ChildByFieldName("type"); t != nil {
					rt = x.rawTypeOf(t)
				}
				if v := p.ChildByFieldName("value"); v != nil && !rt.known() {
					rt = x.jsValueType(v)
				}
			case "assignment_pattern":
				id = p.ChildByFieldName("left")
				rt = x.jsValueType(p.ChildByFieldName("right"))
			case "rest_pattern":
				id = firstNamedChild(p)
			}
			if id == nil {
				continue
			}
			if id.Type() == "identifier" {
				if !rt.known() {
					// (c) => c.req.header(): typed by the function type
					// expected where the function is written.
					crt, ch, viaAt, ok := x.jsCallbackParam(fn, k)
					if ok && !crt.known() {
						x.bindChain(x.text(id), fn.StartByte(), fn.StartByte(), fn.EndByte(), ch, viaAt)
						continue
					}
					rt = crt
				}
				x.bind(x.text(id), fn.StartByte(), fn.StartByte(), fn.EndByte(), rt)
				continue
			}
			for _, sub := range jsPatternNames(x, id) {
				x.bind(x.text(sub), fn.StartByte(), fn.StartByte(), fn.EndByte(), rawType{})
			}
		}
	case "function_declaration":
		if name := n.ChildByFieldName("name"); name != nil && n.StartByte() > 0 {
			x.bindDef(x.text(name), n.StartByte()-1)
		}
	case "for_in_statement":
		left := n.ChildByFieldName("left")
		if left == nil {
			return
		}
		for _, id := range append([]*sitter.Node{left}, jsPatternNames(x, left)...) {
			if id.Type() == "identifier" {
				x.bind(x.text(id), n.StartByte(), n.StartByte(), n.EndByte(), rawType{})
			}
		}
	}
}

// jsTopLevel reports a declarator at module level (directly in the
// program, possibly exported).
func jsTopLevel(decl *sitter.Node) bool {
	p := decl.Parent() // lexical_declaration / variable_declaration
	if p == nil {
		return true
	}
	p = p.Parent()
	if p != nil && p.Type() == "export_statement" {
		p = p.Parent()
	}
	return p == nil || p.Type() == "program"
}

// jsDeclType is a declarator's annotated or inferred type.
func (x *extractor) jsDeclType(decl, value *sitter.Node) rawType {
	if t := decl.ChildByFieldName("type"); t != nil {
		if rt := x.rawTypeOf(t); rt.known() {
			return rt
		}
	}
	return x.jsValueType(value)
}

// jsPatternNames returns the identifiers a destructuring pattern binds.
func jsPatternNames(x *extractor, n *sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	for _, c := range NamedChildren(n) {
		switch c.Type() {
		case "identifier", "shorthand_property_identifier_pattern":
			out = append(out, c)
		case "pair_pattern":
			if v := c.ChildByFieldName("value"); v != nil {
				if v.Type() == "identifier" {
					out = append(out, v)
				} else {
					out = append(out, jsPatternNames(x, v)...)
				}
			}
		case "object_pattern", "array_pattern", "rest_pattern", "assignment_pattern":
			out = append(out, jsPatternNames(x, c)...)
		}
	}
	return out
}

// jsThisField records this.x = new Foo() as a member type of the class.
func jsThisField(x *extractor, n *sitter.Node, _ []capNode) {
	if n.Type() == "method_definition" {
		// get req(): HonoRequest: reading the member gives its result.
		name, ret := n.ChildByFieldName("name"), n.ChildByFieldName("return_type")
		if name == nil || ret == nil || !hasToken(n, "get") {
			return
		}
		if owner := x.ownerAt(int(n.StartByte())); owner != "" {
			if rt := x.rawTypeOf(ret); rt.known() {
				x.fields = append(x.fields, pendingField{owner: owner, name: x.text(name), typ: rt})
			}
		}
		return
	}
	if n.Type() == "public_field_definition" {
		name := n.ChildByFieldName("name")
		owner := x.ownerAt(int(n.StartByte()))
		if name == nil || owner == "" {
			return
		}
		rt := rawType{}
		if t := n.ChildByFieldName("type"); t != nil {
			rt = x.rawTypeOf(t)
		}
		if !rt.known() {
			rt = x.jsValueType(n.ChildByFieldName("value"))
		}
		if rt.known() {
			x.fields = append(x.fields, pendingField{owner: owner, name: x.text(name), typ: rt})
		}
		return
	}
	left := n.ChildByFieldName("left")
	if left == nil {
		return
	}
	prop := left.ChildByFieldName("property")
	owner := x.ownerAt(int(n.StartByte()))
	rt := x.jsValueType(n.ChildByFieldName("right"))
	if prop != nil && owner != "" && rt.known() {
		x.fields = append(x.fields, pendingField{owner: owner, name: x.text(prop), typ: rt})
	}
}

// hasToken reports an anonymous child token of n (a keyword).
func hasToken(n *sitter.Node, tok string) bool {
	for i := 0; i < int(n.ChildCount()); i++ {
		if c := n.Child(i); !c.IsNamed() && c.Type() == tok {
			return true
		}
	}
	return false
}

// jsClass records a class with its extends/implements clauses.
func jsClass(x *extractor, n *sitter.Node, _ []capNode) {
	name := n.ChildByFieldName("name")
	if name == nil {
		return
	}
	pt := pendingType{name: x.text(name), iface: n.Type() == "interface_declaration"}
	for _, c := range NamedChildren(n) {
		switch c.Type() {
		case "class_heritage":
			for _, h := range NamedChildren(c) {
				switch h.Type() {
				case "extends_clause", "implements_clause":
					for _, b := range NamedChildren(h) {
						if rt := x.rawTypeOf(b); rt.known() {
							pt.bases = append(pt.bases, rt)
						}
					}
				default:
					if rt := x.rawTypeOf(h); rt.known() {
						pt.bases = append(pt.bases, rt)
					}
				}
			}
		case "extends_type_clause":
			for _, b := range NamedChildren(c) {
				if rt := x.rawTypeOf(b); rt.known() {
					pt.bases = append(pt.bases, rt)
				}
			}
		case "interface_body", "object_type":
			pt.calls = tsCallSignatures(x.src[c.StartByte():])
		}
	}
	x.types = append(x.types, pt)
}

// jsExport records the default export: export default name / function /
// class, and module.exports = name.
func jsExport(x *extractor, n *sitter.Node, caps []capNode) {
	if n.Type() == "assignment_expression" {
		obj, prop := capture(caps, "export.obj"), capture(caps, "export.prop")
		if x.text(obj) != "module" || x.text(prop) != "exports" {
			return
		}
		if r := n.ChildByFieldName("right"); r != nil {
			switch r.Type() {
			case "identifier":
				x.g.DefaultExport = x.text(r)
			case "function_expression", "class", "function":
				if nm := r.ChildByFieldName("name"); nm != nil {
					x.g.DefaultExport = x.text(nm)
				}
			}
		}
		return
	}
	if n.ChildByFieldName("source") == nil {
		// export { Hono as HonoBase }: the module's own definition under
		// another name, recorded like a re-export of its own module.
		var renamed []ImportName
		for _, c := range NamedChildren(n) {
			if c.Type() != "export_clause" {
				continue
			}
			for _, s := range x.jsSpecifiers(c, "export_specifier") {
				if s.Alias != "" && s.Alias != s.Name && s.Name != "default" {
					renamed = append(renamed, s)
				}
			}
		}
		if len(renamed) > 0 {
			x.g.Imports = append(x.g.Imports, Import{Path: "./" + path.Base(x.path), Module: jsModule(x.path), Names: renamed, Line: int(n.StartPoint().Row)})
		}
	}
	isDefault := false
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		if n.Child(i).Type() == "default" {
			isDefault = true
			break
		}
	}
	if !isDefault {
		return
	}
	if d := n.ChildByFieldName("declaration"); d != nil {
		if nm := d.ChildByFieldName("name"); nm != nil {
			x.g.DefaultExport = x.text(nm)
		}
		return
	}
	if v := n.ChildByFieldName("value"); v != nil {
		switch v.Type() {
		case "identifier":
			x.g.DefaultExport = x.text(v)
		case "function_expression", "class", "function":
			if nm := v.ChildByFieldName("name"); nm != nil {
				x.g.DefaultExport = x.text(nm)
			}
		}
	}
}

// jsTestFile reports the Jest/Mocha/Vitest test file conventions.
func jsTestFile(p string) bool {
	base := path.Base(p)
	return strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.Contains("/"+p, "/__tests__/")
}

// jsTestFns are the functions that open test blocks.
var jsTestFns = SetOf("describe it test context suite specify fdescribe fit xdescribe xit")

func jsTestBlock(x *extractor, n *sitter.Node, caps []capNode) {
	fn := x.text(capture(caps, "test.fn"))
	if !jsTestFns[fn] {
		return
	}
	name := x.stringValue(capture(caps, "test.name"))
	x.g.Tests = append(x.g.Tests, Test{Ord: -1, Name: cut(name, 200), Kind: TestJS, Span: spanOf(n)})
}

// jsTestModules are the test runners' modules: a file importing one is a
// test file wherever it lives (ava, vitest, node:test, mocha, jest, uvu,
// tap).
var jsTestModules = SetOf("ava vitest node:test test mocha @jest/globals uvu tap @japa/runner")

// jsTestDirs are directories whose scripts are tests by convention (ava's
// and node --test's test/, mocha's).
var jsTestDirs = []string{"/test/", "/tests/", "/__tests__/", "/spec/"}

// jsIsTestFile reports a test file: by its name or directory, or by the
// test runner it imports.
func jsIsTestFile(x *extractor) bool {
	if jsTestFile(x.path) {
		return true
	}
	p := "/" + x.path
	for _, d := range jsTestDirs {
		if strings.Contains(p, d) {
			return true
		}
	}
	if b := strings.TrimSuffix(path.Base(x.path), path.Ext(x.path)); b == "test" || b == "tests" {
		return true
	}
	for _, im := range x.g.Imports {
		if jsTestModules[im.Path] || strings.HasPrefix(im.Path, "vitest/") {
			return true
		}
	}
	return false
}

// jsFinish keeps test blocks in test files only and nests them.
func jsFinish(x *extractor) {
	if len(x.g.Tests) > 0 && !jsIsTestFile(x) {
		x.g.Tests = nil
	}
	x.nestTests()
}

// nestTests orders the test blocks and prefixes each name with the names
// of the blocks around it ("Cart > adds items").
func (x *extractor) nestTests() {
	tests := x.g.Tests
	sort.SliceStable(tests, func(i, j int) bool { return tests[i].Span.StartByte < tests[j].Span.StartByte })
	var stack []int
	names := make([]string, len(tests))
	for i, t := range tests {
		for len(stack) > 0 && !tests[stack[len(stack)-1]].Span.Contains(t.Span.StartByte) {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			names[i] = names[stack[len(stack)-1]] + " > " + t.Name
		} else {
			names[i] = t.Name
		}
		stack = append(stack, i)
	}
	for i := range tests {
		tests[i].Name = names[i]
	}
}
