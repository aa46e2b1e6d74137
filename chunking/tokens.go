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
// vocabulary lookup by a table: the mean number of pieces for a word of a
// given length, camel-case/digit segment count and character class, fitted
// against the real tokenizer on Go and Python standard library text (see
// tokens_table.go and TestTokenCalibration for the measured error).
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

// Word kinds: the first index of the estimate tables.
const (
	wkLower  = iota // ASCII lower-case letters, possibly with digits
	wkMixed         // ASCII letters of both cases, possibly with digits
	wkUpper         // ASCII upper-case letters, possibly with digits
	wkDigits        // ASCII digits only
	wkOther         // contains a non-ASCII letter or symbol
	numWordKinds
)

// wordKindNames names the word kinds in the generated table.
var wordKindNames = [numWordKinds]string{"wkLower", "wkMixed", "wkUpper", "wkDigits", "wkOther"}

// Table dimensions: segment counts 1..maxSegs and lengths 1..maxLen index the
// tables directly; longer words extrapolate linearly from the last column.
const (
	maxSegs = 4
	maxLen  = 32
	// maxWordRunes is the WordPiece max_input_chars_per_word: longer words
	// become a single [UNK].
	maxWordRunes = 100
	// maxKnownLen is the longest word looked up in the known-word set.
	maxKnownLen = 24
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

// kindOf is the kind of a word starting with an ASCII character class.
var kindOf = [ccDigit + 1]int{ccLower: wkLower, ccUpper: wkUpper, ccDigit: wkDigits}

// nextKind[k][cl] is the kind of a word of kind k extended by a character of
// ASCII class cl.
var nextKind = func() (t [numWordKinds][ccDigit + 1]int) {
	for k := range t {
		t[k][ccDigit] = k
		t[k][ccLower], t[k][ccUpper] = k, k
	}
	t[wkLower][ccUpper] = wkMixed
	t[wkUpper][ccLower] = wkMixed
	t[wkDigits][ccLower] = wkLower
	t[wkDigits][ccUpper] = wkUpper
	return t
}()

// wordFeatures describes one pre-tokenized word for the table lookup.
type wordFeatures struct {
	kind  int // wk*
	segs  int // camel-case humps, letter/digit switches, 1 for a plain word
	runes int // length in characters
	hash  uint64
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

// wordSink receives every word the estimator sees; only the calibration
// tooling passes one.
type wordSink func(word string, f wordFeatures)

// wordUnits is the fitted estimate, in token units, for one word.
func wordUnits(f wordFeatures) int {
	if f.runes > maxWordRunes {
		return tokenUnit
	}
	if f.kind != wkOther && f.runes <= maxKnownLen {
		if p := known.lookup(f.hash); p > 0 {
			return p * tokenUnit
		}
	}
	s := min(f.segs, maxSegs) - 1
	row := &wordTable[f.kind][s]
	if f.runes <= maxLen {
		return int(row[f.runes-1])
	}
	return int(row[maxLen-1]) + (f.runes-maxLen)*int(wordSlope[f.kind])
}

// tokenUnits scans text once, mirroring BERT pre-tokenization, and returns
// the estimate in token units. sink, when not nil, sees every word.
func tokenUnits(text string, sink wordSink) int {
	units := 0
	start := -1        // byte offset of the current word, -1 between words
	var f wordFeatures // features of the current word
	prev := ccSpace    // class of the previous character in the word
	upperRun := 0      // length of the current run of upper-case letters

	end := func(i int) {
		if start >= 0 {
			units += wordUnits(f)
			if sink != nil {
				sink(text[start:i], f)
			}
			start = -1
		}
	}

	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			cl := int(asciiClass[c])
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
			if start < 0 {
				start = i
				f = wordFeatures{kind: kindOf[cl], segs: 1, runes: 1, hash: fnvOffset}
				upperRun = 0
			} else {
				f.runes++
				switch {
				case cl == ccDigit:
					if prev != ccDigit {
						f.segs++
					}
				case prev == ccDigit:
					f.segs++
				case cl == ccUpper && prev == ccLower:
					f.segs++ // camelCase hump
				case cl == ccLower && prev == ccUpper && upperRun > 1:
					f.segs++ // HTTPServer: the S starts a new segment
				}
				f.kind = nextKind[f.kind][cl]
			}
			f.hash = (f.hash ^ uint64(c|0x20)) * fnvPrime
			if cl == ccUpper {
				upperRun++
			} else {
				upperRun = 0
			}
			prev = cl
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
		default:
			if start < 0 {
				start = i
				f = wordFeatures{kind: wkOther, segs: 1, runes: 1}
			} else {
				f.runes++
				f.kind = wkOther
			}
			prev = ccLower
			upperRun = 0
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
