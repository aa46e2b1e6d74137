package symbols

import (
	"context"
	"errors"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// TestShapeReadsTheNode: the tree-sitter node the shape walk reads out of
// a binding Node is the one the binding's own calls use.
func TestShapeReadsTheNode(t *testing.T) {
	p := NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), ByName("go"), []byte("package p\n\nfunc F(a int) int { return a + 1 }\n\nvar x = []int{1, 2, 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	var walk func(*sitter.Node)
	walk = func(k *sitter.Node) {
		n++
		if got, want := endByte(k), k.EndByte(); got != want {
			t.Errorf("%s at %d: end %d through the shape walk's copy, %d through the binding", k.Type(), k.StartByte(), got, want)
		}
		for i := 0; i < int(k.ChildCount()); i++ {
			walk(k.Child(i))
		}
	}
	walk(f.Tree.RootNode())
	if n < 20 {
		t.Fatalf("walked %d nodes", n)
	}
}

// TestIrregularTrees: trees whose queries would be superlinear are
// refused with ErrIrregular before any query runs; ordinary and merely
// odd sources parse.
func TestIrregularTrees(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, c := range []struct {
		name, lang, src string
		refused         bool
	}{
		{"a flat run of (", "go", strings.Repeat("(", 64<<10), true},
		{"a flat run of ) in C", "c", strings.Repeat(")", 64<<10), true},
		{"sparse array", "typescript", "x = [" + strings.Repeat(",", 64<<10) + "];\n", true},
		{"brackets nested past the limit", "python", "x = " + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + "\n", true},
		{"a chain deeper than the limit", "go", "package p\nvar x = a" + strings.Repeat("+a", maxDepth+100) + "\n", true},
		{"a short run", "go", strings.Repeat("(", 2000), false},
		{"nested within the limit", "go", "package p\nvar x = " + strings.Repeat("(", 3000) + "1" + strings.Repeat(")", 3000) + "\n", false},
		{"a long one-line function", "go", "package p\nfunc F() {" + strings.Repeat("g();", 50000) + "}\n", false},
		{"a long literal", "go", "package p\nvar x = []int{" + strings.Repeat("1, ", 50000) + "}\n", false},
	} {
		f, err := p.Parse(context.Background(), ByName(c.lang), []byte(c.src))
		if f != nil {
			f.Close()
		}
		switch {
		case c.refused && !errors.Is(err, ErrIrregular):
			t.Errorf("%s: %v, want ErrIrregular", c.name, err)
		case !c.refused && err != nil:
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
