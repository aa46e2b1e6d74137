package symbols

import (
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

func TestForPath(t *testing.T) {
	tests := []struct{ path, want string }{
		{"main.go", "go"},
		{"pkg/sub/file.GO", "go"},
		{`C:\src\app.py`, "python"},
		{"types.pyi", "python"},
		{"app.js", "javascript"}, {"mod.mjs", "javascript"}, {"cfg.cjs", "javascript"}, {"view.jsx", "javascript"},
		{"a.ts", "typescript"}, {"a.mts", "typescript"}, {"a.cts", "typescript"},
		{"comp.tsx", "tsx"},
		{"Main.java", "java"},
		{"lib.rs", "rust"},
		{"x.c", "c"}, {"x.h", "c"},
		{"x.cc", "cpp"}, {"x.cpp", "cpp"}, {"x.cxx", "cpp"}, {"x.hpp", "cpp"}, {"x.hh", "cpp"}, {"x.hxx", "cpp"},
		{"a.rb", "ruby"}, {"Gemfile", "ruby"}, {"Rakefile", "ruby"},
		{"a.cs", "csharp"},
		{"index.php", "php"},
		{"a.kt", "kotlin"}, {"build.gradle.kts", "kotlin"},
		{"README.md", "markdown"}, {"doc.markdown", "markdown"},
		{"ci.yml", "yaml"}, {"ci.yaml", "yaml"},
		{"Cargo.toml", "toml"},
		{"schema.sql", "sql"},
		{"package.json", "json"},
		{"notes.txt", "text"}, {"index.rst", "text"}, {"LICENSE", "text"}, {"Makefile", "text"}, {"Dockerfile", "text"},
		{"image.png", ""},
		{"noext", ""},
		{".gitignore", ""},
		{"", ""},
		{"dir/", ""},
		{"archive.tar.gz", ""},
	}
	for _, tt := range tests {
		got := ""
		if l := ForPath(tt.path); l != nil {
			got = l.Name
		}
		if got != tt.want {
			t.Errorf("ForPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestForContent(t *testing.T) {
	tests := []struct{ path, head, want string }{
		{"bin/tool", "#!/usr/bin/env python3\nimport sys\n", "python"},
		{"bin/tool", "#!/usr/bin/python3.12 -u\n", "python"},
		{"bin/tool", "#!/usr/bin/env -S node --harmony\n", "javascript"},
		{"bin/tool", "#!/usr/bin/env ruby\n", "ruby"},
		{"bin/tool", "#!/usr/bin/env FOO=1 php\n", "php"},
		{"bin/tool", "#!/usr/bin/env perl\n", ""},
		{"bin/tool", "#!\n", ""},
		{"bin/tool", "plain text", ""},
		{"bin/tool", "", ""},
		{"script.py", "#!/bin/bash\n", "python"}, // the extension wins
		{"inc/api.h", "#pragma once\nclass Widget {\n public:\n};\n", "cpp"},
		{"inc/api.h", "namespace x {}\n", "cpp"},
		{"inc/api.h", "#include <stdio.h>\nint f(void);\n", "c"},
		{"inc/api.h", "/* a class of problems */\nint f(void);\n", "c"},
	}
	for _, tt := range tests {
		got := ""
		if l := ForContent(tt.path, []byte(tt.head)); l != nil {
			got = l.Name
		}
		if got != tt.want {
			t.Errorf("ForContent(%q, %q) = %q, want %q", tt.path, tt.head, got, tt.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	wantGrammar := []string{"c", "cpp", "csharp", "go", "java", "javascript", "kotlin", "php", "python", "ruby", "rust", "tsx", "typescript"}
	wantText := []string{"json", "markdown", "sql", "text", "toml", "yaml"}
	all := All()
	if len(all) != len(wantGrammar)+len(wantText) {
		t.Fatalf("All() has %d languages", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Name >= all[i].Name {
			t.Fatalf("All() not sorted: %s before %s", all[i-1].Name, all[i].Name)
		}
	}
	for _, n := range wantGrammar {
		l := ByName(n)
		if l == nil || !l.HasGrammar() || l.Grammar() == nil {
			t.Errorf("%s: missing or without grammar", n)
		}
	}
	for _, n := range wantText {
		l := ByName(n)
		if l == nil || l.HasGrammar() || l.Grammar() != nil {
			t.Errorf("%s: missing or unexpectedly has a grammar", n)
		}
	}
	aliases := map[string]string{"golang": "go", "C++": "cpp", "c#": "csharp", " TS ": "typescript", "py": "python", "yml": "yaml", "node": "javascript"}
	for alias, want := range aliases {
		if l := ByName(alias); l == nil || l.Name != want {
			t.Errorf("ByName(%q) = %v, want %s", alias, l, want)
		}
	}
	if ByName("cobol") != nil {
		t.Error("ByName(cobol) should be nil")
	}
	var nilLang *Language
	if nilLang.HasGrammar() || nilLang.Grammar() != nil || nilLang.String() != "<nil>" {
		t.Error("nil *Language methods should be safe")
	}
	// The slice is a copy.
	all[0] = nil
	if All()[0] == nil {
		t.Error("All() exposes the registry slice")
	}
}

// TestQueriesCompile compiles every language's query; a typo in a node
// type fails here, not at the first parse in production.
func TestQueriesCompile(t *testing.T) {
	for _, l := range All() {
		if !l.HasGrammar() {
			continue
		}
		if err := l.compile(); err != nil {
			t.Errorf("%s: %v", l.Name, err)
		}
		for _, c := range l.captures {
			if c.role == roleAux && strings.Contains(c.name, ".") {
				t.Errorf("%s: capture %q looks like a misspelt kind", l.Name, c.name)
			}
		}
	}
}

// BenchmarkCompileQueries measures the one-time cost of compiling each
// language's query (paid on first use of the language in a process).
func BenchmarkCompileQueries(b *testing.B) {
	for _, l := range All() {
		if !l.HasGrammar() {
			continue
		}
		b.Run(l.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				q, err := sitter.NewQuery([]byte(l.querySource()), l.grammar())
				if err != nil {
					b.Fatal(err)
				}
				q.Close()
			}
		})
	}
}

func TestIsTestFile(t *testing.T) {
	tests := []struct {
		lang, base string
		want       bool
	}{
		{"go", "cart_test.go", true}, {"go", "_test.go", true}, {"go", "cart.go", false}, {"go", "testing.go", false},
		{"python", "test_db.py", true}, {"python", "db_test.py", true}, {"python", "conftest.py", true},
		{"python", "test_.py", true}, {"python", "db.py", false}, {"python", "testing.py", false}, {"python", "xconftest.py", false},
		{"java", "CartTest.java", true}, {"java", "CartTests.java", true}, {"java", "Cart.java", false},
		{"ruby", "cart_spec.rb", true}, {"ruby", "cart_test.rb", true}, {"ruby", "cart.rb", false},
		{"typescript", "cart.test.ts", false}, // x.test.* is the caller's rule, for every language
	}
	for _, tt := range tests {
		if got := ByName(tt.lang).IsTestFile(tt.base); got != tt.want {
			t.Errorf("%s IsTestFile(%q) = %v, want %v", tt.lang, tt.base, got, tt.want)
		}
	}
	var none *Language
	if none.IsTestFile("x_test.go") {
		t.Error("a nil language names no test file")
	}
}
