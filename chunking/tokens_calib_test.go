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

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
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

// loadTokenizer loads the all-MiniLM-L6-v2 tokenizer with truncation and
// padding off, or skips the test when the file is absent.
func loadTokenizer(tb testing.TB) *tokenizer.Tokenizer {
	tb.Helper()
	tk, err := pretrained.FromFile(sharedFile(tb, "models/all-MiniLM-L6-v2/tokenizer.json"))
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
// standard libraries: every 40th file from offset, at most four chunks per
// file taken evenly from its chunk list. Fitting and evaluation use
// different offsets, so the error is measured on files the fit never saw.
func calibrationChunks(tb testing.TB, offset int) []string {
	tb.Helper()
	var texts []string
	for _, root := range []struct {
		dir string
		ext string
	}{{goStdlib(tb), ".go"}, {pyStdlib(tb), ".py"}} {
		for _, p := range every(listFiles(tb, root.dir, root.ext), 40, offset) {
			src, err := os.ReadFile(p)
			if err != nil {
				tb.Fatalf("read %s: %v", p, err)
			}
			chunks := sampleChunker(p, src)
			if len(chunks) == 0 {
				continue
			}
			step := max(1, len(chunks)/4)
			for i := 0; i < len(chunks) && i/step < 4; i += step {
				texts = append(texts, chunks[i].Text)
			}
		}
	}
	return texts
}

// sampleChunker produces the chunks the calibration samples: line windows
// of the file, as Text makes for formats it has no rules for.
func sampleChunker(path string, src []byte) []Chunk {
	return Text(path, "", src, DefaultOptions())
}

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
		fitWordTable(t, tk, calibrationChunks(t, 0))
	}
	res := measureTokenErrors(t, tk, calibrationChunks(t, 20))
	t.Logf("CountTokens vs all-MiniLM-L6-v2 WordPiece, held-out Go+Python stdlib chunks: %v", res)
	if res.meanAbs > targetMeanAbsErr {
		t.Errorf("mean abs error %.1f%% above the %.0f%% target", 100*res.meanAbs, 100*targetMeanAbsErr)
	}
	if res.p95Abs > targetP95AbsErr {
		t.Errorf("p95 abs error %.1f%% above the %.0f%% guard", 100*res.p95Abs, 100*targetP95AbsErr)
	}
}

// cell accumulates the exact piece counts of the words of one table cell.
type cell struct {
	occ, pieces float64 // occurrences and their summed exact pieces
	distinct    int
}

