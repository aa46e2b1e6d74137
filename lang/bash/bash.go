// Package bash is context-ls's support for shell scripts (bash and the
// POSIX-family shells its grammar parses well enough), kept in one place:
// file detection (the symbols.Language), the extraction of functions and
// script variables (symbols.go), and commands as call sites, sourced files
// as imports, one global namespace (graph.go). Importing the package
// registers it with symbols and graph; lang/all imports every such
// language.
package bash

import (
	grammar "github.com/smacker/go-tree-sitter/bash"

	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/symbols"
)

// Language is shell script as symbols detects it.
var Language = &symbols.Language{
	Name: "bash", LineComment: "#", Extensions: []string{".sh", ".bash", ".zsh", ".ksh"},
	Filenames:    []string{".bashrc", ".bash_profile", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".envrc"},
	Interpreters: []string{"bash", "sh", "dash", "ash", "ksh", "zsh"},
	Aliases:      []string{"sh", "shell"},
}

func init() {
	symbols.Register(Language, symbols.Code{Grammar: grammar.GetLanguage, Spec: symbolsSpec})
	graph.Register(graphSpec, Language.Name)
}
