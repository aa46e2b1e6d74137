package symbols

var kotlinSpec = &langSpec{
	scopes: map[string]bool{"source_file": true, "class_declaration": true, "class_body": true, "object_declaration": true, "companion_object": true, "enum_class_body": true},
	prune:  map[string]string{"function_declaration": "", "secondary_constructor": ""},
	query: `
(class_declaration (type_identifier) @name) @class
(object_declaration (type_identifier) @name) @class
(function_declaration (simple_identifier) @name) @function
(secondary_constructor "constructor" @name) @constructor
(type_alias (type_identifier) @name) @type
(property_declaration (variable_declaration (simple_identifier) @name)) @var
`,
	prepare: func(x *extractor, d *def) bool {
		n := d.node
		switch n.Type() {
		case "class_declaration":
			mods := modifierSet(x, n, "modifiers")
			switch {
			case HasChildOfType(n, "interface"):
				d.kind = KindInterface
			case mods["enum"] || HasChildOfType(n, "enum"):
				d.kind = KindEnum
			}
		case "function_declaration":
			// Extension functions (fun String.pad()) are qualified by
			// their receiver type, like Go methods.
			if recv := ChildBefore(n, "user_type", "simple_identifier"); recv != nil {
				d.hasOverride = true
				d.containerOverride = x.text(recv)
			}
		case "property_declaration":
			isConst := modifierSet(x, n, "modifiers")["const"]
			switch {
			case x.atFileLevel(n):
			case isConst && x.parentType(n) == "class_body":
			default:
				return false // in classes only const val is listed; no locals
			}
			if isConst {
				d.kind = KindConst
			}
		}
		return true
	},
	finish: func(x *extractor, d *def) {
		p := x.parentDef(d)
		if d.kind == KindFunction && p != nil && isTypeKind(p.kind) {
			d.kind = KindMethod
		}
		mods := modifierSet(x, d.node, "modifiers")
		hidden := mods["private"] || mods["protected"] || mods["internal"]
		d.exported = !hidden && (p == nil || p.exported)
	},
	skipAtSigStart: map[string]bool{"annotation": true, "line_comment": true, "multiline_comment": true},
	wrapAtSigStart: map[string]bool{"modifiers": true},
	bodyTypes:      map[string]bool{"class_body": true, "enum_class_body": true, "function_body": true},
	doc: docRules{
		block:    []string{"/**"},
		notBlock: []string{"/**/"},
		comments: map[string]bool{"multiline_comment": true, "line_comment": true},
	},
}
