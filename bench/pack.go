package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/engine/packing"
	"github.com/context-ls/context-ls/internal/evalset"
	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
)

func init() {
	benches = append(benches, benchCmd{"pack", "context pack quality vs a naive BM25 pack, and pack latency", benchPack})
}

// packScore says how a pack serves one golden query.
type packScore struct {
	file, def bool // the expected file / the expected symbol's definition is in it
	// body: the definition is there with its body, not only its signature
	// and doc comment (an outline entry, a summary with the body elided).
	body     bool
	relevant int // tokens of items from an expected file
	tokens   int
}

// scorePack checks a pack's items against a golden query. An item holds a
// definition when it comes from an expected file and either names an
// expected symbol (Type.Method matches Method) or its text declares one —
// a signature with its doc comment counts (an outline entry, a summary);
// body records the stricter case of the whole definition.
func scorePack(q evalset.Query, items []packs.Item, tokens int) packScore {
	want := map[string]bool{}
	for _, f := range q.Files {
		want[f] = true
	}
	s := packScore{tokens: tokens}
	for _, it := range items {
		if !want[it.Path] {
			continue
		}
		s.file = true
		s.relevant += packs.CountTokens(it.Text)
		for _, sym := range q.Symbols {
			name := it.Symbol
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:]
			}
			if name == sym || declares(it.Text, sym) {
				s.def = true
				if !it.Shortened && it.Kind != "outline" {
					s.body = true
				}
			}
		}
	}
	return s
}

var declCache = map[string]*regexp.Regexp{}

// declares reports whether Go source text declares name (a function,
// method, type, or a var/const spec).
func declares(text, name string) bool {
	re := declCache[name]
	if re == nil {
		n := regexp.QuoteMeta(name)
		re = regexp.MustCompile(`(?m)^(func (\([^)]*\) )?` + n + `[\[(]|type ` + n + `\b|\s*(var |const )?` + n + `(\s*,[^=\n]*)?\s+(=|[A-Za-z*\[])|\t` + n + `\s+\S)`)
		declCache[name] = re
	}
	return re.MatchString(text)
}

// packTotals accumulates packScores.
type packTotals struct {
	n, files, defs, bodies, relevant, tokens int
}

func (t *packTotals) add(s packScore) {
	t.n++
	if s.file {
		t.files++
	}
	if s.def {
		t.defs++
	}
	if s.body {
		t.bodies++
	}
	t.relevant += s.relevant
	t.tokens += s.tokens
}

func (t packTotals) fileRate() float64 { return float64(t.files) / float64(max(t.n, 1)) }
func (t packTotals) defRate() float64  { return float64(t.defs) / float64(max(t.n, 1)) }
func (t packTotals) bodyRate() float64 { return float64(t.bodies) / float64(max(t.n, 1)) }
func (t packTotals) relevantShare() float64 {
	return float64(t.relevant) / float64(max(t.tokens, 1))
}

