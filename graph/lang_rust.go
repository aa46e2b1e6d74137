package graph

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

var rustSpec = &langSpec{
	query: `
(use_declaration) @import
(call_expression function: (identifier) @name) @call
(call_expression function: (field_expression value: (_) @qual field: (field_identifier) @name)) @call
(call_expression function: (scoped_identifier path: (_) @qual name: (identifier) @name)) @call
(call_expression function: (generic_function function: (identifier) @name)) @call
(call_expression function: (generic_function function: (scoped_identifier path: (_) @qual name: (identifier) @name))) @call
(call_expression function: (generic_function function: (field_expression value: (_) @qual field: (field_identifier) @name))) @call
(macro_invocation macro: (identifier) @name) @call
(arguments (identifier) @name) @ref
(arguments (scoped_identifier path: (_) @qual name: (identifier) @name)) @ref
(let_declaration) @local
(parameter) @local
(for_expression) @local
(closure_parameters) @local
(function_item) @local
(field_declaration) @field
(impl_item) @type
(trait_item) @type
(struct_item) @type
`,
	family: "rust",
	module: rustModule,
	builtins: SetOf("println print eprintln eprint format write writeln vec assert assert_eq assert_ne debug_assert debug_assert_eq " +
		"panic todo unimplemented unreachable matches dbg Ok Err Some None Box String Vec include_str concat env cfg"),
	chain: chainSpec{
		member:  map[string][2]string{"field_expression": {"value", "field"}, "scoped_identifier": {"path", "name"}},
		call:    map[string]string{"call_expression": "function"},
		ident:   map[string]bool{"identifier": true, "crate": true, "super": true},
		self:    map[string]bool{"self": true, "Self": true},
		wrap:    map[string]bool{"parenthesized_expression": true, "try_expression": true, "reference_expression": true, "await_expression": true},
		newExpr: map[string]string{"struct_expression": "name"},
	},
	recvHook: rustRecv,
	types: typeSpec{
		names:     map[string]bool{"type_identifier": true, "identifier": true},
		qualified: map[string][2]string{"scoped_type_identifier": {"path", "name"}, "scoped_identifier": {"path", "name"}},
		generic:   map[string]string{"generic_type": "type", "reference_type": "type", "pointer_type": "type"},
	},
	handlers: map[string]func(*extractor, *sitter.Node, []capNode){
		"import": rustUse,
		"local":  rustLocal,
		"field":  rustField,
		"type":   rustType,
	},
	finish: rustTests,
}

func init() {
	rustSpec.rules = langRules{
		// use crate::a::b, self::b, a::b.
		matchModule: func(_ *Resolver, ref, _, module, _ string) bool {
			ref = strings.TrimPrefix(strings.TrimPrefix(ref, "crate::"), "self::")
			return ref == module || strings.HasSuffix(ref, "::"+module) || (module != "" && strings.HasSuffix(module, "::"+ref))
		},
		resultType:     arrowResult,
		defaultBinding: func(p string) string { return LastComponent(strings.ReplaceAll(p, "::", ":")) },
		testFiles: func(dir, name, ext string) []string {
			if ext != ".rs" {
				return nil
			}
			return []string{joinPath(dir, "tests", name+".rs"), joinPath(dir, "..", "tests", name+".rs"), joinPath(dir, name+"_test.rs")}
		},
	}
	registerSpec(rustSpec, "rust")
}

// rustModule is the module path of a file: src/net/tcp.rs → net::tcp,
// src/net/mod.rs → net, src/lib.rs → "" (the crate root).
func rustModule(p string) string {
	if i := strings.LastIndex(p, "src/"); i >= 0 {
		p = p[i+len("src/"):]
	}
	p = strings.TrimSuffix(p, ".rs")
	p = strings.TrimSuffix(p, "/mod")
	switch p {
	case "lib", "main", "mod":
		return ""
	}
	return strings.ReplaceAll(p, "/", "::")
}

// rustJoin joins module path parts.
func rustJoin(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "::" + b
}

// rustAbs makes a use path absolute (crate-relative), returning the
// module part and the last name.
func rustAbs(file, p string) string {
	mod := rustModule(file)
	parts := strings.Split(p, "::")
	switch parts[0] {
	case "crate":
		return strings.Join(parts[1:], "::")
	case "self":
		return rustJoin(mod, strings.Join(parts[1:], "::"))
	case "super":
		base := mod
		for len(parts) > 0 && parts[0] == "super" {
			if i := strings.LastIndex(base, "::"); i >= 0 {
				base = base[:i]
			} else {
				base = ""
			}
			parts = parts[1:]
		}
		return rustJoin(base, strings.Join(parts, "::"))
	}
	return p
}

