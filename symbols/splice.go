package symbols

import (
	"bytes"
	"sort"

	sitter "github.com/smacker/go-tree-sitter"
)

// Splice says where a re-parsed file version differs from the version it
// was re-parsed from, in whole top-level declarations: bytes [Start,
// OldEnd) of the old source became [Start, NewEnd) of the new one. What
// comes before Start is the same in both; what comes after moved by
// Bytes() bytes and Lines() lines and kept its columns (Start, OldEnd and
// NewEnd are each at the start of a line or at the end of their source).
//
// A File with a Splice had its definitions extracted inside the splice
// only, the others carried over from the old version: consumers that keep
// their own results per version (the call graph) may do the same. Only
// declarations of node types a language lists as self-contained are ever
// spliced (langSpec.spliceable), so that what is extracted from them
// depends on nothing outside them but the file's prelude.
type Splice struct {
	Start, OldEnd, NewEnd             int
	StartLine, OldEndLine, NewEndLine int
	// The old version's symbols [0, symBefore) kept their index; those
	// from symAfter on moved by symShift.
	symBefore, symAfter, symShift int
}

// Symbol maps index i of the old version's Symbols to the new version's,
// for a symbol outside the splice (and -1 to -1); ok is false for one
// inside it.
func (s *Splice) Symbol(i int) (int, bool) {
	switch {
	case i < s.symBefore:
		return i, true
	case i >= s.symAfter:
		return i + s.symShift, true
	}
	return -1, false
}

// Points are the splice's start and end in the new source src as
// tree-sitter points, for a query range over it.
func (s *Splice) Points(src []byte) (start, end sitter.Point) {
	start = sitter.Point{Row: uint32(s.StartLine)}
	end = sitter.Point{Row: uint32(s.NewEndLine)}
	if s.NewEnd == len(src) && (s.NewEnd == 0 || src[s.NewEnd-1] != '\n') {
		end = pointAt(src, s.NewEnd)
	}
	return start, end
}

// Bytes is how far the text after the splice moved.
func (s *Splice) Bytes() int { return s.NewEnd - s.OldEnd }

// Lines is how many lines the text after the splice moved.
func (s *Splice) Lines() int { return s.NewEndLine - s.OldEndLine }

// Before reports whether old span sp lies before the splice.
func (s *Splice) Before(sp Span) bool { return sp.EndByte <= s.Start }

// After reports whether old span sp lies after the splice.
func (s *Splice) After(sp Span) bool { return sp.StartByte >= s.OldEnd }

// Inside reports whether old span sp lies within the splice.
func (s *Splice) Inside(sp Span) bool { return sp.StartByte >= s.Start && sp.EndByte <= s.OldEnd }

// Shift moves an old span that lies after the splice to where it is in the
// new version. An empty zero span (no doc comment) stays as it is.
func (s *Splice) Shift(sp Span) Span {
	if sp == (Span{}) {
		return sp
	}
	db, dl := s.Bytes(), s.Lines()
	sp.StartByte += db
	sp.EndByte += db
	sp.Start.Line += dl
	sp.End.Line += dl
	return sp
}

// rootKids reads the direct children of a syntax tree's root by index,
// only those asked for: a large file has thousands, and each costs a call
// into tree-sitter.
type rootKids struct {
	root *sitter.Node
	n    int
}

func kidsOf(tree *sitter.Tree) rootKids {
	root := tree.RootNode()
	return rootKids{root: root, n: int(root.ChildCount())}
}

// at returns child i's byte range and type ("" for an anonymous node).
func (k rootKids) at(i int) (start, end int, typ string) {
	c := k.root.Child(i)
	if c.IsNamed() {
		typ = c.Type()
	}
	return int(c.StartByte()), int(c.EndByte()), typ
}

// from returns the index of the first child that ends at or after off.
func (k rootKids) from(off int) int {
	return sort.Search(k.n, func(i int) bool { return int(k.root.Child(i).EndByte()) >= off })
}

// span is a byte range; empty when there is none.
type span struct{ start, end int }

func (s span) empty() bool { return s.end <= s.start }

// touched returns the byte range of the named children that intersect or
// touch bytes [from, to] — anonymous ones (statement terminators) are left
// to the widening to whole lines — widened forward over comments to the
// next declaration (a changed comment may be that declaration's doc). It
// is empty when the change lies in white space between declarations; ok
// is false when a child in it is not self-contained.
func touched(k rootKids, from, to int, spliceable map[string]bool) (hull span, ok bool) {
	i := k.from(from)
	last := ""
	for ; i < k.n; i++ {
		start, end, typ := k.at(i)
		if start > to && last != "comment" {
			break
		}
		if typ == "" {
			continue
		}
		if !selfContained(spliceable, typ) {
			return span{}, false
		}
		if hull.empty() {
			hull.start = start
		}
		hull.end, last = end, typ
		if start > to && typ != "comment" {
			break // the declaration after a changed comment
		}
	}
	return hull, true
}

