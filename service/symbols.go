package service

import (
	"context"
	"errors"
	"path"
	"sort"
	"strings"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/symbols"
)

// maxDefinitions bounds the definitions one request returns.
const maxDefinitions = 10

// Definition answers the definitions of the identifier at a position, best
// first: a call the graph recorded in this very version of the file is
// resolved with its imports and receiver types; otherwise by name.
func (s *Service) Definition(ctx context.Context, req PositionRequest) (*DefinitionResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	return withSnapshot(s, func(snap *engine.Snapshot) (*DefinitionResult, error) {
		r, err := s.resolveAt(ctx, snap, req)
		if err != nil {
			return nil, err
		}
		out := &DefinitionResult{Identifier: r.ident, Range: r.rng, Definitions: []Symbol{}}
		for _, si := range r.defs {
			out.Definitions = append(out.Definitions, s.symbol(r.tx, si))
		}
		return out, nil
	})
}

// resolved is the identifier at a position and its best definitions.
type resolved struct {
	tx    *texts
	rel   string
	ident string
	rng   Range
	defs  []engine.SymbolInfo
}

func (s *Service) resolveAt(ctx context.Context, snap *engine.Snapshot, req PositionRequest) (resolved, error) {
	tx := s.texts(snap)
	rel, err := s.fileRel("file", req.File)
	if err != nil {
		return resolved{}, err
	}
	ft, err := tx.get(rel)
	if err != nil {
		return resolved{}, classify("file", req.File, err)
	}
	if req.Line > len(ft.starts) {
		return resolved{}, invalid("line", "%d: %s has %d lines", req.Line, rel, ft.lineCount())
	}
	off := ft.offset(req.Line, req.Column)
	ident, qual, start := engine.IdentifierAt(ft.content, off)
	r := resolved{tx: tx, rel: rel, ident: ident}
	if ident == "" {
		// In the indentation of a definition's first line (a Python
		// "def" line at column 0): that definition.
		if off-ft.starts[req.Line-1] <= indentOf(ft.line(req.Line-1)) {
			if si, ok := definitionOnLine(snap, rel, req.Line); ok {
				r.ident, r.defs = si.Name, []engine.SymbolInfo{si}
				r.rng = Range{StartLine: si.NameSpan.Start.Line + 1, StartColumn: ft.charColumn(si.NameSpan.Start.Line, si.NameSpan.Start.Column),
					EndLine: si.NameSpan.End.Line + 1, EndColumn: ft.charColumn(si.NameSpan.End.Line, si.NameSpan.End.Column)}
			}
		}
		return r, nil
	}
	col := start - ft.starts[req.Line-1]
	r.rng = Range{StartLine: req.Line, StartColumn: ft.charColumn(req.Line-1, col), EndLine: req.Line,
		EndColumn: ft.charColumn(req.Line-1, col+len(ident))}
	defs, err := snap.Definition(ctx, rel, ft.content, off)
	if err != nil {
		return resolved{}, classify("file", req.File, err)
	}
	r.defs = bestDefinitions(defs, rel, qual)
	return r, ctxErr(ctx)
}

// definitionOnLine returns the innermost definition of rel whose header
// (its first line, decorators included, or its name's line) is 1-based
// line n.
func definitionOnLine(snap *engine.Snapshot, rel string, n int) (engine.SymbolInfo, bool) {
	syms, err := snap.DocumentSymbols(rel)
	if err != nil {
		return engine.SymbolInfo{}, false
	}
	var out engine.SymbolInfo
	found := false
	for _, si := range syms { // source order: the last is the innermost
		if si.Span.Start.Line+1 == n || si.NameSpan.Start.Line+1 == n {
			out, found = si, true
		}
	}
	return out, found
}

// bestDefinitions keeps the engine's best group of definitions: those in
// the same file as the best one, or in its directory, or (for a qualified
// name) those the qualifier names; at most maxDefinitions.
func bestDefinitions(defs []engine.SymbolInfo, rel, qual string) []engine.SymbolInfo {
	if len(defs) == 0 {
		return nil
	}
	group := func(si engine.SymbolInfo) int {
		switch {
		case si.Path == rel:
			return 0
		case path.Dir(si.Path) == path.Dir(rel):
			return 1
		case qual != "" && qualifies(qual, si):
			return 2
		default:
			return 3
		}
	}
	g := group(defs[0])
	var out []engine.SymbolInfo
	for _, si := range defs {
		if group(si) == g {
			out = append(out, si)
		}
		if len(out) == maxDefinitions {
			break
		}
	}
	return out
}

