package symbols

import "strings"

var pythonSpec = &langSpec{
	scopes: map[string]bool{"module": true, "decorated_definition": true, "class_definition": true, "block": true, "expression_statement": true},
	prune:  map[string]string{"function_definition": "", "assignment": "right"},
	query: `
(function_definition name: (identifier) @name) @function
(class_definition name: (identifier) @name) @class
(type_alias_statement . (type (identifier) @name)) @type @stmt
(expression_statement (assignment left: (identifier) @name) @var) @stmt
(expression_statement (assignment left: (pattern_list (identifier) @name)) @var) @stmt
(expression_statement (assignment left: (tuple_pattern (identifier) @name)) @var) @stmt
`,
	prepare: preparePython,
	finish:  finishPython,
	doc: docRules{
		line:      []string{"#"},
		notLine:   []string{"#!"},
		comments:  map[string]bool{"comment": true},
		docstring: true,
	},
}

func preparePython(x *extractor, d *def) bool {
	if stmt := d.aux["stmt"]; stmt != nil && !x.atFileLevel(stmt) {
		return false // class attributes and assignments in blocks
	}
	switch d.node.Type() {
	case "function_definition", "class_definition":
		if p := d.node.Parent(); p != nil && p.Type() == "decorated_definition" {
			d.outer = p
		}
	case "assignment":
		if !x.firstAtTop(d) {
			return false // a later rebinding of a module-level name
		}
		ann := ""
		if t := d.node.ChildByFieldName("type"); t != nil {
			ann = x.text(t)
		}
		switch {
		case strings.HasSuffix(ann, "TypeAlias"):
			d.kind = KindType
		case IsConstantName(d.name) || strings.HasPrefix(ann, "Final") || strings.Contains(ann, ".Final"):
			d.kind = KindConst
		}
	}
	return true
}

func finishPython(x *extractor, d *def) {
	p := x.parentDef(d)
	if d.kind == KindFunction && p != nil && p.kind == KindClass {
		d.kind = KindMethod
		if d.name == "__init__" {
			d.kind = KindConstructor
		}
	}
	d.exported = pythonPublic(d.name) && (p == nil || (p.kind == KindClass && p.exported))
}

// pythonPublic applies the underscore convention; dunder names such as
// __init__ are public protocol methods.
func pythonPublic(name string) bool {
	if !strings.HasPrefix(name, "_") {
		return true
	}
	return len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")
}

// IsConstantName reports an ALL_CAPS identifier with at least one letter.
func IsConstantName(name string) bool {
	letter := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			letter = true
		case r == '_' || (r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return letter
}
