package symbols

import (
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Lua, with tjdevries' grammar (the one go-tree-sitter ships). Its trees
// are flat: a.b.c is a run of identifier and "." children of the statement
// or call that holds it, not a nested node; the white space before a
// statement belongs to its first token, and the doc comment above a
// definition is a child of the definition (foldsTrivia).
//
// What is a definition, at file level only:
//   - function_statement: "function f()" (a global function), "local
//     function f()", "function M.f()" (a function of table M: container M)
//     and "function M:f()" (a method of M);
//   - variable_declaration: "local M = {}" and "Foo = {}" (a table: a module
//     when functions are defined in it or the file returns it, a class when
//     methods are defined on it or it has an __index field, else a variable),
//     "local f = function() end" and "M.f = function() end" (functions),
//     ALL_CAPS names (constants; M, the usual module table, is none),
//     other file-level variables and table fields assigned a table;
//     requires are imports, not definitions;
//   - fields of a table constructor assigned at file level or returned
//     whose value is a function ("local M = { f = function() end }").
//
// A function whose first parameter is self is a method. Exported means
// reachable from other files: global functions and tables, and the
// members of a global table or of the table the file returns; names that
// start with "_" are private by convention.
var luaSpec = &langSpec{
	scopes:    map[string]bool{"program": true, "variable_declaration": true, "tableconstructor": true, "fieldlist": true, "field": true, "module_return_statement": true},
	prune:     map[string]string{"function_statement": "", "function": ""},
	bodyTypes: map[string]bool{"function_body": true},
	query: `
(function_statement name: (_) @name) @function
(variable_declaration name: (variable_declarator) @name) @var
(field name: (identifier) @name value: (function)) @function
(module_return_statement (identifier) @returned)
`,
	names: func(x *extractor, d *def) []*sitter.Node {
		if d.node.Type() == "variable_declaration" {
			return FieldChildren(d.node, "name")
		}
		return nil
	},
	mark: func(x *extractor, aux map[string]*sitter.Node) {
		if n := aux["returned"]; n != nil {
			x.mark(luaReturned + luaTrim(x.text(n)))
		}
	},
	prepare:     prepareLua,
	post:        postLua,
	finish:      finishLua,
	sigText:     luaSignature,
	foldsTrivia: true,
	doc: docRules{
		line:     []string{"--"},
		notLine:  []string{"--[[", "--]]", "---[[", "---]]"},
		comments: luaComments(),
	},
}

// Prefixes of the names the Lua hooks record with x.mark.
const (
	luaReturned = "return:" // the table the file returns
	luaLocal    = "local:"  // a local name defined at file level
	luaClass    = "class:"  // a table with methods or an __index field
	luaHasFunc  = "funcs:"  // a table path functions are defined in
)

// luaComments lists the grammar's comment and documentation node types.
func luaComments() map[string]bool {
	m := map[string]bool{"comment": true, "class_description": true, "field_description": true, "parameter_description": true}
	for _, t := range []string{
		"documentation", "documentation_brief", "documentation_class", "documentation_command", "documentation_config",
		"documentation_tag", "documentation_usage", "emmy_documentation", "emmy_class", "emmy_eval", "emmy_field",
		"emmy_function", "emmy_header", "emmy_ignore", "emmy_note", "emmy_parameter", "emmy_return",
		"emmy_return_description", "emmy_see", "emmy_todo", "emmy_typedecl", "emmy_usage", "emmy_visibility",
	} {
		m[t] = true
	}
	return m
}

// luaTrim drops the white space the grammar folds into a token.
func luaTrim(s string) string { return strings.TrimLeft(s, " \t\r\n\f\v") }

func prepareLua(x *extractor, d *def) bool {
	switch d.node.Type() {
	case "function_statement":
		if !x.atFileLevel(d.node) {
			return false // inside a call's function argument (describe blocks)
		}
		if d.nameNode.Type() == "function_name" && !x.luaPath(d, d.nameNode) {
			return false
		}
		d.name = luaTrim(x.text(d.nameNode))
		if hasChildOfType(d.node, "local") {
			x.mark(luaLocal + d.name)
		}
		x.luaFunctionKind(d, d.node)
		if d.hasOverride {
			x.mark(luaHasFunc + d.containerOverride)
		}
	case "variable_declaration":
		return x.prepareLuaVar(d)
	case "field":
		return x.prepareLuaField(d)
	}
	return true
}

// luaPath splits a dotted name (function_name or variable_declarator:
// identifiers separated by "." or a final ":") into the last identifier,
// which becomes the name, and the table path before it, which becomes the
// container. A ":" makes the definition a method. It reports false for
// names it cannot read (M["x"], M[1]).
func (x *extractor) luaPath(d *def, n *sitter.Node) bool {
	var parts []string
	var last *sitter.Node
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		switch c.Type() {
		case "identifier":
			if last != nil {
				parts = append(parts, luaTrim(x.text(last)))
			}
			last = c
		case ".", "table_dot":
		case "table_colon":
			d.kind = KindMethod
		default:
			return false
		}
	}
	if last == nil {
		return false
	}
	d.nameNode, d.name = last, luaTrim(x.text(last))
	if len(parts) > 0 {
		d.hasOverride = true
		d.containerOverride = strings.Join(parts, ".")
		if d.kind == KindMethod {
			x.mark(luaClass + d.containerOverride)
		}
	}
	return true
}