// qualifies reports whether a qualifier ("pkg" of pkg.Name, "Type" of
// Type.Name) names the definition's container, directory or module file.
func qualifies(qual string, si engine.SymbolInfo) bool {
	q := strings.ToLower(qual)
	base := strings.TrimSuffix(path.Base(si.Path), path.Ext(si.Path))
	c := strings.ToLower(si.Container)
	return c == q || strings.HasSuffix(c, "."+q) || strings.ToLower(path.Base(path.Dir(si.Path))) == q || strings.ToLower(base) == q
}

// relatedCount bounds the related definitions a hover lists.
const relatedCount = 3

// hoverCountLimit bounds the callers and tests a hover counts.
const hoverCountLimit = 1000

// Hover describes the definition of the identifier at a position: its
// signature and doc comment, how many callers and tests the graph can
// justify (name-only guesses are never counted), and a few definitions
// search relates to it.
func (s *Service) Hover(ctx context.Context, req PositionRequest) (*HoverResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	return withSnapshot(s, func(snap *engine.Snapshot) (*HoverResult, error) {
		r, err := s.resolveAt(ctx, snap, req)
		if err != nil {
			return nil, err
		}
		out := &HoverResult{Identifier: r.ident, Range: r.rng, Related: []Hit{}}
		if len(r.defs) == 0 {
			return out, nil
		}
		top := r.defs[0]
		d := s.symbol(r.tx, top)
		out.Definition, out.More = &d, len(r.defs)-1
		t := engine.Target{Path: top.Path, Line: top.NameSpan.Start.Line + 1, Col: top.NameSpan.Start.Column + 1}
		if c := s.graphCount(ctx, r.tx, snap, (*engine.Snapshot).Callers, t, ""); c != nil && (callable(top.Kind) || c.Count > 0) {
			out.Callers = c
		}
		out.Tests = s.graphCount(ctx, r.tx, snap, (*engine.Snapshot).Tests, t, "")
		related, err := s.relatedDefinitions(ctx, snap, top)
		if err != nil {
			return nil, err
		}
		out.Related = related
		return out, ctxErr(ctx)
	})
}

// graphCount counts the exact and likely items of a graph query on a
// definition and keeps the first few; nil when the graph has no answer.
func (s *Service) graphCount(ctx context.Context, tx *texts, snap *engine.Snapshot, q graphQuery, t engine.Target, sitePath string) *Count {
	results, err := q(snap, ctx, t)
	if err != nil || len(results) == 0 {
		return nil
	}
	c := &Count{First: []GraphItem{}}
	for _, it := range results[0].Items {
		if it.Confidence == "name-only" {
			continue
		}
		if c.Count == hoverCountLimit {
			c.More = true
			break
		}
		c.Count++
		if len(c.First) < relatedCount {
			c.First = append(c.First, s.graphItem(tx, it, sitePath))
		}
	}
	return c
}

// callable reports whether definitions of kind are made to be called:
// functions, methods, constructors, macros, and classes (called to
// instantiate them). Structs, interfaces, types, constants and variables
// are mostly used, not called (a Go conversion or a Rust tuple struct
// aside): for them "callers: 0" would read as "unused".
func callable(kind symbols.Kind) bool {
	switch kind {
	case symbols.KindFunction, symbols.KindMethod, symbols.KindConstructor, symbols.KindClass, symbols.KindMacro:
		return true
	}
	return false
}

// relatedDefinitions searches for a definition's name and the first
// sentence of its doc comment, leaving out the definition itself and file
// headers; the hits carry no text.
func (s *Service) relatedDefinitions(ctx context.Context, snap *engine.Snapshot, si engine.SymbolInfo) ([]Hit, error) {
	q := si.Name
	if doc := engine.FirstSentence(si.Doc); doc != "" {
		q += " " + doc
	}
	res, err := snap.Search(ctx, engine.SearchRequest{Query: q, K: 4 * relatedCount})
	if err != nil {
		if errors.Is(err, engine.ErrEmptyQuery) {
			return []Hit{}, nil
		}
		return nil, err
	}
	first, last := si.Span.Start.Line+1, si.Span.End.Line+1
	var keep []engine.Hit
	perFile := map[string]int{}
	for _, h := range res.Hits {
		if h.Path == si.Path && h.StartLine <= last && first <= h.EndLine {
			continue // the definition itself
		}
		if h.Kind == chunking.KindFileHeader || perFile[h.Path] == 2 {
			continue // a package clause and imports: not a definition; two of a file are enough
		}
		perFile[h.Path]++
		keep = append(keep, h)
		if len(keep) == relatedCount {
			break
		}
	}
	return s.hitList(snap, keep, false), nil
}

