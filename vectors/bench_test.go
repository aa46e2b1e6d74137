package vectors

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/testutil"

	ort "github.com/yalue/onnxruntime_go"
)

// Benchmarks print their figures (go test -run '^$' -bench . -benchtime 1x
// ./vectors/). The machine they were written on is shared and has 2 cores:
// read the figures as indications, not guarantees.

// goChunks splits Go standard library files on top-level func boundaries
// (a func keeps the comment lines just above it) and returns n chunks of at
// least 200 bytes, in a deterministic order. It skips cmd/ (mostly compiler
// internals) and generated files, and takes at most 8 chunks per file so
// that many packages are represented.
func goChunks(tb testing.TB, n int) []string {
	tb.Helper()
	root := filepath.Join(goroot(tb), "src")
	var files []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor" || path == filepath.Join(root, "cmd")) {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	var chunks []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || strings.Contains(string(data[:min(len(data), 2000)]), "Code generated") {
			continue
		}
		lines := strings.SplitAfter(string(data), "\n")
		start, taken := -1, 0
		flush := func(end int) {
			if start >= 0 && taken < 8 {
				if c := strings.Join(lines[start:end], ""); len(c) >= 200 {
					chunks = append(chunks, c)
					taken++
				}
			}
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, "func ") {
				continue
			}
			s := i
			for s > 0 && strings.HasPrefix(lines[s-1], "//") {
				s--
			}
			flush(s)
			start = s
		}
		flush(len(lines))
		if len(chunks) >= n {
			break
		}
	}
	if len(chunks) < n {
		tb.Skipf("only %d chunks in %s", len(chunks), root)
	}
	return chunks[:n]
}

type benchModel struct {
	name string
	spec ModelSpec
	dir  func(testing.TB) string
}

func benchModels() []benchModel {
	useLite, _ := Lookup("use-lite")
	return []benchModel{
		{"use-lite", useLite, func(tb testing.TB) string { return sharedModel(tb, "use-lite") }},
		{"minilm-fixture", fixtureSpec(), func(tb testing.TB) string { return fixtureDir(tb) }},
	}
}

// BenchmarkEmbedPipelineVsBare embeds 128 Go stdlib chunks (cut by the
// tokenizer to the model's MaxSeq) in batches of 32, (a) through the whole
// pipeline (tokenize, batch, run, pool, normalise) and (b) as bare session
// runs on the same pre-tokenized batches, with 1 and 2 intra-op threads.
// Each iteration runs both once; the best pass of each is reported (use
// -benchtime 3x or more on a busy machine).
func BenchmarkEmbedPipelineVsBare(b *testing.B) {
	needRuntime(b)
	const batchSize, nChunks = 32, 128
	chunks := goChunks(b, nChunks)
	for _, m := range benchModels() {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", m.name, threads), func(b *testing.B) {
				dir := m.dir(b)
				e, err := Open(m.spec, dir, Options{IntraOpThreads: threads, MaxBatchTokens: batchSize * m.spec.MaxSeq})
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close()
				e.maxRows = batchSize
				ctx := context.Background()
				// Warm-up: the first run of each shape allocates.
				if _, err := e.Embed(ctx, chunks, Document); err != nil {
					b.Fatal(err)
				}
				batches := e.tokenizeAll(chunks)
				// Alternate the two and keep the best pass of each: on a
				// shared machine the fastest pass is the least disturbed.
				pipe, bare := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
				for i := 0; i < b.N; i++ {
					start := time.Now()
					if _, err := e.Embed(ctx, chunks, Document); err != nil {
						b.Fatal(err)
					}
					pipe = min(pipe, time.Since(start))
					d, err := e.bareRuns(batches)
					if err != nil {
						b.Fatal(err)
					}
					bare = min(bare, d)
				}
				pipeRate := float64(nChunks) / pipe.Seconds()
				bareRate := float64(nChunks) / bare.Seconds()
				b.ReportMetric(pipeRate, "pipeline_chunks/s")
				b.ReportMetric(bareRate, "bare_chunks/s")
				b.ReportMetric(pipeRate/bareRate, "ratio")
				tokens := 0
				for _, bt := range batches {
					tokens += len(bt.rows) * bt.maxLen
				}
				fmt.Printf("embed %-15s threads=%d batch=%d: pipeline %6.1f chunks/s, bare %6.1f chunks/s, ratio %.2f (%d batches, %d padded tokens)\n",
					m.name, threads, batchSize, pipeRate, bareRate, pipeRate/bareRate, len(batches), tokens)
			})
		}
	}
}

