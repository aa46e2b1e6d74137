package engine

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
)

// The second stage of search: the definitions of the ranked files.
//
// Files are ranked first (locate.go); a hit then stands for one definition
// of a file — a function, a method, a class's own lines (its header, doc and
// attributes, not its methods), a type, a constant — or, for what lies
// outside every definition (imports, module-level code, a Markdown section),
// one chunk. Each is scored within its file by two kinds of evidence, each
// normalised to the file's best:
//
//   - the evidence the legs gave the chunks it lies in (BM25 with the
//     workspace's statistics, names, literals, stack frames …), its best
//     chunk's;
//   - BM25 of the query over the file's definitions alone, with the file's
//     own statistics: a word every definition of the file uses tells nothing
//     about which one is meant, however rare it is in the workspace.
//
// A definition's score is its file's (normalised to the best file's) squared
// × its share of its file's best: the best definition of each file keeps
// the file's place, and a strong file gives more of its definitions before
// a weaker one gives its first. On the development change descriptions
// (go run ./bench spans) chunk hits of three per file found every edited
// definition within ten hits for 0.444 of them; definitions ranked this way
// find them for 0.613 (0.479 within five).
const (
	// defFiles is how many of the best files have their definitions ranked
	// with their own statistics; the files after them rank theirs by the
	// chunks' evidence alone.
	defFiles = 10
	// defChunkShare is the share of a definition's score that comes from
	// its chunks' evidence; the rest is the file-local BM25.
	defChunkShare = 0.5
	// defFilePower: a definition scores its file's normalised score to
	// this power times its share of the file's best.
	defFilePower = 2
	// minorUnit scales a constant, a variable or lines outside every
	// definition against functions and types: a change is made in a
	// definition far more often, and a short unit that holds one word of
	// the text outscores the function that holds many (local BM25 favours
	// short documents).
	minorUnit = 0.5
	// namedWeight scales how sure the text is that it names a definition
	// (querytext's sureness × fit ÷ files defining it) into a score of its
	// own: a definition the text names ranks that high whatever its file's
	// rank, up to its file's normalised score.
	namedWeight = 1.0
	// localK1 and localB are the file-local BM25's parameters.
	localK1, localB = 1.2, 0.75
)

// defUnit is one rankable part of a file: a definition's own lines, or a
// chunk that lies outside every definition.
type defUnit struct {
	sym        int // index in the file's symbols; -1 for a chunk's lines
	name, kind string
	// start and end are 1-based, inclusive: the definition with its doc
	// comment, or the chunk.
	start, end int
	chunks     []store.ChunkID // the chunks holding its own lines, in order
	length     int             // terms in its own lines
}

// fileDefs is the definitions of one file version and, per search term,
// how often each of them uses it in its own lines.
type fileDefs struct {
	units    []defUnit
	postings map[string][]defPosting
	avgLen   float64
}

type defPosting struct {
	unit int32
	tf   int32
}

// defsCache keeps fileDefs by file version (path and content hash) for the
// process: splitting a file into definitions and reading their terms is
// most of what the second stage costs. Emptied when it holds defsCacheMax
// files.
var defsCache struct {
	mu sync.Mutex
	m  map[string]*fileDefs
}

const defsCacheMax = 1024

// unitKind reports the kinds of definition that are hits of their own.
func unitKind(k symbols.Kind) bool { return k != symbols.KindField }

// fileDefs returns the definitions of file p in the reader's snapshot.
func (qc *queryCtx) fileDefs(p string) (*fileDefs, error) {
	rec, err := qc.s.st.File(p)
	if err != nil {
		return nil, err
	}
	key := p + "\x00" + rec.Hash + "\x00" + rec.Indexer
	defsCache.mu.Lock()
	fd, ok := defsCache.m[key]
	defsCache.mu.Unlock()
	if ok {
		return fd, nil
	}
	syms, err := qc.s.st.Symbols(p)
	if err != nil {
		return nil, err
	}
	var chunks []store.ChunkRecord
	for _, id := range rec.Chunks {
		c, err := qc.s.st.Chunk(id)
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, c)
	}
	fd = splitDefs(syms, chunks)
	defsCache.mu.Lock()
	if defsCache.m == nil || len(defsCache.m) >= defsCacheMax {
		defsCache.m = map[string]*fileDefs{}
	}
	defsCache.m[key] = fd
	defsCache.mu.Unlock()
	return fd, nil
}

