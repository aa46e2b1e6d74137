package graph

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

var goSpec = &langSpec{
	query: `
(package_clause (package_identifier) @package.name) @package
(import_spec) @import
(call_expression function: (identifier) @name) @call
(call_expression function: (selector_expression operand: (_) @qual field: (field_identifier) @name)) @call
(call_expression function: (index_expression operand: (identifier) @name)) @call
(call_expression function: (index_expression operand: (selector_expression operand: (_) @qual field: (field_identifier) @name))) @call
(type_conversion_expression type: (generic_type type: (type_identifier) @name)) @call
(type_conversion_expression type: (generic_type type: (qualified_type package: (_) @qual name: (_) @name))) @call
(argument_list (identifier) @name) @ref
(argument_list (index_expression operand: (identifier) @name)) @ref
(argument_list (selector_expression operand: (_) @qual field: (field_identifier) @name)) @ref
(keyed_element (literal_element) (literal_element (identifier) @name)) @ref
(keyed_element (literal_element) (literal_element (selector_expression operand: (_) @qual field: (field_identifier) @name))) @ref
(assignment_statement right: (expression_list (selector_expression operand: (_) @qual field: (field_identifier) @name))) @ref
(assignment_statement right: (expression_list (identifier) @name)) @ref
(short_var_declaration right: (expression_list (identifier) @name)) @ref
(return_statement (expression_list (identifier) @name)) @ref
(short_var_declaration) @local
(var_spec) @local
(function_declaration parameters: (parameter_list (parameter_declaration name: (identifier) @name type: (_) @type))) @param
(method_declaration receiver: (parameter_list (parameter_declaration name: (identifier) @name type: (_) @type))) @param
(method_declaration parameters: (parameter_list (parameter_declaration name: (identifier) @name type: (_) @type))) @param
(func_literal parameters: (parameter_list (parameter_declaration name: (identifier) @name type: (_) @type))) @param
(function_declaration parameters: (parameter_list (variadic_parameter_declaration name: (identifier) @name type: (_) @type.variadic))) @param
(method_declaration parameters: (parameter_list (variadic_parameter_declaration name: (identifier) @name type: (_) @type.variadic))) @param
(func_literal parameters: (parameter_list (variadic_parameter_declaration name: (identifier) @name type: (_) @type.variadic))) @param
(function_declaration result: (parameter_list (parameter_declaration name: (identifier) @name type: (_) @type))) @param
(method_declaration result: (parameter_list (parameter_declaration name: (identifier) @name type: (_) @type))) @param
(func_literal result: (parameter_list (parameter_declaration name: (identifier) @name type: (_) @type))) @param
(range_clause) @local
(type_switch_statement alias: (expression_list) @local.names) @local
(field_declaration) @field
(type_spec name: (type_identifier) @type.name type: (interface_type) @type.iface) @type
(type_alias name: (type_identifier) @type.name type: (_) @type.alias) @type
(type_spec name: (type_identifier) @type.name type: [(slice_type) (array_type) (map_type) (channel_type)] @type.container) @type
`,
	family:   "go",
	module:   goModule,
	builtins: SetOf("append cap clear close complex copy delete imag len make max min new panic print println real recover bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable nil true false iota"),
	chain: chainSpec{
		member: map[string][2]string{"selector_expression": {"operand", "field"}},
		call:   map[string]string{"call_expression": "function"},
		ident:  map[string]bool{"identifier": true},
		wrap:   map[string]bool{"parenthesized_expression": true, "unary_expression": true},
		typed:  map[string]string{"composite_literal": "type", "type_assertion_expression": "type"},
		index:  map[string]string{"index_expression": "operand"},
	},
	types: typeSpec{
		names:     map[string]bool{"type_identifier": true},
		qualified: map[string][2]string{"qualified_type": {"package", "name"}},
		wrap:      map[string]bool{"pointer_type": true, "parenthesized_type": true},
		generic:   map[string]string{"generic_type": "type"},
		elem:      map[string]string{"slice_type": "element", "array_type": "element", "map_type": "value", "channel_type": "value"},
	},
	handlers: map[string]func(*extractor, *sitter.Node, []capNode){
		"package": func(x *extractor, _ *sitter.Node, caps []capNode) {
			if x.g.Package == "" {
				x.g.Package = x.text(capture(caps, "package.name"))
			}
		},
		"import": goImport,
		"local":  goLocal,
		"field":  goField,
		"type":   goType,
	},
	finish:  goFinish,
	prelude: map[string]bool{"package_clause": true, "import_declaration": true},
}

