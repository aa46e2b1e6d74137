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

// refineFunc proposes cut points strictly inside [s, e) for a unit too big to
// be one part. ok false marks the unit unsplittable (it is kept whole);
// ok true with no cuts lets pack fall back to lines, then to bytes.
type refineFunc func(s, e int) (cuts []int, ok bool)

// pack cuts [s, e) into consecutive parts of at most MaxTokens each. Parts
// begin only at s or at one of cuts (ascending offsets inside (s, e)), unless
// a unit between two cuts is itself too big: then refine is asked for finer
// cuts (nil refine means lines, then bytes). It returns the part boundaries:
// part i is [bounds[i], bounds[i+1]).
func (d *doc) pack(s, e int, cuts []int, refine refineFunc) []int {
	limit := d.opts.MaxTokens * tokenUnit
	bounds := []int{s}
	cur := 0 // units in the open part
	edges := append(append([]int{s}, cuts...), e)
	for i := 0; i+1 < len(edges); i++ {
		a, b := edges[i], edges[i+1]
		if a >= b {
			continue
		}
		u := d.units(a, b)
		if cur > 0 && cur+u > limit {
			if bounds[len(bounds)-1] != a {
				bounds = append(bounds, a)
			}
			cur = 0
		}
		if u <= limit {
			cur += u
			continue
		}
		// The unit alone is too big: cut it finer and close it off.
		inner, ok := d.finer(a, b, refine)
		if !ok || len(inner) == 0 {
			cur = u // unsplittable: a part of its own
			continue
		}
		sub := d.pack(a, b, inner, refine)
		for _, c := range sub[1 : len(sub)-1] {
			bounds = append(bounds, c)
		}
		cur = d.units(sub[len(sub)-2], b)
	}
	return append(bounds, e)
}

// finer returns cut points inside [s, e): refine's if it has any, else line
// starts, else byte positions in a single long line.
func (d *doc) finer(s, e int, refine refineFunc) ([]int, bool) {
	if refine != nil {
		cuts, ok := refine(s, e)
		if !ok {
			return nil, false
		}
		if len(cuts) > 0 {
			return cuts, true
		}
	}
	var cuts []int
	for l := d.lineOf(s) + 1; l < d.numLines() && d.lines[l] < e; l++ {
		cuts = append(cuts, d.lines[l])
	}
	if len(cuts) > 0 {
		return cuts, true
	}
	return d.byteCuts(s, e), true
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

// parts emits the parts of [s, e) cut at bounds (from pack). A single part is
// one chunk labelled label; several are labelled "label (part i/n)" with
// Parent set to label. overlap repeats OverlapLines lines between parts.
func (d *doc) parts(kind, label string, bounds []int, overlap bool) []Chunk {
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
			out = append(out, d.parts(kind, label, d.pack(ls, le, d.byteCuts(ls, le), nil), false)...)
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
