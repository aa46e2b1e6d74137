package chunking

import (
	"sort"

	"github.com/context-ls/context-ls/symbols"
)

// CodeSpliced is Code of f, a re-parsed file version whose definitions were
// spliced (f.Splice), given prev, Code of the version it was re-parsed
// from. Only the top-level definitions around the splice are chunked
// again: from the end of the definition before the last large one ahead of
// the splice (a definition too large to merge always starts a chunk of its
// own, so chunking from there on depends on nothing before it) to the end
// of the definition before the first large one after it; the chunks
// outside are carried over, moved. Without a splice, or when no such
// definitions exist, the whole file is chunked. The result is what Code
// returns.
func CodeSpliced(path string, f *symbols.File, opts Options, prev []Chunk) []Chunk {
	if out, ok := codeSpliced(path, f, opts, prev); ok {
		return out
	}
	return Code(path, f, opts)
}

// codeSpliced is CodeSpliced's splice; ok is false when it cannot be made.
func codeSpliced(path string, f *symbols.File, opts Options, prev []Chunk) ([]Chunk, bool) {
	if f == nil || f.Splice == nil || f.Tree == nil || len(prev) == 0 || len(f.Source) == 0 {
		return nil, false
	}
	c := newCoder(path, f, opts)
	defer c.close()
	c.few = true // only the lines around the splice are counted
	return c.spliced(f.Splice, prev)
}

// spliced chunks the file around splice s, carrying the rest over from
// prev.
func (c *coder) spliced(s *symbols.Splice, prev []Chunk) ([]Chunk, bool) {
	top := c.indexSymbols()
	// The top-level definitions the splice touches: [ks, ke).
	ks := sort.Search(len(top), func(i int) bool { return c.syms[top[i]].Span.EndByte > s.Start })
	ke := sort.Search(len(top), func(i int) bool { return c.syms[top[i]].FullSpan().StartByte >= s.NewEnd })
	for reach := 8; ; reach *= 2 {
		i0, i1 := max(0, ks-reach), min(len(top), ke+reach)
		us := c.buildUnits(c.root, top[i0:i1], 0, len(c.src))
		from, to, ok := c.syncUnits(us, s, i0 == 0, i1 == len(top))
		if !ok {
			if i0 == 0 && i1 == len(top) {
				return nil, false
			}
			continue
		}
		lo, hi := 0, len(c.src)
		if from > 0 {
			lo = us[from-1].end
		}
		if to < len(us) {
			hi = us[to-1].end
		}
		return c.splice(prev, c.top(us[from:to], lo, hi), lo, hi, s)
	}
}

// syncUnits picks the units to chunk again among us, the units of
// consecutive top-level definitions: [from, to), from the last large unit
// before the splice (or the first unit, when us starts the file) to the
// last unit before the first large one after it (or the last, when us ends
// the file). A large unit is one that never merges with its neighbours;
// the unit before it must lie wholly before the splice, or after it, too.
// ok is false when us does not reach far enough.
func (c *coder) syncUnits(us []unit, s *symbols.Splice, first, last bool) (from, to int, ok bool) {
	from, to = -1, -1
	for j := len(us) - 1; j >= 1; j-- {
		if us[j].end <= s.Start && !c.mergeable(us[j]) {
			from = j
			break
		}
	}
	if from < 0 && first {
		from = 0
	}
	for j := 1; j < len(us); j++ {
		if us[j-1].start >= s.NewEnd && !c.mergeable(us[j]) {
			to = j
			break
		}
	}
	if to < 0 && last {
		to = len(us)
	}
	return from, to, from >= 0 && to > from
}

// splice makes the file's chunks from mid, the chunks of [lo, hi) of the
// new version, and the old version's chunks prev outside that range (those
// after it moved). ok is false when an old chunk straddles either end.
func (c *coder) splice(prev, mid []Chunk, lo, hi int, s *symbols.Splice) ([]Chunk, bool) {
	oldHi := hi - s.Bytes()
	out := make([]Chunk, 0, len(prev)+len(mid))
	i := 0
	for ; i < len(prev) && prev[i].EndByte <= lo; i++ {
		out = append(out, prev[i])
	}
	for i < len(prev) && prev[i].StartByte >= lo && prev[i].StartByte < oldHi && prev[i].EndByte <= oldHi {
		i++ // chunked again: in mid
	}
	out = append(out, mid...)
	for _, ch := range prev[i:] {
		if ch.StartByte < oldHi {
			return nil, false
		}
		window := ch.Label == windowLabel(ch) // named by its lines
		ch.StartByte += s.Bytes()
		ch.EndByte += s.Bytes()
		ch.StartLine += s.Lines()
		ch.EndLine += s.Lines()
		if window {
			ch.Label = windowLabel(ch)
		}
		out = append(out, ch)
	}
	return out, true
}
