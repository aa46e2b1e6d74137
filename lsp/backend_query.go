package lsp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/symbols"
)

// maxDefinitions bounds the definitions one request returns.
const maxDefinitions = 10

// spanRange converts a symbols span to an engine range.
func spanRange(sp symbols.Span) Range {
	return Range{
		Start: Point{Line: sp.Start.Line, Column: sp.Start.Column},
		End:   Point{Line: sp.End.Line, Column: sp.End.Column},
	}
}

// nameRange is the range of a definition's name, or of its start when the
// name's span is unknown.
func nameRange(si engine.SymbolInfo) Range {
	if !si.NameSpan.Empty() {
		return spanRange(si.NameSpan)
	}
	r := spanRange(si.Span)
	r.End = r.Start
	return r
}

// resolved is the identifier at a place and its definitions.
type resolved struct {
	ident, qual string
	// start and end are byte offsets of the identifier in content.
	start, end int
	content    []byte
	defs       []folderSymbol
}

// folderSymbol is a definition and the folder it was found in.
type folderSymbol struct {
	f  *backendFolder
	si engine.SymbolInfo
}

func (fs folderSymbol) location() Location {
	return Location{Path: fs.f.abs(fs.si.Path), Range: nameRange(fs.si)}
}

// resolveAt finds the identifier at a place and its best definitions: in
// the place's folder, ranked by the engine (same file, the qualifier's
// package, same directory, then the workspace); when that folder has
// none, in the other folders by name.
func (b *Backend) resolveAt(ctx context.Context, h FolderHandle, at Place) (*resolved, error) {
	f, err := handleOf(h)
	if err != nil {
		return nil, err
	}
	fe, release, err := f.engineOf()
	if err != nil {
		return nil, err
	}
	defer release()
	rel, err := fe.rel(at.Path)
	if err != nil {
		return nil, err
	}
	content, err := f.content(fe, rel)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rel, err)
	}
	off := NewMapper(content).PointOffset(at.Point)
	ident, qual, start := engine.IdentifierAt(content, off)
	out := &resolved{ident: ident, qual: qual, start: start, end: start + len(ident), content: content}
	if ident == "" {
		return out, nil
	}
	snap := fe.eng.Snapshot()
	defs, err := snap.Definition(ctx, rel, content, off)
	snap.Release()
	if err != nil {
		return nil, fmt.Errorf("definition of %s: %w", ident, err)
	}
	for _, si := range bestDefinitions(defs, rel, qual) {
		out.defs = append(out.defs, folderSymbol{f, si})
	}
	if len(out.defs) > 0 {
		return out, nil
	}
	for _, g := range b.openFolders() {
		if g == f || ctx.Err() != nil {
			continue
		}
		_, gsnap, gdone, err := g.snapshotOf()
		if err != nil {
			continue
		}
		defs, err := gsnap.Definition(ctx, rel, content, off)
		gdone()
		if err != nil {
			return nil, fmt.Errorf("definition of %s in %s: %w", ident, g.root, err)
		}
		for _, si := range bestDefinitions(defs, "", qual) {
			out.defs = append(out.defs, folderSymbol{g, si})
		}
	}
	if len(out.defs) > maxDefinitions {
		out.defs = out.defs[:maxDefinitions]
	}
	return out, ctx.Err()
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

// definition implements Features.Definition.
func (b *Backend) definition(ctx context.Context, h FolderHandle, at Place) ([]Location, error) {
	r, err := b.resolveAt(ctx, h, at)
	if err != nil {
		return nil, err
	}
	out := make([]Location, 0, len(r.defs))
	for _, d := range r.defs {
		out = append(out, d.location())
	}
	return out, nil
}

// relatedCount bounds the related definitions a hover lists.
const relatedCount = 3

// hover implements Features.Hover: the best definition's signature and doc
// comment, then a short Related section: callers and tests from the code
// graph, and related definitions from search.
func (b *Backend) hover(ctx context.Context, h FolderHandle, at Place) (*HoverResult, error) {
	r, err := b.resolveAt(ctx, h, at)
	if err != nil || len(r.defs) == 0 {
		return nil, err
	}
	top := r.defs[0]
	si := top.si
	var md strings.Builder
	sig := si.Signature
	if sig == "" {
		sig = si.Name
	}
	fmt.Fprintf(&md, "```%s\n%s\n```\n", fenceLanguage(si.Language), sig)
	if doc := strings.TrimSpace(si.Doc); doc != "" {
		md.WriteString("\n" + doc + "\n")
	}
	loc := top.location()
	fmt.Fprintf(&md, "\nDefined in [%s:%d](%s#L%d)", si.Path, loc.Range.Start.Line+1, PathToURI(loc.Path), loc.Range.Start.Line+1)
	if len(r.defs) > 1 {
		fmt.Fprintf(&md, " (%d more definitions of %s)", len(r.defs)-1, si.Name)
	}
	md.WriteString("\n\n**Related**\n\n")
	md.WriteString(graphCount(ctx, top, graphCallers, !callable(si.Kind)))
	md.WriteString(graphCount(ctx, top, graphTests, false))
	related, err := relatedDefinitions(ctx, top)
	if err != nil {
		return nil, err
	}
	for _, rd := range related {
		fmt.Fprintf(&md, "- `%s` (%s) [%s:%d](%s#L%d)\n", rd.symbol, rd.kind, rd.rel, rd.line, PathToURI(top.f.abs(rd.rel)), rd.line)
	}
	if len(related) == 0 {
		md.WriteString("- no related definitions found\n")
	}
	m := NewMapper(r.content)
	rng := Range{Start: m.OffsetPoint(r.start), End: m.OffsetPoint(r.end)}
	return &HoverResult{Markdown: md.String(), Range: &rng}, nil
}

