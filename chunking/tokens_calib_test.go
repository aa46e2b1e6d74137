package chunking

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"

	"github.com/context-ls/context-ls/symbols"
)

var fitTokens = flag.Bool("fit", false, "refit the token estimate tables against the real tokenizer and rewrite tokens_table.go")

// Calibration targets (binding): mean absolute error per chunk and a loose
// guard on the tail.
const (
	// numKnownWords is how many frequent words the fit counts exactly.
	numKnownWords = 3000
	// minKnownSpread is how many sample chunks a known word must occur in.
	minKnownSpread = 4

	targetMeanAbsErr = 0.10
	targetP95AbsErr  = 0.25
)

// loadTokenizer loads the all-MiniLM-L6-v2 tokenizer the repository keeps
// (testdata/models) with truncation and padding off.
func loadTokenizer(tb testing.TB) *tokenizer.Tokenizer {
	tb.Helper()
	tk, err := pretrained.FromFile(filepath.Join(testutil.RepoRoot(tb), "testdata", "models", "all-MiniLM-L6-v2", "tokenizer.json"))
	if err != nil {
		tb.Fatalf("load tokenizer: %v", err)
	}
	tk.WithTruncation(nil)
	tk.WithPadding(nil)
	return tk
}

// exactTokens counts the real tokenizer's tokens for text, special tokens
// excluded. The tokenizer panics on invalid UTF-8 and on rare odd inputs:
// the text is sanitized and a panic becomes an error.
func exactTokens(tk *tokenizer.Tokenizer, text string) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tokenizer panicked: %v", r)
		}
	}()
	enc, err := tk.EncodeSingle(strings.ToValidUTF8(text, ""), false)
	if err != nil {
		return 0, fmt.Errorf("encode: %w", err)
	}
	return len(enc.Ids), nil
}

// calibrationChunks chunks a deterministic sample of the Go and Python
// standard libraries with Code (Text when a grammar is missing): the files
// whose index in the sorted list keep accepts, at most perFile chunks of
// each taken evenly from its chunk list.
func calibrationChunks(tb testing.TB, keep func(i int) bool, perFile int) []string {
	tb.Helper()
	p := symbols.NewParser()
	defer p.Close()
	var texts []string
	for _, root := range []struct {
		dir string
		ext string
	}{{goStdlib(tb), ".go"}, {pyStdlib(tb), ".py"}} {
		for i, path := range listFiles(tb, root.dir, root.ext) {
			if !keep(i) {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				tb.Fatalf("read %s: %v", path, err)
			}
			var chunks []Chunk
			if f, ok := parseFile(tb, p, path, src); ok {
				chunks = Code(path, f, DefaultOptions())
				f.Close()
			} else {
				chunks = Text(path, "", src, DefaultOptions())
			}
			step := max(1, len(chunks)/perFile)
			for i := 0; i < len(chunks) && i/step < perFile; i += step {
				texts = append(texts, chunks[i].Text)
			}
		}
	}
	return texts
}

// The evaluation sample is every 80th file from the 20th, four chunks each;
// the fitting sample every 10th file except those, all their chunks.
var (
	evalFiles = func(i int) bool { return i%80 == 20 }
	fitFiles  = func(i int) bool { return i%10 == 0 && !evalFiles(i) }
)

// tokenErrors summarises estimate errors relative to the exact counts.
type tokenErrors struct {
	n                 int
	meanAbs, p95Abs   float64
	under10           float64 // share of chunks underestimated by more than 10%
	totalExact, total int
}

func (e tokenErrors) String() string {
	return fmt.Sprintf("chunks %d: mean abs error %.1f%%, p95 %.1f%%, underestimated >10%%: %.1f%% of chunks; total %d estimated vs %d exact (%+.1f%%)",
		e.n, 100*e.meanAbs, 100*e.p95Abs, 100*e.under10, e.total, e.totalExact,
		100*(float64(e.total)/float64(e.totalExact)-1))
}

func measureTokenErrors(tb testing.TB, tk *tokenizer.Tokenizer, texts []string) tokenErrors {
	tb.Helper()
	var errs []float64
	var res tokenErrors
	under := 0
	for _, t := range texts {
		exact, err := exactTokens(tk, t)
		if err != nil {
			tb.Logf("skipping a chunk the tokenizer rejects: %v", err)
			continue
		}
		if exact == 0 {
			continue
		}
		est := CountTokens(t)
		rel := float64(est-exact) / float64(exact)
		errs = append(errs, math.Abs(rel))
		if rel < -0.10 {
			under++
		}
		res.total += est
		res.totalExact += exact
	}
	if len(errs) == 0 {
		tb.Fatalf("no chunks measured")
	}
	sort.Float64s(errs)
	sum := 0.0
	for _, e := range errs {
		sum += e
	}
	res.n = len(errs)
	res.meanAbs = sum / float64(len(errs))
	res.p95Abs = errs[(len(errs)*95)/100]
	res.under10 = float64(under) / float64(len(errs))
	return res
}

