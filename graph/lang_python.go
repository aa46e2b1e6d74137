package graph

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

var pythonSpec = &langSpec{
	query: `
(import_statement) @import
(import_from_statement) @import
(call function: (identifier) @name) @call
(call function: (attribute object: (_) @qual attribute: (identifier) @name)) @call
(decorator (identifier) @name) @ref
(decorator (attribute object: (_) @qual attribute: (identifier) @name)) @ref
(call arguments: (argument_list (identifier) @name)) @ref
(call arguments: (argument_list (attribute object: (_) @qual attribute: (identifier) @name))) @ref
(keyword_argument value: (identifier) @name) @ref
(keyword_argument value: (attribute object: (_) @qual attribute: (identifier) @name)) @ref
(assignment) @local
(parameters) @local
(lambda_parameters) @local
(for_statement) @local
(for_in_clause) @local
(with_item) @local
(class_definition) @type
(function_definition) @local
(attribute object: (_) @qual attribute: (identifier) @name) @access
(decorated_definition) @decorated
`,
	family:   "python",
	builtins: SetOf("print len isinstance issubclass range str int float bool bytes list dict set frozenset tuple super getattr setattr hasattr delattr type repr enumerate zip map filter sorted reversed min max sum any all iter next open id hash format vars dir callable object abs round divmod chr ord hex bin oct property staticmethod classmethod NotImplementedError ValueError TypeError KeyError RuntimeError Exception AttributeError IndexError OSError StopIteration AssertionError True False None"),
	module:   pythonModule,
	hoisted:  true,
	chain: chainSpec{
		member: map[string][2]string{"attribute": {"object", "attribute"}},
		call:   map[string]string{"call": "function"},
		ident:  map[string]bool{"identifier": true},
		self:   map[string]bool{"self": true, "cls": true},
		super:  map[string]bool{"super": true},
		wrap:   map[string]bool{"parenthesized_expression": true, "await": true},
		literal: map[string]bool{"string": true, "concatenated_string": true, "integer": true, "float": true,
			"list": false, "dictionary": false, "set": false, "tuple": false,
			"list_comprehension": false, "dictionary_comprehension": false, "set_comprehension": false},
	},
	types: typeSpec{
		names:     map[string]bool{"identifier": true},
		qualified: map[string][2]string{"attribute": {"object", "attribute"}},
		wrap:      map[string]bool{"type": true},
		generic:   map[string]string{},
	},
	handlers: map[string]func(*extractor, *sitter.Node, []capNode){
		"import":    pyImport,
		"local":     pyLocal,
		"type":      pyClass,
		"decorated": pyAccessor,
	},
	finish: pyFinish,
	access: pyAccess,
}

func init() {
	pythonSpec.rules = langRules{
		matchModule: pyMatchModule,
		unqualified: starImports,
		moduleFiles: func(mod string) []string {
			p := strings.ReplaceAll(mod, ".", "/")
			return []string{p + "/__init__.py", p + ".py", "src/" + p + "/__init__.py", "src/" + p + ".py"}
		},
		resultType: arrowResult,
		defaultBinding: func(p string) string {
			if i := strings.IndexByte(p, '.'); i >= 0 {
				return p[:i] // import a.b binds a
			}
			return p
		},
		testFiles: pyTestFiles,
	}
	registerSpec(pythonSpec, "python")
}

// pyMatchModule: import a.b reaches module x.a.b under a source root x
// (src/…) — not when x is a package (import json is the standard
// library's, not a package's own pkg.json) —, and module a.b of a tree
// whose root is package x itself.
func pyMatchModule(r *Resolver, ref, _, module, _ string) bool {
	if strings.HasSuffix(ref, "."+module) {
		return true
	}
	root, ok := strings.CutSuffix(module, "."+ref)
	if !ok {
		return false
	}
	g, err := r.graph(strings.ReplaceAll(root, ".", "/") + "/__init__.py")
	return err == nil && g == nil
}

