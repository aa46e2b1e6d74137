package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/context-ls/context-ls/querytext"
	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/vectors"
)

// SearchRequest is a ranked-retrieval query.
type SearchRequest struct {
	Query string
	// K is the number of hits wanted (default 10).
	K int
	// Languages and Kinds restrict hits to these exact values.
	Languages []string
	Kinds     []string
	// Paths are globs on the workspace-relative path ("**" crosses
	// directories); a hit must match one of them. A glob starting with "!"
	// excludes instead ("!**/*_test.go").
	Paths []string
	// MinScore drops hits whose normalised score is below it.
	MinScore float64
	// PerFileCap bounds hits per file (0: the workspace default, < 0: no
	// bound).
	PerFileCap int
	// Lexical skips the vector leg (words and names only).
	Lexical bool
}

// Hit is one search result: a located chunk.
type Hit struct {
	Path      string   `json:"path"`
	StartLine int      `json:"startLine"`
	EndLine   int      `json:"endLine"`
	Symbol    string   `json:"symbol"`
	Kind      string   `json:"kind"`
	Language  string   `json:"language"`
	Score     float64  `json:"score"`
	Sources   []string `json:"sources"`
	// The fields below are for in-process consumers (packs, LSP, MCP); the
	// CLI's JSON contract does not include them.
	Text    string `json:"-"`
	Summary string `json:"-"`
	// DefStart and DefEnd are the 1-based lines of the whole definition
	// the hit shows part of or all of (its doc comment included); 0 for a
	// hit outside every definition.
	DefStart, DefEnd int           `json:"-"`
	Chunk            store.ChunkID `json:"-"`
	Tokens           int           `json:"-"`
	// Evidence is how much each kind of evidence added to the file's
	// score (before normalisation): why the file ranked where it did.
	Evidence map[string]float64 `json:"-"`
	// Framed reports a definition a stack frame of the text names: the
	// frame's line lies in it (fileDefs.frameUnit).
	Framed bool `json:"-"`
	// Printed reports a definition that prints a message or a heading the
	// text quotes as the program printed it.
	Printed bool `json:"-"`
}

// SearchResult is the answer to a SearchRequest.
type SearchResult struct {
	Query string `json:"query"`
	Hits  []Hit  `json:"hits"`
	// Files are the ranked files the hits come from, best first, at most
	// K: the answer to "which files should I change for this?". The CLI's
	// JSON contract does not include them yet.
	Files []FileHit `json:"-"`
}

// FileHit is a ranked file: its score normalised to the best file's, and
// the kinds of evidence that found it ("body", "title", "name", "literal",
// "path", "filename", "symbol", "vector", "code", "tested", and the others
// locate.go lists; a text leg's matches in embedded prose are "body-prose",
// "title-prose" …).
type FileHit struct {
	Path    string   `json:"path"`
	Score   float64  `json:"score"`
	Sources []string `json:"sources"`
}

// ErrEmptyQuery: the query has no text.
var ErrEmptyQuery = errors.New("empty query")

// minCoveredParts: the number of name words a query must cover for a
// definition to enter the symbol leg by its words alone — one common word
// ("Write", "Header") is weak evidence, two ("ReadFile") strong.
const minCoveredParts = 2

