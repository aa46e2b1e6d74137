package search

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	porter "github.com/blevesearch/go-porterstemmer"
)

// AnalyzerName is the bleve name of the code-aware analyzer.
const AnalyzerName = "context_ls_code"

func init() {
	if err := registry.RegisterAnalyzer(AnalyzerName, func(map[string]interface{}, *registry.Cache) (analysis.Analyzer, error) {
		return codeAnalyzer{}, nil
	}); err != nil {
		panic(err)
	}
}

// maxTermLen bounds indexed terms; longer runs (hashes, base64) are skipped.
const maxTermLen = 48

// codeAnalyzer turns source text and prose into search terms in one pass:
// identifiers are indexed whole and split into their camelCase, snake_case
// and digit parts, everything is lower-cased, English stop words are dropped
// and words are Porter-stemmed, so "QueryEscape" matches "query escaping" and
// "read_file" matches "ReadFile".
type codeAnalyzer struct{}

func (codeAnalyzer) Analyze(input []byte) analysis.TokenStream {
	// Tokens are allocated in blocks and the stream points into them: a
	// few allocations for all of a document's tokens instead of one each,
	// and the terms are the cached words' own bytes (bleve only reads them).
	// Code and prose give about one term per six bytes: sized for that, a
	// document's stream rarely grows.
	est := len(input)/6 + 8
	out := make(analysis.TokenStream, 0, est)
	block := make([]analysis.Token, 0, est)
	scanWords(input, func(word []byte, offset int) {
		for _, t := range wordTermsOf(word) {
			if len(block) == cap(block) {
				block = make([]analysis.Token, 0, min(max(len(out)/2, 16), 1024))
			}
			block = append(block, analysis.Token{Term: t.bytes, Start: offset + int(t.start), End: offset + int(t.end),
				Position: len(out) + 1, Type: analysis.AlphaNumeric})
			out = append(out, &block[len(block)-1])
		}
	})
	return out
}

// Terms calls emit for every search term of text, in order, with its byte
// range. It is the analyzer's core, shared with query-side code.
func Terms(text []byte, emit func(term string, start, end int)) {
	scanWords(text, func(word []byte, offset int) {
		for _, t := range wordTermsOf(word) {
			emit(t.term, offset+int(t.start), offset+int(t.end))
		}
	})
}

// scanWords calls fn for every identifier-like run of text (letters,
// digits, underscores) with its offset.
func scanWords(text []byte, fn func(word []byte, offset int)) {
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			if !asciiIdent[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRune(text[i:]); !isIdent(r) {
			i += size
			continue
		}
		start := i
		for i < len(text) {
			if c := text[i]; c < utf8.RuneSelf {
				if !asciiIdent[c] {
					break
				}
				i++
				continue
			}
			r, size := utf8.DecodeRune(text[i:])
			if !isIdent(r) {
				break
			}
			i += size
		}
		fn(text[start:i], start)
	}
}

// asciiIdent is isIdent for the ASCII bytes.
var asciiIdent = func() (t [utf8.RuneSelf]bool) {
	for c := rune(0); c < utf8.RuneSelf; c++ {
		t[c] = isIdent(c)
	}
	return t
}()

