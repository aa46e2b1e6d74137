package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/context-ls/context-ls/engine"
)

// Code graph: the callers, callees and tests commands, the call hierarchy
// and the counts in hovers, all answered by the engine's graph queries on
// the folder's current snapshot.

// graphKind names a graph query.
type graphKind string

const (
	graphCallers graphKind = "callers"
	graphCallees graphKind = "callees"
	graphTests   graphKind = "tests"
)

// graph runs one graph query on the folder's current snapshot.
func (f *backendFolder) graph(ctx context.Context, kind graphKind, t engine.Target) ([]engine.GraphResult, error) {
	_, snap, done, err := f.snapshotOf()
	if err != nil {
		return nil, err
	}
	defer done()
	switch kind {
	case graphCallers:
		return snap.Callers(ctx, t)
	case graphCallees:
		return snap.Callees(ctx, t)
	default:
		return snap.Tests(ctx, t)
	}
}

// GraphArgs are the arguments of contextLs.callers, contextLs.callees and
// contextLs.tests: a place (the definition whose name is there, a call
// site there resolved to its callee, else the function around it) or a
// symbol name.
type GraphArgs struct {
	PlaceArgs
	Limit int `json:"limit,omitempty" doc:"most items per definition, 1 to 1000 (default 50)"`
}

func (a *GraphArgs) validate() error {
	if a.Limit < 0 || a.Limit > 1000 {
		return errors.New("limit: must be between 1 and 1000 (0: the default 50)")
	}
	return nil
}

// GraphAnswer is the result of contextLs.callers, contextLs.callees and
// contextLs.tests.
type GraphAnswer struct {
	Targets []GraphTarget `json:"targets" doc:"one entry per definition the place or symbol names (a bare name may name several)"`
}

// GraphTarget is one definition asked about and what the graph knows.
type GraphTarget struct {
	Location   LocationResult `json:"location" doc:"the definition's name"`
	Symbol     string         `json:"symbol" doc:"its qualified name"`
	Kind       string         `json:"kind" doc:"function, method, …"`
	Items      []GraphEntry   `json:"items" doc:"callers, callees or tests, best first"`
	Omitted    int            `json:"omitted" doc:"items left out: name-only matches, and those past the limit"`
	Unresolved []string       `json:"unresolved,omitempty" doc:"callees only: calls that match no workspace definition (\"fmt.Println\")"`
}

// GraphEntry is one caller, callee or test.
type GraphEntry struct {
	Location   LocationResult   `json:"location" doc:"its whole definition"`
	Name       string           `json:"name" doc:"qualified name (a file name for top-level code)"`
	Kind       string           `json:"kind" doc:"function, method, test, file, …"`
	Confidence string           `json:"confidence" doc:"exact, likely or name-only"`
	Reason     string           `json:"reason" doc:"callers and callees: what resolved the call; tests: direct, two-hops or naming"`
	Detail     string           `json:"detail,omitempty" doc:"tests: the reason in words"`
	Via        string           `json:"via,omitempty" doc:"tests: the definition a two-hop test goes through"`
	CallSites  []LocationResult `json:"callSites" doc:"the calls: in its file for callers and tests, in the target's file for callees"`
}

// defaultGraphLimit is the default of GraphArgs.Limit.
const defaultGraphLimit = 50

func runCallers(ctx context.Context, env *CommandEnv, a GraphArgs) (GraphAnswer, error) {
	return graphCommand(ctx, env, a, graphCallers)
}

func runCallees(ctx context.Context, env *CommandEnv, a GraphArgs) (GraphAnswer, error) {
	return graphCommand(ctx, env, a, graphCallees)
}

func runTests(ctx context.Context, env *CommandEnv, a GraphArgs) (GraphAnswer, error) {
	return graphCommand(ctx, env, a, graphTests)
}

