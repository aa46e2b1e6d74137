package graph

import (
	"reflect"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// ExtractSpliced is Extract of f, a re-parsed file version, given prev, the
// graph of the version f was re-parsed from: when f's definitions were
// spliced (f.Splice) and its language allows it, only the declarations in
// the splice are extracted — with the file's prelude, the package clause
// and imports their calls are resolved with — and the rest of prev is
// carried over, moved; otherwise, or when anything of prev lies across
// the splice's ends, the whole file is extracted. The result is the graph
// Extract returns.
func ExtractSpliced(prev *FileGraph, f *symbols.File, path string) *FileGraph {
	if g := extractSpliced(prev, f, path); g != nil {
		return g
	}
	return Extract(f, path)
}

// extractSpliced is ExtractSpliced's splice; nil when it cannot be made.
func extractSpliced(prev *FileGraph, f *symbols.File, path string) *FileGraph {
	s := f.Splice
	if prev == nil || s == nil || prev.Path != path || f.Tree == nil {
		return nil
	}
	x := newExtractor(f, path)
	if x == nil || prev.Lang != x.lang || len(x.spec.prelude) == 0 || len(prev.Calls)+len(prev.TypeRefs) > MaxCallsPerFile/2 {
		return nil
	}
	// The prelude: the root's first children of the prelude's types
	// (comments between them), which must end before the splice.
	root := f.Tree.RootNode()
	var last *sitter.Node
	for i := 0; i < int(root.NamedChildCount()); i++ {
		c := root.NamedChild(i)
		if t := c.Type(); !x.spec.prelude[t] {
			if t == "comment" {
				continue
			}
			break
		}
		last = c
	}
	if last == nil || int(last.EndByte()) > s.Start {
		return nil
	}
	m := &TreeMatches{spec: x.spec, query: x.query}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.SetPointRange(sitter.Point{}, last.EndPoint())
	m.add(qc, f.Tree)
	start, end := s.Points(f.Source)
	qc.SetPointRange(start, end)
	m.add(qc, f.Tree)
	x.run(m)
	mid := x.g
	// The prelude must be all of the file's: a package clause or import
	// after a declaration of another kind (a broken package clause parsed
	// as something else) is not in it.
	if mid.Package != prev.Package || !reflect.DeepEqual(mid.Imports, prev.Imports) {
		return nil
	}
	// Types and Fields are carried over whole: no declaration that feeds
	// them (a type declared in a function) may be in the splice, in
	// either version, nor in the prelude.
	if len(mid.memberAt) > 0 {
		return nil
	}
	// Accessors are held by symbol index, which a splice moves (no
	// language that splices has any).
	if len(prev.Accessors)+len(mid.Accessors) > 0 {
		return nil
	}
	g := &FileGraph{
		Path: path, Lang: mid.Lang, Package: mid.Package, Module: mid.Module,
		DefaultExport: mid.DefaultExport, Imports: mid.Imports,
		Types: prev.Types, Fields: prev.Fields,
	}
	// Tests that are blocks, not definitions (JS), hold calls by index:
	// Go has none.
	for _, ts := range [][]Test{prev.Tests, mid.Tests} {
		for _, t := range ts {
			if t.Ord < 0 {
				return nil
			}
		}
	}
	inSpan := func(sp symbols.Span) bool { return sp.StartByte >= s.Start && sp.EndByte <= s.NewEnd }
	var ok0, ok1, ok2, ok3 bool
	g.memberAt, ok0 = spliceItems(prev.memberAt, nil,
		func(at int) place {
			if at >= s.Start && at < s.OldEnd {
				return across // Types and Fields could not be carried over
			}
			return spanPlace(s, symbols.Span{StartByte: at, EndByte: at + 1})
		},
		nil,
		func(at *int) bool { *at += s.Bytes(); return true })
	g.Calls, ok1 = spliceItems(prev.Calls, mid.Calls,
		func(c Call) place { return spanPlace(s, c.Site) },
		func(c Call) bool { return inSpan(c.Site) },
		func(c *Call) (ok bool) {
			c.Site = s.Shift(c.Site)
			c.Caller, ok = s.Symbol(c.Caller)
			return ok
		})
	g.TypeRefs, ok2 = spliceItems(prev.TypeRefs, mid.TypeRefs,
		func(r TypeRef) place { return linePlace(s, r.Line) },
		func(r TypeRef) bool { return r.Line >= s.StartLine && r.Line < s.NewEndLine },
		func(r *TypeRef) (ok bool) {
			r.Line += s.Lines()
			r.Caller, ok = s.Symbol(r.Caller)
			return ok
		})
	g.Tests, ok3 = spliceItems(prev.Tests, mid.Tests,
		func(t Test) place { return spanPlace(s, t.Span) },
		func(t Test) bool { return inSpan(t.Span) },
		func(t *Test) (ok bool) {
			t.Span = s.Shift(t.Span)
			t.Ord, ok = s.Symbol(t.Ord)
			return ok
		})
	if !ok0 || !ok1 || !ok2 || !ok3 {
		return nil
	}
	return g
}

// place is where an item of the old version lies with respect to a
// splice.
type place uint8

const (
	before place = iota
	inside
	after
	across // over one of its ends
)

func spanPlace(s *symbols.Splice, sp symbols.Span) place {
	switch {
	case s.Before(sp):
		return before
	case s.After(sp):
		return after
	case s.Inside(sp):
		return inside
	}
	return across
}

func linePlace(s *symbols.Splice, line int) place {
	switch {
	case line < s.StartLine:
		return before
	case line >= s.OldEndLine:
		return after
	}
	return inside
}

// spliceItems makes a list of the new version from the old version's
// items before the splice, mid's inside it (midIn) and the old version's
// after it, moved; ok is false when an old item lies across the splice's
// ends or cannot be moved.
func spliceItems[T any](old, mid []T, oldAt func(T) place, midIn func(T) bool, move func(*T) bool) (out []T, ok bool) {
	var later []T
	for _, it := range old {
		switch oldAt(it) {
		case before:
			out = append(out, it)
		case after:
			later = append(later, it)
		case across:
			return nil, false
		}
	}
	for _, it := range mid {
		if midIn(it) {
			out = append(out, it)
		}
	}
	for _, it := range later {
		if !move(&it) {
			return nil, false
		}
		out = append(out, it)
	}
	return out, true
}
