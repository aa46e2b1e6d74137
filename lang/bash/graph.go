package bash

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/graph"
)

// A command is a call of the function of that name, in any file: shell
// scripts share one global namespace. source and . name the files they
// read, relative to the script.
var graphSpec = &graph.Lang{
	Query: `
(command name: (command_name (word) @name)) @call
(command name: (command_name (word) @import.fn) argument: (_) @import.path) @bash_source
`,
	Family: "bash",
	Builtins: graph.SetOf(": echo printf cd pwd test [ [[ exit return local export set unset shift read eval exec source . true false " +
		"trap wait kill let declare typeset readonly getopts command type hash alias unalias printenv env sleep cat grep sed awk " +
		"ls rm cp mv mkdir rmdir chmod chown find xargs sort uniq head tail wc cut tr tee date basename dirname git make go python3 " +
		"python curl tar"),
	Handlers: map[string]func(*graph.Extractor, *sitter.Node, graph.Captures){
		"bash_source": bashSource,
	},
	Global: true,
}

// bashSource records source FILE and . FILE as imports of the file
// relative to the script ("${DIR}/lib.sh" and "$DIR/lib.sh" as lib.sh).
func bashSource(x *graph.Extractor, n *sitter.Node, caps graph.Captures) {
	fn := x.Text(caps.Node("import.fn"))
	if fn != "source" && fn != "." {
		return
	}
	spec := strings.Trim(x.Text(caps.Node("import.path")), `"'`)
	if i := strings.LastIndexByte(spec, '}'); i >= 0 {
		spec = strings.TrimPrefix(spec[i+1:], "/") // "${DIR}/lib.sh" → lib.sh
	}
	if i := strings.LastIndex(spec, "/"); strings.HasPrefix(spec, "$") && i >= 0 {
		spec = spec[i+1:] // "$DIR/lib.sh" → lib.sh
	}
	if spec == "" || strings.HasPrefix(spec, "$") {
		return
	}
	x.AddImport(graph.Import{Path: spec, Module: path.Clean(path.Join(path.Dir(x.Path()), spec)), Line: int(n.StartPoint().Row)})
}
