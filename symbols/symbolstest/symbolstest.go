// Package symbolstest holds the checks the symbols tests and the language
// packages (lang/<name>) share: the rendering of a file's symbols for
// golden files, the invariants every extraction keeps, and the golden test
// of a directory of fixtures.
package symbolstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/symbols"
)

// Render prints one line per symbol: kind, qualified name, exported
// flag, 1-based line span, signature and the first doc line with its lines.
func Render(f *symbols.File) string {
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

// CheckInvariants asserts what every consumer relies on: spans inside the
// source and ordered, names at their name spans, parents before children and
// containing them, symbols sorted by start.
func CheckInvariants(t testing.TB, f *symbols.File) {
	t.Helper()
	n := len(f.Source)
	inRange := func(what string, i int, s symbols.Span) {
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
		if len(s.Signature) > symbols.MaxSignatureBytes {
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
func checkPoint(t testing.TB, src []byte, off int, p symbols.Point) {
	t.Helper()
	line := bytes.Count(src[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	if line != p.Line || col != p.Column {
		t.Fatalf("offset %d is %d:%d, span says %d:%d", off, line, col, p.Line, p.Column)
	}
}

// Golden checks every fixture in dir (a directory of one language's
// source files, each beside its .golden): the fixture is detected as
// language lang, parsed, keeps the invariants, and renders as its golden
// file says (testutil.Golden: -update rewrites it).
func Golden(t *testing.T, dir, lang string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	p := symbols.NewParser()
	defer p.Close()
	n := 0
	for _, path := range files {
		if strings.HasSuffix(path, ".golden") {
			continue
		}
		n++
		t.Run(filepath.ToSlash(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			l := symbols.ForContent(path, src)
			if l == nil || l.Name != lang {
				t.Fatalf("fixture %s detected as %v, want %s", path, l, lang)
			}
			f, err := p.Parse(context.Background(), l, src)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			CheckInvariants(t, f)
			testutil.Golden(t, path+".golden", []byte(Render(f)))
		})
	}
	if n == 0 {
		t.Fatalf("no fixtures in %s", dir)
	}
}

// Seed is a fuzz seed: a source text of a language.
type Seed struct {
	Lang *symbols.Language
	Src  []byte
}

// FuzzFixtures is Fuzz of lang alone, seeded with the source files in dir
// (a language package's symbols fixtures) and extra.
func FuzzFixtures(f *testing.F, lang *symbols.Language, dir string, extra ...[]byte) {
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		f.Fatal(err)
	}
	var seeds []Seed
	for _, p := range files {
		if strings.HasSuffix(p, ".golden") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, Seed{Lang: lang, Src: src})
	}
	if len(seeds) == 0 {
		f.Fatalf("no fixtures in %s", dir)
	}
	for _, src := range extra {
		seeds = append(seeds, Seed{Lang: lang, Src: src})
	}
	Fuzz(f, []*symbols.Language{lang}, seeds)
}

// fuzzParser is reused across fuzz inputs: the fuzz function runs
// sequentially within one worker process.
var fuzzParser *symbols.Parser

// Fuzz feeds arbitrary bytes to the grammars of langs (selected by the
// first argument, an index into langs) and checks that parsing never
// panics and every symbol keeps the invariants, that is CheckInvariants
// and SymbolAt's answers inside the symbol. A seed's language must be one
// of langs.
func Fuzz(f *testing.F, langs []*symbols.Language, seeds []Seed) {
	index := map[*symbols.Language]uint8{}
	for i, l := range langs {
		index[l] = uint8(i)
	}
	for _, s := range seeds {
		i, ok := index[s.Lang]
		if !ok {
			f.Fatalf("seed language %s is not fuzzed", s.Lang)
		}
		f.Add(i, s.Src)
	}
	f.Fuzz(func(t *testing.T, which uint8, src []byte) {
		if fuzzParser == nil {
			fuzzParser = symbols.NewParser()
		}
		lang := langs[int(which)%len(langs)]
		file, err := fuzzParser.Parse(context.Background(), lang, src)
		if err != nil {
			if errors.Is(err, symbols.ErrTimeout) || errors.Is(err, symbols.ErrTooLarge) || errors.Is(err, symbols.ErrIrregular) {
				return
			}
			t.Fatalf("%s: %v", lang.Name, err)
		}
		defer file.Close()
		CheckInvariants(t, file)
		for off := -1; off <= len(src); off += 1 + len(src)/16 {
			if i := file.SymbolAt(off); i >= 0 && !file.Symbols[i].Span.Contains(off) {
				t.Fatalf("SymbolAt(%d) = %d does not contain it", off, i)
			}
		}
	})
}
