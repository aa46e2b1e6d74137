package graph

import (
	"testing"

	"github.com/context-ls/context-ls/symbols"
)

// TestQueriesCompile compiles the query of every language that both
// symbols and graph support.
func TestQueriesCompile(t *testing.T) {
	n := 0
	for name, spec := range specs {
		lang := symbols.ByName(name)
		if lang == nil || !lang.HasGrammar() {
			continue
		}
		n++
		if err := spec.compile(lang.Grammar()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n == 0 {
		t.Fatal("no language compiled")
	}
}
