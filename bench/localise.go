package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/evalset"
	"github.com/context-ls/context-ls/workspace"
)

func init() {
	benches = append(benches, benchCmd{"localise", "file localisation from change descriptions (../shared/eval/localisation-dev.jsonl)", benchLocalise})
}

// Localisation figures: the eval README's plain BM25 over whole files,
// the targets of issue 14 (baseline + 15 points), and the floors this
// project must not fall below (make bench fails under them).
const (
	locBaselineAcc1 = 0.460
	locBaselineAcc5 = 0.773
	locTargetAcc1   = locBaselineAcc1 + 0.15
	locTargetAcc5   = locBaselineAcc5 + 0.15
	locFloorAcc1    = 0.55
	locFloorAcc5    = 0.87
	locFloorMRR     = 0.78
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
	explain := fs.Bool("explain", false, "with -v, print each missed query's top files and gold files with their evidence")
	explainAll := fs.Bool("explain-all", false, "print every query's top files and gold files with their evidence")
	hybrid := fs.Bool("hybrid", false, "also measure hybrid search with use-lite embeddings (embeds every tree on first use: long)")
	every := fs.Int("every", 1, "measure every Nth query only")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	dump := fs.String("dump", "", "write one JSON line per query with every ranked file's score and evidence to this file")
	fs.Parse(args)
	stopProfile, err := startProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()

	qs, err := evalset.LoadLocalisation(*data)
	if os.IsNotExist(err) {
		fmt.Printf("# %s not found: localisation not measured\n", *data)
		return nil
	}
	if err != nil {
		return err
	}
	var keep []evalset.LocQuery
	for i, q := range qs {
		if (*repo == "" || q.Repo == *repo) && i%max(*every, 1) == 0 {
			keep = append(keep, q)
		}
	}
	qs = keep
	if *hybrid {
		if _, err := os.Stat(filepath.Join(useLiteDir(), "model.onnx")); err != nil {
			fmt.Printf("# use-lite not found at %s: hybrid localisation not measured\n", useLiteDir())
			*hybrid = false
		}
	}
	if ok, err := ensureTrees(qs, *trees, *mirrors, *data, "localisation"); !ok || err != nil {
		return err
	}
	ctx := context.Background()
	var dumpEnc *json.Encoder
	if *dump != "" {
		f, err := os.Create(*dump)
		if err != nil {
			return err
		}
		defer f.Close()
		dumpEnc = json.NewEncoder(f)
	}
	scores := make([]evalset.LocScore, len(qs))
	var hybScores []evalset.LocScore
	if *hybrid {
		hybScores = make([]evalset.LocScore, len(qs))
	}
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
	for n, tree := range order {
		root := filepath.Join(*trees, tree)
		t0 := time.Now()
		e, err := openTree(ctx, root, *db, *hybrid)
		if err != nil {
			return err
		}
		indexTime += time.Since(t0)
		if *hybrid {
			fmt.Fprintf(os.Stderr, "# %d/%d trees embedded\n", n+1, len(order))
		}
		snap := e.Snapshot()
		var lastHits []engine.Hit
		search := func(q evalset.LocQuery, lexical bool) (evalset.LocScore, error) {
			start := time.Now()
			res, err := snap.Search(ctx, engine.SearchRequest{Query: q.Query, K: *k, Lexical: lexical})
			if lexical {
				lat = append(lat, time.Since(start))
			}
			if err != nil {
				return evalset.LocScore{}, fmt.Errorf("%s: %w", tree, err)
			}
			if lexical {
				lastHits = res.Hits
			}
			var paths []string
			for _, h := range res.Hits {
				paths = append(paths, h.Path)
			}
			return evalset.ScoreLocalisation(q, paths), nil
		}
		for _, i := range byTree[tree] {
			q := qs[i]
			if *verbose {
				fmt.Fprintf(os.Stderr, "== %s %v %.300q\n", q.Repo, q.Files, q.Query)
			}
			if scores[i], err = search(q, true); err == nil && *hybrid {
				hybScores[i], err = search(q, false)
			}
			if err != nil {
				snap.Release()
				e.Close()
				return err
			}
			if *verbose && scores[i].Acc1 == 0 {
				verdict := "MISS@5"
				if scores[i].Acc5 == 1 {
					verdict = "MISS@1"
				}
				fmt.Fprintf(os.Stderr, "%s %s %v ranks %v top %v\n", verdict, q.Repo, q.Files, scores[i].Ranks, scores[i].Top)
			}
			if dumpEnc != nil {
				if err := dumpEnc.Encode(dumpRanking(i, q, lastHits)); err != nil {
					return err
				}
			}
			if *explainAll || *explain && *verbose && scores[i].Acc1 == 0 {
				explainHits(q, lastHits)
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
	if *repo == "" && *every == 1 {
		figure("localisation Acc@1", all.Acc1, "", locTargetAcc1, false)
		figure("localisation Acc@5", all.Acc5, "", locTargetAcc5, false)
		floor("localisation Acc@1", all.Acc1, locFloorAcc1)
		floor("localisation Acc@5", all.Acc5, locFloorAcc5)
		floor("localisation MRR", all.MRR, locFloorMRR)
		info("localisation Acc@1 − BM25 baseline", all.Acc1-locBaselineAcc1, "")
		info("localisation Acc@5 − BM25 baseline", all.Acc5-locBaselineAcc5, "")
	}
	if *hybrid {
		_, hm := evalset.ByRepo(qs, hybScores)
		hyb := hm[len(hm)-1]
		fmt.Printf("%-22s %s\n", "all, hybrid (use-lite)", hyb)
		floor("localisation hybrid Acc@5 − lexical Acc@5", hyb.Acc5-all.Acc5, 0)
		floor("localisation hybrid MRR − lexical MRR", hyb.MRR-all.MRR, 0)
	}
	info("localisation search latency p50", ms(percentile(lat, 0.50)), "ms")
	info("localisation search latency p95", ms(percentile(lat, 0.95)), "ms")
	return nil
}

// ensureTrees unpacks the queries' trees with materialise.sh (beside the
// data file) when some are missing; without the mirrors it says what is not
// measured and reports false.
func ensureTrees(qs []evalset.LocQuery, trees, mirrors, data, what string) (bool, error) {
	missing := missingTrees(qs, trees)
	if missing == 0 {
		return true, nil
	}
	if mirrors == "" {
		fmt.Printf("# %d trees missing under %s and no -mirrors (CONTEXT_EVAL_MIRRORS): %s not measured\n", missing, trees, what)
		return false, nil
	}
	cmd := exec.Command(filepath.Join(filepath.Dir(data), "materialise.sh"), trees, mirrors)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return false, fmt.Errorf("materialise trees: %w", err)
	}
	return true, nil
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

// openTree opens (indexing if needed) the index of one tree; with embed,
// use-lite embeddings too, waiting for every chunk's vector.
func openTree(ctx context.Context, root, base string, embed bool) (*engine.Engine, error) {
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = embed
	if embed {
		cfg.Model, cfg.ModelPath = "use-lite", useLiteDir()
	}
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
	if embed {
		if err := e.WaitEmbeddings(ctx, nil); err != nil {
			e.Close()
			return nil, fmt.Errorf("embed %s: %w", root, err)
		}
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

// explainHits prints the first files of a query's ranking and its gold
// files, each with its rank among the files of the repository's language
// and the evidence that put it there.
func explainHits(q evalset.LocQuery, hits []engine.Hit) {
	gold := map[string]bool{}
	for _, f := range q.Files {
		gold[f] = true
	}
	seen := map[string]bool{}
	rank := 0
	for _, h := range hits {
		if seen[h.Path] || !strings.HasSuffix(h.Path, q.Ext()) {
			continue
		}
		seen[h.Path] = true
		rank++
		if rank > 6 && !gold[h.Path] {
			continue
		}
		mark := " "
		if gold[h.Path] {
			mark = "*"
		}
		fmt.Fprintf(os.Stderr, "   %s%2d %-40s %.3f %s\n", mark, rank, h.Path, h.Score, evidenceString(h.Evidence))
	}
	for _, f := range q.Files {
		if !seen[f] {
			fmt.Fprintf(os.Stderr, "   * - %-40s not in the hits\n", f)
		}
	}
}

// evidenceString renders a file's evidence, largest share first.
func evidenceString(ev map[string]float64) string {
	kinds := make([]string, 0, len(ev))
	for k := range ev {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return ev[kinds[i]] > ev[kinds[j]] })
	var b strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&b, " %s=%.3f", k, ev[k])
	}
	return b.String()
}

// dumpRanking is one query's ranked files (first occurrence of each path)
// with their scores and evidence, for offline analysis of the ranking.
func dumpRanking(i int, q evalset.LocQuery, hits []engine.Hit) map[string]any {
	type file struct {
		Path     string             `json:"path"`
		Score    float64            `json:"score"`
		Evidence map[string]float64 `json:"evidence"`
	}
	seen := map[string]bool{}
	var files []file
	for _, h := range hits {
		if !seen[h.Path] {
			seen[h.Path] = true
			files = append(files, file{h.Path, h.Score, h.Evidence})
		}
	}
	return map[string]any{"i": i, "repo": q.Repo, "ext": q.Ext(), "gold": q.Files, "query": q.Query, "files": files}
}
