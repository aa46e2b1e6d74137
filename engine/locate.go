package engine

import (
	"context"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/context-ls/context-ls/querytext"
	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
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
//   - literal: a file whose code holds a quoted message or option verbatim;
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
	named  []namedLine        // definitions the text names, by the line of their name
}

// namedLine is a definition the text names: the line of its name and how
// sure the text is of it (the name's sureness × how well it fits ÷ how many
// files define it).
type namedLine struct {
	line int
	sure float64
}

// add credits the file with w of one kind of evidence.
func (f *fileEv) add(kind string, w float64) {
	f.score += w
	f.parts[kind] += w
}

// locator ranks files for one query.
type locator struct {
	qc        *queryCtx
	req       SearchRequest
	files     map[string]*fileEv
	paths     []string // every indexed path, read when path evidence needs it
	chunkPart float64
	defined   []definedName  // compound names of the text that are defined (addNames)
	qterms    map[string]int // the query's terms and how often it uses each (rankDefs)
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
	used, err := l.addNames(ev.Names)
	if err != nil {
		return nil, err
	}
	if err := l.addLiterals(ctx, "literal", ev.Literals, false, locWeights.literal, tq); err != nil {
		return nil, err
	}
	if err := l.addLiterals(ctx, "literal", ev.Messages, true, locWeights.literal, tq); err != nil {
		return nil, err
	}
	if err := l.addLiterals(ctx, "used", used, false, locWeights.used, tq); err != nil {
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

// testsOfCodeShare: when a query asks for tests, the tests of a file of
// code (by naming convention) gain this share of the file's score.
const testsOfCodeShare = 0.8

// addTestsOfCode credits the test files of the best files of code, found
// by the languages' naming conventions (x_test.go, test_x.py, tests/test_x.py,
// x.test.ts, x.spec.js): "tests for the rate limiter" wants the tests of the
// code the rest of the query finds, not tests that share its words.
func (l *locator) addTestsOfCode() error {
	if err := l.loadPaths(); err != nil {
		return err
	}
	indexed := make(map[string]bool, len(l.paths))
	for _, p := range l.paths {
		indexed[p] = true
	}
	var code []*fileEv
	for _, f := range l.files {
		if isCode(classOf(f.path)) && f.score > 0 {
			code = append(code, f)
		}
	}
	for _, f := range code {
		dir, base := path.Dir(f.path), path.Base(f.path)
		ext := path.Ext(base)
		stem := strings.TrimSuffix(base, ext)
		for _, t := range []string{
			stem + "_test" + ext, "test_" + base, "tests/test_" + base, "test/test_" + base,
			stem + ".test" + ext, stem + ".spec" + ext, "__tests__/" + stem + ".test" + ext,
		} {
			for _, cand := range []string{path.Join(dir, t), t} {
				if indexed[cand] && matchPaths(l.req.Paths, cand) {
					tf := l.file(cand)
					tf.add("tested", testsOfCodeShare*f.score/f.prior*tf.prior)
				}
			}
		}
	}
	return nil
}

// loadPaths reads every indexed path once per query.
func (l *locator) loadPaths() error {
	if l.paths != nil {
		return nil
	}
	l.paths = []string{}
	return l.qc.s.e.text.Paths(func(p string) bool {
		l.paths = append(l.paths, p)
		return true
	})
}

// nameTerms returns the search terms of text and the terms of each two
// adjacent words written as one ("bash completion" → bashcomplet, the
// stem of a _bashcomplete.py).
func nameTerms(text string) map[string]bool {
	ts := termSet(text)
	var prev string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	}) {
		if search.IsStopWord(w) {
			prev = ""
			continue
		}
		if prev != "" {
			for _, t := range search.NameParts(prev + w) {
				ts[t] = true
			}
		}
		prev = w
	}
	return ts
}

