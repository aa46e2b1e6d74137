package symbols

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// TestSpliceMatchesParse holds spliced re-extraction to a full one: chains
// of editor-like edits (functions added, deleted and changed, doc
// comments, renames, stray characters) of Go standard library files, each
// version re-parsed from the one before, give at every step the
// definitions a full parse of the same text gives
// (testutil.GoEditChains).
func TestSpliceMatchesParse(t *testing.T) {
	lang := ByName("go")
	ctx := context.Background()
	inc, full := NewParser(), NewParser()
	defer inc.Close()
	defer full.Close()
	files, edits, spliced := 0, 0, 0
	kinds := map[string]int{}
	testutil.GoEditChains(t, func(path string, src []byte) (func(int, string, []byte), func()) {
		prev, err := inc.Parse(ctx, lang, src)
		if err != nil {
			return nil, nil // too large, or the like: not this test's subject
		}
		files++
		edit := func(step int, kind string, next []byte) {
			got, err := inc.Reparse(ctx, prev, next)
			prev.Close()
			if err != nil {
				t.Fatalf("%s step %d (%s): %v", path, step, kind, err)
			}
			prev = got
			want, err := full.Parse(ctx, lang, next)
			if err != nil {
				t.Fatalf("%s step %d: full parse: %v", path, step, err)
			}
			defer want.Close()
			edits++
			if got.Splice != nil {
				spliced++
				kinds[kind]++
			}
			if !reflect.DeepEqual(got.Symbols, want.Symbols) {
				t.Fatalf("%s step %d (%s, splice %+v): %s", path, step, kind, got.Splice, symbolsDiff(got.Symbols, want.Symbols))
			}
		}
		return edit, func() { prev.Close() }
	})
	t.Logf("%d files, %d edits, %d spliced %v", files, edits, spliced, kinds)
	// The test is about spliced extraction: most edits of function
	// bodies must have been spliced.
	if spliced < edits/3 || kinds["add statement"] == 0 || kinds["append"] == 0 {
		t.Fatalf("only %d of %d edits spliced (%v)", spliced, edits, kinds)
	}
}

// symbolsDiff describes the first difference of two symbol lists.
func symbolsDiff(got, want []Symbol) string {
	for i := 0; i < min(len(got), len(want)); i++ {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("symbol %d:\n got  %+v\n want %+v", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("got %d symbols, want %d", len(got), len(want))
}

// TestSpliceWhen: which edits of a Go file are spliced — those confined to
// functions, methods and comments between them — and which are extracted
// in full; a spliced version's definitions are a full parse's.
func TestSpliceWhen(t *testing.T) {
	const base = "package a\n\nimport \"fmt\"\n\ntype T struct{ n int }\n\n// F prints.\nfunc F() { fmt.Println(1) }\n\nfunc (t *T) M() int { return t.n }\n"
	for _, c := range []struct {
		name, old, new string
		spliced        bool
	}{
		{"a statement in a body", "fmt.Println(1) }", "fmt.Println(1); fmt.Println(2) }", true},
		{"a function appended", "return t.n }\n", "return t.n }\n\nfunc G() {}\n", true},
		{"a method renamed", "M() int", "N() int", true},
		{"a doc comment changed", "// F prints.", "// F prints one.", true},
		{"a function deleted", "// F prints.\nfunc F() { fmt.Println(1) }\n", "", true},
		{"an import added", "import \"fmt\"", "import (\n\t\"fmt\"\n\t\"os\"\n)", false},
		{"a type changed", "n int }", "n, m int }", false},
		{"a variable added", "return t.n }\n", "return t.n }\n\nvar V = 1\n", false},
		{"a syntax error", "fmt.Println(1) }", "fmt.Println(1) ", false},
		{"a function added on the same line", "return t.n }\n", "return t.n }; func G() {}\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(base, c.old) {
				t.Fatalf("%q is not in the base text", c.old)
			}
			next := strings.Replace(base, c.old, c.new, 1)
			ctx := context.Background()
			p := NewParser()
			defer p.Close()
			lang := ByName("go")
			prev, err := p.Parse(ctx, lang, []byte(base))
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Reparse(ctx, prev, []byte(next))
			prev.Close()
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			if (got.Splice != nil) != c.spliced {
				t.Errorf("spliced: %+v, want %v", got.Splice, c.spliced)
			}
			want, err := p.Parse(ctx, lang, []byte(next))
			if err != nil {
				t.Fatal(err)
			}
			defer want.Close()
			if !reflect.DeepEqual(got.Symbols, want.Symbols) {
				t.Error(symbolsDiff(got.Symbols, want.Symbols))
			}
		})
	}
}
