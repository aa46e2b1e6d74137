package graph

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// Ruby and PHP.

var rubySpec = &langSpec{
	query: `
(call receiver: (_) @qual method: (identifier) @name) @call
(call !receiver method: (identifier) @name) @call
(call receiver: (constant) @name method: (identifier) @method) @new
(call receiver: (scope_resolution scope: (_) @qual name: (constant) @name) method: (identifier) @method) @new
(call method: (identifier) @import.fn arguments: (argument_list . (string) @import.path)) @import
(assignment) @local
(method_parameters) @local
(block_parameters) @local
(class) @type
(call method: (identifier) @test.fn arguments: (argument_list . [(string) (constant)] @test.name)) @test
`,
	family:         "ruby",
	builtinsAlways: true,
	module:         func(p string) string { return strings.TrimSuffix(p, path.Ext(p)) },
	implicitThis:   true,
	builtins: SetOf("require require_relative load puts print p pp raise attr_accessor attr_reader attr_writer include extend " +
		"private protected public module_function describe it context before after let subject expect to eq new lambda proc loop"),
	chain: chainSpec{
		member: map[string][2]string{"call": {"receiver", "method"}, "scope_resolution": {"scope", "name"}},
		ident:  map[string]bool{"identifier": true, "constant": true},
		self:   map[string]bool{"self": true},
		super:  map[string]bool{"super": true},
		wrap:   map[string]bool{"parenthesized_statements": true},
	},
	chainHook: rubyChain,
	types: typeSpec{
		names:     map[string]bool{"constant": true},
		qualified: map[string][2]string{"scope_resolution": {"scope", "name"}},
	},
	handlers: map[string]func(*extractor, *sitter.Node, []capNode){
		"import": rubyRequire,
		"local":  rubyLocal,
		"type":   rubyClass,
		"test":   rubySpecBlock,
	},
	finish: rubyFinish,
}

var phpSpec = &langSpec{
	query: `
(namespace_definition name: (_) @package.name) @package
(namespace_use_declaration) @import
(require_once_expression (_) @import.path) @import
(require_expression (_) @import.path) @import
(include_expression (_) @import.path) @import
(include_once_expression (_) @import.path) @import
(function_call_expression function: (name) @name) @call
(function_call_expression function: (qualified_name (name) @name .)) @call
(member_call_expression object: (_) @qual name: (name) @name) @call
(nullsafe_member_call_expression object: (_) @qual name: (name) @name) @call
(scoped_call_expression scope: (_) @qual name: (name) @name) @call
(object_creation_expression (name) @name) @new
(object_creation_expression (qualified_name (name) @name .)) @new
(assignment_expression) @local
(simple_parameter) @local
(property_declaration) @field
(property_promotion_parameter) @field
(class_declaration) @type
(interface_declaration) @type
`,
	family:        "php",
	packageModule: true,
	implicitThis:  false,
	builtins: SetOf("count strlen array_map array_filter array_keys array_values in_array isset unset empty is_null is_array " +
		"sprintf printf implode explode str_replace json_encode json_decode var_dump print_r die exit"),
	chain: chainSpec{
		member:  map[string][2]string{"member_access_expression": {"object", "name"}, "nullsafe_member_access_expression": {"object", "name"}},
		newExpr: map[string]string{},
		ident:   map[string]bool{"variable_name": true, "name": true, "qualified_name": true},
		self:    map[string]bool{"$this": true, "self": true, "static": true},
		super:   map[string]bool{"parent": true},
		wrap:    map[string]bool{"parenthesized_expression": true},
	},
	chainHook: phpChain,
	types: typeSpec{
		names: map[string]bool{"name": true},
		wrap:  map[string]bool{"named_type": true, "optional_type": true, "qualified_name": true},
	},
	handlers: map[string]func(*extractor, *sitter.Node, []capNode){
		"package": func(x *extractor, _ *sitter.Node, caps []capNode) {
			if x.g.Package == "" {
				x.g.Package = x.text(capture(caps, "package.name"))
			}
		},
		"import": phpImport,
		"local":  phpLocal,
		"field":  phpField,
		"type":   phpClass,
	},
	finish: phpTests,
}

func init() {
	// One global namespace; requires and sources name paths.
	rubySpec.rules = langRules{namespace: nsGlobal, globalFunctions: true, testFiles: func(dir, name, ext string) []string {
		if ext != ".rb" {
			return nil
		}
		return []string{joinPath(dir, name+"_test.rb"), joinPath(dir, name+"_spec.rb"), joinPath("test", name+"_test.rb"), joinPath("spec", name+"_spec.rb")}
	}}
	// Namespaced classes, global functions.
	phpSpec.rules = langRules{namespace: nsPackage, globalFunctions: true, matchModule: matchPackage, defaultBinding: LastComponent,
		testFiles: func(dir, name, ext string) []string {
			if ext != ".php" {
				return nil
			}
			return []string{joinPath(dir, name+"Test.php"), joinPath("tests", name+"Test.php")}
		}}
	registerSpec(rubySpec, "ruby")
	registerSpec(phpSpec, "php")
}

