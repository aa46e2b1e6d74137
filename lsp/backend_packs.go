package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

// Context packs, related context and pins: the engine builds them from a
// query and/or an editor selection; this file turns command arguments into
// selections and answers into located items.

// checkPlace validates place arguments when any are given (required:
// they must be).
func checkPlace(env *CommandEnv, p PlaceArgs, required bool) error {
	if !required && p.TextDocument == nil && p.URI == "" && p.Position == nil && p.Range == nil && p.Symbol == "" {
		return nil
	}
	_, err := env.ResolvePlace(p)
	return err
}

// spanMode says what a position alone stands for.
type spanMode int

const (
	// spanDefinition: the innermost definition around the position (an
	// error when there is none).
	spanDefinition spanMode = iota
	// spanLine: that definition, else the position's line.
	spanLine
)

// placeSpan is a span of a workspace file a command is about, with the
// file's current text.
type placeSpan struct {
	f       *backendFolder
	rel     string
	content []byte
	r       Range
	// whole is set when the document alone was named.
	whole bool
	// symbol names the definition the span is, if it is one.
	symbol string
}

// text returns the span's text.
func (sp placeSpan) text() string {
	m := NewMapper(sp.content)
	return string(sp.content[m.PointOffset(sp.r.Start):m.PointOffset(sp.r.End)])
}

// lines returns the span's 1-based inclusive line range; a span ending at
// the start of a line does not include that line.
func (sp placeSpan) lines() (int, int) {
	start, end := sp.r.Start.Line+1, sp.r.End.Line+1
	if sp.r.End.Column == 0 && end > start {
		end--
	}
	return start, end
}

// resolveSpan turns place arguments into a span: a non-empty selection;
// the definition named by symbol (searched in every folder); the
// definition around a position (or its line, by mode); the whole document
// when only a document is named.
func resolveSpan(env *CommandEnv, folders []*backendFolder, p PlaceArgs, mode spanMode) (placeSpan, error) {
	docOnly := (p.URI != "" || p.TextDocument != nil) && p.Position == nil && p.Range == nil && p.Symbol == ""
	if docOnly {
		// ResolvePlace wants a position; a document alone is the file.
		p.Position = &PositionArg{}
	}
	place, err := env.ResolvePlace(p)
	if err != nil {
		return placeSpan{}, err
	}
	if place.Path == "" {
		return symbolSpan(folders, place.Symbol)
	}
	f, err := handleOf(place.Folder)
	if err != nil {
		return placeSpan{}, err
	}
	fe, release, err := f.engineOf()
	if err != nil {
		return placeSpan{}, err
	}
	defer release()
	rel, err := fe.rel(place.Path)
	if err != nil {
		return placeSpan{}, err
	}
	content, err := f.content(fe, rel)
	if err != nil {
		return placeSpan{}, fmt.Errorf("reading %s: %w", rel, err)
	}
	sp := placeSpan{f: f, rel: rel, content: content}
	m := NewMapper(content)
	switch {
	case docOnly:
		sp.whole = true
		sp.r = Range{End: m.OffsetPoint(len(content))}
		return sp, nil
	case place.Range != nil && place.Range.Start != place.Range.End:
		sp.r = *place.Range
		return sp, nil
	}
	at := Point{}
	if place.Point != nil {
		at = *place.Point
	} else if place.Range != nil {
		at = place.Range.Start
	}
	snap := fe.eng.Snapshot()
	syms, err := snap.DocumentSymbols(rel)
	snap.Release()
	if err != nil && !errors.Is(err, engine.ErrNotIndexed) {
		return placeSpan{}, err
	}
	for _, si := range syms { // source order: the last match is the innermost
		if sr := spanRange(si.Span); containsRange(sr, Range{Start: at, End: at}) {
			sp.r, sp.symbol = sr, si.QualifiedName()
		}
	}
	if sp.symbol != "" {
		return sp, nil
	}
	if mode == spanLine {
		sp.r = Range{Start: Point{Line: at.Line}, End: Point{Line: at.Line, Column: 1 << 30}}
		return sp, nil
	}
	return placeSpan{}, invalidParams("arguments[0].position: no definition here; select a range instead")
}