// addFileNames credits candidate files whose name the text spells: the
// words of a file's base name (and, at half weight, of its directory) that
// the query uses, each weighted by how few candidates share it (idf among
// the candidates) and by where the query uses it (title 1, body 0.5), a
// word whose stem only begins a word of the query at half that
// (namePrefixShare), normalised to 1 for the best-named file.
func (l *locator) addFileNames(ev querytext.Evidence, q string) {
	qw := map[string]float64{}
	body := ev.Prose
	if !ev.Long {
		body = q
	}
	for t := range nameTerms(body) {
		qw[t] = 0.5
	}
	for t := range nameTerms(ev.Title) {
		qw[t] = 1
	}
	if !ev.Long {
		for t := range qw {
			qw[t] = 1
		}
	}
	type named struct {
		f     *fileEv
		parts map[string]float64
		cut   map[string]bool // parts the stemmer shortened (serving → serv)
	}
	var cands []named
	nf := map[string]int{}
	for p, f := range l.files {
		c := named{f, map[string]float64{}, map[string]bool{}}
		add := func(name string, w float64) {
			for _, t := range search.NameParts(name) {
				c.parts[t] = w
			}
			for _, raw := range rawWords(name) {
				for _, t := range search.NameParts(raw) {
					if len(t) < len(raw) && strings.HasPrefix(raw, t) {
						c.cut[t] = true
					}
				}
			}
		}
		add(path.Base(path.Dir(p)), 0.5)
		base := path.Base(p)
		add(strings.TrimSuffix(base, path.Ext(base)), 1)
		for t := range c.parts {
			nf[t]++
		}
		cands = append(cands, c)
	}
	n := float64(len(cands))
	scores := make([]float64, len(cands))
	top := 0.0
	for i, c := range cands {
		for t, pw := range c.parts {
			if w := qw[t]; w > 0 {
				scores[i] += w * pw * math.Log(1+n/float64(nf[t]))
			} else if w := prefixWeight(qw, t); w > 0 && c.cut[t] {
				scores[i] += namePrefixShare * w * pw * math.Log(1+n/float64(nf[t]))
			}
		}
		top = max(top, scores[i])
	}
	if top > 0 {
		for i, c := range cands {
			if scores[i] > 0 {
				c.f.add("filename", locWeights.filename*scores[i]/top*c.f.prior)
			}
		}
	}
	if !ev.Long {
		return // a question's words are few: its file names are the filename part's
	}
	title, rest := spelledKeys(ev.Title), spelledKeys(body)
	for _, c := range cands {
		base := path.Base(c.f.path)
		stem := strings.TrimSuffix(base, path.Ext(base))
		switch {
		case spells(title, stem):
			c.f.add("spelled", locWeights.spelled*c.f.prior)
		case spells(rest, stem):
			c.f.add("spelled", locWeights.spelled*spelledBodyShare*c.f.prior)
		}
	}
}

// namePrefixShare: a word of a file's name whose stem, shortened by the
// stemmer, begins a word of the query — the two share a root, as
// serving.py's serv and "server" — counts this share of a word the query
// uses. A word the stemmer kept whole is not a root: form.ts is not named
// by "formula".
const namePrefixShare = 0.5

// prefixWeight returns the weight (qw) of the query word that a file-name
// word t of four letters or more begins, the greatest if several do, or 0.
func prefixWeight(qw map[string]float64, t string) float64 {
	if len(t) < 4 {
		return 0
	}
	best := 0.0
	for q, w := range qw {
		if len(q) > len(t) && strings.HasPrefix(q, t) {
			best = max(best, w)
		}
	}
	return best
}

// spelledBodyShare: a file name spelled by the body of a text, rather than
// by its title, gains this share of the spelled weight.
const spelledBodyShare = 0.75

// spells reports whether the keys of a text (spelledKeys) spell a file's
// base name: a name of one word by two or three adjacent words, a name of
// several words by one word or by adjacent words in any order, or two or
// more adjacent words of a longer name by one compound word
// ("stringslice" → flag_string_slice).
func spells(keys map[string]int, stem string) bool {
	raw := rawWords(stem)
	if len(raw) == 0 {
		return false
	}
	n := keys[joinKey(raw)]
	if n >= 2 || n == 1 && len(raw) >= 2 {
		return true
	}
	if len(raw) < 2 {
		return false
	}
	var parts []string
	for _, w := range raw {
		parts = append(parts, search.NameParts(w)...)
	}
	if keys[multiKey(parts)] > 0 {
		return true
	}
	for i := range raw {
		for j := i + 2; j <= len(raw) && j-i < len(raw); j++ {
			if keys[joinKey(raw[i:j])+"\x01"] > 0 {
				return true
			}
		}
	}
	return false
}

