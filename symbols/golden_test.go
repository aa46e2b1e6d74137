package symbols

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/context-ls/context-ls/internal/testutil"
)

// renderSymbols prints one line per symbol: kind, qualified name, exported
// flag, 1-based line span, signature and the first doc line with its lines.
func renderSymbols(f *File) string {
	var b strings.Builder
	for _, s := range f.Symbols {
		exp := "-"
		if s.Exported {
			exp = "exported"
		}
		doc := s.Doc
		if i := strings.IndexByte(doc, '\n'); i >= 0 {
			doc = doc[:i]
		}
		docLines := ""
		if !s.DocSpan.Empty() {
			docLines = fmt.Sprintf(" L%d-%d", s.DocSpan.Start.Line+1, s.DocSpan.End.Line+1)
		}
		fmt.Fprintf(&b, "%-11s %s %s L%d-%d sig=%q doc%s=%q\n", s.Kind, s.QualifiedName(), exp,
			s.Span.Start.Line+1, s.Span.End.Line+1, s.Signature, docLines, doc)
	}
	return b.String()
}

// checkInvariants asserts what every consumer relies on: spans inside the
// source and ordered, names at their name spans, parents before children and
// containing them, symbols sorted by start.
func checkInvariants(t testing.TB, f *File) {
	t.Helper()
	n := len(f.Source)
	inRange := func(what string, i int, s Span) {
		if s.StartByte < 0 || s.EndByte > n || s.StartByte > s.EndByte {
			t.Fatalf("symbol %d %s %+v out of range [0,%d]", i, what, s, n)
		}
		if s.Start.Line > s.End.Line || (s.Start.Line == s.End.Line && s.Start.Column > s.End.Column) {
			t.Fatalf("symbol %d %s points reversed: %+v", i, what, s)
		}
	}
	for i, s := range f.Symbols {
		inRange("Span", i, s.Span)
		inRange("NameSpan", i, s.NameSpan)
		inRange("DocSpan", i, s.DocSpan)
		if strings.TrimSpace(s.Name) == "" || strings.Trim(s.Name, ",;()") == "" {
			t.Fatalf("symbol %d has no identifier name: %q", i, s.Name)
		}
		if !utf8.ValidString(s.Name) || !utf8.ValidString(s.Signature) || !utf8.ValidString(s.Doc) || !utf8.ValidString(s.Container) {
			t.Fatalf("symbol %d %q has invalid UTF-8", i, s.Name)
		}
		if raw := f.Source[s.NameSpan.StartByte:s.NameSpan.EndByte]; utf8.Valid(raw) && string(raw) != s.Name {
			t.Fatalf("symbol %d name %q but NameSpan holds %q", i, s.Name, raw)
		}
		if s.NameSpan.StartByte < s.Span.StartByte || s.NameSpan.EndByte > s.Span.EndByte {
			t.Fatalf("symbol %d %q NameSpan %+v outside Span %+v", i, s.Name, s.NameSpan, s.Span)
		}
		if len(s.Signature) > MaxSignatureBytes {
			t.Fatalf("symbol %d signature is %d bytes", i, len(s.Signature))
		}
		if s.Parent >= i || s.Parent < -1 {
			t.Fatalf("symbol %d has parent %d", i, s.Parent)
		}
		if s.Parent >= 0 {
			p := f.Symbols[s.Parent].Span
			if p.StartByte > s.Span.StartByte || p.EndByte < s.Span.EndByte {
				t.Fatalf("symbol %d %q not inside parent %d", i, s.Name, s.Parent)
			}
		}
		if i > 0 && f.Symbols[i-1].Span.StartByte > s.Span.StartByte {
			t.Fatalf("symbols %d and %d out of source order", i-1, i)
		}
		if !s.DocSpan.Empty() {
			if s.DocSpan.EndByte > s.Span.StartByte && (s.DocSpan.StartByte < s.Span.StartByte || s.DocSpan.EndByte > s.Span.EndByte) {
				t.Fatalf("symbol %d %q DocSpan %+v overlaps Span %+v", i, s.Name, s.DocSpan, s.Span)
			}
		}
		checkPoint(t, f.Source, s.Span.StartByte, s.Span.Start)
		checkPoint(t, f.Source, s.Span.EndByte, s.Span.End)
		checkPoint(t, f.Source, s.DocSpan.StartByte, s.DocSpan.Start)
		checkPoint(t, f.Source, s.DocSpan.EndByte, s.DocSpan.End)
	}
}

// checkPoint asserts that p is the line/byte-column of offset off.
func checkPoint(t testing.TB, src []byte, off int, p Point) {
	t.Helper()
	line := bytes.Count(src[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	if line != p.Line || col != p.Column {
		t.Fatalf("offset %d is %d:%d, span says %d:%d", off, line, col, p.Line, p.Column)
	}
}

func TestGolden(t *testing.T) {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser()
	defer p.Close()
	for _, dir := range dirs {
		if !dir.IsDir() || dir.Name() == "fuzz" {
			continue // fuzz holds the FuzzParse corpus
		}
		files, err := filepath.Glob(filepath.Join("testdata", dir.Name(), "*"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		for _, path := range files {
			if strings.HasSuffix(path, ".golden") {
				continue
			}
			t.Run(filepath.ToSlash(path), func(t *testing.T) {
				src, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				lang := ForContent(path, src)
				if lang == nil || lang.Name != dir.Name() {
					t.Fatalf("fixture %s detected as %v, want %s", path, lang, dir.Name())
				}
				f, err := p.Parse(context.Background(), lang, src)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				checkInvariants(t, f)
				got := renderSymbols(f)
				golden := path + ".golden"
				if *testutil.Update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./symbols -run TestGolden -update)", err)
				}
				if got != string(want) {
					t.Errorf("symbols differ from %s (rerun with -update after checking):\n%s", golden, diffLines(string(want), got))
				}
			})
		}
	}
}

func TestEveryGrammarHasFixture(t *testing.T) {
	for _, l := range All() {
		if !l.HasGrammar() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join("testdata", l.Name, "*.golden"))
		if len(files) == 0 {
			t.Errorf("language %s has no golden fixture under testdata/%s", l.Name, l.Name)
		}
	}
}

// diffLines shows the lines only in want (-) and only in got (+).
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	inW, inG := map[string]int{}, map[string]int{}
	for _, l := range w {
		inW[l]++
	}
	for _, l := range g {
		inG[l]++
	}
	var b strings.Builder
	for _, l := range w {
		if inG[l] == 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if inW[l] == 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
