package symbols

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// Limits on the text copied into a Symbol.
const (
	// MaxSignatureBytes caps Symbol.Signature; longer headers are cut at a
	// rune boundary and end in "…".
	MaxSignatureBytes = 300
	// MaxDocBytes caps Symbol.Doc; longer doc comments are cut at a rune
	// boundary and end in "…". DocSpan still covers the whole comment.
	MaxDocBytes = 4096
)

// capRole says what a query capture contributes to a definition.
type capRole uint8

const (
	roleAux  capRole = iota // a helper node for the language hooks
	roleDef                 // the definition node; its capture name is the Kind
	roleName                // the defining identifier
)

// capture is the decoded meaning of one query capture name.
type capture struct {
	role capRole
	kind Kind
	name string
}

var allKinds = map[string]Kind{}

func init() {
	for _, k := range []Kind{KindFunction, KindMethod, KindConstructor, KindClass, KindStruct,
		KindInterface, KindTrait, KindEnum, KindType, KindModule, KindConst, KindVar, KindField, KindMacro} {
		allKinds[string(k)] = k
	}
}

func parseCapture(name string) capture {
	if k, ok := allKinds[name]; ok {
		return capture{role: roleDef, kind: k, name: name}
	}
	if name == "name" {
		return capture{role: roleName, name: name}
	}
	return capture{role: roleAux, name: name}
}

// langSpec is the per-language part of extraction: the definitions query
// and small hooks for what a query cannot express.
type langSpec struct {
	// query captures each definition node as @<kind> with its identifier
	// as @name; other captures are passed to the hooks as aux nodes.
	query string
	// scopes and prune let the query skip function bodies: the tree is
	// walked from the root through scope node types (classes, namespaces,
	// wrappers; ERROR always), and the bodies of prune node types found on
	// the way are left out of the query's range. Definitions nested inside
	// those function bodies are therefore not listed, which keeps
	// extraction proportional to the declarations rather than to all code.
	// The walk also records every direct child of a scope with its parent,
	// which the hooks use to keep file- and class-level declarations
	// (x.atFileLevel, x.parentType) without anchoring query patterns on
	// scope nodes: an anchored pattern would be re-matched against every
	// child of its anchor for each query range.
	// prune maps a node type to the field holding the part to skip; ""
	// means the body (see bodyOf). Large initialisers (Go var tables, C
	// arrays) are pruned the same way.
	scopes map[string]bool
	prune  map[string]string
	// prepare adjusts a freshly captured definition (outer node, kind,
	// container override, signature node). Returning false drops it.
	prepare func(x *extractor, d *def) bool
	// finish runs once parents are known: it may change the kind (methods,
	// constructors) and must set d.exported.
	finish func(x *extractor, d *def)
	// names returns every name node a definition declares when there can
	// be several (Go "const a, b = 1, 2"); nil means just the @name capture.
	names func(x *extractor, d *def) []*sitter.Node
	// post may filter or adjust the collected definitions before they are
	// sorted and nested.
	post func(x *extractor)
	// mark receives the captures of a match without a definition (export
	// lists and the like) and may record names with x.mark.
	mark func(x *extractor, aux map[string]*sitter.Node)
	// sigText, when set, may replace the whole signature (returning
	// false keeps the default).
	sigText func(x *extractor, d *def) (string, bool)
	// sigEnd returns the byte offset where the signature ends, or -1 to use
	// the default (start of the "body" field, else the end of the node).
	sigEnd func(x *extractor, d *def) int
	// bodyTypes lists body node types for grammars without a "body"
	// field (Kotlin); the signature ends where the first one starts.
	bodyTypes map[string]bool
	// skipAtSigStart lists node types (decorators, annotations, attributes)
	// skipped at the start of the signature; "modifiers"-like wrappers in
	// wrapAtSigStart are descended into.
	skipAtSigStart map[string]bool
	wrapAtSigStart map[string]bool
	// extendStart lists sibling node types directly before the outer node
	// that belong to the definition (Rust attributes).
	extendStart map[string]bool
	// foldsTrivia marks grammars whose nodes start with the trivia before
	// them: tjdevries' Lua grammar folds the white space before a
	// statement into its first token and the doc comment above a
	// definition into the definition node. Spans then start after the
	// leading comment children and white space, and names skip white space.
	foldsTrivia bool
	doc         docRules
	// spliceable lists the node types of top-level declarations that are
	// self-contained: the definitions extracted from one (and, where the
	// graph agrees, its calls) depend on nothing outside it. An edit
	// confined to such declarations re-extracts them alone (Splice);
	// "comment" and white space between them always qualify.
	spliceable map[string]bool
}

