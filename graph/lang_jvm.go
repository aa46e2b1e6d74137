package graph

import (
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// Java, Kotlin and C#: packages or namespaces are the module identity,
// imports name classes (or namespaces), bare calls inside a class may call
// its methods (implicit this), and tests are annotated methods.

var javaSpec = &langSpec{
	query: `
(package_declaration (_) @package.name) @package
(import_declaration) @import
(method_invocation object: (_) @qual name: (identifier) @name) @call
(method_invocation !object name: (identifier) @name) @call
(object_creation_expression type: (type_identifier) @name) @new
(object_creation_expression type: (generic_type (type_identifier) @name)) @new
(object_creation_expression type: (scoped_type_identifier (type_identifier) @name .)) @new
(method_reference (identifier) @name .) @ref
(local_variable_declaration) @local
(formal_parameter) @local
(enhanced_for_statement) @local
(field_declaration) @field
(class_declaration) @type
(interface_declaration) @type
`,
	family:        "java",
	packageModule: true,
	implicitThis:  true,
	builtins:      SetOf("println printf format"),
	chain: chainSpec{
		member:  map[string][2]string{"field_access": {"object", "field"}},
		newExpr: map[string]string{"object_creation_expression": "type"},
		ident:   map[string]bool{"identifier": true},
		self:    map[string]bool{"this": true},
		super:   map[string]bool{"super": true},
		wrap:    map[string]bool{"parenthesized_expression": true},
	},
	chainHook: invocationHook("method_invocation", "object", "name"),
	types: typeSpec{
		names: map[string]bool{"type_identifier": true, "identifier": true},
		wrap:  map[string]bool{"generic_type": true},
	},
	handlers: map[string]func(*extractor, *sitter.Node, []capNode){
		"package": func(x *extractor, _ *sitter.Node, caps []capNode) {
			x.g.Package = strings.Join(strings.Fields(x.text(capture(caps, "package.name"))), "")
		},
		"import": javaImport,
		"local":  javaLocal,
		"field":  javaField,
		"type":   javaType,
	},
	finish: annotatedTests(TestJUnit, regexp.MustCompile(`@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b`)),
}

var kotlinSpec = &langSpec{
	query: `
(package_header (identifier) @package.name) @package
(import_header) @import
(call_expression . (simple_identifier) @name) @call
(call_expression . (navigation_expression . (_) @qual . (navigation_suffix (simple_identifier) @name) .)) @call
(callable_reference (simple_identifier) @name .) @ref
(property_declaration) @local
(parameter) @local
(class_parameter) @field
(class_declaration) @type
(object_declaration) @type
`,
	family:        "kotlin",
	packageModule: true,
	implicitThis:  true,
	builtins:      SetOf("println print listOf mutableListOf mapOf mutableMapOf setOf mutableSetOf arrayOf require check error requireNotNull checkNotNull lazy run let apply also with repeat TODO emptyList emptyMap"),
	chain: chainSpec{
		ident: map[string]bool{"simple_identifier": true},
		self:  map[string]bool{"this_expression": true},
		super: map[string]bool{"super_expression": true},
		wrap:  map[string]bool{"parenthesized_expression": true},
	},
	chainHook: kotlinChain,
	types: typeSpec{
		names: map[string]bool{"type_identifier": true},
		wrap:  map[string]bool{"user_type": true, "nullable_type": true, "type_reference": true},
	},
	handlers: map[string]func(*extractor, *sitter.Node, []capNode){
		"package": func(x *extractor, _ *sitter.Node, caps []capNode) {
			x.g.Package = strings.Join(strings.Fields(x.text(capture(caps, "package.name"))), "")
		},
		"import": kotlinImport,
		"local":  kotlinLocal,
		"field":  kotlinClassParameter,
		"type":   kotlinType,
	},
	finish: annotatedTests(TestJUnit, regexp.MustCompile(`@(Test|ParameterizedTest|RepeatedTest)\b`)),
}

var csharpSpec = &langSpec{
	query: `
(namespace_declaration name: (_) @package.name) @package
(file_scoped_namespace_declaration name: (_) @package.name) @package
(using_directive) @import
(invocation_expression function: (identifier) @name) @call
(invocation_expression function: (generic_name (identifier) @name)) @call
(invocation_expression function: (member_access_expression expression: _ @qual name: (identifier) @name)) @call
(invocation_expression function: (member_access_expression expression: _ @qual name: (generic_name (identifier) @name))) @call
(object_creation_expression type: (identifier) @name) @new
(object_creation_expression type: (generic_name (identifier) @name)) @new
(object_creation_expression type: (qualified_name name: (identifier) @name)) @new
(local_declaration_statement) @local
(parameter) @local
(foreach_statement) @local
(field_declaration) @field
(property_declaration) @field
(class_declaration) @type
(struct_declaration) @type
(interface_declaration) @type
(record_declaration) @type
`,
	family:        "csharp",
	packageModule: true,
	implicitThis:  true,
	builtins:      SetOf("nameof typeof sizeof"),
	chain: chainSpec{
		member:  map[string][2]string{"member_access_expression": {"expression", "name"}},
		call:    map[string]string{"invocation_expression": "function"},
		newExpr: map[string]string{"object_creation_expression": "type"},
		ident:   map[string]bool{"identifier": true},
		self:    map[string]bool{"this": true, "this_expression": true},
		super:   map[string]bool{"base": true, "base_expression": true},
		wrap:    map[string]bool{"parenthesized_expression": true, "await_expression": true},
	},
	types: typeSpec{
		names:     map[string]bool{"identifier": true},
		qualified: map[string][2]string{"qualified_name": {"qualifier", "name"}},
		wrap:      map[string]bool{"nullable_type": true, "generic_name": true},
	},
	handlers: map[string]func(*extractor, *sitter.Node, []capNode){
		"package": func(x *extractor, _ *sitter.Node, caps []capNode) {
			if x.g.Package == "" {
				x.g.Package = strings.Join(strings.Fields(x.text(capture(caps, "package.name"))), "")
			}
		},
		"import": csharpUsing,
		"local":  csharpLocal,
		"field":  csharpField,
		"type":   csharpType,
	},
	finish: annotatedTests(TestCSharp, regexp.MustCompile(`\[\s*(Test|TestCase|TestMethod|Fact|Theory|DataTestMethod)\b`)),
}

func init() {
	for _, s := range []*langSpec{javaSpec, kotlinSpec, csharpSpec} {
		s.rules = langRules{namespace: nsPackage, matchModule: matchPackage, defaultBinding: LastComponent, testFiles: jvmTestFiles}
	}
	kotlinSpec.rules.resultType = colonResult
	registerSpec(javaSpec, "java")
	registerSpec(kotlinSpec, "kotlin")
	registerSpec(csharpSpec, "csharp")
}

// matchPackage: an import names the declared package (Java, Kotlin, C#,
// PHP).
func matchPackage(_ *Resolver, ref, _, _, pkg string) bool { return ref == pkg }

// jvmTestFiles: FooTest or FooTests beside it, or under src/test/ for a
// file under src/main/.
func jvmTestFiles(dir, name, ext string) []string {
	switch ext {
	case ".java", ".kt", ".cs":
	default:
		return nil
	}
	out := []string{joinPath(dir, name+"Test"+ext), joinPath(dir, name+"Tests"+ext)}
	if i := strings.Index(dir, "src/main/"); i >= 0 {
		td := dir[:i] + "src/test/" + dir[i+len("src/main/"):]
		out = append(out, joinPath(td, name+"Test"+ext), joinPath(td, name+"Tests"+ext))
	}
	return out
}

// invocationHook analyses call nodes that carry object and name fields
// (Java method_invocation) as a call result for chains: Foo.create().run().
func invocationHook(nodeType, objField, nameField string) func(*extractor, *sitter.Node, int) (chain, bool) {
	return func(x *extractor, n *sitter.Node, depth int) (chain, bool) {
		if n.Type() != nodeType {
			return chain{}, false
		}
		name := n.ChildByFieldName(nameField)
		if name == nil {
			return chain{root: rootUnknown}, true
		}
		obj := n.ChildByFieldName(objField)
		switch {
		case obj == nil:
			return chain{root: rootType, typ: rawType{name: x.text(name), call: true}}, true
		case x.spec.chain.ident[obj.Type()]:
			return chain{root: rootType, typ: rawType{name: x.text(name), qual: x.text(obj), call: true}}, true
		}
		return chain{root: rootUnknown}, true
	}
}

// dottedImport splits "a.b.C" into the package "a.b" and name "C".
func dottedImport(p string) (pkg, name string) {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

func javaImport(x *extractor, n *sitter.Node, _ []capNode) {
	var path string
	wildcard := false
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		switch c.Type() {
		case "asterisk":
			wildcard = true
		case "scoped_identifier", "identifier":
			path = x.text(c)
		}
	}
	if path == "" {
		return
	}
	im := Import{Path: path, Line: int(n.StartPoint().Row)}
	switch {
	case wildcard:
		im.Module = path
		im.Names = []ImportName{{Name: "*"}}
	default:
		// import a.b.C binds C from package a.b; import static a.b.C.m
		// binds m from class a.b.C (memberOfModule resolves it).
		pkg, name := dottedImport(path)
		im.Module = pkg
		im.Names = []ImportName{{Name: name}}
	}
	x.g.Imports = append(x.g.Imports, im)
}

func javaLocal(x *extractor, n *sitter.Node, _ []capNode) {
	switch n.Type() {
	case "local_variable_declaration":
		t := n.ChildByFieldName("type")
		var rt rawType
		if t != nil && x.text(t) != "var" {
			rt = x.rawTypeOf(t)
		}
		scope := n.Parent()
		if scope == nil {
			return
		}
		for _, d := range symbols.FieldChildren(n, "declarator") {
			name := d.ChildByFieldName("name")
			if name == nil {
				continue
			}
			vt := rt
			if !vt.known() {
				vt = x.javaValueType(d.ChildByFieldName("value"))
			}
			x.bind(x.text(name), n.EndByte(), scope.StartByte(), scope.EndByte(), vt)
		}
	case "formal_parameter":
		fn := n.Parent()
		if fn != nil {
			fn = fn.Parent()
		}
		name := n.ChildByFieldName("name")
		if fn == nil || name == nil {
			return
		}
		x.bind(x.text(name), fn.StartByte(), fn.StartByte(), fn.EndByte(), x.rawTypeOf(n.ChildByFieldName("type")))
	case "enhanced_for_statement":
		name := n.ChildByFieldName("name")
		if name == nil {
			return
		}
		rt := rawType{}
		if t := n.ChildByFieldName("type"); t != nil && x.text(t) != "var" {
			rt = x.rawTypeOf(t)
		}
		x.bind(x.text(name), n.StartByte(), n.StartByte(), n.EndByte(), rt)
	}
}

// javaValueType infers the type of new Foo() and Foo.create() initializers.
func (x *extractor) javaValueType(v *sitter.Node) rawType {
	if v == nil {
		return rawType{}
	}
	switch v.Type() {
	case "object_creation_expression":
		return x.rawTypeOf(v.ChildByFieldName("type"))
	case "method_invocation":
		if c, ok := invocationHook("method_invocation", "object", "name")(x, v, 0); ok && c.root == rootType {
			return c.typ
		}
	}
	return rawType{}
}

func javaField(x *extractor, n *sitter.Node, _ []capNode) {
	owner := x.ownerAt(int(n.StartByte()))
	if owner == "" {
		return
	}
	rt := x.rawTypeOf(n.ChildByFieldName("type"))
	for _, d := range symbols.FieldChildren(n, "declarator") {
		name := d.ChildByFieldName("name")
		if name == nil {
			continue
		}
		vt := rt
		if !vt.known() {
			vt = x.javaValueType(d.ChildByFieldName("value"))
		}
		if vt.known() {
			x.fields = append(x.fields, pendingField{owner: owner, name: x.text(name), typ: vt})
		}
	}
}

func javaType(x *extractor, n *sitter.Node, _ []capNode) {
	name := n.ChildByFieldName("name")
	if name == nil {
		return
	}
	pt := pendingType{name: x.text(name), iface: n.Type() == "interface_declaration"}
	var collect func(c *sitter.Node, depth int)
	collect = func(c *sitter.Node, depth int) {
		if c == nil || depth > 3 {
			return
		}
		switch c.Type() {
		case "type_identifier", "generic_type", "scoped_type_identifier":
			if rt := x.rawTypeOf(c); rt.known() {
				pt.bases = append(pt.bases, rt)
			}
			return
		}
		for _, k := range NamedChildren(c) {
			collect(k, depth+1)
		}
	}
	for _, f := range []string{"superclass", "interfaces"} {
		collect(n.ChildByFieldName(f), 0)
	}
	for _, c := range NamedChildren(n) {
		if c.Type() == "extends_interfaces" {
			collect(c, 0)
		}
	}
	x.types = append(x.types, pt)
}

// annotatedTests marks methods whose annotations (between the start of
// the definition and its name) match re, and JUnit 3 test* methods of
// TestCase subclasses.
func annotatedTests(kind TestKind, re *regexp.Regexp) func(*extractor) {
	return func(x *extractor) {
		testCase := map[string]bool{}
		for _, t := range x.types {
			for _, b := range t.bases {
				if strings.HasSuffix(b.name, "TestCase") {
					testCase[t.name] = true
				}
			}
		}
		for i, s := range x.syms {
			if s.Kind != symbols.KindMethod && s.Kind != symbols.KindFunction {
				continue
			}
			head := ""
			if s.Span.StartByte <= s.NameSpan.StartByte && s.NameSpan.StartByte <= len(x.src) {
				head = string(x.src[s.Span.StartByte:s.NameSpan.StartByte])
			}
			if re.MatchString(head) || (strings.HasPrefix(s.Name, "test") && testCase[LastComponent(s.Container)]) {
				x.addTest(i, kind)
			}
		}
	}
}

// kotlinChain reads Kotlin expressions, whose grammar has no field names.
func kotlinChain(x *extractor, n *sitter.Node, depth int) (chain, bool) {
	switch n.Type() {
	case "navigation_expression":
		kids := NamedChildren(n)
		if len(kids) < 2 {
			return chain{root: rootUnknown}, true
		}
		last := kids[len(kids)-1]
		prop := firstNamedChild(last)
		if last.Type() != "navigation_suffix" || prop == nil || prop.Type() != "simple_identifier" {
			return chain{root: rootUnknown}, true
		}
		c := x.chainOf(kids[0], depth+1)
		if c.root == rootUnknown || len(c.fields) >= maxFields {
			return chain{root: rootUnknown}, true
		}
		c.fields = append(c.fields, x.text(prop))
		return c, true
	case "call_expression":
		kids := NamedChildren(n)
		if len(kids) > 0 && kids[0].Type() == "simple_identifier" {
			return chain{root: rootType, typ: rawType{name: x.text(kids[0]), call: true}}, true
		}
		return chain{root: rootUnknown}, true
	}
	return chain{}, false
}

func kotlinImport(x *extractor, n *sitter.Node, _ []capNode) {
	var path, alias string
	wildcard := false
	for _, c := range NamedChildren(n) {
		switch c.Type() {
		case "identifier":
			path = strings.Join(strings.Fields(x.text(c)), "")
		case "import_alias":
			if a := firstNamedChild(c); a != nil {
				alias = x.text(a)
			}
		case "wildcard_import":
			wildcard = true
		}
	}
	if path == "" {
		return
	}
	im := Import{Path: path, Line: int(n.StartPoint().Row)}
	if wildcard || strings.HasSuffix(x.text(n), ".*") {
		im.Module = path
		im.Names = []ImportName{{Name: "*"}}
	} else {
		pkg, name := dottedImport(path)
		im.Module = pkg
		im.Names = []ImportName{{Name: name, Alias: alias}}
	}
	x.g.Imports = append(x.g.Imports, im)
}

func kotlinLocal(x *extractor, n *sitter.Node, _ []capNode) {
	switch n.Type() {
	case "property_declaration":
		var nameNode, typeNode, value *sitter.Node
		for _, c := range NamedChildren(n) {
			switch c.Type() {
			case "variable_declaration":
				kids := NamedChildren(c)
				if len(kids) > 0 {
					nameNode = kids[0]
				}
				if len(kids) > 1 {
					typeNode = kids[1]
				}
			case "binding_pattern_kind", "modifiers":
			default:
				if value == nil {
					value = c
				}
			}
		}
		if nameNode == nil {
			return
		}
		rt := x.rawTypeOf(typeNode)
		if !rt.known() {
			rt = chainType(x, value, kotlinChain) // Foo(): a constructor call or function result
		}
		encl := x.enclosing(int(n.StartByte()), true)
		switch {
		case encl >= 0 && symbols.IsFunctionKind(x.syms[encl].Kind):
			if scope := n.Parent(); scope != nil {
				x.bind(x.text(nameNode), n.EndByte(), scope.StartByte(), scope.EndByte(), rt)
			}
		case encl >= 0 && isTypeKind(x.syms[encl].Kind):
			if rt.known() {
				x.fields = append(x.fields, pendingField{owner: x.syms[encl].Name, name: x.text(nameNode), typ: rt})
			}
		default:
			x.fields = append(x.fields, pendingField{name: x.text(nameNode), typ: rt})
		}
	case "parameter":
		kids := NamedChildren(n)
		fn := n.Parent()
		if fn != nil {
			fn = fn.Parent()
		}
		if len(kids) == 0 || fn == nil {
			return
		}
		var rt rawType
		if len(kids) > 1 {
			rt = x.rawTypeOf(kids[1])
		}
		x.bind(x.text(kids[0]), fn.StartByte(), fn.StartByte(), fn.EndByte(), rt)
	}
}

// kotlinClassParameter records val/var primary-constructor parameters as
// members.
func kotlinClassParameter(x *extractor, n *sitter.Node, _ []capNode) {
	var name, typ *sitter.Node
	member := false
	for _, c := range NamedChildren(n) {
		switch c.Type() {
		case "binding_pattern_kind":
			member = true
		case "simple_identifier":
			name = c
		case "user_type", "nullable_type":
			typ = c
		}
	}
	owner := x.ownerAt(int(n.StartByte()))
	if !member || name == nil || owner == "" {
		return
	}
	if rt := x.rawTypeOf(typ); rt.known() {
		x.fields = append(x.fields, pendingField{owner: owner, name: x.text(name), typ: rt})
	}
}

func kotlinType(x *extractor, n *sitter.Node, _ []capNode) {
	var pt pendingType
	for _, c := range NamedChildren(n) {
		switch c.Type() {
		case "type_identifier", "simple_identifier":
			if pt.name == "" {
				pt.name = x.text(c)
			}
		case "delegation_specifier":
			inner := firstNamedChild(c)
			if inner != nil && inner.Type() == "constructor_invocation" {
				inner = firstNamedChild(inner)
			}
			if rt := x.rawTypeOf(inner); rt.known() {
				pt.bases = append(pt.bases, rt)
			}
		}
	}
	if strings.HasPrefix(strings.TrimSpace(x.text(n)), "interface") {
		pt.iface = true
	}
	if pt.name != "" {
		x.types = append(x.types, pt)
	}
}

func csharpUsing(x *extractor, n *sitter.Node, _ []capNode) {
	var alias, path string
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		switch {
		case n.FieldNameForChild(i) == "name":
			alias = x.text(c)
		case c.Type() == "qualified_name" || (c.Type() == "identifier" && c.IsNamed()):
			path = strings.Join(strings.Fields(x.text(c)), "")
		}
	}
	if path == "" && alias != "" {
		path, alias = alias, "" // using System; parses the name as the path
	}
	if path == "" {
		return
	}
	im := Import{Path: path, Module: path, Alias: alias, Line: int(n.StartPoint().Row)}
	if alias == "" {
		// using Namespace; (or using static Type;) imports every member.
		im.Names = []ImportName{{Name: "*"}}
	}
	x.g.Imports = append(x.g.Imports, im)
}

