package chunking

import (
	"fmt"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// Code chunks a parsed source file, one chunk per definition:
//
//   - A definition's chunk runs from its doc comment (Symbol.FullSpan) to the
//     end of its last line. Kind is the symbol kind, Label the qualified
//     name; definitions sharing one declaration (Go "const ( … )" groups,
//     "a, b = 1, 2") are one chunk labelled with all their names.
//   - A class, struct or interface above MaxTokens, or whose members include
//     a method or nested type of at least MergeTokens tokens, is expanded:
//     the type's chunk holds its header, doc and the fields and small
//     members before that method (a head of less than MergeTokens also
//     keeps the members after it while they fit); the members from there on
//     are chunked like top-level definitions (recursively). Other types stay
//     whole.
//   - A definition above MaxTokens is split on statement boundaries found by
//     walking its syntax tree (the statements of its body, recursing into a
//     statement that is itself too big: case clauses, loop bodies, literal
//     elements) into parts of about equal size repeating OverlapLines lines.
//     Parts are labelled "Name (part i/n)" with Parent "Name"; Context holds
//     the definition's signature for the parts after the first. A multi-line
//     unit without inner structure (a long string) is cut at lines, and a
//     single line above MaxTokens (generated tables, minified code) inside
//     the line, after a space, comma or semicolon.
//   - Runs of adjacent small definitions (constants, variables, type aliases,
//     functions and methods under MergeTokens each) merge into one
//     "declarations" chunk of at most MergeTokens tokens.
//   - A unit holding several definitions (a "const ( … )" block, a header
//     inside an include guard, definitions under an "if") is one chunk when
//     it fits MaxTokens, and is otherwise chunked like top-level code.
//   - The file header (package clause, imports, file comments, module
//     docstring before the first definition) is one "file_header" chunk,
//     labelled with the file name.
//   - Comments between definitions join the definition below them (up to
//     half of MaxTokens); other
//     code outside any definition (top-level statements) is covered by line
//     windows of Kind "text", so every non-blank line lies in some chunk.
//
// Symbols lists the qualified names of the definitions a chunk belongs to or
// fully contains. Text is always the exact slice src[StartByte:EndByte].
// Without a syntax tree (a closed File) chunks follow the symbols alone and
// large definitions are cut at lines. A nil File yields no chunks.
func Code(path string, f *symbols.File, opts Options) []Chunk {
	if f == nil || len(f.Source) == 0 {
		return nil
	}
	c := newCoder(path, f, opts)
	defer c.close()
	top := c.indexSymbols()
	return c.top(c.buildUnits(c.root, top, 0, len(c.src)), 0, len(c.src))
}

// newCoder prepares the chunking of f; close it when done.
func newCoder(path string, f *symbols.File, opts Options) *coder {
	lang := ""
	if f.Lang != nil {
		lang = f.Lang.Name
	}
	c := &coder{doc: newDoc(path, lang, f.Source, opts), syms: f.Symbols, language: f.Lang}
	if f.Tree != nil {
		c.root = f.Tree.RootNode()
		c.cursor = sitter.NewTreeCursor(c.root)
	}
	return c
}

func (c *coder) close() {
	if c.cursor != nil {
		c.cursor.Close()
	}
}

// top chunks the top-level units us, which cover [lo, hi) of the file: the
// file header first when lo is its start.
func (c *coder) top(us []unit, lo, hi int) []Chunk {
	out := c.stream(c.root, us, lo, hi, true)
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartByte < out[j].StartByte })
	c.addContained(out)
	return out
}

// coder chunks one parsed file.
type coder struct {
	*doc
	language *symbols.Language
	syms     []symbols.Symbol
	valid    []bool  // the symbol's spans lie inside the source
	children [][]int // direct children of every symbol
	root     *sitter.Node
	cursor   *sitter.TreeCursor
}

