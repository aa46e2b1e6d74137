package chunking

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	_ "github.com/context-ls/context-ls/lang/all" // plugin.lua: Lua is kept in its own package
	"github.com/context-ls/context-ls/symbols"
)

// codeGoldenOptions are small enough for the fixtures to show splitting,
// merging and member chunks.
var codeGoldenOptions = Options{MaxTokens: 200, MergeTokens: 48, OverlapLines: 2, WindowLines: 12}

// parseFile parses src with the symbols package; ok is false (and the test
// is skipped by the caller) when the language has no grammar yet.
func parseFile(tb testing.TB, p *symbols.Parser, path string, src []byte) (*symbols.File, bool) {
	tb.Helper()
	lang := symbols.ForPath(path)
	if !lang.HasGrammar() {
		return nil, false
	}
	f, err := p.Parse(context.Background(), lang, src)
	if err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	return f, true
}

func TestCodeGolden(t *testing.T) {
	p := symbols.NewParser()
	defer p.Close()
	for _, name := range []string{"huge.go", "shapes.py", "widget.ts", "plugin.lua"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "code", name)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read fixture: %v", err)
			}
			f, ok := parseFile(t, p, name, src)
			if !ok {
				t.Skipf("symbols has no grammar for %s yet", name)
			}
			defer f.Close()
			chunks := Code("code/"+name, f, codeGoldenOptions)
			checkInvariants(t, src, chunks)
			for _, c := range chunks {
				// No fixture line is long enough to be cut: a chunk
				// starting inside a line took a node's start for the
				// line's (Lua folds the white space before a statement
				// into it).
				if midLine(src, c.StartByte) {
					t.Errorf("chunk %q starts inside line %d", c.Label, c.StartLine)
				}
			}
			checkGolden(t, path+".golden", formatChunks(chunks))
		})
	}
}

