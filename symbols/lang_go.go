package symbols

import (
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// goDirective matches tool directives (//go:generate, //nolint:x,
// //line f:1) that go/doc leaves out of doc text.
var goDirective = regexp.MustCompile(`^//(line |export |extern |[a-z0-9]+:[a-z0-9])`)

var goSpec = &langSpec{
	scopes: map[string]bool{"source_file": true, "const_declaration": true, "var_declaration": true, "var_spec_list": true},
	prune:  map[string]string{"function_declaration": "", "method_declaration": "", "const_spec": "value", "var_spec": "value"},
	query: `
(function_declaration name: (identifier) @name) @function
(method_declaration receiver: (parameter_list) @receiver name: (field_identifier) @name) @method
(type_declaration (type_spec name: (type_identifier) @name) @type) @decl
(type_declaration (type_alias name: (type_identifier) @name) @type) @decl
(type_declaration (type_spec type: (interface_type (method_elem name: (field_identifier) @name) @method))) @decl
(const_spec name: (identifier) @name) @const
(var_spec name: (identifier) @name) @var
`,
	prepare: prepareGo,
	names: func(x *extractor, d *def) []*sitter.Node {
		if d.kind == KindConst || d.kind == KindVar {
			return FieldChildren(d.node, "name")
		}
		return nil
	},
	finish: func(x *extractor, d *def) {
		d.exported = isExportedName(d.name)
	},
	sigEnd: goSigEnd,
	// Functions and methods: their definitions, calls and type references
	// read nothing of the file but its package clause and imports. Type,
	// const and var declarations feed other declarations (struct fields,
	// package-level variables, method sets) and are extracted with the
	// whole file.
	spliceable: map[string]bool{"function_declaration": true, "method_declaration": true},
	doc: docRules{
		line:      []string{"//"},
		block:     []string{"/*"},
		comments:  map[string]bool{"comment": true},
		directive: func(l string) bool { return goDirective.MatchString(l) },
	},
}

func prepareGo(x *extractor, d *def) bool {
	if decl := d.aux["decl"]; decl != nil && !x.atFileLevel(decl) {
		return false // declarations inside function literals
	}
	if (d.kind == KindConst || d.kind == KindVar) && !x.atFileLevel(d.node, "const_declaration", "var_declaration", "var_spec_list") {
		return false // local constants and variables
	}
	switch d.node.Type() {
	case "method_declaration":
		d.hasOverride = true
		d.containerOverride = goReceiverType(x, d.aux["receiver"])
	case "type_spec":
		if t := d.node.ChildByFieldName("type"); t != nil {
			switch t.Type() {
			case "struct_type":
				d.kind = KindStruct
			case "interface_type":
				d.kind = KindInterface
			}
		}
		goSingleSpec(d, "type ")
	case "type_alias":
		goSingleSpec(d, "type ")
	case "const_spec":
		goSingleSpec(d, "const ")
	case "var_spec":
		goSingleSpec(d, "var ")
	}
	return true
}

// goSingleSpec makes the whole declaration the outer node of an ungrouped
// spec ("type X int") so the span and signature include the keyword; a spec
// inside a group keeps its own range and gets the keyword as a prefix.
func goSingleSpec(d *def, keyword string) {
	decl := d.node.Parent()
	if decl != nil && decl.Type() == "var_spec_list" {
		d.sigPrefix = keyword
		return
	}
	if decl != nil && decl.ChildCount() == 2 {
		d.outer, d.sigNode = decl, decl
		return
	}
	d.sigPrefix = keyword
}

// goReceiverType returns the receiver's base type name: no pointer, no type
// parameters ("(b *Builder[T])" → "Builder").
func goReceiverType(x *extractor, recv *sitter.Node) string {
	if recv == nil {
		return ""
	}
	n := x.firstNamed(recv)
	if n == nil {
		return ""
	}
	if t := n.ChildByFieldName("type"); t != nil {
		n = t
	}
	for i := 0; i < 8 && n != nil; i++ {
		switch n.Type() {
		case "type_identifier":
			return x.text(n)
		case "generic_type":
			n = n.ChildByFieldName("type")
		case "qualified_type":
			n = n.ChildByFieldName("name")
		default: // pointer_type, parenthesized_type
			n = x.firstNamed(n)
		}
	}
	return strings.TrimSpace(strings.TrimLeft(x.text(n), "*("))
}

// goSigEnd ends struct and interface signatures after their keyword.
func goSigEnd(x *extractor, d *def) int {
	if d.node.Type() != "type_spec" {
		return -1
	}
	t := d.node.ChildByFieldName("type")
	if t == nil {
		return -1
	}
	switch t.Type() {
	case "struct_type":
		return int(t.StartByte()) + len("struct")
	case "interface_type":
		return int(t.StartByte()) + len("interface")
	}
	return -1
}
