package symbols_test

import (
	"os"
	"testing"

	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/symbols/symbolstest"
)

// FuzzParse feeds arbitrary bytes to every grammar kept in this package
// (selected by the first argument) and checks that parsing never panics
// and every symbol keeps the span invariants. Seeds are the golden
// fixtures.
//
//	go test ./symbols -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	var langs []*symbols.Language
	for _, l := range symbols.All() {
		if l.HasGrammar() {
			langs = append(langs, l)
		}
	}
	fx := fixtures(f)
	seeds := make([]symbolstest.Seed, 0, len(fx)+2)
	for _, path := range sortedKeys(fx) {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, symbolstest.Seed{Lang: fx[path], Src: src})
	}
	seeds = append(seeds, symbolstest.Seed{Lang: symbols.ByName("c"), Src: []byte("int (*(*f)(int))[3];\n#define X(a) a##__VA_ARGS__\n")})
	symbolstest.Fuzz(f, langs, seeds)
}
