// Package packing gathers what a context pack and a related-context answer
// hold, from the queries of an engine.Snapshot: for a query, the definitions
// search ranks and the functions the best of them call (query.go); for a
// selection, the definitions of the names it uses (selection.go), the
// callers, callees and tests of what it touches (graph.go), documentation
// that mentions it, files changed with it and similar code (sources.go);
// then pins and always-included files (pinned.go). Pack hands the
// candidates to packs.BuildContext, which chooses among them within the
// budget; Related returns them best first without one (related.go).
//
// It reads the index only through the snapshot's exported queries and
// speaks the engine's terms: workspace-relative paths, 1-based lines.
package packing

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/querytext"
	"github.com/context-ls/context-ls/search"
)

// ErrNothingToPack: a pack request has neither a query nor a selection;
// check it with errors.Is. A selection outside its file's lines is
// engine.ErrBadSelection.
var ErrNothingToPack = errors.New("a pack needs a query or a selection")

// Selection is a range of lines of a workspace file, as an editor selects
// it.
type Selection struct {
	// Path is workspace-relative and slash-separated.
	Path string `json:"path"`
	// StartLine and EndLine are 1-based and inclusive.
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
	// Content is the file's current text when the caller has it (an editor
	// buffer); nil means the indexed version of the file.
	Content []byte `json:"-"`
}

// Request asks for a context pack: the most relevant code for a query
// and/or a selection within a token budget.
type Request struct {
	Query string
	// Selections are what the pack is about besides the query: the
	// selected code, or every definition a bare name names.
	Selections []Selection
	// Budget in tokens; 0 means the workspace's BudgetTokens.
	Budget int
	// Format is markdown, xml, json or plain; "" means the workspace's.
	Format string
	// Task (analysis, implementation, review, testing, documentation,
	// bugfix) selects how the budget is split across sources.
	Task string
	// Exclude leaves out candidates overlapping these spans (a span with
	// no lines is a whole file): what the user dropped from an earlier
	// pack stays out when it is built again.
	Exclude []Selection
}

// Candidate pool sizes and scores of the sources, set with go run ./bench
// pack on the development queries. Query hits are scored from their search
// score (see queryHits); the other sources by how directly they bear on the
// selection.
const (
	packQueryHits = 40 // search hits considered for a query
	// The functions the best two functions of a query call come with them,
	// in the query's share of the budget, scored by the function's score ×
	// expandScale × graphScore: they are what a reader of those functions
	// looks up next. Their callers and tests too cost more of the budget
	// than they brought (go run ./bench spans: pack coverage 0.634 → 0.599
	// at 4,000 tokens with two callers and a test each).
	packExpanded      = 2
	packExpandCallers = 0
	packExpandCallees = 2
	packExpandTests   = 0
	expandScale       = 0.3
	queryRankDecay    = 10  // query hit score: score/top · e^(-rank/10)
	packIdentifiers   = 40  // identifiers of a selection resolved to definitions
	packDocHits       = 4   // documentation sections
	packCoChanged     = 3   // co-changed files
	packSimilar       = 4   // similar chunks (embeddings)
	packGraphTargets  = 3   // selected definitions whose graph is followed
	packGraphItems    = 6   // callers and callees per definition
	packGraphTests    = 4   // tests per definition
	packCoCommits     = 300 // history depth for co-change
	scoreDefinition   = 0.75
	scoreDefinitionLo = 0.55 // a definition found by name only, elsewhere
	scoreDoc          = 0.5
	scoreCoChange     = 0.4
	scoreSimilar      = 0.5
	coChangeTimeout   = 2 * time.Second
	rulesDir          = ".context-ls/rules"
)

// Pack gathers candidates from every source for the request — the
// definitions search ranks for the query (queryHits); for a selection, the
// definitions of the identifiers it uses, the callers, callees and tests of
// the definitions it touches (graph), code similar to it (embeddings),
// documentation sections mentioning its symbols and files changed with it
// in git; pinned items and always-included files — and builds a budgeted
// pack of them (see package packs). Sources that are not available (similar
// code without embeddings, co-changes when git fails) are skipped and named
// in the pack's notes.
func Pack(ctx context.Context, s *engine.Snapshot, req Request) (packs.Pack, error) {
	began := time.Now()
	if strings.TrimSpace(req.Query) == "" && len(req.Selections) == 0 {
		return packs.Pack{}, ErrNothingToPack
	}
	cfg := s.Config()
	preq := packs.Request{
		Budget: req.Budget, Format: req.Format, Task: req.Task,
		IncludeScore: cfg.Pack.IncludeScore, TopN: cfg.Pack.TopN, MMRLambda: cfg.Pack.MMRLambda,
		ScrubPatterns: cfg.Scrub.Patterns,
	}
	if preq.Budget == 0 {
		preq.Budget = cfg.BudgetTokens
	}
	if preq.Format == "" {
		preq.Format = cfg.Pack.Format
	}
	if q := strings.TrimSpace(req.Query); q != "" {
		preq.LineWeight = lineWeight(q)
	}
	g := &gatherer{s: s, files: map[string][]string{}}
	// The selections first: query hits that overlap them are left out too.
	var selected []packs.Candidate
	for _, sel := range req.Selections {
		if err := g.selection(ctx, sel); err != nil {
			return packs.Pack{}, err
		}
		// A pack is pasted where the selected code is not: it leads the
		// pack, taken before anything else (shortened if it alone is over
		// the budget). Related context, shown beside the editor, leaves it out.
		selected = append(selected, g.selectionCandidate())
	}
	g.dropSelected()
	g.cands = append(selected, g.cands...)
	if q := strings.TrimSpace(req.Query); q != "" {
		if err := g.queryHits(ctx, q); err != nil {
			return packs.Pack{}, err
		}
	}
	if err := g.fixed(); err != nil {
		return packs.Pack{}, err
	}
	excluded := g.exclude(req.Exclude)
	p, err := packs.BuildContext(ctx, preq, g.cands)
	if err != nil {
		return packs.Pack{}, err
	}
	p.Notes = append(slices.Compact(g.notes), p.Notes...)
	p.Excluded = excluded
	p.LatencyMs = float64(time.Since(began).Microseconds()) / 1000
	return p, nil
}

// lineWeight weighs a line of code by the words of the query it holds
// (distinct search terms; for a text of several lines, those of its prose
// and code, as the definitions are ranked).
func lineWeight(q string) func(string) float64 {
	text := q
	if ev := querytext.Analyse(q); ev.Long {
		text = ev.Prose + "\n" + ev.Code
	}
	terms := map[string]bool{}
	search.Terms([]byte(text), func(t string, _, _ int) { terms[t] = true })
	return func(line string) float64 {
		seen := map[string]bool{}
		search.Terms([]byte(line), func(t string, _, _ int) {
			if terms[t] {
				seen[t] = true
			}
		})
		return float64(len(seen))
	}
}
