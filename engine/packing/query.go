package packing

// The candidates of a query: the definitions search ranks, shown whole,
// and the functions the best two call.

import (
	"context"
	"math"
	"regexp"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

// queryHits adds the search hits for q: the definitions search ranks,
// each shown whole — a function all of it, the builder shortening it when
// it is too long for its place, a class its own lines (its methods are hits
// of their own) — and lines outside every definition as the hit has them.
//
// A hit is scored score/top · e^(-rank/queryRankDecay): the first hits
// near 1 and the 20th worth a tenth of the first, so the pack's budget is
// spent down the ranking.
func (g *gatherer) queryHits(ctx context.Context, q string) error {
	// Every definition of the best files is a candidate, however many of
	// one file: the builder spreads the pack over files itself.
	res, err := g.s.Search(ctx, engine.SearchRequest{Query: q, K: packQueryHits, PerFileCap: -1})
	if err != nil {
		return err
	}
	if len(res.Hits) == 0 {
		return nil
	}
	top := res.Hits[0].Score
	expanded := 0
	for i, h := range res.Hits {
		score := 0.0
		if top > 0 {
			score = h.Score / top * math.Exp(-float64(i)/queryRankDecay)
		}
		if h.DefStart == 0 && importsOnly(h.Text) {
			continue // an import block (a file header, "if TYPE_CHECKING:"): nothing to read or change
		}
		c := packs.Candidate{
			Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol, Kind: h.Kind,
			Language: h.Language, Text: h.Text, Tokens: h.Tokens, Score: score,
			Source: packs.SourceQuery, Reason: "query match",
		}
		switch {
		case h.Framed:
			c.Reason = "in the stack trace"
		case h.Printed:
			c.Reason = "prints the quoted text"
		}
		if h.DefStart > 0 && (h.DefStart < h.StartLine || h.DefEnd > h.EndLine) {
			switch {
			case callableKind(h.Kind):
				if text, a, b, err := g.text(h.Path, h.DefStart, h.DefEnd); err == nil && text != "" {
					c.Text, c.StartLine, c.EndLine, c.Tokens = text, a, b, 0
				}
			default:
				g.withoutMembers(&c, h.DefStart, h.DefEnd)
			}
		}
		g.add(c)
		// What the best functions need: the functions they call, those
		// calling them, their tests — scored below them by what they add.
		if expanded < packExpanded && h.DefStart > 0 && callableKind(h.Kind) {
			if d, ok := g.definitionAt(h.Path, h.DefStart, h.DefEnd); ok {
				expanded++
				if err := g.neighbours(ctx, d, score*expandScale, packExpandCallers, packExpandCallees, packExpandTests, packs.SourceQuery); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// definitionAt returns the definition of rel whose lines end at end and
// begin at start (its doc comment, or a comment above it, included).
func (g *gatherer) definitionAt(rel string, start, end int) (engine.SymbolInfo, bool) {
	syms, err := g.symbols(rel)
	if err != nil {
		return engine.SymbolInfo{}, false
	}
	for _, si := range syms {
		first, last := si.FullSpan().Lines()
		if last == end && start <= first && si.Span.Start.Line+1 <= end {
			return si, true
		}
	}
	return engine.SymbolInfo{}, false
}

// importLine matches a line that only imports, declares the package, or
// guards imports — in the languages' common spellings — or is blank, a
// comment or a bracket closing a list of imports.
var importLine = regexp.MustCompile(`^\s*(?:$|#|//|/\*|\*|--|import\b|from\s+\S+\s+import\b|package\b|use\b|using\b|require\b|#include\b|if\s+(?:t\.|typing\.)?TYPE_CHECKING\s*:|[)\]}]|(?:\w+\s+)?"[^"]*"\s*;?\s*$|[\w.]+(?:\s+as\s+\w+)?\s*,?\s*$)`)

// importsOnly reports text made of import lines only (importLine), with at
// least one import.
func importsOnly(text string) bool {
	imports := 0
	for _, l := range strings.Split(text, "\n") {
		if !importLine.MatchString(l) {
			return false
		}
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "import") || strings.HasPrefix(t, "from ") || strings.HasPrefix(t, "use ") || strings.HasPrefix(t, "#include") || strings.HasPrefix(t, "using ") {
			imports++
		}
	}
	return imports > 0
}