// def is a definition under construction.
type def struct {
	node     *sitter.Node // the captured definition node
	nameNode *sitter.Node
	aux      map[string]*sitter.Node
	kind     Kind
	name     string

	// outer is the node whose range is the Span: node itself, or a wrapper
	// that carries decorators, export keywords or template headers.
	outer *sitter.Node
	// sigNode is where the signature starts (before skipping decorators).
	sigNode *sitter.Node
	// sigPrefix is prepended to the signature (the keyword of a Go group).
	sigPrefix string
	// containerOverride, when set, names the container regardless of
	// syntactic nesting (Go receivers, C++ Foo::bar, Rust impl blocks).
	containerOverride string
	hasOverride       bool
	// dropped marks a definition local to a function body.
	dropped  bool
	exported bool

	span   Span
	parent int // index into extractor.defs, -1 if none
	qual   string
}

// extractor holds the state of one extraction run.
type extractor struct {
	lang *Language
	src  []byte
	tree *sitter.Tree
	defs []*def
	// topNames records module-level names already defined, so a rebinding
	// (x = 1 … x = 2) yields one symbol.
	topNames map[string]bool
	// scopeTab and scopeIdx record the named children of walked scopes
	// (see langSpec.scopes).
	scopeTab []scopeEntry
	scopeIdx map[[2]uint32]int32
	// access caches C++ access specifiers per class body start.
	access map[uint32][]accessMark
	// marks holds names a language hook flagged (exported by a list).
	marks map[string]bool
	// lines holds the start offset of every line (lineStart), built on
	// first use.
	lines []int
}

// mark flags a name for the finish hook.
func (x *extractor) mark(name string) {
	if x.marks == nil {
		x.marks = make(map[string]bool)
	}
	x.marks[name] = true
}

// marked reports whether name was flagged with mark.
func (x *extractor) marked(name string) bool { return x.marks[name] }

// firstAtTop reports whether d is the first top-level definition of its name
// and records it.
func (x *extractor) firstAtTop(d *def) bool {
	if x.topNames == nil {
		x.topNames = make(map[string]bool)
	}
	if x.topNames[d.name] {
		return false
	}
	x.topNames[d.name] = true
	return true
}

// extract runs the language's definitions query over tree and turns the
// matches into Symbols.
func extract(ctx context.Context, lang *Language, src []byte, tree *sitter.Tree) ([]Symbol, error) {
	syms, _, err := extractIn(ctx, lang, src, tree, nil)
	return syms, err
}

// extractIn is extract of the definitions inside splice s of the new
// source only, when s is not nil; their Parent indices are relative to
// the result. ok is false when a definition straddles the splice's ends.
func extractIn(ctx context.Context, lang *Language, src []byte, tree *sitter.Tree, s *Splice) (syms []Symbol, ok bool, err error) {
	spec := lang.spec
	x := &extractor{lang: lang, src: src, tree: tree}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	root := tree.RootNode()
	seen := make(map[[3]uint32]bool)
	n := 0
	var lo, hi sitter.Point
	if s != nil {
		lo, hi = s.Points(src)
	}
	for _, seg := range x.segments(root, s) {
		if s != nil {
			var in bool
			if seg, in = clipSegment(seg, lo, hi); !in {
				continue
			}
		}
		qc.SetPointRange(seg.start, seg.end)
		qc.Exec(lang.query, root)
		for ; ; n++ {
			if n%512 == 511 {
				if err := ctx.Err(); err != nil {
					return nil, false, fmt.Errorf("symbols: extract %s: %w", lang.Name, err)
				}
			}
			m, more := qc.NextMatch()
			if !more {
				break
			}
			x.match(m, seen)
		}
	}
	if s != nil {
		kept := x.defs[:0]
		for _, d := range x.defs {
			switch {
			case d.span.StartByte >= s.Start && d.span.EndByte <= s.NewEnd:
				kept = append(kept, d)
			case d.span.EndByte > s.Start && d.span.StartByte < s.NewEnd:
				return nil, false, nil
			}
		}
		x.defs = kept
	}
	if spec.post != nil {
		spec.post(x)
	}
	sort.SliceStable(x.defs, func(i, j int) bool {
		a, b := x.defs[i], x.defs[j]
		if a.span.StartByte != b.span.StartByte {
			return a.span.StartByte < b.span.StartByte
		}
		if a.span.EndByte != b.span.EndByte {
			return a.span.EndByte > b.span.EndByte
		}
		return a.nameNode.StartByte() < b.nameNode.StartByte()
	})
	x.nest()
	syms = make([]Symbol, len(x.defs))
	for i, d := range x.defs {
		if spec.finish != nil {
			spec.finish(x, d)
		}
		doc, docSpan := x.docFor(d)
		syms[i] = Symbol{
			Name:      cleanText(d.name),
			Kind:      d.kind,
			Container: cleanText(x.containerOf(d)),
			Signature: x.signature(d),
			Doc:       doc,
			Span:      d.span,
			DocSpan:   docSpan,
			NameSpan:  x.nameSpan(d.nameNode),
			Exported:  d.exported,
			Parent:    d.parent,
		}
	}
	return syms, true, nil
}

