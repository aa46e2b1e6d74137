package bash

import (
	"strings"

	"github.com/context-ls/context-ls/symbols"
)

// Definitions: functions (exported unless named _like_this) and the
// first assignment of each file-level variable (readonly and declare -r:
// constants; export: exported).
var symbolsSpec = &symbols.Spec{
	Scopes: map[string]bool{"program": true},
	Prune:  map[string]string{"function_definition": ""},
	Query: `
(function_definition name: (word) @name) @function
(variable_assignment name: (variable_name) @name) @var
(declaration_command (variable_assignment name: (variable_name) @name)) @var
`,
	Prepare: func(x *symbols.Extractor, d *symbols.Def) bool {
		if d.Kind() != symbols.KindVar {
			return true
		}
		if !x.AtFileLevel(d.Node()) || !x.FirstAtTop(d.Name()) {
			return false // reassignments of a script variable
		}
		if d.Node().Type() == "declaration_command" {
			words := strings.Fields(x.Text(d.Node()))
			if len(words) > 0 && (words[0] == "readonly" || (words[0] == "declare" || words[0] == "typeset") && len(words) > 1 && strings.HasPrefix(words[1], "-") && strings.Contains(words[1], "r")) {
				d.SetKind(symbols.KindConst)
			}
			d.SetExported(len(words) > 0 && words[0] == "export")
		}
		return true
	},
	Finish: func(x *symbols.Extractor, d *symbols.Def) {
		if d.Kind() == symbols.KindFunction {
			// No visibility in shell: a leading underscore marks helpers
			// by convention.
			d.SetExported(!strings.HasPrefix(d.Name(), "_"))
		}
	},
	DocLine:    []string{"#"},
	NotDocLine: []string{"#!"},
	Comments:   map[string]bool{"comment": true},
}