// pyTestFiles: test_x.py or x_test.py beside it, or under tests/ or test/
// at the root or beside the package, mirroring the tree.
func pyTestFiles(dir, name, ext string) []string {
	if ext != ".py" || strings.HasPrefix(name, "test_") || strings.HasSuffix(name, "_test") {
		return nil
	}
	out := []string{joinPath(dir, "test_"+name+".py"), joinPath(dir, name+"_test.py"), joinPath(dir, "tests", "test_"+name+".py")}
	parts := strings.Split(dir, "/")
	for i := 0; i <= len(parts); i++ {
		head := strings.Join(parts[:i], "/")
		for _, td := range []string{"tests", "test"} {
			out = append(out, joinPath(head, td, "test_"+name+".py"))
			if i < len(parts) {
				out = append(out, joinPath(head, td, strings.Join(parts[i:], "/"), "test_"+name+".py"))
			}
		}
	}
	return out
}

// pythonModule is the dotted module of a file: a/b/c.py → a.b.c,
// a/b/__init__.py → a.b.
func pythonModule(p string) string {
	p = strings.TrimSuffix(p, path.Ext(p))
	p = strings.TrimSuffix(p, "/__init__")
	if p == "__init__" {
		return ""
	}
	return strings.ReplaceAll(p, "/", ".")
}

// pyPackage is the package a relative import of level 1 refers to.
func pyPackage(filePath string) string {
	if strings.HasSuffix(filePath, "/__init__.py") || filePath == "__init__.py" {
		return pythonModule(filePath)
	}
	m := pythonModule(filePath)
	if i := strings.LastIndexByte(m, '.'); i >= 0 {
		return m[:i]
	}
	return ""
}

// pyResolve makes a relative module absolute.
func pyResolve(filePath string, level int, mod string) string {
	if level == 0 {
		return mod
	}
	base := pyPackage(filePath)
	for i := 1; i < level; i++ {
		if j := strings.LastIndexByte(base, '.'); j >= 0 {
			base = base[:j]
		} else {
			base = ""
		}
	}
	switch {
	case base == "":
		return mod
	case mod == "":
		return base
	}
	return base + "." + mod
}

func pyImport(x *extractor, n *sitter.Node, _ []capNode) {
	line := int(n.StartPoint().Row)
	if n.Type() == "import_statement" {
		for _, c := range symbols.FieldChildren(n, "name") {
			im := Import{Line: line}
			switch c.Type() {
			case "dotted_name":
				im.Path = x.text(c)
			case "aliased_import":
				im.Path = x.text(c.ChildByFieldName("name"))
				im.Alias = x.text(c.ChildByFieldName("alias"))
			default:
				continue
			}
			im.Module = im.Path
			x.g.Imports = append(x.g.Imports, im)
		}
		return
	}
	mn := n.ChildByFieldName("module_name")
	if mn == nil {
		return
	}
	im := Import{Line: line, Path: strings.Join(strings.Fields(x.text(mn)), "")}
	mod := im.Path
	if mn.Type() == "relative_import" {
		dots := len(mod) - len(strings.TrimLeft(mod, "."))
		im.Level = dots
		mod = mod[dots:]
	}
	im.Module = pyResolve(x.path, im.Level, mod)
	for _, c := range NamedChildren(n) {
		switch c.Type() {
		case "wildcard_import":
			im.Names = append(im.Names, ImportName{Name: "*"})
		}
	}
	for _, c := range symbols.FieldChildren(n, "name") {
		switch c.Type() {
		case "dotted_name":
			im.Names = append(im.Names, ImportName{Name: x.text(c)})
		case "aliased_import":
			im.Names = append(im.Names, ImportName{Name: x.text(c.ChildByFieldName("name")), Alias: x.text(c.ChildByFieldName("alias"))})
		}
	}
	x.g.Imports = append(x.g.Imports, im)
}

// pyAnnotation unwraps Optional[X] and "X" annotations to X.
func pyAnnotation(n *sitter.Node) *sitter.Node {
	for i := 0; n != nil && i < 4; i++ {
		switch n.Type() {
		case "type":
			n = firstNamedChild(n)
		case "generic_type", "subscript":
			kids := NamedChildren(n)
			if len(kids) == 2 && len(kids[0].Type()) > 0 {
				// Optional[X], Type[X]: the parameter is the type.
				n = kids[1]
				if n.Type() == "type_parameter" {
					n = firstNamedChild(n)
				}
				continue
			}
			return nil
		default:
			return n
		}
	}
	return n
}

