package chunking

import (
	"fmt"
	"sort"
)

// doc is one file being chunked: its bytes, a line index and the options.
// All positions are byte offsets into src; lines are 0-based internally.
type doc struct {
	path  string
	lang  string
	src   []byte
	opts  Options
	lines []int // start offset of every line; a last line without newline counts
}

func newDoc(path, lang string, src []byte, opts Options) *doc {
	d := &doc{path: path, lang: lang, src: src, opts: opts.normalized()}
	if len(src) > 0 {
		d.lines = append(d.lines, 0)
	}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			d.lines = append(d.lines, i+1)
		}
	}
	return d
}

// numLines is the number of lines in the file.
func (d *doc) numLines() int { return len(d.lines) }

// lineStart is the offset of line i's first byte; numLines() maps to len(src).
func (d *doc) lineStart(i int) int {
	if i >= len(d.lines) {
		return len(d.src)
	}
	return d.lines[i]
}

// lineEnd is the offset just past line i's content, before "\n" or "\r\n".
func (d *doc) lineEnd(i int) int {
	e := d.lineStart(i + 1)
	if e > d.lines[i] && d.src[e-1] == '\n' {
		e--
		if e > d.lines[i] && d.src[e-1] == '\r' {
			e--
		}
	}
	return e
}

// line returns line i's content without its line break.
func (d *doc) line(i int) []byte { return d.src[d.lines[i]:d.lineEnd(i)] }

// lineOf returns the line holding byte offset off (the last line for len(src)).
func (d *doc) lineOf(off int) int {
	return sort.Search(len(d.lines), func(i int) bool { return d.lines[i] > off }) - 1
}

