package chunking

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/context-ls/context-ls/symbols"
)

// BenchmarkCodeGoStdlib parses every .go file of the Go standard library
// with symbols and chunks it with Code, reporting chunks/s and MB/s of the
// whole pipeline, Code's own MB/s, the number of chunks, their mean and p95
// token counts, how many chunks exceed MaxTokens and how many start inside a
// line (pieces of enormous single lines). Run it with
// -benchtime 1x: one iteration reads about 90 MB.
func BenchmarkCodeGoStdlib(b *testing.B) {
	files := listFiles(b, goStdlib(b), ".go")
	srcs := make([][]byte, 0, len(files))
	size := 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatalf("read %s: %v", p, err)
		}
		srcs = append(srcs, src)
		size += len(src)
	}
	lang := symbols.ForPath("x.go")
	opts := DefaultOptions()
	p := symbols.NewParser()
	defer p.Close()
	b.SetBytes(int64(size))
	b.ResetTimer()
	var tokens []int
	var codeTime time.Duration
	oversized, midLines, failed := 0, 0, 0
	for b.Loop() {
		tokens = tokens[:0]
		codeTime, oversized, midLines, failed = 0, 0, 0, 0
		for i, src := range srcs {
			f, err := p.Parse(context.Background(), lang, src)
			if err != nil {
				failed++ // too large or timed out: the engine indexes such files as text
				continue
			}
			start := time.Now()
			chunks := Code(files[i], f, opts)
			codeTime += time.Since(start)
			f.Close()
			for _, c := range chunks {
				tokens = append(tokens, c.Tokens)
				if c.Tokens > opts.MaxTokens {
					oversized++
				}
				if midLine(src, c.StartByte) {
					midLines++
				}
			}
		}
	}
	b.StopTimer()
	if len(tokens) == 0 {
		b.Fatal("no chunks")
	}
	sort.Ints(tokens)
	sum := 0
	for _, t := range tokens {
		sum += t
	}
	perIter := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(len(tokens)), "chunks")
	b.ReportMetric(float64(len(tokens))/perIter, "chunks/s")
	b.ReportMetric(float64(size)/1e6/codeTime.Seconds(), "code-only-MB/s")
	b.ReportMetric(float64(sum)/float64(len(tokens)), "mean-tokens")
	b.ReportMetric(float64(tokens[len(tokens)*95/100]), "p95-tokens")
	b.ReportMetric(float64(oversized), "over-max")
	b.ReportMetric(float64(midLines), "mid-line-starts")
	b.ReportMetric(float64(failed), "unparsed-files")
}
