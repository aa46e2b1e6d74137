package packs

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"

	"github.com/context-ls/context-ls/symbols"
)

// checkGolden compares got with testdata/<name>, rewriting it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *testutil.Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run go test -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// treeSitterClean parses src with the symbols parser and reports whether
// the tree is free of errors.
func treeSitterClean(t *testing.T, lang, src string) bool {
	t.Helper()
	p := symbols.NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), symbols.ByName(lang), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return !f.Tree.RootNode().HasError()
}

// checkWholeLines fails unless every line of out is a line of in or a
// marker line.
func checkWholeLines(t *testing.T, in, out string) {
	t.Helper()
	orig := map[string]bool{}
	for l := range strings.Lines(in) {
		orig[strings.TrimSuffix(l, "\n")] = true
	}
	for l := range strings.Lines(out) {
		l = strings.TrimSuffix(l, "\n")
		if !orig[l] && !strings.Contains(l, "…") {
			t.Errorf("line %q is neither an original line nor a marked elision", l)
		}
	}
}

func TestShortenStructural(t *testing.T) {
	for _, c := range []struct {
		file, lang string
		src        string // under testdata
		// lines that must survive: signatures and doc comments
		keep []string
	}{
		{"ledger.go", "go", "repo/ledger/ledger.go", []string{
			"// Transfer moves amount from one account to another. It fails with",
			"func (l *Ledger) Transfer(from, to string, amount int64) error {",
			"func (l *Ledger) Richest(n int) []*Account {",
			"var audit = func(l *Ledger) error {",
			"type Account struct {",
		}},
		{"shapes.py", "python", "repo/scripts/shapes.py", []string{
			"    def area(self):",
			`        """Return pi r squared."""`,
			"def regular_polygon_area(sides, length):",
			"    Uses the apothem formula.",
			"def largest(shapes):",
		}},
		{"widget.ts", "typescript", "shorten/widget.ts", []string{
			"  increment(step: number = 1): number {",
			"  /** Increment by step and return the new count. */",
			"export function total(counters: Counter[]): number {",
			"export const double = (x: number) => x * 2;",
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			if symbols.ByName(c.lang) == nil {
				t.Skipf("symbols has no %s grammar yet", c.lang)
			}
			data, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(c.src)))
			if err != nil {
				t.Fatal(err)
			}
			src := string(data)
			total := CountTokens(src)
			s := &shortener{}
			defer s.close()
			// Everything elided: parseable, every signature and doc kept.
			all, ok := s.elideBodies(c.lang, src, 0)
			if !ok {
				t.Fatal("no body elided")
			}
			checkParses(t, c.lang, c.file, all)
			checkWholeLines(t, src, all)
			for _, k := range c.keep {
				if !strings.Contains(all, k+"\n") {
					t.Errorf("lost %q in:\n%s", k, all)
				}
			}
			var golden strings.Builder
			golden.WriteString("=== all bodies elided ===\n" + all)
			for _, pct := range []int{85, 60, 30} {
				target := total * pct / 100
				out, ok := s.shorten(c.lang, src, target)
				if !ok {
					t.Fatalf("%d%%: could not shorten to %d tokens", pct, target)
				}
				if n := CountTokens(out); n > target {
					t.Errorf("%d%%: %d tokens, target %d", pct, n, target)
				}
				checkWholeLines(t, src, out)
				if !strings.Contains(out, "more lines cut") {
					// Body elision alone reached the target.
					checkParses(t, c.lang, c.file, out)
				}
				golden.WriteString("=== target " + strconv.Itoa(pct) + "% of " + strconv.Itoa(total) + " tokens ===\n")
				golden.WriteString(out)
			}
			checkGolden(t, filepath.Join("shorten", c.file+".golden"), golden.String())
		})
	}
}

// checkParses fails when src has syntax errors for tree-sitter or, for
// Go, for go/parser.
func checkParses(t *testing.T, lang, name, src string) {
	t.Helper()
	if !treeSitterClean(t, lang, src) {
		t.Errorf("tree-sitter finds errors in:\n%s", src)
	}
	if lang == "go" {
		if _, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments); err != nil {
			t.Errorf("go/parser: %v\n%s", err, src)
		}
	}
}