// unit is a definition (or several sharing one declaration) with its range.
type unit struct {
	start, end int
	prims      []int // the symbols the unit defines
	units      int   // token estimate in fixed-point units
}

// Kinds that may merge into a declarations chunk, kinds of definitions whose
// members may be chunked apart, and kinds of members that get chunks of
// their own when large.
var (
	mergeKinds = map[symbols.Kind]bool{
		symbols.KindConst: true, symbols.KindVar: true, symbols.KindType: true,
		symbols.KindFunction: true, symbols.KindMethod: true, symbols.KindConstructor: true,
		symbols.KindMacro: true, symbols.KindField: true,
	}
	containerKinds = map[symbols.Kind]bool{
		symbols.KindClass: true, symbols.KindStruct: true, symbols.KindInterface: true,
		symbols.KindTrait: true, symbols.KindEnum: true, symbols.KindModule: true,
	}
	memberKinds = map[symbols.Kind]bool{
		symbols.KindFunction: true, symbols.KindMethod: true, symbols.KindConstructor: true,
		symbols.KindClass: true, symbols.KindStruct: true, symbols.KindInterface: true,
		symbols.KindTrait: true, symbols.KindEnum: true, symbols.KindModule: true,
	}
)

// indexSymbols validates the symbols, records their children and returns
// the top-level ones.
func (c *coder) indexSymbols() []int {
	n := len(c.src)
	c.valid = make([]bool, len(c.syms))
	c.children = make([][]int, len(c.syms))
	for i, s := range c.syms {
		fs := s.FullSpan()
		c.valid[i] = s.Span.StartByte >= 0 && s.Span.EndByte <= n && s.Span.StartByte < s.Span.EndByte &&
			fs.StartByte >= 0 && fs.StartByte <= s.Span.StartByte
	}
	var top []int
	for i, s := range c.syms {
		if !c.valid[i] {
			continue
		}
		if p := s.Parent; p >= 0 && p < len(c.syms) && p != i && c.valid[p] {
			c.children[p] = append(c.children[p], i)
		} else {
			top = append(top, i)
		}
	}
	return top
}

// point converts a byte offset to a tree-sitter point.
func (c *coder) point(off int) sitter.Point {
	l := max(c.lineOf(off), 0)
	return sitter.Point{Row: uint32(l), Column: uint32(off - c.lineStart(l))}
}

// namedChildrenIn lists the named children of n that overlap [s, e),
// skipping the children before s without visiting them one by one.
func (c *coder) namedChildrenIn(n *sitter.Node, s, e int) []*sitter.Node {
	var out []*sitter.Node
	c.cursor.Reset(n)
	if c.cursor.GoToFirstChildForByte(uint32(s)) < 0 {
		return nil
	}
	for {
		k := c.cursor.CurrentNode()
		if k == nil || int(k.StartByte()) >= e {
			break
		}
		if k.IsNamed() && int(k.EndByte()) > s {
			out = append(out, k)
		}
		if !c.cursor.GoToNextSibling() {
			break
		}
	}
	return out
}

// childAt returns the child of body that contains offset off, or nil.
func (c *coder) childAt(body *sitter.Node, off int) *sitter.Node {
	c.cursor.Reset(body)
	if c.cursor.GoToFirstChildForByte(uint32(off)) < 0 {
		return nil
	}
	for {
		k := c.cursor.CurrentNode()
		if k == nil || int(k.StartByte()) > off {
			return nil
		}
		if int(k.EndByte()) > off {
			return k
		}
		if !c.cursor.GoToNextSibling() {
			return nil
		}
	}
}

