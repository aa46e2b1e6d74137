package symbols

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// Language describes one language context-ls recognises: how to detect it
// and, for code languages, the tree-sitter grammar and the compiled
// definitions query used to extract symbols.
//
// Languages are registered once at package initialisation and are immutable
// afterwards; a *Language may be shared freely between goroutines and
// compared by pointer.
type Language struct {
	// Name is the stable identifier ("go", "python", "cpp", "text" …). It is
	// stored in the index and used in CLI and LSP output.
	Name string
	// Extensions lists the file name extensions, lower case with the leading
	// dot (".go"), that select this language.
	Extensions []string
	// Filenames lists exact base names ("Gemfile", ".bashrc") that select
	// this language regardless of extension.
	Filenames []string
	// Interpreters lists the interpreter names recognised on a "#!" line
	// ("python", "bash"), without version suffixes.
	Interpreters []string
	// Aliases lists other names ByName accepts, lower case ("golang",
	// "py", "sh").
	Aliases []string
	// LineComment is the line comment marker ("//", "#", "--"; "" for
	// none).
	LineComment string
	// Bodies says how function bodies are delimited, for tools that elide
	// them (context packs).
	Bodies Bodies
	// DocStrings: the language documents its code in string literals
	// (Python's docstrings), so English in a literal is documentation,
	// not embedded prose.
	DocStrings bool
	// TestFiles lists the base names of test files by the language's
	// naming convention, each with at most one "*" standing for any run of
	// characters ("*_test.go", "test_*.py", "conftest.py"); see IsTestFile.
	TestFiles []string

	// grammar returns the tree-sitter language; nil for text languages.
	grammar func() *sitter.Language
	// spec holds the extraction query and hooks; nil for text languages.
	spec *langSpec

	// header, when set, tells whether a top-level node belongs to the
	// file's header, for a language whose imports are not told by their
	// node types (Lua's are calls).
	header func(n *sitter.Node, src []byte) bool
	// refine, when set, may name another language for a file of this one
	// by its first bytes (a C header written in C++).
	refine func(p string, head []byte) *Language

	// repair, when set, returns a copy of src of the same length that the
	// grammar parses where it fails on src (a defect of the grammar worked
	// around), or nil; the copy is parsed only when src's tree has
	// errors, and kept only when it has fewer (Parser.parseTree).
	repair func(src []byte) []byte

	// parseMu, when set, serialises parses of this language across every
	// Parser: for grammars whose external scanner keeps state in C
	// globals instead of its per-parser payload.
	parseMu *sync.Mutex

	once     sync.Once
	ts       *sitter.Language
	query    *sitter.Query
	captures []capture // indexed by query capture id
	qerr     error
}

// Bodies says how a language delimits function bodies.
type Bodies int

const (
	// OtherBodies: neither braces nor indentation (end keywords, or no
	// functions).
	OtherBodies Bodies = iota
	// BraceBodies: a body is a { … } block.
	BraceBodies
	// IndentedBodies: a body is the lines indented under its header
	// (Python).
	IndentedBodies
)

// HeaderNode reports whether a top-level node of a file belongs to its
// header (shebang, imports) by the language's own rule; ok is false when
// the language has none (its imports are told by their node types).
func (l *Language) HeaderNode(n *sitter.Node, src []byte) (header, ok bool) {
	if l == nil || l.header == nil {
		return false, false
	}
	return l.header(n, src), true
}

// IsTestFile reports whether base, the base name of a file of this
// language, names a test file by the language's convention.
func (l *Language) IsTestFile(base string) bool {
	if l == nil {
		return false
	}
	for _, pat := range l.TestFiles {
		pre, suf, wild := strings.Cut(pat, "*")
		if !wild && base == pat || wild && len(base) >= len(pre)+len(suf) && strings.HasPrefix(base, pre) && strings.HasSuffix(base, suf) {
			return true
		}
	}
	return false
}

// HasGrammar reports whether the language is parsed with tree-sitter. Text
// languages (markdown, yaml, json …) are only detected; chunking splits them
// by line rules.
func (l *Language) HasGrammar() bool { return l != nil && l.grammar != nil }

// Grammar returns the tree-sitter language for running further queries on
// File.Tree, or nil for a language without grammar.
func (l *Language) Grammar() *sitter.Language {
	if !l.HasGrammar() {
		return nil
	}
	l.compile()
	return l.ts
}

// String returns the language name.
func (l *Language) String() string {
	if l == nil {
		return "<nil>"
	}
	return l.Name
}

// compile loads the grammar and compiles the definitions query exactly once.
// The compiled query is immutable and shared by every Parser.
func (l *Language) compile() error {
	l.once.Do(func() {
		l.ts = l.grammar()
		q, err := sitter.NewQuery([]byte(l.querySource()), l.ts)
		if err != nil {
			l.qerr = fmt.Errorf("symbols: compile %s definitions query: %w", l.Name, err)
			return
		}
		l.query = q
		l.captures = make([]capture, q.CaptureCount())
		for i := range l.captures {
			l.captures[i] = parseCapture(q.CaptureNameForId(uint32(i)))
		}
	})
	return l.qerr
}

