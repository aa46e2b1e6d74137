package chunking

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CountTokens estimates how many tokens the embedding tokenizer
// (all-MiniLM-L6-v2's BERT WordPiece, lowercasing) produces for text, without
// the [CLS] and [SEP] tokens the embedder adds around every input.
//
// The estimate mirrors the tokenizer's pre-tokenization exactly — whitespace
// and control characters separate words and vanish, every punctuation
// character is one token, every CJK ideograph is one token, a word longer
// than 100 characters is one [UNK] — and replaces only the WordPiece
// vocabulary lookup: the most frequent words of source code count exactly
// from a list, and any other word is cut into segments (camel-case humps,
// runs of capitals, runs of digits) whose piece counts come from a table by
// position, character class and length. Both were fitted against the real
// tokenizer on Go and Python standard library code (tokens_table.go;
// TestTokenCalibration measures the error on held-out files).
//
// Invalid UTF-8 bytes count as nothing, as they do for the tokenizer after
// strings.ToValidUTF8. CountTokens runs in a single pass without allocating.
func CountTokens(text string) int {
	return unitsToTokens(tokenUnits(text, nil))
}

// tokenUnit is one token in the fixed-point units of the estimate tables.
const tokenUnit = 256

// unitsToTokens rounds a fixed-point estimate to whole tokens.
func unitsToTokens(u int) int {
	return (u + tokenUnit/2) / tokenUnit
}

// Character classes of the estimator's ASCII fast path.
const (
	ccSpace = iota // separates words, produces nothing (also control bytes)
	ccPunct        // one token on its own
	ccLower
	ccUpper
	ccDigit
)

var asciiClass = func() (t [128]uint8) {
	for c := 0; c < 128; c++ {
		switch {
		case c >= 'a' && c <= 'z':
			t[c] = ccLower
		case c >= 'A' && c <= 'Z':
			t[c] = ccUpper
		case c >= '0' && c <= '9':
			t[c] = ccDigit
		case c >= 33 && c <= 47, c >= 58 && c <= 64, c >= 91 && c <= 96, c >= 123 && c <= 126:
			t[c] = ccPunct
		default: // space, tab, newlines and control bytes
			t[c] = ccSpace
		}
	}
	return t
}()

// Segment classes: the second index of the segment table.
const (
	scLower = iota // "parse"
	scCap          // "Request": a capital and lower-case letters
	scUpper        // "HTTP"
	scDigit        // "2024"
	scOther        // non-ASCII letters and symbols
	numSegClasses
)

// segClassNames names the segment classes in the generated table.
var segClassNames = [numSegClasses]string{"scLower", "scCap", "scUpper", "scDigit", "scOther"}

const (
	// maxSegLen is the longest segment length the table holds; longer
	// segments add segExtra per character beyond it.
	maxSegLen = 16
	// maxWordRunes is the WordPiece max_input_chars_per_word: longer words
	// become a single [UNK].
	maxWordRunes = 100
	// maxKnownLen is the longest word looked up in the known-word set.
	maxKnownLen = 24
)

// segUnits is the fitted estimate, in token units, of one segment: pos is 0
// for a word's first segment and 1 for the others (WordPiece continuation
// pieces come from a different part of the vocabulary).
func segUnits(pos, class, n int) int {
	if n <= maxSegLen {
		return int(segTable[pos][class][n-1])
	}
	return int(segTable[pos][class][maxSegLen-1]) + (n-maxSegLen)*int(segExtra[pos][class])
}

// FNV-1a over the lower-cased bytes of a word, as the tokenizer lower-cases.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// wordHash hashes an ASCII word the way tokenUnits does while scanning.
func wordHash(w string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i]|0x20)) * fnvPrime
	}
	return h
}

// knownSet is an open-addressing hash set of the known words (see
// knownWords in tokens_table.go) with their exact piece counts.
type knownSet struct {
	keys   []uint64
	pieces []uint8
	mask   uint64
}

var known = func() *knownSet {
	n := 0
	for _, ws := range knownWords {
		n += len(strings.Fields(ws))
	}
	size := 1
	for size < 2*n {
		size <<= 1
	}
	k := &knownSet{keys: make([]uint64, size), pieces: make([]uint8, size), mask: uint64(size - 1)}
	for i, ws := range knownWords {
		for _, w := range strings.Fields(ws) {
			h := wordHash(w)
			j := h & k.mask
			for k.pieces[j] != 0 {
				j = (j + 1) & k.mask
			}
			k.keys[j], k.pieces[j] = h, uint8(i+1)
		}
	}
	return k
}()

// lookup returns the exact piece count of a known word, or 0.
func (k *knownSet) lookup(h uint64) int {
	for j := h & k.mask; ; j = (j + 1) & k.mask {
		p := k.pieces[j]
		if p == 0 || k.keys[j] == h {
			return int(p)
		}
	}
}

