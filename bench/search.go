package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/evalset"
	"github.com/context-ls/context-ls/workspace"
)

func init() {
	benches = append(benches, benchCmd{"search", "search latency and quality on ../shared/eval golden queries", benchSearch})
}

// evalFile locates a golden query file in ../shared/eval beside the checkout.
func evalFile(name string) string {
	return filepath.Join(filepath.Dir(repoRoot()), "shared", "eval", name)
}

// openStdlib opens (building if needed) the Go stdlib index used by the
// query benchmarks, without embeddings.
func openStdlib(ctx context.Context) (*engine.Engine, error) {
	root, err := goroot()
	if err != nil {
		return nil, err
	}
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	e, err := engine.Open(ctx, root, engine.Options{DBDir: filepath.Join(benchDir(), "go-stdlib-cold"), Config: cfg})
	if err != nil {
		return nil, err
	}
	if _, err := e.Index(ctx, nil); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func benchSearch(args []string) error {
	fs := newFlags("search")
	file := fs.String("queries", evalFile("go-stdlib-dev.jsonl"), "golden queries (JSON lines)")
	rounds := fs.Int("rounds", 5, "timed rounds over the query set")
	verbose := fs.Bool("v", false, "print each query's rank")
	fs.Parse(args)
	qs, err := evalset.Load(*file)
	if err != nil {
		return err
	}
	ctx := context.Background()
	e, err := openStdlib(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	snap := e.Snapshot()
	defer snap.Release()
	fmt.Printf("# search benchmark — %s\n# %d queries from %s\n", machine(), len(qs), *file)

	var scores evalset.Scores
	for _, q := range qs {
		res, err := snap.Search(ctx, engine.SearchRequest{Query: q.Query, K: 10})
		if err != nil {
			return err
		}
		r := toEvalResult(res)
		h1, h5, rr, s5 := evalset.Score(q, r)
		scores.Add(h1, h5, rr, s5)
		if *verbose {
			fmt.Fprintf(os.Stderr, "rr=%.2f s5=%.0f %q → %v\n", rr, s5, q.Query, firstN(r.Paths, 5))
		}
	}
	var lat []time.Duration
	for i := 0; i < *rounds; i++ {
		for _, q := range qs {
			start := time.Now()
			if _, err := snap.Search(ctx, engine.SearchRequest{Query: q.Query, K: 10}); err != nil {
				return err
			}
			lat = append(lat, time.Since(start))
		}
	}
	m := scores.Mean()
	fmt.Printf("quality: %s\n", m)
	figure("search file hit@5", m.Hit5, "", 0.90, false)
	figure("search MRR", m.MRR, "", 0.70, false)
	info("search file hit@1", m.Hit1, "")
	info("search symbol@5", m.Symbol5, "")
	info("reference: plain file-level BM25 hit@5 / MRR (eval README)", 0.84, "/ 0.61")
	figure("search latency p95 (warm)", ms(percentile(lat, 0.95)), "ms", 50, true)
	info("search latency p50 (warm)", ms(percentile(lat, 0.50)), "ms")
	return nil
}

func toEvalResult(res engine.SearchResult) evalset.Result {
	var r evalset.Result
	for _, h := range res.Hits {
		r.Paths = append(r.Paths, h.Path)
		r.Symbols = append(r.Symbols, h.Symbol)
	}
	return r
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