// fitWordTable fits the estimate tables to the exact piece counts of every
// word in texts and rewrites tokens_table.go.
func fitWordTable(t *testing.T, tk *tokenizer.Tokenizer, texts []string) {
	type wordStat struct {
		f      wordFeatures
		occ    int
		chunks int // distinct chunks the word occurs in
		last   int // index of the last chunk it was seen in
	}
	words := map[string]*wordStat{}
	for i, text := range texts {
		tokenUnits(text, func(w string, f wordFeatures) {
			s := words[w]
			if s == nil {
				s = &wordStat{f: f, last: -1}
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
	type folded struct {
		word string
		occ  int
	}
	byFold := map[string]int{}
	spread := map[string]int{}
	for w, s := range words {
		if s.f.kind != wkOther && s.f.runes <= maxKnownLen {
			byFold[strings.ToLower(w)] += s.occ
			spread[strings.ToLower(w)] += s.chunks
		}
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

	var cells [numWordKinds][maxSegs][maxLen]cell
	// Per kind, least squares of pieces on runes for long words, for the
	// slope beyond maxLen.
	var sx, sy, sxx, sxy, sn [numWordKinds]float64
	total := 0
	for w, s := range words {
		if s.f.runes > maxWordRunes {
			continue
		}
		if s.f.kind != wkOther && s.f.runes <= maxKnownLen && knownPieces[strings.ToLower(w)] > 0 {
			continue // counted exactly
		}
		n, err := exactTokens(tk, w)
		if err != nil {
			t.Logf("skipping word %q: %v", w, err)
			continue
		}
		k, occ, x, y := s.f.kind, float64(s.occ), float64(s.f.runes), float64(n)
		total += s.occ
		if s.f.runes >= maxLen/2 {
			sx[k] += occ * x
			sy[k] += occ * y
			sxx[k] += occ * x * x
			sxy[k] += occ * x * y
			sn[k] += occ
		}
		if s.f.runes > maxLen {
			continue
		}
		c := &cells[k][min(s.f.segs, maxSegs)-1][s.f.runes-1]
		c.occ += occ
		c.pieces += occ * y
		c.distinct++
	}
	var slope [numWordKinds]float64
	for k := range slope {
		slope[k] = 0.25 // fallback: about four characters per piece
		if den := sn[k]*sxx[k] - sx[k]*sx[k]; sn[k] > 20 && den > 0 {
			slope[k] = math.Max(0.05, (sn[k]*sxy[k]-sx[k]*sy[k])/den)
		}
	}

	var buf bytes.Buffer
	fmt.Fprintf(&buf, "// Code generated by TestTokenCalibration -fit; DO NOT EDIT.\n\n")
	fmt.Fprintf(&buf, "package chunking\n\n")
	fmt.Fprintf(&buf, "// wordTable[kind][segments-1][runes-1] is the mean number of WordPiece\n")
	fmt.Fprintf(&buf, "// tokens, in 1/%d token units, of a word of that shape in the fitting\n", tokenUnit)
	fmt.Fprintf(&buf, "// sample (%d word occurrences, %d distinct words, Go and Python standard\n", total, len(words))
	fmt.Fprintf(&buf, "// library), the known words below excluded. Cells with too few words are\n")
	fmt.Fprintf(&buf, "// filled from their neighbours.\n")
	fmt.Fprintf(&buf, "var wordTable = [numWordKinds][maxSegs][maxLen]uint16{\n")
	for k := range cells {
		fmt.Fprintf(&buf, "\t{ // %s\n", wordKindNames[k])
		for s := range cells[k] {
			row := fillRow(cells[k][s][:], slope[k])
			fmt.Fprintf(&buf, "\t\t{")
			for i, v := range row {
				if i > 0 {
					buf.WriteString(", ")
				}
				fmt.Fprintf(&buf, "%d", int(math.Round(v*tokenUnit)))
			}
			fmt.Fprintf(&buf, "},\n")
		}
		fmt.Fprintf(&buf, "\t},\n")
	}
	fmt.Fprintf(&buf, "}\n\n")
	fmt.Fprintf(&buf, "// wordSlope is the extra pieces per character beyond maxLen, per kind, in\n")
	fmt.Fprintf(&buf, "// 1/%d token units (least squares over words of %d characters or more).\n", tokenUnit, maxLen/2)
	fmt.Fprintf(&buf, "var wordSlope = [numWordKinds]uint16{")
	for k, s := range slope {
		if k > 0 {
			buf.WriteString(", ")
		}
		fmt.Fprintf(&buf, "%d", int(math.Round(s*tokenUnit)))
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
	t.Logf("rewrote tokens_table.go from %d word occurrences (%d distinct); run the test again to evaluate it", total, len(words))
}

// fillRow turns a row of cells into mean pieces per length. A cell with
// fewer than minOcc occurrences or minDistinct words borrows from its
// nearest reliable neighbours; a row without any reliable cell falls back to
// one piece per word up to four characters plus slope per extra character.
// The result never decreases with length and never drops below one piece.
func fillRow(row []cell, slope float64) []float64 {
	const minOcc, minDistinct = 30, 3
	out := make([]float64, len(row))
	known := make([]bool, len(row))
	for i, c := range row {
		if c.occ >= minOcc && c.distinct >= minDistinct {
			out[i], known[i] = c.pieces/c.occ, true
		}
	}
	for i := range out {
		if known[i] {
			continue
		}
		l, r := -1, -1
		for j := i - 1; j >= 0; j-- {
			if known[j] {
				l = j
				break
			}
		}
		for j := i + 1; j < len(out); j++ {
			if known[j] {
				r = j
				break
			}
		}
		switch {
		case l >= 0 && r >= 0:
			w := float64(i-l) / float64(r-l)
			out[i] = out[l]*(1-w) + out[r]*w
		case l >= 0:
			out[i] = out[l] + float64(i-l)*slope
		case r >= 0:
			out[i] = math.Max(1, out[r]-float64(r-i)*slope)
		default:
			out[i] = 1 + math.Max(0, float64(i+1-4))*slope
		}
	}
	for i := range out {
		out[i] = math.Max(out[i], 1)
		if i > 0 {
			out[i] = math.Max(out[i], out[i-1])
		}
	}
	return out
}