// symbolSpan is the span of the best definition named symbol.
func symbolSpan(folders []*backendFolder, symbol string) (placeSpan, error) {
	for _, f := range folders {
		fe, release, err := f.engineOf()
		if err != nil {
			return placeSpan{}, err
		}
		snap := fe.eng.Snapshot()
		syms, err := snap.FindSymbols(symbol)
		snap.Release()
		if err != nil || len(syms) == 0 {
			release()
			continue
		}
		si := syms[0]
		content, err := f.content(fe, si.Path)
		release()
		if err != nil {
			return placeSpan{}, fmt.Errorf("reading %s: %w", si.Path, err)
		}
		return placeSpan{f: f, rel: si.Path, content: content, r: spanRange(si.Span), symbol: si.QualifiedName()}, nil
	}
	return placeSpan{}, invalidParams("arguments[0].symbol: no definition named %q", symbol)
}

// selection converts a span to the engine's, with the current text.
func (sp placeSpan) selection() *engine.Selection {
	start, end := sp.lines()
	return &engine.Selection{Path: sp.rel, StartLine: start, EndLine: end, Content: sp.content}
}

// ContextPackArgs are the arguments of contextLs.contextPack.
type ContextPackArgs struct {
	PlaceArgs
	Query        string `json:"query,omitempty" doc:"what the pack is for; required without a place"`
	BudgetTokens int    `json:"budgetTokens,omitempty" doc:"token budget (default: the budgetTokens setting)"`
	Format       string `json:"format,omitempty" doc:"markdown, xml, json or plain (default: the workspace's pack.format)"`
	Task         string `json:"task,omitempty" doc:"analysis, implementation, review, testing, documentation or bugfix: how the budget is split across sources (default analysis)"`
	Folder       string `json:"folder,omitempty" doc:"URI of the workspace folder to pack from when no place is given (default: the first)"`
}

