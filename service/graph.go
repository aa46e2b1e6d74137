package service

import (
	"context"
	"errors"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/symbols"
)

// Callers answers the definitions that call a target's definitions.
func (s *Service) Callers(ctx context.Context, req GraphRequest) (*GraphResult, error) {
	return s.graph(ctx, req, (*engine.Snapshot).Callers, false)
}

// Callees answers the definitions a target's definitions call.
func (s *Service) Callees(ctx context.Context, req GraphRequest) (*GraphResult, error) {
	return s.graph(ctx, req, (*engine.Snapshot).Callees, true)
}

// Tests answers the tests that exercise a target's definitions.
func (s *Service) Tests(ctx context.Context, req GraphRequest) (*GraphResult, error) {
	return s.graph(ctx, req, (*engine.Snapshot).Tests, false)
}

// Implementations answers the definitions that implement or override a
// target's definitions: for an interface or base method the methods of the
// types implementing or deriving from it, for a type those types.
func (s *Service) Implementations(ctx context.Context, req GraphRequest) (*GraphResult, error) {
	return s.graph(ctx, req, (*engine.Snapshot).Implementations, false)
}

// graphQuery is one of the engine's graph queries.
type graphQuery func(*engine.Snapshot, context.Context, engine.Target) ([]engine.GraphResult, error)

// References answers the places that refer to a target's definitions:
// the call sites and other references the graph resolves to them (what
// callers lists by the definitions holding them), one location each.
func (s *Service) References(ctx context.Context, req ReferencesRequest) (*ReferencesResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	return withSnapshot(s, func(snap *engine.Snapshot) (*ReferencesResult, error) {
		tx := s.texts(snap)
		results, err := s.graphTargets(ctx, snap, tx, req.Target, (*engine.Snapshot).Callers)
		if err != nil {
			return nil, err
		}
		out := &ReferencesResult{Results: make([]ReferenceTarget, 0, len(results))}
		for _, r := range results {
			def := s.symbol(tx, r.Target)
			rt := ReferenceTarget{Definition: def, References: []Reference{}, Omitted: r.Omitted}
			if req.Declaration {
				rt.References = append(rt.References, Reference{Location: s.location(def.Path, def.NameRange),
					In: def.Symbol, Kind: "declaration", Confidence: "exact", Reason: "the definition itself"})
			}
			for _, it := range r.Items {
				item := s.graphItem(tx, it, "")
				for _, site := range item.Sites {
					if len(rt.References) == req.Limit {
						rt.Truncated++
						continue
					}
					rt.References = append(rt.References, Reference{Location: site, In: item.Symbol, Kind: item.Kind,
						Confidence: item.Confidence, Reason: item.Reason})
				}
			}
			out.Results = append(out.Results, rt)
		}
		return out, nil
	})
}

// graphTargets resolves a target and runs a graph query on it.
func (s *Service) graphTargets(ctx context.Context, snap *engine.Snapshot, tx *texts, target Target, q graphQuery) ([]engine.GraphResult, error) {
	t, err := s.engineTarget(target, tx)
	if err != nil {
		return nil, err
	}
	results, err := q(snap, ctx, t)
	switch {
	case errors.Is(err, engine.ErrNoSymbol) && t.Symbol != "":
		return nil, notFound("symbol", "no definition named %q is indexed", t.Symbol)
	case errors.Is(err, engine.ErrNoSymbol):
		return nil, notFound("line", "no definition or call at %s:%d", t.Path, t.Line)
	case err != nil:
		return nil, classify("file", target.File, err)
	}
	return results, nil
}