// graphCommand resolves the place or symbol, queries the folder holding
// the place (every folder for a symbol) and converts the answer.
func graphCommand(ctx context.Context, env *CommandEnv, a GraphArgs, kind graphKind) (GraphAnswer, error) {
	place, err := env.ResolvePlace(a.PlaceArgs)
	if err != nil {
		return GraphAnswer{}, err
	}
	var folders []*backendFolder
	var target engine.Target
	if place.Path != "" {
		f, err := handleOf(place.Folder)
		if err != nil {
			return GraphAnswer{}, err
		}
		folders = []*backendFolder{f}
		at := place.Point
		if at == nil {
			at = &place.Range.Start
		}
		target = engine.Target{Path: place.Path, Line: at.Line + 1, Col: at.Column + 1}
	} else {
		if folders, err = engineFolders(env); err != nil {
			return GraphAnswer{}, err
		}
		target = engine.Target{Symbol: place.Symbol}
	}
	limit := a.Limit
	if limit == 0 {
		limit = defaultGraphLimit
	}
	type folderResult struct {
		f *backendFolder
		r engine.GraphResult
	}
	var all []folderResult
	var missing []error
	for _, f := range folders {
		results, err := f.graph(ctx, kind, target)
		if errors.Is(err, engine.ErrNoSymbol) && place.Path == "" {
			missing = append(missing, err)
			continue // the symbol may live in another folder
		}
		if err != nil {
			return GraphAnswer{}, fmt.Errorf("%s of %s: %w", kind, target, err)
		}
		for _, r := range results {
			all = append(all, folderResult{f, r})
		}
	}
	if len(all) == 0 && len(missing) > 0 {
		return GraphAnswer{}, fmt.Errorf("%s: %w", kind, missing[0])
	}
	// Collect every location, convert them in one pass (each file read
	// once), then build the answer.
	var locs []Location
	for _, fr := range all {
		r := fr.r
		locs = append(locs, Location{Path: fr.f.abs(r.Target.Path), Range: nameRange(r.Target)})
		for i, it := range r.Items {
			if i == limit {
				break
			}
			locs = append(locs, Location{Path: fr.f.abs(it.Path), Range: itemRange(it)})
			sitePath := it.Path
			if kind == graphCallees {
				sitePath = r.Target.Path
			}
			for _, s := range it.Sites {
				locs = append(locs, Location{Path: fr.f.abs(sitePath), Range: siteRange(s)})
			}
		}
	}
	conv := env.Locations(locs)
	next := func() LocationResult {
		l := conv[0]
		conv = conv[1:]
		return l
	}
	out := GraphAnswer{Targets: []GraphTarget{}}
	for _, fr := range all {
		r := fr.r
		gt := GraphTarget{
			Location: next(), Symbol: r.Target.QualifiedName(), Kind: string(r.Target.Kind),
			Items: []GraphEntry{}, Omitted: r.Omitted, Unresolved: r.Unresolved,
		}
		for i, it := range r.Items {
			if i == limit {
				gt.Omitted += len(r.Items) - limit
				break
			}
			e := GraphEntry{
				Location: next(), Name: it.Symbol, Kind: it.Kind, Confidence: it.Confidence,
				Reason: it.Reason, Detail: it.Detail, Via: it.Via, CallSites: []LocationResult{},
			}
			for range it.Sites {
				e.CallSites = append(e.CallSites, next())
			}
			gt.Items = append(gt.Items, e)
		}
		out.Targets = append(out.Targets, gt)
	}
	return out, nil
}

// itemRange is the range of a graph item's whole definition: from the
// start of its first line to the end of its last (the protocol edge clamps
// the column to the line's end).
func itemRange(it engine.GraphItem) Range {
	return Range{
		Start: Point{Line: max(it.StartLine-1, 0)},
		End:   Point{Line: max(it.EndLine-1, 0), Column: 1 << 30},
	}
}

// itemNameRange is the range of a graph item's name.
func itemNameRange(it engine.GraphItem) Range {
	name := it.Symbol
	if i := strings.LastIndexByte(name, '.'); i >= 0 && it.Kind != "file" {
		name = name[i+1:]
	}
	start := Point{Line: max(it.NameLine-1, 0), Column: max(it.NameCol-1, 0)}
	return Range{Start: start, End: Point{Line: start.Line, Column: start.Column + len(name)}}
}

// siteRange converts a call site (1-based, end exclusive).
func siteRange(s engine.SiteRange) Range {
	return Range{
		Start: Point{Line: max(s.Line-1, 0), Column: max(s.Col-1, 0)},
		End:   Point{Line: max(s.EndLine-1, 0), Column: max(s.EndCol-1, 0)},
	}
}

