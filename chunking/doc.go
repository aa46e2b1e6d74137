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
	text  string // src as a string, sliced for token counts without copies
	opts  Options
	lines []int // start offset of every line; a last line without newline counts
	cum   []int // cum[l]: token units of lines [0, l); built on first use
	// few, set when only a few lines will be counted (a spliced chunking),
	// counts lines one by one into lineUnits (−1: not yet) instead of
	// building cum for the whole file.
	few       bool
	lineUnits []int32
}

func newDoc(path, lang string, src []byte, opts Options) *doc {
	d := &doc{path: path, lang: lang, src: src, text: string(src), opts: opts.normalized()}
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

// units returns the token estimate of [s, e) in fixed-point units. Whole
// lines come from prefix sums (a word never spans a line break, so the sum
// over lines equals the count of the whole); partial lines are counted.
func (d *doc) units(s, e int) int {
	if e <= s {
		return 0
	}
	ls, le := d.lineOf(s), d.lineOf(e-1)
	if ls == le {
		if s == d.lines[ls] && e == d.lineStart(ls+1) {
			return d.lineRange(ls, ls+1)
		}
		return tokenUnits(d.text[s:e], nil)
	}
	u := d.lineRange(ls+1, le)
	if s == d.lines[ls] {
		u += d.lineRange(ls, ls+1)
	} else {
		u += tokenUnits(d.text[s:d.lines[ls+1]], nil)
	}
	if e == d.lineStart(le+1) {
		u += d.lineRange(le, le+1)
	} else {
		u += tokenUnits(d.text[d.lines[le]:e], nil)
	}
	return u
}

// lineRange returns the token units of whole lines [a, b).
func (d *doc) lineRange(a, b int) int {
	line := func(l int) int { return tokenUnits(d.text[d.lines[l]:d.lineStart(l+1)], nil) }
	if d.few {
		if d.lineUnits == nil {
			d.lineUnits = make([]int32, len(d.lines))
			for i := range d.lineUnits {
				d.lineUnits[i] = -1
			}
		}
		u := 0
		for l := a; l < b; l++ {
			if d.lineUnits[l] < 0 {
				d.lineUnits[l] = int32(line(l))
			}
			u += int(d.lineUnits[l])
		}
		return u
	}
	if d.cum == nil {
		d.cum = make([]int, len(d.lines)+1)
		for l := range d.lines {
			d.cum[l+1] = d.cum[l] + line(l)
		}
	}
	return d.cum[b] - d.cum[a]
}

// refineFunc proposes cut points strictly inside [s, e) for a unit too big
// to be one part, in ascending order. No cuts means the unit is unsplittable
// and is kept whole.
type refineFunc func(s, e int) []int

// packing says how pack cuts a range.
type packing struct {
	// refine cuts units above MaxTokens finer; nil means lines, then
	// positions inside a single long line.
	refine refineFunc
	// balance, when set, also cuts units above half the target part size,
	// so that parts come out about equal in size.
	balance refineFunc
	// overlap repeats OverlapLines lines at the start of every part after
	// the first (counted in the part's size).
	overlap bool
}

// piece is one part of a packed range: [start, end), where start is before
// cut by the overlap repeated from the previous part.
type piece struct{ start, cut, end int }

// pack cuts [s, e) into consecutive parts of at most MaxTokens each. Parts
// begin only at s or at one of cuts (ascending offsets inside (s, e)); a unit
// between two cuts that is itself above MaxTokens is first cut finer by
// p.refine, recursively, and a unit that cannot be cut finer becomes a part
// of its own. The finest units are then grouped greedily into parts of about
// equal size.
func (d *doc) pack(s, e int, cuts []int, p packing) []piece {
	limit := d.opts.MaxTokens * tokenUnit
	total := d.units(s, e)
	n := max(1, (total+limit-1)/max(limit, 1))
	target := total / n
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
			var inner []int
			switch {
			case u > limit && depth < maxPackDepth:
				inner = d.finer(prev, b, p.refine)
			case u > limit && depth < maxPackDepth+2:
				// Deep structure (a chain of nested expressions): lines,
				// then bytes, which end after two more levels.
				inner = d.textCuts(prev, b)
			case p.balance != nil && n > 1 && u > target/2 && depth < maxPackDepth:
				inner = d.finer(prev, b, p.balance)
			}
			if len(inner) > 0 {
				atomize(prev, b, inner, depth+1)
			} else {
				atoms = append(atoms, prev)
				sizes = append(sizes, u)
			}
			prev = b
		}
	}
	atomize(s, e, cuts, 0)

	pieces := []piece{{start: s, cut: s}}
	cur, done, filled := 0, 0, false
	for i, a := range atoms {
		u := sizes[i]
		// Close the part when the atom would overflow it, or when the part
		// has reached the target and enough remains for another part.
		if filled && (cur+u > limit || (cur+u/2 > target && total-done >= target/2)) {
			pieces[len(pieces)-1].end = a
			ov := a
			if p.overlap {
				ov = d.overlapStart(a, pieces[len(pieces)-1].cut)
			}
			cur = d.units(ov, a)
			if cur+u > limit {
				ov, cur = a, 0
			}
			pieces = append(pieces, piece{start: ov, cut: a})
		}
		cur += u
		done += u
		filled = true
	}
	pieces[len(pieces)-1].end = e
	return pieces
}

// overlapStart returns where a part cut at a starts when it repeats
// OverlapLines whole lines, never at or before prev (the previous cut).
func (d *doc) overlapStart(a, prev int) int {
	l := d.lineOf(a)
	if d.opts.OverlapLines == 0 || d.lines[l] != a {
		return a // no overlap, or a cut inside a line
	}
	for k := max(0, l-d.opts.OverlapLines); k < l; k++ {
		if d.lines[k] > prev {
			return d.lines[k]
		}
	}
	return a
}

// maxPackDepth bounds the recursion of pack and of the descent into nested
// syntax nodes on pathological inputs.
const maxPackDepth = 256

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

// parts emits the pieces of a unit (from pack). A single piece is one chunk
// labelled label; several are labelled "label (part i/n)" with Parent set to
// label and Context set on every part after the first.
func (d *doc) parts(kind, label, context string, pieces []piece) []Chunk {
	var out []Chunk
	for _, p := range pieces {
		if c, ok := d.emit(kind, label, p.start, p.end); ok {
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
			out = append(out, d.parts(kind, label, "", d.pack(ls, le, d.byteCuts(ls, le), packing{}))...)
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
