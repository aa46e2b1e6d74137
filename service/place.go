package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/engine/packing"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/workspace"
)

// Paths, lines, columns and places: how requests name code, resolved the
// same way for every front end.

// rel resolves a path argument (workspace-relative or absolute) to the
// canonical workspace-relative path; outside the workspace is an invalid
// argument naming field.
func (s *Service) rel(field, p string) (string, error) {
	rel, err := s.e.Workspace().Resolve(p)
	if err != nil {
		if errors.Is(err, workspace.ErrOutsideWorkspace) {
			return "", &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf("%q is outside the workspace %s", p, s.e.Root()), err: err}
		}
		return "", classify(field, p, err)
	}
	return rel, nil
}

// fileRel resolves a file argument: like rel, and not the root itself.
func (s *Service) fileRel(field, p string) (string, error) {
	rel, err := s.rel(field, p)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", invalid(field, "%q is the workspace root, not a file", p)
	}
	return rel, nil
}

// location builds a Location of rel.
func (s *Service) location(rel string, r Range) Location {
	return Location{Path: rel, Range: r, URI: workspace.PathToURI(filepath.Join(s.e.Root(), filepath.FromSlash(rel)))}
}

// lines is a Range of whole lines.
func lines(start, end int) Range { return Range{StartLine: start, EndLine: end} }

// ParseLines reads a line range, "A-B" or "A" (1-based, inclusive); ""
// returns 0, 0 (the whole file). field names the argument in errors.
func ParseLines(field, v string) (start, end int, err error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, 0, nil
	}
	a, b, ranged := strings.Cut(v, "-")
	if !ranged {
		b = a
	}
	start, err1 := parseNumber(field, v, strings.TrimSpace(a))
	if err1 != nil {
		return 0, 0, err1
	}
	end, err2 := parseNumber(field, v, strings.TrimSpace(b))
	if err2 != nil {
		return 0, 0, err2
	}
	if end < start {
		return 0, 0, invalid(field, "%q ends before it starts (want A-B with A <= B, for example \"10-40\")", v)
	}
	return start, end, nil
}

// maxLine bounds line and column numbers (far beyond any file indexed).
const maxLine = 1 << 30

// parseNumber reads one 1-based line or column number of whole.
func parseNumber(field, whole, n string) (int, error) {
	if n == "" || strings.Trim(n, "0123456789") != "" {
		return 0, invalid(field, "%q: want \"A-B\" or \"A\" with 1-based line numbers (for example \"10-40\")", whole)
	}
	x, err := strconv.Atoi(n)
	switch {
	case err != nil || x > maxLine:
		return 0, invalid(field, "%q: %s is larger than any file's line count", whole, n)
	case x < 1:
		return 0, invalid(field, "%q: lines start at 1", whole)
	}
	return x, nil
}

// targetPattern matches PATH:LINE or PATH:LINE:COL; the path is the
// shortest prefix that leaves one or two numbers ("a:12:3.go:5" is line 5
// of the file a:12:3.go), whatever bytes it holds (a newline too).
var targetPattern = regexp.MustCompile(`^(?s:(.+?)):([0-9]+)(?::([0-9]+))?$`)