// buildUnits groups the symbols members (siblings under body) into units by
// the child of body that holds them, clamped to [lo, hi), sorted, without
// overlaps and widened to whole lines where nothing else shares the line.
func (c *coder) buildUnits(body *sitter.Node, members []int, lo, hi int) []unit {
	byNode := map[uint32]int{} // child start → index in us
	var us []unit
	for _, i := range members {
		s := c.syms[i]
		start, end := s.FullSpan().StartByte, s.Span.EndByte
		var k *sitter.Node
		if body != nil {
			k = c.childAt(body, s.Span.StartByte)
		}
		if k != nil {
			if j, ok := byNode[k.StartByte()]; ok {
				u := &us[j]
				u.prims = append(u.prims, i)
				u.start, u.end = min(u.start, start), max(u.end, end)
				continue
			}
			start, end = min(start, int(k.StartByte())), max(end, int(k.EndByte()))
			byNode[k.StartByte()] = len(us)
		}
		us = append(us, unit{start: start, end: end, prims: []int{i}})
	}
	for i := range us {
		us[i].start, us[i].end = max(us[i].start, lo), min(us[i].end, hi)
	}
	sort.SliceStable(us, func(i, j int) bool { return us[i].start < us[j].start })
	// Drop overlaps: a unit inside the previous one joins it.
	var out []unit
	for _, u := range us {
		if u.start >= u.end {
			continue
		}
		if len(out) > 0 {
			p := &out[len(out)-1]
			if u.start < p.end {
				if u.end <= p.end {
					p.prims = append(p.prims, u.prims...)
					continue
				}
				u.start = p.end
			}
		}
		out = append(out, u)
	}
	// Whole lines: start at the line start when only indentation precedes,
	// end at the line end when no other unit starts later on that line.
	prevEnd := lo
	for i := range out {
		u := &out[i]
		if ls := c.lineStart(c.lineOf(u.start)); ls >= prevEnd && blankBytes(c.src[ls:u.start]) {
			u.start = ls
		}
		le := c.lineEnd(c.lineOf(u.end - 1))
		if le > u.end && le <= hi && (i+1 == len(out) || out[i+1].start >= le) {
			u.end = le
		}
		prevEnd = u.end
		u.units = c.units(u.start, u.end)
	}
	return out
}