type relatedDef struct {
	symbol, kind, rel string
	line              int
}

// relatedDefinitions searches the definition's folder for its name and
// the first sentence of its doc comment, leaving out the definition itself
// and file headers.
func relatedDefinitions(ctx context.Context, d folderSymbol) ([]relatedDef, error) {
	fe, release, err := d.f.engineOf()
	if err != nil {
		return nil, err
	}
	defer release()
	q := d.si.Name
	if doc := firstSentence(d.si.Doc); doc != "" {
		q += " " + doc
	}
	snap := fe.eng.Snapshot()
	defer snap.Release()
	res, err := snap.Search(ctx, engine.SearchRequest{Query: q, K: 2*relatedCount + 2, PerFileCap: 2})
	if err != nil {
		if errors.Is(err, engine.ErrEmptyQuery) {
			return nil, nil
		}
		return nil, fmt.Errorf("related definitions of %s: %w", d.si.Name, err)
	}
	first, last := d.si.Span.Start.Line+1, d.si.Span.End.Line+1
	var out []relatedDef
	for _, h := range res.Hits {
		if h.Path == d.si.Path && h.StartLine <= last && first <= h.EndLine {
			continue // the definition itself
		}
		if h.Kind == chunking.KindFileHeader {
			continue // a package clause and imports: not a definition
		}
		out = append(out, relatedDef{symbol: h.Symbol, kind: h.Kind, rel: h.Path, line: h.StartLine})
		if len(out) == relatedCount {
			break
		}
	}
	return out, nil
}

// firstSentence returns a doc comment's first sentence, at most 200 bytes.
func firstSentence(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	if len(doc) > 200 {
		doc = strings.ToValidUTF8(doc[:200], "")
	}
	return doc
}

// fenceLanguage names a Markdown code fence's language.
func fenceLanguage(lang string) string {
	switch lang {
	case "", "text", "markdown":
		return ""
	}
	return lang
}

// documentSymbols implements Features.DocumentSymbols: the file's
// definitions nested by their Parent links. A file the index does not
// hold (not indexable, excluded, or not reached yet) has none.
func (b *Backend) documentSymbols(ctx context.Context, h FolderHandle, p string) ([]DocumentSymbol, error) {
	f, err := handleOf(h)
	if err != nil {
		return nil, err
	}
	fe, release, err := f.engineOf()
	if err != nil {
		return nil, err
	}
	defer release()
	rel, err := fe.rel(p)
	if err != nil {
		return nil, err
	}
	snap := fe.eng.Snapshot()
	defer snap.Release()
	syms, err := snap.DocumentSymbols(rel)
	if errors.Is(err, engine.ErrNotIndexed) {
		return []DocumentSymbol{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("symbols of %s: %w", rel, err)
	}
	return symbolTree(syms), ctx.Err()
}

// symbolTree nests definitions by their Parent indexes (an index that
// does not point to an earlier definition makes a root).
func symbolTree(syms []engine.SymbolInfo) []DocumentSymbol {
	children := make([][]int, len(syms))
	var roots []int
	for i, s := range syms {
		if s.Parent >= 0 && s.Parent < i {
			children[s.Parent] = append(children[s.Parent], i)
		} else {
			roots = append(roots, i)
		}
	}
	var build func(i int) DocumentSymbol
	build = func(i int) DocumentSymbol {
		s := syms[i]
		full := spanRange(s.Span)
		sel := nameRange(s)
		if !containsRange(full, sel) {
			sel = Range{Start: full.Start, End: full.Start}
		}
		d := DocumentSymbol{Name: s.Name, Detail: s.Signature, Kind: SymbolKind(s.Kind), Range: full, SelectionRange: sel}
		for _, c := range children[i] {
			d.Children = append(d.Children, build(c))
		}
		return d
	}
	out := make([]DocumentSymbol, 0, len(roots))
	for _, i := range roots {
		out = append(out, build(i))
	}
	return out
}

func pointLess(a, b Point) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// containsRange reports whether inner lies within outer.
func containsRange(outer, inner Range) bool {
	return !pointLess(inner.Start, outer.Start) && !pointLess(outer.End, inner.End)
}

// maxWorkspaceSymbols bounds workspace/symbol results per folder.
const maxWorkspaceSymbols = 100

// workspaceSymbols implements Features.WorkspaceSymbols for one folder;
// each result carries the engine's fuzzy score, so results of several
// folders merge by it.
func (b *Backend) workspaceSymbols(ctx context.Context, h FolderHandle, query string) ([]SymbolInfo, error) {
	f, err := handleOf(h)
	if err != nil {
		return nil, err
	}
	_, snap, done, err := f.snapshotOf()
	if err != nil {
		return nil, err
	}
	defer done()
	syms, err := snap.WorkspaceSymbols(ctx, query, maxWorkspaceSymbols)
	if err != nil {
		return nil, fmt.Errorf("workspace symbols: %w", err)
	}
	out := make([]SymbolInfo, 0, len(syms))
	for _, si := range syms {
		out = append(out, SymbolInfo{
			Name: si.Name, Kind: SymbolKind(si.Kind), Container: si.Container,
			Location: Location{Path: f.abs(si.Path), Range: nameRange(si)},
			Score:    float64(engine.SymbolScore(query, si.Name)),
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
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
