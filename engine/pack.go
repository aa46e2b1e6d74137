package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/querytext"
	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
)

// Errors of packs and pins; check them with errors.Is.
var (
	// ErrNothingToPack: a pack request has neither a query nor a selection.
	ErrNothingToPack = errors.New("a pack needs a query or a selection")
	// ErrBadSelection: the selection's line range is not in its file.
	ErrBadSelection = errors.New("bad selection")
	// ErrNotPinned: Unpin of something that is not pinned.
	ErrNotPinned = errors.New("not pinned")
)

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

// PackRequest asks for a context pack: the most relevant code for a query
// and/or a selection within a token budget.
type PackRequest struct {
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
func (s *Snapshot) Pack(ctx context.Context, req PackRequest) (packs.Pack, error) {
	began := time.Now()
	if strings.TrimSpace(req.Query) == "" && len(req.Selections) == 0 {
		return packs.Pack{}, ErrNothingToPack
	}
	cfg := s.e.cfg
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
	terms := termCounts(text)
	return func(line string) float64 {
		seen := map[string]bool{}
		search.Terms([]byte(line), func(t string, _, _ int) {
			if terms[t] > 0 {
				seen[t] = true
			}
		})
		return float64(len(seen))
	}
}

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
func (s *Snapshot) Related(ctx context.Context, sels ...Selection) (RelatedResult, error) {
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

// callableKind reports kinds of definition that are called rather than
// referred to.
func callableKind(kind string) bool {
	switch kind {
	case "function", "method", "constructor", "macro", "test":
		return true
	}
	return false
}

// containerKind reports kinds of definition that hold methods.
func containerKind(kind string) bool {
	switch symbols.Kind(kind) {
	case symbols.KindClass, symbols.KindStruct, symbols.KindInterface, symbols.KindTrait, symbols.KindEnum, symbols.KindModule:
		return true
	}
	return false
}

// gatherer collects candidates for one pack.
type gatherer struct {
	s     *Snapshot
	cands []packs.Candidate
	notes []string
	sel   Selection   // the selection being gathered for
	sels  []Selection // every selection so far
	// selText is the selected text.
	selText string
	// files caches file contents split into lines (with their "\n").
	files map[string][]string
}

// dropSelected drops the candidates that overlap a selection made after
// them (one definition of a bare name calling another).
func (g *gatherer) dropSelected() {
	g.cands = slices.DeleteFunc(g.cands, func(c packs.Candidate) bool { return g.overlapsSelection(c) })
}

// overlapsSelection reports whether c shares lines with a selection.
func (g *gatherer) overlapsSelection(c packs.Candidate) bool {
	for _, sel := range g.sels {
		if c.Path == sel.Path && c.StartLine <= sel.EndLine && sel.StartLine <= c.EndLine {
			return true
		}
	}
	return false
}

// add records a candidate, unless it overlaps a selection: a selection
// is what the pack is about, and the reader already has it.
func (g *gatherer) add(c packs.Candidate) {
	if !g.overlapsSelection(c) {
		g.cands = append(g.cands, c)
	}
}

// exclude drops the candidates that overlap an excluded span and returns
// how many it dropped.
func (g *gatherer) exclude(spans []Selection) int {
	if len(spans) == 0 {
		return 0
	}
	kept, n := g.cands[:0], 0
	for _, c := range g.cands {
		out := false
		for _, x := range spans {
			if c.Path == x.Path && (x.StartLine == 0 || c.StartLine <= x.EndLine && x.StartLine <= c.EndLine) {
				out = true
				break
			}
		}
		if out {
			n++
			continue
		}
		kept = append(kept, c)
	}
	g.cands = kept
	return n
}

// queryHits adds the search hits for q: the definitions search ranks,
// each shown whole — a function all of it, the builder shortening it when
// it is too long for its place, a class its own lines (its methods are hits
// of their own) — and lines outside every definition as the hit has them.
//
// A hit is scored score/top · e^(-rank/queryRankDecay): the first hits
// near 1 and the 20th worth a tenth of the first, so the pack's budget is
// spent down the ranking.
func (g *gatherer) queryHits(ctx context.Context, q string) error {
	res, err := g.s.Search(ctx, SearchRequest{Query: q, K: packQueryHits})
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
		if h.DefStart > 0 && (h.DefStart < h.StartLine || h.DefEnd > h.EndLine) {
			switch {
			case callableKind(h.Kind):
				if text, a, b, err := g.text(h.Path, h.DefStart, h.DefEnd); err == nil && text != "" {
					c.Text, c.StartLine, c.EndLine, c.Tokens = text, a, b, 0
				}
			case containerKind(h.Kind):
				if text, elided, ok := g.ownLines(h.Path, h.Language, h.DefStart, h.DefEnd); ok {
					c.Text, c.StartLine, c.EndLine, c.Tokens, c.Members = text, h.DefStart, h.DefEnd, 0, elided
				}
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
func (g *gatherer) definitionAt(rel string, start, end int) (SymbolInfo, bool) {
	syms, err := g.s.DocumentSymbols(rel)
	if err != nil {
		return SymbolInfo{}, false
	}
	for _, si := range syms {
		full := si.FullSpan()
		if spanEndLine(full) == end && start <= full.Start.Line+1 && si.Span.Start.Line+1 <= end {
			return si, true
		}
	}
	return SymbolInfo{}, false
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

// ownLines returns lines start..end (1-based) of rel — a class or type —
// without those of the definitions inside it: each run of their lines
// becomes one "… N lines elided" line; elided says whether there was any.
// It reports false when rel cannot be read as indexed.
func (g *gatherer) ownLines(rel, lang string, start, end int) (text string, elided, ok bool) {
	syms, err := g.s.DocumentSymbols(rel)
	if err != nil {
		return "", false, false
	}
	lines, err := g.lines(rel)
	if err != nil || start < 1 || end > len(lines) || start > end {
		return "", false, false
	}
	inner := make([]bool, end-start+1)
	for _, si := range syms {
		full := si.FullSpan()
		a, b := full.Start.Line+1, spanEndLine(full)
		if si.Kind == symbols.KindField || a <= start || b > end {
			continue
		}
		for n := a; n <= b; n++ {
			inner[n-start] = true
		}
	}
	comment := packs.LineComment(lang)
	var out strings.Builder
	for i := 0; i < len(inner); {
		if !inner[i] {
			out.WriteString(lines[start-1+i])
			i++
			continue
		}
		j := i
		for j < len(inner) && inner[j] {
			j++
		}
		first := lines[start-1+i]
		lead := first[:len(first)-len(strings.TrimLeft(first, " \t"))]
		marker := fmt.Sprintf("… %d lines elided\n", j-i)
		if comment != "" {
			marker = comment + " " + marker
		}
		out.WriteString(lead + marker)
		elided = true
		i = j
	}
	return out.String(), elided, true
}

// FirstSentence returns the first sentence of a doc comment on one line
// (at most about 200 bytes).
func FirstSentence(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	for i := 0; i < len(doc); i++ {
		if doc[i] == '.' && (i+1 == len(doc) || doc[i+1] == ' ') {
			return doc[:i+1]
		}
	}
	if len(doc) > 200 {
		cut := strings.LastIndexByte(doc[:200], ' ')
		if cut <= 0 {
			cut = 200
		}
		return strings.ToValidUTF8(doc[:cut], "") + " …"
	}
	return doc
}

// lines returns the current lines of a workspace file (each with its
// "\n"): the caller's content for the selection, the file on disk when the
// index holds the disk version, and the indexed chunks of an editor
// overlay.
func (g *gatherer) lines(rel string) ([]string, error) {
	if l, ok := g.files[rel]; ok {
		return l, nil
	}
	content, err := g.s.Content(rel)
	if err != nil {
		return nil, err
	}
	l := strings.SplitAfter(strings.ToValidUTF8(string(content), "\uFFFD"), "\n")
	if len(l) > 0 && l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	g.files[rel] = l
	return l, nil
}

// overlayText rebuilds an overlay's content from its indexed chunks; lines
// no chunk covers (blank lines between definitions) come back empty.
func (s *Snapshot) overlayText(rec store.FileRecord) ([]byte, error) {
	var lines []string
	for _, id := range rec.Chunks {
		c, err := s.st.Chunk(id)
		if err != nil {
			return nil, fmt.Errorf("overlay %s: %w", rec.Path, err)
		}
		for i, l := range strings.SplitAfter(c.Text, "\n") {
			n := c.StartLine - 1 + i
			if l == "" || n < 0 {
				continue
			}
			for len(lines) <= n {
				lines = append(lines, "\n")
			}
			if !strings.HasSuffix(l, "\n") {
				l += "\n"
			}
			lines[n] = l
		}
	}
	return []byte(strings.Join(lines, "")), nil
}

// text returns lines a..b (1-based, inclusive, clamped) of rel.
func (g *gatherer) text(rel string, a, b int) (string, int, int, error) {
	l, err := g.lines(rel)
	if err != nil {
		return "", 0, 0, err
	}
	if a < 1 {
		a = 1
	}
	if b > len(l) {
		b = len(l)
	}
	if a > b {
		return "", a, b, nil
	}
	return strings.Join(l[a-1:b], ""), a, b, nil
}

// language returns the indexed language of rel, or "".
func (g *gatherer) language(rel string) string {
	if rec, err := g.s.st.File(rel); err == nil {
		return rec.Language
	}
	return ""
}

// selectionCandidate is the selected code itself as a pack item.
func (g *gatherer) selectionCandidate() packs.Candidate {
	lang := ""
	if l := symbols.ForPath(g.sel.Path); l != nil {
		lang = l.Name
	}
	label := ""
	if syms, err := g.selectedSymbols(g.sel.Path, g.sel); err == nil {
		label = selectionLabel(syms, g.sel)
	}
	return packs.Candidate{
		Path: g.sel.Path, StartLine: g.sel.StartLine, EndLine: g.sel.EndLine,
		Symbol: label, Kind: "selection", Language: lang,
		Text: g.selText, Tokens: packs.CountTokens(g.selText), Score: 1,
		Source: packs.SourceSelection, Reason: "the selection", IncludeMode: packs.ModeAlways,
	}
}

// selection adds the candidates a selection brings: definitions of the
// identifiers it uses, docs mentioning its symbols, co-changed files.
func (g *gatherer) selection(ctx context.Context, sel Selection) error {
	rel, err := g.s.e.ws.Resolve(sel.Path)
	if err != nil {
		return fmt.Errorf("selection: %w", err)
	}
	sel.Path = rel
	if sel.Content != nil {
		l := strings.SplitAfter(strings.ToValidUTF8(string(sel.Content), "\uFFFD"), "\n")
		if len(l) > 0 && l[len(l)-1] == "" {
			l = l[:len(l)-1]
		}
		g.files[rel] = l
	}
	lines, err := g.lines(rel)
	if err != nil {
		return fmt.Errorf("selection: %w", err)
	}
	if sel.StartLine < 1 || sel.EndLine < sel.StartLine || sel.StartLine > len(lines) {
		return fmt.Errorf("%s:%d-%d (file has %d lines): %w", rel, sel.StartLine, sel.EndLine, len(lines), ErrBadSelection)
	}
	sel.EndLine = min(sel.EndLine, len(lines))
	g.sel = sel
	g.sels = append(g.sels, sel)
	selText := strings.Join(lines[sel.StartLine-1:sel.EndLine], "")
	g.selText = selText

	// The symbols the selection defines or sits in name it for docs and
	// co-changes; what it uses beyond them needs definitions.
	selDefs, err := g.selectedSymbols(rel, sel)
	if err != nil {
		return err
	}
	var selected []string
	for _, si := range selDefs {
		selected = append(selected, si.Name)
	}
	if err := g.definitions(ctx, rel, sel, selText, selected); err != nil {
		return err
	}
	if err := g.graph(ctx, selDefs); err != nil {
		return err
	}
	if err := g.docs(ctx, innermost(selDefs, sel)); err != nil {
		return err
	}
	if err := g.coChanged(ctx, rel, selected); err != nil {
		return err
	}
	return g.similar(ctx, sel, selText)
}

// similar adds the code nearest to the selection by embedding; without
// embeddings the source is skipped and named in the notes.
func (g *gatherer) similar(ctx context.Context, sel Selection, selText string) error {
	res, err := g.s.Similar(ctx, SimilarRequest{Text: selText, K: packSimilar,
		ExcludePath: sel.Path, ExcludeStart: sel.StartLine, ExcludeEnd: sel.EndLine})
	if errors.Is(err, ErrNoEmbeddings) || errors.Is(err, ErrEmptyQuery) {
		g.notes = append(g.notes, "similar code skipped: "+err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	for i, h := range res.Hits {
		g.add(packs.Candidate{
			Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol, Kind: h.Kind,
			Language: h.Language, Text: h.Text, Score: scoreSimilar * (1 - 0.15*float64(i)),
			Source: packs.SourceSimilar, Reason: "similar to selection",
		})
	}
	return nil
}

// selectedSymbols returns the definitions overlapping the selection, in
// source order (an enclosing definition before those it contains).
func (g *gatherer) selectedSymbols(rel string, sel Selection) ([]SymbolInfo, error) {
	syms, err := g.s.DocumentSymbols(rel)
	if errors.Is(err, ErrNotIndexed) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SymbolInfo
	for _, si := range syms {
		a, b := si.Span.Start.Line+1, si.Span.End.Line+1
		if a <= sel.EndLine && sel.StartLine <= b {
			out = append(out, si)
		}
	}
	return out, nil
}

// graph adds the callers, callees and tests of the innermost definitions
// the selection touches (those not containing another selected one).
func (g *gatherer) graph(ctx context.Context, defs []SymbolInfo) error {
	var targets []SymbolInfo
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
func (g *gatherer) neighbours(ctx context.Context, d SymbolInfo, scale float64, callers, callees, tests int, share string) error {
	t := Target{Path: d.Path, Line: d.NameSpan.Start.Line + 1, Col: d.NameSpan.Start.Column + 1}
	name := d.Qualified()
	for _, q := range []struct {
		source string
		run    func(context.Context, Target) ([]GraphResult, error)
		limit  int
		reason func(GraphItem) string
	}{
		{packs.SourceCaller, g.s.Callers, callers, func(GraphItem) string { return "caller of " + name }},
		{packs.SourceCallee, g.s.Callees, callees, func(it GraphItem) string {
			if callableKind(it.Kind) {
				return "called by " + name
			}
			return "used by " + name // a constant, variable or type the code refers to
		}},
		{packs.SourceTest, g.s.Tests, tests, func(it GraphItem) string { return "test of " + name + " (" + it.Reason + ")" }},
	} {
		if q.limit == 0 {
			continue
		}
		results, err := q.run(ctx, t)
		if errors.Is(err, ErrNoSymbol) || errors.Is(err, ErrNotIndexed) {
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

// identRE matches identifiers with an optional qualifier ("pkg.Name",
// "self.name", "Type::name").
var identRE = regexp.MustCompile(`(?:([A-Za-z_][A-Za-z0-9_]*)(?:\.|::|->))?([A-Za-z_][A-Za-z0-9_]*)`)

// commonWords are keywords and builtins of the indexed languages: they
// never name a workspace definition worth a pack slot.
var commonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		break case chan const continue default defer else fallthrough for func go goto if import interface map
		package range return select struct switch type var nil true false iota append cap close complex copy delete
		imag len make new panic print println real recover string int int8 int16 int32 int64 uint uint8 uint16
		uint32 uint64 uintptr byte rune float32 float64 bool error any comparable
		and as assert async await class def del elif except finally from global in is lambda nonlocal not or pass
		raise try while with yield None True False self cls str list dict set tuple object super isinstance
		function let this new typeof instanceof undefined null void export extends implements public private
		protected static readonly enum namespace require module exports console`) {
		m[w] = true
	}
	return m
}()

// definitions adds the definitions of the names the selection uses. In a
// language the graph reads, the selection's file is parsed and each name
// resolved as the graph resolves it (graph.Uses, Resolver.ResolveUse):
// calls through their receivers' types and the imports, type names to
// types, values bound outside the function to their definitions; locals,
// parameters and member names are no definitions of anything, and a name
// that matches only by name is left out. Elsewhere (prose, configuration)
// the identifiers written are looked up by name. Names the selection
// defines itself are skipped.
func (g *gatherer) definitions(ctx context.Context, rel string, sel Selection, selText string, selected []string) error {
	own := map[string]bool{}
	for _, n := range selected {
		own[n] = true
	}
	fg, uses, err := g.selectionUses(ctx, rel, sel, selText)
	if err != nil {
		return err
	}
	if fg == nil {
		return g.definitionsByName(ctx, rel, sel, selText, own)
	}
	r := g.s.resolver()
	done := map[string]bool{} // path:line of definitions already added
	for i, u := range uses {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(done) >= packIdentifiers {
			break
		}
		if own[u.Name] || commonWords[u.Name] {
			continue
		}
		ms, err := r.ResolveUse(fg, u)
		if err != nil {
			return fmt.Errorf("definition of %s: %w", u.Name, err)
		}
		if len(ms) == 0 {
			continue
		}
		score := scoreDefinition
		if ms[0].Confidence < graph.Exact {
			score = scoreDefinitionLo
		}
		d := ms[0].Def
		g.addDefinition(rel, sel, SymbolInfo{Path: d.Path, Language: d.Lang, Symbol: d.Symbol}, u.Name, score-0.001*float64(i), done)
	}
	return nil
}

// selectionUses parses the selection's file (its current text) and lists
// the names the selection uses; fg is nil when the graph does not read the
// file's language.
func (g *gatherer) selectionUses(ctx context.Context, rel string, sel Selection, selText string) (*graph.FileGraph, []graph.Use, error) {
	lang := symbols.ByName(g.language(rel))
	if lang == nil {
		lang = symbols.ForPath(rel)
	}
	if lang == nil || !graph.Supported(lang.Name) {
		return nil, nil, nil
	}
	lines, err := g.lines(rel)
	if err != nil {
		return nil, nil, err
	}
	start := 0
	for _, l := range lines[:sel.StartLine-1] {
		start += len(l)
	}
	p := symbols.NewParser()
	defer p.Close()
	f, err := p.Parse(ctx, lang, []byte(strings.Join(lines, "")))
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, nil // too large or unparsable: names as written
	}
	defer f.Close()
	fg, uses := graph.Uses(f, rel, start, start+len(selText))
	return fg, uses, nil
}

// definitionsByName adds the definitions of the identifiers written in
// the selection, looked up by name from the selection's file outwards.
func (g *gatherer) definitionsByName(ctx context.Context, rel string, sel Selection, selText string, own map[string]bool) error {
	type use struct{ ident, qual string }
	seen := map[use]bool{}
	var uses []use
	lang := g.language(rel)
	for _, m := range identRE.FindAllStringSubmatch(codeOnly(selText, lang), -1) {
		u := use{ident: m[2], qual: m[1]}
		if len(u.ident) < 2 || commonWords[u.ident] || own[u.ident] || seen[u] {
			continue
		}
		if u.qual == "self" || u.qual == "this" || u.qual == "cls" {
			u.qual = ""
		}
		seen[u] = true
		uses = append(uses, u)
		if len(uses) >= packIdentifiers {
			break
		}
	}
	done := map[string]bool{}
	for i, u := range uses {
		if err := ctx.Err(); err != nil {
			return err
		}
		defs, err := g.s.resolveName(ctx, rel, u.ident, u.qual)
		if err != nil {
			return err
		}
		if len(defs) == 0 {
			continue
		}
		d := defs[0]
		if lang != "" && d.Language != lang {
			continue // a name that only exists in another language
		}
		score := scoreDefinition
		if d.Path != rel && path.Dir(d.Path) != path.Dir(rel) && u.qual == "" {
			score = scoreDefinitionLo
		}
		// Earlier uses in the selection come first on ties.
		g.addDefinition(rel, sel, d, u.ident, score-0.001*float64(i), done)
	}
	return nil
}

// addDefinition adds definition d of name as a candidate, unless it lies
// in the selection or was added already (done holds path:line keys).
func (g *gatherer) addDefinition(rel string, sel Selection, d SymbolInfo, name string, score float64, done map[string]bool) {
	span := d.FullSpan()
	a, b := span.Start.Line+1, span.End.Line+1
	if d.Path == rel && a <= sel.EndLine && sel.StartLine <= b {
		return // defined inside the selection
	}
	key := fmt.Sprintf("%s:%d", d.Path, a)
	if done[key] {
		return
	}
	done[key] = true
	text, a, b, err := g.text(d.Path, a, b)
	if err != nil || text == "" {
		return // the file went away since it was indexed
	}
	c := packs.Candidate{
		Path: d.Path, StartLine: a, EndLine: b, Symbol: d.Qualified(), Kind: string(d.Kind),
		Language: d.Language, Text: text, Score: score, Source: packs.SourceDefinition,
		Reason: "definition of " + name,
	}
	if containerKind(string(d.Kind)) {
		// A class the selection uses is its header, doc and attributes:
		// its methods, when the selection calls them, come on their own.
		if own, elided, ok := g.ownLines(d.Path, d.Language, a, b); ok && elided {
			c.Text, c.Members = own, true
		}
	}
	g.add(c)
}

// stringOrComment matches string literals and comments closely enough for
// finding identifiers: quoted strings with escapes, raw strings, and line
// comments of the common markers.
var stringOrComment = regexp.MustCompile("\"(?:[^\"\\\\\\n]|\\\\.)*\"|'(?:[^'\\\\\\n]|\\\\.)*'|`[^`]*`|/\\*[\\s\\S]*?\\*/")

// codeOnly blanks out string literals and comments, so the words of a
// message or a comment are not taken for identifiers.
func codeOnly(text, lang string) string {
	text = stringOrComment.ReplaceAllString(text, " ")
	marker := packs.LineComment(lang)
	if marker == "" {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if j := strings.Index(l, marker); j >= 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}

// selectionLabel names a selection by the innermost definition holding it
// all (a method, not its class), else the first definition inside it.
func selectionLabel(defs []SymbolInfo, sel Selection) string {
	label := ""
	for _, si := range defs { // source order: an enclosing definition first
		if a, b := si.Span.Start.Line+1, si.Span.End.Line+1; a <= sel.StartLine && sel.EndLine <= b {
			label = si.Qualified()
		}
	}
	if label == "" && len(defs) > 0 {
		label = defs[0].Qualified()
	}
	return label
}

// innermost names what a selection is about: the definitions it holds
// whole, else the innermost one it lies in (a method, not its class).
func innermost(defs []SymbolInfo, sel Selection) []string {
	var out []string
	for _, si := range defs {
		if a, b := si.Span.Start.Line+1, si.Span.End.Line+1; sel.StartLine <= a && b <= sel.EndLine {
			out = append(out, si.Name)
		}
	}
	if len(out) == 0 && len(defs) > 0 {
		out = append(out, defs[len(defs)-1].Name)
	}
	return out
}

// docs adds documentation sections that mention one of names; the reason
// says which it mentions.
func (g *gatherer) docs(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	q := strings.Join(names, " ")
	res, err := g.s.Search(ctx, SearchRequest{Query: q, K: packDocHits, Kinds: []string{"markdown_section"}})
	if err != nil && !errors.Is(err, ErrEmptyQuery) {
		return err
	}
	i := 0
	for _, h := range res.Hits {
		if h.Kind != "markdown_section" {
			continue // Search's symbol leg does not apply the kind filter
		}
		name := mentioned(h.Text, names)
		if name == "" {
			continue // matched the words of a name, not the name
		}
		i++
		g.add(packs.Candidate{
			Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol, Kind: h.Kind,
			Language: h.Language, Text: h.Text, Score: scoreDoc * h.Score * (1 - 0.1*float64(i-1)),
			Source: packs.SourceDoc, Reason: "mentions " + name,
		})
	}
	return nil
}

// mentioned returns the first of names that text holds as a word, or "".
func mentioned(text string, names []string) string {
	for _, n := range names {
		for i := 0; ; {
			j := strings.Index(text[i:], n)
			if j < 0 {
				break
			}
			a, b := i+j, i+j+len(n)
			if (a == 0 || !isIdentByte(text[a-1])) && (b == len(text) || !isIdentByte(text[b])) {
				return n
			}
			i = b
		}
	}
	return ""
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// coChanged adds, for the files most often changed together with rel, the
// chunk that best matches the selected symbols (else the file's first).
func (g *gatherer) coChanged(ctx context.Context, rel string, selected []string) error {
	cctx, cancel := context.WithTimeout(ctx, coChangeTimeout)
	defer cancel()
	files, err := packs.CoChanged(cctx, g.s.Root(), rel, packCoCommits)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		g.notes = append(g.notes, "co-changed files skipped: "+err.Error())
		return nil
	}
	n := 0
	for _, f := range files {
		if n >= packCoChanged {
			break
		}
		rec, err := g.s.st.File(f)
		if err != nil || len(rec.Chunks) == 0 {
			continue // deleted, ignored or not indexable
		}
		var c packs.Candidate
		if len(selected) > 0 {
			res, err := g.s.Search(ctx, SearchRequest{Query: strings.Join(selected, " "), K: 1, Paths: []string{"/" + escapeGlob(f)}})
			if err == nil && len(res.Hits) > 0 {
				h := res.Hits[0]
				c = packs.Candidate{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol,
					Kind: h.Kind, Language: h.Language, Text: h.Text}
			}
		}
		if c.Text == "" {
			ch, err := g.s.st.Chunk(rec.Chunks[0])
			if err != nil {
				continue
			}
			c = packs.Candidate{Path: ch.Path, StartLine: ch.StartLine, EndLine: ch.EndLine, Symbol: ch.Label,
				Kind: ch.Kind, Language: ch.Language, Text: ch.Text}
		}
		c.Score = scoreCoChange * (1 - 0.1*float64(n))
		c.Source = packs.SourceCochange
		c.Reason = "co-changed with " + rel
		g.add(c)
		n++
	}
	return nil
}

// escapeGlob makes a path match itself as a glob (with a leading "/",
// which anchors it at the root).
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\!`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// definitionAround names the smallest definition of rel whose lines (doc
// comment included) hold lines a-b (1-based), or "" when none does: a pinned range is shown by
// the definition it pins or lies in.
func (s *Snapshot) definitionAround(rel string, a, b int) string {
	syms, err := s.DocumentSymbols(rel)
	if err != nil {
		return ""
	}
	best, size := "", -1
	for _, si := range syms {
		start, end := si.Span.Start.Line+1, si.Span.End.Line+1
		if !si.DocSpan.Empty() {
			start = min(start, si.DocSpan.Start.Line+1) // its doc comment is part of it
		}
		if start <= a && b <= end && (size < 0 || end-start < size) {
			best, size = si.Qualified(), end-start
		}
	}
	return best
}

// fixed adds the pinned items and the always-included files, whether or
// not they overlap the selection.
func (g *gatherer) fixed() error {
	pins, err := g.s.Pins()
	if err != nil {
		return err
	}
	for _, p := range pins {
		a, b := p.StartLine, p.EndLine
		if a == 0 {
			a, b = 1, int(^uint(0)>>1)
		}
		text, a, b, err := g.text(p.Path, a, b)
		if err != nil {
			g.notes = append(g.notes, fmt.Sprintf("pin %s skipped: %v", p, err))
			continue
		}
		if text == "" {
			continue
		}
		sym := ""
		if p.StartLine != 0 {
			sym = g.s.definitionAround(p.Path, a, b)
		}
		g.cands = append(g.cands, packs.Candidate{Path: p.Path, StartLine: a, EndLine: b, Symbol: sym, Kind: "pinned", Language: g.language(p.Path),
			Text: text, Score: 1, Source: packs.SourcePinned, Reason: "pinned", IncludeMode: packs.ModeManual})
	}
	always, err := g.s.alwaysPaths()
	if err != nil {
		return err
	}
	for _, rel := range always {
		text, a, b, err := g.text(rel, 1, int(^uint(0)>>1))
		if err != nil {
			g.notes = append(g.notes, fmt.Sprintf("always-included %s skipped: %v", rel, err))
			continue
		}
		if text == "" {
			continue
		}
		reason := "always included"
		if strings.HasPrefix(rel, rulesDir+"/") {
			reason = "rule"
		}
		g.cands = append(g.cands, packs.Candidate{Path: rel, StartLine: a, EndLine: b, Kind: "file", Language: g.language(rel),
			Text: text, Score: 1, Source: packs.SourceAlways, Reason: reason, IncludeMode: packs.ModeAlways})
	}
	return nil
}

// alwaysPaths lists the files under .context-ls/rules/ (sorted) and then
// the workspace's Pack.Always paths.
func (s *Snapshot) alwaysPaths() ([]string, error) {
	var out []string
	seen := map[string]bool{}
	entries, err := os.ReadDir(filepath.Join(s.Root(), filepath.FromSlash(rulesDir)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("rules: %w", err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			rel := rulesDir + "/" + e.Name()
			seen[rel] = true
			out = append(out, rel)
		}
	}
	for _, p := range s.e.cfg.Pack.Always {
		rel, err := s.e.ws.Resolve(p)
		if err != nil || seen[rel] {
			continue
		}
		seen[rel] = true
		out = append(out, rel)
	}
	return out, nil
}