// graph runs a graph query. The items hold what the graph can justify
// (exact and likely); name-only matches are guesses, listed apart on
// request and never among the items. sitesInTarget: the call sites lie in
// the target's file (callees), else in each item's.
func (s *Service) graph(ctx context.Context, req GraphRequest, q graphQuery, sitesInTarget bool) (*GraphResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	return withSnapshot(s, func(snap *engine.Snapshot) (*GraphResult, error) {
		tx := s.texts(snap)
		results, err := s.graphTargets(ctx, snap, tx, req.Target, q)
		if err != nil {
			return nil, err
		}
		out := &GraphResult{Results: make([]GraphTarget, 0, len(results))}
		for _, r := range results {
			gt := GraphTarget{
				Definition: s.symbol(tx, r.Target), Items: []GraphItem{}, Omitted: r.Omitted, Unresolved: r.Unresolved,
			}
			sitePath := ""
			if sitesInTarget {
				sitePath = r.Target.Path
			}
			for _, it := range r.Items {
				if len(gt.Items) == req.Limit {
					gt.Truncated++
					continue
				}
				gt.Items = append(gt.Items, s.graphItem(tx, it, sitePath))
			}
			if req.Guesses {
				// Guesses page like the items: limit of them, the rest
				// counted as omitted.
				for _, it := range r.Guesses {
					if len(gt.Guesses) == req.Limit {
						break
					}
					gt.Guesses = append(gt.Guesses, s.graphItem(tx, it, sitePath))
				}
				gt.Omitted -= len(gt.Guesses)
			}
			out.Results = append(out.Results, gt)
		}
		return out, nil
	})
}

// graphItem converts an engine graph item; sitePath is the file of its
// call sites ("" for the item's own).
func (s *Service) graphItem(tx *texts, it engine.GraphItem, sitePath string) GraphItem {
	if sitePath == "" {
		sitePath = it.Path
	}
	out := GraphItem{
		Location: s.location(it.Path, lines(it.StartLine, it.EndLine)), Symbol: it.Symbol, Kind: it.Kind,
		Confidence: it.Confidence, Reason: it.Reason, Detail: it.Detail, Via: it.Via,
		NameRange: lines(it.NameLine, it.NameLine),
	}
	if ft, err := tx.get(it.Path); err == nil && it.NameLine > 0 {
		name := it.Symbol
		if i := strings.LastIndexByte(name, '.'); i >= 0 && it.Kind != "file" {
			name = name[i+1:]
		}
		b := max(it.NameCol-1, 0)
		out.NameRange.StartColumn = ft.charColumn(it.NameLine-1, b)
		out.NameRange.EndColumn = ft.charColumn(it.NameLine-1, b+len(name))
	}
	ft, err := tx.get(sitePath)
	for _, site := range it.Sites {
		r := lines(site.Line, site.EndLine)
		if err == nil {
			r.StartColumn = ft.charColumn(site.Line-1, site.Col-1)
			r.EndColumn = ft.charColumn(site.EndLine-1, site.EndCol-1)
		}
		out.Sites = append(out.Sites, s.location(sitePath, r))
	}
	return out
}

// symbol converts a definition, its signature and doc comment scrubbed.
func (s *Service) symbol(tx *texts, si engine.SymbolInfo) Symbol {
	return Symbol{
		Location:  s.location(si.Path, tx.spanRange(si.Path, si.Span)),
		NameRange: tx.spanRange(si.Path, nameSpan(si)),
		Symbol:    si.QualifiedName(), Name: si.Name, Container: si.Container, Kind: string(si.Kind),
		Language: si.Language, Signature: s.defScrub.Scrub(si.Signature), Doc: s.defScrub.Scrub(si.Doc),
		Exported: si.Exported, Parent: -1,
	}
}

// nameSpan is a definition's name span, or the start of the definition
// when the name's span is unknown.
func nameSpan(si engine.SymbolInfo) (sp symbols.Span) {
	if !si.NameSpan.Empty() {
		return si.NameSpan
	}
	sp = si.Span
	sp.End, sp.EndByte = sp.Start, sp.StartByte
	return sp
}

// mergeGraph lists every folder's definitions of the target.
func mergeGraph(_ any, results []any) any {
	out := &GraphResult{Results: []GraphTarget{}}
	for _, r := range results {
		out.Results = append(out.Results, r.(*GraphResult).Results...)
	}
	return out
}

// mergeReferences lists every folder's definitions of the target.
func mergeReferences(_ any, results []any) any {
	out := &ReferencesResult{Results: []ReferenceTarget{}}
	for _, r := range results {
		out.Results = append(out.Results, r.(*ReferencesResult).Results...)
	}
	return out
}
