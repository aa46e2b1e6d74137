package symbols

import (
	"bytes"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// jsCommonQuery holds the patterns JavaScript and TypeScript share. None is
// anchored on a scope node (see langSpec.scopes): file and class level are
// checked in prepareJS.
const jsCommonQuery = `
(function_declaration name: (identifier) @name) @function
(generator_function_declaration name: (identifier) @name) @function
(class_declaration name: (_) @name) @class
(method_definition name: (_) @name) @method
(lexical_declaration (variable_declarator name: (identifier) @name) @var) @decl
(variable_declaration (variable_declarator name: (identifier) @name) @var) @decl
(expression_statement (assignment_expression
  left: (member_expression object: (_) @object property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)]) @function) @stmt
(expression_statement (assignment_expression
  left: (member_expression) @exports
  right: (object (shorthand_property_identifier) @exported)))
(expression_statement (assignment_expression
  left: (member_expression) @exports
  right: (identifier) @exported))
(export_statement (export_clause (export_specifier name: (identifier) @exported)))
`

var javascriptSpec = &langSpec{
	scopes: map[string]bool{"program": true, "export_statement": true, "lexical_declaration": true, "variable_declaration": true, "class_declaration": true, "class": true, "class_body": true},
	prune:  map[string]string{"function_declaration": "", "generator_function_declaration": "", "method_definition": "", "variable_declarator": "value"},
	query: jsCommonQuery + `
(field_definition property: (property_identifier) @name value: [(arrow_function) (function_expression)]) @method
`,
	prepare:        prepareJS,
	finish:         finishJS,
	mark:           markJS,
	sigEnd:         jsSigEnd,
	skipAtSigStart: map[string]bool{"decorator": true},
	extendStart:    map[string]bool{"decorator": true},
	doc:            jsDocRules,
}

var typescriptSpec = &langSpec{
	scopes: map[string]bool{"program": true, "export_statement": true, "lexical_declaration": true, "variable_declaration": true, "class_declaration": true, "class": true, "class_body": true, "abstract_class_declaration": true, "internal_module": true, "module": true, "statement_block": true, "expression_statement": true, "ambient_declaration": true, "interface_declaration": true, "interface_body": true},
	prune:  map[string]string{"function_declaration": "", "generator_function_declaration": "", "method_definition": "", "variable_declarator": "value"},
	query: jsCommonQuery + `
(function_signature name: (identifier) @name) @function
(abstract_class_declaration name: (type_identifier) @name) @class
(public_field_definition name: (property_identifier) @name value: [(arrow_function) (function_expression)]) @method
(abstract_method_signature name: (_) @name) @method
(method_signature name: (_) @name) @method
(interface_declaration name: (type_identifier) @name) @interface
(type_alias_declaration name: (type_identifier) @name) @type
(enum_declaration name: (identifier) @name) @enum
(internal_module name: (_) @name) @module
(module name: [(identifier) (nested_identifier)] @name) @module
(module name: (string (string_fragment) @name)) @module
`,
	prepare:        prepareJS,
	finish:         finishJS,
	mark:           markJS,
	sigEnd:         jsSigEnd,
	skipAtSigStart: map[string]bool{"decorator": true},
	extendStart:    map[string]bool{"decorator": true},
	doc:            jsDocRules,
}

var jsDocRules = docRules{
	block:    []string{"/**"},
	notBlock: []string{"/**/"},
	comments: map[string]bool{"comment": true},
}

func prepareJS(x *extractor, d *def) bool {
	n := d.node
	switch n.Type() {
	case "method_definition", "field_definition", "public_field_definition", "method_signature", "abstract_method_signature":
		if t := x.parentType(n); t != "class_body" && t != "interface_body" {
			return false // object literal methods, members of type literals
		}
	case "variable_declarator":
		if !x.jsDeclarationLevel(d.aux["decl"]) {
			return false // local variables
		}
		decl := d.aux["decl"]
		keyword := "var"
		if kw := decl.Child(0); kw != nil && !kw.IsNamed() {
			keyword = x.text(kw)
		}
		switch v := n.ChildByFieldName("value"); {
		case v == nil:
			d.kind = jsVarKind(keyword)
		default:
			switch v.Type() {
			case "arrow_function", "function_expression", "function", "generator_function":
				d.kind = KindFunction
			case "class":
				d.kind = KindClass
			default:
				d.kind = jsVarKind(keyword)
			}
		}
		single := decl.NamedChildCount() == 1
		if single {
			d.outer = decl
		}
		d.sigPrefix = keyword + " "
		if x.parentType(decl) == "export_statement" {
			d.exported = true
			d.sigPrefix = "export " + d.sigPrefix
			if wrap := decl.Parent(); single && wrap != nil {
				d.outer = wrap
			}
		}
	case "assignment_expression":
		if !x.atFileLevel(d.aux["stmt"]) {
			return false
		}
		obj := x.text(d.aux["object"])
		d.outer = d.aux["stmt"]
		switch {
		case obj == "exports" || obj == "module.exports":
			d.exported = true
		case strings.HasSuffix(obj, ".prototype"):
			d.kind = KindMethod
			d.hasOverride = true
			owner := strings.TrimSuffix(obj, ".prototype")
			d.containerOverride = owner[strings.LastIndexByte(owner, '.')+1:]
		default:
			return false // obj.handler = function … is an assignment, not a definition
		}
	default:
		if p := n.Parent(); p != nil && p.Type() == "export_statement" {
			d.outer, d.sigNode = p, p
			d.exported = true
		}
	}
	return true
}

// jsDeclarationLevel reports whether a variable declaration is at file
// level or a namespace member, possibly behind export.
func (x *extractor) jsDeclarationLevel(decl *sitter.Node) bool {
	if x.atFileLevel(decl, "export_statement") {
		return true
	}
	i := x.scopeEntryOf(decl)
	if i < 0 {
		return false
	}
	p := x.scopeTab[i].parent
	if p >= 0 && x.scopeTab[p].typ == "export_statement" {
		p = x.scopeTab[p].parent
	}
	if p < 0 || x.scopeTab[p].typ != "statement_block" {
		return false
	}
	pp := x.scopeTab[p].parent
	return pp >= 0 && (x.scopeTab[pp].typ == "internal_module" || x.scopeTab[pp].typ == "module")
}

func jsVarKind(keyword string) Kind {
	if keyword == "const" {
		return KindConst
	}
	return KindVar
}

// markJS records names exported by "export { a, b }",
// "module.exports = { a, b }" and "module.exports = a".
func markJS(x *extractor, aux map[string]*sitter.Node) {
	name := aux["exported"]
	if name == nil {
		return
	}
	if e := aux["exports"]; e != nil && x.text(e) != "module.exports" {
		return
	}
	x.mark(x.text(name))
}

func finishJS(x *extractor, d *def) {
	p := x.parentDef(d)
	if d.node.Type() == "method_definition" && d.name == "constructor" {
		d.kind = KindConstructor
	}
	if p != nil && isTypeKind(p.kind) {
		d.exported = p.exported && !jsPrivateMember(x, d)
		return
	}
	if p == nil && x.marked(d.name) {
		d.exported = true
	}
}

// jsPrivateMember reports #private names and private/protected members.
func jsPrivateMember(x *extractor, d *def) bool {
	if strings.HasPrefix(d.name, "#") {
		return true
	}
	count := int(d.node.NamedChildCount())
	for i := 0; i < count; i++ {
		c := d.node.NamedChild(i)
		if c.Type() == "accessibility_modifier" {
			m := x.text(c)
			return m == "private" || m == "protected"
		}
	}
	return false
}

// jsSigEnd ends the signature of function-valued variables, fields and
// assignments at the function body.
func jsSigEnd(x *extractor, d *def) int {
	var v *sitter.Node
	switch d.node.Type() {
	case "variable_declarator", "field_definition", "public_field_definition":
		v = d.node.ChildByFieldName("value")
	case "assignment_expression":
		v = d.node.ChildByFieldName("right")
	default:
		return -1
	}
	if v == nil {
		return -1
	}
	if body := v.ChildByFieldName("body"); body != nil {
		return int(body.StartByte())
	}
	return -1
}

// separateCallSignatures repairs TypeScript the grammar cannot read: in an
// interface, a call signature that starts a line with its type parameters
// ("<P>(path: P): App", or "<" alone on its line) after a member that
// ends without a separator reads as type arguments of that member's last
// type ("): B" then "<P>" is B<P>), and the parse gives up on the rest of
// the file — routers declare their overloads this way. The space before
// such a "<" becomes ";", which keeps every offset and line. nil when no
// line is of that kind.
func separateCallSignatures(src []byte) []byte {
	var out []byte
	prevEnd := byte(0) // the last character of the previous line of code
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		line := src[start:end]
		trimmed := bytes.TrimSpace(line)
		indent := len(line) - len(bytes.TrimLeft(line, " \t"))
		switch {
		case len(trimmed) == 0 || bytes.HasPrefix(trimmed, []byte("//")) || bytes.HasPrefix(trimmed, []byte("/*")) || bytes.HasPrefix(trimmed, []byte("*")):
			// blank or comment: the previous line of code stays
		default:
			if trimmed[0] == '<' && indent > 0 && startsTypeParams(trimmed) && endsMember(prevEnd) {
				if out == nil {
					out = append([]byte(nil), src...)
				}
				out[start+indent-1] = ';'
			}
			prevEnd = trimmed[len(trimmed)-1]
		}
		start = end + 1
	}
	return out
}

// startsTypeParams reports a line that opens a type parameter list: "<"
// alone, or followed by a name.
func startsTypeParams(line []byte) bool {
	if len(line) == 1 {
		return true
	}
	c := line[1]
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// endsMember reports a line of code ending where a member may end: after
// a name or a closing bracket, not after an operator or an opening one.
func endsMember(c byte) bool {
	return c == ')' || c == ']' || c == '>' || c == '}' || c == '_' || c == '$' ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