// rubyChain reads @ivar as a field of self and Foo.new as an instance.
func rubyChain(x *extractor, n *sitter.Node, _ int) (chain, bool) {
	switch n.Type() {
	case "instance_variable":
		return chain{root: rootSelf, fields: []string{strings.TrimPrefix(x.text(n), "@")}}, true
	case "call":
		m := n.ChildByFieldName("method")
		r := n.ChildByFieldName("receiver")
		if m != nil && x.text(m) == "new" && r != nil {
			if rt := x.rawTypeOf(r); rt.known() {
				return chain{root: rootType, typ: rt}, true
			}
		}
	}
	return chain{}, false
}

func rubyRequire(x *extractor, n *sitter.Node, caps []capNode) {
	fn := x.text(capture(caps, "import.fn"))
	if fn != "require" && fn != "require_relative" && fn != "load" {
		return
	}
	spec := strings.Trim(x.text(capture(caps, "import.path")), `"'`)
	if spec == "" {
		return
	}
	mod := strings.TrimSuffix(spec, ".rb")
	if fn == "require_relative" {
		mod = path.Clean(path.Join(path.Dir(x.path), mod))
	}
	x.g.Imports = append(x.g.Imports, Import{Path: spec, Module: mod, Line: int(n.StartPoint().Row)})
}

func rubyLocal(x *extractor, n *sitter.Node, _ []capNode) {
	switch n.Type() {
	case "assignment":
		left := n.ChildByFieldName("left")
		if left == nil {
			return
		}
		rt := chainType(x, n.ChildByFieldName("right"), rubyChain)
		switch left.Type() {
		case "identifier":
			x.bindInFunction(x.text(left), n.StartByte(), rt)
		case "instance_variable":
			if owner := x.ownerAt(int(n.StartByte())); owner != "" && rt.known() {
				x.fields = append(x.fields, pendingField{owner: owner, name: strings.TrimPrefix(x.text(left), "@"), typ: rt})
			}
		}
	case "method_parameters", "block_parameters":
		fn := n.Parent()
		if fn == nil {
			return
		}
		for _, p := range NamedChildren(n) {
			id := p
			if p.Type() != "identifier" {
				id = p.ChildByFieldName("name")
			}
			if id != nil && id.Type() == "identifier" {
				x.bind(x.text(id), fn.StartByte(), fn.StartByte(), fn.EndByte(), rawType{})
			}
		}
	}
}

func rubyClass(x *extractor, n *sitter.Node, _ []capNode) {
	name := n.ChildByFieldName("name")
	if name == nil {
		return
	}
	pt := pendingType{name: LastComponent(strings.ReplaceAll(x.text(name), "::", ":"))}
	if sc := n.ChildByFieldName("superclass"); sc != nil {
		if rt := x.rawTypeOf(firstNamedChild(sc)); rt.known() {
			pt.bases = append(pt.bases, rt)
		}
	}
	x.types = append(x.types, pt)
}

// rubySpecBlock records RSpec describe/context/it blocks in _spec.rb files.
func rubySpecBlock(x *extractor, n *sitter.Node, caps []capNode) {
	if !strings.HasSuffix(x.path, "_spec.rb") {
		return
	}
	switch x.text(capture(caps, "test.fn")) {
	case "describe", "context", "it", "specify", "example", "scenario", "feature":
	default:
		return
	}
	name := strings.Trim(x.text(capture(caps, "test.name")), `"'`)
	x.g.Tests = append(x.g.Tests, Test{Ord: -1, Name: cut(name, 200), Kind: TestRuby, Span: spanOf(n)})
}

// rubyFinish names nested RSpec blocks and marks minitest test_ methods.
func rubyFinish(x *extractor) {
	jsFinish(x)
	testClass := map[string]bool{}
	for _, t := range x.types {
		for _, b := range t.bases {
			if strings.HasSuffix(b.name, "Test") || strings.HasSuffix(b.name, "TestCase") {
				testClass[t.name] = true
			}
		}
	}
	for i, s := range x.syms {
		if s.Kind == symbols.KindMethod && strings.HasPrefix(s.Name, "test_") && testClass[LastComponent(s.Container)] {
			x.addTest(i, TestRuby)
		}
	}
}

// phpChain reads $this, self::, parent:: and new Foo() chains.
func phpChain(x *extractor, n *sitter.Node, _ int) (chain, bool) {
	switch n.Type() {
	case "relative_scope":
		switch strings.ToLower(x.text(n)) {
		case "parent":
			return chain{root: rootSuper}, true
		default:
			return chain{root: rootSelf}, true
		}
	case "object_creation_expression":
		for _, c := range NamedChildren(n) {
			if c.Type() == "name" || c.Type() == "qualified_name" {
				if rt := x.rawTypeOf(c); rt.known() {
					return chain{root: rootType, typ: rt}, true
				}
			}
		}
		return chain{root: rootUnknown}, true
	}
	return chain{}, false
}