// names returns the qualified names of symbols, without repeats.
func (c *coder) names(idx []int) []string {
	var out []string
	seen := map[string]bool{}
	for _, i := range idx {
		if n := c.syms[i].QualifiedName(); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// joinLabel names a group of definitions, shortened past about 60 bytes.
func joinLabel(names []string) string {
	label := ""
	for i, n := range names {
		next := label
		if i > 0 {
			next += ", "
		}
		next += n
		if i > 0 && len(next) > 60 {
			return fmt.Sprintf("%s, … (%d names)", label, len(names))
		}
		label = next
	}
	return label
}

// unitKind is the kind of a unit's first symbol.
func (c *coder) unitKind(u unit) string { return string(c.syms[u.prims[0]].Kind) }

// context is the signature of a unit's first symbol, else its first line.
func (c *coder) context(u unit) string {
	if sig := c.syms[u.prims[0]].Signature; sig != "" {
		return sig
	}
	s, e, ok := c.trim(u.start, u.end)
	if !ok {
		return ""
	}
	line := c.src[s:min(e, c.lineEnd(c.lineOf(s)))]
	return strings.TrimSpace(strings.ToValidUTF8(string(line[:min(len(line), 200)]), "\uFFFD"))
}

// mergeable reports a small unit of declarations that may join neighbours.
func (c *coder) mergeable(u unit) bool {
	if u.units >= c.opts.MergeTokens*tokenUnit {
		return false
	}
	for _, p := range u.prims {
		if !mergeKinds[c.syms[p].Kind] {
			return false
		}
	}
	return true
}

// bigMember reports a member unit that gets chunks of its own when its
// container is expanded.
func (c *coder) bigMember(u unit) bool {
	return u.units >= c.opts.MergeTokens*tokenUnit && memberKinds[c.syms[u.prims[0]].Kind]
}

// own sets the Symbols of chunks to the names of their owning definitions.
func (c *coder) own(chunks []Chunk, owners []int) []Chunk {
	if len(owners) == 0 {
		return chunks
	}
	names := c.names(owners)
	for i := range chunks {
		chunks[i].Symbols = append([]string(nil), names...)
	}
	return chunks
}

// stream chunks a sequence of sibling units in [lo, hi): the file header
// (top level, from the file's start), each unit or merged run of small units,
// and the code between them.
func (c *coder) stream(body *sitter.Node, us []unit, lo, hi int, top bool) []Chunk {
	var out []Chunk
	pos := lo
	if top && lo == 0 {
		first := hi
		if len(us) > 0 {
			first = us[0].start
		}
		if he := c.headerEnd(body, lo, first); he > lo {
			pieces := c.pack(lo, he, c.refine(lo, he), packing{refine: c.refine})
			out = append(out, c.parts(KindFileHeader, c.fileLabel(), "", pieces)...)
			pos = he
		}
	}

	var group []unit
	groupUnits := 0
	flush := func() {
		switch len(group) {
		case 0:
		case 1:
			out = append(out, c.emitUnit(group[0])...)
		default:
			var prims []int
			for _, g := range group {
				prims = append(prims, g.prims...)
			}
			if ch, ok := c.emit(KindDeclarations, joinLabel(c.names(prims)), group[0].start, group[len(group)-1].end); ok {
				out = append(out, c.own([]Chunk{ch}, prims)...)
			}
		}
		group, groupUnits = nil, 0
	}

	for i := range us {
		u := us[i]
		if u.start > pos {
			// Code before the definition gets windows; the comments right
			// above it (up to half a chunk) go with it.
			m := c.commentTail(body, pos, u.start)
			if !top && c.units(pos, m) <= c.smallGap() {
				m = pos // a line such as "#ifndef X" goes with what follows
			}
			if _, _, ok := c.trim(pos, m); ok {
				flush()
				out = append(out, c.gap(pos, m)...)
			}
			if s, _, ok := c.trim(m, u.start); ok {
				if c.units(m, u.start) <= c.opts.MaxTokens*tokenUnit/2 {
					u.start = s
					u.units = c.units(u.start, u.end)
				} else {
					flush()
					out = append(out, c.gap(m, u.start)...)
				}
			}
		}
		if c.mergeable(u) {
			if groupUnits+u.units > c.opts.MergeTokens*tokenUnit {
				flush()
			}
			group = append(group, u)
			groupUnits += u.units
		} else {
			flush()
			out = append(out, c.emitUnit(u)...)
		}
		pos = max(pos, u.end)
	}
	flush()

	if s, e, ok := c.trim(pos, hi); ok {
		// A container's closing brackets, or a little code after its last
		// member ("#endif"), join its last chunk when that still fits.
		joined := false
		if len(out) > 0 && (closingOnly(c.src[s:e]) || (!top && c.units(s, e) <= c.smallGap())) {
			last := &out[len(out)-1]
			if ch, ok := c.emit(last.Kind, last.Label, last.StartByte, e); ok && ch.Tokens <= max(c.opts.MaxTokens, last.Tokens) {
				ch.Parent, ch.Part, ch.Parts, ch.Context, ch.Symbols = last.Parent, last.Part, last.Parts, last.Context, last.Symbols
				*last = ch
				joined = true
			}
		}
		if !joined {
			out = append(out, c.gap(pos, hi)...)
		}
	}
	return out
}

// smallGap is the size, in token units, up to which code between the
// members of a container joins a neighbouring chunk instead of getting a
// window of its own: a quarter of MergeTokens.
func (c *coder) smallGap() int { return c.opts.MergeTokens * tokenUnit / 4 }

// closingOnly reports text made only of closing brackets, separators and
// "end" keywords.
func closingOnly(b []byte) bool {
	for _, f := range strings.Fields(string(b)) {
		if strings.Trim(f, "})];,") != "" && f != "end" && f != "end;" {
			return false
		}
	}
	return true
}

// gap covers code outside any definition with line windows. Code that
// shares long lines with definitions (between the functions of a minified
// bundle's one line) is covered by its own bytes, cut like a long line:
// windows of its whole lines would repeat the line once per gap, quadratic
// in the line's length. There, separators and closing brackets alone get
// no chunk: the definitions' chunks cover their lines.
func (c *coder) gap(s, e int) []Chunk {
	s, e, ok := c.trim(s, e)
	if !ok {
		return nil
	}
	a, b := c.lineOf(s), c.lineOf(e-1)
	if s-c.lineStart(a)+c.lineEnd(b)-e <= c.maxOverhang() {
		return c.windows(KindText, a, b+1)
	}
	if closingOnly(c.src[s:e]) {
		return nil
	}
	label := fmt.Sprintf("line %d", a+1)
	if b > a {
		label = fmt.Sprintf("lines %d-%d", a+1, b+1)
	}
	return c.parts(KindText, label, "", c.pack(s, e, c.textCuts(s, e), packing{}))
}

// maxOverhang is how many bytes of its lines outside a gap a window may
// repeat: about one chunk of dense code.
func (c *coder) maxOverhang() int { return c.opts.MaxTokens * 4 }

// commentTail returns where the run of comments that ends [s, e) begins:
// the end of the last other child of body in the range, or s. Without a tree
// nothing is known to be a comment and e is returned.
func (c *coder) commentTail(body *sitter.Node, s, e int) int {
	if body == nil {
		return e
	}
	m := s
	for _, k := range c.namedChildrenIn(body, s, e) {
		if !strings.Contains(k.Type(), "comment") {
			m = max(m, min(int(k.EndByte()), e))
		}
	}
	return m
}

// headerEnd returns the end of the file header: the run of package clauses,
// imports, comments and a module docstring at the start of the file, before
// first (the first definition). lo is returned when there is none.
func (c *coder) headerEnd(body *sitter.Node, lo, first int) int {
	if body == nil {
		return lo
	}
	end := lo
	for _, k := range c.namedChildrenIn(body, lo, first) {
		ks := int(k.StartByte())
		if ks >= first {
			break
		}
		if !c.headerNode(k) {
			break
		}
		end = min(int(k.EndByte()), first)
	}
	return end
}

// headerNode reports node types that belong to a file header.
func (c *coder) headerNode(n *sitter.Node) bool {
	t := n.Type()
	for _, h := range []string{"comment", "import", "package", "use_declaration", "extern_crate", "include", "using_directive", "namespace_use", "library", "require"} {
		if strings.Contains(t, h) {
			return true
		}
	}
	if header, ok := c.language.HeaderNode(n, c.src); ok {
		return header // a language whose imports are not told by their node types
	}
	if t == "expression_statement" && n.NamedChildCount() == 1 {
		// A module docstring.
		k := n.NamedChild(0)
		return k != nil && strings.Contains(k.Type(), "string")
	}
	return false
}

// emitUnit chunks one definition: expanded into members, whole, or in parts.
func (c *coder) emitUnit(u unit) []Chunk {
	if len(u.prims) == 1 && c.root != nil {
		if out, ok := c.expand(u); ok {
			return out
		}
	}
	if len(u.prims) > 1 && c.root != nil && u.units > c.opts.MaxTokens*tokenUnit {
		if out, ok := c.transparent(u); ok {
			return out
		}
	}
	kind, label := c.unitKind(u), joinLabel(c.names(u.prims))
	if u.units <= c.opts.MaxTokens*tokenUnit {
		if ch, ok := c.emit(kind, label, u.start, u.end); ok {
			return c.own([]Chunk{ch}, u.prims)
		}
		return nil
	}
	return c.own(c.parts(kind, label, c.context(u), c.packUnit(u)), c.partOwners(u))
}

// partOwners are the symbols every part of a split unit belongs to: its
// definition, unless the unit groups several (a long const block), whose
// parts list only the names they contain.
func (c *coder) partOwners(u unit) []int {
	if len(u.prims) == 1 {
		return u.prims
	}
	return nil
}

// expand chunks a type with large members: its header chunk, then its
// members from the first large one on. ok is false when the unit has no
// large member.
func (c *coder) expand(u unit) ([]Chunk, bool) {
	p := u.prims[0]
	members := c.children[p]
	if len(members) == 0 || !containerKinds[c.syms[p].Kind] {
		return nil, false
	}
	body := c.memberBody(members)
	mus := c.buildUnits(body, members, u.start, u.end)
	first := -1
	for i, m := range mus {
		if c.bigMember(m) {
			first = i
			break
		}
	}
	if first < 0 {
		if u.units <= c.opts.MaxTokens*tokenUnit || len(mus) == 0 {
			return nil, false
		}
		first = 0 // too big as a whole: members apart, small ones merged
	}
	if mus[first].start <= u.start {
		return nil, false
	}
	// A head of little more than the type's name keeps the members after it
	// while they fit.
	headEnd := mus[first].start
	for first < len(mus) && c.units(u.start, headEnd) < c.opts.MergeTokens*tokenUnit &&
		c.units(u.start, mus[first].end) <= c.opts.MaxTokens*tokenUnit {
		headEnd = mus[first].end
		first++
	}
	if first == len(mus) {
		return nil, false // everything fits the head: the type is one chunk
	}
	// Code between the head and the next member (class attributes) joins
	// the head; comments right above the member stay with it.
	headEnd = c.commentTail(body, headEnd, mus[first].start)
	head := unit{start: u.start, end: headEnd, prims: u.prims}
	head.units = c.units(head.start, head.end)
	kind, label := c.unitKind(u), joinLabel(c.names(u.prims))
	var out []Chunk
	if head.units <= c.opts.MaxTokens*tokenUnit {
		if ch, ok := c.emit(kind, label, head.start, head.end); ok {
			out = c.own([]Chunk{ch}, u.prims)
		}
	} else {
		out = c.own(c.parts(kind, label, c.context(u), c.packUnit(head)), c.partOwners(u))
	}
	return append(out, c.stream(body, mus[first:], headEnd, u.end, false)...), true
}

// transparent chunks a unit above MaxTokens that holds several definitions
// (a long const block, an include guard or "#ifdef" around a whole header,
// definitions under "if TYPE_CHECKING:") like top-level code: each
// definition on its own, small ones merged, the code around them in
// windows. ok is false when the definitions cannot be told apart.
func (c *coder) transparent(u unit) ([]Chunk, bool) {
	lo, hi := c.syms[u.prims[0]].Span.StartByte, c.syms[u.prims[0]].Span.EndByte
	for _, p := range u.prims[1:] {
		lo, hi = min(lo, c.syms[p].Span.StartByte), max(hi, c.syms[p].Span.EndByte)
	}
	body := c.root.NamedDescendantForPointRange(c.point(lo), c.point(hi))
	if body == nil {
		return nil, false
	}
	subs := c.buildUnits(body, u.prims, u.start, u.end)
	if len(subs) < 2 {
		return nil, false
	}
	return c.stream(body, subs, u.start, u.end, false), true
}

// memberBody returns the node whose children hold the member symbols: the
// smallest node spanning them all that is not a member itself.
func (c *coder) memberBody(members []int) *sitter.Node {
	lo, hi := c.syms[members[0]].Span.StartByte, c.syms[members[0]].Span.EndByte
	for _, m := range members[1:] {
		lo, hi = min(lo, c.syms[m].Span.StartByte), max(hi, c.syms[m].Span.EndByte)
	}
	n := c.root.NamedDescendantForPointRange(c.point(lo), c.point(hi))
	for n != nil && len(members) == 1 && int(n.StartByte()) >= lo && int(n.EndByte()) <= hi {
		n = n.Parent()
	}
	return n
}

// packUnit cuts a definition above MaxTokens into parts on statement
// boundaries, about equal in size, repeating OverlapLines lines.
func (c *coder) packUnit(u unit) []piece {
	return c.pack(u.start, u.end, c.refine(u.start, u.end), packing{refine: c.refine, balance: c.structure, overlap: true})
}

// structure proposes cut points inside [s, e) on statement boundaries only.
// Cuts are line starts: a range inside one line has none, and its nodes
// (a minified function's statements) are not visited.
func (c *coder) structure(s, e int) []int {
	ts, te, ok := c.trim(s, e)
	if !ok || c.root == nil || c.lineOf(ts) == c.lineOf(te-1) {
		return nil
	}
	return c.nodeCuts(c.root.NamedDescendantForPointRange(c.point(ts), c.point(te)), s, e)
}

// refine proposes cut points inside [s, e) on statement boundaries: the
// line-starting named children of the smallest node spanning the range, or
// of its largest child when none starts a line, recursively. Without such
// structure a multi-line range is cut at lines, and a single line (generated
// data, minified code) inside the line after a space, comma or semicolon.
func (c *coder) refine(s, e int) []int {
	if cuts := c.structure(s, e); len(cuts) > 0 {
		return cuts
	}
	if ts, te, ok := c.trim(s, e); ok {
		return c.textCuts(ts, te)
	}
	return nil
}

// nodeCuts returns the line starts of the named children of n (or of its
// largest child, descending) that begin a line strictly inside (s, e). A
// child directly below a comment is not cut from it.
func (c *coder) nodeCuts(n *sitter.Node, s, e int) []int {
	for depth := 0; n != nil && depth < maxPackDepth; depth++ {
		var cuts []int
		var largest, prev *sitter.Node
		for _, k := range c.namedChildrenIn(n, s, e) {
			ks, ke := int(k.StartByte()), int(k.EndByte())
			ls := c.lineStart(c.lineOf(ks))
			glued := prev != nil && strings.Contains(prev.Type(), "comment") &&
				int(prev.EndPoint().Row)+1 >= int(k.StartPoint().Row)
			if ls > s && ls < e && blankBytes(c.src[ls:ks]) && !glued && (len(cuts) == 0 || ls > cuts[len(cuts)-1]) {
				cuts = append(cuts, ls)
			}
			if largest == nil || ke-ks > int(largest.EndByte()-largest.StartByte()) {
				largest = k
			}
			prev = k
		}
		if len(cuts) > 0 {
			return cuts
		}
		n = largest
	}
	return nil
}

// addContained adds to every chunk's Symbols the definitions it contains
// entirely, in source order.
func (c *coder) addContained(chunks []Chunk) {
	order := make([]int, 0, len(c.syms))
	for i := range c.syms {
		if c.valid[i] {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return c.syms[order[a]].Span.StartByte < c.syms[order[b]].Span.StartByte })
	for ci := range chunks {
		ch := &chunks[ci]
		seen := map[string]bool{}
		for _, n := range ch.Symbols {
			seen[n] = true
		}
		j := sort.Search(len(order), func(k int) bool { return c.syms[order[k]].Span.StartByte >= ch.StartByte })
		for ; j < len(order) && c.syms[order[j]].Span.StartByte < ch.EndByte; j++ {
			s := c.syms[order[j]]
			if s.Span.EndByte > ch.EndByte {
				continue
			}
			if n := s.QualifiedName(); !seen[n] {
				seen[n] = true
				ch.Symbols = append(ch.Symbols, n)
			}
		}
	}
}

// File chunks a file the way the engine does: with Code when it was parsed
// (f not nil), else with Text under the language's name (lang may be nil
// when the language is unknown).
func File(path string, lang *symbols.Language, f *symbols.File, src []byte, opts Options) []Chunk {
	if f != nil {
		return Code(path, f, opts)
	}
	name := ""
	if lang != nil {
		name = lang.Name
	}
	return Text(path, name, src, opts)
}
