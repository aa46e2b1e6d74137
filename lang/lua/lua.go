// Package lua is context-ls's support for Lua, kept in one place: file
// detection and test-file naming (the symbols.Language), the extraction
// of definitions (symbols.go), and call sites, requires, busted blocks and
// resolution by Lua's scoping (graph.go). Importing the package registers
// it with symbols and graph; lang/all imports every such language.
package lua

import (
	grammar "github.com/smacker/go-tree-sitter/lua"

	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/symbols"
)

// Language is Lua as symbols detects it.
var Language = &symbols.Language{
	Name: "lua", LineComment: "--", Extensions: []string{".lua", ".rockspec"}, Filenames: []string{".luacheckrc", ".busted"},
	Interpreters: []string{"lua", "luajit"},
	// busted's default pattern and the other common one.
	TestFiles: []string{"*_spec.lua", "*_test.lua"},
}

func init() {
	symbols.Register(Language, symbols.Code{
		Grammar: grammar.GetLanguage, Spec: symbolsSpec, Header: luaHeader,
		// The grammar's external scanner keeps its long-bracket state in
		// C globals: two parses at once corrupt each other.
		SerialParse: true,
	})
	graph.Register(graphSpec, Language.Name)
}