// TestCodeRules pins individual rules on small Go and Python sources.
func TestCodeRules(t *testing.T) {
	p := symbols.NewParser()
	defer p.Close()
	tests := []struct {
		name, path, src string
		opts            Options
		want            []string // "kind label" per chunk
	}{
		{
			name: "small go declarations merge",
			path: "a.go",
			src:  "package a\n\nconst A = 1\n\nvar B = 2\n\nfunc c() {}\n\ntype D struct{ x int }\n",
			want: []string{"file_header a.go", "declarations A, B, c", "struct D"},
		},
		{
			name: "go group declaration is one chunk",
			path: "a.go",
			src:  "package a\n\nconst (\n\tA = iota\n\tB\n)\n",
			opts: Options{MergeTokens: 1},
			want: []string{"file_header a.go", "const A, B"},
		},
		{
			name: "comments between definitions join the next one",
			path: "a.go",
			src:  "package a\n\nfunc A() {}\n\n// ---- section ----\n\nfunc B() {}\n",
			opts: Options{MergeTokens: 1},
			want: []string{"file_header a.go", "function A", "function B"},
		},
		{
			name: "python top-level statements become windows",
			path: "a.py",
			src:  "import os\n\nprint(os.name)\n\ndef f():\n    return 1\n\nf()\n",
			want: []string{"file_header a.py", "text line 3", "function f", "text line 8"},
		},
		{
			name: "small python class stays whole",
			path: "a.py",
			src:  "class A:\n    x = 1\n\n    def m(self):\n        return self.x\n",
			want: []string{"class A"},
		},
		{
			name: "class attributes between methods stay covered",
			path: "a.py",
			src:  "class A:\n    def m(self):\n        return [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]\n\n    table = [\n        1,\n    ]\n\n    # About n.\n    def n(self):\n        return [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]\n",
			opts: Options{MaxTokens: 60, MergeTokens: 20},
			want: []string{"class A", "method A.n"},
		},
		{
			name: "deeply nested statement is still cut",
			path: "a.py",
			src:  "def f():\n    " + strings.Repeat("a = \\\n    ", 300) + "b = None\n",
			opts: Options{MaxTokens: 400, MergeTokens: 10},
			want: []string{"function f (part 1/3)", "function f (part 2/3)", "function f (part 3/3)"},
		},
		{
			name: "oversized const block is chunked like top-level code",
			path: "a.go",
			src: "package a\n\n// Modes.\nconst (\n\t// ModeA is the first mode of operation of the widget.\n\tModeA = 1\n" +
				"\t// ModeB is the second mode of operation of the widget.\n\tModeB = 2\n" +
				"\t// ModeC is the third mode of operation of the widget.\n\tModeC = 3\n)\n",
			opts: Options{MaxTokens: 40, MergeTokens: 30},
			want: []string{"file_header a.go", "const ModeA", "const ModeB", "const ModeC"},
		},
		{
			name: "include guard around a header is transparent",
			path: "a.h",
			src: "#ifndef A_H\n#define A_H\n\n/* Open a widget by its name and return a handle. */\nint widget_open(const char *name, int flags);\n\n" +
				"/* Close a widget handle and release its resources. */\nint widget_close(int handle);\n\n#endif\n",
			opts: Options{MaxTokens: 50, MergeTokens: 24},
			want: []string{"macro A_H", "function widget_open", "function widget_close"},
		},
		{
			name: "file without definitions",
			path: "a.py",
			src:  "\n\nx = [1,\n  2]\nprint(x)\n",
			want: []string{"var x", "text line 5"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := parseFile(t, p, tc.path, []byte(tc.src))
			if !ok {
				t.Skipf("no grammar for %s", tc.path)
			}
			defer f.Close()
			chunks := Code(tc.path, f, tc.opts)
			checkInvariants(t, []byte(tc.src), chunks)
			for _, c := range chunks {
				if max := tc.opts.normalized().MaxTokens; c.Tokens > max {
					t.Errorf("chunk %q has %d tokens, above %d", c.Label, c.Tokens, max)
				}
			}
			var got []string
			for _, c := range chunks {
				got = append(got, c.Kind+" "+c.Label)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q\nwant %q\n%s", got, tc.want, formatChunks(chunks))
			}
		})
	}
}

var fullCorpus = flag.Bool("full", false, "run the real-file tests over every file, not a sample")

// codeCorpus returns a sample of Go and Python standard library files:
// every k-th file of each.
func codeCorpus(tb testing.TB, k int) []string {
	tb.Helper()
	files := every(listFiles(tb, goStdlib(tb), ".go"), k, 3)
	return append(files, every(listFiles(tb, pyStdlib(tb), ".py"), k, 3)...)
}

// TestCodeRealFiles chunks a sample of the Go and Python standard libraries
// (every 40th file; all of them with -full) and checks the invariants on every file, and that no chunk exceeds
// MaxTokens (a single unit above it is cut, ultimately inside a line). The
// number of chunks that start inside a line (pieces of enormous lines) is
// reported.
func TestCodeRealFiles(t *testing.T) {
	k := 40
	switch {
	case *fullCorpus:
		k = 1
	case testing.Short():
		k = 200
	}
	p := symbols.NewParser()
	defer p.Close()
	opts := DefaultOptions()
	files, nChunks, midLines := 0, 0, 0
	for _, path := range codeCorpus(t, k) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		f, ok := parseFile(t, p, path, src)
		if !ok {
			continue
		}
		chunks := Code(path, f, opts)
		f.Close()
		files++
		nChunks += len(chunks)
		for _, e := range invariantErrors(src, chunks) {
			t.Errorf("%s: %s", path, e)
		}
		for _, c := range chunks {
			if c.Tokens > opts.MaxTokens {
				t.Errorf("%s: chunk %q (lines %d-%d) has %d tokens, above %d", path, c.Label, c.StartLine, c.EndLine, c.Tokens, opts.MaxTokens)
			}
			if midLine(src, c.StartByte) {
				midLines++
			}
		}
	}
	t.Logf("%d files, %d chunks, %d of them starting inside a line", files, nChunks, midLines)
}