func init() {
	goSpec.rules = langRules{
		namespace:      nsDirPackage,
		matchModule:    goMatchModule,
		private:        func(name string) bool { return !goExported(name) },
		matchTyped:     (*Resolver).goMatchTyped,
		embedding:      true,
		unqualified:    goDotImport,
		outsideMethods: true,
		sameSignature:  goSameSignature,
		structural:     true,
		anonStructs:    true,
		builtinTypes:   true,
		stdTypes:       true,
		methodResult:   (*Resolver).goMethodResult,
		resultType:     goResultType,
		defaultBinding: goPackageName,
		testFiles: func(dir, name, ext string) []string {
			if ext != ".go" || strings.HasSuffix(name, "_test") {
				return nil
			}
			return []string{joinPath(dir, name+"_test.go")}
		},
	}
	registerSpec(goSpec, "go")
}

// goMatchModule: an import path names the package directory, under its
// go.mod's module path.
func goMatchModule(r *Resolver, ref, p, _, _ string) bool {
	dir := path.Dir(p)
	if ref == dir {
		return true
	}
	if dir != "." && path.Base(ref) != path.Base(dir) {
		return false // an import path ends with the package directory
	}
	if mp := r.goModulePath(dir); mp != "" {
		root := r.goModuleRoot(dir, mp)
		rel := strings.TrimPrefix(strings.TrimPrefix(dir, root), "/")
		if root == "." {
			rel = dir
		}
		if rel == "." || rel == "" {
			return ref == mp
		}
		return ref == mp+"/"+rel
	}
	return strings.HasSuffix(ref, "/"+dir)
}

// goModuleRoot finds the workspace directory of the go.mod whose module
// path is mp, walking up from dir while the parent has the same module.
func (r *Resolver) goModuleRoot(dir, mp string) string {
	cur := dir
	for cur != "." && cur != "/" && cur != "" {
		parent := path.Dir(cur)
		if r.goModulePath(parent) != mp {
			return cur
		}
		cur = parent
	}
	return "."
}

func (r *Resolver) goModulePath(dir string) string {
	r.mu.Lock()
	m, ok := r.modPath[dir]
	r.mu.Unlock()
	if ok {
		return m
	}
	m = r.ix.GoModulePath(dir)
	r.mu.Lock()
	r.modPath[dir] = m
	r.mu.Unlock()
	return m
}

// goDotImport: import . "pkg" uses the package's exported names
// unqualified.
func goDotImport(r *Resolver, s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	cg, err := r.graph(s.Path)
	if err != nil || cg == nil {
		return 0, "", false, err
	}
	for _, im := range cg.Imports {
		if im.Alias == "." && r.ModuleMatch(im.Module, d, dg) {
			return Exact, "dot import of " + im.Module, true, nil
		}
	}
	return 0, "", false, nil
}

// goSameSignature compares parameter and result types with package
// qualifiers and names removed; signatures that do not parse compare
// equal.
func goSameSignature(a, b, name string) bool {
	pa, ra, ok1 := goSigTypes(a, name)
	pb, rb, ok2 := goSigTypes(b, name)
	if !ok1 || !ok2 {
		return true
	}
	return pa == pb && ra == rb
}