// pyContainers are the generic containers whose elements are of their
// one type parameter.
var pyContainers = SetOf("list List Sequence MutableSequence Iterable Iterator AsyncIterable AsyncIterator Collection set Set frozenset FrozenSet deque Deque Generator AsyncGenerator")

// pyType is rawTypeOf for annotations.
func (x *extractor) pyType(n *sitter.Node) rawType {
	if n == nil {
		return rawType{}
	}
	inner := n
	if inner.Type() == "type" {
		inner = firstNamedChild(inner)
	}
	if inner != nil && (inner.Type() == "generic_type" || inner.Type() == "subscript") {
		kids := NamedChildren(inner)
		if len(kids) > 0 {
			base := x.text(kids[0])
			if base == "Optional" || strings.HasSuffix(base, ".Optional") || base == "Type" || base == "type" {
				return x.rawTypeOf(pyAnnotation(inner))
			}
			if pyContainers[LastComponent(base)] && len(kids) == 2 {
				// list[T], typing.Sequence[T]: iterating or indexing gives a T.
				if rt := x.rawTypeOf(pyAnnotation(kids[1])); rt.known() && !rt.elem {
					rt.elem = true
					return rt
				}
				return rawType{}
			}
			return x.rawTypeOf(kids[0])
		}
	}
	if inner != nil && inner.Type() == "string" {
		s := strings.Trim(x.text(inner), `"'`)
		if IsIdentifier(s) {
			return rawType{name: s}
		}
		return rawType{}
	}
	return x.rawTypeOf(inner)
}

// IsIdentifier reports an ASCII identifier.
func IsIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// pyValueType infers the type of an assigned value: Foo(…) and mod.Foo(…)
// are instances (or results of calling a function, decided at query time).
func (x *extractor) pyValueType(v *sitter.Node) rawType {
	for i := 0; v != nil && i < 4; i++ {
		switch v.Type() {
		case "call":
			fn := v.ChildByFieldName("function")
			if fn == nil {
				return rawType{}
			}
			return x.callResult(fn)
		case "parenthesized_expression", "await":
			v = firstNamedChild(v)
			continue
		case "identifier":
			if l, ok := x.lookup(x.text(v), v.StartByte()); ok {
				return l.typ
			}
		}
		return rawType{}
	}
	return rawType{}
}

