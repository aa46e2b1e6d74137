package testutil

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// GoEdit makes one random edit of Go source src of the kinds an editor
// buffer sees, for tests that hold an incremental extraction to a full
// one. The edits: a function appended, inserted before a top-level
// declaration or a declaration deleted; a statement with calls added to a
// body; a name changed; a doc comment line added or a blank line removed
// above a declaration; a line of a declaration deleted; a random character
// typed (often a syntax error). It returns the new text and the kind of
// edit.
func GoEdit(rng *rand.Rand, src []byte, step int) ([]byte, string) {
	decls := goDecls(src)
	fn := fmt.Sprintf("\n// Added%d is added by the test.\nfunc Added%d(s string) int {\n\tn := len(s)\n\treturn strconvAtoi(s) + n\n}\n", step, step)
	if len(decls) == 0 {
		return append(bytes.Clone(src), fn...), "append"
	}
	d := decls[rng.Intn(len(decls))]
	lineEnd := func(at int) int { // just after the newline ending at's line
		if i := bytes.IndexByte(src[at:], '\n'); i >= 0 {
			return at + i + 1
		}
		return len(src)
	}
	splice := func(from, to int, text string) []byte {
		out := make([]byte, 0, len(src)+len(text))
		out = append(out, src[:from]...)
		out = append(out, text...)
		return append(out, src[to:]...)
	}
	switch k := rng.Intn(10); k {
	case 0:
		return append(bytes.Clone(src), fn...), "append"
	case 1:
		return splice(d[0], d[0], fn[1:]+"\n"), "insert function"
	case 2:
		return splice(d[0], lineEnd(min(d[1], len(src)-1)), ""), "delete declaration"
	case 3:
		at := lineEnd(d[0])
		if at >= d[1] {
			at = d[0]
		}
		return splice(at, at, fmt.Sprintf("\tdebugTrace(%d, fmt.Sprint(\"x\"))\n", step)), "add statement"
	case 4:
		// Rename: the first identifier after "func " or "type ".
		for _, kw := range []string{"func ", "type ", "var ", "const "} {
			if i := bytes.Index(src[d[0]:d[1]], []byte(kw)); i >= 0 {
				at := d[0] + i + len(kw)
				if src[at] == '(' { // a method: after the receiver
					if j := bytes.IndexByte(src[at:d[1]], ')'); j >= 0 {
						at += j + 2
					}
				}
				return splice(at, at, "Re"), "rename"
			}
		}
		return splice(d[0], d[0], "// Note.\n"), "doc line"
	case 5:
		return splice(d[0], d[0], "// Note.\n"), "doc line"
	case 6:
		// Remove the blank line above the declaration, if there is one.
		if d[0] >= 2 && src[d[0]-1] == '\n' && src[d[0]-2] == '\n' {
			return splice(d[0]-1, d[0], ""), "join with the line above"
		}
		return splice(d[0], d[0], "\n"), "blank line"
	case 7:
		at := lineEnd(d[0])
		if at < d[1] {
			return splice(at, lineEnd(at), ""), "delete line"
		}
		fallthrough
	default:
		at := rng.Intn(len(src) + 1)
		chars := []string{"x", "(", "}", "\n", " ", "// ", "\"", "\t", "{"}
		return splice(at, at, chars[rng.Intn(len(chars))]), "type a character"
	}
}

// goDecls finds the top-level declarations of Go source by its layout (a
// line starting with func, type, var or const, with the comment lines
// right above; up to the closing line at column 0 when it ends with an
// opening bracket): the byte range of each.
func goDecls(src []byte) [][2]int {
	var out [][2]int
	var lines []int // starts of lines
	for at := 0; at < len(src); {
		lines = append(lines, at)
		i := bytes.IndexByte(src[at:], '\n')
		if i < 0 {
			break
		}
		at += i + 1
	}
	end := func(i int) int { // end of line i, its newline included
		if i+1 < len(lines) {
			return lines[i+1]
		}
		return len(src)
	}
	for i := 0; i < len(lines); i++ {
		line := src[lines[i]:end(i)]
		if !bytes.HasPrefix(line, []byte("func ")) && !bytes.HasPrefix(line, []byte("type ")) &&
			!bytes.HasPrefix(line, []byte("var ")) && !bytes.HasPrefix(line, []byte("const ")) {
			continue
		}
		first := i
		for first > 0 && bytes.HasPrefix(src[lines[first-1]:], []byte("//")) {
			first--
		}
		last := i
		if t := bytes.TrimRight(line, " \t\r\n"); bytes.HasSuffix(t, []byte("{")) || bytes.HasSuffix(t, []byte("(")) {
			for last+1 < len(lines) && !bytes.HasPrefix(src[lines[last]:], []byte("}")) && !bytes.HasPrefix(src[lines[last]:], []byte(")")) {
				last++
			}
		}
		out = append(out, [2]int{lines[first], end(last) - 1})
		i = last
	}
	return out
}

// stdlibGoFiles lists the Go standard library's .go files (testdata and
// vendor left out): every 40th and net/http/server.go when sample is set.
// The test is skipped without a Go source tree.
func stdlibGoFiles(t testing.TB, sample bool) []string {
	t.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	var all []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			all = append(all, p)
		}
		return nil
	})
	if err != nil || len(all) == 0 {
		t.Skipf("no Go sources under %s: %v", root, err)
	}
	sort.Strings(all)
	if !sample {
		return all
	}
	var out []string
	for i, p := range all {
		if i%40 == 0 || strings.HasSuffix(p, "net/http/server.go") {
			out = append(out, p)
		}
	}
	return out
}

// GoEditChains edits Go standard library files in chains of eight GoEdit
// edits, for the tests that hold an incremental extraction to a full one:
// every 40th file (stdlibGoFiles), every file when CONTEXT_LS_SPLICE_ALL
// is set (and of those, only paths containing CONTEXT_LS_SPLICE_ONLY when
// that is set, to repeat a failure). For each file start gets its path and
// text and returns what each version is handed to (its step, the kind of
// edit and its text) and what ends the chain; a nil edit skips the file.
func GoEditChains(t testing.TB, start func(path string, src []byte) (edit func(step int, kind string, next []byte), done func())) {
	t.Helper()
	only := os.Getenv("CONTEXT_LS_SPLICE_ONLY")
	for fi, path := range stdlibGoFiles(t, os.Getenv("CONTEXT_LS_SPLICE_ALL") == "") {
		if !strings.Contains(path, only) {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		edit, done := start(path, src)
		if edit == nil {
			continue
		}
		rng := rand.New(rand.NewSource(int64(fi)))
		for step := 0; step < 8; step++ {
			var kind string
			src, kind = GoEdit(rng, src, step)
			edit(step, kind, src)
		}
		if done != nil {
			done()
		}
	}
}