// add finishes a captured definition and records it unless the language
// drops it.
func (x *extractor) add(d *def) {
	d.name = string(x.src[d.nameNode.StartByte():d.nameNode.EndByte()])
	d.outer, d.sigNode = d.node, d.node
	if x.lang.spec.prepare != nil && !x.lang.spec.prepare(x, d) {
		return
	}
	if strings.TrimSpace(d.name) == "" {
		return
	}
	x.computeSpan(d)
	x.defs = append(x.defs, d)
}

// fieldChildren returns n's children with the given field name.
func FieldChildren(n *sitter.Node, field string) []*sitter.Node {
	var out []*sitter.Node
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		if n.FieldNameForChild(i) == field {
			// The binding also reports the field for some anonymous
			// separators (the "," of "a, b"): keep named nodes only.
			if c := n.Child(i); c.IsNamed() {
				out = append(out, c)
			}
		}
	}
	return out
}

// match turns one query match into definitions.
func (x *extractor) match(m *sitter.QueryMatch, seen map[[3]uint32]bool) {
	spec, lang := x.lang.spec, x.lang
	d := &def{parent: -1}
	for _, c := range m.Captures {
		cp := lang.captures[c.Index]
		switch cp.role {
		case roleDef:
			d.node, d.kind = c.Node, cp.kind
		case roleName:
			d.nameNode = c.Node
		default:
			if d.aux == nil {
				d.aux = make(map[string]*sitter.Node, 2)
			}
			if _, dup := d.aux[cp.name]; !dup {
				d.aux[cp.name] = c.Node
			}
		}
	}
	if d.node == nil && spec.mark != nil && len(d.aux) > 0 {
		spec.mark(x, d.aux)
	}
	if d.node == nil || d.nameNode == nil {
		return
	}
	names := []*sitter.Node{d.nameNode}
	if spec.names != nil {
		if more := spec.names(x, d); len(more) > 0 {
			names = more
		}
	}
	for i, nameNode := range names {
		dd := d
		if i > 0 {
			cp := *d
			dd = &cp
		}
		dd.nameNode = nameNode
		key := [3]uint32{dd.node.StartByte(), dd.node.EndByte(), nameNode.StartByte()}
		if seen[key] {
			continue
		}
		seen[key] = true
		x.add(dd)
	}
}

// nest computes each definition's syntactic parent with a stack of open
// container spans. Definitions are sorted by start, outer first.
func (x *extractor) nest() {
	var stack []int
	dropped := false
	for i, d := range x.defs {
		for len(stack) > 0 {
			top := x.defs[stack[len(stack)-1]]
			// Names declared together (typedef a, *b) share one node and
			// are siblings, never parent and child.
			if top.node != d.node && top.span.StartByte <= d.span.StartByte && d.span.EndByte <= top.span.EndByte {
				break
			}
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			d.parent = stack[len(stack)-1]
			if IsFunctionKind(x.defs[d.parent].kind) {
				// Definitions local to a function body are not listed;
				// most bodies are not even searched (langSpec.prune), and
				// this keeps the rule independent of body size.
				d.parent, d.dropped, dropped = -1, true, true
				continue
			}
		}
		if canContain(d.kind) {
			stack = append(stack, i)
		}
	}
	if !dropped {
		return
	}
	remap := make([]int, len(x.defs))
	kept := x.defs[:0]
	for i, d := range x.defs {
		if d.dropped {
			remap[i] = -1
			continue
		}
		remap[i] = len(kept)
		kept = append(kept, d)
	}
	for _, d := range kept {
		if d.parent >= 0 {
			d.parent = remap[d.parent]
		}
	}
	x.defs = kept
}

