package engine

import (
	"context"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/context-ls/context-ls/querytext"
	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/vectors"
)

// Search ranks files first, then their chunks. Each kind of evidence the
// query holds (package querytext) scores files on its own scale, and a
// file's score is the weighted sum, every part scaled by the file's path
// prior (priors.go):
//
//   - body: BM25 over the chunks, regrouped by file (the best chunk, then a
//     decreasing share of the next ones) and normalised to 1 for the best
//     file of code. A chunk of code that is mostly English in string
//     literals (a licence text: isEmbeddedProse) counts at the docs prior,
//     shown apart as body-prose. For issue-like text the body is its prose
//     only: blocks of code, tracebacks, logs and output are read for
//     evidence of their own and never join the bag of words;
//   - title: the same for the first line of a text of several lines (a
//     commit subject, an issue title), which says in a few words what the
//     rest says in many;
//   - code: BM25 of the identifier words of code blocks and tracebacks
//     (lower: it is the user's code, calling the library's);
//   - vector: the nearest chunks by embedding, regrouped like the body;
//   - symbol: definitions the query names or spells ("read an entire file"
//     → ReadFile), ranked (search.go, symbolLeg); for issue-like text, from
//     its title only;
//   - name: a file that defines a name the text uses gains by how sure the
//     text is that it is a name of code and by how specific the name is (one
//     definition in the workspace: all of it; ten: a tenth each);
//   - literal: a file whose code holds a quoted message or option verbatim
//     (a printed message by the runs of words between its quoted values, a
//     label with its colon); a printed one names the definition holding it;
//   - used: a file whose code holds a compound name of the text
//     (protected_args, _fetch, REQUEST_URI) that nothing defines — a nested
//     function, an attribute, a key — verbatim;
//   - path: a file the text names by path, stack frame or module;
//   - filename: a file whose name the query spells (idf-weighted words of
//     the base name, and at half weight of the directory);
//   - spelled: for issue-like text, a file whose whole base name adjacent
//     words of the text spell ("ID tracking" → idtracking.py, "string slice flag" →
//     flag_string_slice.go), more from the title than from the body;
//   - kin: for issue-like text, the files defining the kin of a compound
//     name nothing defines — names that begin with its first word
//     (EnableCaseInsensitive → EnablePrefixMatching): a new name is
//     declared beside its kin;
//   - caller: for issue-like text, the files that call a compound name of
//     the text that is defined (PostParse → the file that calls it): a
//     change named after a function is often made where it is called;
//   - neighbour: last, for issue-like text, a share of the scores of the
//     best files a file is linked to in the graph (imports, calls;
//     neighbours.go).
//
// This file runs the legs, regroups the text legs' chunks by file and
// turns the files into hits; the legs of what the text names of the code
// (name, literal, used, kin, caller) are in locate_names.go, those of the
// files it names (path, filename, spelled, tested) in locate_paths.go.
//
// The weights were set on ../shared/eval (go run ./bench search and
// go run ./bench localise print the figures); see ARCHITECTURE.md.
var locWeights = struct {
	body, title, code, vector, symbol, symbolLong, name, literal, path, filename, spelled, used, kin, caller float64
}{
	body:       1.0,
	title:      0.6,
	code:       0.4,
	vector:     0.3,
	symbol:     0.5,
	symbolLong: 0.25,
	name:       0.8,
	literal:    0.8,
	path:       1.0,
	filename:   0.3,
	spelled:    1.2,
	used:       0.4,
	kin:        0.4,
	caller:     0.8,
}

// Depths and limits: how deep a text leg reads for issue-like text,
// whatever k (a question reads max(10·k, 100)), and how much of a text's evidence is
// used (a report naming fifty identifiers is weighed by its best ones).
const (
	locDepth    = 200
	locMaxNames = 24
	locMaxLits  = 8
	locLitDepth = 40
	// locDeepLitDepth: the chunks read for a literal whose words BM25
	// cannot rank (a label, "Flags:"; a run of a message's template).
	locDeepLitDepth = 400
	// locDeepLitReads bounds the chunks read that way for one kind of
	// literal: a report pasting many errors reads the first ones deep.
	locDeepLitReads = 1200
)

// locChunkPart: each further matching chunk of a file adds this share of
// the one before. A question asks for one thing, found in one place; a
// description of a change in several lines touches several parts of the file
// it changes. A description of one line (querytext: one sentence of more than
// longWords words) says one thing, like a question: at 0.8 its common words
// add up over the many chunks of a large module, which then passes the
// smaller file the sentence is about.
const locChunkPart, locChunkPartLong = 0.5, 0.8

