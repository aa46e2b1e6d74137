package symbols

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

var rustSpec = &langSpec{
	scopes: map[string]bool{"source_file": true, "mod_item": true, "declaration_list": true, "impl_item": true, "trait_item": true, "foreign_mod_item": true},
	prune:  map[string]string{"function_item": "", "const_item": "value", "static_item": "value"},
	query: `
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(trait_item name: (type_identifier) @name) @trait
(type_item name: (type_identifier) @name) @type
(associated_type name: (type_identifier) @name) @type
(const_item name: (identifier) @name) @const
(static_item name: (identifier) @name) @var
(mod_item name: (identifier) @name) @module
(macro_definition name: (identifier) @name) @macro
`,
	prepare:     prepareRust,
	finish:      finishRust,
	sigEnd:      rustSigEnd,
	extendStart: map[string]bool{"attribute_item": true},
	doc: docRules{
		line:     []string{"///"},
		notLine:  []string{"////"},
		block:    []string{"/**"},
		notBlock: []string{"/**/", "/***"},
		comments: map[string]bool{"line_comment": true, "block_comment": true},
	},
}

func prepareRust(x *extractor, d *def) bool {
	parent := d.node.Parent()
	if parent == nil {
		return true
	}
	switch parent.Type() {
	case "block":
		// Items inside function bodies: nested functions are kept, local
		// constants and statics are not.
		return d.kind != KindConst && d.kind != KindVar
	case "declaration_list":
		impl := parent.Parent()
		if impl == nil || impl.Type() != "impl_item" {
			return true
		}
		d.hasOverride = true
		d.containerOverride = rustTypeName(x, impl.ChildByFieldName("type"))
		if d.kind == KindFunction {
			d.kind = KindMethod
		}
		if impl.ChildByFieldName("trait") != nil {
			// Methods of a trait implementation are as visible as the
			// trait: public API even without pub.
			d.exported = true
		}
	}
	return true
}

// rustTypeName returns the base name of an impl's self type:
// "S<T>" → "S", "&'a mut Vec<u8>" → "Vec", "crate::m::S" → "S".
func rustTypeName(x *extractor, n *sitter.Node) string {
	for i := 0; n != nil && i < 8; i++ {
		switch n.Type() {
		case "type_identifier", "primitive_type":
			return x.text(n)
		case "generic_type", "reference_type", "pointer_type":
			n = n.ChildByFieldName("type")
		case "scoped_type_identifier":
			n = n.ChildByFieldName("name")
		default:
			s := x.text(n)
			if i := strings.IndexAny(s, "<("); i > 0 {
				s = s[:i]
			}
			return strings.TrimSpace(s)
		}
	}
	return ""
}

func finishRust(x *extractor, d *def) {
	p := x.parentDef(d)
	if d.kind == KindFunction && p != nil && p.kind == KindTrait {
		d.kind = KindMethod
	}
	if d.exported && d.hasOverride {
		return // trait impl member
	}
	public := false
	switch {
	case d.kind == KindMacro:
		public = strings.Contains(string(x.src[d.span.StartByte:d.node.StartByte()]), "macro_export")
	case p != nil && p.kind == KindTrait:
		public = true // trait items are as visible as the trait
	default:
		count := int(d.node.NamedChildCount())
		for i := 0; i < count; i++ {
			c := d.node.NamedChild(i)
			if c.Type() == "visibility_modifier" {
				public = x.text(c) == "pub"
				break
			}
		}
	}
	d.exported = public && (p == nil || p.exported)
}

// rustSigEnd ends macro_rules! signatures before the rules.
func rustSigEnd(x *extractor, d *def) int {
	if d.node.Type() != "macro_definition" {
		return -1
	}
	count := int(d.node.ChildCount())
	for i := 0; i < count; i++ {
		if c := d.node.Child(i); c.Type() == "{" || c.Type() == "(" || c.Type() == "[" {
			return int(c.StartByte())
		}
	}
	return -1
}
