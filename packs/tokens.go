package packs

import (
	"unicode"
	"unicode/utf8"
)

// tokenCounter counts tokens for every budget decision. It is a variable so
// the package can switch to chunking.CountTokens, the project's calibrated
// counter, without touching its callers.
var tokenCounter = estimateTokens

// CountTokens returns the number of embedding-tokenizer tokens in text, by
// the estimate every budget in this package uses.
func CountTokens(text string) int { return tokenCounter(text) }

// estimateTokens mimics the BERT pre-tokenizer of the MiniLM embedder:
// white space separates words, every punctuation or symbol character is a
// token on its own, and a word of n letters or digits is split by WordPiece
// into about 1 + (n-1)/5 pieces (a CJK ideograph is one token). Invalid
// UTF-8 bytes count as nothing.
func estimateTokens(text string) int {
	n, word := 0, 0
	flush := func() {
		if word > 0 {
			n += 1 + (word-1)/5
			word = 0
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			flush()
		case unicode.IsSpace(r) || unicode.IsControl(r):
			flush()
		case unicode.IsLetter(r) && unicode.Is(unicode.Han, r):
			flush()
			n++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			word++
		default:
			flush()
			n++
		}
	}
	flush()
	return n
}