// IsFunctionKind reports kinds whose bodies are code rather than declarations.
func IsFunctionKind(k Kind) bool {
	return k == KindFunction || k == KindMethod || k == KindConstructor
}

// canContain reports whether definitions of kind k can be the parent of
// other definitions.
func canContain(k Kind) bool {
	switch k {
	case KindConst, KindVar, KindField, KindMacro, KindType:
		return false
	}
	return true
}

// parentDef returns d's parent definition or nil.
func (x *extractor) parentDef(d *def) *def {
	if d.parent < 0 {
		return nil
	}
	return x.defs[d.parent]
}

// containerOf returns the dotted container name of d: the override if any
// (prefixed by the syntactic parent's qualified name), else the parent's
// qualified name.
func (x *extractor) containerOf(d *def) string {
	p := x.parentDef(d)
	parentQual := ""
	if p != nil {
		parentQual = p.qual
	}
	c := parentQual
	if d.hasOverride {
		c = d.containerOverride
		if parentQual != "" && c != "" {
			c = parentQual + "." + c
		} else if c == "" {
			c = parentQual
		}
	}
	if c == "" {
		d.qual = d.name
	} else {
		d.qual = c + "." + d.name
	}
	return c
}

// isTypeKind reports whether k declares a type that holds members.
func isTypeKind(k Kind) bool {
	switch k {
	case KindClass, KindStruct, KindInterface, KindTrait, KindEnum:
		return true
	}
	return false
}

// computeSpan sets d.span from the outer node, extended backwards over
// attribute siblings the language attaches to definitions.
func (x *extractor) computeSpan(d *def) {
	s := x.nodeSpan(d.outer)
	if x.lang.spec.foldsTrivia {
		s = x.skipTrivia(d.outer, s)
	}
	if len(x.lang.spec.extendStart) > 0 {
		for prev := d.outer.PrevNamedSibling(); prev != nil && x.lang.spec.extendStart[prev.Type()]; prev = prev.PrevNamedSibling() {
			s.StartByte = int(prev.StartByte())
			s.Start = toPoint(prev.StartPoint())
		}
	}
	// Some nodes (preprocessor lines) end after their newline; a span
	// ends on the last line of the definition.
	for s.EndByte > s.StartByte && (x.src[s.EndByte-1] == '\n' || x.src[s.EndByte-1] == '\r') {
		if x.src[s.EndByte-1] == '\n' {
			s.End.Line--
		}
		s.EndByte--
		s.End.Column = s.EndByte - x.lineStart(s.EndByte)
	}
	d.span = s
}

func toPoint(p sitter.Point) Point { return Point{Line: int(p.Row), Column: int(p.Column)} }

// nodeSpan converts a node's range, clamped to the source.
func (x *extractor) nodeSpan(n *sitter.Node) Span {
	s := Span{
		StartByte: int(n.StartByte()), EndByte: int(n.EndByte()),
		Start: toPoint(n.StartPoint()), End: toPoint(n.EndPoint()),
	}
	return clampSpan(s, len(x.src))
}

// nameSpan is the span of a name node, without the white space a
// foldsTrivia grammar puts before it.
func (x *extractor) nameSpan(n *sitter.Node) Span {
	s := x.nodeSpan(n)
	if x.lang.spec.foldsTrivia {
		s = SkipSpace(x.src, s)
	}
	return s
}

// skipTrivia moves the start of span s of node n past n's leading comment
// children (doc comments a foldsTrivia grammar puts inside the
// definition) and the white space after them.
func (x *extractor) skipTrivia(n *sitter.Node, s Span) Span {
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		if !x.lang.spec.doc.comments[c.Type()] {
			break
		}
		if e := int(c.EndByte()); e > s.StartByte && e <= s.EndByte {
			s.StartByte, s.Start = e, toPoint(c.EndPoint())
		}
	}
	return SkipSpace(x.src, s)
}