// phpName reads a (possibly qualified) PHP name as text without spaces.
func (x *extractor) phpName(n *sitter.Node) string {
	return strings.TrimPrefix(strings.Join(strings.Fields(x.text(n)), ""), "\\")
}

func phpImport(x *extractor, n *sitter.Node, caps []capNode) {
	if p := capture(caps, "import.path"); p != nil {
		spec := strings.Trim(x.text(p), `"'`)
		if spec != "" && !strings.ContainsAny(spec, "$(") {
			x.g.Imports = append(x.g.Imports, Import{Path: spec, Module: path.Clean(path.Join(path.Dir(x.path), spec)), Line: int(n.StartPoint().Row)})
		}
		return
	}
	for _, cl := range NamedChildren(n) {
		if cl.Type() != "namespace_use_clause" {
			continue
		}
		var full, alias string
		for _, c := range NamedChildren(cl) {
			switch c.Type() {
			case "qualified_name", "name":
				full = x.phpName(c)
			case "namespace_aliasing_clause":
				if a := firstNamedChild(c); a != nil {
					alias = x.text(a)
				}
			}
		}
		if full == "" {
			continue
		}
		mod, name := "", full
		if i := strings.LastIndexByte(full, '\\'); i >= 0 {
			mod, name = full[:i], full[i+1:]
		}
		x.g.Imports = append(x.g.Imports, Import{Path: full, Module: mod, Names: []ImportName{{Name: name, Alias: alias}}, Line: int(n.StartPoint().Row)})
	}
}

func phpLocal(x *extractor, n *sitter.Node, _ []capNode) {
	switch n.Type() {
	case "assignment_expression":
		left := n.ChildByFieldName("left")
		right := n.ChildByFieldName("right")
		if left == nil {
			return
		}
		rt := chainType(x, right, phpChain)
		switch left.Type() {
		case "variable_name":
			x.bindInFunction(x.text(left), n.StartByte(), rt)
		case "member_access_expression":
			obj := left.ChildByFieldName("object")
			name := left.ChildByFieldName("name")
			if obj != nil && name != nil && x.text(obj) == "$this" && rt.known() {
				if owner := x.ownerAt(int(n.StartByte())); owner != "" {
					x.fields = append(x.fields, pendingField{owner: owner, name: x.text(name), typ: rt})
				}
			}
		}
	case "simple_parameter":
		name := n.ChildByFieldName("name")
		fn := n.Parent()
		if fn != nil {
			fn = fn.Parent()
		}
		if name == nil || fn == nil {
			return
		}
		x.bind(x.text(name), fn.StartByte(), fn.StartByte(), fn.EndByte(), x.rawTypeOf(n.ChildByFieldName("type")))
	}
}

func phpField(x *extractor, n *sitter.Node, _ []capNode) {
	owner := x.ownerAt(int(n.StartByte()))
	rt := x.rawTypeOf(n.ChildByFieldName("type"))
	if owner == "" || !rt.known() {
		return
	}
	if n.Type() == "property_promotion_parameter" {
		if name := n.ChildByFieldName("name"); name != nil {
			x.fields = append(x.fields, pendingField{owner: owner, name: strings.TrimPrefix(x.text(name), "$"), typ: rt})
		}
		return
	}
	for _, el := range NamedChildren(n) {
		if el.Type() != "property_element" {
			continue
		}
		if v := firstNamedChild(el); v != nil {
			x.fields = append(x.fields, pendingField{owner: owner, name: strings.TrimPrefix(x.text(v), "$"), typ: rt})
		}
	}
}

func phpClass(x *extractor, n *sitter.Node, _ []capNode) {
	name := n.ChildByFieldName("name")
	if name == nil {
		return
	}
	pt := pendingType{name: x.text(name), iface: n.Type() == "interface_declaration"}
	for _, c := range NamedChildren(n) {
		switch c.Type() {
		case "base_clause", "class_interface_clause":
			for _, b := range NamedChildren(c) {
				if rt := x.rawTypeOf(b); rt.known() {
					pt.bases = append(pt.bases, rt)
				}
			}
		}
	}
	x.types = append(x.types, pt)
}

// phpTests marks PHPUnit test* methods of *Test classes (and @test).
func phpTests(x *extractor) {
	for i, s := range x.syms {
		if s.Kind != symbols.KindMethod {
			continue
		}
		cls := LastComponent(s.Container)
		head := ""
		if s.DocSpan.EndByte > s.DocSpan.StartByte && s.DocSpan.EndByte <= len(x.src) {
			head = string(x.src[s.DocSpan.StartByte:s.DocSpan.EndByte])
		}
		if (strings.HasPrefix(s.Name, "test") && strings.HasSuffix(cls, "Test")) || strings.Contains(head, "@test") {
			x.addTest(i, TestPHPUnit)
		}
	}
}