// querySource returns the definitions query text.
func (l *Language) querySource() string { return l.spec.query }

var (
	registry   []*Language
	byName     = map[string]*Language{}
	byExt      = map[string]*Language{}
	byFilename = map[string]*Language{}
	byInterp   = map[string]*Language{}
	byAlias    = map[string]*Language{}
)

// register adds l to the registry; it panics on a duplicate name, extension,
// file name or alias because that is a programming error caught by every test run.
func register(l *Language) {
	if _, dup := byName[l.Name]; dup {
		panic("symbols: duplicate language " + l.Name)
	}
	i, _ := slices.BinarySearchFunc(registry, l.Name, func(r *Language, name string) int { return strings.Compare(r.Name, name) })
	registry = slices.Insert(registry, i, l) // by name, as All lists them
	byName[l.Name] = l
	for _, e := range l.Extensions {
		if _, dup := byExt[e]; dup {
			panic("symbols: duplicate extension " + e)
		}
		byExt[e] = l
	}
	for _, f := range l.Filenames {
		if _, dup := byFilename[f]; dup {
			panic("symbols: duplicate file name " + f)
		}
		byFilename[f] = l
	}
	for _, i := range l.Interpreters {
		byInterp[i] = l
	}
	for _, a := range l.Aliases {
		if _, dup := byAlias[a]; dup {
			panic("symbols: duplicate alias " + a)
		}
		byAlias[a] = l
	}
}

func init() {
	for _, l := range codeLanguages() {
		register(l)
	}
	for _, l := range textLanguages() {
		register(l)
	}
}

// textLanguages are detected but not parsed: they have no grammar here.
func textLanguages() []*Language {
	return []*Language{
		{Name: "markdown", Extensions: []string{".md", ".markdown", ".mdx"}, Aliases: []string{"md"}},
		{Name: "yaml", Extensions: []string{".yml", ".yaml"}, LineComment: "#", Aliases: []string{"yml"}},
		{Name: "toml", Extensions: []string{".toml"}, Filenames: []string{"Cargo.lock", "Pipfile"}, LineComment: "#"},
		{Name: "sql", Extensions: []string{".sql"}, LineComment: "--"},
		{Name: "json", Extensions: []string{".json", ".jsonc", ".json5", ".jsonl", ".ndjson"}, Filenames: []string{".babelrc", ".eslintrc"}},
		{
			Name:       "text",
			Extensions: []string{".txt", ".text", ".rst", ".adoc", ".asciidoc", ".org"}, Aliases: []string{"txt"},
			Filenames: []string{"README", "LICENSE", "COPYING", "NOTICE", "AUTHORS", "CHANGELOG", "Makefile", "GNUmakefile", "makefile", "Dockerfile", "Containerfile"},
		},
	}
}

// ByName returns the language with the given name (or a common alias such as
// "golang", "c++", "ts"), case-insensitively; nil if unknown.
func ByName(name string) *Language {
	n := strings.ToLower(strings.TrimSpace(name))
	if l, ok := byAlias[n]; ok {
		return l
	}
	return byName[n]
}

// All returns every registered language, sorted by name. The slice is a copy;
// the languages are shared.
func All() []*Language {
	return append([]*Language(nil), registry...)
}

// ForPath selects a language from a slash- or OS-separated path by its base
// name (Makefile, Gemfile, .bashrc) or its extension, case-insensitively for
// extensions. It returns nil for unknown files. Headers ending in ".h" are C;
// use ForContent to recognise C++ headers by their content.
func ForPath(p string) *Language {
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	if base == "." || base == "/" || base == "" {
		return nil
	}
	if l, ok := byFilename[base]; ok {
		return l
	}
	ext := strings.ToLower(path.Ext(base))
	if ext == "" || ext == base {
		// ".bashrc"-style names without a registered file name, or no
		// extension at all.
		return nil
	}
	return byExt[ext]
}

// ForContent is ForPath refined by the first bytes of the file: files
// without a known name or extension are recognised by a "#!" interpreter
// line (#!/usr/bin/env python3, #!/bin/bash), and ".h" headers that use C++
// constructs (class, namespace, template, access specifiers) are C++.
// It returns nil when neither the path nor the content identifies a language.
func ForContent(p string, head []byte) *Language {
	l := ForPath(p)
	if l != nil {
		if l.refine != nil {
			if r := l.refine(p, head); r != nil {
				return r
			}
		}
		return l
	}
	return byInterp[shebangInterpreter(head)]
}

// shebangInterpreter extracts the interpreter name from a "#!" first line,
// skipping "env" and its flags and dropping version suffixes
// ("python3.12" → "python"). It returns "" when there is none.
func shebangInterpreter(head []byte) string {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	name := path.Base(fields[0])
	if name == "env" {
		name = ""
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue // env flags (-S) and VAR=value assignments
			}
			name = path.Base(f)
			break
		}
	}
	return strings.TrimRight(name, "0123456789.")
}
