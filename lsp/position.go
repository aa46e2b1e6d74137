package lsp

import (
	"bytes"
	"sort"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Point is a position inside the engine's view of a file: a 0-based line
// (lines end at '\n', as tree-sitter counts them) and a 0-based byte column.
type Point struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Range is a half-open range of Points.
type Range struct {
	Start Point `json:"start"`
	End   Point `json:"end"`
}

// Mapper converts between byte offsets, engine Points and protocol
// Positions (UTF-16 code units) for one text. Building it indexes the line
// starts once; every conversion afterwards costs a binary search plus a
// scan of one line. A Mapper is immutable and safe for concurrent use.
//
// Line breaks follow the LSP: "\n", "\r\n" and a lone "\r" each end a line.
// Points count '\n' only; the two agree unless the text has a lone '\r'.
// Bytes that are not valid UTF-8 count as one UTF-16 unit each (the client
// decodes each as U+FFFD).
type Mapper struct {
	text []byte
	// lines holds the byte offset of each LSP line start.
	lines []int
	// nlLines holds the line starts counting '\n' only; nil when they are
	// the same as lines.
	nlLines []int
}

// NewMapper indexes text. The Mapper keeps text; the caller must not
// modify it afterwards.
func NewMapper(text []byte) *Mapper {
	m := &Mapper{text: text}
	if bytes.IndexByte(text, '\r') < 0 {
		m.lines = newlineStarts(text)
		return m
	}
	lines := []int{0}
	loneCR := false
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			lines = append(lines, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
				lines = append(lines, i+1)
			} else {
				loneCR = true
				lines = append(lines, i+1)
			}
		}
	}
	m.lines = lines
	if loneCR {
		m.nlLines = newlineStarts(text)
	}
	return m
}

func newlineStarts(text []byte) []int {
	lines := make([]int, 1, 1+bytes.Count(text, []byte{'\n'}))
	for off := 0; ; {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			return lines
		}
		off += i + 1
		lines = append(lines, off)
	}
}

// Text returns the mapped text.
func (m *Mapper) Text() []byte { return m.text }

// LineCount returns the number of LSP lines (a text ending in a line break
// has an empty last line).
func (m *Mapper) LineCount() int { return len(m.lines) }

// lineContentEnd returns the offset where line i's content ends, before its
// line break.
func (m *Mapper) lineContentEnd(i int) int {
	if i+1 >= len(m.lines) {
		return len(m.text)
	}
	end := m.lines[i+1]
	if end > 0 && m.text[end-1] == '\n' {
		end--
		if end > m.lines[i] && m.text[end-1] == '\r' {
			end--
		}
	} else if end > 0 && m.text[end-1] == '\r' {
		end--
	}
	return end
}

// PositionOffset converts a protocol Position to a byte offset. A character
// past the end of its line clamps to the line end (before the line break);
// a line past the last line clamps to the end of the text; a character in
// the middle of a surrogate pair rounds down to the start of that rune.
func (m *Mapper) PositionOffset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(m.lines) {
		return len(m.text)
	}
	start, end := m.lines[line], m.lineContentEnd(line)
	want := int(p.Character)
	units := 0
	off := start
	for off < end && units < want {
		r, size := utf8.DecodeRune(m.text[off:end])
		n := utf16Len(r, size)
		if units+n > want {
			break
		}
		units += n
		off += size
	}
	return off
}

// OffsetPosition converts a byte offset to a protocol Position. Offsets
// outside the text clamp to its ends; an offset inside a line break maps to
// the end of that line; an offset inside a multi-byte rune rounds down to
// the rune's start.
func (m *Mapper) OffsetPosition(off int) protocol.Position {
	if off < 0 {
		off = 0
	}
	if off > len(m.text) {
		off = len(m.text)
	}
	line := sort.SearchInts(m.lines, off+1) - 1
	start, end := m.lines[line], m.lineContentEnd(line)
	if off > end {
		off = end
	}
	units := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRune(m.text[i:end])
		if i+size > off {
			break // off is inside this rune: round down
		}
		units += utf16Len(r, size)
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

// CharPosition converts a 0-based line and a 1-based character column
// (Unicode code points, as package service counts them) to a protocol
// Position. Column 0 means the start of the line, or its end when end is
// set (a range given in whole lines); a column past the end of the line
// clamps to the end.
func (m *Mapper) CharPosition(line, col int, end bool) protocol.Position {
	if line < 0 {
		line = 0
	}
	if line >= len(m.lines) {
		return m.OffsetPosition(len(m.text))
	}
	if col <= 0 {
		if end {
			return m.OffsetPosition(m.lineContentEnd(line))
		}
		col = 1
	}
	off, stop := m.lines[line], m.lineContentEnd(line)
	for n := 1; n < col && off < stop; n++ {
		_, size := utf8.DecodeRune(m.text[off:stop])
		off += size
	}
	return m.OffsetPosition(off)
}

// utf16Len is the number of UTF-16 code units of a decoded rune; an invalid
// byte (RuneError of size 1) counts as one unit.
func utf16Len(r rune, size int) int {
	if r >= 0x10000 && size == 4 {
		return 2
	}
	return 1
}

// PointOffset converts an engine Point to a byte offset. A column past the
// end of its line clamps to the line end (before '\n'); a line past the
// last clamps to the end of the text.
func (m *Mapper) PointOffset(p Point) int {
	starts := m.lines
	if m.nlLines != nil {
		starts = m.nlLines
	}
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(starts) {
		return len(m.text)
	}
	start := starts[p.Line]
	end := len(m.text)
	if p.Line+1 < len(starts) {
		end = starts[p.Line+1] - 1 // the '\n'
		if m.nlLines == nil && end > start && m.text[end-1] == '\r' {
			end-- // lines come from the LSP index: stop before "\r\n"
		}
	}
	col := p.Column
	if col < 0 {
		col = 0
	}
	if start+col > end {
		return end
	}
	return start + col
}

// OffsetPoint converts a byte offset to an engine Point.
func (m *Mapper) OffsetPoint(off int) Point {
	if off < 0 {
		off = 0
	}
	if off > len(m.text) {
		off = len(m.text)
	}
	starts := m.lines
	if m.nlLines != nil {
		starts = m.nlLines
	}
	line := sort.SearchInts(starts, off+1) - 1
	return Point{Line: line, Column: off - starts[line]}
}

// PointPosition converts an engine Point to a protocol Position.
func (m *Mapper) PointPosition(p Point) protocol.Position {
	return m.OffsetPosition(m.PointOffset(p))
}

// PositionPoint converts a protocol Position to an engine Point.
func (m *Mapper) PositionPoint(p protocol.Position) Point {
	return m.OffsetPoint(m.PositionOffset(p))
}

// RangeToProtocol converts an engine Range to a protocol Range.
func (m *Mapper) RangeToProtocol(r Range) protocol.Range {
	return protocol.Range{Start: m.PointPosition(r.Start), End: m.PointPosition(r.End)}
}

// RangeFromProtocol converts a protocol Range to an engine Range.
func (m *Mapper) RangeFromProtocol(r protocol.Range) Range {
	return Range{Start: m.PositionPoint(r.Start), End: m.PositionPoint(r.End)}
}
