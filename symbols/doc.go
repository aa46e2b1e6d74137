package symbols

import (
	"bytes"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// docRules says which comments directly above a definition are its doc
// comment. A run of line comments with no blank line between them and the
// definition is a doc when every line starts with one of line (and none of
// notLine); otherwise a single block comment ending on the line above is a
// doc when it starts with one of block (and none of notBlock).
type docRules struct {
	line     []string
	notLine  []string
	block    []string
	notBlock []string
	// comments lists the comment node types of the grammar; a candidate is
	// only accepted when the tree agrees it is a comment (not string text).
	comments map[string]bool
	// docstring enables Python docstrings (first statement of the body).
	docstring bool
	// clean, when set, rewrites the extracted doc text (C# XML tags).
	clean func(string) string
	// directive reports comment lines that are tool directives (//go:embed)
	// and are left out of the doc text.
	directive func(line string) bool
}

// docFor returns d's doc comment text and span.
func (x *extractor) docFor(d *def) (string, Span) {
	r := &x.lang.spec.doc
	if r.docstring {
		if s, sp, ok := x.docstring(d); ok {
			return s, sp
		}
	}
	s, sp := x.docAbove(d.span, r)
	if r.clean != nil && s != "" {
		s = r.clean(s)
	}
	return s, sp
}

// lineStart returns the offset of the first byte of the line holding off,
// from a line index built on first use: the definitions of a minified file
// share one long line, and searching back through it for each of them was
// quadratic in its length.
func (x *extractor) lineStart(off int) int {
	if x.lines == nil {
		x.lines = append(x.lines, 0)
		for i, c := range x.src {
			if c == '\n' {
				x.lines = append(x.lines, i+1)
			}
		}
	}
	return x.lines[sort.SearchInts(x.lines, off+1)-1]
}

// codeBefore reports whether anything but white space precedes off on its
// line, looking back only as far as the nearest such character.
func (x *extractor) codeBefore(off int) bool {
	ls := x.lineStart(off)
	for off > ls {
		r, n := utf8.DecodeLastRune(x.src[ls:off])
		if !unicode.IsSpace(r) {
			return true
		}
		off -= n
	}
	return false
}

// docAbove collects the doc comment directly above span.
func (x *extractor) docAbove(span Span, r *docRules) (string, Span) {
	if len(r.line) == 0 && len(r.block) == 0 {
		return "", Span{}
	}
	start := span.StartByte
	if x.codeBefore(start) {
		return "", Span{} // code before the definition on its line
	}
	ls := x.lineStart(start)
	type piece struct {
		start, end int // byte range of the comment text on its line
		row        int
	}
	var lines []piece // bottom-up
	cur, row := ls, span.Start.Line
	for cur > 0 {
		lineEnd := cur - 1 // the '\n' ending the previous line
		pls := x.lineStart(lineEnd)
		row--
		raw := x.src[pls:lineEnd]
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) == 0 {
			break
		}
		off := pls + bytes.Index(raw, trimmed)
		end := off + len(trimmed)
		if hasAnyPrefix(trimmed, r.line) && !hasAnyPrefix(trimmed, r.notLine) {
			if !x.isCommentAt(row, off-pls, r) {
				break
			}
			lines = append(lines, piece{start: off, end: end, row: row})
			cur = pls
			continue
		}
		if len(lines) == 0 && len(r.block) > 0 && bytes.HasSuffix(trimmed, []byte("*/")) {
			n := x.commentNodeAt(row, end-pls-1, r)
			if n == nil || int(n.EndByte()) != end {
				break
			}
			bs := int(n.StartByte())
			if bs < 0 || bs > end || x.codeBefore(bs) {
				break // a trailing comment after code, not a doc
			}
			body := x.src[bs:end]
			if !hasAnyPrefix(body, r.block) || hasAnyPrefix(body, r.notBlock) {
				break
			}
			sp := x.nodeSpan(n)
			return truncate(cleanText(blockCommentText(body)), MaxDocBytes), sp
		}
		break
	}
	if len(lines) == 0 {
		return "", Span{}
	}
	top, bottom := lines[len(lines)-1], lines[0]
	var sb strings.Builder
	for i := len(lines) - 1; i >= 0; i-- {
		l := string(x.src[lines[i].start:lines[i].end])
		if r.directive != nil && r.directive(l) {
			continue
		}
		sb.WriteString(stripLineMarker(l, r.line))
		sb.WriteByte('\n')
	}
	sp := Span{
		StartByte: top.start, EndByte: bottom.end,
		Start: Point{Line: top.row, Column: top.start - x.lineStart(top.start)},
		End:   Point{Line: bottom.row, Column: bottom.end - x.lineStart(bottom.start)},
	}
	return truncate(cleanText(trimBlankLines(sb.String())), MaxDocBytes), clampSpan(sp, len(x.src))
}