// splitDefs divides a file, given as its symbols and chunks, into units:
// each definition owns its lines but those of the definitions inside it; a
// chunk with lines no definition owns is a unit of those lines.
func splitDefs(syms []symbols.Symbol, chunks []store.ChunkRecord) *fileDefs {
	lines := map[int]string{} // 1-based line → text, from the chunks
	last := 0
	for _, c := range chunks {
		for i, l := range strings.Split(strings.TrimSuffix(c.Text, "\n"), "\n") {
			n := c.StartLine + i
			if _, ok := lines[n]; !ok || i > 0 {
				lines[n] = l // a chunk's first line may start inside it
			}
			last = max(last, n)
		}
	}
	owner := make([]int, last+2) // line → unit index + 1 (0: none)
	fd := &fileDefs{postings: map[string][]defPosting{}}
	// Symbols come in source order, parents before children: a child's
	// lines are taken from its parent as it is met.
	for i, s := range syms {
		if !unitKind(s.Kind) {
			continue
		}
		a, b := s.FullSpan().Lines()
		if a < 1 || b < a || a > last {
			continue
		}
		b = min(b, last)
		fd.units = append(fd.units, defUnit{sym: i, name: s.QualifiedName(), kind: string(s.Kind), start: a, end: b})
		for n := a; n <= b; n++ {
			owner[n] = len(fd.units)
		}
	}
	// Chunks: each belongs to the units whose own lines it holds, and its
	// lines no definition owns (a comment above a definition the grammar
	// does not give it, a decorator) go to the first of them; a chunk
	// holding no unit's lines is a unit of its own.
	for _, c := range chunks {
		var in []int
		var free []int
		for n := c.StartLine; n <= c.EndLine && n <= last; n++ {
			u := owner[n] - 1
			if u < 0 {
				if strings.TrimSpace(lines[n]) != "" {
					free = append(free, n)
				}
				continue
			}
			if !slices.Contains(in, u) {
				in = append(in, u)
				fd.units[u].chunks = append(fd.units[u].chunks, c.ID)
			}
		}
		if len(free) == 0 {
			continue
		}
		u := 0
		if len(in) > 0 {
			u = in[0] + 1
		} else {
			fd.units = append(fd.units, defUnit{sym: -1, name: c.Label, kind: c.Kind, start: c.StartLine, end: c.EndLine,
				chunks: []store.ChunkID{c.ID}})
			u = len(fd.units)
		}
		for _, n := range free {
			owner[n] = u
			if unit := &fd.units[u-1]; unit.sym >= 0 && n < unit.start {
				unit.start = n // its comment: shown with it
			}
		}
	}
	// Terms of each unit's own lines.
	var text []strings.Builder = make([]strings.Builder, len(fd.units))
	for n := 1; n <= last; n++ {
		if u := owner[n] - 1; u >= 0 {
			text[u].WriteString(lines[n])
			text[u].WriteByte('\n')
		}
	}
	total := 0
	for u := range fd.units {
		tf := map[string]int32{}
		search.Terms([]byte(text[u].String()), func(t string, _, _ int) { tf[t]++ })
		for t, n := range tf {
			fd.postings[t] = append(fd.postings[t], defPosting{int32(u), n})
			fd.units[u].length += int(n)
		}
		total += fd.units[u].length
	}
	if len(fd.units) > 0 {
		fd.avgLen = float64(total) / float64(len(fd.units))
	}
	return fd
}

