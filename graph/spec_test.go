package graph

import (
	"context"
	"testing"

	"github.com/context-ls/context-ls/symbols"
)

// TestQueriesCompile compiles the query of every language that both
// symbols and graph support, for each grammar it serves (a spec keeps one
// compiled query per grammar: TestQueryPerGrammar).
func TestQueriesCompile(t *testing.T) {
	n := 0
	for name, spec := range specs {
		lang := symbols.ByName(name)
		if lang == nil || !lang.HasGrammar() {
			continue
		}
		n++
		if _, err := spec.compile(lang.Grammar()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n == 0 {
		t.Fatal("no language compiled")
	}
}

// TestQueryPerGrammar: a spec serving two grammars (TypeScript's serves
// typescript and tsx, whose node ids differ) has its query compiled for
// each, so a .ts file extracted after a .tsx one is read with its own.
func TestQueryPerGrammar(t *testing.T) {
	src := []byte("import { a } from './a'\nexport function f() { a.b() }\n")
	p := symbols.NewParser()
	defer p.Close()
	for _, name := range []string{"tsx", "typescript", "tsx"} {
		lang := symbols.ByName(name)
		f, err := p.Parse(context.Background(), lang, src)
		if err != nil {
			t.Fatal(err)
		}
		g := Extract(f, "src/x"+lang.Extensions[0])
		f.Close()
		if len(g.Imports) != 1 || len(g.Calls) != 1 {
			t.Errorf("%s: %d imports and %d calls, want 1 and 1", name, len(g.Imports), len(g.Calls))
		}
	}
	qx, _ := specs["tsx"].compile(symbols.ByName("tsx").Grammar())
	qt, _ := specs["typescript"].compile(symbols.ByName("typescript").Grammar())
	if specs["tsx"] != specs["typescript"] || qx == qt {
		t.Error("typescript and tsx should share one spec with a query each")
	}
}
