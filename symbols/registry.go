package symbols

import (
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// codeLanguages lists the languages parsed with a tree-sitter grammar
// whose rules live in this package; a language in its own package
// (lang/<name>) adds itself with Register.
func codeLanguages() []*Language {
	return []*Language{
		{Name: "go", Aliases: []string{"golang"}, LineComment: "//", Bodies: BraceBodies, Extensions: []string{".go"}, TestFiles: []string{"*_test.go"}, grammar: golang.GetLanguage, spec: goSpec},
		{
			Name: "python", LineComment: "#", Bodies: IndentedBodies, DocStrings: true, Extensions: []string{".py", ".pyi", ".pyw"},
			Filenames: []string{"SConstruct", "SConscript"}, Interpreters: []string{"python", "pypy"}, Aliases: []string{"py", "python3"},
			TestFiles: []string{"test_*.py", "*_test.py", "conftest.py"}, grammar: python.GetLanguage, spec: pythonSpec,
		},
		{
			Name: "javascript", LineComment: "//", Bodies: BraceBodies, Extensions: []string{".js", ".mjs", ".cjs", ".jsx"},
			Interpreters: []string{"node", "nodejs"}, Aliases: []string{"js", "node"}, grammar: javascript.GetLanguage, spec: javascriptSpec,
		},
		{
			Name: "typescript", LineComment: "//", Bodies: BraceBodies, Extensions: []string{".ts", ".mts", ".cts"},
			Interpreters: []string{"ts-node", "tsx", "deno", "bun"}, Aliases: []string{"ts"}, grammar: typescript.GetLanguage, spec: typescriptSpec,
			repair: separateCallSignatures,
		},
		{Name: "c", LineComment: "//", Bodies: BraceBodies, Extensions: []string{".c", ".h"}, grammar: c.GetLanguage, spec: cSpec, refine: cppHeader},
		{
			Name: "cpp", LineComment: "//", Bodies: BraceBodies, Extensions: []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp", ".inl"},
			Aliases: []string{"c++", "cxx"}, grammar: cpp.GetLanguage, spec: cppSpec,
		},
		{Name: "java", LineComment: "//", Bodies: BraceBodies, Extensions: []string{".java"}, TestFiles: []string{"*Test.java", "*Tests.java"}, grammar: java.GetLanguage, spec: javaSpec},
		{Name: "kotlin", Aliases: []string{"kt"}, LineComment: "//", Bodies: BraceBodies, Extensions: []string{".kt", ".kts"}, grammar: kotlin.GetLanguage, spec: kotlinSpec},
		{
			Name: "ruby", LineComment: "#", Extensions: []string{".rb", ".rake", ".gemspec", ".ru"},
			Filenames:    []string{"Gemfile", "Rakefile", "Vagrantfile", "Guardfile", "Podfile", "Brewfile"},
			Interpreters: []string{"ruby", "jruby"}, Aliases: []string{"rb"}, TestFiles: []string{"*_spec.rb", "*_test.rb"}, grammar: ruby.GetLanguage, spec: rubySpec,
		},
		{Name: "csharp", Aliases: []string{"cs", "c#"}, LineComment: "//", Bodies: BraceBodies, Extensions: []string{".cs", ".csx"}, grammar: csharp.GetLanguage, spec: csharpSpec},
		{Name: "php", LineComment: "//", Bodies: BraceBodies, Extensions: []string{".php", ".phtml", ".php3", ".php4", ".php5", ".phps"}, Interpreters: []string{"php"}, grammar: php.GetLanguage, spec: phpSpec},
		{Name: "rust", Aliases: []string{"rs"}, LineComment: "//", Bodies: BraceBodies, Extensions: []string{".rs"}, grammar: rust.GetLanguage, spec: rustSpec},
		{Name: "tsx", LineComment: "//", Bodies: BraceBodies, Extensions: []string{".tsx"}, grammar: tsx.GetLanguage, spec: typescriptSpec},
	}
}
