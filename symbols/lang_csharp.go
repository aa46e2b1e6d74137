package symbols

import (
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

var csharpSpec = &langSpec{
	scopes: map[string]bool{"compilation_unit": true, "namespace_declaration": true, "file_scoped_namespace_declaration": true, "declaration_list": true, "class_declaration": true, "struct_declaration": true, "interface_declaration": true, "record_declaration": true},
	prune:  map[string]string{"method_declaration": "", "constructor_declaration": "", "destructor_declaration": "", "operator_declaration": "", "conversion_operator_declaration": ""},
	query: `
(namespace_declaration name: (_) @name) @module
(file_scoped_namespace_declaration name: (_) @name) @module
(class_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class
(struct_declaration name: (identifier) @name) @struct
(interface_declaration name: (identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(delegate_declaration name: (identifier) @name) @type
(method_declaration name: (identifier) @name) @method
(constructor_declaration name: (identifier) @name) @constructor
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @const
`,
	prepare: func(x *extractor, d *def) bool {
		if d.kind == KindConst {
			return modifierSetTypes(x, d.node, "modifier")["const"] && x.parentType(d.node) == "declaration_list"
		}
		return true
	},
	names: func(x *extractor, d *def) []*sitter.Node {
		if d.kind != KindConst {
			return nil
		}
		var out []*sitter.Node
		count := int(d.node.NamedChildCount())
		for i := 0; i < count; i++ {
			vd := d.node.NamedChild(i)
			if vd.Type() != "variable_declaration" {
				continue
			}
			for _, decl := range namedChildrenOfType(vd, "variable_declarator") {
				if n := decl.ChildByFieldName("name"); n != nil {
					out = append(out, n)
				}
			}
		}
		return out
	},
	post: func(x *extractor) {
		x.extendStatementScopes("file_scoped_namespace_declaration")
	},
	finish: func(x *extractor, d *def) {
		p := x.parentDef(d)
		if d.kind == KindModule {
			d.exported = true
			return
		}
		mods := modifierSetTypes(x, d.node, "modifier")
		public := mods["public"]
		if p != nil && p.kind == KindInterface && !mods["private"] {
			public = true
		}
		d.exported = public && (p == nil || p.exported)
	},
	skipAtSigStart: map[string]bool{"attribute_list": true, "comment": true},
	doc: docRules{
		line:     []string{"///"},
		notLine:  []string{"////"},
		block:    []string{"/**"},
		notBlock: []string{"/**/"},
		comments: map[string]bool{"comment": true},
		clean:    cleanXMLDoc,
	},
}

var (
	xmlSeeRef = regexp.MustCompile(`<(?:see|seealso|paramref|typeparamref)\s+(?:cref|name|langword)="([^"]*)"\s*/>`)
	xmlTag    = regexp.MustCompile(`</?[A-Za-z][^>]*>`)
)

// cleanXMLDoc turns C# XML doc comments into text: references keep their
// target, other tags are dropped.
func cleanXMLDoc(s string) string {
	s = xmlSeeRef.ReplaceAllString(s, "$1")
	s = xmlTag.ReplaceAllString(s, "")
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return trimBlankLines(strings.Join(lines, "\n"))
}

// namedChildrenOfType returns n's named children of type t.
func namedChildrenOfType(n *sitter.Node, t string) []*sitter.Node {
	var out []*sitter.Node
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		if c := n.NamedChild(i); c.Type() == t {
			out = append(out, c)
		}
	}
	return out
}