func FuzzCode(f *testing.F) {
	for _, name := range []string{"huge.go"} {
		src, err := os.ReadFile(filepath.Join("testdata", "code", name))
		if err != nil {
			f.Fatalf("read fixture: %v", err)
		}
		f.Add(src, uint16(100))
	}
	f.Add([]byte("package a\nfunc f() {\n\tif x {\n"), uint16(3))
	f.Add([]byte("package a\n// c\nconst (\n\ta = 1 // x\n\tb\n)\nfunc (r *T) m() { return }; var z = `\n\n`\n"), uint16(5))
	f.Add([]byte("\xff\xfepackage \x00 a\nfunc \xc3("), uint16(1))
	// The fuzz function runs serially within a worker process: one parser
	// serves every input.
	p := symbols.NewParser()
	defer p.Close()
	f.Fuzz(func(t *testing.T, src []byte, maxTokens uint16) {
		file, err := p.Parse(context.Background(), symbols.ForPath("a.go"), src)
		if err != nil {
			t.Skipf("parse: %v", err)
		}
		defer file.Close()
		opts := Options{MaxTokens: int(maxTokens%400) + 1, MergeTokens: int(maxTokens % 50), OverlapLines: int(maxTokens % 3), WindowLines: int(maxTokens%9) + 1}
		checkInvariants(t, src, Code("a.go", file, opts))
	})
}

func TestFileDispatch(t *testing.T) {
	p := symbols.NewParser()
	defer p.Close()
	src := []byte("package a\n\nfunc A() {}\n")
	f, ok := parseFile(t, p, "a.go", src)
	if !ok {
		t.Skip("no Go grammar")
	}
	defer f.Close()
	if got := File("a.go", f.Lang, f, src, DefaultOptions()); len(got) != 2 || got[1].Kind != "function" {
		t.Errorf("parsed file: got %s", formatChunks(got))
	}
	md := []byte("# Title\n\ntext\n")
	if got := File("a.md", symbols.ForPath("a.md"), nil, md, DefaultOptions()); len(got) != 1 || got[0].Kind != KindMarkdownSection {
		t.Errorf("markdown: got %s", formatChunks(got))
	}
	if got := File("a.unknown", nil, nil, md, DefaultOptions()); len(got) != 1 || got[0].Kind != KindText {
		t.Errorf("unknown language: got %s", formatChunks(got))
	}
}

// midLine reports whether off is preceded by something other than
// indentation on its line.
func midLine(src []byte, off int) bool {
	for i := off - 1; i >= 0 && src[i] != '\n'; i-- {
		if src[i] != ' ' && src[i] != '\t' {
			return true
		}
	}
	return false
}

// TestSharedLinesAreNotRepeated: the code between definitions that share
// one long line (the ";" between a minified bundle's functions) is
// covered by its own bytes. Windows over its whole lines repeated the line
// once per gap: 41 KB of bundle made 12,600 chunks holding 7.5 MB.
func TestSharedLinesAreNotRepeated(t *testing.T) {
	src := []byte(testutil.Bundle(50, 41_000))
	p := symbols.NewParser()
	defer p.Close()
	f, ok := parseFile(t, p, "s.js", src)
	if !ok {
		t.Fatal("s.js not parsed")
	}
	defer f.Close()
	chunks := Code("s.js", f, DefaultOptions())
	total := 0
	for _, c := range chunks {
		total += len(c.Text)
	}
	if total > 2*len(src) {
		t.Errorf("%d chunks hold %d bytes of a %d-byte file", len(chunks), total, len(src))
	}
	for _, e := range invariantErrors(src, chunks) {
		t.Error(e)
	}
}
