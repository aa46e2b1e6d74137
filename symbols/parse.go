package symbols

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// Errors returned by Parse; check them with errors.Is.
var (
	// ErrNoGrammar is returned for a nil language or one that is only
	// detected (markdown, yaml, json, text …).
	ErrNoGrammar = errors.New("symbols: language has no grammar")
	// ErrTooLarge is returned for sources above MaxSourceBytes.
	ErrTooLarge = errors.New("symbols: source too large")
	// ErrTimeout is returned when tree-sitter gives up after the parser's
	// timeout, which bounds pathological inputs.
	ErrTimeout = errors.New("symbols: parse timed out")
	// ErrIrregular is returned for a syntax tree whose shape would make
	// querying it superlinear (checkShape): long runs of unnamed tokens,
	// such as a file of "(" or "," only.
	ErrIrregular = errors.New("symbols: syntax tree too irregular to query")
)

const (
	// MaxSourceBytes is the largest source Parse accepts. Bigger files are
	// almost always generated or data and would dominate indexing time.
	MaxSourceBytes = 32 << 20
	// DefaultTimeout bounds one Parse call of tree-sitter; a healthy parse
	// of MaxSourceBytes takes a few seconds.
	DefaultTimeout = 20 * time.Second
)

// Parser parses source files into Files. It wraps one tree-sitter parser and
// is not safe for concurrent use: use one Parser per goroutine. Close it when
// done; its C memory is not reclaimed reliably by finalizers.
type Parser struct {
	p       *sitter.Parser
	timeout time.Duration
}

// NewParser returns a Parser with DefaultTimeout.
func NewParser() *Parser {
	p := &Parser{timeout: DefaultTimeout}
	p.renew()
	return p
}

// SetTimeout changes the time one Parse may spend in tree-sitter; d ≤ 0
// restores DefaultTimeout. Cancellation through the context is independent.
func (p *Parser) SetTimeout(d time.Duration) {
	if d <= 0 {
		d = DefaultTimeout
	}
	p.timeout = d
	if p.p != nil {
		p.p.SetOperationLimit(int(d / time.Microsecond))
	}
}

// renew replaces the tree-sitter parser with a fresh one. After a failed
// parse the old one may hold a half-finished parse or a set cancellation
// flag, so it is never reused.
func (p *Parser) renew() {
	if p.p != nil {
		p.p.Close()
	}
	p.p = sitter.NewParser()
	p.p.SetOperationLimit(int(p.timeout / time.Microsecond))
}

// Close frees the parser's C memory. The Parser must not be used afterwards;
// Files it returned stay valid until they are closed.
func (p *Parser) Close() {
	if p.p != nil {
		p.p.Close()
		p.p = nil
	}
}

// File is a parsed source file. Close it to free its syntax tree.
type File struct {
	// Lang is the language the file was parsed as.
	Lang *Language
	// Source is the parsed content. It is the caller's slice, not a copy:
	// do not modify it while the File is in use.
	Source []byte
	// Tree is the tree-sitter syntax tree, for consumers that run their own
	// queries (chunking, graph). It is nil after Close.
	Tree *sitter.Tree
	// Symbols are the definitions in source order: by start offset, an
	// enclosing symbol before the symbols it contains.
	Symbols []Symbol
	// Splice, set by Reparse, says where this version differs from the
	// previous one when only that part's definitions were extracted (the
	// others carried over, moved); nil after a full extraction.
	Splice *Splice
}

// Close frees the syntax tree. Symbols and Source stay usable.
func (f *File) Close() {
	if f.Tree != nil {
		f.Tree.Close()
		f.Tree = nil
	}
}