func rustUse(x *extractor, n *sitter.Node, _ []capNode) {
	arg := n.ChildByFieldName("argument")
	if arg == nil {
		return
	}
	line := int(n.StartPoint().Row)
	var walk func(prefix string, c *sitter.Node)
	walk = func(prefix string, c *sitter.Node) {
		switch c.Type() {
		case "scoped_identifier", "identifier", "crate", "self", "super":
			full := rustJoin(prefix, strings.Join(strings.Fields(x.text(c)), ""))
			abs := rustAbs(x.path, full)
			mod, name := abs, ""
			if i := strings.LastIndex(abs, "::"); i >= 0 {
				mod, name = abs[:i], abs[i+2:]
			} else {
				mod, name = "", abs
			}
			x.g.Imports = append(x.g.Imports, Import{Path: full, Module: mod, Names: []ImportName{{Name: name}}, Line: line})
		case "use_as_clause":
			p := c.ChildByFieldName("path")
			a := c.ChildByFieldName("alias")
			if p == nil {
				return
			}
			full := rustJoin(prefix, x.text(p))
			abs := rustAbs(x.path, full)
			mod, name := "", abs
			if i := strings.LastIndex(abs, "::"); i >= 0 {
				mod, name = abs[:i], abs[i+2:]
			}
			x.g.Imports = append(x.g.Imports, Import{Path: full, Module: mod, Names: []ImportName{{Name: name, Alias: x.text(a)}}, Line: line})
		case "scoped_use_list":
			p := ""
			if pn := c.ChildByFieldName("path"); pn != nil {
				p = x.text(pn)
			}
			if l := c.ChildByFieldName("list"); l != nil {
				for _, k := range NamedChildren(l) {
					walk(rustJoin(prefix, p), k)
				}
			}
		case "use_list":
			for _, k := range NamedChildren(c) {
				walk(prefix, k)
			}
		case "use_wildcard":
			p := strings.TrimSuffix(strings.TrimSuffix(x.text(c), "*"), "::")
			x.g.Imports = append(x.g.Imports, Import{Path: rustJoin(prefix, p) + "::*", Module: rustAbs(x.path, rustJoin(prefix, p)), Names: []ImportName{{Name: "*"}}, Line: line})
		}
	}
	walk("", arg)
}

func isLowerName(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r) || r == '_'
}

// rustRecv resolves path-qualified calls: crate::a::f(), super::f(),
// module::f() after use crate::module, Type::new() after use a::Type.
func rustRecv(x *extractor, c *Call, ch chain) bool {
	if _, ok := x.lookup(ch.ident, uint32(c.Site.StartByte)); ok && ch.ident != "crate" && ch.ident != "super" {
		return false
	}
	root := ch.ident
	var base string
	switch root {
	case "crate", "super":
		base = rustAbs(x.path, root)
		if root == "crate" {
			base = ""
		}
	default:
		b, ok := x.aliases[root]
		switch {
		case ok && b.name != "" && isLowerName(b.name):
			base = rustJoin(b.module, b.name) // use crate::util; util::f()
		case ok && b.name != "":
			// use a::Type; Type::new(): a type from module b.module.
			c.Recv = Recv{Kind: RecvVar, Type: TypeExpr{Name: b.name, Module: b.module}, Fields: ch.fields}
			return true
		case !ok && isLowerName(root):
			base = rustJoin(x.g.Module, root) // mod inner; inner::f()
		default:
			return false
		}
	}
	fields := ch.fields
	for len(fields) > 0 && isLowerName(fields[0]) {
		base = rustJoin(base, fields[0])
		fields = fields[1:]
	}
	if len(fields) == 0 {
		c.Recv = Recv{Kind: RecvImport, Module: base}
		return true
	}
	// module::Type::assoc(): a type in that module.
	c.Recv = Recv{Kind: RecvVar, Type: TypeExpr{Name: fields[0], Module: base}, Fields: fields[1:]}
	return true
}

// rustValueType infers Type::new(), Type { .. } and make() initializers.
func (x *extractor) rustValueType(v *sitter.Node) rawType {
	for i := 0; v != nil && i < 4; i++ {
		switch v.Type() {
		case "call_expression":
			fn := v.ChildByFieldName("function")
			if fn != nil && fn.Type() == "scoped_identifier" {
				if p := fn.ChildByFieldName("path"); p != nil && !isLowerName(LastComponent(strings.ReplaceAll(x.text(p), "::", ":"))) {
					return x.rawTypeOf(p) // Type::new(): by convention a Type
				}
			}
			if fn != nil {
				return x.callResult(fn)
			}
			return rawType{}
		case "struct_expression":
			return x.rawTypeOf(v.ChildByFieldName("name"))
		case "reference_expression", "try_expression", "parenthesized_expression", "await_expression":
			v = firstNamedChild(v)
			continue
		}
		return rawType{}
	}
	return rawType{}
}

