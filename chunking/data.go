package chunking

import "bytes"

// DataMinSize is the size from which a source file is checked for being
// data (IsData). Below it a file parses in a few hundredths of a second
// whatever it holds, and keeps its definitions. In the Linux kernel, 80
// files between it and the default maxFileSize (1 MiB) are data (43 MB:
// register headers, firmware and code-page tables), and 81 more up to the
// 16 MiB hard limit (325 MB, the largest register headers).
const DataMinSize = 256 << 10

// dataShare is the share of a data file's bytes on data lines.
const dataShare = 0.9

// IsData reports whether src, a source file of a programming language, is
// generated data rather than code: a register header (`#define NAME 0x1f`
// line after line), a firmware or lookup table (`{0x90260002, 0x0},`), an
// enum of numbered constants, a huge literal (`var table = "…"` on one
// line). Such files dominate the cost of an index while their definitions and
// call graph say nothing a text search over them does not: the engine
// chunks them as line windows (Data) and skips the parse.
//
// A file is data when it is at least DataMinSize bytes and 90 % of the
// bytes of its lines that hold tokens are on data lines. A data line holds
// a literal (a number, a string or character literal) and at most one
// identifier besides names in capitals (`#define R_CTRL BIT(3)`,
// `x = GENMASK(7, 0),`), or literals four times the length of its
// identifiers, or only names in capitals (`B_EN_A | B_EN_B | \`); `#define`
// counts as nothing, comments are skipped. It takes one pass over
// the bytes: about a hundredth of a parse.
func IsData(src []byte) bool {
	if len(src) < DataMinSize {
		return false
	}
	var data, code int
	for len(src) > 0 {
		n := 0
		for n < len(src) && src[n] != '\n' {
			n++
		}
		line := src[:n]
		if n < len(src) {
			n++
		}
		src = src[n:]
		s := scanDataLine(line)
		switch {
		case s.lits > 0 && (s.idents-s.constants <= 1 || s.litBytes >= 4*s.identBytes),
			s.idents > 0 && s.idents == s.constants:
			data += len(line)
		case s.idents > 0:
			code += len(line)
		}
	}
	return data+code > 0 && float64(data) >= dataShare*float64(data+code)
}

// lineTokens counts the literals and identifiers of one line.
type lineTokens struct {
	lits, idents         int
	constants            int // identifiers in capitals (REG_BASE, BIT, GENMASK)
	litBytes, identBytes int
}

// scanDataLine counts the tokens of a line for IsData. Preprocessor lines
// other than #define (and comment lines in languages that start them with
// '#') count as nothing.
func scanDataLine(l []byte) lineTokens {
	var t lineTokens
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i < len(l) && l[i] == '#' {
		j := i + 1
		for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
			j++
		}
		if len(l)-j < 6 || string(l[j:j+6]) != "define" {
			return t
		}
		i = j + 6
	}
	for i < len(l) {
		c := l[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(l) && l[j] != c {
				if l[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(l))
			t.lits++
			t.litBytes += j - i
			i = j
		case c == '/' && i+1 < len(l) && l[i+1] == '/':
			return t
		case c == '/' && i+1 < len(l) && l[i+1] == '*':
			j := i + 2
			for j+1 < len(l) && (l[j] != '*' || l[j+1] != '/') {
				j++
			}
			i = j + 2
		case isWordByte(c):
			j := i
			for j < len(l) && isWordByte(l[j]) {
				j++
			}
			if c >= '0' && c <= '9' {
				t.lits++
				t.litBytes += j - i
			} else {
				if isConstantName(l[i:j]) {
					t.constants++
				}
				t.idents++
				t.identBytes += j - i
			}
			i = j
		default:
			i++
		}
	}
	return t
}

// isConstantName reports whether w is spelled like a macro or constant
// (upper-case letters, digits, underscores).
func isConstantName(w []byte) bool {
	for _, c := range w {
		if c >= 'a' && c <= 'z' || c >= 0x80 {
			return false
		}
	}
	return true
}

// isWordByte reports whether c can be part of an identifier or a number
// (bytes of multi-byte UTF-8 characters count as letters).
func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// Data chunks a data file (see IsData) as windows of WindowLines lines that
// repeat OverlapLines lines, of kind KindData; a line above MaxTokens is cut
// inside, as Text does. A file with a NUL byte in its first 8000 bytes
// yields no chunks.
func Data(path, language string, src []byte, opts Options) []Chunk {
	if bytes.IndexByte(src[:min(len(src), binarySniff)], 0) >= 0 {
		return nil
	}
	d := newDoc(path, language, src, opts)
	return d.windows(KindData, 0, d.numLines())
}
