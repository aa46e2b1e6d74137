package reliability

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/context-ls/context-ls/internal/testutil"
)

// Shape is a source file laid out to make indexing cost more than its
// size (issue 29, items 1 and 2): few, very long lines, long runs of
// the same token, deep nesting, many definitions on one line.
type Shape struct {
	Name string
	File string // its name in the workspace (the extension picks the language)
	// Gen returns the file's content, about size bytes.
	Gen func(size int) string
}

// Bundle is issue 29's first reproduction (testutil.Bundle): 400 short
// lines, then one line of minified functions; 190,000 bytes make the
// issue's file.
func Bundle(size int) string { return testutil.Bundle(200, size) }

// repeatTo repeats unit to about size bytes between head and tail.
func repeatTo(head, unit, tail string, size int) string {
	return head + strings.Repeat(unit, max(1, (size-len(head)-len(tail))/len(unit))) + tail
}

// Shapes are the adversarial layouts the reliability suite indexes.
var Shapes = []Shape{
	{"bundle after a readable prelude", "s.js", Bundle},
	// The same, indexed (no minified rule for TypeScript).
	{"bundle after a readable prelude, as TypeScript", "s.ts", Bundle},
	{"( only, Go", "p.go", func(n int) string { return strings.Repeat("(", n) }},
	{"( only, Python", "p.py", func(n int) string { return strings.Repeat("(", n) }},
	{"( only, C", "p.c", func(n int) string { return strings.Repeat("(", n) }},
	{") only, Go", "close.go", func(n int) string { return strings.Repeat(")", n) }},
	{"{ only, Go", "brace.go", func(n int) string { return strings.Repeat("{", n) }},
	{"( on lines of 80, Go", "lines.go", func(n int) string { return repeatTo("", strings.Repeat("(", 80)+"\n", "", n) }},
	{"nested brackets, Python", "nest.py", func(n int) string {
		return "x = " + strings.Repeat("(", n/2-4) + strings.Repeat(")", n/2-4) + "\n"
	}},
	{"sparse array, TypeScript", "sparse.ts", func(n int) string { return repeatTo("x = [", ",", "];\n", n) }},
	{"a + a + … on one line, Go", "plus.go", func(n int) string { return repeatTo("package p\nvar x = a", "+a", "\n", n) }},
	{"a function of one line, Go", "oneline.go", func(n int) string { return repeatTo("package p\nfunc f() {", "g();", "}\n", n) }},
	{"definitions on one line, Go", "defs.go", func(n int) string {
		var b strings.Builder
		b.WriteString("package p\n")
		for i := 0; b.Len() < n-20; i++ {
			fmt.Fprintf(&b, "func f%d() {};", i)
		}
		b.WriteString("\n")
		return b.String()
	}},
	{"one identifier, Go", "ident.go", func(n int) string { return repeatTo("package p\nvar ", "a", " = 1\n", n) }},
	{"empty lines, Go", "empty.go", func(n int) string { return repeatTo("package p\n", "\n", "", n) }},
	{"unclosed comment, C", "comment.c", func(n int) string { return repeatTo("/*", "x ", "", n) }},
	{"NUL bytes, Go", "nul.go", func(n int) string { return strings.Repeat("\x00", n) }},
}

// ShapeNamed returns the shape called name; it panics on a name no
// shape has.
func ShapeNamed(name string) Shape {
	for _, s := range Shapes {
		if s.Name == name {
			return s
		}
	}
	panic("no shape " + name)
}

// ShapeRun is the index of one shaped file.
type ShapeRun struct {
	Shape  Shape
	Size   int
	Index  Result // index --json of the workspace holding it
	Stats  IndexCounts
	Search Result // search for the ordinary function beside it
}

// IndexCounts is what index --json reports.
type IndexCounts struct {
	Indexed, Failed, Symbols, Chunks int
}

// ordinary is the file every shaped workspace also holds: the index must
// answer for it as it does without the shaped file.
const ordinary = "package small\n\n// Ordinary is an ordinary function.\nfunc Ordinary() {}\n"

// writeShape writes a workspace holding shape at size bytes beside an
// ordinary file, with a maxFileSize that admits it.
func writeShape(root string, s Shape, size int) error {
	return WriteFiles(root, map[string]string{
		".context-ls.toml": fmt.Sprintf("maxFileSize = %d\n", 2*size+(1<<20)),
		"small/small.go":   ordinary,
		s.File:             s.Gen(size),
	})
}

// IndexShape indexes a workspace holding shape at size bytes beside an
// ordinary file, then searches for the ordinary one.
func IndexShape(b Bin, work string, s Shape, size int) (ShapeRun, error) {
	r := ShapeRun{Shape: s, Size: size}
	ix := Index{filepath.Join(work, "shape"), filepath.Join(work, "shape-db")}
	os.RemoveAll(ix.Root)
	os.RemoveAll(ix.DB)
	if err := writeShape(ix.Root, s, size); err != nil {
		return r, err
	}
	r.Index = b.Run(ix.Args("index", "--json")...)
	json.Unmarshal([]byte(r.Index.Stdout), &r.Stats)
	r.Search = b.Run(ix.Args("search", "--json", "Ordinary")...)
	return r, nil
}

// Problems returns what went wrong: a failed run, an index that no longer
// answers, or time and memory above the given limits.
func (r ShapeRun) Problems(maxTime time.Duration, maxRSS int64) []string {
	var out []string
	what := fmt.Sprintf("%s, %d bytes", r.Shape.Name, r.Size)
	if r.Index.Code != 0 {
		out = append(out, fmt.Sprintf("%s: index: %s", what, r.Index))
	}
	if r.Search.Code != 0 || !strings.Contains(r.Search.Stdout, `"symbol": "Ordinary"`) {
		out = append(out, fmt.Sprintf("%s: search beside it: %s", what, r.Search))
	}
	if r.Index.Elapsed > maxTime {
		out = append(out, fmt.Sprintf("%s: index took %s (limit %s)", what, r.Index.Elapsed.Round(time.Millisecond), maxTime))
	}
	if r.Index.MaxRSS > maxRSS {
		out = append(out, fmt.Sprintf("%s: index peaked at %d MiB (limit %d MiB)", what, r.Index.MaxRSS>>20, maxRSS>>20))
	}
	return out
}

// InterruptShape starts index on a workspace holding shape at size bytes,
// sends SIGTERM after delay and returns the run and the time from the
// signal to the exit.
func InterruptShape(b Bin, work string, s Shape, size int, delay time.Duration) (Result, time.Duration, error) {
	root := filepath.Join(work, "interrupt-shape")
	os.RemoveAll(root)
	if err := writeShape(root, s, size); err != nil {
		return Result{}, 0, err
	}
	return interruptIndex(b, Index{root, filepath.Join(work, "interrupt-shape-db")}, delay)
}