func rustLocal(x *extractor, n *sitter.Node, _ []capNode) {
	switch n.Type() {
	case "let_declaration":
		pat := n.ChildByFieldName("pattern")
		scope := n.Parent()
		if pat == nil || scope == nil {
			return
		}
		if pat.Type() == "mut_pattern" {
			pat = firstNamedChild(pat)
		}
		rt := x.rawTypeOf(n.ChildByFieldName("type"))
		if !rt.known() {
			rt = x.rustValueType(n.ChildByFieldName("value"))
		}
		if pat != nil && pat.Type() == "identifier" {
			x.bind(x.text(pat), n.EndByte(), scope.StartByte(), scope.EndByte(), rt)
			return
		}
		for _, id := range rustPatternNames(pat) {
			x.bind(x.text(id), n.EndByte(), scope.StartByte(), scope.EndByte(), rawType{})
		}
	case "parameter":
		pat := n.ChildByFieldName("pattern")
		fn := n.Parent()
		if fn != nil {
			fn = fn.Parent()
		}
		if pat == nil || fn == nil {
			return
		}
		if pat.Type() == "mut_pattern" {
			pat = firstNamedChild(pat)
		}
		if pat != nil && pat.Type() == "identifier" {
			x.bind(x.text(pat), fn.StartByte(), fn.StartByte(), fn.EndByte(), x.rawTypeOf(n.ChildByFieldName("type")))
		}
	case "for_expression":
		for _, id := range rustPatternNames(n.ChildByFieldName("pattern")) {
			x.bind(x.text(id), n.StartByte(), n.StartByte(), n.EndByte(), rawType{})
		}
	case "closure_parameters":
		fn := n.Parent()
		if fn == nil {
			return
		}
		for _, id := range rustPatternNames(n) {
			x.bind(x.text(id), fn.StartByte(), fn.StartByte(), fn.EndByte(), rawType{})
		}
	case "function_item":
		if name := n.ChildByFieldName("name"); name != nil && n.StartByte() > 0 {
			x.bindDef(x.text(name), n.StartByte()-1)
		}
	}
}

// rustPatternNames returns the identifiers a pattern binds.
func rustPatternNames(n *sitter.Node) []*sitter.Node {
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
		case "tuple_pattern", "mut_pattern", "ref_pattern", "slice_pattern", "parameter", "reference_pattern":
			out = append(out, rustPatternNames(c)...)
		}
	}
	return out
}

func rustField(x *extractor, n *sitter.Node, _ []capNode) {
	list := n.Parent()
	if list == nil {
		return
	}
	st := list.Parent()
	if st == nil || st.Type() != "struct_item" {
		return
	}
	owner := x.text(st.ChildByFieldName("name"))
	name := n.ChildByFieldName("name")
	if rt := x.rawTypeOf(n.ChildByFieldName("type")); owner != "" && name != nil && rt.known() {
		x.fields = append(x.fields, pendingField{owner: owner, name: x.text(name), typ: rt})
	}
}

// rustType records traits, and impl Trait for Type as a base of Type.
func rustType(x *extractor, n *sitter.Node, _ []capNode) {
	switch n.Type() {
	case "trait_item":
		if name := n.ChildByFieldName("name"); name != nil {
			x.types = append(x.types, pendingType{name: x.text(name), iface: true})
		}
	case "struct_item":
		if name := n.ChildByFieldName("name"); name != nil {
			x.types = append(x.types, pendingType{name: x.text(name)})
		}
	case "impl_item":
		tr := n.ChildByFieldName("trait")
		ty := x.rawTypeOf(n.ChildByFieldName("type"))
		if tr == nil || !ty.known() {
			return
		}
		if rt := x.rawTypeOf(tr); rt.known() {
			x.addBase(ty.name, rt, false)
		}
	}
}

var rustTestAttr = regexp.MustCompile(`#\[\s*(?:[A-Za-z_]+::)*test\b`)

// rustTests marks #[test] functions (#[tokio::test] and the like too).
func rustTests(x *extractor) {
	for i, s := range x.syms {
		if s.Kind != symbols.KindFunction && s.Kind != symbols.KindMethod {
			continue
		}
		if s.Span.StartByte <= s.NameSpan.StartByte && s.NameSpan.StartByte <= len(x.src) &&
			rustTestAttr.Match(x.src[s.Span.StartByte:s.NameSpan.StartByte]) {
			x.addTest(i, TestRust)
		}
	}
}