// luaFunctionKind makes a table's function whose first parameter is self
// a method (function M.f(self), M.f = function(self)).
func (x *extractor) luaFunctionKind(d *def, fn *sitter.Node) {
	if d.kind != KindMethod && d.hasOverride && x.luaSelfFirst(fn) {
		d.kind = KindMethod
		x.mark(luaClass + d.containerOverride)
	}
}

// luaSelfFirst reports a function (statement or expression) whose first
// parameter is self.
func (x *extractor) luaSelfFirst(fn *sitter.Node) bool {
	if fn == nil {
		return false
	}
	params := childBefore(fn, "parameter_list", "function_body")
	first := x.firstNamed(params)
	return first != nil && x.text(first) == "self"
}

// prepareLuaVar reads one declarator of a file-level variable_declaration
// (d.nameNode) and its value.
func (x *extractor) prepareLuaVar(d *def) bool {
	n := d.node
	if !x.atFileLevel(n) {
		return false
	}
	decl := d.nameNode
	var value *sitter.Node
	values := luaValues(n)
	for i, nm := range FieldChildren(n, "name") {
		if nm.StartByte() == decl.StartByte() && i < len(values) {
			value = values[i]
		}
	}
	local := hasChildOfType(n, "local")
	if !x.luaPath(d, decl) {
		return false
	}
	qual := d.name
	if d.hasOverride {
		qual = d.containerOverride + "." + d.name
	}
	vt := ""
	if value != nil {
		vt = value.Type()
	}
	switch {
	case vt == "function":
		d.kind = KindFunction
		x.luaFunctionKind(d, value)
	case d.hasOverride && d.name == "__index":
		x.mark(luaClass + d.containerOverride) // a metatable: Foo.__index = Foo
		return false
	case vt == "function_call" && x.luaRequire(value):
		return false // an import, not a definition
	case vt == "tableconstructor":
		// postLua decides between class, module and this.
		d.aux = map[string]*sitter.Node{"table": value}
		d.kind = KindVar
		if len(d.name) > 1 && isConstantName(d.name) {
			d.kind = KindConst // M is the usual module table, not a constant
		}
	case isConstantName(d.name):
		d.kind = KindConst
	case d.hasOverride:
		return false // M.options = nil: module state, not a definition
	default:
		d.kind = KindVar
	}
	if !x.firstAtTop(&def{name: qual}) {
		return false // a later assignment of a name or a table member
	}
	if local {
		x.mark(luaLocal + d.name)
	}
	if (d.kind == KindFunction || d.kind == KindMethod) && d.hasOverride {
		x.mark(luaHasFunc + d.containerOverride)
	}
	return true
}

// luaValues returns the first node of each value of a declaration: the
// grammar flattens a.b.c into several "value" children, so values are
// told apart by the commas between them.
func luaValues(n *sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	count := int(n.ChildCount())
	afterEq, fresh := false, false
	for i := 0; i < count; i++ {
		c := n.Child(i)
		switch {
		case !afterEq:
			afterEq = c.Type() == "="
			fresh = afterEq
		case c.Type() == ",":
			fresh = true
		case fresh && c.IsNamed():
			out = append(out, c)
			fresh = false
		}
	}
	return out
}

// luaRequire reports a call of require (require("a.b"), require "a.b").
func (x *extractor) luaRequire(call *sitter.Node) bool {
	prefix := FieldChildren(call, "prefix")
	return len(prefix) == 1 && prefix[0].Type() == "identifier" && luaTrim(x.text(prefix[0])) == "require"
}