// tokenizeAll returns the batches Embed would run for texts.
func (e *Embedder) tokenizeAll(texts []string) []batch {
	work := make([]int, len(texts))
	for i := range work {
		work[i] = i
	}
	sort.SliceStable(work, func(a, b int) bool { return len(texts[work[a]]) > len(texts[work[b]]) })
	ch := make(chan batch, len(texts))
	var errs []ItemError
	e.produce(context.Background(), texts, work, "", ch, &errs)
	close(ch)
	var out []batch
	for bt := range ch {
		out = append(out, bt)
	}
	return out
}

// bareRuns builds input and output tensors for every batch (untimed) and
// returns the time spent in the session runs alone.
func (e *Embedder) bareRuns(batches []batch) (time.Duration, error) {
	var total time.Duration
	for _, bt := range batches {
		rows, seq := len(bt.rows), bt.maxLen
		var inputs []ort.Value
		for _, name := range e.spec.Inputs {
			data := make([]int64, rows*seq)
			for r, enc := range bt.enc {
				for j := 0; j < len(enc.IDs); j++ {
					switch name {
					case InputIDs:
						data[r*seq+j] = enc.IDs[j]
					case AttentionMask:
						data[r*seq+j] = 1
					case TokenTypeIDs:
						data[r*seq+j] = enc.Types[j]
					}
				}
			}
			t, err := ort.NewTensor(ort.NewShape(int64(rows), int64(seq)), data)
			if err != nil {
				return 0, err
			}
			defer t.Destroy()
			inputs = append(inputs, t)
		}
		shape := ort.NewShape(int64(rows), int64(e.spec.Dim))
		if e.tokenOut {
			shape = ort.NewShape(int64(rows), int64(seq), int64(e.spec.Dim))
		}
		out, err := ort.NewEmptyTensor[float32](shape)
		if err != nil {
			return 0, err
		}
		defer out.Destroy()
		start := time.Now()
		if err := e.session.Run(inputs, []ort.Value{out}); err != nil {
			return 0, err
		}
		total += time.Since(start)
	}
	return total, nil
}