func pyLocal(x *extractor, n *sitter.Node, _ []capNode) {
	switch n.Type() {
	case "assignment":
		left := n.ChildByFieldName("left")
		if left == nil {
			return
		}
		var rt rawType
		if t := n.ChildByFieldName("type"); t != nil {
			rt = x.pyType(t)
		} else if r := n.ChildByFieldName("right"); r != nil {
			rt = x.pyValueType(r)
		}
		off := int(n.StartByte())
		encl := x.enclosing(off, true)
		inFunc := encl >= 0 && symbols.IsFunctionKind(x.syms[encl].Kind)
		switch left.Type() {
		case "identifier":
			name := x.text(left)
			switch {
			case inFunc && n.ChildByFieldName("type") == nil && x.pyBindValue(name, n, n.ChildByFieldName("right")):
			case inFunc:
				x.bindInFunction(name, n.StartByte(), rt)
			case encl >= 0 && x.syms[encl].Kind == symbols.KindClass:
				x.fields = append(x.fields, pendingField{owner: x.syms[encl].Name, name: name, typ: rt})
			default:
				x.fields = append(x.fields, pendingField{name: name, typ: rt})
			}
		case "attribute":
			obj := left.ChildByFieldName("object")
			attr := left.ChildByFieldName("attribute")
			if obj != nil && attr != nil && inFunc && x.text(obj) == "self" {
				if owner := x.selfType(encl); owner != "" && rt.known() {
					x.fields = append(x.fields, pendingField{owner: owner, name: x.text(attr), typ: rt})
				}
			}
		case "pattern_list", "tuple_pattern", "list_pattern":
			if inFunc {
				for _, id := range pyNames(left) {
					x.bindInFunction(x.text(id), n.StartByte(), rawType{})
				}
			}
		}
	case "function_definition":
		name := n.ChildByFieldName("name")
		if name != nil && n.StartByte() > 0 {
			x.bindDef(x.text(name), n.StartByte()-1)
		}
	case "parameters", "lambda_parameters":
		fn := n.Parent()
		if fn == nil {
			return
		}
		for _, p := range NamedChildren(n) {
			var name *sitter.Node
			var rt rawType
			switch p.Type() {
			case "identifier":
				name = p
			case "typed_parameter":
				name = firstNamedChild(p)
				rt = x.pyType(p.ChildByFieldName("type"))
			case "default_parameter":
				name = p.ChildByFieldName("name")
			case "typed_default_parameter":
				name = p.ChildByFieldName("name")
				rt = x.pyType(p.ChildByFieldName("type"))
			case "list_splat_pattern", "dictionary_splat_pattern":
				name = firstNamedChild(p)
			}
			if name == nil || name.Type() != "identifier" {
				continue
			}
			s := x.text(name)
			if s == "self" || s == "cls" {
				continue
			}
			x.bind(s, fn.StartByte(), fn.StartByte(), fn.EndByte(), rt)
		}
	case "for_statement", "for_in_clause":
		left := n.ChildByFieldName("left")
		if left == nil {
			return
		}
		if n.Type() == "for_statement" && left.Type() == "identifier" {
			// for x in xs: x is an element of xs.
			s, e := x.functionScope(int(n.StartByte()))
			if x.bindVia(x.text(left), left.EndByte(), uint32(s), uint32(e), n.ChildByFieldName("right"), true) {
				return
			}
		}
		for _, id := range pyNames(left) {
			if n.Type() == "for_in_clause" {
				if p := n.Parent(); p != nil {
					x.bind(x.text(id), p.StartByte(), p.StartByte(), p.EndByte(), rawType{})
				}
				continue
			}
			x.bindInFunction(x.text(id), n.StartByte(), rawType{})
		}
	case "with_item":
		v := n.ChildByFieldName("value")
		if v == nil || v.Type() != "as_pattern" {
			return
		}
		alias := v.ChildByFieldName("alias")
		val := firstNamedChild(v)
		if alias == nil {
			return
		}
		ids := pyNames(alias)
		if len(ids) == 1 && x.pyBindValue(x.text(ids[0]), n, val) {
			return
		}
		for _, id := range ids {
			var rt rawType
			if len(ids) == 1 {
				rt = x.pyValueType(val)
			}
			x.bindInFunction(x.text(id), n.StartByte(), rt)
		}
	}
}

// pyBindValue binds name, assigned in a function by statement n, to the
// value's expression when calls on it resolve through that expression (a
// method's result, a field chain, another name, an instance); false when
// they cannot.
func (x *extractor) pyBindValue(name string, n, value *sitter.Node) bool {
	if value == nil {
		return false
	}
	s, e := x.functionScope(int(n.StartByte()))
	return x.bindVia(name, n.EndByte(), uint32(s), uint32(e), value, false)
}

// pyNames returns the identifiers a target pattern binds.
func pyNames(n *sitter.Node) []*sitter.Node {
	if n == nil {
		return nil
	}
	if n.Type() == "identifier" {
		return []*sitter.Node{n}
	}
	var out []*sitter.Node
	for _, c := range NamedChildren(n) {
		switch c.Type() {
		case "identifier":
			out = append(out, c)
		case "pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "as_pattern_target", "list_splat_pattern", "parenthesized_expression":
			out = append(out, pyNames(c)...)
		}
	}
	return out
}

// pyClass records a class and its base classes.
func pyClass(x *extractor, n *sitter.Node, _ []capNode) {
	name := x.text(n.ChildByFieldName("name"))
	if name == "" {
		return
	}
	pt := pendingType{name: name}
	if i := x.enclosing(int(n.ChildByFieldName("name").StartByte()), false); i >= 0 {
		pt.container = x.syms[i].Container
	}
	if sc := n.ChildByFieldName("superclasses"); sc != nil {
		for _, b := range NamedChildren(sc) {
			if rt := x.rawTypeOf(b); rt.known() {
				pt.bases = append(pt.bases, rt)
				if rt.name == "Protocol" || rt.name == "ABC" {
					pt.iface = true
				}
			}
		}
	}
	x.types = append(x.types, pt)
}