// Search ranks a workspace's code for a query: a few words, a name, or a
// pasted bug report. The query is read as evidence (package querytext),
// files are ranked by it (locate.go), and the hits are the best files' best
// chunks, file by file, with near-duplicates set apart by maximal marginal
// relevance. A short query none of whose words occur in the workspace
// returns no hits: the least bad ones would be noise, and with embeddings
// on they would be noise with a confident score (use-lite ranks
// "zzqxv_nomatch_qq" as near to code as a real question).
func (s *Snapshot) Search(ctx context.Context, req SearchRequest) (SearchResult, error) {
	start := time.Now()
	res := SearchResult{Query: req.Query, Hits: []Hit{}}
	q := strings.TrimSpace(req.Query)
	if q == "" {
		return res, fmt.Errorf("search: %w", ErrEmptyQuery)
	}
	if err := validGlobs(req.Paths); err != nil {
		return res, err
	}
	k := req.K
	if k <= 0 {
		k = 10
	}
	capN := req.PerFileCap
	if capN == 0 {
		capN = s.e.perFileCap()
	}
	capN = max(capN, 0)
	ev := querytext.Analyse(q)
	if !ev.Long {
		ok, err := s.e.text.Matches(ctx, q)
		if err != nil {
			return res, err
		}
		if !ok {
			s.e.stats.recordQuery(time.Since(start))
			return res, nil // about nothing the workspace holds
		}
	}
	qc := &queryCtx{s: s, chunks: map[string]*store.ChunkRecord{}, terms: termSet(q), priors: queryPriors(q, ev)}
	cands, err := qc.locate(ctx, ev, req, mmrWindow*k, capN)
	if err == nil {
		err = qc.failed()
	}
	if err != nil {
		return res, err
	}
	res.Hits = qc.diversify(cands, k)
	for _, h := range cands {
		if len(res.Files) == k {
			break
		}
		if n := len(res.Files); n == 0 || res.Files[n-1].Path != h.Path {
			res.Files = append(res.Files, FileHit{Path: h.Path, Score: h.Score, Sources: h.Sources})
		}
	}
	s.e.stats.recordQuery(time.Since(start))
	return res, nil
}

// mmrWindow: MMR reorders the best mmrWindow·k candidates.
const mmrWindow = 3

// mmrRankDecay is the rank over which MMR's relevance falls by e.
const mmrRankDecay = 10.0

// diversify picks k of the candidates (best first) by maximal marginal
// relevance: near-duplicates (mirrored files, generated copies) give way
// to different code. The candidates are ranked by file, so scores are
// compressed; MMR weighs relevance by rank instead, e^(-rank/mmrRankDecay),
// and a near-duplicate slips a few places rather than out of the list.
func (qc *queryCtx) diversify(cands []Hit, k int) []Hit {
	rel := make([]float64, len(cands))
	for i := range cands {
		rel[i] = math.Exp(-float64(i) / mmrRankDecay)
	}
	sim := qc.similarity(cands)
	out := make([]Hit, 0, min(k, len(cands)))
	for _, i := range search.MMR(rel, qc.s.e.mmrLambda(), k, sim) {
		out = append(out, cands[i])
	}
	return out
}

// vectorLeg ranks chunks by the cosine similarity of their embedding to
// text's, or returns nil when no vectors can be used (embeddings off,
// unavailable or not loaded yet). Hits the snapshot does not hold or that
// the language/kind filters exclude are dropped.
func (qc *queryCtx) vectorLeg(ctx context.Context, text string, kind vectors.InputKind, depth int, langs, kinds []string) ([]search.Hit, error) {
	view, model := qc.s.e.emb.view()
	if view == nil {
		return nil, nil
	}
	vs, err := model.Embed(ctx, []string{text}, kind)
	if err != nil || len(vs) == 0 || vs[0] == nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		qc.s.e.log.Warn("query embedding failed; vector leg skipped", "err", err)
		return nil, nil
	}
	var hits []search.Hit
	for _, h := range view.Search(vs[0], depth, nil) {
		key := store.ChunkID(h.ID).String()
		c, ok := qc.chunk(key)
		if !ok || (len(langs) > 0 && !contains(langs, c.Language)) || (len(kinds) > 0 && !contains(kinds, c.Kind)) {
			continue
		}
		hits = append(hits, search.Hit{ID: key, Score: float64(h.Score)})
	}
	return hits, nil
}

// SimilarRequest asks for code that looks like a snippet.
type SimilarRequest struct {
	Text      string
	K         int
	Languages []string
	Paths     []string // globs, as in SearchRequest
	// Exclude drops hits overlapping this place (the snippet's own location).
	ExcludePath              string
	ExcludeStart, ExcludeEnd int // 1-based lines
}

// ErrNoEmbeddings: the request needs vectors and there are none.
var ErrNoEmbeddings = errors.New("embeddings are not available")

