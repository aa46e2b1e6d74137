package symbols

import sitter "github.com/smacker/go-tree-sitter"

var phpSpec = &langSpec{
	scopes: map[string]bool{"program": true, "namespace_definition": true, "compound_statement": true, "class_declaration": true, "declaration_list": true, "interface_declaration": true, "trait_declaration": true, "enum_declaration": true, "enum_declaration_list": true},
	prune:  map[string]string{"function_definition": "", "method_declaration": ""},
	query: `
(namespace_definition name: (namespace_name) @name) @module
(function_definition name: (name) @name) @function
(class_declaration name: (name) @name) @class
(interface_declaration name: (name) @name) @interface
(trait_declaration name: (name) @name) @trait
(enum_declaration name: (name) @name) @enum
(method_declaration name: (name) @name) @method
(const_declaration (const_element (name) @name)) @const
`,
	names: func(x *extractor, d *def) []*sitter.Node {
		if d.kind != KindConst {
			return nil
		}
		var out []*sitter.Node
		for _, el := range namedChildrenOfType(d.node, "const_element") {
			if names := namedChildrenOfType(el, "name"); len(names) > 0 {
				out = append(out, names[0])
			}
		}
		return out
	},
	post: func(x *extractor) {
		x.extendStatementScopes("namespace_definition")
	},
	finish: func(x *extractor, d *def) {
		p := x.parentDef(d)
		if d.kind == KindMethod && d.name == "__construct" {
			d.kind = KindConstructor
		}
		vis := modifierSetTypes(x, d.node, "visibility_modifier")
		public := !vis["private"] && !vis["protected"]
		d.exported = public && (p == nil || p.exported || p.kind == KindModule)
	},
	skipAtSigStart: map[string]bool{"attribute_list": true, "comment": true},
	doc: docRules{
		block:    []string{"/**"},
		notBlock: []string{"/**/"},
		comments: map[string]bool{"comment": true},
	},
}
