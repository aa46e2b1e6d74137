package packing

// Callers, callees and tests of the definitions a selection touches (and
// the functions a query's best functions call).

import (
	"context"
	"errors"
	"fmt"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

// graph adds the callers, callees and tests of the innermost definitions
// the selection touches (those not containing another selected one).
func (g *gatherer) graph(ctx context.Context, defs []engine.SymbolInfo) error {
	var targets []engine.SymbolInfo
	for i, d := range defs {
		inner := true
		for j, e := range defs {
			if i != j && d.Span.StartByte <= e.Span.StartByte && e.Span.EndByte <= d.Span.EndByte && e.Span != d.Span {
				inner = false // d contains e: e is more precise
				break
			}
		}
		if inner && (d.Kind == "function" || d.Kind == "method" || d.Kind == "constructor") {
			targets = append(targets, d)
		}
	}
	if len(targets) > packGraphTargets {
		targets = targets[:packGraphTargets]
	}
	for _, d := range targets {
		if err := g.neighbours(ctx, d, 1, packGraphItems, packGraphItems, packGraphTests, ""); err != nil {
			return err
		}
	}
	return nil
}

// neighbours adds the callers, callees and tests of definition d (at most
// that many of each), scored by graphScore × scale.
//
// share, when set, is the source whose share of the budget the items
// compete in (packs.Request.Priorities), instead of their own.
func (g *gatherer) neighbours(ctx context.Context, d engine.SymbolInfo, scale float64, callers, callees, tests int, share string) error {
	t := engine.Target{Path: d.Path, Line: d.NameSpan.Start.Line + 1, Col: d.NameSpan.Start.Column + 1}
	name := d.Qualified()
	for _, q := range []struct {
		source string
		run    func(context.Context, engine.Target) ([]engine.GraphResult, error)
		limit  int
		reason func(engine.GraphItem) string
	}{
		{packs.SourceCaller, g.s.Callers, callers, func(engine.GraphItem) string { return "caller of " + name }},
		{packs.SourceCallee, g.s.Callees, callees, func(it engine.GraphItem) string {
			if callableKind(it.Kind) {
				return "called by " + name
			}
			return "used by " + name // a constant, variable or type the code refers to
		}},
		{packs.SourceTest, g.s.Tests, tests, func(it engine.GraphItem) string { return "test of " + name + " (" + it.Reason + ")" }},
	} {
		if q.limit == 0 {
			continue
		}
		results, err := q.run(ctx, t)
		if errors.Is(err, engine.ErrNoSymbol) || errors.Is(err, engine.ErrNotIndexed) {
			continue // the index does not hold this version of the file
		}
		if err != nil {
			return fmt.Errorf("%s of %s: %w", q.source, name, err)
		}
		n := 0
		for _, res := range results {
			for _, it := range res.Items {
				if n >= q.limit {
					break
				}
				text, a, b, err := g.text(it.Path, it.StartLine, it.EndLine)
				if err != nil || text == "" {
					continue
				}
				c := packs.Candidate{
					Path: it.Path, StartLine: a, EndLine: b, Symbol: it.Symbol, Kind: it.Kind,
					Language: it.Language, Text: text, Score: scale * graphScore(q.source, it.Confidence, it.Reason) * (1 - 0.05*float64(n)),
					Source: q.source, Reason: q.reason(it),
				}
				if share != "" {
					c.Source = share
				}
				g.withoutMembers(&c, a, b)
				g.add(c)
				n++
			}
		}
	}
	return nil
}

// graphScore scores a caller, callee or test by how sure the graph is of
// the edge: exact resolutions and direct tests first, naming-convention
// tests last. Name-only guesses are no items, so they never get here.
func graphScore(source, confidence, reason string) float64 {
	base := map[string]float64{packs.SourceCaller: 0.7, packs.SourceCallee: 0.65, packs.SourceTest: 0.65}[source]
	switch {
	case source == packs.SourceTest && reason == "two-hops":
		base -= 0.1
	case source == packs.SourceTest && reason == "naming":
		base -= 0.15
	}
	if confidence == "likely" {
		base -= 0.1
	}
	return base
}