// prepareLuaField keeps function fields of a table constructor that is a
// file-level declaration's value or the file's return value.
func (x *extractor) prepareLuaField(d *def) bool {
	list := d.node.Parent()
	if list == nil || list.Type() != "fieldlist" {
		return false
	}
	table := list.Parent()
	if table == nil || table.Type() != "tableconstructor" {
		return false
	}
	holder := table.Parent()
	if holder == nil || !x.atFileLevel(holder) {
		return false
	}
	switch holder.Type() {
	case "module_return_statement":
	case "variable_declaration":
		// The table's own definition is the field's container (nest).
		if names := FieldChildren(holder, "name"); len(names) == 1 {
			x.mark(luaHasFunc + luaTrim(x.text(names[0])))
		}
	default:
		return false
	}
	d.name = luaTrim(x.text(d.nameNode))
	d.kind = KindFunction
	if x.luaSelfFirst(d.node.ChildByFieldName("value")) {
		d.kind = KindMethod
	}
	return true
}

// postLua settles the kind of tables: a class when methods are defined on
// it or it has an __index field, a module when functions are defined in it
// or the file returns it, else a variable.
func postLua(x *extractor) {
	for _, d := range x.defs {
		if d.aux["table"] == nil || d.node.Type() != "variable_declaration" {
			continue
		}
		qual := d.name
		if d.hasOverride {
			qual = d.containerOverride + "." + d.name
		}
		switch {
		case x.marked(luaClass + qual):
			d.kind = KindClass
		case x.marked(luaHasFunc+qual) || (!d.hasOverride && x.marked(luaReturned+qual)):
			d.kind = KindModule
		}
	}
}

func finishLua(x *extractor, d *def) {
	if strings.HasPrefix(d.name, "_") {
		d.exported = false
		return
	}
	if p := x.parentDef(d); p != nil {
		d.exported = p.exported // a field of a table constructor
		return
	}
	if !d.hasOverride {
		d.exported = !x.marked(luaLocal+d.name) || x.marked(luaReturned+d.name)
		return
	}
	root, _, _ := strings.Cut(d.containerOverride, ".")
	d.exported = !strings.HasPrefix(root, "_") && (!x.marked(luaLocal+root) || x.marked(luaReturned+root))
}

// luaSignature is the definition's header: up to the closing parenthesis
// of a function's parameters; a declaration on one line whole; the first
// line of a longer one.
func luaSignature(x *extractor, d *def) (string, bool) {
	start := d.span.StartByte
	end := d.span.EndByte
	var fn *sitter.Node // the function whose parameters end the header
	switch d.node.Type() {
	case "function_statement":
		fn = d.node
	case "field":
		fn = d.node.ChildByFieldName("value")
	case "variable_declaration":
		if vs := luaValues(d.node); len(vs) == 1 && vs[0].Type() == "function" {
			fn = vs[0]
		}
	}
	if fn != nil {
		if p := lastChildOfType(fn, "function_body_paren"); p != nil {
			end = int(p.EndByte())
		}
	}
	if end > len(x.src) || end < start {
		return "", false
	}
	text := x.src[start:end]
	if fn == nil {
		if i := strings.IndexByte(string(text), '\n'); i >= 0 {
			first := strings.TrimRight(string(text[:i]), " \t\r")
			if strings.HasSuffix(first, "{") {
				return first + "…}", true
			}
			return first + " …", true
		}
	}
	return collapseSpace(text), true
}

// lastChildOfType returns n's last direct child of type t, or nil.
func lastChildOfType(n *sitter.Node, t string) *sitter.Node {
	if n == nil {
		return nil
	}
	for i := int(n.ChildCount()) - 1; i >= 0; i-- {
		if c := n.Child(i); c.Type() == t {
			return c
		}
	}
	return nil
}

// luaRequireStmt matches a Lua statement that imports a module.
var luaRequireStmt = regexp.MustCompile(`^\s*(local\s+[\w\s,]+=\s*)?(require|pcall\(\s*require\s*,)\s*[("'\[]`)

// luaHeader: Lua imports are calls — local x = require("a.b"), require
// "a.b" —, and a shebang opens a script.
func luaHeader(n *sitter.Node, src []byte) bool {
	t := n.Type()
	return t == "shebang" || (t == "variable_declaration" || t == "function_call") &&
		luaRequireStmt.Match(src[n.StartByte():n.EndByte()])
}