// localBM25 scores every unit of fd for the query terms (term → how often
// the query uses it) with the file's own statistics: k1 = 1.2, b = 0.75,
// a term's weight damped by 1 + ln(count) as in the text legs.
func (fd *fileDefs) localBM25(qterms map[string]int) []float64 {
	out := make([]float64, len(fd.units))
	n := float64(len(fd.units))
	if n == 0 {
		return out
	}
	k1, b := localK1, localB
	for t, qf := range qterms {
		ps := fd.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		boost := 1 + math.Log(float64(qf))
		for _, p := range ps {
			tf := float64(p.tf)
			dl := float64(fd.units[p.unit].length)
			out[p.unit] += boost * idf * tf * (k1 + 1) / (tf + k1*(1-b+b*dl/fd.avgLen))
		}
	}
	return out
}

// rankedDef is a unit of a ranked file with its score.
type rankedDef struct {
	file  *fileEv
	defs  *fileDefs
	unit  int
	chunk string  // the unit's best chunk (id string)
	score float64 // file score² × share of the file's best, normalised to the best file
	// What the score cannot tell apart (a text naming several definitions
	// as surely as their file ranks), these do, in order: the line of a
	// stack frame lies in the unit and it is called like the frame's
	// function; how sure the text is that it names the unit (a name, a
	// frame's line); the score of its evidence alone.
	framed bool
	named  float64
	own    float64
	// printed: the unit prints a message of the text (Hit.Printed).
	printed bool
}

// rankDefs ranks the units of files (best first, as locate ranked them):
// every unit with evidence, each scored as the package comment of this file
// says. qterms are the query's terms with their counts.
func (qc *queryCtx) rankDefs(files []*fileEv, qterms map[string]int) ([]rankedDef, error) {
	if len(files) == 0 {
		return nil, nil
	}
	top := files[0].score
	var out []rankedDef
	for fi, f := range files {
		fd, err := qc.fileDefs(f.path)
		if err != nil {
			return nil, err
		}
		chunkEv := make([]float64, len(fd.units))
		best := make([]string, len(fd.units))
		maxChunk := 0.0
		for u, unit := range fd.units {
			for _, id := range unit.chunks {
				key := id.String()
				if s := f.chunks[key]; s > chunkEv[u] || best[u] == "" {
					chunkEv[u], best[u] = max(chunkEv[u], s), key
				}
			}
			maxChunk = max(maxChunk, chunkEv[u])
		}
		var local []float64
		maxLocal := 0.0
		if fi < defFiles {
			local = fd.localBM25(qterms)
			for _, v := range local {
				maxLocal = max(maxLocal, v)
			}
		}
		scores := make([]float64, len(fd.units))
		maxScore := 0.0
		for u := range fd.units {
			s := 0.0
			if maxChunk > 0 {
				share := defChunkShare
				if maxLocal == 0 {
					share = 1
				}
				s += share * chunkEv[u] / maxChunk
			}
			if maxLocal > 0 {
				w := 1 - defChunkShare
				if maxChunk == 0 {
					w = 1
				}
				s += w * local[u] / maxLocal
			}
			if k := fd.units[u].kind; fd.units[u].sym < 0 || k == "var" || k == "const" {
				s *= minorUnit
			}
			if fd.units[u].sym < 0 && maxLocal > 0 && local[u] == 0 {
				// Lines outside every definition that hold none of the
				// text's words: what their chunk matched is the file's
				// name or path, the file's evidence, not theirs (a
				// licence file's lone "package cmd").
				s = 0
			}
			scores[u] = s
		}
		for _, s := range scores {
			maxScore = max(maxScore, s)
		}
		fileNorm := math.Pow(f.score/top, defFilePower)
		named := make([]float64, len(fd.units))
		framed := make([]bool, len(fd.units))
		printed := make([]bool, len(fd.units))
		for _, nl := range f.named {
			if !nl.frame {
				if u := fd.innermost(nl.line); u >= 0 {
					named[u] = max(named[u], nl.sure)
					printed[u] = printed[u] || nl.printed
				}
				continue
			}
			if u, inside := fd.frameUnit(nl.line, nl.fn, nl.cls); u >= 0 {
				named[u] = max(named[u], nl.sure)
				framed[u] = framed[u] || inside
			}
		}
		before := len(out)
		for u, s := range scores {
			if len(fd.units[u].chunks) == 0 {
				continue
			}
			own := 0.0
			if maxScore > 0 {
				own = fileNorm * s / maxScore
			}
			sc := max(own, min(namedWeight*named[u], f.score/top))
			if sc <= 0 {
				continue
			}
			out = append(out, rankedDef{file: f, defs: fd, unit: u, chunk: unitChunk(fd, u, best), score: sc,
				framed: framed[u], named: named[u], own: own, printed: printed[u]})
		}
		if len(out) == before && len(fd.units) > 0 {
			// No evidence inside the file (found by its name or path
			// alone, or a frame's line outside every definition): its
			// first unit stands for it.
			first := firstUnit(fd)
			out = append(out, rankedDef{file: f, defs: fd, unit: first, chunk: unitChunk(fd, first, best), score: fileNorm})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		if out[i].framed != out[j].framed {
			return out[i].framed
		}
		if out[i].named != out[j].named {
			return out[i].named > out[j].named // what the evidence cannot tell apart, the text names
		}
		if out[i].own != out[j].own {
			return out[i].own > out[j].own
		}
		if out[i].file != out[j].file {
			return false // stable: the files' order
		}
		return out[i].defs.units[out[i].unit].start < out[j].defs.units[out[j].unit].start
	})
	return out, nil
}

