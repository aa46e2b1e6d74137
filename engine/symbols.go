package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
)

// SymbolInfo is a definition with its location.
type SymbolInfo struct {
	Path     string `json:"path"`
	Language string `json:"language"`
	symbols.Symbol
}

// Qualified returns Container.Name.
func (si SymbolInfo) Qualified() string { return si.QualifiedName() }

// DocumentSymbols returns the definitions of one file in source order
// (Parent indexes give the hierarchy).
func (s *Snapshot) DocumentSymbols(rel string) ([]SymbolInfo, error) {
	rec, err := s.st.File(rel)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%s: %w", rel, ErrNotIndexed)
	}
	if err != nil {
		return nil, err
	}
	syms, err := s.st.Symbols(rel)
	if err != nil {
		return nil, err
	}
	out := make([]SymbolInfo, len(syms))
	for i, sym := range syms {
		out[i] = SymbolInfo{Path: rel, Language: rec.Language, Symbol: sym}
	}
	return out, nil
}

// FindSymbols returns the definitions matching a name: bare ("Func"), or
// qualified by container or package directory ("Type.Method", "pkg.Func",
// "mod::func"). Qualified matches come first; within each group exported
// definitions, then by path.
func (s *Snapshot) FindSymbols(name string) ([]SymbolInfo, error) {
	qual, bare := splitQualified(strings.TrimSpace(name))
	if bare == "" {
		return nil, fmt.Errorf("symbol %q: %w", name, ErrEmptyQuery)
	}
	refs, err := s.st.SymbolsNamed(bare)
	if err != nil {
		return nil, err
	}
	var out []SymbolInfo
	for _, ref := range refs {
		si, err := s.symbolAt(ref)
		if err != nil {
			return nil, err
		}
		if qual != "" && !qualifierMatches(qual, si) {
			continue
		}
		out = append(out, si)
	}
	sortSymbols(out, bare)
	return out, nil
}

func qualifierMatches(qual string, si SymbolInfo) bool {
	if strings.EqualFold(si.Container, qual) || strings.HasSuffix(strings.ToLower(si.Container), "."+strings.ToLower(qual)) {
		return true
	}
	if si.Container == "" || si.Kind == symbols.KindMethod {
		// pkg.Func: the package is the directory (Go), or the module file (Python).
		dir := path.Base(path.Dir(si.Path))
		file := strings.TrimSuffix(path.Base(si.Path), path.Ext(si.Path))
		return strings.EqualFold(dir, qual) || strings.EqualFold(file, qual)
	}
	return false
}

func (s *Snapshot) symbolAt(ref store.SymbolRef) (SymbolInfo, error) {
	sym, err := s.st.Symbol(ref.Path, ref.Ord)
	if err != nil {
		return SymbolInfo{}, fmt.Errorf("symbol %s#%d: %w", ref.Path, ref.Ord, err)
	}
	rec, err := s.st.File(ref.Path)
	if err != nil {
		return SymbolInfo{}, fmt.Errorf("file %s: %w", ref.Path, err)
	}
	return SymbolInfo{Path: ref.Path, Language: rec.Language, Symbol: sym}, nil
}

// sortSymbols orders definitions of one name: exact-case name first, then
// definitionLess.
func sortSymbols(syms []SymbolInfo, name string) {
	sort.SliceStable(syms, func(i, j int) bool {
		a, b := syms[i], syms[j]
		if (a.Name == name) != (b.Name == name) {
			return a.Name == name
		}
		return definitionLess(a, b)
	})
}

// definitionLess orders definitions that share a name by how likely they
// are the one meant: exported, outside tests and test fixtures, in a more
// central (shallower) package, then by path and position.
func definitionLess(a, b SymbolInfo) bool {
	if a.Exported != b.Exported {
		return a.Exported
	}
	if pa, pb := pathPrior(a.Path), pathPrior(b.Path); pa != pb {
		return pa > pb
	}
	if da, db := strings.Count(a.Path, "/"), strings.Count(b.Path, "/"); da != db {
		return da < db
	}
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.Span.StartByte < b.Span.StartByte
}

