package graph

import (
	"path"
	"strings"

	"github.com/context-ls/context-ls/symbols"
	sitter "github.com/smacker/go-tree-sitter"
)

// C and C++ share one global function namespace: includes and header
// names decide between same-named definitions.

const cQuery = `
(preproc_include path: (_) @import.path) @import
(call_expression function: (identifier) @name) @call
(call_expression function: (field_expression argument: (_) @qual field: (field_identifier) @name)) @call
(argument_list (identifier) @name) @ref
(declaration) @local
(parameter_declaration) @local
(field_declaration) @field
`

var cChain = chainSpec{
	member:  map[string][2]string{"field_expression": {"argument", "field"}, "qualified_identifier": {"scope", "name"}},
	call:    map[string]string{"call_expression": "function"},
	newExpr: map[string]string{"new_expression": "type"},
	ident:   map[string]bool{"identifier": true, "namespace_identifier": true, "type_identifier": true},
	self:    map[string]bool{"this": true},
	wrap:    map[string]bool{"parenthesized_expression": true, "pointer_expression": true},
}

var cTypes = typeSpec{
	names:     map[string]bool{"type_identifier": true},
	qualified: map[string][2]string{"qualified_identifier": {"scope", "name"}},
	generic:   map[string]string{"struct_specifier": "name", "class_specifier": "name", "template_type": "name"},
}

var cBuiltins = SetOf("printf fprintf sprintf snprintf malloc calloc realloc free memcpy memset memmove strlen strcmp strncmp strcpy strncpy assert sizeof exit abort")

var cSpec = &langSpec{
	query:    cQuery + "(struct_specifier) @type\n",
	family:   "c",
	builtins: cBuiltins,
	chain:    cChain,
	types:    cTypes,
	handlers: cHandlers,
}

var cppSpec = &langSpec{
	query: cQuery + `
(call_expression function: (qualified_identifier scope: (_) @qual name: (identifier) @name)) @call
(call_expression function: (template_function name: (identifier) @name)) @call
(call_expression function: (qualified_identifier scope: (_) @qual name: (template_function name: (identifier) @name))) @call
(new_expression type: (type_identifier) @name) @new
(new_expression type: (qualified_identifier scope: (_) @qual name: (type_identifier) @name)) @new
(class_specifier) @type
(struct_specifier) @type
`,
	family:       "c",
	implicitThis: true,
	builtins:     cBuiltins,
	chain:        cChain,
	types:        cTypes,
	handlers:     cHandlers,
}

var cHandlers = map[string]func(*extractor, *sitter.Node, []capNode){
	"import": cInclude,
	"local":  cLocal,
	"field":  cField,
	"type":   cType,
}

func init() {
	// One global namespace; an include names a header by path, or by its
	// stem (a.h declares what a.c defines).
	rules := langRules{namespace: nsGlobal, globalFunctions: true, matchModule: func(_ *Resolver, ref, p, _, _ string) bool {
		ref = strings.TrimPrefix(ref, "./")
		if strings.HasSuffix(p, "/"+ref) || p == ref {
			return true
		}
		return stem(p) == stem(ref) && stem(ref) != ""
	}}
	cSpec.rules, cppSpec.rules = rules, rules
	registerSpec(cSpec, "c")
	registerSpec(cppSpec, "cpp")
}

func cInclude(x *extractor, n *sitter.Node, caps []capNode) {
	p := capture(caps, "import.path")
	if p == nil {
		return
	}
	s := strings.Trim(x.text(p), `"<>`)
	if s == "" {
		return
	}
	mod := s
	if p.Type() == "string_literal" {
		// A quoted include is relative to the including file first.
		mod = path.Clean(path.Join(path.Dir(x.path), s))
	}
	x.g.Imports = append(x.g.Imports, Import{Path: s, Module: mod, Line: int(n.StartPoint().Row)})
}

// cDeclName returns the identifier a declarator declares and whether it
// is a function declarator (a prototype, not a variable).
func cDeclName(d *sitter.Node) (*sitter.Node, bool) {
	for i := 0; d != nil && i < 6; i++ {
		switch d.Type() {
		case "identifier", "field_identifier":
			return d, false
		case "function_declarator":
			return nil, true
		case "init_declarator", "pointer_declarator", "reference_declarator", "array_declarator":
			if c := d.ChildByFieldName("declarator"); c != nil {
				d = c
				continue
			}
			d = firstNamedChild(d)
			continue
		}
		return nil, false
	}
	return nil, false
}

func cLocal(x *extractor, n *sitter.Node, _ []capNode) {
	typ := x.rawTypeOf(n.ChildByFieldName("type"))
	switch n.Type() {
	case "declaration":
		encl := x.enclosing(int(n.StartByte()), true)
		inFunc := encl >= 0 && symbols.IsFunctionKind(x.syms[encl].Kind)
		scope := n.Parent()
		for _, d := range symbols.FieldChildren(n, "declarator") {
			name, isFn := cDeclName(d)
			if name == nil || isFn {
				continue
			}
			rt := typ
			if !rt.known() && d.Type() == "init_declarator" {
				if v := d.ChildByFieldName("value"); v != nil {
					switch v.Type() {
					case "new_expression":
						rt = x.rawTypeOf(v.ChildByFieldName("type"))
					case "call_expression":
						if f := v.ChildByFieldName("function"); f != nil {
							rt = x.callResult(f)
						}
					}
				}
			}
			if inFunc && scope != nil {
				x.bind(x.text(name), n.EndByte(), scope.StartByte(), scope.EndByte(), rt)
			} else if !inFunc {
				x.fields = append(x.fields, pendingField{name: x.text(name), typ: rt})
			}
		}
	case "parameter_declaration":
		list := n.Parent()
		if list == nil {
			return
		}
		decl := list.Parent()
		if decl == nil {
			return
		}
		fn := decl.Parent()
		for fn != nil && fn.Type() != "function_definition" && fn.Type() != "lambda_expression" {
			if fn.Type() == "declaration" || fn.Type() == "field_declaration" || fn.Type() == "translation_unit" {
				return // a prototype binds nothing
			}
			fn = fn.Parent()
		}
		if fn == nil {
			return
		}
		if d := n.ChildByFieldName("declarator"); d != nil {
			if name, _ := cDeclName(d); name != nil {
				x.bind(x.text(name), fn.StartByte(), fn.StartByte(), fn.EndByte(), typ)
			}
		}
	}
}

func cField(x *extractor, n *sitter.Node, _ []capNode) {
	list := n.Parent()
	if list == nil {
		return
	}
	owner := ""
	if st := list.Parent(); st != nil {
		owner = x.text(st.ChildByFieldName("name"))
	}
	rt := x.rawTypeOf(n.ChildByFieldName("type"))
	if owner == "" || !rt.known() {
		return
	}
	for _, d := range symbols.FieldChildren(n, "declarator") {
		if name, isFn := cDeclName(d); name != nil && !isFn {
			x.fields = append(x.fields, pendingField{owner: owner, name: x.text(name), typ: rt})
		}
	}
}

func cType(x *extractor, n *sitter.Node, _ []capNode) {
	name := n.ChildByFieldName("name")
	if name == nil || n.ChildByFieldName("body") == nil {
		return
	}
	pt := pendingType{name: x.text(name)}
	for _, c := range NamedChildren(n) {
		if c.Type() != "base_class_clause" {
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