// SymbolAt returns the index in f.Symbols of the innermost symbol whose Span
// contains byteOffset, or -1 if none does.
func (f *File) SymbolAt(byteOffset int) int {
	best := -1
	for i := range f.Symbols {
		s := f.Symbols[i].Span
		if !s.Contains(byteOffset) {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := f.Symbols[best].Span
		if s.StartByte > b.StartByte || (s.StartByte == b.StartByte && s.EndByte <= b.EndByte) {
			best = i
		}
	}
	return best
}

// Parse parses src as lang and extracts its symbols. Sources with syntax
// errors still yield the definitions tree-sitter recovers. It fails with
// ErrNoGrammar, ErrTooLarge, ErrTimeout, or the context's error when ctx ends
// during the parse. The caller must Close the returned File.
func (p *Parser) Parse(ctx context.Context, lang *Language, src []byte) (*File, error) {
	return p.ParseThen(ctx, lang, src, nil)
}

// ParseThen is Parse that calls parsed, when not nil, with the syntax tree
// as soon as tree-sitter has built it, before the definitions are
// extracted from it: a caller that also walks the tree for something else
// (the call graph) can start meanwhile on another goroutine, on a copy of
// the tree made inside parsed (Tree.Copy: a tree is not safe for concurrent
// use, and the one passed belongs to the File being built). parsed is
// called at most once, and only with the tree of the File returned; when
// ParseThen then fails (cancelled during the extraction), that tree is
// closed and no File is returned.
func (p *Parser) ParseThen(ctx context.Context, lang *Language, src []byte, parsed func(*sitter.Tree)) (*File, error) {
	if err := p.prepare(ctx, lang, src); err != nil {
		return nil, err
	}
	return p.parse(ctx, lang, src, nil, parsed)
}

// prepare refuses what no parse may start on and compiles lang (its
// grammar and definitions query) on first use.
func (p *Parser) prepare(ctx context.Context, lang *Language, src []byte) error {
	if p.p == nil {
		return errors.New("symbols: Parse on a closed Parser")
	}
	if !lang.HasGrammar() {
		return fmt.Errorf("parse %s: %w", lang, ErrNoGrammar)
	}
	if len(src) > MaxSourceBytes {
		return fmt.Errorf("parse %s: %d bytes (limit %d): %w", lang.Name, len(src), MaxSourceBytes, ErrTooLarge)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("symbols: parse %s: %w", lang.Name, err)
	}
	return lang.compile()
}

// Reparse parses src, a new version of prev's source, reusing prev's
// syntax tree: tree-sitter re-parses only what the edit touched (the edit
// is found by comparing the two sources), so a small edit of a large file
// costs a fraction of a full parse. The result is the File Parse would
// return: where an incremental parse could differ — a tree with syntax
// errors (tree-sitter's error recovery depends on the old tree), a grammar
// whose scanner keeps state outside the parser (Lua) — src is parsed in
// full. prev (any Parser's, not closed, of the same language) has its tree
// edited in place: the caller must close it afterwards and not use it
// otherwise. It fails like Parse.
func (p *Parser) Reparse(ctx context.Context, prev *File, src []byte) (*File, error) {
	return p.ReparseThen(ctx, prev, src, nil)
}

// ReparseThen is Reparse that calls parsed like ParseThen does: with the
// final syntax tree (the incremental one, or that of the full parse that
// replaces it) before the definitions are extracted from all of it. When
// the edit is confined to self-contained top-level declarations (see
// Splice), only theirs are extracted, the rest carried over from prev, and
// parsed is not called.
func (p *Parser) ReparseThen(ctx context.Context, prev *File, src []byte, parsed func(*sitter.Tree)) (*File, error) {
	if prev == nil || prev.Tree == nil {
		return nil, errors.New("symbols: Reparse without a previous parse")
	}
	lang := prev.Lang
	if p.p == nil {
		return nil, errors.New("symbols: Reparse on a closed Parser")
	}
	if len(src) > MaxSourceBytes {
		return nil, fmt.Errorf("parse %s: %d bytes (limit %d): %w", lang.Name, len(src), MaxSourceBytes, ErrTooLarge)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("symbols: parse %s: %w", lang.Name, err)
	}
	if lang.parseMu != nil {
		return p.parse(ctx, lang, src, nil, parsed)
	}
	pre, suf := commonEnds(prev.Source, src)
	// What the change touches in the old tree, read before the edit moves
	// it.
	var oldHull span
	splice := len(lang.spec.spliceable) > 0
	if splice {
		oldHull, splice = touched(kidsOf(prev.Tree), pre, len(prev.Source)-suf, lang.spec.spliceable)
	}
	prev.Tree.Edit(editBetween(prev.Source, src, pre, suf))
	tree, err := p.parseTree(ctx, lang, src, prev.Tree)
	if err != nil {
		return nil, err
	}
	if tree.RootNode().HasError() {
		tree.Close()
		return p.parse(ctx, lang, src, nil, parsed)
	}
	if splice {
		if f, err := p.spliced(ctx, prev, src, oldHull, tree, pre, suf); f != nil || err != nil {
			return f, err
		}
	}
	return p.extracted(ctx, lang, src, tree, parsed)
}

// spliced is the File of src, parsed as tree from prev, with the
// definitions of the declarations the edit touched extracted and the
// others carried over; nil (and no error) when the edit does not allow
// it. On an error tree is closed.
func (p *Parser) spliced(ctx context.Context, prev *File, src []byte, oldHull span, tree *sitter.Tree, pre, suf int) (*File, error) {
	s, ok := spliceOf(prev.Lang, prev.Source, src, oldHull, prev.Tree, tree, pre, suf)
	if !ok {
		return nil, nil
	}
	mid, ok, err := extractIn(ctx, prev.Lang, src, tree, s)
	if err != nil {
		tree.Close()
		return nil, err
	}
	if !ok {
		return nil, nil
	}
	syms, ok := spliceSymbols(prev.Symbols, mid, s)
	if !ok {
		return nil, nil
	}
	return &File{Lang: prev.Lang, Source: src, Tree: tree, Symbols: syms, Splice: s}, nil
}

// commonEnds returns the lengths of old and new's common prefix and of
// their common suffix after it.
func commonEnds(old, new []byte) (pre, suf int) {
	n := min(len(old), len(new))
	for pre < n && old[pre] == new[pre] {
		pre++
	}
	for suf < n-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
	return pre, suf
}

// editBetween describes the change from old to new as one tree-sitter
// edit: the bytes between their common prefix and common suffix
// (commonEnds).
func editBetween(old, new []byte, pre, suf int) sitter.EditInput {
	return sitter.EditInput{
		StartIndex:  uint32(pre),
		OldEndIndex: uint32(len(old) - suf),
		NewEndIndex: uint32(len(new) - suf),
		StartPoint:  pointAt(old, pre),
		OldEndPoint: pointAt(old, len(old)-suf),
		NewEndPoint: pointAt(new, len(new)-suf),
	}
}

// pointAt is the row and byte column of offset off in src.
func pointAt(src []byte, off int) sitter.Point {
	row := bytes.Count(src[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(src[:off], '\n') + 1)
	return sitter.Point{Row: uint32(row), Column: uint32(col)}
}

// parse runs tree-sitter (on old, if set, edited to src) and extracts the
// symbols; parsed, when not nil, is called with the tree first.
func (p *Parser) parse(ctx context.Context, lang *Language, src []byte, old *sitter.Tree, parsed func(*sitter.Tree)) (*File, error) {
	tree, err := p.parseTree(ctx, lang, src, old)
	if err != nil {
		return nil, err
	}
	return p.extracted(ctx, lang, src, tree, parsed)
}

// extracted is the File of a parsed tree, with its symbols; parsed, when
// not nil, is called with the tree before they are extracted.
func (p *Parser) extracted(ctx context.Context, lang *Language, src []byte, tree *sitter.Tree, parsed func(*sitter.Tree)) (*File, error) {
	if parsed != nil {
		parsed(tree)
	}
	syms, err := extract(ctx, lang, src, tree)
	if err != nil {
		tree.Close()
		return nil, err
	}
	return &File{Lang: lang, Source: src, Tree: tree, Symbols: syms}, nil
}

// parseTree runs tree-sitter. The binding reports a real timeout and a stale
// cancellation flag the same way (sitter.ErrOperationLimit): the watcher
// goroutine of an earlier ParseCtx can set the flag when that call's context
// ends just as its parse finishes, which makes the next parse fail at once.
// A fast failure with a live context is therefore retried on a fresh parser.
func (p *Parser) parseTree(ctx context.Context, lang *Language, src []byte, old *sitter.Tree) (*sitter.Tree, error) {
	if err := checkNesting(lang, src); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		p.p.SetLanguage(lang.ts)
		began := time.Now()
		tree, err := p.parseOnce(ctx, lang, src, old)
		if err == nil && tree != nil {
			if err := checkShape(lang, tree, len(src)); err != nil {
				tree.Close()
				return nil, err
			}
			return p.repaired(ctx, lang, src, tree), nil
		}
		p.renew()
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("symbols: parse %s: %w", lang.Name, ctxErr)
		}
		if err == nil {
			err = sitter.ErrOperationLimit
		}
		if errors.Is(err, sitter.ErrOperationLimit) {
			if attempt == 0 && time.Since(began) < p.timeout/2 {
				continue
			}
			return nil, fmt.Errorf("parse %s after %v: %w", lang.Name, time.Since(began).Round(time.Millisecond), ErrTimeout)
		}
		return nil, fmt.Errorf("symbols: parse %s: %w", lang.Name, err)
	}
}