// WorkspaceSymbols ranks definitions by fuzzy match of their name against
// query: exact, prefix, word-boundary ("qe" → QueryEscape) and subsequence
// matches, in that order of preference.
func (s *Snapshot) WorkspaceSymbols(ctx context.Context, query string, limit int) ([]SymbolInfo, error) {
	if limit <= 0 {
		limit = 100
	}
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return nil, nil
	}
	// Names are scored from the engine's table of distinct names (a
	// superset of this snapshot's), in lexical order, and the best looked
	// up in the snapshot: what a scan of every name key would give.
	names, extra, err := s.e.names(ctx, s)
	if err != nil {
		return nil, err
	}
	var cands []nameCand
	for i := 0; i < names.len(); i++ {
		if i%8192 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if name := names.at(i); len(name) >= len(q) {
			if sc := fuzzyScore(q, name); sc > 0 {
				cands = append(cands, nameCand{name, sc})
			}
		}
	}
	for _, name := range extra {
		if sc := fuzzyScore(q, name); sc > 0 {
			cands = append(cands, nameCand{name, sc})
		}
	}
	return s.rankNamed(query, limit, cands)
}

// nameCand is a lower-cased definition name that matches a workspace
// symbol query, with its fuzzy score.
type nameCand struct {
	name  string
	score int
}

// rankNamed looks up the definitions of the best-scoring names in s and
// ranks them: score (plus a bonus for the query's case), exported first,
// non-test first, then by path.
func (s *Snapshot) rankNamed(query string, limit int, cands []nameCand) ([]SymbolInfo, error) {
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].name < cands[j].name
	})
	type scored struct {
		si    SymbolInfo
		score int
	}
	var out []scored
	for _, c := range cands {
		if len(out) >= 4*limit {
			break
		}
		refs, err := s.st.SymbolsNamed(c.name)
		if err != nil {
			return nil, err
		}
		for _, ref := range refs {
			si, err := s.symbolAt(ref)
			if err != nil {
				continue
			}
			out = append(out, scored{si, c.score + caseBonus(query, si.Name)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		a, b := out[i].si, out[j].si
		if a.Exported != b.Exported {
			return a.Exported
		}
		if ta, tb := isTestPath(a.Path), isTestPath(b.Path); ta != tb {
			return !ta
		}
		return a.Path < b.Path
	})
	if len(out) > limit {
		out = out[:limit]
	}
	res := make([]SymbolInfo, len(out))
	for i, o := range out {
		res[i] = o.si
	}
	return res, nil
}

// fuzzyScore scores a lower-case name against a lower-case query; 0 means
// no match. Exact > prefix > substring > subsequence; shorter names win ties.
func fuzzyScore(q, name string) int {
	switch {
	case name == q:
		return 10000
	case strings.HasPrefix(name, q):
		return 8000 - min(len(name)-len(q), 999)
	case strings.Contains(name, q):
		return 6000 - min(len(name)-len(q), 999)
	}
	// Subsequence: reward contiguous runs, penalise gaps.
	score, run, qi := 0, 0, 0
	for i := 0; i < len(name) && qi < len(q); i++ {
		if name[i] == q[qi] {
			qi++
			run++
			score += 10 * run
		} else {
			run = 0
		}
	}
	if qi < len(q) {
		return 0
	}
	return 1000 + min(score, 2000) - min(len(name), 999)
}

// caseBonus rewards queries whose letters fall on the name's word starts
// ("qe" on QueryEscape, "rf" on read_file) and exact-case prefixes.
func caseBonus(query, name string) int {
	bonus := 0
	if strings.HasPrefix(name, query) {
		bonus += 50
	}
	starts := wordStarts(name)
	ql := strings.ToLower(query)
	if len(ql) > 0 && len(ql) <= len(starts) {
		initials := make([]rune, len(starts))
		for i, st := range starts {
			r, _ := utf8.DecodeRuneInString(name[st:])
			initials[i] = unicode.ToLower(r)
		}
		if strings.HasPrefix(string(initials), ql) {
			bonus += 500
		}
	}
	return bonus
}

// wordStarts returns the byte offsets where words of an identifier start.
func wordStarts(name string) []int {
	var out []int
	prev := rune(0)
	for i, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.':
		case i == 0, prev == '_' || prev == '-' || prev == '.',
			unicode.IsUpper(r) && unicode.IsLower(prev),
			unicode.IsDigit(r) && !unicode.IsDigit(prev):
			out = append(out, i)
		}
		prev = r
	}
	return out
}