// Similar finds the chunks whose embeddings are nearest to a code snippet's
// (vector leg only). It fails with ErrNoEmbeddings, saying why, when
// embeddings are off or unavailable.
func (s *Snapshot) Similar(ctx context.Context, req SimilarRequest) (SearchResult, error) {
	res := SearchResult{Query: req.Text, Hits: []Hit{}}
	if strings.TrimSpace(req.Text) == "" {
		return res, fmt.Errorf("similar: %w", ErrEmptyQuery)
	}
	if err := validGlobs(req.Paths); err != nil {
		return res, err
	}
	if view, _ := s.e.emb.view(); view == nil {
		st := s.e.emb.stats()
		why := st.State
		if st.Reason != "" {
			why += ": " + st.Reason
		}
		return res, fmt.Errorf("similar: %w (%s)", ErrNoEmbeddings, why)
	}
	k := req.K
	if k <= 0 {
		k = 10
	}
	qc := &queryCtx{s: s, chunks: map[string]*store.ChunkRecord{}, terms: termSet(req.Text)}
	hits, err := qc.vectorLeg(ctx, req.Text, vectors.Document, max(10*k, 100), req.Languages, nil)
	if err != nil {
		return res, err
	}
	n := float64(len(hits))
	for i, h := range hits {
		if len(res.Hits) >= k {
			break
		}
		meta, _ := qc.chunk(h.ID)
		if !matchPaths(req.Paths, meta.Path) ||
			(meta.Path == req.ExcludePath && meta.StartLine <= req.ExcludeEnd && req.ExcludeStart <= meta.EndLine) {
			continue
		}
		c, err := s.st.Chunk(meta.ID)
		if err != nil {
			return res, err
		}
		res.Hits = append(res.Hits, hitOf(c, round3(1-float64(i)/n), []string{"vector"}, qc.terms))
	}
	return res, qc.failed()
}

// queryCtx memoises chunk records (without text) for one query: the legs
// look at the same chunks several times.
type queryCtx struct {
	s      *Snapshot
	terms  map[string]bool               // the query's search terms
	priors [numClasses]float64           // path class priors (queryPriors)
	mu     sync.Mutex                    // guards chunks and err: legs run concurrently
	chunks map[string]*store.ChunkRecord // by id string; nil: not in snapshot
	err    error                         // the first read that failed other than "not found" (damage)
}

// failed returns the first read error of the query: its answer would be
// wrong without a word, so the query fails instead.
func (qc *queryCtx) failed() error {
	qc.mu.Lock()
	defer qc.mu.Unlock()
	return qc.err
}

// prior is the query's prior for a path.
func (qc *queryCtx) prior(p string) float64 { return qc.priors[classOf(p)] }

// embeddedProse reports whether chunk c, of a file of code, is mostly
// English held in string literals (isEmbeddedProse). Its text is read once
// per process (proseCache); a chunk whose text cannot be read is not prose.
func (qc *queryCtx) embeddedProse(c *store.ChunkRecord) bool {
	if !isCode(classOf(c.Path)) || !literalsJudged(c.Language) {
		return false // no chunk text read for an answer known already
	}
	if v, ok := proseCache.get(c.ID); ok {
		return v
	}
	rec, err := qc.s.st.Chunk(c.ID)
	if err != nil {
		return false
	}
	v := isEmbeddedProse(rec.Text, rec.Language)
	proseCache.put(c.ID, v)
	return v
}

func (qc *queryCtx) chunk(key string) (*store.ChunkRecord, bool) {
	qc.mu.Lock()
	c, ok := qc.chunks[key]
	qc.mu.Unlock()
	if ok {
		return c, c != nil
	}
	var readErr error
	if id, err := store.ParseChunkID(key); err == nil {
		m, err := qc.s.st.ChunkMeta(id)
		switch {
		case err == nil:
			c = &m
		case !errors.Is(err, store.ErrNotFound):
			readErr = err // a text-index hit the snapshot lacks is not found; anything else is damage
		}
	}
	qc.mu.Lock()
	qc.chunks[key] = c
	if readErr != nil && qc.err == nil {
		qc.err = fmt.Errorf("reading chunk %s: %w", key, readErr)
	}
	qc.mu.Unlock()
	return c, c != nil
}