// innermost returns the smallest unit holding 1-based line n, or -1.
func (fd *fileDefs) innermost(n int) int {
	best := -1
	for u, unit := range fd.units {
		if unit.sym >= 0 && unit.start <= n && n <= unit.end && (best < 0 || unit.end-unit.start < fd.units[best].end-fd.units[best].start) {
			best = u
		}
	}
	return best
}

// frameUnit returns the unit a stack frame at 1-based line n names: the
// innermost unit holding the line (inside), unless the frame gives its
// function fn (the last part of its name) and that unit is called
// otherwise — the trace then comes from another version of the file, its
// lines drifted — and the file defines fn: then the definition of that name
// in the frame's class cls (the part of its name before fn, when it gives
// one), else in the nearest class holding both the line and it, else the
// one nearest to the line. -1 when there is none.
func (fd *fileDefs) frameUnit(n int, fn, cls string) (unit int, inside bool) {
	u := fd.innermost(n)
	if fn == "" || u >= 0 && fd.unitIs(u, fn, cls) {
		return u, u >= 0
	}
	// enclosing is the size of the smallest class holding line n and
	// unit v (the file's length and more when none does).
	enclosing := func(v int) int {
		size := math.MaxInt
		for c, unit := range fd.units {
			if c != v && unit.sym >= 0 && isTypeKind(symbols.Kind(unit.kind)) &&
				unit.start <= min(n, fd.units[v].start) && max(n, fd.units[v].end) <= unit.end {
				size = min(size, unit.end-unit.start)
			}
		}
		return size
	}
	best, bestKey := -1, [3]int{}
	for v, unit := range fd.units {
		if unit.sym < 0 || !fd.unitIs(v, fn, "") {
			continue
		}
		named := 1
		if cls != "" && fd.unitIs(v, fn, cls) {
			named = 0
		}
		key := [3]int{named, enclosing(v), max(unit.start-n, n-unit.end, 0)}
		if best < 0 || slices.Compare(key[:], bestKey[:]) < 0 {
			best, bestKey = v, key
		}
	}
	if best >= 0 {
		return best, best == u
	}
	return u, false
}

// unitIs reports whether unit u is called fn, in class cls when cls is
// given (its qualifier's last part).
func (fd *fileDefs) unitIs(u int, fn, cls string) bool {
	owner, bare := splitQualified(fd.units[u].name)
	return bare == fn && (cls == "" || owner == cls)
}

// firstUnit is the unit that begins the file.
func firstUnit(fd *fileDefs) int {
	first := 0
	for u, unit := range fd.units {
		if unit.start < fd.units[first].start {
			first = u
		}
	}
	return first
}

func unitChunk(fd *fileDefs, u int, best []string) string {
	if best[u] != "" {
		return best[u]
	}
	if len(fd.units[u].chunks) > 0 {
		return fd.units[u].chunks[0].String()
	}
	return ""
}
