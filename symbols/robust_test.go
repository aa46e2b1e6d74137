package symbols_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/symbols/symbolstest"
)

// fixtures returns every fixture file with its language.
func fixtures(t testing.TB) map[string]*symbols.Language {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*symbols.Language{}
	for _, p := range paths {
		if strings.HasSuffix(p, ".golden") {
			continue
		}
		if l := symbols.ByName(filepath.Base(filepath.Dir(p))); l != nil {
			out[p] = l
		}
	}
	if len(out) == 0 {
		t.Fatal("no fixtures")
	}
	return out
}

func sortedKeys(m map[string]*symbols.Language) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestCorruptedFixtures damages every fixture in ways editors and disks do
// (truncation, flipped bytes, NULs, invalid UTF-8, stray brackets) and checks
// that parsing never fails or panics and the invariants hold.
func TestCorruptedFixtures(t *testing.T) {
	fx := fixtures(t)
	p := symbols.NewParser()
	defer p.Close()
	rng := rand.New(rand.NewSource(1))
	for _, path := range sortedKeys(fx) {
		lang := fx[path]
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		variants := [][]byte{src[:len(src)/2], src[:len(src)/3+1], append([]byte("\x00\xff\xfe"), src...)}
		for i := 0; i < 12; i++ {
			v := append([]byte(nil), src...)
			for j := 0; j < 1+rng.Intn(8); j++ {
				at := rng.Intn(len(v))
				switch rng.Intn(4) {
				case 0:
					v[at] = byte(rng.Intn(256))
				case 1:
					v[at] = 0
				case 2:
					v = append(v[:at], append([]byte("{(\xc3\x28[\"'/*"), v[at:]...)...)
				default:
					v = append(v[:at], v[min(len(v), at+rng.Intn(40)):]...)
				}
				if len(v) == 0 {
					v = []byte{0}
				}
			}
			variants = append(variants, v)
		}
		for i, v := range variants {
			f, err := p.Parse(context.Background(), lang, v)
			if err != nil {
				t.Fatalf("%s variant %d: %v", path, i, err)
			}
			symbolstest.CheckInvariants(t, f)
			f.Close()
		}
	}
}

// TestSyntaxErrorsKeepSymbols breaks one line in the middle of every
// fixture: definitions away from the damage must survive.
func TestSyntaxErrorsKeepSymbols(t *testing.T) {
	fx := fixtures(t)
	p := symbols.NewParser()
	defer p.Close()
	for _, path := range sortedKeys(fx) {
		lang := fx[path]
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := p.Parse(context.Background(), lang, src)
		if err != nil {
			t.Fatal(err)
		}
		orig := f.Symbols
		f.Close()
		lines := strings.Split(string(src), "\n")
		mid := len(lines) / 2
		lines[mid] = lines[mid] + " ) ] } @@@ (( "
		broken := []byte(strings.Join(lines, "\n"))
		g, err := p.Parse(context.Background(), lang, broken)
		if err != nil {
			t.Fatal(err)
		}
		symbolstest.CheckInvariants(t, g)
		got := map[string]bool{}
		for _, s := range g.Symbols {
			got[s.Name] = true
		}
		g.Close()
		kept, first := 0, ""
		for _, s := range orig {
			if got[s.Name] {
				kept++
			}
			// A container around the broken line may legitimately be
			// lost (its end is unrecognisable); the first definition
			// clear of the damage must not.
			if first == "" && (s.Span.End.Line < mid || s.Span.Start.Line > mid) {
				first = s.Name
			}
		}
		if kept*2 < len(orig) || (first != "" && !got[first]) {
			t.Errorf("%s: only %d of %d symbols survive a broken line %d (first clear symbol %q kept: %v)",
				path, kept, len(orig), mid+1, first, got[first])
		}
	}
}

// TestDeepNestingAllLanguages feeds every grammar deeply nested brackets:
// each parses them or refuses them as too irregular to query.
func TestDeepNestingAllLanguages(t *testing.T) {
	p := symbols.NewParser()
	defer p.Close()
	nest := strings.Repeat("(", 1000) + strings.Repeat("[", 1000) + strings.Repeat("{", 1000) +
		strings.Repeat("}", 1000) + strings.Repeat("]", 1000) + strings.Repeat(")", 1000)
	for _, l := range symbols.All() {
		if !l.HasGrammar() {
			continue
		}
		f, err := p.Parse(context.Background(), l, []byte(nest))
		if err != nil && !errors.Is(err, symbols.ErrTimeout) && !errors.Is(err, symbols.ErrIrregular) {
			t.Fatalf("%s: %v", l.Name, err)
		}
		if f != nil {
			symbolstest.CheckInvariants(t, f)
			f.Close()
		}
	}
}

// TestConcurrentParsers runs one Parser per goroutine over all fixtures at
// once: languages and their compiled queries are shared, parsers are not.
// Run with -race to check the sharing.
func TestConcurrentParsers(t *testing.T) {
	fx := fixtures(t)
	paths := sortedKeys(fx)
	want := map[string]string{}
	p := symbols.NewParser()
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := p.Parse(context.Background(), fx[path], src)
		if err != nil {
			t.Fatal(err)
		}
		want[path] = symbolstest.Render(f)
		f.Close()
	}
	p.Close()
	const workers = 4
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			p := symbols.NewParser()
			defer p.Close()
			for i := range paths {
				path := paths[(i+w)%len(paths)]
				src, err := os.ReadFile(path)
				if err != nil {
					errs <- err
					return
				}
				f, err := p.Parse(context.Background(), fx[path], src)
				if err != nil {
					errs <- err
					return
				}
				got := symbolstest.Render(f)
				f.Close()
				if got != want[path] {
					errs <- fmt.Errorf("worker %d: %s differs from the sequential parse", w, path)
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