// repaired returns tree, or when it has errors and the language repairs
// its source, the tree of the repaired source if that has fewer bytes in
// errors (tree is closed then). The repaired source has src's length and
// lines, so the tree's positions are src's.
func (p *Parser) repaired(ctx context.Context, lang *Language, src []byte, tree *sitter.Tree) *sitter.Tree {
	if lang.repair == nil || !tree.RootNode().HasError() {
		return tree
	}
	fixed := lang.repair(src)
	if len(fixed) != len(src) {
		return tree
	}
	alt, err := p.parseOnce(ctx, lang, fixed, nil)
	if err != nil || alt == nil {
		p.renew()
		return tree
	}
	if errorBytes(alt.RootNode()) < errorBytes(tree.RootNode()) {
		tree.Close()
		return alt
	}
	alt.Close()
	return tree
}

// errorBytes counts the bytes under the ERROR nodes of a tree, and one
// for each missing node.
func errorBytes(n *sitter.Node) int {
	switch {
	case n.IsError():
		return int(n.EndByte() - n.StartByte())
	case n.IsMissing():
		return 1
	case !n.HasError():
		return 0
	}
	total := 0
	for i := 0; i < int(n.ChildCount()); i++ {
		total += errorBytes(n.Child(i))
	}
	return total
}

// parseOnce is one tree-sitter parse, serialised with every other parse of
// lang when its grammar's scanner is not reentrant (Language.parseMu).
func (p *Parser) parseOnce(ctx context.Context, lang *Language, src []byte, old *sitter.Tree) (*sitter.Tree, error) {
	if lang.parseMu != nil {
		lang.parseMu.Lock()
		defer lang.parseMu.Unlock()
	}
	return p.p.ParseCtx(ctx, old, src)
}