// symbolLeg ranks chunks by the definitions the query names.
// Identifier-like tokens ("QueryEscape", "url.Parse", "read_file") are
// looked up exactly, qualified matches first. For words, a definition
// qualifies when the query covers its whole name and the name has at least
// minCoveredParts words ("read an entire file" covers ReadFile); names
// covered by more words rank first, then by the text index's name score.
func (qc *queryCtx) symbolLeg(ctx context.Context, q string, tq search.Query) ([]string, error) {
	var keys []string
	for _, ident := range identifiersIn(q) {
		ids, err := qc.s.chunksNamed(ident, tq.Languages)
		if err != nil {
			return nil, err
		}
		keys = append(keys, ids...)
	}
	// Names the query spells with its words: "read an entire file" spells
	// ReadFile (words in order, at most one skipped), "parse a multipart
	// form" ParseMultipartForm. Exact lookups in the name index, so there is
	// no candidate list to fall off; ranked by words spelled, then like
	// definitions of a name (exported, not tests, central packages first).
	type spelled struct {
		si    SymbolInfo
		chunk string
		words int
	}
	var sp []spelled
	for _, name := range spelledNames(q) {
		refs, err := qc.s.st.SymbolsNamed(name.name)
		if err != nil {
			return nil, err
		}
		for _, ref := range refs {
			if ref.Chunk == 0 {
				continue
			}
			si, err := qc.s.symbolAt(ref)
			if err != nil || (len(tq.Languages) > 0 && !contains(tq.Languages, si.Language)) {
				continue
			}
			sp = append(sp, spelled{si, ref.Chunk.String(), name.words})
		}
	}
	sort.SliceStable(sp, func(i, j int) bool {
		if sp[i].words != sp[j].words {
			return sp[i].words > sp[j].words
		}
		return definitionLess(sp[i].si, sp[j].si)
	})
	for _, x := range sp {
		keys = append(keys, x.chunk)
	}
	names, err := qc.s.e.text.SearchNames(ctx, tq)
	if err != nil {
		return nil, err
	}
	type covered struct {
		id      string
		matched int
		score   float64
	}
	var cov []covered
	qterms := termSet(q) // the leg's text: an issue's title, not words of its body

	for _, h := range names {
		c, ok := qc.chunk(h.ID)
		if !ok {
			continue
		}
		best := 0
		for _, sym := range c.Symbols {
			best = max(best, nameCoverage(sym, qterms))
		}
		if best >= minCoveredParts {
			cov = append(cov, covered{h.ID, best, h.Score * qc.prior(c.Path)})
		}
	}
	sort.SliceStable(cov, func(i, j int) bool {
		if cov[i].matched != cov[j].matched {
			return cov[i].matched > cov[j].matched
		}
		return cov[i].score > cov[j].score
	})
	for _, c := range cov {
		keys = append(keys, c.id)
	}
	return keys, nil
}

// spelledName is a lower-case identifier spelled by words of a query.
type spelledName struct {
	name  string
	words int
}

// spelledNames returns the identifiers a query spells: 3 and 2 of its
// content words in order, concatenated, with at most one word skipped
// between them; longer names first. Stop words are not words here.
func spelledNames(q string) []spelledName {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) > 1 && !search.IsStopWord(w) {
			words = append(words, w)
		}
	}
	var out []spelledName
	seen := map[string]bool{}
	emit := func(parts []string) {
		if name := strings.Join(parts, ""); !seen[name] {
			seen[name] = true
			out = append(out, spelledName{name, len(parts)})
		}
	}
	for n := 3; n >= 2; n-- {
		for i := 0; i+n <= len(words); i++ {
			emit(words[i : i+n]) // contiguous
		}
		for i := 0; i+n < len(words); i++ {
			// n+1 words with one inner word skipped
			for skip := i + 1; skip < i+n; skip++ {
				emit(append(append([]string(nil), words[i:skip]...), words[skip+1:i+n+1]...))
			}
		}
	}
	return out
}

