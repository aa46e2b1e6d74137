package packing

// Related context: a selection's candidates best first, without a budget.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

// RelatedResult is the context related to a selection, unbudgeted.
type RelatedResult struct {
	Selection Selection `json:"selection"`
	// Items are best first. Their text is as indexed: callers that show
	// it scrub it (package service does).
	Items []packs.Item `json:"items"`
	// Notes name the sources that were skipped.
	Notes []string `json:"notes,omitempty"`
}

// Related returns what bears on a selection — the definitions it uses, the
// callers, callees and tests of the definitions it touches, similar code,
// documentation that mentions its symbols, files changed with it — best
// first, with reasons and locations, without a budget.
//
// Several selections (every definition a bare name names) share one list;
// the result's Selection is the first.
func Related(ctx context.Context, s *engine.Snapshot, sels ...Selection) (RelatedResult, error) {
	if len(sels) == 0 {
		return RelatedResult{}, fmt.Errorf("related: %w", ErrNothingToPack)
	}
	g := &gatherer{s: s, files: map[string][]string{}}
	for _, sel := range sels {
		if err := g.selection(ctx, sel); err != nil {
			return RelatedResult{}, err
		}
	}
	g.dropSelected()
	sort.SliceStable(g.cands, func(i, j int) bool { return g.cands[i].Score > g.cands[j].Score })
	res := RelatedResult{Selection: g.sels[0], Items: []packs.Item{}, Notes: slices.Compact(g.notes)}
	var members []bool // the item is a class shown without its methods
	for _, c := range g.cands {
		if i := sameCode(res.Items, members, c); i >= 0 {
			// One piece of code found twice (the definition the selection
			// uses is also its callee): one item with both reasons.
			if !strings.Contains(res.Items[i].Reason, c.Reason) {
				res.Items[i].Reason += "; " + c.Reason
			}
			continue
		}
		text := c.Text
		res.Items = append(res.Items, packs.Item{
			Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Symbol: c.Symbol, Kind: c.Kind,
			IncludeMode: packs.ModeAgent, Reason: c.Reason, Score: round3(c.Score),
			Tokens: packs.CountTokens(text), Text: text, Language: c.Language, Source: c.Source,
		})
		members = append(members, c.Members)
	}
	return res, nil
}

// sameCode returns the index of an item showing mostly the same lines of
// the same file as c (overlapping by at least half of the shorter), or -1;
// a class shown without its methods (members[i], c.Members) shows none of
// theirs.
func sameCode(items []packs.Item, members []bool, c packs.Candidate) int {
	for i, it := range items {
		if it.Path != c.Path || members[i] != c.Members {
			continue
		}
		overlap := min(it.EndLine, c.EndLine) - max(it.StartLine, c.StartLine) + 1
		shorter := min(it.EndLine-it.StartLine, c.EndLine-c.StartLine) + 1
		if overlap > 0 && 2*overlap >= shorter {
			return i
		}
	}
	return -1
}

// round3 rounds a score to three decimals, as search does its hits'.
func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