// noVectorLeg reports a text whose files are found without the vector leg:
// a description of several lines (a title and a body). Its lexical legs
// (body, title, code, names, literals…) already carry what it says, and a
// sentence encoder's one vector for a report of several sentences — use-lite
// reads 128 tokens — moved the right file down more often than up: on the
// localisation dev set (every fifth query, with use-lite) the leg at any
// weight from 0.1 to 0.3 left hybrid MRR below lexical (0.914 at 0.3, 0.928
// at 0.1, against 0.930), at 0 equal. Questions and one-sentence
// descriptions keep it (Go dev questions: hybrid hit@1 and MRR above
// lexical).
func noVectorLeg(ev querytext.Evidence) bool { return ev.Long && ev.Title != "" }

// fileEv accumulates the evidence pointing at one file; every part is
// already scaled by the file's prior.
type fileEv struct {
	path   string
	score  float64
	prior  float64
	parts  map[string]float64 // evidence kind → its share of score
	chunks map[string]float64 // chunk id → evidence for that chunk
	named  []namedLine        // definitions the text names, by a line in them (their name's, a frame's)
}

// namedLine is a definition the text names: the line of its name and how
// sure the text is of it (the name's sureness × how well it fits ÷ how many
// files define it).
type namedLine struct {
	line  int
	sure  float64
	frame bool   // a stack frame's line
	fn    string // the frame's function, its last part; "" when unknown
	cls   string // the part of the frame's name before fn, its last part ("Cart" of com.shop.Cart.total)
	// printed: the line holds a message or label the text quotes as the
	// program printed it.
	printed bool
}

// add credits the file with w of one kind of evidence.
func (f *fileEv) add(kind string, w float64) {
	f.score += w
	f.parts[kind] += w
}

// locator ranks files for one query.
type locator struct {
	qc         *queryCtx
	req        SearchRequest
	files      map[string]*fileEv
	paths      []string             // every indexed path, read when path evidence needs it
	frameFiles map[string]frameFile // frameFile's answers by frame file
	chunkPart  float64
	defined    []definedName  // compound names of the text that are defined (addNames)
	qterms     map[string]int // the query's terms and how often it uses each (rankDefs)
}

// definedName is a compound name of the text and the files defining it.
type definedName struct {
	sure  float64 // the text's sureness that it is a name
	bare  string
	files map[string]bool
}

func (l *locator) file(p string) *fileEv {
	f := l.files[p]
	if f == nil {
		f = &fileEv{path: p, prior: l.qc.prior(p), parts: map[string]float64{}, chunks: map[string]float64{}}
		l.files[p] = f
	}
	return f
}

// locate ranks the files for a query and returns up to k of their best
// chunks, file by file. The text legs, the symbol leg and the vector leg run
// side by side; their evidence is then added up in a fixed order.
func (qc *queryCtx) locate(ctx context.Context, ev querytext.Evidence, req SearchRequest, k, capN int) ([]Hit, error) {
	q := strings.TrimSpace(req.Query)
	l := &locator{qc: qc, req: req, files: map[string]*fileEv{}, chunkPart: locChunkPart, qterms: termCounts(q)}
	depth := max(10*k/mmrWindow, 100)
	if len(req.Paths) > 0 {
		depth *= 4 // the legs cannot filter by glob: read deeper
	}
	type textLeg struct {
		kind, text string
		weight     float64
	}
	legs := []textLeg{{"body", q, locWeights.body}}
	symText, vecText := q, q
	if ev.Long {
		if ev.Title != "" { // several lines; one sentence is regrouped like a question
			l.chunkPart = locChunkPartLong
		}
		// Not ten per hit asked for, as a question: the order of the files
		// must not depend on how many hits are asked for, and deeper reads
		// let many weak chunks of large modules add up (k = 50 read 500
		// chunks: localisation Acc@5 0.907 where 200 gives 0.913).
		depth = max(k, locDepth)
		if len(req.Paths) > 0 {
			depth *= 4
		}
		legs = []textLeg{{"body", ev.Prose, locWeights.body}, {"title", ev.Title, locWeights.title}, {"code", ev.Code, locWeights.code}}
		symText, vecText = ev.Title, ev.Prose
		l.qterms = termCounts(ev.Prose + "\n" + ev.Code)
	}
	tq := func(text string, limit int) search.Query {
		return search.Query{Text: text, Languages: req.Languages, Kinds: req.Kinds, Limit: limit}
	}
	legQuery := func(text string, limit int) search.Query {
		q := tq(text, limit)
		q.Repeats = ev.Long
		return q
	}
	var (
		wg       sync.WaitGroup
		textHits = make([][]search.Hit, len(legs))
		sym      []string
		vec      []search.Hit
		errs     = make([]error, len(legs)+2)
	)
	for i, leg := range legs {
		if strings.TrimSpace(leg.text) == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			textHits[i], errs[i] = qc.s.e.text.Search(ctx, legQuery(leg.text, depth))
		}()
	}
	if strings.TrimSpace(symText) != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sym, errs[len(legs)] = qc.symbolLeg(ctx, symText, tq(symText, 100))
		}()
	}
	// The vector leg reads a question or a one-sentence description; a
	// description of several lines is left to the text legs (noVectorLeg).
	if !req.Lexical && !noVectorLeg(ev) {
		vec, errs[len(legs)+1] = qc.vectorLeg(ctx, vecText, vectors.Query, depth, req.Languages, req.Kinds)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for i, leg := range legs {
		l.addText(leg.kind, textHits[i], leg.weight)
	}
	l.addText("vector", vec, locWeights.vector)
	symWeight := locWeights.symbol
	if ev.Long {
		symWeight = locWeights.symbolLong
	}
	l.addRanked("symbol", sym, symWeight)
	names, err := l.ownNames(ev.Names)
	if err != nil {
		return nil, err
	}
	used, err := l.addNames(names)
	if err != nil {
		return nil, err
	}
	if err := l.addLiterals(ctx, "literal", ev.Literals, litQuoted, locWeights.literal, tq); err != nil {
		return nil, err
	}
	if err := l.addLiterals(ctx, "literal", ev.Messages, litPrinted, locWeights.literal, tq); err != nil {
		return nil, err
	}
	if err := l.addLiterals(ctx, "literal", ev.Labels, litLabel, locWeights.literal, tq); err != nil {
		return nil, err
	}
	if err := l.addLiterals(ctx, "used", used, litQuoted, locWeights.used, tq); err != nil {
		return nil, err
	}
	if ev.Long {
		if err := l.addKin(ctx, ev.Names, used, tq); err != nil {
			return nil, err
		}
		if err := l.addCallers(ev.Paths); err != nil {
			return nil, err
		}
	}
	if err := l.addPaths(ev); err != nil {
		return nil, err
	}
	l.addFileNames(ev, q)
	if !ev.Long && qc.priors[classTest] == 1 {
		if err := l.addTestsOfCode(); err != nil {
			return nil, err
		}
	}
	if ev.Long {
		if err := l.addNeighbours(); err != nil {
			return nil, err
		}
	}
	return l.hits(k, capN)
}