// within reports whether every named child overlapping [start, end) is
// self-contained and lies inside it.
func within(k rootKids, start, end int, spliceable map[string]bool) bool {
	for i := k.from(start + 1); i < k.n; i++ {
		s, e, typ := k.at(i)
		if s >= end {
			break
		}
		if typ == "" {
			continue
		}
		if s < start || e > end || !selfContained(spliceable, typ) {
			return false
		}
	}
	return true
}

// selfContained reports whether a top-level node of type typ may be in a
// splice: a type the language lists (langSpec.spliceable), or a comment.
func selfContained(spliceable map[string]bool, typ string) bool {
	return typ == "comment" || spliceable[typ]
}

// spliceOf finds the Splice between old and new, which share pre bytes at
// the start and suf at the end. oldHull is touched of old's tree before it
// was edited; oldTree is that tree edited to new's offsets (what precedes
// and follows the change is where it is in new), newTree new's. ok is
// false when the change is not confined to self-contained top-level
// declarations of lang.
func spliceOf(lang *Language, old, new []byte, oldHull span, oldTree, newTree *sitter.Tree, pre, suf int) (*Splice, bool) {
	spliceable := lang.spec.spliceable
	delta := len(new) - len(old)
	newKids := kidsOf(newTree)
	newHull, ok := touched(newKids, pre, len(new)-suf, spliceable)
	if !ok {
		return nil, false
	}
	// The splice covers the change and every declaration it touches, in
	// both versions: before pre the two texts are the same, after
	// len(new)-suf they differ by delta.
	start, end := pre, len(new)-suf
	if !oldHull.empty() {
		start = min(start, oldHull.start)
		end = max(end, oldHull.end+delta)
	}
	if !newHull.empty() {
		start = min(start, newHull.start)
		end = max(end, newHull.end)
	}
	// Widen to whole lines, over white space only: text after the splice
	// keeps its columns.
	for start > 0 && (new[start-1] == ' ' || new[start-1] == '\t') {
		start--
	}
	if start > 0 && new[start-1] != '\n' {
		return nil, false
	}
	for end < len(new) && (new[end] == ' ' || new[end] == '\t' || new[end] == '\r') {
		end++
	}
	if end < len(new) {
		if new[end] != '\n' {
			return nil, false
		}
		end++
	}
	oldEnd := end - delta // ≥ len(old)-suf ≥ start
	if oldEnd > start && oldEnd < len(old) && old[oldEnd-1] != '\n' {
		return nil, false
	}
	// In both versions, the splice holds whole self-contained
	// declarations only: none straddles its ends (their text is the same
	// on the one side, not on the other).
	if !within(newKids, start, end, spliceable) || !within(kidsOf(oldTree), start, end, spliceable) {
		return nil, false
	}
	nl := []byte{'\n'}
	s := &Splice{Start: start, OldEnd: oldEnd, NewEnd: end}
	s.StartLine = bytes.Count(new[:start], nl)
	s.OldEndLine = s.StartLine + bytes.Count(old[start:oldEnd], nl)
	s.NewEndLine = s.StartLine + bytes.Count(new[start:end], nl)
	return s, true
}

// spliceSymbols makes the new version's symbols from the old version's
// outside the splice (those after it moved) and mid, the definitions
// extracted inside it (their Parent indices relative to mid), and records
// the mapping of old indices in s. ok is false when an old symbol
// straddles the splice or a kept symbol's parent lies inside it.
func spliceSymbols(old []Symbol, mid []Symbol, s *Splice) ([]Symbol, bool) {
	b := 0
	for b < len(old) && s.Before(old[b].Span) { // its doc comment is above it
		b++
	}
	a := b
	for a < len(old) && s.Inside(old[a].Span) {
		a++
	}
	shift := len(mid) - (a - b)
	s.symBefore, s.symAfter, s.symShift = b, a, shift
	out := make([]Symbol, 0, len(old)+shift)
	for _, sym := range old[:b] {
		if sym.Parent >= b {
			return nil, false
		}
		out = append(out, sym)
	}
	for _, sym := range mid {
		if sym.Parent >= 0 {
			sym.Parent += b
		}
		out = append(out, sym)
	}
	for _, sym := range old[a:] {
		if !s.After(sym.Span) || (!sym.DocSpan.Empty() && !s.After(sym.DocSpan)) {
			return nil, false
		}
		switch {
		case sym.Parent >= a:
			sym.Parent += shift
		case sym.Parent >= b:
			return nil, false
		}
		sym.Span = s.Shift(sym.Span)
		sym.DocSpan = s.Shift(sym.DocSpan)
		sym.NameSpan = s.Shift(sym.NameSpan)
		out = append(out, sym)
	}
	return out, true
}

// clipSegment is the part of query range seg inside [lo, hi) (a splice's
// Points); in is false when there is none. An end of {0, 0} is open (the
// end of the file).
func clipSegment(seg segment, lo, hi sitter.Point) (clipped segment, in bool) {
	if pointLess(seg.start, lo) {
		seg.start = lo
	}
	if seg.end == (sitter.Point{}) || pointLess(hi, seg.end) {
		seg.end = hi
	}
	return seg, pointLess(seg.start, seg.end)
}

func pointLess(a, b sitter.Point) bool {
	return a.Row < b.Row || a.Row == b.Row && a.Column < b.Column
}
