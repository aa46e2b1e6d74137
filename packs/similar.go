package packs

import (
	"crypto/sha256"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// shingleSize is the number of consecutive code tokens in one shingle.
const shingleSize = 5

// contentHash hashes text for exact de-duplication. Line endings and
// trailing white space do not count, so a CRLF copy of a file and a copy
// with stripped trailing blanks are the same content.
func contentHash(text string) [32]byte {
	h := sha256.New()
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, " \t\r\n")
		h.Write([]byte(line))
		h.Write([]byte{'\n'})
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// shingles returns the sorted, distinct hashes of the shingleSize-token
// windows of text, where a token is a run of letters, digits and '_' or a
// single other non-space character. A text shorter than one window is one
// shingle.
func shingles(text string) []uint64 {
	var toks []string
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case isWordRune(r):
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !isWordRune(r2) {
					break
				}
				j += s2
			}
			toks = append(toks, text[i:j])
			i = j
		default:
			toks = append(toks, text[i:i+size])
			i += size
		}
	}
	if len(toks) == 0 {
		return nil
	}
	n := len(toks) - shingleSize + 1
	if n < 1 {
		n = 1
	}
	out := make([]uint64, 0, n)
	for i := 0; i < n; i++ {
		h := fnv.New64a()
		for j := i; j < i+shingleSize && j < len(toks); j++ {
			h.Write([]byte(toks[j]))
			h.Write([]byte{0})
		}
		out = append(out, h.Sum64())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// Jaccard is the Jaccard similarity of two sorted sets of term hashes (0
// when either is empty).
func Jaccard(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// cosine returns the cosine similarity of two vectors of equal length, and
// false when they cannot be compared.
func cosine(a, b []float32) (float64, bool) {
	if len(a) == 0 || len(a) != len(b) {
		return 0, false
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 || math.IsNaN(dot) || math.IsInf(dot, 0) {
		return 0, false
	}
	return dot / math.Sqrt(na*nb), true
}