func benchPack(args []string) error {
	fs := newFlags("pack")
	file := fs.String("queries", evalFile("go-stdlib-dev.jsonl"), "golden queries (JSON lines)")
	budget := fs.Int("budget", 2000, "budget of the quality packs")
	latBudget := fs.Int("latency-budget", 4000, "budget of the timed packs")
	rounds := fs.Int("rounds", 3, "timed rounds over the query set")
	verbose := fs.Bool("v", false, "print each query's outcome")
	hybrid := fs.Bool("hybrid", true, "also time packs with use-lite embeddings (embeds the stdlib on first use)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed lexical packs to this file")
	fs.Parse(args)
	qs, err := evalset.Load(*file)
	if err != nil {
		return err
	}
	ctx := context.Background()
	e, err := openStdlib(ctx, false)
	if err != nil {
		return err
	}
	fmt.Printf("# pack benchmark — %s\n# %d queries from %s; shared machine: timings are indicative\n", machine(), len(qs), *file)

	var ours packTotals
	snap := e.Snapshot()
	for _, q := range qs {
		p, err := packing.Pack(ctx, snap, packing.Request{Query: q.Query, Budget: *budget, Format: packs.FormatMarkdown})
		if err != nil {
			snap.Release()
			e.Close()
			return err
		}
		s := scorePack(q, p.Items, p.Tokens)
		ours.add(s)
		if *verbose {
			var paths []string
			for _, it := range p.Items {
				paths = append(paths, fmt.Sprintf("%s:%s", it.Path, it.Symbol))
			}
			fmt.Fprintf(os.Stderr, "file=%v def=%v body=%v %q → %d items: %s\n", s.file, s.def, s.body, q.Query, len(p.Items), strings.Join(paths, " "))
		}
	}
	stopProfile, err := startProfile(*cpuProfile)
	if err != nil {
		snap.Release()
		e.Close()
		return err
	}
	lat, err := packLatency(ctx, snap, qs, *rounds, *latBudget)
	stopProfile()
	snap.Release()
	if err != nil {
		e.Close()
		return err
	}
	dbDir := e.DBDir()
	if err := e.Close(); err != nil {
		return err
	}
	// The same packs with embeddings on: query embedding and the vector leg
	// included (the stdlib's use-lite vectors are cached by bench search).
	var hybLat []time.Duration
	if _, err := os.Stat(filepath.Join(useLiteDir(), "model.onnx")); *hybrid && err == nil {
		he, err := openStdlib(ctx, true)
		if err != nil {
			return err
		}
		hs := he.Snapshot()
		hybLat, err = packLatency(ctx, hs, qs, *rounds, *latBudget)
		hs.Release()
		he.Close()
		if err != nil {
			return err
		}
	}

	naive, err := naivePacks(ctx, dbDir, qs, *budget)
	if err != nil {
		return err
	}

	figure(fmt.Sprintf("pack %d: expected file in pack", *budget), ours.fileRate(), "", 0.92, false)
	figure(fmt.Sprintf("pack %d: expected definition in pack", *budget), ours.defRate(), "", 0.80, false)
	info(fmt.Sprintf("pack %d: expected definition with its body", *budget), ours.bodyRate(), "")
	info(fmt.Sprintf("pack %d: tokens from expected files", *budget), ours.relevantShare(), "share")
	info(fmt.Sprintf("naive BM25 %d: expected file in pack", *budget), naive.fileRate(), "")
	info(fmt.Sprintf("naive BM25 %d: expected definition in pack", *budget), naive.defRate(), "")
	info(fmt.Sprintf("naive BM25 %d: expected definition with its body", *budget), naive.bodyRate(), "")
	info(fmt.Sprintf("naive BM25 %d: tokens from expected files", *budget), naive.relevantShare(), "share")
	info("relevance per token, pack / naive", ours.relevantShare()/max(naive.relevantShare(), 1e-9), "×")
	limit(fmt.Sprintf("pack %d latency p95 (warm, no embeddings)", *latBudget), ms(percentile(lat, 0.95)), "ms", 60)
	info(fmt.Sprintf("pack %d latency p50 (warm, no embeddings)", *latBudget), ms(percentile(lat, 0.50)), "ms")
	if hybLat != nil {
		figure(fmt.Sprintf("pack %d latency p95 (warm, use-lite, incl. query embedding)", *latBudget), ms(percentile(hybLat, 0.95)), "ms", 150, true)
		info(fmt.Sprintf("pack %d latency p50 (warm, use-lite, incl. query embedding)", *latBudget), ms(percentile(hybLat, 0.50)), "ms")
	}
	return nil
}

// packLatency times query packs of the given budget over the queries.
func packLatency(ctx context.Context, snap *engine.Snapshot, qs []evalset.Query, rounds, budget int) ([]time.Duration, error) {
	var lat []time.Duration
	for r := 0; r < rounds; r++ {
		for _, q := range qs {
			start := time.Now()
			if _, err := packing.Pack(ctx, snap, packing.Request{Query: q.Query, Budget: budget}); err != nil {
				return nil, err
			}
			lat = append(lat, time.Since(start))
		}
	}
	return lat, nil
}

// naivePacks builds, for each query, the naive pack the issue compares
// against: the top BM25 chunks, in BM25 order, rendered in markdown until
// the next one would pass the budget. It reads the index the engine built
// (the engine must be closed: the stores take a lock).
func naivePacks(ctx context.Context, dbDir string, qs []evalset.Query, budget int) (packTotals, error) {
	var t packTotals
	db, err := store.Open(filepath.Join(dbDir, "pebble"), store.Options{})
	if err != nil {
		return t, err
	}
	defer db.Close()
	idx, _, err := search.Open(filepath.Join(dbDir, "bleve"))
	if err != nil {
		return t, err
	}
	defer idx.Close()
	snap := db.Snapshot()
	defer snap.Release()
	for _, q := range qs {
		hits, err := idx.Search(ctx, search.Query{Text: q.Query, Limit: 100})
		if err != nil {
			return t, err
		}
		var items []packs.Item
		text := ""
		for _, h := range hits {
			id, err := store.ParseChunkID(h.ID)
			if err != nil {
				continue
			}
			c, err := snap.Chunk(id)
			if err != nil {
				continue // a chunk of another version
			}
			next := append(items, packs.Item{Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine,
				Symbol: c.Label, Kind: c.Kind, Reason: "bm25", Text: c.Text, Language: c.Language})
			r, err := packs.Render(packs.FormatMarkdown, next)
			if err != nil {
				return t, err
			}
			if packs.CountTokens(r) > budget {
				break
			}
			items, text = next, r
		}
		t.add(scorePack(q, items, packs.CountTokens(text)))
	}
	return t, nil
}