// defaultSymbolsLimit bounds a list of definitions that is not a file's
// when no limit is given: every definition of a workspace is no answer to
// read (flask's 1,064 were 128 KB of JSON).
const defaultSymbolsLimit = 200

// Symbols lists definitions: of a file in source order (file), matching a
// name exactly and else fuzzily (name), matching a fuzzy query best first
// (query), or all of them.
func (s *Service) Symbols(ctx context.Context, req SymbolsRequest) (*SymbolsResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	given := 0
	for _, v := range []string{req.Name, req.Query, req.File} {
		if strings.TrimSpace(v) != "" {
			given++
		}
	}
	if given > 1 {
		return nil, invalid("name", "give at most one of name, query and file")
	}
	return withSnapshot(s, func(snap *engine.Snapshot) (*SymbolsResult, error) {
		tx := s.texts(snap)
		out := &SymbolsResult{Symbols: []Symbol{}}
		var syms []engine.SymbolInfo
		var err error
		scored := false
		switch {
		case req.File != "":
			rel, rerr := s.fileRel("file", req.File)
			if rerr != nil {
				return nil, rerr
			}
			syms, err = snap.DocumentSymbols(rel)
			if errors.Is(err, engine.ErrNotIndexed) {
				return out, nil // a file the index does not hold has none
			}
		case strings.TrimSpace(req.Name) != "":
			syms, err = snap.FindSymbols(req.Name)
			if err == nil && len(syms) == 0 {
				out.Fuzzy = true
				syms, err = snap.WorkspaceSymbols(ctx, req.Name, max(req.Limit, 50))
				scored = true
			}
		case strings.TrimSpace(req.Query) != "":
			syms, err = snap.WorkspaceSymbols(ctx, req.Query, max(req.Limit, 100))
			scored = true
		default:
			syms, err = snap.AllSymbols()
		}
		if err != nil {
			return nil, classify("file", req.File, err)
		}
		limit := req.Limit
		if limit == 0 && req.File == "" {
			limit = defaultSymbolsLimit // a file's outline is bounded by the file; the workspace's is not
		}
		if limit > 0 && len(syms) > limit {
			out.More = len(syms) - limit
			syms = syms[:limit]
		}
		q := req.Query + req.Name
		for _, si := range syms {
			sym := s.symbol(tx, si)
			if req.File != "" {
				sym.Parent = si.Parent
			}
			if scored {
				sym.Score = float64(engine.SymbolScore(q, si.Name))
			}
			out.Symbols = append(out.Symbols, sym)
		}
		return out, ctxErr(ctx)
	})
}

// mergeSymbols merges definitions by score (fuzzy matches; exact ones keep
// folder order).
func mergeSymbols(req any, results []any) any {
	out := &SymbolsResult{Symbols: []Symbol{}}
	for _, r := range results {
		sr := r.(*SymbolsResult)
		out.Symbols = append(out.Symbols, sr.Symbols...)
		out.Fuzzy = out.Fuzzy || sr.Fuzzy
		out.More += sr.More
	}
	sort.SliceStable(out.Symbols, func(i, j int) bool { return out.Symbols[i].Score > out.Symbols[j].Score })
	sreq := req.(SymbolsRequest)
	limit := sreq.Limit
	if limit == 0 && sreq.File == "" {
		limit = defaultSymbolsLimit
	}
	if limit > 0 && len(out.Symbols) > limit {
		out.More += len(out.Symbols) - limit
		out.Symbols = out.Symbols[:limit]
	}
	return out
}

// definitionsElsewhere looks an identifier up by name in the other
// folders when its own folder defines it nowhere.
func definitionsElsewhere(ctx context.Context, res any, others []Folder) any {
	d := res.(*DefinitionResult)
	if len(d.Definitions) > 0 || d.Identifier == "" {
		return d
	}
	for _, f := range others {
		if ctx.Err() != nil {
			break
		}
		syms, err := Do[SymbolsResult](ctx, f.Backend, OpSymbols, SymbolsRequest{Name: d.Identifier, Limit: maxDefinitions})
		if err != nil || syms.Fuzzy {
			continue
		}
		d.Definitions = append(d.Definitions, syms.Symbols...)
	}
	return d
}