// segment is one segment of a word, as the calibration tooling sees it.
type segment struct{ pos, class, n int }

// wordSink receives every word the estimator sees with its segments; only
// the calibration tooling passes one. The slice is reused between calls.
type wordSink func(word string, ascii bool, segs []segment)

// wordState is the estimator's state inside one word.
type wordState struct {
	start  int    // byte offset of the word, -1 between words
	runes  int    // characters so far
	hash   uint64 // FNV-1a of the lower-cased ASCII bytes
	ascii  bool   // no non-ASCII character so far
	units  int    // estimate of the closed segments
	segs   int    // closed segments
	class  int    // class of the open segment
	n      int    // length of the open segment
	record []segment
}

// closeSeg adds the open segment to the word's estimate.
func (w *wordState) closeSeg(sink wordSink) {
	pos := min(w.segs, 1)
	w.units += segUnits(pos, w.class, w.n)
	if sink != nil {
		w.record = append(w.record, segment{pos, w.class, w.n})
	}
	w.segs++
}

// open starts a new segment of class c.
func (w *wordState) open(c int) { w.class, w.n = c, 1 }

// tokenUnits scans text once, mirroring BERT pre-tokenization, and returns
// the estimate in token units. sink, when not nil, sees every word.
func tokenUnits(text string, sink wordSink) int {
	units := 0
	w := wordState{start: -1}
	end := func(i int) {
		if w.start < 0 {
			return
		}
		w.closeSeg(sink)
		u := max(w.units, tokenUnit)
		if w.runes > maxWordRunes {
			u = tokenUnit
		} else if w.ascii && w.runes <= maxKnownLen {
			if p := known.lookup(w.hash); p > 0 {
				u = p * tokenUnit
			}
		}
		units += u
		if sink != nil {
			sink(text[w.start:i], w.ascii, w.record)
		}
		w = wordState{start: -1, record: w.record[:0]}
	}
	begin := func(i, class int) {
		w.start, w.runes, w.hash, w.ascii = i, 1, fnvOffset, true
		w.units, w.segs = 0, 0
		w.open(class)
	}

	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			cl := asciiClass[c]
			switch cl {
			case ccSpace:
				end(i)
				i++
				continue
			case ccPunct:
				end(i)
				units += tokenUnit
				i++
				continue
			}
			class := scLower
			switch cl {
			case ccUpper:
				class = scUpper
			case ccDigit:
				class = scDigit
			}
			switch {
			case w.start < 0:
				begin(i, class)
			case class == scDigit || w.class == scDigit || w.class == scOther:
				if class == scDigit && w.class == scDigit {
					w.n++
				} else {
					w.closeSeg(sink)
					w.open(class)
				}
			case class == scLower:
				switch {
				case w.class != scUpper:
					w.n++ // "parse", "Reque"
				case w.n == 1:
					w.class, w.n = scCap, 2 // "Re"
				default:
					// "HTTPServer": the last capital starts the next segment.
					w.n--
					w.closeSeg(sink)
					w.class, w.n = scCap, 2
				}
			default: // an upper-case letter
				if w.class == scUpper {
					w.n++
				} else {
					w.closeSeg(sink) // a camel-case hump
					w.open(scUpper)
				}
			}
			if w.start != i {
				w.runes++
			}
			w.hash = (w.hash ^ uint64(c|0x20)) * fnvPrime
			i++
			continue
		}

		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError:
			// Invalid bytes (and U+FFFD itself) vanish in the tokenizer's
			// clean-up without separating words.
		case unicode.In(r, unicode.Cc, unicode.Cf):
			// Control and format characters (BOM, zero-width joiners) are
			// removed without separating words.
		case unicode.Is(unicode.P, r), isCJK(r):
			end(i)
			units += tokenUnit
		case w.start < 0:
			begin(i, scOther)
			w.ascii = false
		default:
			if w.class == scOther {
				w.n++
			} else {
				w.closeSeg(sink)
				w.open(scOther)
			}
			w.runes++
			w.ascii = false
		}
		i += size
	}
	end(len(text))
	return units
}

// isCJK reports whether r is in the CJK ideograph blocks the BERT normalizer
// surrounds with spaces.
func isCJK(r rune) bool {
	switch {
	case r >= 0x4e00 && r <= 0x9fff, r >= 0x3400 && r <= 0x4dbf, r >= 0xf900 && r <= 0xfaff:
		return true
	case r >= 0x20000 && r <= 0x2a6df, r >= 0x2a700 && r <= 0x2ceaf, r >= 0x2f800 && r <= 0x2fa1f:
		return true
	}
	return false
}