// spelledKeys returns the file-name keys that runs of one to three adjacent
// words of text spell, each with the run's length: the run's words joined
// and stemmed as one ("ID tracking" → idtrack, as idtracking.py's key;
// "bash completion" → bashcomplet, as _bashcomplete.py's), one word also
// marked as a compound, and for a run of several words its stemmed words
// sorted (multiKey), so that "string slice flag" spells
// flag_string_slice.go.
func spelledKeys(text string) map[string]int {
	keys := map[string]int{}
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for i := range ws {
		var run, parts []string
		for n := 1; n <= 3 && i+n <= len(ws); n++ {
			w := ws[i+n-1]
			wp := search.NameParts(w)
			if search.IsStopWord(w) || len(wp) == 0 {
				break // a stop word, a letter ("command's" → command, s), a number
			}
			run = append(run, w)
			parts = append(parts, wp...)
			key := joinKey(run)
			keys[key] = max(keys[key], n)
			if n == 1 {
				keys[key+"\x01"] = 1
			}
			if len(parts) >= 2 {
				keys[multiKey(parts)] = max(keys[multiKey(parts)], n)
			}
		}
	}
	return keys
}

// rawWords splits a file's base name into its lower-case words (on _, -,
// . and camelCase), leaving out one-letter words and stop words.
func rawWords(stem string) []string {
	var out []string
	for _, w := range nameWords(stem) {
		if len(w) >= 2 && !search.IsStopWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// joinKey is the key of words written as one: joined, then stemmed as one
// word.
func joinKey(ws []string) string {
	return strings.Join(search.NameParts(strings.Join(ws, "")), "")
}

// multiKey is the order-free key of several words.
func multiKey(parts []string) string {
	s := append([]string(nil), parts...)
	sort.Strings(s)
	return "\x00" + strings.Join(s, " ")
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

// addNames credits the files that define the names the text uses, and
// returns the compound names (snake_case, camelCase) nothing defines: a
// nested function, an attribute, a key of a mapping, found where the code
// uses them (the used part).
func (l *locator) addNames(names []querytext.Name) (used []string, err error) {
	if len(names) > locMaxNames {
		names = names[:locMaxNames]
	}
	for _, n := range names {
		defs, err := l.qc.s.nameDefs(n.Text, l.req.Languages, n.Type)
		if err != nil {
			return nil, err
		}
		files := map[string]bool{}
		for _, d := range defs {
			if matchPaths(l.req.Paths, d.path) {
				files[d.path] = true
			}
		}
		if len(files) == 0 {
			if _, bare := splitQualified(n.Text); len(defs) == 0 && !n.Type && isCompound(bare) {
				used = append(used, bare)
			}
			continue
		}
		if _, bare := splitQualified(n.Text); !n.Type && isCompound(bare) {
			l.defined = append(l.defined, definedName{n.Weight, bare, files})
		}
		spec := 1 / float64(len(files))
		for _, d := range defs {
			if !files[d.path] {
				continue
			}
			f := l.file(d.path)
			w := locWeights.name * n.Weight * d.quality * spec * f.prior
			f.add("name", w)
			f.chunks[d.chunk] += w
			if !n.Type || len(defs) == 1 {
				f.named = append(f.named, namedLine{d.line, n.Weight * d.quality * spec * f.prior})
			}
		}
	}
	return used, nil
}

// addCallers credits the files that call a compound name of the text that
// is defined (addNames keeps them), other than the files defining it: each
// caller gains the kind's weight × the name's sureness ÷ the number of
// callers. A description names the function whose behaviour changes, and
// the change is often made where it is called ("add the flag to setFlags
// if set by PostParse" changes the one caller of PostParse). Plain words
// that are also names (name, call, render) are left out: their callers are
// everywhere. So are the functions of a traceback's frames: their callers
// are the outer frames, which the path evidence already weighs below the
// innermost. Callers are read from the graph's reverse index, by name.
func (l *locator) addCallers(paths []querytext.Path) error {
	done := map[string]bool{}
	for _, p := range paths {
		if p.Frame >= 0 && p.Func != "" {
			_, bare := splitQualified(p.Func)
			done[bare] = true
		}
	}
	for _, d := range l.defined {
		if done[d.bare] {
			continue
		}
		done[d.bare] = true
		callers := map[string]bool{}
		err := l.qc.s.st.Reverse(d.bare, func(p string, _ []byte) bool {
			if !d.files[p] && matchPaths(l.req.Paths, p) {
				callers[p] = true
			}
			return true
		})
		if err != nil {
			return err
		}
		for p := range callers {
			f := l.file(p)
			f.add("caller", locWeights.caller*d.sure/float64(len(callers))*f.prior)
		}
	}
	return nil
}

// kinDepth is how many chunks the names leg reads for the kin of one name.
const kinDepth = 100

// addKin credits the files that define the kin of the compound names of
// the text that nothing defines (used): the definitions whose name begins
// with the same word, other than the name itself (EnableCaseInsensitive →
// EnablePrefixMatching, EnableCommandSorting). A change that adds a name
// most often adds it beside its kin: a new option beside the options, a
// new hook beside the hooks. Each file gains the kind's weight × the
// name's sureness × its share of the kin definitions found; the names leg
// of the text index (a definition's name words) proposes the chunks.
func (l *locator) addKin(ctx context.Context, names []querytext.Name, used []string, tq func(string, int) search.Query) error {
	undefined := map[string]bool{}
	for _, u := range used {
		undefined[u] = true
	}
	if len(names) > locMaxNames {
		names = names[:locMaxNames]
	}
	done := map[string]bool{}
	for _, n := range names {
		_, bare := splitQualified(n.Text)
		if !undefined[bare] || done[bare] {
			continue
		}
		done[bare] = true
		words := nameWords(bare)
		if len(words) < 2 || len(words[0]) < 3 || search.IsStopWord(words[0]) {
			continue
		}
		first := words[0]
		hits, err := l.qc.s.e.text.SearchNames(ctx, tq(first, kinDepth))
		if err != nil {
			return err
		}
		per := map[string]float64{}
		total := 0.0
		for _, h := range hits {
			c, ok := l.qc.chunk(h.ID)
			if !ok || !matchPaths(l.req.Paths, c.Path) {
				continue
			}
			for _, sym := range c.Symbols {
				_, name := splitQualified(sym)
				if ws := nameWords(name); len(ws) >= 2 && ws[0] == first && !strings.EqualFold(name, bare) {
					per[c.Path]++
					total++
				}
			}
		}
		for p, k := range per {
			f := l.file(p)
			f.add("kin", locWeights.kin*n.Weight*k/total*f.prior)
		}
	}
	return nil
}

// nameWords splits a name into its lower-case words, on _, -, . and
// camelCase (EnableCaseInsensitive → enable, case, insensitive).
func nameWords(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
		}
		cur = cur[:0]
	}
	prevLower := false
	for _, r := range name {
		switch {
		case unicode.IsUpper(r) && prevLower:
			flush()
			cur = append(cur, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		default:
			flush()
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return out
}

// isCompound reports an identifier no English word spells: snake_case,
// camelCase, a leading underscore.
func isCompound(name string) bool {
	core := strings.Trim(name, "_")
	if core == "" || strings.ContainsAny(core, ". ") {
		return false
	}
	if core != name || strings.Contains(core, "_") {
		return true
	}
	lower := false
	for _, r := range core {
		if unicode.IsLower(r) {
			lower = true
		} else if unicode.IsUpper(r) && lower {
			return true
		}
	}
	return false
}

// nameDef is a definition a name of the text may mean, with how well the
// name's qualifiers fit it (1: all of them, or none given).
type nameDef struct {
	path, chunk string
	line        int // 1-based line of the definition's name
	quality     float64
}

// nameDefs returns the definitions a name of the text may mean:
// "Context.call" the method call of a Context class, "jinja2.runtime" the
// module jinja2/runtime.py, "click.echo" echo of the click package. When a
// qualifier matches some definitions, the others are dropped; when it
// matches none (a variable: app.name), all count at half quality. With
// types, only definitions of types count (a capitalised word of a
// sentence: "the Flag" is the type Flag, or nothing of the code).
func (s *Snapshot) nameDefs(name string, langs []string, types bool) ([]nameDef, error) {
	qual, bare := splitQualified(name)
	if bare == "" {
		return nil, nil
	}
	refs, err := s.st.SymbolsNamed(bare)
	if err != nil {
		return nil, err
	}
	var exact, loose []nameDef
	for _, ref := range refs {
		if ref.Chunk == 0 {
			continue
		}
		si, err := s.symbolAt(ref)
		if err != nil || len(langs) > 0 && !contains(langs, si.Language) || types && !isTypeKind(si.Kind) {
			continue
		}
		d := nameDef{path: ref.Path, chunk: ref.Chunk.String(), line: si.NameSpan.Start.Line + 1, quality: 1}
		if qual == "" || qualifierMatches(qual, si) {
			exact = append(exact, d)
		} else {
			d.quality = 0.5
			loose = append(loose, d)
		}
	}
	if len(exact) > 0 {
		return exact, nil
	}
	return loose, nil
}

// isTypeKind reports the kinds of definition that are types.
func isTypeKind(k symbols.Kind) bool {
	switch k {
	case symbols.KindClass, symbols.KindStruct, symbols.KindInterface, symbols.KindTrait,
		symbols.KindEnum, symbols.KindType:
		return true
	}
	return false
}

// addLiterals credits the files whose code holds a quoted message or an
// option verbatim (the longest run of the literal's words, in order): BM25
// finds candidates, the chunk text decides.
func (l *locator) addLiterals(ctx context.Context, kind string, lits []string, printed bool, weight float64, tq func(string, int) search.Query) error {
	if len(lits) > locMaxLits {
		lits = lits[:locMaxLits]
	}
	for _, lit := range lits {
		want := words(lit)
		if len(want) == 0 {
			continue
		}
		need := min(len(want), 3)
		hits, err := l.qc.s.e.text.Search(ctx, tq(lit, locLitDepth))
		if err != nil {
			return err
		}
		type match struct {
			path, chunk string
			frac        float64
		}
		var found []match
		files := map[string]bool{}
		for _, h := range hits {
			meta, ok := l.qc.chunk(h.ID)
			if !ok || !matchPaths(l.req.Paths, meta.Path) {
				continue
			}
			c, err := l.qc.s.st.Chunk(meta.ID)
			if err != nil {
				return err
			}
			if run := longestRun(want, words(c.Text)); run >= need {
				found = append(found, match{c.Path, h.ID, float64(run) / float64(len(want))})
				files[c.Path] = true
			}
		}
		if len(files) == 0 {
			continue
		}
		spec := 1 / float64(len(files))
		if printed {
			// A message the program printed is as specific as the
			// files of code that hold it: the page of docs explaining
			// an error does not halve the credit of the code raising it.
			code := 0
			for p := range files {
				if isCode(classOf(p)) {
					code++
				}
			}
			if code > 0 {
				spec = 1 / float64(code)
			}
		}
		best := map[string]float64{}
		for _, m := range found {
			w := weight * m.frac * spec * l.file(m.path).prior
			l.file(m.path).chunks[m.chunk] += w
			best[m.path] = max(best[m.path], w)
		}
		for p, w := range best {
			l.file(p).add(kind, w)
		}
	}
	return nil
}

// words returns the lower-case words of s (letters, digits, _), the unit of
// verbatim matching.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	})
}

// longestRun is the length of the longest run of consecutive words of want
// that appears, consecutively, in have.
func longestRun(want, have []string) int {
	best := 0
	prev := make([]int, len(want)+1)
	cur := make([]int, len(want)+1)
	for _, h := range have {
		for j, w := range want {
			if h == w {
				cur[j+1] = prev[j] + 1
				best = max(best, cur[j+1])
			} else {
				cur[j+1] = 0
			}
		}
		prev, cur = cur, prev
	}
	return best
}

// addPaths credits the files the text names by path (a path, a stack
// frame: inner frames more) or by module (jinja2.runtime).
func (l *locator) addPaths(ev querytext.Evidence) error {
	type want struct {
		path   string // slash-separated, without extension for modules
		module int    // a dotted name: the name's index, so only its longest module counts
		weight float64
		line   int
		root   bool // only a file at the workspace's root
	}
	var ws []want
	for _, p := range ev.Paths {
		w := 1.0
		if p.Frame >= 0 {
			w = frameWeight(p.Frame)
		}
		// A frame's bare file name ("app.py") is a path relative to where
		// the program ran — the user's own script —, not a module of this
		// workspace's that has the same name (src/flask/app.py).
		bare := p.Frame >= 0 && !strings.ContainsAny(p.Path, `/\`)
		ws = append(ws, want{path: p.Path, module: -1, weight: w, line: p.Line, root: bare})
	}
	for ni, n := range ev.Names {
		if parts := strings.Split(n.Text, "."); len(parts) >= 2 && !strings.Contains(n.Text, "::") {
			// the longest prefix that is a module: a.b.C.m → a/b/C/m, a/b/C, a/b
			for i := len(parts); i >= 2; i-- {
				ws = append(ws, want{path: strings.Join(parts[:i], "/"), module: ni, weight: n.Weight})
			}
		}
	}
	if len(ws) == 0 {
		return nil
	}
	if err := l.loadPaths(); err != nil {
		return err
	}
	moduleFound := map[int]bool{}
	for _, w := range ws {
		var hits []string
		if w.module >= 0 {
			if moduleFound[w.module] {
				continue // a shorter prefix of a name whose module was found
			}
			hits = modulesNamed(l.paths, w.path)
			moduleFound[w.module] = len(hits) > 0
		} else {
			hits = filesNamed(l.paths, w.path)
			if w.root {
				hits = slices.DeleteFunc(hits, func(p string) bool { return strings.Contains(p, "/") })
			}
		}
		if len(hits) == 0 || !matchPaths(l.req.Paths, hits[0]) {
			continue
		}
		spec := 1 / float64(len(hits))
		for _, p := range hits {
			f := l.file(p)
			v := locWeights.path * w.weight * spec * f.prior
			f.add("path", v)
			if id := l.chunkAtLine(p, w.line); id != "" {
				f.chunks[id] += v
			}
		}
	}
	return nil
}

// frameWeight weighs a stack frame's file by its depth from the innermost.
func frameWeight(depth int) float64 { return max(0.3, 1-0.2*float64(depth)) }

// filesNamed returns the indexed files a path of the text names: the files
// sharing its longest trailing run of path components (two at least, or the
// whole indexed path: "site-packages/jinja2/environment.py" names
// "src/jinja2/environment.py"; "core.py" names every core.py).
func filesNamed(paths []string, p string) []string {
	p = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(p, `\`, "/")), "/")
	want := strings.Split(p, "/")
	best, bestN := []string(nil), 0
	for _, f := range paths {
		if path.Base(f) != want[len(want)-1] {
			continue
		}
		have := strings.Split(f, "/")
		n := 0
		for n < len(have) && n < len(want) && have[len(have)-1-n] == want[len(want)-1-n] {
			n++
		}
		if n < 2 && n < len(have) && len(want) > 1 {
			continue // only the base name agrees, and the text gave directories
		}
		switch {
		case n > bestN:
			best, bestN = []string{f}, n
		case n == bestN:
			best = append(best, f)
		}
	}
	return best
}

// modulesNamed returns the files that are the module mod ("jinja2/runtime":
// jinja2/runtime.py, src/jinja2/runtime.py, jinja2/runtime/__init__.py).
func modulesNamed(paths []string, mod string) []string {
	var out []string
	for _, f := range paths {
		stem := strings.TrimSuffix(f, path.Ext(f))
		stem = strings.TrimSuffix(stem, "/__init__")
		if stem == mod || strings.HasSuffix(stem, "/"+mod) {
			out = append(out, f)
		}
	}
	return out
}

// chunkAtLine returns the id of the chunk of p holding 1-based line, or "".
func (l *locator) chunkAtLine(p string, line int) string {
	if line <= 0 {
		return ""
	}
	rec, err := l.qc.s.st.File(p)
	if err != nil {
		return ""
	}
	for _, id := range rec.Chunks {
		c, ok := l.qc.chunk(id.String())
		if ok && c.StartLine <= line && line <= c.EndLine {
			return id.String()
		}
	}
	return ""
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