// nameCoverage returns the number of words in the last segment of a
// qualified name when the query terms cover all of them, else 0.
func nameCoverage(qname string, qterms map[string]bool) int {
	if i := strings.LastIndexAny(qname, ".:"); i >= 0 {
		qname = qname[i+1:]
	}
	parts := search.NameParts(qname)
	for _, p := range parts {
		if !qterms[p] {
			return 0
		}
	}
	return len(parts)
}

// identifiersIn returns the tokens of q that look like code identifiers
// (camelCase, snake_case, dotted or :: qualified names) and so deserve an
// exact definition lookup; a one-word query is looked up too. Plain words
// are left to the text legs.
func identifiersIn(q string) []string {
	fields := strings.FieldsFunc(q, func(r rune) bool {
		return !(r == '_' || r == '.' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127)
	})
	var out []string
	for _, f := range fields {
		f = strings.Trim(f, ".:")
		if f == "" {
			continue
		}
		if len(fields) == 1 || strings.ContainsAny(f, "._:") || hasInnerUpper(f) {
			out = append(out, f)
		}
	}
	return out
}

// hasInnerUpper reports camelCase: an upper-case letter after the first
// character ("QueryEscape", "readFile", "HTTPServer"; not "Go" or "URL").
func hasInnerUpper(s string) bool {
	lowerSeen := false
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			lowerSeen = true
		case r >= 'A' && r <= 'Z' && i > 0 && lowerSeen:
			return true
		}
	}
	return false
}

// chunksNamed returns the chunks defining ident ("Name", "Type.Name",
// "pkg.Name", "pkg::Name"), best first: qualified matches, then the rest
// ordered by path prior.
func (s *Snapshot) chunksNamed(ident string, langs []string) ([]string, error) {
	qual, name := splitQualified(ident)
	refs, err := s.st.SymbolsNamed(name)
	if err != nil {
		return nil, err
	}
	type ranked struct {
		id   string
		rank float64
	}
	var out []ranked
	for _, ref := range refs {
		if ref.Chunk == 0 {
			continue
		}
		rank := pathPrior(ref.Path)
		if qual != "" || len(langs) > 0 {
			si, err := s.symbolAt(ref)
			if err != nil {
				continue
			}
			if len(langs) > 0 && !contains(langs, si.Language) {
				continue
			}
			if qual != "" && qualifierMatches(qual, si) {
				rank += 10
			}
		}
		out = append(out, ranked{ref.Chunk.String(), rank})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].rank > out[j].rank })
	ids := make([]string, len(out))
	for i, r := range out {
		ids[i] = r.id
	}
	return ids, nil
}

// bestSymbol names a hit: of the definitions a chunk covers (merged small
// declarations cover several), the one whose name shares most terms with the
// query; the first on ties; the chunk's label when it covers none.
func bestSymbol(syms []string, label string, qterms map[string]bool) string {
	best, bestN := label, -1
	for _, sym := range syms {
		n := 0
		for t := range termSet(sym) {
			if qterms[t] {
				n++
			}
		}
		if n > bestN {
			best, bestN = sym, n
		}
	}
	return best
}

// termSet returns the search terms of s (the text analyzer's terms).
func termSet(s string) map[string]bool {
	m := map[string]bool{}
	search.Terms([]byte(s), func(t string, _, _ int) { m[t] = true })
	return m
}

// splitQualified splits "a.b.Name" / "a::Name" into the last qualifier and
// the name.
func splitQualified(ident string) (qual, name string) {
	ident = strings.ReplaceAll(ident, "::", ".")
	if i := strings.LastIndexByte(ident, '.'); i > 0 && i < len(ident)-1 {
		q := ident[:i]
		if j := strings.LastIndexByte(q, '.'); j >= 0 {
			q = q[j+1:]
		}
		return q, ident[i+1:]
	}
	return "", strings.Trim(ident, ".")
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

func (e *Engine) mmrLambda() float64 { return e.cfg.Search.MMRLambda }

// perFileCap is the workspace's bound on hits per file; 0: none.
func (e *Engine) perFileCap() int { return e.cfg.Search.PerFileCap }