// IdentifierAt returns the identifier covering byte offset off in content
// and the qualifier written before it ("pkg" in pkg.Name, "Type" in Type::Name).
func IdentifierAt(content []byte, off int) (ident, qualifier string, start int) {
	if off < 0 || off > len(content) {
		return "", "", -1
	}
	isID := func(b byte) bool {
		return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
	}
	st, end := off, off
	for st > 0 && isID(content[st-1]) {
		st--
	}
	for end < len(content) && isID(content[end]) {
		end++
	}
	if st == end {
		return "", "", -1
	}
	ident = string(content[st:end])
	q := st
	switch {
	case q >= 1 && content[q-1] == '.':
		q--
	case q >= 2 && content[q-1] == ':' && content[q-2] == ':':
		q -= 2
	case q >= 2 && content[q-1] == '>' && content[q-2] == '-':
		q -= 2
	default:
		return ident, "", st
	}
	qe := q
	for q > 0 && isID(content[q-1]) {
		q--
	}
	return ident, string(content[q:qe]), st
}

// Definition resolves the identifier at byte offset off of rel (whose
// current content is content) to its definitions, best first. In the
// indexed version of the file, a definition's own name is that definition,
// and a call site the graph recorded is resolved with its imports and
// receiver types; otherwise by name: the same file, then the package
// named by the qualifier or the file's own package, then the workspace.
func (s *Snapshot) Definition(ctx context.Context, rel string, content []byte, off int) ([]SymbolInfo, error) {
	ident, qual, start := IdentifierAt(content, off)
	if ident == "" {
		return nil, nil
	}
	if rec, err := s.st.File(rel); err == nil && rec.Hash == store.ContentHash(content) {
		syms, err := s.st.Symbols(rel)
		if err != nil {
			return nil, err
		}
		for _, sym := range syms {
			if sym.NameSpan.StartByte == start && sym.Name == ident {
				return []SymbolInfo{{Path: rel, Language: rec.Language, Symbol: sym}}, nil
			}
		}
		line := bytes.Count(content[:off], []byte{'\n'})
		col := off - (bytes.LastIndexByte(content[:off], '\n') + 1)
		defs, found, err := s.ResolveCall(ctx, rel, line, col)
		if err != nil {
			return nil, err
		}
		if found && len(defs) > 0 {
			return defs, nil
		}
	}
	return s.ResolveName(ctx, rel, ident, qual)
}

// ResolveName ranks the definitions named ident as seen from file rel:
// those qualified by qual (a container or package) first, then those of
// rel itself, of its directory, the exported ones, the rest; tests last
// among equals.
func (s *Snapshot) ResolveName(ctx context.Context, rel, ident, qual string) ([]SymbolInfo, error) {
	refs, err := s.st.SymbolsNamed(ident)
	if err != nil {
		return nil, err
	}
	dir := path.Dir(rel)
	type ranked struct {
		si   SymbolInfo
		rank int
	}
	var out []ranked
	for _, ref := range refs {
		si, err := s.symbolAt(ref)
		if err != nil {
			return nil, err
		}
		if si.Name != ident {
			continue // the name index ignores case; definitions do not
		}
		r := 5
		switch {
		case qual != "" && qualifierMatches(qual, si):
			r = 1
		case si.Path == rel && qual == "":
			r = 0
		case si.Path == rel:
			r = 2
		case path.Dir(si.Path) == dir:
			r = 3
		case si.Exported:
			r = 4
		}
		out = append(out, ranked{si, r})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].rank != out[j].rank {
			return out[i].rank < out[j].rank
		}
		return isTestPath(out[j].si.Path) && !isTestPath(out[i].si.Path)
	})
	res := make([]SymbolInfo, len(out))
	for i, o := range out {
		res[i] = o.si
	}
	return res, nil
}

// FirstSentence returns the first sentence of a doc comment on one line
// (at most about 200 bytes).
func FirstSentence(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	for i := 0; i < len(doc); i++ {
		if doc[i] == '.' && (i+1 == len(doc) || doc[i+1] == ' ') {
			return doc[:i+1]
		}
	}
	if len(doc) > 200 {
		cut := strings.LastIndexByte(doc[:200], ' ')
		if cut <= 0 {
			cut = 200
		}
		return strings.ToValidUTF8(doc[:cut], "") + " …"
	}
	return doc
}