// BenchmarkSearch measures query latency over 200,000 vectors and the
// memory the index takes.
func BenchmarkSearch(b *testing.B) {
	const n, queries = 200_000, 200
	for _, dim := range []int{384, 512} {
		b.Run(fmt.Sprintf("dim=%d", dim), func(b *testing.B) {
			r := rand.New(rand.NewPCG(uint64(dim), 1))
			vecs := clustered(r, n, dim, 2000, 0.05)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			x := mustIndex(b, "bench", dim)
			for i, v := range vecs {
				x.Add(uint64(i)*7919, v)
			}
			view := x.Snapshot()
			runtime.GC()
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(vecs) // vecs is in both measurements
			mbPer100k := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / (1 << 20) * 100_000 / n
			qs := make([][]float32, queries)
			for i := range qs {
				qs[i] = randomUnit(r, dim)
			}
			var lat []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				lat = lat[:0]
				for _, q := range qs {
					start := time.Now()
					if len(view.Search(q, 10, nil)) != 10 {
						b.Fatal("short result")
					}
					lat = append(lat, time.Since(start))
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			p50 := lat[len(lat)/2].Seconds() * 1000
			p95 := lat[len(lat)*95/100].Seconds() * 1000
			b.ReportMetric(p50, "p50_ms")
			b.ReportMetric(p95, "p95_ms")
			b.ReportMetric(mbPer100k, "MB/100k")
			fmt.Printf("search n=%d dim=%d GOMAXPROCS=%d avx2=%v: p50 %.2f ms, p95 %.2f ms; index %.1f MB per 100k vectors (fp32 would be %.1f MB)\n",
				n, dim, runtime.GOMAXPROCS(0), useAVX2, p50, p95, mbPer100k, float64(dim*4*100_000)/(1<<20))
			runtime.KeepAlive(x)
		})
	}
}

// BenchmarkQuantizedRecall measures the top-10 overlap of the index (int8
// scan, rescoring with the 4-bit refinement) and of the int8 codes alone with
// an fp32 exact scan of the original vectors, on synthetic data (uniformly
// spread and clustered unit vectors) and, when available, real use-lite
// embeddings of Go stdlib chunks queried with doc comments.
func BenchmarkQuantizedRecall(b *testing.B) {
	r := rand.New(rand.NewPCG(21, 22))
	type dataset struct {
		name    string
		corpus  [][]float32
		queries [][]float32
	}
	near := func(vecs [][]float32, n int, noise float64) [][]float32 {
		out := make([][]float32, n)
		for i := range out {
			base := vecs[r.IntN(len(vecs))]
			q := make([]float32, len(base))
			for j := range q {
				q[j] = base[j] + float32(r.NormFloat64()*noise)
			}
			out[i] = Normalize(q)
		}
		return out
	}
	uniform := clustered(r, 50_000, 384, 50_000, 1)
	clust := clustered(r, 50_000, 384, 500, 0.05)
	sets := []dataset{
		{"uniform-384", uniform, near(uniform, 200, 0.05)},
		{"clustered-384", clust, near(clust, 200, 0.05)},
	}
	if real, ok := useLiteDataset(b); ok {
		sets = append(sets, dataset{"use-lite-go-stdlib", real[0], real[1]})
	}
	for _, ds := range sets {
		b.Run(ds.name, func(b *testing.B) {
			x := mustIndex(b, "recall", len(ds.corpus[0]))
			ids := make([]uint64, len(ds.corpus))
			for i, v := range ds.corpus {
				ids[i] = uint64(i)
				x.Add(ids[i], v)
			}
			view := x.Snapshot()
			coarse := *view
			coarse.coarse = true
			var sum, sumCoarse float64
			for i := 0; i < b.N; i++ {
				sum, sumCoarse = 0, 0
				for _, q := range ds.queries {
					exact := bruteForce(q, ids, ds.corpus, 10, nil)
					sum += overlap(view.Search(q, 10, nil), exact)
					sumCoarse += overlap(coarse.Search(q, 10, nil), exact)
				}
			}
			ov := sum / float64(len(ds.queries))
			ovCoarse := sumCoarse / float64(len(ds.queries))
			b.ReportMetric(ov, "overlap@10")
			b.ReportMetric(ovCoarse, "int8only_overlap@10")
			fmt.Printf("recall %-20s n=%d queries=%d: top-10 overlap with an fp32 exact scan: %.4f (int8 codes only: %.4f)\n",
				ds.name, len(ds.corpus), len(ds.queries), ov, ovCoarse)
		})
	}
}

// useLiteDataset embeds 3,000 Go stdlib chunks as documents and the first
// comment line of 200 other functions as queries.
func useLiteDataset(b *testing.B) ([2][][]float32, bool) {
	if _, err := FindRuntime(""); err != nil {
		return [2][][]float32{}, false
	}
	dir := filepath.Join(testutil.RepoRoot(b), "..", "shared", "models", "use-lite")
	if _, err := os.Stat(dir); err != nil {
		return [2][][]float32{}, false
	}
	spec, _ := Lookup("use-lite")
	e, err := Open(spec, dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	chunks := goChunks(b, 3400)
	var queries []string
	for _, c := range chunks[3000:] {
		if line, _, _ := strings.Cut(c, "\n"); strings.HasPrefix(line, "// ") && len(line) > 20 {
			queries = append(queries, strings.TrimPrefix(line, "// "))
		}
		if len(queries) == 200 {
			break
		}
	}
	ctx := context.Background()
	docs, err := e.Embed(ctx, chunks[:3000], Document)
	if err != nil {
		b.Fatal(err)
	}
	qv, err := e.Embed(ctx, queries, Query)
	if err != nil {
		b.Fatal(err)
	}
	return [2][][]float32{docs, qv}, true
}
