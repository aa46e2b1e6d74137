package search

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// refTerms is the analyzer's specification written plainly (no cache, no
// ASCII table, a token per term): the analyzer must produce exactly its
// terms and ranges, or every index built before would rank differently.
func refTerms(text []byte) []refTerm {
	var out []refTerm
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		if !isIdent(r) {
			i += size
			continue
		}
		start := i
		for i < len(text) {
			r, size = utf8.DecodeRune(text[i:])
			if !isIdent(r) {
				break
			}
			i += size
		}
		word := text[start:i]
		if len(word) > maxTermLen {
			continue
		}
		parts := splitIdent(word)
		whole := strings.ToLower(string(trimUnderscore(word)))
		if whole == "" {
			continue
		}
		if len(parts) <= 1 {
			if t := normalizeWord(whole); t != "" {
				out = append(out, refTerm{t, start, i})
			}
			continue
		}
		out = append(out, refTerm{whole, start, i})
		for _, p := range parts {
			if t := normalizeWord(strings.ToLower(string(word[p[0]:p[1]]))); t != "" {
				out = append(out, refTerm{t, start + p[0], start + p[1]})
			}
		}
	}
	return out
}

type refTerm struct {
	term       string
	start, end int
}

func checkAgainstRef(t *testing.T, name string, text []byte) {
	t.Helper()
	want := refTerms(text)
	var got []refTerm
	Terms(text, func(term string, start, end int) { got = append(got, refTerm{term, start, end}) })
	if !reflect.DeepEqual(got, want) {
		for i := range got {
			if i >= len(want) || got[i] != want[i] {
				t.Fatalf("%s: term %d: Terms gives %+v, the specification %+v", name, i, got[i], want[min(i, len(want)-1)])
			}
		}
		t.Fatalf("%s: Terms gives %d terms, the specification %d", name, len(got), len(want))
	}
	toks := codeAnalyzer{}.Analyze(text)
	if len(toks) != len(want) {
		t.Fatalf("%s: Analyze gives %d tokens, the specification %d", name, len(toks), len(want))
	}
	for i, tok := range toks {
		w := want[i]
		if string(tok.Term) != w.term || tok.Start != w.start || tok.End != w.end || tok.Position != i+1 || tok.Type != analysis.AlphaNumeric {
			t.Fatalf("%s: token %d is %q %d-%d pos %d, want %q %d-%d pos %d", name, i, tok.Term, tok.Start, tok.End, tok.Position, w.term, w.start, w.end, i+1)
		}
	}
}

func TestTermsMatchSpecification(t *testing.T) {
	for _, s := range []string{
		"QueryEscape read_file(path) HTTPServer utf8Valid base64 the waiting goroutines",
		"a b __ _x_ naïve Über ÀÉÎõü Σίσυφος 日本語 x\xffy \xf0\x9f\x98\x80emoji",
		"__init__ _private CONSTANT_VALUE parseHTTP2Frame XMLHttpRequest ID3v2 v1beta1",
		strings.Repeat("abcdefghij", 6) + " short " + strings.Repeat("Z", 48) + " " + strings.Repeat("q", 49),
	} {
		checkAgainstRef(t, s, []byte(s))
		checkAgainstRef(t, s+" again", []byte(s)) // a second time from the cache
	}
	// Real code: a slice of the Go standard library, when it is here.
	root := filepath.Join(runtime.GOROOT(), "src", "strings")
	files, _ := filepath.Glob(filepath.Join(root, "*.go"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			checkAgainstRef(t, f, b)
		}
	}
}

func TestWordCacheBounded(t *testing.T) {
	// Many distinct words: every shard refills, and answers stay right.
	var b strings.Builder
	for i := 0; i < wordShards*wordShardMax*2; i++ {
		b.WriteString("word")
		for n := i; n > 0; n /= 26 {
			b.WriteByte(byte('a' + n%26))
		}
		b.WriteByte(' ')
	}
	checkAgainstRef(t, "many words", []byte(b.String()))
	for i := range wordCache {
		sh := &wordCache[i]
		sh.mu.RLock()
		n := len(sh.m)
		sh.mu.RUnlock()
		if n > wordShardMax {
			t.Fatalf("shard %d holds %d words, more than %d", i, n, wordShardMax)
		}
	}
}

func FuzzTermsMatchSpecification(f *testing.F) {
	f.Add([]byte("func (b *Builder) WriteString(s string) (int, error)"))
	f.Add([]byte{0xff, 0xfe, 'a', 'B'})
	f.Fuzz(func(t *testing.T, b []byte) { checkAgainstRef(t, "fuzz", b) })
}

// BenchmarkAnalyzeGoStdlib measures the analyzer on Go standard library
// files; it reports MB/s of source.
func BenchmarkAnalyzeGoStdlib(b *testing.B) {
	var texts [][]byte
	size := 0
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(p string, d os.DirEntry, err error) error {
		if err != nil || size > 20<<20 {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			if src, err := os.ReadFile(p); err == nil {
				texts = append(texts, src)
				size += len(src)
			}
		}
		return nil
	})
	if size == 0 {
		b.Skip("no Go sources")
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, t := range texts {
			codeAnalyzer{}.Analyze(t)
		}
	}
}