func csharpLocal(x *extractor, n *sitter.Node, _ []capNode) {
	switch n.Type() {
	case "local_declaration_statement":
		scope := n.Parent()
		if scope == nil {
			return
		}
		for _, vd := range NamedChildren(n) {
			if vd.Type() != "variable_declaration" {
				continue
			}
			x.csharpDeclarators(vd, func(name string, rt rawType) {
				x.bind(name, n.EndByte(), scope.StartByte(), scope.EndByte(), rt)
			})
		}
	case "parameter":
		name := n.ChildByFieldName("name")
		fn := n.Parent()
		if fn != nil {
			fn = fn.Parent()
		}
		if name == nil || fn == nil {
			return
		}
		x.bind(x.text(name), fn.StartByte(), fn.StartByte(), fn.EndByte(), x.rawTypeOf(n.ChildByFieldName("type")))
	case "foreach_statement":
		if name := n.ChildByFieldName("left"); name != nil && name.Type() == "identifier" {
			rt := rawType{}
			if t := n.ChildByFieldName("type"); t != nil && t.Type() != "implicit_type" {
				rt = x.rawTypeOf(t)
			}
			x.bind(x.text(name), n.StartByte(), n.StartByte(), n.EndByte(), rt)
		}
	}
}

// csharpDeclarators calls fn for each declarator of a variable_declaration
// with its declared or inferred type.
func (x *extractor) csharpDeclarators(vd *sitter.Node, fn func(string, rawType)) {
	t := vd.ChildByFieldName("type")
	var rt rawType
	if t != nil && t.Type() != "implicit_type" {
		rt = x.rawTypeOf(t)
	}
	for _, d := range NamedChildren(vd) {
		if d.Type() != "variable_declarator" {
			continue
		}
		kids := NamedChildren(d)
		if len(kids) == 0 {
			continue
		}
		vt := rt
		if !vt.known() && len(kids) > 1 {
			v := kids[len(kids)-1]
			if v.Type() == "equals_value_clause" {
				v = firstNamedChild(v)
			}
			if v != nil && v.Type() == "object_creation_expression" {
				vt = x.rawTypeOf(v.ChildByFieldName("type"))
			} else if v != nil && v.Type() == "invocation_expression" {
				if f := v.ChildByFieldName("function"); f != nil {
					vt = x.callResult(f)
				}
			}
		}
		fn(x.text(kids[0]), vt)
	}
}

