package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/evalset"
	"github.com/context-ls/context-ls/workspace"
)

func init() {
	benches = append(benches, benchCmd{"localise", "file localisation from change descriptions (../shared/eval/localisation-dev.jsonl)", benchLocalise})
}

// Baselines and floors of the localisation figures. The baseline is the eval
// README's plain BM25 over whole files; the floors are what this project
// must not fall below (make bench fails under them).
const (
	locBaselineAcc1 = 0.460
	locBaselineAcc5 = 0.773
	locFloorAcc1    = 0.60
	locFloorAcc5    = 0.85
)

func benchLocalise(args []string) error {
	fs := newFlags("localise")
	data := fs.String("queries", evalFile("localisation-dev.jsonl"), "localisation queries (JSON lines)")
	trees := fs.String("trees", filepath.Join(benchDir(), "localisation-trees"), "where the trees are unpacked (materialise.sh)")
	mirrors := fs.String("mirrors", os.Getenv("CONTEXT_EVAL_MIRRORS"), "folder of the git copies of the repositories (for materialise.sh)")
	db := fs.String("db", filepath.Join(benchDir(), "localisation-index"), "base directory of the trees' indexes")
	repo := fs.String("repo", "", "only this repository (owner/name)")
	k := fs.Int("k", 50, "hits per query (the scorer's --k)")
	perQuery := fs.String("per-query", "", "write one JSON line per query (ranks, top files) to this file")
	verbose := fs.Bool("v", false, "print each query that misses at 1 or 5")
	fs.Parse(args)

	qs, err := evalset.LoadLocalisation(*data)
	if os.IsNotExist(err) {
		fmt.Printf("# %s not found: localisation not measured\n", *data)
		return nil
	}
	if err != nil {
		return err
	}
	if *repo != "" {
		var keep []evalset.LocQuery
		for _, q := range qs {
			if q.Repo == *repo {
				keep = append(keep, q)
			}
		}
		qs = keep
	}
	if missing := missingTrees(qs, *trees); missing > 0 {
		if *mirrors == "" {
			fmt.Printf("# %d trees missing under %s and no -mirrors (CONTEXT_EVAL_MIRRORS): localisation not measured\n", missing, *trees)
			return nil
		}
		cmd := exec.Command(filepath.Join(filepath.Dir(*data), "materialise.sh"), *trees, *mirrors)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("materialise trees: %w", err)
		}
	}
	ctx := context.Background()
	scores := make([]evalset.LocScore, len(qs))
	var lat []time.Duration
	var indexTime time.Duration
	byTree := map[string][]int{}
	var order []string
	for i, q := range qs {
		if byTree[q.Tree()] == nil {
			order = append(order, q.Tree())
		}
		byTree[q.Tree()] = append(byTree[q.Tree()], i)
	}
	for _, tree := range order {
		root := filepath.Join(*trees, tree)
		t0 := time.Now()
		e, err := openTree(ctx, root, *db)
		if err != nil {
			return err
		}
		indexTime += time.Since(t0)
		snap := e.Snapshot()
		for _, i := range byTree[tree] {
			q := qs[i]
			if *verbose {
				fmt.Fprintf(os.Stderr, "== %s %v %.300q\n", q.Repo, q.Files, q.Query)
			}
			start := time.Now()
			res, err := snap.Search(ctx, engine.SearchRequest{Query: q.Query, K: *k, Lexical: true})
			lat = append(lat, time.Since(start))
			if err != nil {
				snap.Release()
				e.Close()
				return fmt.Errorf("%s: %w", tree, err)
			}
			var paths []string
			for _, h := range res.Hits {
				paths = append(paths, h.Path)
			}
			scores[i] = evalset.ScoreLocalisation(q, paths)
			if *verbose && scores[i].Acc1 == 0 {
				verdict := "MISS@5"
				if scores[i].Acc5 == 1 {
					verdict = "MISS@1"
				}
				fmt.Fprintf(os.Stderr, "%s %s %v ranks %v top %v\n", verdict, q.Repo, q.Files, scores[i].Ranks, scores[i].Top)
			}
		}
		snap.Release()
		if err := e.Close(); err != nil {
			return err
		}
	}
	if *perQuery != "" {
		if err := writePerQuery(*perQuery, qs, scores); err != nil {
			return err
		}
	}
	fmt.Printf("# localisation — %s\n# %d queries from %s, %d trees (indexing %.1f s)\n", machine(), len(qs), *data, len(order), indexTime.Seconds())
	names, means := evalset.ByRepo(qs, scores)
	for i, n := range names {
		fmt.Printf("%-22s %s\n", n, means[i])
	}
	all := means[len(means)-1]
	info("reference: file-level BM25 Acc@1 / Acc@5 (eval README)", locBaselineAcc1, fmt.Sprintf("/ %.3f", locBaselineAcc5))
	if *repo == "" {
		figure("localisation Acc@1", all.Acc1, "", locFloorAcc1, false)
		figure("localisation Acc@5", all.Acc5, "", locFloorAcc5, false)
		info("localisation Acc@1 − BM25 baseline", all.Acc1-locBaselineAcc1, "")
		info("localisation Acc@5 − BM25 baseline", all.Acc5-locBaselineAcc5, "")
	}
	info("localisation search latency p50", ms(percentile(lat, 0.50)), "ms")
	info("localisation search latency p95", ms(percentile(lat, 0.95)), "ms")
	return nil
}

// missingTrees counts the queries' trees that are not unpacked yet.
func missingTrees(qs []evalset.LocQuery, dir string) int {
	n := 0
	seen := map[string]bool{}
	for _, q := range qs {
		if seen[q.Tree()] {
			continue
		}
		seen[q.Tree()] = true
		if _, err := os.Stat(filepath.Join(dir, q.Tree())); err != nil {
			n++
		}
	}
	return n
}

// openTree opens (indexing if needed) the lexical index of one tree.
func openTree(ctx context.Context, root, base string) (*engine.Engine, error) {
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	dbDir, err := engine.IndexDir(base, root)
	if err != nil {
		return nil, err
	}
	e, err := engine.Open(ctx, root, engine.Options{DBDir: dbDir, Config: cfg})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	if _, err := e.Index(ctx, nil); err != nil {
		e.Close()
		return nil, fmt.Errorf("index %s: %w", root, err)
	}
	return e, nil
}

func writePerQuery(file string, qs []evalset.LocQuery, scores []evalset.LocScore) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for i, q := range qs {
		s := scores[i]
		if err := enc.Encode(map[string]any{"repo": q.Repo, "commit": q.Commit, "files": q.Files,
			"ranks": s.Ranks, "rr": s.RR, "acc5": s.Acc5, "top": s.Top}); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