// isSpace reports whether c is ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// blankBytes reports whether b holds only white space.
func blankBytes(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// blank reports whether line i holds only white space.
func (d *doc) blank(i int) bool { return blankBytes(d.line(i)) }

// trim narrows [s, e) to its non-blank content: it starts at the beginning of
// the first line with content (keeping indentation) unless s is mid-line with
// content before it on that line, and ends after the last non-space byte.
// ok is false when the range holds only white space.
func (d *doc) trim(s, e int) (ts, te int, ok bool) {
	p := s
	for p < e && isSpace(d.src[p]) {
		p++
	}
	if p == e {
		return s, s, false
	}
	for e > p && isSpace(d.src[e-1]) {
		e--
	}
	ls := d.lines[d.lineOf(p)]
	if ls >= s {
		p = ls // only indentation precedes the content on its line
	}
	return p, e, true
}

// emit makes a chunk of [s, e) after trimming blank lines and trailing space;
// ok is false when the range is blank.
func (d *doc) emit(kind, label string, s, e int) (Chunk, bool) {
	s, e, ok := d.trim(s, e)
	if !ok {
		return Chunk{}, false
	}
	text := string(d.src[s:e])
	return Chunk{
		Path:      d.path,
		Language:  d.lang,
		Kind:      kind,
		Label:     label,
		StartLine: d.lineOf(s) + 1,
		EndLine:   d.lineOf(e-1) + 1,
		StartByte: s,
		EndByte:   e,
		Text:      text,
		Tokens:    CountTokens(text),
	}, true
}

// units returns the token estimate of [s, e) in fixed-point units.
func (d *doc) units(s, e int) int { return tokenUnits(string(d.src[s:e]), nil) }

// refineFunc proposes cut points strictly inside [s, e) for a unit too big
// to be one part, in ascending order. No cuts means the unit is unsplittable
// and is kept whole.
type refineFunc func(s, e int) []int

// pack cuts [s, e) into consecutive parts of at most MaxTokens each and
// returns the part boundaries: part i is [bounds[i], bounds[i+1]). Parts
// begin only at s or at one of cuts (ascending offsets inside (s, e)); a unit
// between two cuts that is itself above MaxTokens is first cut finer by
// refine (nil refine: at lines, then inside a single long line), recursively,
// and a unit that cannot be cut finer becomes a part of its own. The units
// are then grouped greedily into parts of about equal size.
func (d *doc) pack(s, e int, cuts []int, refine refineFunc) []int {
	limit := d.opts.MaxTokens * tokenUnit
	var atoms []int // start offsets of the finest units
	var sizes []int // their token units
	var atomize func(s, e int, cuts []int, depth int)
	atomize = func(s, e int, cuts []int, depth int) {
		prev := s
		for i := 0; i <= len(cuts); i++ {
			b := e
			if i < len(cuts) {
				b = cuts[i]
			}
			if b <= prev || b > e {
				continue
			}
			u := d.units(prev, b)
			if u > limit && depth < maxPackDepth {
				if inner := d.finer(prev, b, refine); len(inner) > 0 {
					atomize(prev, b, inner, depth+1)
					prev = b
					continue
				}
			}
			atoms = append(atoms, prev)
			sizes = append(sizes, u)
			prev = b
		}
	}
	atomize(s, e, cuts, 0)

	total := 0
	for _, u := range sizes {
		total += u
	}
	// Aim at equal parts: as many as the limit requires, of the mean size.
	target := total
	if n := (total + limit - 1) / max(limit, 1); n > 1 {
		target = total / n
	}
	bounds := []int{s}
	cur := 0
	for i, a := range atoms {
		u := sizes[i]
		if cur > 0 && (cur+u > limit || cur+u/2 > target) {
			bounds = append(bounds, a)
			cur = 0
		}
		cur += u
	}
	return append(bounds, e)
}

// maxPackDepth bounds the recursion of pack on pathological inputs.
const maxPackDepth = 64

// finer returns cut points strictly inside [s, e): refine's when given, else
// line starts, else positions inside a single long line.
func (d *doc) finer(s, e int, refine refineFunc) []int {
	var cuts []int
	if refine != nil {
		cuts = refine(s, e)
	} else {
		cuts = d.textCuts(s, e)
	}
	// Keep only ascending cuts strictly inside the range.
	out := cuts[:0:0]
	for _, c := range cuts {
		if c > s && c < e && (len(out) == 0 || c > out[len(out)-1]) {
			out = append(out, c)
		}
	}
	return out
}

// textCuts returns the line starts inside [s, e), or positions inside the
// line when [s, e) is a single line.
func (d *doc) textCuts(s, e int) []int {
	if cuts := d.lineStartsIn(s, e); len(cuts) > 0 {
		return cuts
	}
	return d.byteCuts(s, e)
}

// lineStartsIn returns the start offsets of the lines beginning strictly
// inside (s, e).
func (d *doc) lineStartsIn(s, e int) []int {
	var cuts []int
	for l := d.lineOf(s) + 1; l < d.numLines() && d.lines[l] < e; l++ {
		cuts = append(cuts, d.lines[l])
	}
	return cuts
}

// byteCuts proposes cuts inside one long line, about every eighth of
// MaxTokens so that pack can regroup them: just after white space, a comma or
// a semicolon when one is near, and always on a UTF-8 character boundary.
func (d *doc) byteCuts(s, e int) []int {
	step := max(16, d.opts.MaxTokens/8) * 4 // dense text has ~4 bytes per token
	var cuts []int
	for p := s; p+step < e; {
		c := p + step
		for q := c; q < min(e, c+step/2); q++ {
			if isSpace(d.src[q]) || d.src[q] == ',' || d.src[q] == ';' {
				c = q + 1
				break
			}
		}
		for c < e && d.src[c]&0xC0 == 0x80 {
			c++ // not inside a UTF-8 sequence
		}
		if c >= e {
			break
		}
		cuts = append(cuts, c)
		p = c
	}
	return cuts
}

// withOverlap moves the start of every part after the first back by
// OverlapLines lines (whole lines, never before the previous part's start).
func (d *doc) withOverlap(bounds []int) (starts []int) {
	starts = make([]int, len(bounds)-1)
	copy(starts, bounds)
	if d.opts.OverlapLines == 0 {
		return starts
	}
	for i := 1; i < len(starts); i++ {
		l := d.lineOf(bounds[i])
		if d.lines[l] != bounds[i] {
			continue // a cut inside a line: no whole lines to repeat
		}
		o := d.lines[max(0, l-d.opts.OverlapLines)]
		starts[i] = max(o, bounds[i-1]+1)
		if d.lines[d.lineOf(starts[i])] != starts[i] {
			starts[i] = bounds[i]
		}
	}
	return starts
}

// parts emits the parts of a unit cut at bounds (from pack). A single part
// is one chunk labelled label; several are labelled "label (part i/n)" with
// Parent set to label and Context set on every part after the first. overlap
// repeats OverlapLines lines between parts.
func (d *doc) parts(kind, label, context string, bounds []int, overlap bool) []Chunk {
	starts := bounds[:len(bounds)-1]
	if overlap {
		starts = d.withOverlap(bounds)
	}
	var out []Chunk
	for i, st := range starts {
		if c, ok := d.emit(kind, label, st, bounds[i+1]); ok {
			out = append(out, c)
		}
	}
	if len(out) > 1 {
		for i := range out {
			out[i].Parent = label
			out[i].Part = i + 1
			out[i].Parts = len(out)
			out[i].Label = partLabel(label, i+1, len(out))
			if i > 0 {
				out[i].Context = context
			}
		}
	}
	return out
}

// partLabel names part i of n of a split unit.
func partLabel(label string, i, n int) string {
	return fmt.Sprintf("%s (part %d/%d)", label, i, n)
}

// windows covers lines [a, b) with windows of WindowLines lines repeating
// OverlapLines lines, each also capped at MaxTokens (a single line above the
// cap is cut inside the line). Blank lines never start a window.
func (d *doc) windows(kind string, a, b int) []Chunk {
	var out []Chunk
	limit := d.opts.MaxTokens * tokenUnit
	for s := a; s < b; {
		for s < b && d.blank(s) {
			s++
		}
		if s == b {
			break
		}
		e, u := s, 0
		for e < b && e-s < d.opts.WindowLines {
			lu := d.units(d.lines[e], d.lineStart(e+1))
			if e > s && u+lu > limit {
				break
			}
			u += lu
			e++
		}
		if e == s+1 && u > limit {
			// One line above the cap: cut it inside.
			ls, le := d.lines[s], d.lineEnd(s)
			label := fmt.Sprintf("line %d", s+1)
			out = append(out, d.parts(kind, label, "", d.pack(ls, le, d.byteCuts(ls, le), nil), false)...)
		} else if c, ok := d.emit(kind, "", d.lines[s], d.lineStart(e)); ok {
			out = append(out, c)
		}
		if e >= b {
			break
		}
		s = max(e-d.opts.OverlapLines, s+1)
	}
	for i := range out {
		if out[i].Parent == "" {
			out[i].Label = windowLabel(out[i])
		}
	}
	return out
}

// windowLabel names a window by its line range.
func windowLabel(c Chunk) string {
	if c.StartLine == c.EndLine {
		return fmt.Sprintf("line %d", c.StartLine)
	}
	return fmt.Sprintf("lines %d-%d", c.StartLine, c.EndLine)
}