// clampSpan keeps a span inside [0, n] with Start ≤ End whatever the tree
// reports.
func clampSpan(s Span, n int) Span {
	if s.StartByte < 0 {
		s.StartByte = 0
	}
	if s.EndByte > n {
		s.EndByte = n
	}
	if s.StartByte > n {
		s.StartByte = n
	}
	if s.EndByte < s.StartByte {
		s.EndByte, s.End = s.StartByte, s.Start
	}
	return s
}

// text returns the source text of n.
func (x *extractor) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(x.src[n.StartByte():n.EndByte()])
}

// signature returns the collapsed header of d.
func (x *extractor) signature(d *def) string {
	spec := x.lang.spec
	if spec.sigText != nil {
		if s, ok := spec.sigText(x, d); ok {
			return truncate(cleanText(s), MaxSignatureBytes)
		}
	}
	start := x.sigStart(d.sigNode)
	end := -1
	if spec.sigEnd != nil {
		end = spec.sigEnd(x, d)
	}
	header := true
	if end < 0 {
		if body := x.bodyOf(d.node); body != nil {
			end = int(body.StartByte())
			// Comments between the header and the body are not part of
			// the signature.
			for prev := body.PrevSibling(); prev != nil && spec.doc.comments[prev.Type()]; prev = prev.PrevSibling() {
				end = int(prev.StartByte())
			}
		} else {
			end = int(d.node.EndByte())
			header = false
		}
	}
	if end > len(x.src) {
		end = len(x.src)
	}
	if end < start {
		end = start
	}
	s := CollapseSpace(x.src[start:end])
	if header {
		s = strings.TrimRight(s, " \t:{,")
	}
	s = strings.TrimRight(s, " ;")
	if d.sigPrefix != "" {
		s = d.sigPrefix + s
	}
	return truncate(cleanText(s), MaxSignatureBytes)
}

// sigStart skips decorators and annotations at the start of n.
func (x *extractor) sigStart(n *sitter.Node) int {
	spec := x.lang.spec
	if len(spec.skipAtSigStart) == 0 {
		return int(n.StartByte())
	}
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		t := c.Type()
		if spec.skipAtSigStart[t] || t == "comment" {
			continue
		}
		if spec.wrapAtSigStart[t] {
			if s := x.sigStart(c); s < int(c.EndByte()) {
				return s
			}
			continue
		}
		return int(c.StartByte())
	}
	return int(n.StartByte())
}

// CollapseSpace replaces every run of white space with one space and trims
// the ends; backslash line continuations count as space. A run that breaks
// a line next to a bracket disappears, and so does a trailing comma before
// a closing bracket on the next line, so that multi-line parameter lists
// read as they would on one line.
func CollapseSpace(b []byte) string {
	out := make([]byte, 0, len(b))
	pending, newline := false, false
	for i, c := range b {
		if c == '\\' && (bytes.HasPrefix(b[i+1:], []byte("\n")) || bytes.HasPrefix(b[i+1:], []byte("\r\n"))) {
			c = ' ' // a line continuation (C macros, Python, shell) is space
		}
		switch c {
		case ' ', '\t', '\r', '\f', '\v':
			pending = true
			continue
		case '\n':
			pending, newline = true, true
			continue
		}
		if pending && len(out) > 0 {
			last := out[len(out)-1]
			closing := c == ')' || c == ']' || c == '}'
			switch {
			case newline && closing && last == ',':
				out = out[:len(out)-1]
			case newline && (closing || last == '(' || last == '[' || last == '{'):
			default:
				out = append(out, ' ')
			}
		}
		pending, newline = false, false
		out = append(out, c)
	}
	return string(out)
}

// truncate cuts s to at most max bytes on a rune boundary, marking the cut.
// A word the cut would split (up to maxCutWord bytes of it) is left out
// whole: the first half of a token is no longer recognisable as a secret
// (a signature cut inside "shpat_…" leaked 23 of its characters).
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ellipsis = "…"
	cut := max - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexAny(s[:cut], wordEnds); i >= 0 && cut-i <= maxCutWord && !strings.ContainsRune(wordEnds, rune(s[cut])) {
		cut = i + 1
	}
	return strings.TrimRight(s[:cut], " ") + ellipsis
}

