package symbols

import (
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/python"
)

// codeLanguages lists the languages parsed with a tree-sitter grammar.
func codeLanguages() []*Language {
	return []*Language{
		{Name: "go", Extensions: []string{".go"}, grammar: golang.GetLanguage, spec: goSpec},
		{
			Name: "python", Extensions: []string{".py", ".pyi", ".pyw"},
			Filenames: []string{"SConstruct", "SConscript"}, Interpreters: []string{"python", "pypy"},
			grammar: python.GetLanguage, spec: pythonSpec,
		},
	}
}