func csharpField(x *extractor, n *sitter.Node, _ []capNode) {
	owner := x.ownerAt(int(n.StartByte()))
	if owner == "" {
		return
	}
	if n.Type() == "property_declaration" {
		name := n.ChildByFieldName("name")
		if rt := x.rawTypeOf(n.ChildByFieldName("type")); name != nil && rt.known() {
			x.fields = append(x.fields, pendingField{owner: owner, name: x.text(name), typ: rt})
		}
		return
	}
	for _, vd := range NamedChildren(n) {
		if vd.Type() == "variable_declaration" {
			x.csharpDeclarators(vd, func(name string, rt rawType) {
				if rt.known() {
					x.fields = append(x.fields, pendingField{owner: owner, name: name, typ: rt})
				}
			})
		}
	}
}

func csharpType(x *extractor, n *sitter.Node, _ []capNode) {
	name := n.ChildByFieldName("name")
	if name == nil {
		return
	}
	pt := pendingType{name: x.text(name), iface: n.Type() == "interface_declaration"}
	for _, c := range NamedChildren(n) {
		if c.Type() != "base_list" {
			continue
		}
		for _, b := range NamedChildren(c) {
			if rt := x.rawTypeOf(b); rt.known() {
				pt.bases = append(pt.bases, rt)
			}
		}
	}
	x.types = append(x.types, pt)
}
