package packs

// needleSet finds every occurrence of a set of needles in one pass over a
// text (an Aho–Corasick automaton): the scrubber runs each rule only on
// the lines holding one of its needles, and with gitleaks's rules it has
// some 300 needles, which searching for one by one took most of its time.
type needleSet struct {
	// next is the automaton's transition table: next[state][byte].
	next [][256]int32
	// out lists the needles (their ids) that end at each state.
	out [][]int32
	n   int // number of needles
}

// newNeedleSet builds the automaton of needles; a needle's id is its index.
func newNeedleSet(needles []string) *needleSet {
	s := &needleSet{next: make([][256]int32, 1), out: make([][]int32, 1), n: len(needles)}
	for i := range s.next[0] {
		s.next[0][i] = -1
	}
	// The trie: -1 marks a missing child.
	for id, nd := range needles {
		st := int32(0)
		for i := 0; i < len(nd); i++ {
			c := nd[i]
			if s.next[st][c] < 0 {
				s.next = append(s.next, [256]int32{})
				s.out = append(s.out, nil)
				k := int32(len(s.next) - 1)
				for j := range s.next[k] {
					s.next[k][j] = -1
				}
				s.next[st][c] = k
			}
			st = s.next[st][c]
		}
		s.out[st] = append(s.out[st], int32(id))
	}
	// Failure links, breadth first, folded into complete transitions.
	fail := make([]int32, len(s.next))
	queue := make([]int32, 0, len(s.next))
	for c := 0; c < 256; c++ {
		if k := s.next[0][c]; k < 0 {
			s.next[0][c] = 0
		} else {
			fail[k] = 0
			queue = append(queue, k)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		s.out[st] = append(s.out[st], s.out[fail[st]]...)
		for c := 0; c < 256; c++ {
			if k := s.next[st][c]; k < 0 {
				s.next[st][c] = s.next[fail[st]][c]
			} else {
				fail[k] = s.next[fail[st]][c]
				queue = append(queue, k)
			}
		}
	}
	return s
}

// lines returns, for every needle, the start offsets of the lines of text
// holding it, ascending and each once (nil for a needle text lacks).
func (s *needleSet) lines(text string) [][]int {
	if s == nil || s.n == 0 {
		return nil
	}
	out := make([][]int, s.n)
	st, lineStart := int32(0), 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		st = s.next[st][c]
		for _, id := range s.out[st] {
			if l := out[id]; len(l) == 0 || l[len(l)-1] != lineStart {
				out[id] = append(l, lineStart)
			}
		}
		if c == '\n' {
			lineStart = i + 1
		}
	}
	return out
}