// addText regroups BM25 hits by file: a file scores its best chunk plus a
// decreasing share of its next ones (several matching parts lift a file, a
// large module's many weak matches do not), normalised to 1 for the best
// file; every chunk keeps its own normalised score. A chunk of code that is
// mostly English in string literals (embedded prose: a licence text) counts
// at the docs prior, and what such chunks add to a file is shown apart, as
// kind+"-prose". Only the best proseDepth chunks of a leg are read for it:
// they decide the order, and reading a chunk's text costs.
func (l *locator) addText(kind string, hits []search.Hit, weight float64) {
	per, perProse := map[string]float64{}, map[string]float64{}
	seen := map[string]int{}
	best := 0.0
	type scored struct {
		id, path string
		score    float64
		prose    bool
	}
	var hs []scored
	for _, h := range hits {
		c, ok := l.qc.chunk(h.ID)
		if !ok || !matchPaths(l.req.Paths, c.Path) {
			continue
		}
		s := h.Score * l.file(c.Path).prior
		prose := len(hs) < proseDepth && l.qc.embeddedProse(c)
		if prose {
			s *= l.qc.priors[classDocs]
		}
		hs = append(hs, scored{h.ID, c.Path, s, prose})
		best = max(best, s)
	}
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].score > hs[j].score })
	for _, h := range hs {
		share := 1.0
		for i := 0; i < seen[h.path]; i++ {
			share *= l.chunkPart
		}
		seen[h.path]++
		if h.prose {
			perProse[h.path] += share * h.score
		} else {
			per[h.path] += share * h.score
		}
		l.file(h.path).chunks[h.id] += weight * h.score / best
	}
	// Normalised to the best file of code: a changelog that retells the
	// text word for word must not squeeze every file of code into the
	// bottom of the scale.
	top, topAny := 0.0, 0.0
	for p := range seen {
		s := per[p] + perProse[p]
		topAny = max(topAny, s)
		if isCode(classOf(p)) {
			top = max(top, s)
		}
	}
	if top == 0 {
		top = topAny
	}
	for p := range seen {
		if s := per[p]; s > 0 {
			l.file(p).add(kind, weight*s/top)
		}
		if s := perProse[p]; s > 0 {
			l.file(p).add(kind+"-prose", weight*s/top)
		}
	}
}

