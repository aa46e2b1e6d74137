package symbols

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// TestReparseMatchesParse: a chain of random edits (insertions, deletions,
// replacements, some of them breaking the syntax) re-parsed incrementally
// gives, at every step, the definitions a full parse of the same text
// gives.
func TestReparseMatchesParse(t *testing.T) {
	for _, name := range reparseLanguages {
		t.Run(name, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join("testdata", name, "*"))
			var path string
			for _, f := range files {
				if filepath.Ext(f) != ".golden" {
					path = f
					break
				}
			}
			if path == "" {
				t.Skipf("no %s source in testdata", name)
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lang := ForPath(path)
			if lang == nil || !lang.HasGrammar() {
				t.Fatalf("%s: no grammar", path)
			}
			ctx := context.Background()
			inc, full := NewParser(), NewParser()
			defer inc.Close()
			defer full.Close()
			prev, err := inc.Parse(ctx, lang, src)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { prev.Close() }()
			rng := rand.New(rand.NewSource(7))
			snippets := []string{"\nfunc Added() int { return 1 }\n", "\ndef added(x):\n    return x\n", "x", "(", "}\n", "\n-- note\n", "  "}
			for step := 0; step < 120; step++ {
				next := append([]byte(nil), prev.Source...)
				at := rng.Intn(len(next) + 1)
				switch rng.Intn(3) {
				case 0: // insert
					next = append(next[:at], append([]byte(snippets[rng.Intn(len(snippets))]), next[at:]...)...)
				case 1: // delete
					end := min(len(next), at+rng.Intn(40))
					next = append(next[:at], next[end:]...)
				default: // replace
					end := min(len(next), at+rng.Intn(10))
					next = append(next[:at], append([]byte(snippets[rng.Intn(len(snippets))]), next[end:]...)...)
				}
				got, err := inc.Reparse(ctx, prev, next)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				prev.Close()
				prev = got
				want, err := full.Parse(ctx, lang, next)
				if err != nil {
					t.Fatalf("step %d: full parse: %v", step, err)
				}
				if !reflect.DeepEqual(got.Symbols, want.Symbols) {
					t.Fatalf("step %d: incremental parse found %d definitions, a full parse %d:\n%+v\n%+v", step, len(got.Symbols), len(want.Symbols), got.Symbols, want.Symbols)
				}
				if g, w := got.Tree.RootNode().String(), want.Tree.RootNode().String(); g != w {
					t.Fatalf("step %d: the trees differ", step)
				}
				want.Close()
			}
		})
	}
}

// reparseLanguages are the languages TestReparseMatchesParse edits (Rust's
// incremental parses differed from full ones before Reparse fell back on
// trees with errors). Not Lua: Reparse parses it in full, and two full
// parses of the same text already differ after a broken one (its
// scanner's state lives in C globals).
var reparseLanguages = []string{"go", "python", "rust", "typescript"}

// TestParseThenHandsOverTheFilesTree: ParseThen and ReparseThen call
// parsed once, with the tree of the File they return — also when a
// re-parse with a syntax error is replaced by a full parse — unless the
// re-parse was spliced (a function added: no full extraction follows),
// and a cancelled parse returns no File.
func TestParseThenHandsOverTheFilesTree(t *testing.T) {
	lang := ByName("go")
	ctx := context.Background()
	p := NewParser()
	defer p.Close()
	var got []*sitter.Tree
	parsed := func(tr *sitter.Tree) { got = append(got, tr) }
	f, err := p.ParseThen(ctx, lang, []byte("package a\n\nfunc A() {}\n"), parsed)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != f.Tree {
		t.Fatalf("ParseThen: parsed called with %v, the File's tree is %p", got, f.Tree)
	}
	for _, next := range []string{"package a\n\nfunc A() {}\n\nfunc B() {}\n", "package a\n\nfunc A() {\n\nfunc B() {}\n"} {
		got = nil
		g, err := p.ReparseThen(ctx, f, []byte(next), parsed)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		f = g
		if f.Splice != nil {
			if len(got) != 0 {
				t.Fatalf("ReparseThen to %q: spliced, yet parsed called with %v", next, got)
			}
			continue
		}
		if len(got) != 1 || got[0] != f.Tree {
			t.Fatalf("ReparseThen to %q: parsed called with %v, the File's tree is %p", next, got, f.Tree)
		}
	}
	if f.Splice != nil {
		t.Fatal("a re-parse with a syntax error was spliced")
	}
	f.Close()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	got = nil
	if f, err := p.ParseThen(cancelled, lang, []byte("package a\n"), parsed); err == nil || f != nil || len(got) != 0 {
		t.Fatalf("a cancelled ParseThen: file %v, error %v, parsed called %d times", f, err, len(got))
	}
}