func isIdent(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// wordTerm is one term of a word, with its byte range inside the word.
type wordTerm struct {
	term       string
	bytes      []byte // term, for tokens (shared: read only)
	start, end int32
}

// wordCache remembers the terms of words already analysed. Source code
// repeats its identifiers (err, nil, ctx, the names of a package), so most
// words are found here and cost no splitting, lower-casing or stemming; a
// shard that fills up is emptied, which bounds the memory to a few tens of
// megabytes on any corpus.
var wordCache [wordShards]struct {
	mu sync.RWMutex
	m  map[string][]wordTerm
}

const (
	wordShards   = 64
	wordShardMax = 512 // words per shard
)

// wordTermsOf returns the terms of one identifier-like run (cached).
func wordTermsOf(word []byte) []wordTerm {
	if len(word) > maxTermLen {
		return nil
	}
	h := uint32(2166136261)
	for _, c := range word {
		h = (h ^ uint32(c)) * 16777619
	}
	sh := &wordCache[h%wordShards]
	sh.mu.RLock()
	ts, ok := sh.m[string(word)]
	sh.mu.RUnlock()
	if ok {
		return ts
	}
	ts = identTerms(word)
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= wordShardMax {
		sh.m = make(map[string][]wordTerm, 256)
	}
	sh.m[string(word)] = ts
	sh.mu.Unlock()
	return ts
}

// identTerms computes the terms of one identifier-like run.
func identTerms(word []byte) []wordTerm {
	if len(word) > maxTermLen {
		return nil
	}
	var out []wordTerm
	add := func(t string, start, end int) {
		out = append(out, wordTerm{term: t, bytes: []byte(t), start: int32(start), end: int32(end)})
	}
	parts := splitIdent(word)
	whole := lower(trimUnderscore(word))
	if whole == "" {
		return nil
	}
	if len(parts) <= 1 {
		if t := normalizeWord(whole); t != "" {
			add(t, 0, len(word))
		}
		return out
	}
	// A compound identifier: the whole (unstemmed, it is a name) and its parts.
	add(whole, 0, len(word))
	for _, p := range parts {
		if t := normalizeWord(lower(word[p[0]:p[1]])); t != "" {
			add(t, p[0], p[1])
		}
	}
	return out
}

// Units calls fn for every word of text: an identifier-like run's whole
// term (its lower-cased form; stemmed when it is one plain word) and the
// terms of its parts, which are nil for a plain word. Stop words and
// one-letter words are skipped.
func Units(text []byte, fn func(whole string, parts []string)) {
	var whole string
	var parts []string
	runEnd := -1
	flush := func() {
		if whole != "" {
			fn(whole, parts)
		}
		whole, parts = "", nil
	}
	Terms(text, func(t string, start, end int) {
		if start < runEnd {
			parts = append(parts, t) // a part of the identifier being read
			return
		}
		flush()
		whole, runEnd = t, end
	})
	flush()
}

// NameParts returns the words of an identifier as the analyzer indexes them
// (camelCase, snake_case and digit parts, lower-cased, stemmed, stop words
// and one-letter parts dropped), without the whole-compound term:
// NameParts("ParseMultipartForm") = [pars multipart form].
func NameParts(name string) []string {
	var out []string
	b := []byte(name)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if !isIdent(r) {
			i += size
			continue
		}
		start := i
		for i < len(b) {
			if r, size = utf8.DecodeRune(b[i:]); !isIdent(r) {
				break
			}
			i += size
		}
		word := b[start:i]
		parts := splitIdent(word)
		if len(parts) <= 1 {
			if t := normalizeWord(lower(trimUnderscore(word))); t != "" {
				out = append(out, t)
			}
			continue
		}
		for _, p := range parts {
			if t := normalizeWord(lower(word[p[0]:p[1]])); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// normalizeWord drops stop words and one-letter terms and stems the rest.
func normalizeWord(w string) string {
	if len(w) < 2 || stopWords[w] {
		return ""
	}
	if !isASCIILetters(w) {
		return w
	}
	return string(porter.StemWithoutLowerCasing([]rune(w)))
}

// splitIdent returns the byte ranges of an identifier's parts: split at
// underscores, lower→upper case changes ("queryEscape"), the end of an
// upper-case run before a capitalised word ("HTTPServer" → HTTP, Server) and
// letter↔digit changes ("utf8Valid" → utf, 8, Valid).
func splitIdent(w []byte) [][2]int {
	var parts [][2]int
	start := -1
	var prev rune
	flush := func(end int) {
		if start >= 0 && end > start {
			parts = append(parts, [2]int{start, end})
		}
		start = -1
	}
	for i := 0; i < len(w); {
		r, size := utf8.DecodeRune(w[i:])
		if r == '_' {
			flush(i)
			prev = r
			i += size
			continue
		}
		if start < 0 {
			start = i
		} else {
			switch {
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush(i)
				start = i
			case unicode.IsUpper(prev) && unicode.IsLower(r) && i-start > 1 && isUpperRunEnd(w, start, i):
				// "HTTPServer": the 'S' before "erver" starts a new part.
				_, psize := utf8.DecodeLastRune(w[:i])
				flush(i - psize)
				start = i - psize
			case unicode.IsDigit(r) != unicode.IsDigit(prev) && prev != '_':
				flush(i)
				start = i
			}
		}
		prev = r
		i += size
	}
	flush(len(w))
	return parts
}

// isUpperRunEnd reports whether w[start:i] is all upper case (so the last
// upper-case letter begins the next word).
func isUpperRunEnd(w []byte, start, i int) bool {
	for _, r := range string(w[start:i]) {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

func trimUnderscore(w []byte) []byte {
	for len(w) > 0 && w[0] == '_' {
		w = w[1:]
	}
	for len(w) > 0 && w[len(w)-1] == '_' {
		w = w[:len(w)-1]
	}
	return w
}

func lower(w []byte) string { return strings.ToLower(string(w)) }

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// IsStopWord reports whether w (lower case) is an English function word the
// analyzer drops.
func IsStopWord(w string) bool { return stopWords[w] }

// stopWords are English function words that carry no meaning in a query or a
// comment. Programming words ("string", "file", "error") are kept: in code
// search they are content.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "been", "before", "being", "both", "but", "by", "can", "could", "did", "do", "does",
		"doing", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he",
		"her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its",
		"itself", "just", "me", "more", "most", "my", "no", "nor", "not", "of", "off", "on",
		"once", "only", "or", "other", "our", "ours", "out", "over", "own", "same", "she", "should",
		"so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these",
		"they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was",
		"we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
		"with", "would", "you", "your", "yours",
	} {
		m[w] = true
	}
	return m
}()