// goResultType reads the k-th result of a Go function's signature
// (named results, a function type's result).
func goResultType(sig, name string, k int) (string, bool) {
	i := strings.Index(sig, name)
	if i < 0 {
		return "", false
	}
	rest := sig[i+len(name):]
	if strings.HasPrefix(rest, "[") {
		rest = skipBalanced(rest, '[', ']')
	}
	if f, ok := strings.CutPrefix(strings.TrimSpace(rest), "func"); ok {
		rest = f // type F func(…) R: a call of an F gives an R
	}
	if !strings.HasPrefix(rest, "(") {
		return "", false
	}
	res := strings.TrimSpace(skipBalanced(rest, '(', ')'))
	if strings.HasPrefix(res, "(") {
		inner := strings.TrimSuffix(strings.TrimPrefix(res, "("), ")")
		list := splitTopLevel(inner, ',')
		if k >= len(list) {
			return "", false
		}
		res = strings.TrimSpace(list[k])
		if f := strings.Fields(res); len(f) >= 2 && IsIdentifier(f[0]) {
			res = strings.TrimSpace(res[len(f[0]):]) // named result (not *Cache[K, V])
		}
	} else if k > 0 {
		return "", false
	}
	return res, true
}

// goModule is the package directory.
func goModule(p string) string { return path.Dir(p) }

var goMajor = regexp.MustCompile(`^v[0-9]+$`)