// wordEnds are the bytes truncate may cut after; maxCutWord is the longest
// word it drops rather than cut.
const (
	wordEnds   = " \t\n\"'`,;()[]{}<>="
	maxCutWord = 128
)

// cleanText replaces invalid UTF-8 so symbols are always valid strings.
func cleanText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// isExportedName reports whether name starts with an upper-case letter (the
// Go rule).
func isExportedName(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// firstNamed returns n's first named child that is not a comment, or nil.
func (x *extractor) firstNamed(n *sitter.Node) *sitter.Node {
	if n == nil {
		return nil
	}
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		if !x.lang.spec.doc.comments[c.Type()] {
			return c
		}
	}
	return nil
}

// bodyOf returns n's body: the "body" field, else the first child of one
// of the language's body types.
func (x *extractor) bodyOf(n *sitter.Node) *sitter.Node {
	if body := n.ChildByFieldName("body"); body != nil {
		return body
	}
	if len(x.lang.spec.bodyTypes) == 0 {
		return nil
	}
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		if c := n.Child(i); x.lang.spec.bodyTypes[c.Type()] {
			return c
		}
	}
	return nil
}

// HasChildOfType reports whether n has a direct child (named or not) of type t.
func HasChildOfType(n *sitter.Node, t string) bool {
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		if n.Child(i).Type() == t {
			return true
		}
	}
	return false
}

// ChildBefore returns n's first direct child of type want that comes
// before the first child of type stop, or nil.
func ChildBefore(n *sitter.Node, want, stop string) *sitter.Node {
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		switch c.Type() {
		case want:
			return c
		case stop:
			return nil
		}
	}
	return nil
}

// extendStatementScopes makes statement-form scopes ("namespace X;" in C#
// and PHP) span the declarations after them: up to the next scope of the
// same type, else the end of the file.
func (x *extractor) extendStatementScopes(nodeType string) {
	var scopes []*def
	for _, d := range x.defs {
		if d.node.Type() == nodeType && d.node.ChildByFieldName("body") == nil {
			scopes = append(scopes, d)
		}
	}
	sort.Slice(scopes, func(i, j int) bool { return scopes[i].span.StartByte < scopes[j].span.StartByte })
	for i, d := range scopes {
		end := len(x.src)
		if i+1 < len(scopes) {
			end = scopes[i+1].span.StartByte
		}
		x.setSpanEnd(d, end)
	}
}

// setSpanEnd moves d's span end forward to end, less trailing white space.
func (x *extractor) setSpanEnd(d *def, end int) {
	for end > d.span.StartByte {
		c := x.src[end-1]
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		end--
	}
	if end <= d.span.EndByte {
		return
	}
	d.span.End = Point{
		Line:   d.span.End.Line + bytes.Count(x.src[d.span.EndByte:end], []byte{'\n'}),
		Column: end - x.lineStart(end),
	}
	d.span.EndByte = end
}

// maxHoles bounds how many function bodies are cut out of the query range;
// each range restarts the query at the root (cheaply, skipping subtrees
// before the range), so only absurd files reach it. The largest bodies are
// cut first.
const maxHoles = 1 << 14

// minHoleBytes is the smallest body worth cutting out: every cut costs a
// query restart, which small bodies do not repay.
const minHoleBytes = 128

// maxScopeDepth bounds the scope walk on pathologically nested input.
const maxScopeDepth = 256

// segment is a point range the query runs over; end {0,0} means the end
// of the file.
type segment struct{ start, end sitter.Point }

// hole is a function body left out of the query.
type hole struct {
	startByte, endByte uint32
	start, end         sitter.Point
}

// scopeEntry is the root or a named direct child of a walked scope.
type scopeEntry struct {
	typ    string
	parent int32 // index of the parent's entry; -1 for the root
}

// nodeKey identifies a node for the scope table (with its type).
func nodeKey(n *sitter.Node) [2]uint32 { return [2]uint32{n.StartByte(), n.EndByte()} }

