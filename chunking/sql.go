package chunking

import (
	"bytes"
	"strings"
)

// sqlStatement is one statement's byte range and the offsets of the lines
// inside it that start outside strings and comments, or inside a
// dollar-quoted body (the places where an oversized statement may be cut).
type sqlStatement struct {
	start, end int
	cuts       []int
}

// sqlSplit cuts src into statements. A statement ends after its terminator
// (";" or the delimiter of a MySQL DELIMITER line) outside strings, quoted
// identifiers, comments and dollar-quoted bodies; the rest of the
// terminator's line goes with it when it holds only white space or a "--"
// comment. DELIMITER lines are statements of their own.
func sqlSplit(src []byte) []sqlStatement {
	var out []sqlStatement
	delim := []byte(";")
	start := 0
	lineStart := true // i is at the start of a line
	stmtEmpty := true // only white space and comments since start
	var cuts []int
	closeAt := func(end int) {
		out = append(out, sqlStatement{start: start, end: end, cuts: cuts})
		start, cuts, stmtEmpty = end, nil, true
	}
	for i := 0; i < len(src); {
		if lineStart {
			lineStart = false
			if i > start {
				cuts = append(cuts, i)
			}
			if stmtEmpty {
				if d, n, ok := sqlDelimiterLine(src[i:]); ok {
					delim = d
					closeAt(i + n)
					i += n
					lineStart = true
					continue
				}
			}
		}
		c := src[i]
		switch {
		case c == '\n':
			lineStart = true
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			i = lineEndAt(src, i)
		case c == '#' && stmtEmpty && sqlLineHead(src, i):
			i = lineEndAt(src, i) // MySQL comment at a line head
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i = sqlBlockComment(src, i)
		case c == '\'' || c == '"' || c == '`':
			stmtEmpty = false
			// Backslash escapes: PostgreSQL E'' strings and MySQL's strings
			// use them, and a standard string ending in a backslash is rare.
			i = sqlQuoted(src, i, c != '`')
		case c == '$':
			stmtEmpty = false
			if tag, ok := dollarTag(src, i); ok {
				end := len(src) // an unterminated body runs to the end
				if j := bytes.Index(src[i+len(tag):], tag); j >= 0 {
					end = i + len(tag) + j + len(tag)
				}
				// A function body may be cut between its lines.
				for k := i; k < end; k++ {
					if src[k] == '\n' && k+1 < end {
						cuts = append(cuts, k+1)
					}
				}
				i = end
			} else {
				i++
			}
		case bytes.HasPrefix(src[i:], delim):
			i += len(delim)
			// Keep a trailing "-- comment" or spaces on the same line.
			j := i
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
				j++
			}
			if j+1 < len(src) && src[j] == '-' && src[j+1] == '-' {
				j = lineEndAt(src, j)
			}
			if j == len(src) || src[j] == '\n' {
				i = j
			}
			closeAt(i)
		default:
			if !isSpace(c) {
				stmtEmpty = false
			}
			i++
		}
	}
	if start < len(src) {
		closeAt(len(src))
	}
	return out
}

// lineEndAt returns the offset of the newline ending the line holding i, or
// len(src).
func lineEndAt(src []byte, i int) int {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}

// sqlLineHead reports whether only white space precedes i on its line.
func sqlLineHead(src []byte, i int) bool {
	for j := i - 1; j >= 0 && src[j] != '\n'; j-- {
		if src[j] != ' ' && src[j] != '\t' {
			return false
		}
	}
	return true
}

// sqlBlockComment skips a /* … */ comment starting at i (nested comments are
// counted, as PostgreSQL does) and returns the offset after it.
func sqlBlockComment(src []byte, i int) int {
	depth := 0
	for i < len(src) {
		switch {
		case bytes.HasPrefix(src[i:], []byte("/*")):
			depth++
			i += 2
		case bytes.HasPrefix(src[i:], []byte("*/")):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(src)
}

// sqlQuoted skips a quoted string or identifier starting at i; a doubled
// quote is an escaped quote, and so is a backslashed one when backslash is set.
func sqlQuoted(src []byte, i int, backslash bool) int {
	q := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			if backslash {
				i++
			}
		case q:
			if i+1 < len(src) && src[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(src)
}

// dollarTag returns the "$tag$" or "$$" opening a dollar-quoted body at i.
// Positional parameters ("$1") are not tags.
func dollarTag(src []byte, i int) ([]byte, bool) {
	if i > 0 && (isIdentByte(src[i-1]) || src[i-1] == '$') {
		return nil, false // part of an identifier such as a$b
	}
	j := i + 1
	if j < len(src) && src[j] >= '0' && src[j] <= '9' {
		return nil, false
	}
	for j < len(src) && isIdentByte(src[j]) {
		j++
	}
	if j < len(src) && src[j] == '$' {
		return src[i : j+1], true
	}
	return nil, false
}

// isIdentByte reports ASCII identifier characters (and any non-ASCII byte).
func isIdentByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80
}

// sqlDelimiterLine parses a MySQL client "DELIMITER xx" line at the start of
// b and returns the new delimiter and the line's length (newline excluded).
func sqlDelimiterLine(b []byte) ([]byte, int, bool) {
	n := bytes.IndexByte(b, '\n')
	if n < 0 {
		n = len(b)
	}
	f := bytes.Fields(b[:n])
	if len(f) != 2 || !strings.EqualFold(string(f[0]), "delimiter") {
		return nil, 0, false
	}
	return f[1], n, true
}

// sqlLabel names a statement by its first words: comments skipped, white
// space collapsed, cut before "(" and after eight words or 60 bytes.
func sqlLabel(text []byte) string {
	i := 0
	for i < len(text) {
		switch {
		case isSpace(text[i]):
			i++
		case bytes.HasPrefix(text[i:], []byte("--")) || (text[i] == '#' && sqlLineHead(text, i)):
			i = lineEndAt(text, i)
		case bytes.HasPrefix(text[i:], []byte("/*")):
			i = sqlBlockComment(text, i)
		default:
			head := text[i:lineEndAt(text, i)]
			if _, _, ok := sqlDelimiterLine(head); ok {
				return string(bytes.Join(bytes.Fields(head), []byte(" ")))
			}
			if k := bytes.IndexAny(head, "(;"); k >= 0 {
				head = head[:k]
			}
			words := strings.Fields(strings.ToValidUTF8(string(head), "\uFFFD"))
			words = words[:min(len(words), 8)]
			label := strings.Join(words, " ")
			for len(label) > 60 && len(words) > 1 {
				words = words[:len(words)-1]
				label = strings.Join(words, " ")
			}
			if label == "" {
				return "statement"
			}
			return label
		}
	}
	return "(comments)"
}

// sql chunks a SQL file by statement (see Text).
func (d *doc) sql() []Chunk {
	var out []Chunk
	for _, st := range sqlSplit(d.src) {
		s, e, ok := d.trim(st.start, st.end)
		if !ok {
			continue
		}
		label := sqlLabel(d.src[s:e])
		if d.units(s, e) <= d.opts.MaxTokens*tokenUnit {
			if c, ok := d.emit(KindSQLStatement, label, s, e); ok {
				out = append(out, c)
			}
			continue
		}
		var cuts []int
		for _, c := range st.cuts {
			if c > s && c < e {
				cuts = append(cuts, c)
			}
		}
		// Cut only where a line starts outside strings and comments.
		stop := func(int, int) []int { return nil }
		out = append(out, d.parts(KindSQLStatement, label, label, d.pack(s, e, cuts, packing{refine: stop}))...)
	}
	return out
}
