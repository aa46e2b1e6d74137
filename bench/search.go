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

// useLiteDir is the real pretrained encoder beside the checkout, or where
// CONTEXT_LS_USE_LITE says (a checkout elsewhere, such as a git worktree).
func useLiteDir() string {
	if d := os.Getenv("CONTEXT_LS_USE_LITE"); d != "" {
		return d
	}
	return filepath.Join(filepath.Dir(repoRoot()), "shared", "models", "use-lite")
}

// openStdlib opens (building if needed) the Go stdlib index used by the
// query benchmarks. With embed, vectors come from use-lite: the first run
// embeds the whole library (about an hour on two cores; cached in the
// index for later runs). The index is its own, not bench index's cold one,
// which that benchmark deletes on every run: sharing it made every make
// bench embed the library again.
func openStdlib(ctx context.Context, embed bool) (*engine.Engine, error) {
	root, err := goroot()
	if err != nil {
		return nil, err
	}
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = embed
	if embed {
		cfg.Model, cfg.ModelPath = "use-lite", useLiteDir()
	}
	dbDir, err := engine.IndexDir(filepath.Join(benchDir(), "go-stdlib"), root)
	if err != nil {
		return nil, err
	}
	e, err := engine.Open(ctx, root, engine.Options{DBDir: dbDir, Config: cfg})
	if err != nil {
		return nil, err
	}
	if _, err := e.Index(ctx, nil); err != nil {
		e.Close()
		return nil, err
	}
	if embed {
		err := e.WaitEmbeddings(ctx, func(st engine.EmbeddingStats) {
			fmt.Fprintf(os.Stderr, "embedding the Go stdlib with use-lite: %d vectors, %d files queued\n", st.Vectors, st.Pending)
		})
		if err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

func benchSearch(args []string) error {
	fs := newFlags("search")
	file := fs.String("queries", evalFile("go-stdlib-dev.jsonl"), "golden queries (JSON lines)")
	rounds := fs.Int("rounds", 5, "timed rounds over the query set")
	hybrid := fs.Bool("hybrid", true, "also measure hybrid search with use-lite embeddings (embeds the stdlib on first use)")
	verbose := fs.Bool("v", false, "print each query's rank")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed rounds to this file")
	fs.Parse(args)
	qs, err := evalset.Load(*file)
	if err != nil {
		return err
	}
	ctx := context.Background()
	withVectors := *hybrid
	if _, err := os.Stat(filepath.Join(useLiteDir(), "model.onnx")); withVectors && err != nil {
		fmt.Printf("# use-lite not found at %s: hybrid search not measured\n", useLiteDir())
		withVectors = false
	}
	e, err := openStdlib(ctx, withVectors)
	if err != nil {
		return err
	}
	defer e.Close()
	snap := e.Snapshot()
	defer snap.Release()
	st, _ := snap.Stats()
	fmt.Printf("# search benchmark — %s\n# %d queries from %s; index: %d files, %d chunks; embeddings: %s %s (%d vectors)\n",
		machine(), len(qs), *file, st.Files, st.Chunks, st.Embeddings.State, st.Embeddings.Model, st.Embeddings.Vectors)

	// disorder: the share of adjacent hit pairs out of score order (MMR
	// moving a hit below a lower-scored one), over the last measure.
	var disorder, cpuPerQuery float64
	measure := func(lexical bool) (evalset.Scores, []time.Duration, error) {
		var scores evalset.Scores
		pairs, swapped := 0, 0
		for _, q := range qs {
			res, err := snap.Search(ctx, engine.SearchRequest{Query: q.Query, K: 10, Lexical: lexical})
			if err != nil {
				return scores, nil, err
			}
			for i := 1; i < len(res.Hits); i++ {
				pairs++
				if res.Hits[i].Score > res.Hits[i-1].Score {
					swapped++
				}
			}
			r := toEvalResult(res)
			h1, h5, rr, s5 := evalset.Score(q, r)
			scores.Add(h1, h5, rr, s5)
			if *verbose {
				fmt.Fprintf(os.Stderr, "lexical=%v rr=%.2f s5=%.0f %q → %v\n", lexical, rr, s5, q.Query, firstN(r.Paths, 5))
			}
		}
		disorder = float64(swapped) / float64(max(pairs, 1))
		var lat []time.Duration
		if lexical {
			stop, err := startProfile(*cpuProfile)
			if err != nil {
				return scores, nil, err
			}
			defer stop()
		}
		cpu0 := cpuTime()
		defer func() {
			if n := *rounds * len(qs); n > 0 {
				cpuPerQuery = ms((cpuTime() - cpu0) / time.Duration(n))
			}
		}()
		for i := 0; i < *rounds; i++ {
			for _, q := range qs {
				start := time.Now()
				if _, err := snap.Search(ctx, engine.SearchRequest{Query: q.Query, K: 10, Lexical: lexical}); err != nil {
					return scores, nil, err
				}
				lat = append(lat, time.Since(start))
			}
		}
		return scores.Mean(), lat, nil
	}
	lex, lexLat, err := measure(true)
	if err != nil {
		return err
	}
	fmt.Printf("lexical (BM25 + symbols + file): %s\n", lex)
	floor("search file hit@5 (lexical)", lex.Hit5, 0.92)
	floor("search MRR (lexical)", lex.MRR, 0.75)
	info("adjacent hits out of score order (lexical)", disorder, "")
	info("reference: plain file-level BM25 hit@5 / MRR (eval README)", 0.84, "/ 0.61")
	limit("search latency p95 warm (lexical)", ms(percentile(lexLat, 0.95)), "ms", 15)
	info("search latency p50 warm (lexical)", ms(percentile(lexLat, 0.50)), "ms")
	info("search CPU time per query (lexical)", cpuPerQuery, "ms")
	if !withVectors || st.Embeddings.Vectors == 0 {
		return nil
	}
	hyb, hybLat, err := measure(false)
	if err != nil {
		return err
	}
	fmt.Printf("hybrid (+ use-lite vectors):     %s\n", hyb)
	floor("hybrid file hit@5 − lexical hit@5", hyb.Hit5-lex.Hit5, 0)
	floor("hybrid MRR − lexical MRR", hyb.MRR-lex.MRR, 0)
	info("hybrid hit@1 − lexical hit@1", hyb.Hit1-lex.Hit1, "")
	info("hybrid symbol@5 − lexical symbol@5", hyb.Symbol5-lex.Symbol5, "")
	info("adjacent hits out of score order (hybrid)", disorder, "")
	info("search latency p50 warm (hybrid, incl. query embedding)", ms(percentile(hybLat, 0.50)), "ms")
	info("search latency p95 warm (hybrid, incl. query embedding)", ms(percentile(hybLat, 0.95)), "ms")
	info("search CPU time per query (hybrid)", cpuPerQuery, "ms")
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