func (a *ContextPackArgs) validate() error {
	switch {
	case a.BudgetTokens < 0 || a.BudgetTokens > 1_000_000:
		return errors.New("budgetTokens: must be between 1 and 1000000 (0: the setting)")
	case a.Format != "" && !strings.Contains(" markdown xml json plain ", " "+a.Format+" "):
		return fmt.Errorf("format: %q is not markdown, xml, json or plain", a.Format)
	case a.Task != "" && !containsString(packs.Tasks, a.Task):
		return fmt.Errorf("task: %q is not one of %s", a.Task, strings.Join(packs.Tasks, ", "))
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ContextPackResult is the result of contextLs.contextPack.
type ContextPackResult struct {
	Text    string     `json:"text" doc:"the rendered pack"`
	Tokens  int        `json:"tokens" doc:"tokens used, never more than budget"`
	Budget  int        `json:"budget" doc:"the budget it was built for"`
	Dropped int        `json:"dropped" doc:"candidates left out for lack of budget"`
	Items   []PackItem `json:"items" doc:"what the pack holds, in rendering order"`
	Notes   []string   `json:"notes" doc:"sources that were skipped, items over budget"`
}

// PackItem is one snippet of a context pack or of related context.
type PackItem struct {
	Location    LocationResult `json:"location" doc:"the snippet's lines"`
	Path        string         `json:"path" doc:"path relative to the folder"`
	Symbol      string         `json:"symbol" doc:"the definition it is about"`
	Kind        string         `json:"kind" doc:"function, method, markdown_section, …"`
	Score       float64        `json:"score" doc:"relevance from 0 to 1"`
	Tokens      int            `json:"tokens" doc:"tokens it costs"`
	Reason      string         `json:"reason" doc:"why it is included: query match, caller of X, test of Y, pinned, …"`
	IncludeMode string         `json:"includeMode" doc:"always, manual (pinned) or agent (chosen for relevance)"`
	Text        string         `json:"text,omitempty" doc:"relatedContext only: the snippet, scrubbed of secrets"`
}

// packItems locates pack items of a folder.
func packItems(env *CommandEnv, f *backendFolder, items []packs.Item, withText bool) []PackItem {
	locs := make([]Location, len(items))
	for i, it := range items {
		locs[i] = Location{Path: f.abs(it.Path), Range: Range{
			Start: Point{Line: max(it.StartLine-1, 0)},
			End:   Point{Line: max(it.EndLine-1, 0), Column: 1 << 30},
		}}
	}
	conv := env.Locations(locs)
	out := make([]PackItem, len(items))
	for i, it := range items {
		out[i] = PackItem{
			Location: conv[i], Path: it.Path, Symbol: it.Symbol, Kind: it.Kind, Score: it.Score,
			Tokens: it.Tokens, Reason: it.Reason, IncludeMode: it.IncludeMode,
		}
		if withText {
			out[i].Text = it.Text
		}
	}
	return out
}

func runContextPack(ctx context.Context, env *CommandEnv, a ContextPackArgs) (ContextPackResult, error) {
	folders, err := engineFolders(env)
	if err != nil {
		return ContextPackResult{}, err
	}
	hasPlace := a.TextDocument != nil || a.URI != "" || a.Symbol != "" || a.Position != nil || a.Range != nil
	if strings.TrimSpace(a.Query) == "" && !hasPlace {
		return ContextPackResult{}, invalidParams("arguments[0].query: required without a place")
	}
	req := engine.PackRequest{Query: a.Query, Budget: a.BudgetTokens, Format: a.Format, Task: a.Task}
	f := folders[0]
	if hasPlace {
		sp, err := resolveSpan(env, folders, a.PlaceArgs, spanLine)
		if err != nil {
			return ContextPackResult{}, err
		}
		f, req.Selection = sp.f, sp.selection()
	} else if a.Folder != "" {
		if f, err = folderByURI(folders, a.Folder); err != nil {
			return ContextPackResult{}, err
		}
	}
	if req.Budget == 0 {
		req.Budget = f.budgetSetting()
	}
	_, snap, done, err := f.snapshotOf()
	if err != nil {
		return ContextPackResult{}, err
	}
	p, err := snap.Pack(ctx, req)
	done()
	if err != nil {
		if errors.Is(err, engine.ErrBadSelection) || errors.Is(err, engine.ErrNothingToPack) {
			return ContextPackResult{}, invalidParams("arguments[0]: %v", err)
		}
		return ContextPackResult{}, fmt.Errorf("context pack: %w", err)
	}
	f.packs.Add(1)
	f.packTokens.Add(int64(p.Tokens))
	res := ContextPackResult{Text: p.Text, Tokens: p.Tokens, Budget: p.Budget, Dropped: p.Dropped,
		Items: packItems(env, f, p.Items, false), Notes: p.Notes}
	if res.Notes == nil {
		res.Notes = []string{}
	}
	return res, nil
}

// budgetSetting is the budgetTokens setting when the client set one, else
// 0 (the workspace configuration's).
func (f *backendFolder) budgetSetting() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.settings.BudgetTokens != DefaultBudgetTokens {
		return f.settings.BudgetTokens
	}
	return 0
}

// folderByURI finds an open folder by URI.
func folderByURI(folders []*backendFolder, uri string) (*backendFolder, error) {
	path, err := URIToPath(uri)
	if err != nil {
		return nil, invalidParams("arguments[0].folder: %v", err)
	}
	for _, f := range folders {
		if f.root == path {
			return f, nil
		}
	}
	return nil, invalidParams("arguments[0].folder: %s is not an open workspace folder", uri)
}

// averagePackTokens reports the average size of the packs built here.
func (f *backendFolder) averagePackTokens() Measure {
	n := f.packs.Load()
	if n == 0 {
		return Measure{Unavailable: "no context pack built since the folder opened"}
	}
	avg := float64(f.packTokens.Load()) / float64(n)
	return Measure{Value: &avg}
}

// packCounters count the packs a folder built, for stats.
type packCounters struct {
	packs      atomic.Int64
	packTokens atomic.Int64
}

// RelatedArgs are the arguments of contextLs.relatedContext.
type RelatedArgs struct {
	PlaceArgs
	K            int `json:"k,omitempty" doc:"most items, 1 to 200 (default 20)"`
	BudgetTokens int `json:"budgetTokens,omitempty" doc:"stop adding items once their tokens would pass this (0: no budget)"`
}

func (a *RelatedArgs) validate() error {
	switch {
	case a.K < 0 || a.K > 200:
		return errors.New("k: must be between 1 and 200 (0: the default 20)")
	case a.BudgetTokens < 0:
		return errors.New("budgetTokens: must not be negative")
	}
	return nil
}

// RelatedResult is the result of contextLs.relatedContext.
type RelatedResult struct {
	Selection LocationResult `json:"selection" doc:"the lines the items relate to"`
	Symbol    string         `json:"symbol,omitempty" doc:"the definition at the place, when the place is one"`
	Items     []PackItem     `json:"items" doc:"definitions it uses, callers, callees, tests, similar code, docs and co-changed files, best first"`
	Notes     []string       `json:"notes" doc:"sources that were skipped"`
}

func runRelated(ctx context.Context, env *CommandEnv, a RelatedArgs) (RelatedResult, error) {
	folders, err := engineFolders(env)
	if err != nil {
		return RelatedResult{}, err
	}
	sp, err := resolveSpan(env, folders, a.PlaceArgs, spanLine)
	if err != nil {
		return RelatedResult{}, err
	}
	_, snap, done, err := sp.f.snapshotOf()
	if err != nil {
		return RelatedResult{}, err
	}
	rel, err := snap.Related(ctx, *sp.selection())
	done()
	if err != nil {
		if errors.Is(err, engine.ErrBadSelection) {
			return RelatedResult{}, invalidParams("arguments[0]: %v", err)
		}
		return RelatedResult{}, fmt.Errorf("related context: %w", err)
	}
	k := a.K
	if k == 0 {
		k = 20
	}
	var items []packs.Item
	used := 0
	for _, it := range rel.Items {
		if len(items) == k || (a.BudgetTokens > 0 && used+it.Tokens > a.BudgetTokens) {
			break
		}
		used += it.Tokens
		items = append(items, it)
	}
	start, end := sp.lines()
	sel := env.Locations([]Location{{Path: sp.f.abs(sp.rel), Range: Range{Start: Point{Line: start - 1}, End: Point{Line: end - 1, Column: 1 << 30}}}})
	res := RelatedResult{Selection: sel[0], Symbol: sp.symbol, Items: packItems(env, sp.f, items, true), Notes: rel.Notes}
	if res.Notes == nil {
		res.Notes = []string{}
	}
	return res, nil
}

// PinArgs are the arguments of contextLs.pin and contextLs.unpin: a
// selection (its lines), a document alone (the whole file), the definition
// at a position, or a symbol's definition.
type PinArgs struct {
	PlaceArgs
}

// PinsResult is the result of contextLs.pin and contextLs.unpin.
type PinsResult struct {
	Folder string     `json:"folder" doc:"URI of the folder whose pins these are"`
	Pins   []PinEntry `json:"pins" doc:"every pin of the folder after the change, in pinning order"`
}

// PinEntry is one pinned file or line range.
type PinEntry struct {
	Location LocationResult `json:"location" doc:"the pinned lines (the whole file when no lines were pinned)"`
	Path     string         `json:"path" doc:"path relative to the folder"`
	Lines    string         `json:"lines,omitempty" doc:"the pinned line range, a-b (1-based); empty for a whole file"`
	Tokens   int            `json:"tokens" doc:"tokens it adds to every pack (its current text)"`
}

func runPin(ctx context.Context, env *CommandEnv, a PinArgs) (PinsResult, error) {
	return changePin(ctx, env, a, true)
}

func runUnpin(ctx context.Context, env *CommandEnv, a PinArgs) (PinsResult, error) {
	return changePin(ctx, env, a, false)
}

// changePin adds or removes the pin the arguments name and lists the
// folder's pins.
func changePin(_ context.Context, env *CommandEnv, a PinArgs, add bool) (PinsResult, error) {
	folders, err := engineFolders(env)
	if err != nil {
		return PinsResult{}, err
	}
	sp, err := resolveSpan(env, folders, a.PlaceArgs, spanDefinition)
	if err != nil {
		return PinsResult{}, err
	}
	pin := engine.Pin{Path: sp.rel}
	if !sp.whole {
		pin.StartLine, pin.EndLine = sp.lines()
	}
	fe, release, err := sp.f.engineOf()
	if err != nil {
		return PinsResult{}, err
	}
	defer release()
	if add {
		err = fe.eng.Pin(pin)
	} else {
		err = fe.eng.Unpin(pin)
	}
	switch {
	case errors.Is(err, engine.ErrNotPinned), errors.Is(err, engine.ErrBadSelection):
		return PinsResult{}, invalidParams("arguments[0]: %v", err)
	case err != nil:
		return PinsResult{}, fmt.Errorf("pins: %w", err)
	}
	pins, err := fe.eng.Pins()
	if err != nil {
		return PinsResult{}, fmt.Errorf("pins: %w", err)
	}
	res := PinsResult{Folder: PathToURI(sp.f.root), Pins: []PinEntry{}}
	locs := make([]Location, len(pins))
	for i, p := range pins {
		r := Range{End: Point{Line: 1 << 30}}
		if p.StartLine > 0 {
			r = Range{Start: Point{Line: p.StartLine - 1}, End: Point{Line: p.EndLine - 1, Column: 1 << 30}}
		}
		locs[i] = Location{Path: sp.f.abs(p.Path), Range: r}
	}
	conv := env.Locations(locs)
	for i, p := range pins {
		e := PinEntry{Location: conv[i], Path: p.Path}
		if p.StartLine > 0 {
			e.Lines = fmt.Sprintf("%d-%d", p.StartLine, p.EndLine)
		}
		if content, err := sp.f.content(fe, p.Path); err == nil {
			ps := placeSpan{content: content, r: locs[i].Range}
			e.Tokens = packs.CountTokens(ps.text())
		}
		res.Pins = append(res.Pins, e)
	}
	return res, nil
}
