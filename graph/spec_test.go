package graph

import (
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// TestQueriesCompile compiles the query of every language that both
// symbols and graph support, for each grammar it serves. It compiles
// copies: the spec's own query is compiled once, with the grammar of the
// first file extracted, and a test compiling it with another (TSX for
// TypeScript's spec) would change what the tests after it extract.
func TestQueriesCompile(t *testing.T) {
	n := 0
	for name, spec := range specs {
		lang := symbols.ByName(name)
		if lang == nil || !lang.HasGrammar() {
			continue
		}
		n++
		q, err := sitter.NewQuery([]byte(spec.query), lang.Grammar())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		q.Close()
	}
	if n == 0 {
		t.Fatal("no language compiled")
	}
}
