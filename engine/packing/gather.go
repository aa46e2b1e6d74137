package packing

// What every source of candidates shares: the candidate list (a selection
// is never its own context), the files' current lines, a class shown
// without its methods.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/symbols"
)

// gatherer collects candidates for one pack.
type gatherer struct {
	s     *engine.Snapshot
	cands []packs.Candidate
	notes []string
	sel   Selection   // the selection being gathered for
	sels  []Selection // every selection so far
	// selText is the selected text.
	selText string
	// files caches file contents split into lines (with their "\n").
	files map[string][]string
	// defs caches the indexed definitions of files, by path.
	defs map[string]fileSymbols
}

type fileSymbols struct {
	syms []engine.SymbolInfo
	err  error
}

// symbols returns the indexed definitions of rel (Snapshot.DocumentSymbols),
// read once per pack: query hits, graph neighbours and selections ask for
// the same files.
func (g *gatherer) symbols(rel string) ([]engine.SymbolInfo, error) {
	if fs, ok := g.defs[rel]; ok {
		return fs.syms, fs.err
	}
	syms, err := g.s.DocumentSymbols(rel)
	if g.defs == nil {
		g.defs = map[string]fileSymbols{}
	}
	g.defs[rel] = fileSymbols{syms, err}
	return syms, err
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
	if f, err := g.s.File(rel); err == nil {
		return f.Language
	}
	return ""
}

// withoutMembers makes c, a class or type spanning lines start..end, its
// own lines — header, doc, attributes — with its methods elided: they are
// items of their own when they bear on the task, and a class with every
// method would crowd them out. Other kinds are left as they are.
func (g *gatherer) withoutMembers(c *packs.Candidate, start, end int) {
	if !containerKind(c.Kind) {
		return
	}
	if own, elided, ok := g.ownLines(c.Path, c.Language, start, end); ok {
		c.Text, c.StartLine, c.EndLine, c.Tokens, c.Members = own, start, end, 0, elided
	}
}

// ownLines returns lines start..end (1-based) of rel — a class or type —
// without those of the definitions inside it: each run of their lines
// becomes one "… N lines elided" line; elided says whether there was any.
// It reports false when rel cannot be read as indexed.
func (g *gatherer) ownLines(rel, lang string, start, end int) (text string, elided, ok bool) {
	syms, err := g.symbols(rel)
	if err != nil {
		return "", false, false
	}
	lines, err := g.lines(rel)
	if err != nil || start < 1 || end > len(lines) || start > end {
		return "", false, false
	}
	inner := make([]bool, end-start+1)
	for _, si := range syms {
		a, b := si.FullSpan().Lines()
		if si.Kind == symbols.KindField || a <= start || b > end {
			continue
		}
		for n := a; n <= b; n++ {
			inner[n-start] = true
		}
	}
	// Blank lines between two definitions go with them: one marker for
	// methods that follow one another.
	for i := 0; i < len(inner); i++ {
		if inner[i] || strings.TrimSpace(lines[start-1+i]) != "" || i == 0 || !inner[i-1] {
			continue
		}
		j := i
		for j < len(inner) && !inner[j] && strings.TrimSpace(lines[start-1+j]) == "" {
			j++
		}
		if j < len(inner) && inner[j] {
			for k := i; k < j; k++ {
				inner[k] = true
			}
		}
		i = j
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