// ParseTarget reads a target written as text, as the CLI takes it:
// PATH:LINE[:COL] (1-based line, 1-based character column), a path (it
// has a separator: the whole file) or a symbol name.
func ParseTarget(v string) (Target, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return Target{}, invalid("target", "empty: want PATH:LINE[:COL] or a symbol name")
	}
	m := targetPattern.FindStringSubmatch(v)
	if m == nil {
		if strings.ContainsAny(v, `/\`) {
			return Target{File: v}, nil // no name has a path separator
		}
		return Target{Symbol: v}, nil
	}
	line, err := parseNumber("target", v, m[2])
	if err != nil {
		return Target{}, err
	}
	t := Target{File: m[1], Line: line}
	if m[3] != "" {
		if t.Column, err = parseNumber("target", v, m[3]); err != nil {
			return Target{}, err
		}
	}
	return t, nil
}

// ---------------------------------------------------------------------------
// File texts, for positions and columns.

// texts reads files as one request sees them: an editor buffer, else the
// indexed overlay, else the file on disk. Each file is read once.
type texts struct {
	s    *Service
	snap *engine.Snapshot
	m    map[string]*fileText
}

func (s *Service) texts(snap *engine.Snapshot) *texts {
	return &texts{s: s, snap: snap, m: map[string]*fileText{}}
}

// fileText is one file's content and its line starts.
type fileText struct {
	content []byte
	starts  []int // byte offset of each line (0-based lines)
	err     error
}

func (t *texts) get(rel string) (*fileText, error) {
	if ft, ok := t.m[rel]; ok {
		return ft, ft.err
	}
	ft := &fileText{}
	if b, ok := t.s.bufferText(rel); ok {
		ft.content = b
	} else {
		ft.content, ft.err = t.snap.Content(rel)
	}
	if ft.err == nil {
		ft.starts = append(ft.starts, 0)
		for i, c := range ft.content {
			if c == '\n' {
				ft.starts = append(ft.starts, i+1)
			}
		}
	}
	t.m[rel] = ft
	return ft, ft.err
}

// bufferText is the editor's open buffer of rel, if any.
func (s *Service) bufferText(rel string) ([]byte, bool) {
	if s.buffers == nil {
		return nil, false
	}
	return s.buffers.Text(rel)
}

// lineCount is the number of lines (a final newline ends the last line).
func (ft *fileText) lineCount() int {
	n := len(ft.starts)
	if n > 1 && ft.starts[n-1] == len(ft.content) {
		n--
	}
	return n
}

// line returns the text of 0-based line i without its line break.
func (ft *fileText) line(i int) []byte {
	if i < 0 || i >= len(ft.starts) {
		return nil
	}
	end := len(ft.content)
	if i+1 < len(ft.starts) {
		end = ft.starts[i+1] - 1
	}
	l := ft.content[ft.starts[i]:end]
	return bytes.TrimSuffix(l, []byte{'\r'})
}

// byteColumn converts a 1-based character column on a 1-based line to a
// 0-based byte column; a column past the end of the line is the end.
func (ft *fileText) byteColumn(line, col int) int {
	l := ft.line(line - 1)
	off := 0
	for n := 1; n < col && off < len(l); n++ {
		_, size := utf8.DecodeRune(l[off:])
		off += size
	}
	return off
}

// charColumn converts a 0-based byte column on a 0-based line to a
// 1-based character column.
func (ft *fileText) charColumn(line, byteCol int) int {
	l := ft.line(line)
	if byteCol > len(l) {
		byteCol = len(l)
	}
	return utf8.RuneCount(l[:max(byteCol, 0)]) + 1
}

// offset is the byte offset of a 1-based line and character column.
func (ft *fileText) offset(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(ft.starts) {
		return len(ft.content)
	}
	return ft.starts[line-1] + ft.byteColumn(line, col)
}

// spanRange converts a symbols span (0-based lines, byte columns) of rel
// to a Range with character columns; without the file's text the columns
// are left out.
func (t *texts) spanRange(rel string, sp symbols.Span) Range {
	r := Range{StartLine: sp.Start.Line + 1, EndLine: sp.End.Line + 1}
	if ft, err := t.get(rel); err == nil {
		r.StartColumn = ft.charColumn(sp.Start.Line, sp.Start.Column)
		r.EndColumn = ft.charColumn(sp.End.Line, sp.End.Column)
	}
	return r
}

// ---------------------------------------------------------------------------
// Targets and selections.

// checkTarget checks that a target names a symbol or a file position,
// not both; needLine requires the line with the file.
func checkTarget(t Target, needLine bool) error {
	sym := strings.TrimSpace(t.Symbol)
	switch {
	case sym != "" && (t.File != "" || t.Line != 0 || t.Column != 0):
		return invalid("symbol", "give either symbol, or file and line, not both")
	case t.File == "" && t.Line != 0:
		return invalid("file", "required with line")
	case t.Column != 0 && t.Line == 0:
		return invalid("column", "only with file and line")
	case needLine && t.File != "" && t.Line == 0:
		return invalid("line", "required with file (1-based)")
	}
	return nil
}

// engineTarget converts a graph target to the engine's (byte column).
func (s *Service) engineTarget(t Target, tx *texts) (engine.Target, error) {
	if err := checkTarget(t, true); err != nil {
		return engine.Target{}, err
	}
	if strings.TrimSpace(t.Symbol) != "" {
		return engine.Target{Symbol: strings.TrimSpace(t.Symbol)}, nil
	}
	if t.File == "" {
		return engine.Target{}, invalid("symbol", "required: name the definition by symbol, or by file and line")
	}
	rel, err := s.fileRel("file", t.File)
	if err != nil {
		return engine.Target{}, err
	}
	et := engine.Target{Path: rel, Line: t.Line}
	if t.Column > 0 {
		ft, err := tx.get(rel)
		if err != nil {
			return engine.Target{}, classify("file", t.File, err)
		}
		et.Col = ft.byteColumn(t.Line, t.Column) + 1
	}
	return et, nil
}

// spanMode says what a file position alone stands for in a selection.
type spanMode int

const (
	// spanDefinition: the innermost definition around it (an error when
	// there is none).
	spanDefinition spanMode = iota
	// spanLine: that definition, else the position's line.
	spanLine
)

// span is the code a selection names.
type span struct {
	rel        string
	start, end int // 1-based, inclusive
	whole      bool
	symbol     string // the definition the span is, if it is one
}

// Given reports whether a selection names anything.
func (sel Selection) Given() bool {
	return strings.TrimSpace(sel.Symbol) != "" || sel.File != "" || sel.Line != 0 || sel.Column != 0 || sel.Lines != ""
}

// resolveSelection turns a selection into a span: a symbol's best
// definition; lines of a file; the definition around a position (or its
// line, by mode); a whole file.
func (s *Service) resolveSelection(snap *engine.Snapshot, tx *texts, sel Selection, mode spanMode) (span, error) {
	if err := checkTarget(sel.Target, false); err != nil {
		return span{}, err
	}
	switch {
	case sel.Lines != "" && sel.Line != 0:
		return span{}, invalid("lines", "give lines or line, not both")
	case sel.Lines != "" && sel.File == "":
		return span{}, invalid("file", "required with lines")
	}
	if sym := strings.TrimSpace(sel.Symbol); sym != "" {
		syms, err := snap.FindSymbols(sym)
		if err != nil {
			return span{}, classify("symbol", sym, err)
		}
		switch {
		case len(syms) > 0:
			si := syms[0]
			return span{rel: si.Path, start: si.Span.Start.Line + 1, end: si.Span.End.Line + 1, symbol: si.QualifiedName()}, nil
		case sel.File != "" || !s.isFile(sym):
			return span{}, notFound("symbol", "no definition named %q is indexed", sym)
		}
		// A name no definition has that is a workspace file ("main.go", as
		// a CLI TARGET may name one): the whole file.
		sel.File, sel.Symbol = sym, ""
	}
	rel, err := s.fileRel("file", sel.File)
	if err != nil {
		return span{}, err
	}
	ft, err := tx.get(rel)
	if err != nil {
		return span{}, classify("file", sel.File, err)
	}
	n := max(ft.lineCount(), 1)
	if sel.Lines != "" {
		start, end, err := ParseLines("lines", sel.Lines)
		if err != nil {
			return span{}, err
		}
		if start > n {
			return span{}, invalid("lines", "%q: %s has %d lines", sel.Lines, rel, n)
		}
		return span{rel: rel, start: start, end: min(end, n)}, nil
	}
	if sel.Line == 0 {
		return span{rel: rel, start: 1, end: n, whole: true}, nil
	}
	if sel.Line > n {
		return span{}, invalid("line", "%d: %s has %d lines", sel.Line, rel, n)
	}
	col := max(sel.Column, 1)
	syms, err := snap.DocumentSymbols(rel)
	if err != nil && !errors.Is(err, engine.ErrNotIndexed) {
		return span{}, classify("file", sel.File, err)
	}
	sp := span{rel: rel}
	at := symbols.Point{Line: sel.Line - 1, Column: ft.byteColumn(sel.Line, col)}
	// A line given without a column, or a column in its indentation, is
	// the line: the innermost definition holding it (a method's "def"
	// line is the method, not the class around it).
	wholeLine := sel.Column == 0 || at.Column <= indentOf(ft.line(sel.Line-1))
	for _, si := range syms { // source order: the last match is the innermost
		if contains(si.Span, at) || wholeLine && si.Span.Start.Line <= at.Line && at.Line <= si.Span.End.Line {
			sp.start, sp.end, sp.symbol = si.Span.Start.Line+1, si.Span.End.Line+1, si.QualifiedName()
		}
	}
	if sp.symbol != "" {
		return sp, nil
	}
	if mode == spanLine {
		sp.start, sp.end = sel.Line, sel.Line
		return sp, nil
	}
	return span{}, notFound("line", "no definition at %s:%d; give lines instead", rel, sel.Line)
}

// indentOf is the byte length of a line's leading white space.
func indentOf(line []byte) int {
	n := 0
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	return n
}

// maxNamedSelections bounds the definitions one bare name selects for a
// pack or related context.
const maxNamedSelections = 5

// resolveSelections is resolveSelection, except that a symbol naming
// several definitions selects each of them (the best maxNamedSelections,
// with the name's exact case when some have it): "url_for" is every
// url_for the workspace defines, as the symbol argument says.
func (s *Service) resolveSelections(snap *engine.Snapshot, tx *texts, sel Selection, mode spanMode) ([]span, error) {
	first, err := s.resolveSelection(snap, tx, sel, mode)
	if err != nil || strings.TrimSpace(sel.Symbol) == "" || first.symbol == "" {
		return []span{first}, err
	}
	syms, err := snap.FindSymbols(strings.TrimSpace(sel.Symbol))
	if err != nil {
		return nil, classify("symbol", sel.Symbol, err)
	}
	out := []span{first}
	for _, si := range syms[1:] {
		if len(out) == maxNamedSelections {
			break
		}
		if si.Name != syms[0].Name {
			continue // another case of the name: a weaker match
		}
		out = append(out, span{rel: si.Path, start: si.Span.Start.Line + 1, end: si.Span.End.Line + 1, symbol: si.QualifiedName()})
	}
	return out, nil
}

// contains reports whether a span covers a point.
func contains(sp symbols.Span, p symbols.Point) bool {
	after := p.Line > sp.Start.Line || p.Line == sp.Start.Line && p.Column >= sp.Start.Column
	before := p.Line < sp.End.Line || p.Line == sp.End.Line && p.Column <= sp.End.Column
	return after && before
}

// packSelection is the span as packs and related context take it, with
// the text the request sees (an editor buffer) when there is one.
func (s *Service) packSelection(sp span) *packing.Selection {
	sel := &packing.Selection{Path: sp.rel, StartLine: sp.start, EndLine: sp.end}
	if b, ok := s.bufferText(sp.rel); ok {
		sel.Content = b
	}
	return sel
}

// text returns lines start..end of a file (1-based, inclusive).
func (ft *fileText) text(start, end int) string {
	if start < 1 {
		start = 1
	}
	if end > len(ft.starts) {
		end = len(ft.starts)
	}
	if start > end {
		return ""
	}
	stop := len(ft.content)
	if end < len(ft.starts) {
		stop = ft.starts[end]
	}
	return string(ft.content[ft.starts[start-1]:stop])
}

// withSnapshot runs fn on a fresh snapshot.
func withSnapshot[T any](s *Service, fn func(snap *engine.Snapshot) (T, error)) (T, error) {
	snap := s.e.Snapshot()
	defer snap.Release()
	return fn(snap)
}

// ctxErr converts a context's end into the service's error.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return &Error{Code: CodeCancelled, Message: err.Error(), err: err}
	}
	return nil
}

// Rel resolves an absolute path (or one relative to the root) to the
// workspace-relative path requests take; a path outside the workspace is
// an invalid argument.
func (s *Service) Rel(p string) (string, error) { return s.rel("file", p) }