// TestTokenCalibration measures CountTokens against the real tokenizer on
// held-out standard library chunks, prints the error and fails past the
// target. With -fit it first refits the tables on other files and rewrites
// tokens_table.go (run the test again afterwards to evaluate the new table).
func TestTokenCalibration(t *testing.T) {
	tk := loadTokenizer(t)
	if *fitTokens {
		fitWordTable(t, tk, calibrationChunks(t, fitFiles, 1<<30))
	}
	res := measureTokenErrors(t, tk, calibrationChunks(t, evalFiles, 4))
	t.Logf("CountTokens vs all-MiniLM-L6-v2 WordPiece, held-out Go+Python stdlib chunks: %v", res)
	if res.meanAbs > targetMeanAbsErr {
		t.Errorf("mean abs error %.1f%% above the %.0f%% target", 100*res.meanAbs, 100*targetMeanAbsErr)
	}
	if res.p95Abs > targetP95AbsErr {
		t.Errorf("p95 abs error %.1f%% above the %.0f%% guard", 100*res.p95Abs, 100*targetP95AbsErr)
	}
}

// fitWordTable fits the estimate to the exact piece counts of every word in
// texts and rewrites tokens_table.go: the most frequent words (occurring in
// several chunks) are listed with their exact counts, and the segment table
// is the ridge-regularised least-squares fit of the piece counts of all
// other words on their segments (one feature per position, class and
// length, plus one per position and class for the characters beyond
// maxSegLen), weighted by occurrences.
func fitWordTable(t *testing.T, tk *tokenizer.Tokenizer, texts []string) {
	type wordStat struct {
		ascii  bool
		segs   []segment
		runes  int
		occ    int
		chunks int // distinct chunks the word occurs in
		last   int // index of the last chunk it was seen in
	}
	words := map[string]*wordStat{}
	for i, text := range texts {
		tokenUnits(text, func(w string, ascii bool, segs []segment) {
			s := words[w]
			if s == nil {
				s = &wordStat{ascii: ascii, segs: append([]segment(nil), segs...), last: -1}
				for _, g := range segs {
					s.runes += g.n
				}
				words[w] = s
			}
			s.occ++
			if s.last != i {
				s.chunks++
				s.last = i
			}
		})
	}

	// The most frequent words (case-folded) get their exact counts.
	byFold := map[string]int{}
	spread := map[string]int{}
	for w, s := range words {
		if s.ascii && s.runes <= maxKnownLen {
			byFold[strings.ToLower(w)] += s.occ
			spread[strings.ToLower(w)] += s.chunks
		}
	}
	type folded struct {
		word string
		occ  int
	}
	var freq []folded
	for w, occ := range byFold {
		// Identifiers frequent in one file only would fit the sample, not
		// the language: a known word occurs in several chunks.
		if spread[w] >= minKnownSpread {
			freq = append(freq, folded{w, occ})
		}
	}
	sort.Slice(freq, func(i, j int) bool {
		if freq[i].occ != freq[j].occ {
			return freq[i].occ > freq[j].occ
		}
		return freq[i].word < freq[j].word
	})
	freq = freq[:min(len(freq), numKnownWords)]
	knownPieces := map[string]int{}
	var byPieces [][]string
	for _, fw := range freq {
		n, err := exactTokens(tk, fw.word)
		if err != nil || n < 1 || n > 255 {
			continue
		}
		knownPieces[fw.word] = n
		for len(byPieces) < n {
			byPieces = append(byPieces, nil)
		}
		byPieces[n-1] = append(byPieces[n-1], fw.word)
	}

	// Features: table cells, then the per-character extras.
	cellIndex := func(pos, class, n int) int { return (pos*numSegClasses+class)*maxSegLen + min(n, maxSegLen) - 1 }
	nCells := 2 * numSegClasses * maxSegLen
	nFeat := nCells + 2*numSegClasses
	extraIndex := func(pos, class int) int { return nCells + pos*numSegClasses + class }
	prior := make([]float64, nFeat)
	for pos := 0; pos < 2; pos++ {
		for class := 0; class < numSegClasses; class++ {
			per := 0.25 // about four characters per piece
			if class == scDigit || class == scOther {
				per = 0.5
			}
			for n := 1; n <= maxSegLen; n++ {
				prior[cellIndex(pos, class, n)] = 1 + float64(n-1)*per
			}
			prior[extraIndex(pos, class)] = per
		}
	}
	ata := make([][]float64, nFeat)
	for i := range ata {
		ata[i] = make([]float64, nFeat)
	}
	atb := make([]float64, nFeat)
	total, fitted := 0, 0
	x := make(map[int]float64)
	for w, s := range words {
		total += s.occ
		if s.runes > maxWordRunes || (s.ascii && s.runes <= maxKnownLen && knownPieces[strings.ToLower(w)] > 0) {
			continue
		}
		n, err := exactTokens(tk, w)
		if err != nil {
			t.Logf("skipping word %q: %v", w, err)
			continue
		}
		fitted += s.occ
		clear(x)
		for _, g := range s.segs {
			x[cellIndex(g.pos, g.class, g.n)]++
			if g.n > maxSegLen {
				x[extraIndex(g.pos, g.class)] += float64(g.n - maxSegLen)
			}
		}
		wt := float64(s.occ)
		for i, xi := range x {
			atb[i] += wt * xi * float64(n)
			for j, xj := range x {
				ata[i][j] += wt * xi * xj
			}
		}
	}
	const ridge = 20.0 // in occurrences: sparse cells stay near the prior
	for i := range ata {
		ata[i][i] += ridge
		atb[i] += ridge * prior[i]
	}
	beta, err := solve(ata, atb)
	if err != nil {
		t.Fatalf("fit: %v", err)
	}

	var buf bytes.Buffer
	fmt.Fprintf(&buf, "// Code generated by TestTokenCalibration -fit; DO NOT EDIT.\n\n")
	fmt.Fprintf(&buf, "package chunking\n\n")
	fmt.Fprintf(&buf, "// segTable[pos][class][n-1] is the number of WordPiece tokens, in 1/%d\n", tokenUnit)
	fmt.Fprintf(&buf, "// token units, that a segment of n characters adds to a word (pos 0: the\n")
	fmt.Fprintf(&buf, "// word's first segment). Fitted on %d of %d word occurrences (%d distinct\n", fitted, total, len(words))
	fmt.Fprintf(&buf, "// words) of Go and Python standard library code; the others are known words.\n")
	fmt.Fprintf(&buf, "var segTable = [2][numSegClasses][maxSegLen]uint16{\n")
	units := func(v float64) int { return int(math.Round(math.Max(v, 0.05) * tokenUnit)) }
	for pos := 0; pos < 2; pos++ {
		fmt.Fprintf(&buf, "\t{ // pos %d\n", pos)
		for class := 0; class < numSegClasses; class++ {
			fmt.Fprintf(&buf, "\t\t%s: {", segClassNames[class])
			for n := 1; n <= maxSegLen; n++ {
				if n > 1 {
					buf.WriteString(", ")
				}
				fmt.Fprintf(&buf, "%d", units(beta[cellIndex(pos, class, n)]))
			}
			fmt.Fprintf(&buf, "},\n")
		}
		fmt.Fprintf(&buf, "\t},\n")
	}
	fmt.Fprintf(&buf, "}\n\n")
	fmt.Fprintf(&buf, "// segExtra[pos][class] is what every character beyond maxSegLen adds.\n")
	fmt.Fprintf(&buf, "var segExtra = [2][numSegClasses]uint16{\n")
	for pos := 0; pos < 2; pos++ {
		fmt.Fprintf(&buf, "\t{")
		for class := 0; class < numSegClasses; class++ {
			if class > 0 {
				buf.WriteString(", ")
			}
			fmt.Fprintf(&buf, "%s: %d", segClassNames[class], units(beta[extraIndex(pos, class)]))
		}
		fmt.Fprintf(&buf, "},\n")
	}
	fmt.Fprintf(&buf, "}\n\n")
	fmt.Fprintf(&buf, "// knownWords[n-1] lists, space-separated and lower-cased, the most frequent\n")
	fmt.Fprintf(&buf, "// words of the fitting sample that the tokenizer cuts into exactly n pieces.\n")
	fmt.Fprintf(&buf, "var knownWords = [...]string{\n")
	for _, ws := range byPieces {
		sort.Strings(ws)
		fmt.Fprintf(&buf, "\t%q,\n", strings.Join(ws, " "))
	}
	fmt.Fprintf(&buf, "}\n")
	src, err := format.Source(buf.Bytes())
	if err != nil {
		t.Fatalf("format generated table: %v", err)
	}
	if err := os.WriteFile(filepath.Join(".", "tokens_table.go"), src, 0o644); err != nil {
		t.Fatalf("write tokens_table.go: %v", err)
	}
	t.Logf("rewrote tokens_table.go: %d known words, segments fitted on %d of %d word occurrences; run the test again to evaluate it", len(knownPieces), fitted, total)
}

// solve solves the symmetric positive definite system a·x = b by Gaussian
// elimination with partial pivoting (a and b are overwritten).
func solve(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	for col := 0; col < n; col++ {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if math.Abs(a[p][col]) < 1e-12 {
			return nil, fmt.Errorf("singular system at column %d", col)
		}
		a[col], a[p] = a[p], a[col]
		b[col], b[p] = b[p], b[col]
		for r := col + 1; r < n; r++ {
			f := a[r][col] / a[col][col]
			if f == 0 {
				continue
			}
			for k := col; k < n; k++ {
				a[r][k] -= f * a[col][k]
			}
			b[r] -= f * b[col]
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x, nil
}
