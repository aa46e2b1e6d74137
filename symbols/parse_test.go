package symbols_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/symbols/symbolstest"
)

func parseString(t *testing.T, lang, src string) *symbols.File {
	t.Helper()
	l := symbols.ByName(lang)
	if l == nil {
		t.Fatalf("no language %q", lang)
	}
	p := symbols.NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), l, []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v", lang, err)
	}
	t.Cleanup(f.Close)
	symbolstest.CheckInvariants(t, f)
	return f
}

func names(f *symbols.File) []string {
	var out []string
	for _, s := range f.Symbols {
		out = append(out, s.QualifiedName())
	}
	return out
}

func TestSymbolAt(t *testing.T) {
	src := "package p\n\n// T is a type.\ntype T struct{}\n\nfunc (t T) M() {\n\tx := 1\n\t_ = x\n}\n\nvar v = 1\n"
	f := parseString(t, "go", src)
	tests := []struct {
		at   string // first occurrence marks the offset
		want string // qualified name, "" for none
	}{
		{"package", ""},
		{"T is a type", ""}, // doc comments are outside Span
		{"struct{}", "T"},
		{"x := 1", "T.M"},
		{"func (t T)", "T.M"},
		{"v = 1", "v"},
	}
	for _, tt := range tests {
		off := strings.Index(src, tt.at)
		i := f.SymbolAt(off)
		got := ""
		if i >= 0 {
			got = f.Symbols[i].QualifiedName()
		}
		if got != tt.want {
			t.Errorf("SymbolAt(%q@%d) = %q, want %q", tt.at, off, got, tt.want)
		}
	}
	if f.SymbolAt(-1) != -1 || f.SymbolAt(len(src)+5) != -1 {
		t.Error("SymbolAt outside the source should be -1")
	}
}

func TestSymbolAtInnermost(t *testing.T) {
	src := "class A:\n    class B:\n        def m(self):\n            return 1\n"
	f := parseString(t, "python", src)
	i := f.SymbolAt(strings.Index(src, "return"))
	if i < 0 || f.Symbols[i].QualifiedName() != "A.B.m" {
		t.Fatalf("innermost = %d %v", i, names(f))
	}
	if p := f.Symbols[i].Parent; p < 0 || f.Symbols[p].QualifiedName() != "A.B" {
		t.Fatalf("parent of m = %d", p)
	}
}

func TestSyntaxErrorRecovery(t *testing.T) {
	tests := []struct {
		lang, src string
		want      []string
	}{
		{"go", "package p\n\nfunc Good() {}\n\nfunc Broken( {\n\nfunc AlsoGood() int { return 1 }\n\ntype T struct{}\n", []string{"Good", "T"}},
		{"python", "def ok():\n    pass\n\ndef broken(:\n    pass\n\nclass C:\n    def m(self):\n        pass\n", []string{"ok", "C", "C.m"}},
	}
	for _, tt := range tests {
		f := parseString(t, tt.lang, tt.src)
		got := strings.Join(names(f), ",")
		for _, w := range tt.want {
			if !strings.Contains(","+got+",", ","+w+",") {
				t.Errorf("%s: recovered %q, missing %q", tt.lang, got, w)
			}
		}
	}
}

func TestInvalidInput(t *testing.T) {
	inputs := map[string]string{
		"invalid utf8":  "package p\n\n// D\xff\xfe oc\nfunc F\xff() {}\nfunc G() { s := \"\xc3\x28\" }\n",
		"nul bytes":     "package p\x00\nfunc F() {}\x00\x00\ntype \x00T int\n",
		"binary":        string([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0xff, 0xfe, 0, 0, 0x80}),
		"empty":         "",
		"only newlines": "\n\n\n",
	}
	for _, lang := range []string{"go", "python"} {
		for name, src := range inputs {
			t.Run(lang+"/"+name, func(t *testing.T) {
				parseString(t, lang, src)
			})
		}
	}
}

func TestDeepNesting(t *testing.T) {
	depth := 5000
	src := "package p\nvar x = " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\nfunc F() {" + strings.Repeat("{", depth) + strings.Repeat("}", depth) + "}\n"
	f := parseString(t, "go", src)
	if got := strings.Join(names(f), ","); got != "x,F" {
		t.Fatalf("symbols %q", got)
	}
	py := strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\ndef f():\n    pass\n"
	parseString(t, "python", py)
}

func TestParseErrors(t *testing.T) {
	p := symbols.NewParser()
	defer p.Close()
	ctx := context.Background()
	if _, err := p.Parse(ctx, symbols.ByName("markdown"), []byte("# x")); !errors.Is(err, symbols.ErrNoGrammar) {
		t.Errorf("markdown: %v, want ErrNoGrammar", err)
	}
	if _, err := p.Parse(ctx, nil, []byte("x")); !errors.Is(err, symbols.ErrNoGrammar) {
		t.Errorf("nil language: %v, want ErrNoGrammar", err)
	}
	big := make([]byte, symbols.MaxSourceBytes+1)
	if _, err := p.Parse(ctx, symbols.ByName("go"), big); !errors.Is(err, symbols.ErrTooLarge) {
		t.Errorf("huge: %v, want ErrTooLarge", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Parse(cctx, symbols.ByName("go"), []byte("package p")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	// The parser stays usable after every failure.
	f, err := p.Parse(ctx, symbols.ByName("go"), []byte("package p\nfunc F() {}\n"))
	if err != nil || len(f.Symbols) != 1 {
		t.Fatalf("parse after failures: %v", err)
	}
	f.Close()
	f.Close() // idempotent
	closed := symbols.NewParser()
	closed.Close()
	if _, err := closed.Parse(ctx, symbols.ByName("go"), []byte("package p")); err == nil {
		t.Error("Parse on a closed Parser succeeded")
	}
}

func TestCancelDuringParse(t *testing.T) {
	// A large input and a context that ends almost at once: Parse must
	// return the context's error, not hang or panic.
	src := []byte("package p\n" + strings.Repeat("func F() { if x { for { y() } } }\n", 200000))
	p := symbols.NewParser()
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := p.Parse(ctx, symbols.ByName("go"), src)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
}

func TestTimeout(t *testing.T) {
	src := []byte("package p\n" + strings.Repeat("func F() { if x { for { y() } } }\n", 200000))
	p := symbols.NewParser()
	defer p.Close()
	p.SetTimeout(time.Millisecond)
	if _, err := p.Parse(context.Background(), symbols.ByName("go"), src); !errors.Is(err, symbols.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	p.SetTimeout(0)
	f, err := p.Parse(context.Background(), symbols.ByName("go"), []byte("package p\nfunc F() {}\n"))
	if err != nil {
		t.Fatalf("after timeout: %v", err)
	}
	f.Close()
}

// TestContextEndingAfterParse covers a defect of the binding: a context that
// ends right after a parse can leave the parser's cancellation flag set, and
// the next parse fails at once. Parse must recover.
func TestContextEndingAfterParse(t *testing.T) {
	p := symbols.NewParser()
	defer p.Close()
	// Big enough that tree-sitter checks the flag (every 100 operations).
	src := []byte("package p\n" + strings.Repeat("func F() { x := 1; _ = x }\n", 50))
	for i := 0; i < 300; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		f, err := p.Parse(ctx, symbols.ByName("go"), src)
		cancel()
		if err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
		f.Close()
	}
}