// isCommentAt reports whether the tree has a comment at (row, col).
func (x *extractor) isCommentAt(row, col int, r *docRules) bool {
	return x.commentNodeAt(row, col, r) != nil
}

// commentNodeAt returns the comment node covering (row, col), or nil.
func (x *extractor) commentNodeAt(row, col int, r *docRules) *sitter.Node {
	if row < 0 || col < 0 {
		return nil
	}
	p := sitter.Point{Row: uint32(row), Column: uint32(col)}
	n := x.tree.RootNode().NamedDescendantForPointRange(p, p)
	// Some grammars give doc comments inner nodes (Rust doc_comment):
	// climb a little to reach the comment itself.
	for i := 0; n != nil && i < 3; i++ {
		if r.comments[n.Type()] {
			return n
		}
		n = n.Parent()
	}
	return nil
}

func hasAnyPrefix(b []byte, prefixes []string) bool {
	for _, p := range prefixes {
		if len(b) >= len(p) && string(b[:len(p)]) == p {
			return true
		}
	}
	return false
}

// stripLineMarker removes the comment marker (and repeats of its last
// character, as in "///" or "##") plus one following space.
func stripLineMarker(l string, markers []string) string {
	for _, m := range markers {
		if strings.HasPrefix(l, m) {
			l = l[len(m):]
			l = strings.TrimLeft(l, m[len(m)-1:]+"!")
			break
		}
	}
	l = strings.TrimPrefix(l, " ")
	return strings.TrimRight(l, " \t\r")
}

// blockCommentText strips /* */ markers and leading " * " decorations.
func blockCommentText(b []byte) string {
	s := strings.TrimSuffix(string(b), "*/")
	s = strings.TrimPrefix(s, "/*")
	s = strings.TrimLeft(s, "*!")
	s = strings.TrimRight(s, "*")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		t := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(t, "*") {
			t = strings.TrimPrefix(strings.TrimPrefix(t, "*"), " ")
			lines[i] = t
			continue
		}
		if i == 0 {
			lines[i] = t
		} else {
			lines[i] = l
		}
	}
	return trimBlankLines(dedent(lines))
}

// dedent removes the common leading white space of the non-blank lines
// after the first.
func dedent(lines []string) string {
	indent := -1
	for _, l := range lines[1:] {
		t := strings.TrimLeft(l, " \t")
		if t == "" {
			continue
		}
		if n := len(l) - len(t); indent < 0 || n < indent {
			indent = n
		}
	}
	for i := 1; i < len(lines); i++ {
		if len(lines[i]) >= indent && indent > 0 {
			lines[i] = lines[i][indent:]
		} else {
			lines[i] = strings.TrimLeft(lines[i], " \t")
		}
	}
	lines[0] = strings.TrimSpace(lines[0])
	return strings.Join(lines, "\n")
}

// trimBlankLines drops leading and trailing blank lines, trailing space,
// and the indentation of the first line.
func trimBlankLines(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			break
		}
		s = s[i+1:]
	}
	return strings.TrimLeft(s, " \t\r\n")
}

// docstring returns a Python docstring: a string literal that is the first
// statement of d's body.
func (x *extractor) docstring(d *def) (string, Span, bool) {
	body := d.node.ChildByFieldName("body")
	if body == nil {
		return "", Span{}, false
	}
	count := int(body.NamedChildCount())
	for i := 0; i < count; i++ {
		st := body.NamedChild(i)
		t := st.Type()
		if t == "comment" {
			continue
		}
		if t != "expression_statement" || st.NamedChildCount() != 1 {
			return "", Span{}, false
		}
		str := st.NamedChild(0)
		if str.Type() != "string" {
			return "", Span{}, false
		}
		text := pythonStringValue(x.text(str))
		return truncate(cleanText(text), MaxDocBytes), x.nodeSpan(str), true
	}
	return "", Span{}, false
}

// pythonStringValue strips the prefix and quotes of a Python string literal
// and cleans its indentation like inspect.cleandoc.
func pythonStringValue(lit string) string {
	s := strings.TrimLeft(lit, "rRuUbBfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) {
			s = strings.TrimPrefix(s, q)
			s = strings.TrimSuffix(s, q)
			break
		}
	}
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	return trimBlankLines(dedent(lines))
}
