package symbols_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/symbols/symbolstest"
)

// TestGolden checks the fixtures of the languages kept in this package,
// one directory per language under testdata (lang/<name> checks its own).
func TestGolden(t *testing.T) {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		if !dir.IsDir() || dir.Name() == "fuzz" {
			continue // fuzz holds the FuzzParse corpus
		}
		symbolstest.Golden(t, filepath.Join("testdata", dir.Name()), dir.Name())
	}
}

// TestEveryGrammarHasFixture: every grammar kept in this package has a
// golden fixture (lang/<name> checks its own).
func TestEveryGrammarHasFixture(t *testing.T) {
	for _, l := range symbols.All() {
		if !l.HasGrammar() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join("testdata", l.Name, "*.golden"))
		if len(files) == 0 {
			t.Errorf("language %s has no golden fixture under testdata/%s", l.Name, l.Name)
		}
	}
}