// goPackageName guesses the package name of an import path: its last
// element without a major-version element, ".vN" suffix or "go-" prefix.
func goPackageName(p string) string {
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	if goMajor.MatchString(last) && len(parts) > 1 {
		last = parts[len(parts)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	last = strings.TrimPrefix(last, "go-")
	last = strings.TrimSuffix(last, "-go")
	last = strings.TrimSuffix(last, ".go")
	return strings.ReplaceAll(last, "-", "_")
}

func goImport(x *extractor, n *sitter.Node, _ []capNode) {
	p := n.ChildByFieldName("path")
	if p == nil {
		return
	}
	ip, err := strconv.Unquote(x.text(p))
	if err != nil || ip == "" {
		return
	}
	im := Import{Path: ip, Module: ip, Line: int(n.StartPoint().Row)}
	if a := n.ChildByFieldName("name"); a != nil {
		im.Alias = x.text(a)
	}
	x.g.Imports = append(x.g.Imports, im)
}

// goLocal binds the names of a declaration inside a function; a var at
// package level becomes a package-level Field instead.
func goLocal(x *extractor, n *sitter.Node, caps []capNode) {
	switch n.Type() {
	case "short_var_declaration":
		left := NamedChildren(n.ChildByFieldName("left"))
		right := NamedChildren(n.ChildByFieldName("right"))
		x.goBindList(n, left, right, nil)
	case "var_spec":
		names := symbols.FieldChildren(n, "name")
		var typ *sitter.Node
		if t := n.ChildByFieldName("type"); t != nil {
			typ = t
		}
		values := NamedChildren(n.ChildByFieldName("value"))
		if i := x.enclosing(int(n.StartByte()), true); i < 0 || !symbols.IsFunctionKind(x.syms[i].Kind) {
			for k, nm := range names {
				rt := x.goDeclType(typ, values, k, len(names))
				if typ != nil && typ.Type() == "struct_type" {
					rt = rawType{name: AnonStructName("var", x.text(nm))}
				}
				x.fields = append(x.fields, pendingField{name: x.text(nm), typ: rt})
			}
			return
		}
		x.goBindList(n, names, values, typ)
	case "range_clause":
		scope := n.Parent()
		if scope == nil {
			return
		}
		right := n.ChildByFieldName("right")
		for i, nm := range NamedChildren(n.ChildByFieldName("left")) {
			if nm.Type() != "identifier" {
				continue
			}
			// for k, v := range xs: v is an element of xs.
			if i == 1 && x.goBindElem(x.text(nm), n.EndByte(), scope, right) {
				continue
			}
			x.bind(x.text(nm), n.EndByte(), scope.StartByte(), scope.EndByte(), rawType{})
		}
	case "type_switch_statement":
		names := NamedChildren(capture(caps, "local.names"))
		for _, nm := range names {
			x.bind(x.text(nm), n.StartByte(), n.StartByte(), n.EndByte(), rawType{})
		}
		if len(names) != 1 {
			return
		}
		// switch x := v.(type) { case T: … }: x is a T in a case of one type.
		for _, tc := range NamedChildren(n) {
			if tc.Type() != "type_case" {
				continue
			}
			if types := symbols.FieldChildren(tc, "type"); len(types) == 1 {
				x.bind(x.text(names[0]), tc.StartByte(), tc.StartByte(), tc.EndByte(), x.rawTypeOf(types[0]))
			}
		}
	}
}

// goBindList binds left[i] to the type of right[i] (or the declared type)
// for the rest of the enclosing block.
func (x *extractor) goBindList(decl *sitter.Node, left, right []*sitter.Node, typ *sitter.Node) {
	scope := decl.Parent()
	for decl.Type() == "var_spec" && scope != nil && (scope.Type() == "var_spec_list" || scope.Type() == "var_declaration") {
		scope = scope.Parent() // var_spec → (var_spec_list →) var_declaration → block
	}
	if scope == nil {
		return
	}
	for i, nm := range left {
		if nm.Type() != "identifier" {
			continue
		}
		rt := x.goDeclType(typ, right, i, len(left))
		if typ == nil && len(right) == len(left) && x.goViaValue(right[i]) {
			// x := d.opts, x := d.open(): calls on x resolve through the
			// expression.
			if x.bindVia(x.text(nm), decl.EndByte(), scope.StartByte(), scope.EndByte(), right[i], false) {
				continue
			}
		}
		if typ == nil && len(right) == len(left) && right[i].Type() == "func_literal" {
			// f := func(...) T {...}: f() is a T.
			x.bindLocal(x.text(nm), local{at: decl.EndByte(), scopeStart: scope.StartByte(), scopeEnd: scope.EndByte(),
				ret: x.goResultType(right[i].ChildByFieldName("result"))})
			continue
		}
		if typ == nil && len(right) == 1 && len(left) > 1 && right[0].Type() == "call_expression" {
			// a, b, err := x.m(): the i-th result.
			if x.bindResult(x.text(nm), decl.EndByte(), scope.StartByte(), scope.EndByte(), right[0], i) {
				continue
			}
		}
		x.bind(x.text(nm), decl.EndByte(), scope.StartByte(), scope.EndByte(), rt)
	}
}

// goViaValue reports initializers resolved through their expression: field
// chains, indexing and method calls.
func (x *extractor) goViaValue(v *sitter.Node) bool {
	v = goDeref(v)
	switch v.Type() {
	case "selector_expression", "index_expression":
		return true
	case "call_expression":
		fn := v.ChildByFieldName("function")
		if fn != nil && fn.Type() == "identifier" {
			// f() of a local f of a named function type.
			l, ok := x.lookup(x.text(fn), fn.StartByte())
			return ok && !l.def && l.typ.known() && !l.ret.known()
		}
		return fn != nil && fn.Type() == "selector_expression"
	}
	return false
}

// goConstraint replaces a type parameter of function fn by its
// constraint when that names one type (func f[T Sizer](x T): x's methods
// are Sizer's).
func (x *extractor) goConstraint(fn *sitter.Node, rt rawType) rawType {
	if rt.qual != "" || !rt.known() {
		return rt
	}
	for _, d := range NamedChildren(fn.ChildByFieldName("type_parameters")) {
		if d.Type() != "type_parameter_declaration" {
			continue
		}
		for _, nm := range symbols.FieldChildren(d, "name") {
			if x.text(nm) != rt.name {
				continue
			}
			var c rawType
			if tc := d.ChildByFieldName("type"); tc != nil && tc.NamedChildCount() == 1 {
				c = x.rawTypeOf(tc.NamedChild(0))
			}
			if c.elem || x.spec.builtins[c.name] {
				c = rawType{}
			}
			c.elem = c.known() && rt.elem
			return c
		}
	}
	return rt
}

// goDeref looks through parentheses, &x and *x, which keep x's methods.
func goDeref(v *sitter.Node) *sitter.Node {
	for v != nil {
		switch v.Type() {
		case "parenthesized_expression":
			v = firstNamedChild(v)
			continue
		case "unary_expression":
			if op := v.ChildByFieldName("operator"); op != nil && (op.Type() == "&" || op.Type() == "*") {
				v = v.ChildByFieldName("operand")
				continue
			}
		}
		return v
	}
	return v
}

// goBindElem binds name to an element of the ranged expression.
func (x *extractor) goBindElem(name string, at uint32, scope, ranged *sitter.Node) bool {
	if ranged == nil {
		return false
	}
	if ranged.Type() == "identifier" {
		if l, ok := x.lookup(x.text(ranged), ranged.StartByte()); ok && l.via == nil {
			if l.typ.elem {
				t := l.typ
				t.elem = false
				x.bind(name, at, scope.StartByte(), scope.EndByte(), t)
				return true
			}
			if !l.typ.known() {
				return false
			}
			// A named slice or map type (type Peers []*Peer): its
			// element, through the type's declaration.
		}
	}
	return x.bindVia(name, at, scope.StartByte(), scope.EndByte(), ranged, true)
}

// goDeclType is the type of the i-th of n declared names.
func (x *extractor) goDeclType(typ *sitter.Node, values []*sitter.Node, i, n int) rawType {
	if typ != nil {
		return x.rawTypeOf(typ)
	}
	switch {
	case len(values) == n && i < len(values):
		return x.goValueType(values[i])
	case len(values) == 1 && i == 0:
		// a, err := f(): the first result's type.
		return x.goValueType(values[0])
	}
	return rawType{}
}

// goValueType infers the type of an initializer expression.
func (x *extractor) goValueType(v *sitter.Node) rawType {
	for depth := 0; v != nil && depth < 6; depth++ {
		switch v.Type() {
		case "composite_literal", "type_assertion_expression", "type_conversion_expression":
			t := v.ChildByFieldName("type")
			if t != nil && t.Type() == "generic_type" && v.Type() == "type_conversion_expression" {
				return x.callResult(t) // F[T](x) is a generic call
			}
			if t != nil && v.Type() == "composite_literal" {
				// []struct{…}{…}: a list of the literal's anonymous struct.
				st, elem := t, false
				if st.Type() == "slice_type" || st.Type() == "array_type" || st.Type() == "implicit_length_array_type" {
					st, elem = st.ChildByFieldName("element"), true
				}
				if st != nil && st.Type() == "struct_type" {
					if owner := x.goLiteralOwner(v); owner != "" {
						return rawType{name: owner, elem: elem}
					}
				}
			}
			return x.rawTypeOf(t)
		case "unary_expression", "parenthesized_expression":
			v = v.ChildByFieldName("operand")
			if v == nil {
				return rawType{}
			}
			continue
		case "call_expression":
			fn := v.ChildByFieldName("function")
			if fn == nil {
				return rawType{}
			}
			if fn.Type() == "identifier" && (x.text(fn) == "new" || x.text(fn) == "make") {
				// new(T) is a *T, make(T, …) a T.
				if args := NamedChildren(v.ChildByFieldName("arguments")); len(args) >= 1 && (len(args) == 1 || x.text(fn) == "make") {
					return x.rawTypeOf(args[0])
				}
				return rawType{}
			}
			if fn.Type() == "index_expression" {
				fn = fn.ChildByFieldName("operand")
				if fn == nil {
					return rawType{}
				}
			}
			if fn.Type() == "identifier" {
				if l, ok := x.lookup(x.text(fn), fn.StartByte()); ok && l.ret.known() {
					return l.ret // a local closure's result
				}
			}
			return x.callResult(fn)
		case "identifier":
			if l, ok := x.lookup(x.text(v), v.StartByte()); ok {
				return l.typ
			}
			return rawType{}
		}
		return rawType{}
	}
	return rawType{}
}

// goResultType is the (first) result type of a function's result node.
func (x *extractor) goResultType(res *sitter.Node) rawType {
	if res == nil {
		return rawType{}
	}
	if res.Type() == "parameter_list" {
		params := NamedChildren(res)
		if len(params) == 0 {
			return rawType{}
		}
		if t := params[0].ChildByFieldName("type"); t != nil {
			return x.rawTypeOf(t)
		}
		return rawType{}
	}
	return x.rawTypeOf(res)
}

// goStructOwner names the type whose fields struct_type st declares: the
// declared type, or for an anonymous struct a name no Go type can have —
// "Outer.field" for a field's struct, "var.name" for a package-level
// variable's — under which its own fields are recorded.
func (x *extractor) goStructOwner(st *sitter.Node, depth int) string {
	parent := st.Parent()
	if parent == nil || depth > 4 {
		return ""
	}
	switch parent.Type() {
	case "type_spec":
		return x.text(parent.ChildByFieldName("name"))
	case "field_declaration":
		names := symbols.FieldChildren(parent, "name")
		list := parent.Parent()
		if len(names) == 0 || list == nil || list.Parent() == nil || list.Parent().Type() != "struct_type" {
			return ""
		}
		if outer := x.goStructOwner(list.Parent(), depth+1); outer != "" {
			return AnonStructName(outer, x.text(names[0]))
		}
	case "var_spec":
		names := symbols.FieldChildren(parent, "name")
		if len(names) == 1 {
			if i := x.enclosing(int(parent.StartByte()), true); i < 0 || !symbols.IsFunctionKind(x.syms[i].Kind) {
				return AnonStructName("var", x.text(names[0]))
			}
		}
	case "slice_type", "array_type", "implicit_length_array_type":
		if lit := parent.Parent(); lit != nil && lit.Type() == "composite_literal" {
			return x.goLiteralOwner(lit)
		}
	case "composite_literal":
		return x.goLiteralOwner(parent)
	}
	return ""
}

// goLiteralOwner names the anonymous struct of a composite literal
// assigned to a local (tests := []struct{…}{…}, a test table) after the
// function and the variable: "TestX.tests", "Cache.Run.tests" (no position, so a spliced
// version names it as a full extraction does); "" elsewhere.
func (x *extractor) goLiteralOwner(lit *sitter.Node) string {
	list := lit.Parent()
	if list == nil || list.Type() != "expression_list" {
		return ""
	}
	decl := list.Parent()
	if decl == nil || decl.Type() != "short_var_declaration" {
		return ""
	}
	right, left := NamedChildren(decl.ChildByFieldName("right")), NamedChildren(decl.ChildByFieldName("left"))
	fn := x.enclosing(int(lit.StartByte()), true)
	if fn < 0 || !symbols.IsFunctionKind(x.syms[fn].Kind) || len(left) != len(right) {
		return ""
	}
	for i, v := range right {
		if v.StartByte() == lit.StartByte() && left[i].Type() == "identifier" {
			return AnonStructName(x.syms[fn].QualifiedName(), x.text(left[i]))
		}
	}
	return ""
}

// AnonStructName is the name under which the fields of an anonymous
// struct type are recorded (FileGraph.Fields Owner): the owner's name and
// the field or variable whose type it is, joined by a dot.
func AnonStructName(owner, field string) string { return owner + "." + field }

// isAnonStruct reports a name made by AnonStructName.
func isAnonStruct(name string) bool { return strings.Contains(name, ".") }

// goField records struct field types (embedded fields as bases).
func goField(x *extractor, n *sitter.Node, _ []capNode) {
	list := n.Parent()
	if list == nil || list.Type() != "field_declaration_list" {
		return
	}
	st := list.Parent()
	if st == nil || st.Type() != "struct_type" {
		return
	}
	owner := x.goStructOwner(st, 0)
	t := n.ChildByFieldName("type")
	if t == nil || owner == "" {
		return
	}
	rt := x.rawTypeOf(t)
	names := symbols.FieldChildren(n, "name")
	if t.Type() == "struct_type" && len(names) > 0 {
		rt = rawType{name: AnonStructName(owner, x.text(names[0]))}
	}
	if len(names) == 0 {
		if rt.known() {
			x.fields = append(x.fields, pendingField{owner: owner, name: rt.name, typ: rt, embedded: true})
			x.addBase(owner, rt, false)
		}
		return
	}
	for _, nm := range names {
		x.fields = append(x.fields, pendingField{owner: owner, name: x.text(nm), typ: rt})
	}
}

// addBase adds a base type to the pending declaration of owner.
func (x *extractor) addBase(owner string, base rawType, iface bool) {
	for i := range x.types {
		if x.types[i].name == owner {
			x.types[i].bases = append(x.types[i].bases, base)
			return
		}
	}
	x.types = append(x.types, pendingType{name: owner, container: x.containerAt(owner), bases: []rawType{base}, iface: iface})
}

// containerAt returns the Container of the type symbol named name.
func (x *extractor) containerAt(name string) string {
	for _, s := range x.syms {
		if s.Name == name {
			switch s.Kind {
			case symbols.KindStruct, symbols.KindClass, symbols.KindInterface, symbols.KindType, symbols.KindTrait, symbols.KindEnum:
				return s.Container
			}
		}
	}
	return ""
}

// goType records interfaces and their embedded interfaces, aliases, and
// the element type of named containers (a Field named ElemStep).
func goType(x *extractor, n *sitter.Node, caps []capNode) {
	name := x.text(capture(caps, "type.name"))
	if c := capture(caps, "type.container"); c != nil && name != "" {
		// type List []*T: an element of a List is a T.
		if rt := x.rawTypeOf(c); rt.known() && rt.elem {
			rt.elem = false
			x.fields = append(x.fields, pendingField{owner: name, name: ElemStep, typ: rt})
		}
		return
	}
	if a := capture(caps, "type.alias"); a != nil && name != "" {
		if rt := x.rawTypeOf(a); rt.known() && !rt.elem {
			x.types = append(x.types, pendingType{name: name, container: x.containerAt(name), bases: []rawType{rt}, alias: true})
		}
		return
	}
	it := capture(caps, "type.iface")
	if name == "" || it == nil {
		return
	}
	pt := pendingType{name: name, container: x.containerAt(name), iface: true}
	for _, c := range NamedChildren(it) {
		if c.Type() == "type_elem" {
			if rt := x.rawTypeOf(firstNamedChild(c)); rt.known() {
				pt.bases = append(pt.bases, rt)
			}
		}
	}
	for i := range x.types {
		if x.types[i].name == name {
			x.types[i].iface = true
			x.types[i].bases = append(x.types[i].bases, pt.bases...)
			return
		}
	}
	x.types = append(x.types, pt)
}

// goFinish recognises tests: TestXxx, BenchmarkXxx, FuzzXxx and ExampleXxx
// functions (and Test methods of suites) in _test.go files.
func goFinish(x *extractor) {
	if !strings.HasSuffix(x.path, "_test.go") {
		return
	}
	for i, s := range x.syms {
		if s.Kind != symbols.KindFunction && s.Kind != symbols.KindMethod {
			continue
		}
		if s.Kind == symbols.KindMethod && !strings.HasPrefix(s.Name, "Test") {
			continue
		}
		switch {
		case goTestName(s.Name, "Test"):
			x.addTest(i, TestGo)
		case goTestName(s.Name, "Benchmark"):
			x.addTest(i, TestGoBench)
		case goTestName(s.Name, "Fuzz"):
			x.addTest(i, TestGoFuzz)
		case goTestName(s.Name, "Example") && s.Kind == symbols.KindFunction:
			x.addTest(i, TestGoExample)
		}
	}
}

// goTestName applies the go test rule: the prefix followed by nothing or
// by a character that is not a lower-case letter.
func goTestName(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	rest := name[len(prefix):]
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}
