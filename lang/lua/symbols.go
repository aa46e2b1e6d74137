package lua

import (
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
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
var symbolsSpec = &symbols.Spec{
	Scopes:    map[string]bool{"program": true, "variable_declaration": true, "tableconstructor": true, "fieldlist": true, "field": true, "module_return_statement": true},
	Prune:     map[string]string{"function_statement": "", "function": ""},
	BodyTypes: map[string]bool{"function_body": true},
	Query: `
(function_statement name: (_) @name) @function
(variable_declaration name: (variable_declarator) @name) @var
(field name: (identifier) @name value: (function)) @function
(module_return_statement (identifier) @returned)
`,
	Names: func(x *symbols.Extractor, d *symbols.Def) []*sitter.Node {
		if d.Node().Type() == "variable_declaration" {
			return symbols.FieldChildren(d.Node(), "name")
		}
		return nil
	},
	Mark: func(x *symbols.Extractor, aux map[string]*sitter.Node) {
		if n := aux["returned"]; n != nil {
			x.Mark(luaReturned + luaTrim(x.Text(n)))
		}
	},
	Prepare:     prepareLua,
	Post:        postLua,
	Finish:      finishLua,
	Signature:   luaSignature,
	FoldsTrivia: true,
	DocLine:     []string{"--"},
	NotDocLine:  []string{"--[[", "--]]", "---[[", "---]]"},
	Comments:    luaComments(),
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

func prepareLua(x *symbols.Extractor, d *symbols.Def) bool {
	switch d.Node().Type() {
	case "function_statement":
		if !x.AtFileLevel(d.Node()) {
			return false // inside a call's function argument (describe blocks)
		}
		if d.NameNode().Type() == "function_name" && !luaPath(x, d, d.NameNode()) {
			return false
		}
		d.SetName(luaTrim(x.Text(d.NameNode())), nil)
		if symbols.HasChildOfType(d.Node(), "local") {
			x.Mark(luaLocal + d.Name())
		}
		luaFunctionKind(x, d, d.Node())
		if c, ok := d.Container(); ok {
			x.Mark(luaHasFunc + c)
		}
	case "variable_declaration":
		return prepareLuaVar(x, d)
	case "field":
		return prepareLuaField(x, d)
	}
	return true
}

// luaPath splits a dotted name (function_name or variable_declarator:
// identifiers separated by "." or a final ":") into the last identifier,
// which becomes the name, and the table path before it, which becomes the
// container. A ":" makes the definition a method. It reports false for
// names it cannot read (M["x"], M[1]).
func luaPath(x *symbols.Extractor, d *symbols.Def, n *sitter.Node) bool {
	var parts []string
	var last *sitter.Node
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		switch c.Type() {
		case "identifier":
			if last != nil {
				parts = append(parts, luaTrim(x.Text(last)))
			}
			last = c
		case ".", "table_dot":
		case "table_colon":
			d.SetKind(symbols.KindMethod)
		default:
			return false
		}
	}
	if last == nil {
		return false
	}
	d.SetName(luaTrim(x.Text(last)), last)
	if len(parts) > 0 {
		c := strings.Join(parts, ".")
		d.SetContainer(c)
		if d.Kind() == symbols.KindMethod {
			x.Mark(luaClass + c)
		}
	}
	return true
}

// luaFunctionKind makes a table's function whose first parameter is self
// a method (function M.f(self), M.f = function(self)).
func luaFunctionKind(x *symbols.Extractor, d *symbols.Def, fn *sitter.Node) {
	if c, ok := d.Container(); d.Kind() != symbols.KindMethod && ok && luaSelfFirst(x, fn) {
		d.SetKind(symbols.KindMethod)
		x.Mark(luaClass + c)
	}
}

// luaSelfFirst reports a function (statement or expression) whose first
// parameter is self.
func luaSelfFirst(x *symbols.Extractor, fn *sitter.Node) bool {
	if fn == nil {
		return false
	}
	params := symbols.ChildBefore(fn, "parameter_list", "function_body")
	first := x.FirstNamed(params)
	return first != nil && x.Text(first) == "self"
}

// luaQualified is d's name with its table path.
func luaQualified(d *symbols.Def) string {
	if c, ok := d.Container(); ok {
		return c + "." + d.Name()
	}
	return d.Name()
}

// prepareLuaVar reads one declarator of a file-level variable_declaration
// (d.NameNode) and its value.
func prepareLuaVar(x *symbols.Extractor, d *symbols.Def) bool {
	n := d.Node()
	if !x.AtFileLevel(n) {
		return false
	}
	decl := d.NameNode()
	var value *sitter.Node
	values := luaValues(n)
	for i, nm := range symbols.FieldChildren(n, "name") {
		if nm.StartByte() == decl.StartByte() && i < len(values) {
			value = values[i]
		}
	}
	local := symbols.HasChildOfType(n, "local")
	if !luaPath(x, d, decl) {
		return false
	}
	qual := luaQualified(d)
	container, member := d.Container()
	vt := ""
	if value != nil {
		vt = value.Type()
	}
	switch {
	case vt == "function":
		d.SetKind(symbols.KindFunction)
		luaFunctionKind(x, d, value)
	case member && d.Name() == "__index":
		x.Mark(luaClass + container) // a metatable: Foo.__index = Foo
		return false
	case vt == "function_call" && luaRequire(x, value):
		return false // an import, not a definition
	case vt == "tableconstructor":
		// postLua decides between class, module and this.
		d.SetAux("table", value)
		d.SetKind(symbols.KindVar)
		if len(d.Name()) > 1 && symbols.IsConstantName(d.Name()) {
			d.SetKind(symbols.KindConst) // M is the usual module table, not a constant
		}
	case symbols.IsConstantName(d.Name()):
		d.SetKind(symbols.KindConst)
	case member:
		return false // M.options = nil: module state, not a definition
	default:
		d.SetKind(symbols.KindVar)
	}
	if !x.FirstAtTop(qual) {
		return false // a later assignment of a name or a table member
	}
	if local {
		x.Mark(luaLocal + d.Name())
	}
	if (d.Kind() == symbols.KindFunction || d.Kind() == symbols.KindMethod) && member {
		x.Mark(luaHasFunc + container)
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
func luaRequire(x *symbols.Extractor, call *sitter.Node) bool {
	prefix := symbols.FieldChildren(call, "prefix")
	return len(prefix) == 1 && prefix[0].Type() == "identifier" && luaTrim(x.Text(prefix[0])) == "require"
}

// prepareLuaField keeps function fields of a table constructor that is a
// file-level declaration's value or the file's return value.
func prepareLuaField(x *symbols.Extractor, d *symbols.Def) bool {
	list := d.Node().Parent()
	if list == nil || list.Type() != "fieldlist" {
		return false
	}
	table := list.Parent()
	if table == nil || table.Type() != "tableconstructor" {
		return false
	}
	holder := table.Parent()
	if holder == nil || !x.AtFileLevel(holder) {
		return false
	}
	switch holder.Type() {
	case "module_return_statement":
	case "variable_declaration":
		// The table's own definition is the field's container (nest).
		if names := symbols.FieldChildren(holder, "name"); len(names) == 1 {
			x.Mark(luaHasFunc + luaTrim(x.Text(names[0])))
		}
	default:
		return false
	}
	d.SetName(luaTrim(x.Text(d.NameNode())), nil)
	d.SetKind(symbols.KindFunction)
	if luaSelfFirst(x, d.Node().ChildByFieldName("value")) {
		d.SetKind(symbols.KindMethod)
	}
	return true
}

// postLua settles the kind of tables: a class when methods are defined on
// it or it has an __index field, a module when functions are defined in it
// or the file returns it, else a variable.
func postLua(x *symbols.Extractor) {
	for _, d := range x.Defs() {
		if d.Aux("table") == nil || d.Node().Type() != "variable_declaration" {
			continue
		}
		qual := luaQualified(d)
		_, member := d.Container()
		switch {
		case x.Marked(luaClass + qual):
			d.SetKind(symbols.KindClass)
		case x.Marked(luaHasFunc+qual) || (!member && x.Marked(luaReturned+qual)):
			d.SetKind(symbols.KindModule)
		}
	}
}

func finishLua(x *symbols.Extractor, d *symbols.Def) {
	if strings.HasPrefix(d.Name(), "_") {
		d.SetExported(false)
		return
	}
	if p := x.Parent(d); p != nil {
		d.SetExported(p.Exported()) // a field of a table constructor
		return
	}
	container, member := d.Container()
	if !member {
		d.SetExported(!x.Marked(luaLocal+d.Name()) || x.Marked(luaReturned+d.Name()))
		return
	}
	root, _, _ := strings.Cut(container, ".")
	d.SetExported(!strings.HasPrefix(root, "_") && (!x.Marked(luaLocal+root) || x.Marked(luaReturned+root)))
}

// luaSignature is the definition's header: up to the closing parenthesis
// of a function's parameters; a declaration on one line whole; the first
// line of a longer one.
func luaSignature(x *symbols.Extractor, d *symbols.Def) (string, bool) {
	start := d.Span().StartByte
	end := d.Span().EndByte
	var fn *sitter.Node // the function whose parameters end the header
	switch d.Node().Type() {
	case "function_statement":
		fn = d.Node()
	case "field":
		fn = d.Node().ChildByFieldName("value")
	case "variable_declaration":
		if vs := luaValues(d.Node()); len(vs) == 1 && vs[0].Type() == "function" {
			fn = vs[0]
		}
	}
	if fn != nil {
		if p := lastChildOfType(fn, "function_body_paren"); p != nil {
			end = int(p.EndByte())
		}
	}
	src := x.Source()
	if end > len(src) || end < start {
		return "", false
	}
	text := src[start:end]
	if fn == nil {
		if i := strings.IndexByte(string(text), '\n'); i >= 0 {
			first := strings.TrimRight(string(text[:i]), " \t\r")
			if strings.HasSuffix(first, "{") {
				return first + "…}", true
			}
			return first + " …", true
		}
	}
	return symbols.CollapseSpace(text), true
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
