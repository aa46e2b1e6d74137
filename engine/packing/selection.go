package packing

// The candidates of a selection: the selection itself, and the
// definitions of the names it uses, resolved as the graph resolves them.

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/symbols"
)

// selection adds the candidates a selection brings: definitions of the
// identifiers it uses, docs mentioning its symbols, co-changed files.
func (g *gatherer) selection(ctx context.Context, sel Selection) error {
	rel, err := g.s.Workspace().Resolve(sel.Path)
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
		return fmt.Errorf("%s:%d-%d (file has %d lines): %w", rel, sel.StartLine, sel.EndLine, len(lines), engine.ErrBadSelection)
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

// selectedSymbols returns the definitions overlapping the selection, in
// source order (an enclosing definition before those it contains).
func (g *gatherer) selectedSymbols(rel string, sel Selection) ([]engine.SymbolInfo, error) {
	syms, err := g.symbols(rel)
	if errors.Is(err, engine.ErrNotIndexed) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []engine.SymbolInfo
	for _, si := range syms {
		a, b := si.Span.Start.Line+1, si.Span.End.Line+1
		if a <= sel.EndLine && sel.StartLine <= b {
			out = append(out, si)
		}
	}
	return out, nil
}

// selectionLabel names a selection by the innermost definition holding it
// all (a method, not its class), else the first definition inside it.
func selectionLabel(defs []engine.SymbolInfo, sel Selection) string {
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
func innermost(defs []engine.SymbolInfo, sel Selection) []string {
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
	r := g.s.Resolver()
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
		g.addDefinition(rel, sel, engine.SymbolInfo{Path: d.Path, Language: d.Lang, Symbol: d.Symbol}, u.Name, score-0.001*float64(i), done)
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
		defs, err := g.s.ResolveName(ctx, rel, u.ident, u.qual)
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
func (g *gatherer) addDefinition(rel string, sel Selection, d engine.SymbolInfo, name string, score float64, done map[string]bool) {
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
	g.withoutMembers(&c, a, b) // the methods the selection calls come on their own
	g.add(c)
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