func TestShortenByLines(t *testing.T) {
	md := "# Title\n\nFirst paragraph with some words.\n\nSecond paragraph, longer than the first one by far.\n\n- a list item\n- another item\n"
	s := &shortener{}
	defer s.close()
	out, ok := s.shorten("markdown", md, 12)
	if !ok {
		t.Fatal("could not shorten markdown")
	}
	if CountTokens(out) > 12 {
		t.Errorf("%d tokens > 12:\n%s", CountTokens(out), out)
	}
	checkWholeLines(t, md, out)
	if !strings.HasSuffix(out, "more lines cut\n") || !strings.HasPrefix(out, "# Title\n") {
		t.Errorf("want the head of the text and a marker, got:\n%s", out)
	}
	// A single line longer than the target cannot be shortened without
	// cutting it in half.
	if _, ok := s.shorten("text", strings.Repeat("word ", 100), 10); ok {
		t.Error("shortened a single over-long line")
	}
	// Broken code falls back to lines and still never cuts a line.
	broken := "func f( {\n\tx := 1\n\ty := 2\n\tz := 3\n\treturn\n}\n"
	out, ok = s.shorten("go", broken, 20)
	if !ok {
		t.Fatal("could not shorten broken code")
	}
	checkWholeLines(t, broken, out)
}

// TestFocusByValuePerToken pins how focusLines spends a tight target: of
// two lines that bear on the request alike, the one that costs less comes
// first (with the lines around it), though the costly one comes earlier in
// the text and would fit on its own.
func TestFocusByValuePerToken(t *testing.T) {
	var b strings.Builder
	b.WriteString("func sync() {\n")
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "\tstepA%d()\n", i)
	}
	long := "\t// the upload is retried with an exponential backoff and a little jitter so that many clients do not retry in step\n"
	b.WriteString(long)
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "\tstepB%d()\n", i)
	}
	short := "\tupload(f)\n"
	b.WriteString(short)
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "\tstepC%d()\n", i)
	}
	b.WriteString("}\n")
	text := b.String()
	bears := func(line string) float64 {
		if strings.Contains(line, "upload") {
			return 1
		}
		return 0
	}
	// Room for the head, the last line, two markers and the long line.
	target := CountTokens("func sync() {\n\tstepA0()\n}\n") + 2*CountTokens("\t// … 10 lines elided\n") + CountTokens(long)
	if CountTokens(long) < 4*CountTokens(short) {
		t.Fatalf("the long line (%d tokens) should cost far more than the short one (%d)", CountTokens(long), CountTokens(short))
	}
	out, ok := focusLines("go", text, target, bears)
	if !ok {
		t.Fatal("could not focus")
	}
	checkWholeLines(t, text, out)
	if !strings.Contains(out, short) || strings.Contains(out, long) {
		t.Errorf("want the cheap line that bears on the request, not the long comment:\n%s", out)
	}
}

// TestFocusJoinsMarkers: a class shown without its methods carries their
// marker; when the lines next to it (past a blank line) are left out too,
// one marker says how many lines they all hide.
func TestFocusJoinsMarkers(t *testing.T) {
	text := "class Upload:\n    \"\"\"Retries an upload.\"\"\"\n\n    retries = 3\n    # … 40 lines elided\n\n" +
		strings.Repeat("    setting = compute_a_default_value_for_this_setting(retries)\n", 12) + "    last = None\n"
	bears := func(line string) float64 { return float64(strings.Count(line, "pload")) }
	out, ok := focusLines("python", text, 40, bears)
	if !ok {
		t.Fatal("could not focus")
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	hidden, prevMarker := 0, false
	for _, l := range lines {
		m := markerRe.FindStringSubmatch(l)
		if m == nil {
			prevMarker = prevMarker && strings.TrimSpace(l) == ""
			continue
		}
		if prevMarker {
			t.Errorf("two markers with nothing but blank lines between them:\n%s", out)
		}
		prevMarker = true
		k, _ := strconv.Atoi(m[1])
		hidden += k
	}
	if shown := len(lines) - strings.Count(out, "elided"); shown+hidden != 18+40 {
		t.Errorf("%d lines shown and %d hidden, want 58 in all:\n%s", shown, hidden, out)
	}
}

func FuzzShorten(f *testing.F) {
	for _, seed := range []string{
		"func f() {\n\ta()\n\tb()\n\tc()\n}\n",
		"def f():\n    '''doc'''\n    a()\n    b()\n",
		"x\ny\nz\n",
		"\xff\x00\n{\n}\n",
	} {
		f.Add(seed, "go", 5)
		f.Add(seed, "python", 8)
	}
	s := &shortener{}
	f.Cleanup(s.close)
	f.Fuzz(func(t *testing.T, text, lang string, target int) {
		if len(text) > 4096 {
			return
		}
		out, ok := s.shorten(lang, text, target)
		if !ok {
			return
		}
		if n := CountTokens(out); n > target {
			t.Fatalf("%d tokens > target %d", n, target)
		}
		checkWholeLines(t, text, out)
	})
}
