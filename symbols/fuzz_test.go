package symbols

import (
	"context"
	"errors"
	"os"
	"testing"
)

// fuzzParser is reused across fuzz inputs: the fuzz function runs
// sequentially within one worker process.
var fuzzParser *Parser

// FuzzParse feeds arbitrary bytes to every grammar (selected by the first
// argument) and checks that parsing never panics and every symbol keeps
// the span invariants. Seeds are the golden fixtures.
//
//	go test ./symbols -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	var langs []*Language
	for _, l := range All() {
		if l.HasGrammar() {
			langs = append(langs, l)
		}
	}
	index := map[*Language]uint8{}
	for i, l := range langs {
		index[l] = uint8(i)
	}
	fx := fixtures(f)
	for _, path := range sortedKeys(fx) {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(index[fx[path]], src)
	}
	f.Add(uint8(0), []byte("\xff\xfe\x00\x00"))
	f.Add(uint8(1), []byte("int (*(*f)(int))[3];\n#define X(a) a##__VA_ARGS__\n"))
	f.Fuzz(func(t *testing.T, which uint8, src []byte) {
		if fuzzParser == nil {
			fuzzParser = NewParser()
		}
		lang := langs[int(which)%len(langs)]
		file, err := fuzzParser.Parse(context.Background(), lang, src)
		if err != nil {
			if errors.Is(err, ErrTimeout) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrIrregular) {
				return
			}
			t.Fatalf("%s: %v", lang.Name, err)
		}
		defer file.Close()
		checkInvariants(t, file)
		for off := -1; off <= len(src); off += 1 + len(src)/16 {
			if i := file.SymbolAt(off); i >= 0 && !file.Symbols[i].Span.Contains(off) {
				t.Fatalf("SymbolAt(%d) = %d does not contain it", off, i)
			}
		}
	})
}