// addRanked credits the files of a ranked chunk list by rank: the first
// file weight, the next ones less (weight/(1+r/2) for the r-th file).
func (l *locator) addRanked(kind string, ids []string, weight float64) {
	rank := map[string]int{}
	credited := map[string]bool{}
	for _, id := range ids {
		c, ok := l.qc.chunk(id)
		if !ok || !matchPaths(l.req.Paths, c.Path) || credited[id] {
			continue
		}
		credited[id] = true
		r, seen := rank[c.Path]
		if !seen {
			r = len(rank)
			rank[c.Path] = r
		}
		f := l.file(c.Path)
		w := weight / (1 + float64(r)/2) * f.prior
		if !seen {
			f.add(kind, w)
		}
		f.chunks[id] += w // a chunk is credited once, at its best rank
	}
}

// termCounts returns the search terms of text with how often it uses each.
func termCounts(text string) map[string]int {
	m := map[string]int{}
	search.Terms([]byte(text), func(t string, _, _ int) { m[t]++ })
	return m
}

// hits orders the files by score × path prior and returns up to k hits:
// the definitions of the best files, ranked by rankDefs (definitions.go),
// at most capN of one file (capN ≤ 0: no bound). A hit's score is its
// definition's, so scores never rise down the list.
func (l *locator) hits(k, capN int) ([]Hit, error) {
	var files []*fileEv
	for _, f := range l.files {
		if f.score <= 0 {
			continue
		}
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].score != files[j].score {
			return files[i].score > files[j].score
		}
		return files[i].path < files[j].path
	})
	var out []Hit
	if len(files) == 0 {
		return out, nil
	}
	top := files[0].score
	// Read as many files as the first k definitions can come from: a file's
	// definitions score at most its own normalised score.
	n := 0
	for n < len(files) {
		if files[n].score/top < l.req.MinScore {
			break
		}
		n++
		if n >= len(files) || n >= k {
			break
		}
		next := math.Pow(files[n].score/top, defFilePower)
		defs, err := l.qc.rankDefs(files[:n], l.qterms)
		if err != nil {
			return nil, err
		}
		above := 0
		for _, d := range defs {
			if d.score >= next {
				above++
			}
		}
		if above >= k {
			break
		}
	}
	defs, err := l.qc.rankDefs(files[:n], l.qterms)
	if err != nil {
		return nil, err
	}
	perFile := map[*fileEv]int{}
	for _, d := range defs {
		if len(out) >= k {
			break
		}
		if d.score < l.req.MinScore || capN > 0 && perFile[d.file] >= capN {
			continue
		}
		meta, ok := l.qc.chunk(d.chunk)
		if !ok || len(l.req.Kinds) > 0 && !contains(l.req.Kinds, meta.Kind) ||
			len(l.req.Languages) > 0 && !contains(l.req.Languages, meta.Language) {
			continue
		}
		rec, err := l.qc.s.st.Chunk(meta.ID)
		if err != nil {
			return nil, err
		}
		h := defHit(rec, d, round3(d.score), d.file.sources(), l.qc.terms)
		h.Evidence = d.file.parts
		out = append(out, h)
		perFile[d.file]++
	}
	return out, nil
}

// defHit makes the search hit of a ranked definition: the lines of its
// best chunk that the definition holds (all of a chunk of its own, its part
// of a chunk shared with its neighbours, the chunk itself for lines outside
// every definition), named after the definition.
func defHit(c store.ChunkRecord, d rankedDef, score float64, sources []string, qterms map[string]bool) Hit {
	u := d.defs.units[d.unit]
	h := hitOf(c, score, sources, qterms)
	if u.sym < 0 {
		return h
	}
	h.Symbol, h.Kind = u.name, u.kind
	h.DefStart, h.DefEnd = u.start, u.end
	h.Framed, h.Printed = d.framed, d.printed
	a, b := max(c.StartLine, u.start), min(c.EndLine, u.end)
	if a == c.StartLine && b == c.EndLine || a > b {
		return h
	}
	lines := strings.SplitAfter(c.Text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if b-c.StartLine >= len(lines) {
		return h
	}
	h.StartLine, h.EndLine = a, b
	h.Text = strings.TrimSuffix(strings.Join(lines[a-c.StartLine:b-c.StartLine+1], ""), "\n")
	h.Tokens = 0
	h.Summary = ""
	return h
}

// sources names the kinds of evidence that found a file, strongest first.
func (f *fileEv) sources() []string {
	var out []string
	for k := range f.parts {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return f.parts[out[i]] > f.parts[out[j]] })
	return out
}

// hitOf makes a search hit of a chunk.
func hitOf(c store.ChunkRecord, score float64, sources []string, qterms map[string]bool) Hit {
	return Hit{
		Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine,
		Symbol: bestSymbol(c.Symbols, c.Label, qterms), Kind: c.Kind, Language: c.Language,
		Score: score, Sources: sources,
		Text: c.Text, Summary: c.Summary, Chunk: c.ID, Tokens: c.Tokens,
	}
}