// walkScopes walks the scope nodes from the root, recording their named
// children in the scope table and collecting the bodies to prune; with a
// splice, only the root's children that overlap it.
func (x *extractor) walkScopes(root *sitter.Node, s *Splice) []hole {
	spec := x.lang.spec
	x.scopeTab = append(x.scopeTab[:0], scopeEntry{typ: root.Type(), parent: -1})
	x.scopeIdx = make(map[[2]uint32]int32)
	var holes []hole
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	var walk func(parent int32, depth int)
	walk = func(parent int32, depth int) {
		if depth > maxScopeDepth {
			return
		}
		end := -1 // where the walk stops: the splice's end at the root
		if depth == 0 && s != nil {
			if c.GoToFirstChildForByte(uint32(s.Start)) < 0 {
				return
			}
			end = s.NewEnd
		} else if !c.GoToFirstChild() {
			return
		}
		for {
			n := c.CurrentNode()
			if end >= 0 && int(n.StartByte()) >= end {
				break
			}
			if n.IsNamed() {
				t := n.Type()
				idx := int32(len(x.scopeTab))
				x.scopeTab = append(x.scopeTab, scopeEntry{typ: t, parent: parent})
				if _, dup := x.scopeIdx[nodeKey(n)]; !dup {
					x.scopeIdx[nodeKey(n)] = idx
				}
				if field, ok := spec.prune[t]; ok {
					var b *sitter.Node
					if field == "" {
						b = x.bodyOf(n)
					} else {
						b = n.ChildByFieldName(field)
					}
					if b != nil && b.EndByte()-b.StartByte() >= minHoleBytes {
						holes = append(holes, hole{b.StartByte(), b.EndByte(), b.StartPoint(), b.EndPoint()})
					}
				} else if spec.scopes[t] || t == "ERROR" {
					walk(idx, depth+1)
				}
			}
			if !c.GoToNextSibling() {
				break
			}
		}
		c.GoToParent()
	}
	walk(0, 0)
	return holes
}

// scopeEntryOf returns the scope-table entry of n, or -1 when n is not a
// named direct child of a walked scope.
func (x *extractor) scopeEntryOf(n *sitter.Node) int32 {
	if n == nil {
		return -1
	}
	i, ok := x.scopeIdx[nodeKey(n)]
	if !ok || x.scopeTab[i].typ != n.Type() {
		return -1
	}
	return i
}

// parentType returns the type of n's enclosing scope node, looking through
// ERROR nodes; "" when n is not a direct child of a walked scope (inside a
// function body or an expression).
func (x *extractor) parentType(n *sitter.Node) string {
	i := x.scopeEntryOf(n)
	if i < 0 {
		return ""
	}
	for p := x.scopeTab[i].parent; p >= 0; p = x.scopeTab[p].parent {
		if x.scopeTab[p].typ != "ERROR" || x.scopeTab[p].parent < 0 {
			return x.scopeTab[p].typ
		}
	}
	return ""
}

// atFileLevel reports whether n is a direct child of the root, possibly
// through ERROR nodes and the given wrapper node types (export_statement).
func (x *extractor) atFileLevel(n *sitter.Node, wrappers ...string) bool {
	i := x.scopeEntryOf(n)
	if i < 0 {
		return false
	}
	for p := x.scopeTab[i].parent; p >= 0; p = x.scopeTab[p].parent {
		if x.scopeTab[p].parent < 0 {
			return true // the root
		}
		t := x.scopeTab[p].typ
		ok := t == "ERROR"
		for _, w := range wrappers {
			ok = ok || t == w
		}
		if !ok {
			return false
		}
	}
	return false
}

// segments returns the ranges between the prunable function bodies, in
// source order (with a splice, of the declarations it overlaps); a single
// whole-file range when nothing is pruned.
func (x *extractor) segments(root *sitter.Node, s *Splice) []segment {
	holes := x.walkScopes(root, s)
	if len(holes) == 0 {
		return []segment{{}}
	}
	if len(holes) > maxHoles {
		sort.Slice(holes, func(i, j int) bool { return holes[i].endByte-holes[i].startByte > holes[j].endByte-holes[j].startByte })
		holes = holes[:maxHoles]
		sort.Slice(holes, func(i, j int) bool { return holes[i].startByte < holes[j].startByte })
	}
	segs := make([]segment, 0, len(holes)+1)
	var from sitter.Point
	for _, h := range holes {
		if h.start != from {
			segs = append(segs, segment{start: from, end: h.start})
		}
		from = h.end
	}
	// The last range is open-ended ({0,0}); it cannot collide with a real
	// end because a hole never ends at the start of the file.
	return append(segs, segment{start: from})
}