// graphCount is a hover's line about callers or tests: how many, and the
// first few with their locations. With onlyAny, nothing unless there are
// some.
func graphCount(ctx context.Context, d folderSymbol, kind graphKind, onlyAny bool) string {
	t := engine.Target{Path: d.si.Path, Line: d.si.NameSpan.Start.Line + 1, Col: d.si.NameSpan.Start.Column + 1}
	results, err := d.f.graph(ctx, kind, t)
	if onlyAny && (err != nil || len(results) == 0 || len(results[0].Items) == 0) {
		return ""
	}
	if err != nil || len(results) == 0 {
		if err != nil && ctx.Err() == nil {
			d.f.b.log.Debug("hover: graph query failed", "kind", kind, "target", t, "error", err)
		}
		return fmt.Sprintf("- %s: unknown (the code graph has no answer here)\n", kind)
	}
	r := results[0]
	var b strings.Builder
	fmt.Fprintf(&b, "- %s: %d", kind, len(r.Items))
	if r.Omitted > 0 {
		fmt.Fprintf(&b, " (+%d by name only)", r.Omitted)
	}
	for i, it := range r.Items {
		if i == relatedCount {
			b.WriteString(", …")
			break
		}
		sep := ", "
		if i == 0 {
			sep = " — "
		}
		fmt.Fprintf(&b, "%s[`%s`](%s#L%d)", sep, it.Symbol, PathToURI(d.f.abs(it.Path)), it.StartLine)
		if kind == graphTests && it.Reason != "" {
			fmt.Fprintf(&b, " (%s)", it.Reason)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// callData is what a call hierarchy item carries to identify its
// definition when the client sends it back.
type callData struct {
	Path string `json:"path"` // relative to the folder
	Line int    `json:"line"` // 1-based line of the name
	Col  int    `json:"col"`  // 1-based byte column of the name
}

// callItemOf builds a call hierarchy item for a definition.
func callItemOf(f *backendFolder, si engine.SymbolInfo) CallItem {
	data, _ := json.Marshal(callData{Path: si.Path, Line: si.NameSpan.Start.Line + 1, Col: si.NameSpan.Start.Column + 1})
	detail := si.Signature
	if detail == "" {
		detail = si.Container
	}
	return CallItem{
		Name: si.Name, Kind: SymbolKind(si.Kind), Detail: detail, Path: f.abs(si.Path),
		Range: spanRange(si.Span), SelectionRange: nameRange(si), Data: data,
	}
}

// callItemOfGraph builds a call hierarchy item for a graph item.
func callItemOfGraph(f *backendFolder, it engine.GraphItem) CallItem {
	data, _ := json.Marshal(callData{Path: it.Path, Line: it.NameLine, Col: it.NameCol})
	name := it.Symbol
	if i := strings.LastIndexByte(name, '.'); i >= 0 && it.Kind != "file" {
		name = name[i+1:]
	}
	return CallItem{
		Name: name, Kind: SymbolKind(it.Kind), Detail: it.Symbol, Path: f.abs(it.Path),
		Range: itemRange(it), SelectionRange: itemNameRange(it), Data: data,
	}
}

// prepareCallHierarchy implements Features.PrepareCallHierarchy: the
// definitions the identifier at the place resolves to.
func (b *Backend) prepareCallHierarchy(ctx context.Context, h FolderHandle, at Place) ([]CallItem, error) {
	r, err := b.resolveAt(ctx, h, at)
	if err != nil {
		return nil, err
	}
	out := make([]CallItem, 0, len(r.defs))
	for _, d := range r.defs {
		out = append(out, callItemOf(d.f, d.si))
	}
	return out, nil
}

// targetOf turns a call hierarchy item back into a graph target.
func targetOf(f *backendFolder, item CallItem) (engine.Target, error) {
	var d callData
	if len(item.Data) > 0 && json.Unmarshal(item.Data, &d) == nil && d.Path != "" && d.Line > 0 {
		return engine.Target{Path: d.Path, Line: d.Line, Col: d.Col}, nil
	}
	fe, release, err := f.engineOf()
	if err != nil {
		return engine.Target{}, err
	}
	defer release()
	rel, err := fe.rel(item.Path)
	if err != nil {
		return engine.Target{}, err
	}
	return engine.Target{Path: rel, Line: item.SelectionRange.Start.Line + 1, Col: item.SelectionRange.Start.Column + 1}, nil
}

// calls answers incoming (callers) or outgoing (callees) calls of an item.
func (b *Backend) calls(ctx context.Context, h FolderHandle, item CallItem, kind graphKind) ([]Call, error) {
	f, err := handleOf(h)
	if err != nil {
		return nil, err
	}
	t, err := targetOf(f, item)
	if err != nil {
		return nil, err
	}
	results, err := f.graph(ctx, kind, t)
	if err != nil {
		return nil, fmt.Errorf("%s of %s: %w", kind, item.Name, err)
	}
	out := []Call{}
	for _, r := range results {
		for _, it := range r.Items {
			c := Call{Item: callItemOfGraph(f, it)}
			for _, s := range it.Sites {
				c.Ranges = append(c.Ranges, siteRange(s))
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func (b *Backend) incomingCalls(ctx context.Context, h FolderHandle, item CallItem) ([]Call, error) {
	return b.calls(ctx, h, item, graphCallers)
}

func (b *Backend) outgoingCalls(ctx context.Context, h FolderHandle, item CallItem) ([]Call, error) {
	return b.calls(ctx, h, item, graphCallees)
}
