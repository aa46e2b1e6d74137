package symbols

import sitter "github.com/smacker/go-tree-sitter"

var javaSpec = &langSpec{
	scopes: map[string]bool{"program": true, "field_declaration": true, "constant_declaration": true, "class_declaration": true, "class_body": true, "interface_declaration": true, "interface_body": true, "enum_declaration": true, "enum_body": true, "enum_body_declarations": true, "record_declaration": true, "annotation_type_declaration": true, "annotation_type_body": true},
	prune:  map[string]string{"variable_declarator": "value", "method_declaration": "", "constructor_declaration": "", "compact_constructor_declaration": ""},
	query: `
(class_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @interface
(annotation_type_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(method_declaration name: (identifier) @name) @method
(annotation_type_element_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @constructor
(compact_constructor_declaration name: (identifier) @name) @constructor
(field_declaration (modifiers) declarator: (variable_declarator name: (identifier) @name)) @const
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @const
`,
	prepare: func(x *extractor, d *def) bool {
		switch d.node.Type() {
		case "field_declaration":
			// Only constants (static final fields) are definitions worth
			// listing; plain fields are state.
			mods := modifierSet(x, d.node, "modifiers")
			return mods["static"] && mods["final"] && x.parentType(d.node) != ""
		case "constant_declaration":
			return x.parentType(d.node) != ""
		}
		return true
	},
	names: func(x *extractor, d *def) []*sitter.Node {
		if d.kind != KindConst {
			return nil
		}
		var out []*sitter.Node
		for _, decl := range FieldChildren(d.node, "declarator") {
			if n := decl.ChildByFieldName("name"); n != nil {
				out = append(out, n)
			}
		}
		return out
	},
	finish: func(x *extractor, d *def) {
		mods := modifierSet(x, d.node, "modifiers")
		p := x.parentDef(d)
		public := mods["public"]
		if p != nil && p.kind == KindInterface && !mods["private"] {
			public = true // interface members are implicitly public
		}
		d.exported = public && (p == nil || p.exported)
	},
	skipAtSigStart: map[string]bool{"marker_annotation": true, "annotation": true, "block_comment": true, "line_comment": true},
	wrapAtSigStart: map[string]bool{"modifiers": true},
	doc: docRules{
		block:    []string{"/**"},
		notBlock: []string{"/**/"},
		comments: map[string]bool{"block_comment": true, "line_comment": true},
	},
}

// modifierSet returns the words of n's modifier wrapper child (Java
// "modifiers": public, static …), leaving annotations out.
func modifierSet(x *extractor, n *sitter.Node, wrapper string) map[string]bool {
	set := map[string]bool{}
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		if c.Type() != wrapper {
			continue
		}
		addModifierWords(x, c, set)
	}
	return set
}

// addModifierWords adds the texts of the modifier nodes under m.
func addModifierWords(x *extractor, m *sitter.Node, set map[string]bool) {
	count := int(m.ChildCount())
	for i := 0; i < count; i++ {
		c := m.Child(i)
		t := c.Type()
		if t == "annotation" || t == "marker_annotation" || t == "attribute_list" {
			continue
		}
		set[x.text(c)] = true
	}
}