// pyTestFile reports pytest's default test file names.
func pyTestFile(p string) bool {
	base := path.Base(p)
	return strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
}

// pyFinish recognises pytest functions and classes and unittest methods.
func pyFinish(x *extractor) {
	testFile := pyTestFile(x.path)
	testCase := map[string]bool{} // classes deriving from a TestCase
	for _, t := range x.types {
		for _, b := range t.bases {
			if strings.HasSuffix(b.name, "TestCase") || (b.qual != "" && strings.HasSuffix(b.qual+"."+b.name, "TestCase")) {
				testCase[t.name] = true
			}
		}
	}
	for i, s := range x.syms {
		parent := -1
		if s.Parent >= 0 && s.Parent < i {
			parent = s.Parent
		}
		switch s.Kind {
		case symbols.KindFunction:
			if testFile && parent < 0 && strings.HasPrefix(s.Name, "test") {
				x.addTest(i, TestPytest)
			}
		case symbols.KindMethod:
			if parent < 0 || x.syms[parent].Kind != symbols.KindClass || !strings.HasPrefix(s.Name, "test") {
				continue
			}
			cls := x.syms[parent].Name
			switch {
			case testCase[cls]:
				x.addTest(i, TestUnittest)
			case testFile && strings.HasPrefix(cls, "Test"):
				x.addTest(i, TestPytest)
			}
		case symbols.KindClass:
			if testCase[s.Name] {
				x.addTest(i, TestUnittest)
			} else if testFile && strings.HasPrefix(s.Name, "Test") && parent < 0 {
				x.addTest(i, TestPytest)
			}
		}
	}
}

// pyAccess says how attribute n is used: assigned (x.p = v), read and
// assigned (x.p += v), deleted (del x.p: neither), else read.
func pyAccess(_ *extractor, n *sitter.Node) (read, write bool) {
	p := n.Parent()
	if p == nil {
		return true, false
	}
	switch p.Type() {
	case "assignment", "augmented_assignment":
		if l := p.ChildByFieldName("left"); l != nil && l.Equal(n) {
			return p.Type() == "augmented_assignment", true
		}
	case "delete_statement":
		return false, false
	}
	return true, false
}

// pyAccessor records a method decorated @property, @cached_property
// (functools', werkzeug's …) or @p.setter as an accessor of its class; a
// getter's return annotation is the member's type.
func pyAccessor(x *extractor, n *sitter.Node, _ []capNode) {
	def := n.ChildByFieldName("definition")
	if def == nil || def.Type() != "function_definition" {
		return
	}
	name := def.ChildByFieldName("name")
	if name == nil {
		return
	}
	ord := x.enclosing(int(name.StartByte()), false)
	if ord < 0 || x.syms[ord].Kind != symbols.KindMethod || x.syms[ord].Name != x.text(name) {
		return
	}
	for _, d := range NamedChildren(n) {
		if d.Type() != "decorator" {
			continue
		}
		e := firstNamedChild(d)
		if e == nil {
			continue
		}
		var set bool
		switch e.Type() {
		case "identifier":
		case "attribute":
			if obj := e.ChildByFieldName("object"); obj != nil && x.text(obj) == x.syms[ord].Name && x.text(e.ChildByFieldName("attribute")) == "setter" {
				set = true // @p.setter
			}
		default:
			continue
		}
		if !set && !pyGetterDecorators[LastComponent(x.text(e))] {
			continue
		}
		x.g.Accessors = append(x.g.Accessors, Accessor{Ord: ord, Set: set})
		if rt := x.pyType(def.ChildByFieldName("return_type")); !set && rt.known() {
			x.g.memberAt = append(x.g.memberAt, int(n.StartByte()))
			x.fields = append(x.fields, pendingField{owner: x.selfType(ord), name: x.syms[ord].Name, typ: rt})
		}
		return
	}
}

// pyGetterDecorators make a method a getter: property, and
// functools.cached_property or its look-alikes (werkzeug, Django).
var pyGetterDecorators = SetOf("property cached_property")
