package symbols

import "strings"

var bashSpec = &langSpec{
	scopes: map[string]bool{"program": true},
	prune:  map[string]string{"function_definition": ""},
	query: `
(function_definition name: (word) @name) @function
(variable_assignment name: (variable_name) @name) @var
(declaration_command (variable_assignment name: (variable_name) @name)) @var
`,
	prepare: func(x *extractor, d *def) bool {
		if d.kind != KindVar {
			return true
		}
		if !x.atFileLevel(d.node) || !x.firstAtTop(d) {
			return false // reassignments of a script variable
		}
		if d.node.Type() == "declaration_command" {
			words := strings.Fields(x.text(d.node))
			if len(words) > 0 && (words[0] == "readonly" || (words[0] == "declare" || words[0] == "typeset") && len(words) > 1 && strings.HasPrefix(words[1], "-") && strings.Contains(words[1], "r")) {
				d.kind = KindConst
			}
			d.exported = len(words) > 0 && words[0] == "export"
		}
		return true
	},
	finish: func(x *extractor, d *def) {
		if d.kind == KindFunction {
			// No visibility in shell: a leading underscore marks helpers
			// by convention.
			d.exported = !strings.HasPrefix(d.name, "_")
		}
	},
	doc: docRules{
		line:     []string{"#"},
		notLine:  []string{"#!"},
		comments: map[string]bool{"comment": true},
	},
}
