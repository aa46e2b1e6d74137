package engine

import (
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/vectors"
)

// MMR's similarity. Two measures compare chunks: the cosine of their
// embeddings (when both have one) and the Jaccard overlap of their search
// terms. Their scales differ by measure, model and codebase — with use-lite
// two unrelated chunks of one repository often have a cosine above 0.5,
// while their term overlap rarely reaches 0.2 — so each measure is
// calibrated on the workspace itself: the similarity of pairs of ordinary
// chunks (a fixed sample) sets the measure's near-duplicate threshold at
// its simQuantile, and MMR counts a pair's similarity only above it,
// rescaled to 0..1. Hits of one query share a topic; only near-duplicates
// (mirrored files, generated copies, overlapping parts of a split body)
// should give way.

// simQuantile: the share of ordinary chunk pairs a measure must rank below
// a near-duplicate.
const simQuantile = 0.999

// simSample is the number of chunks sampled to calibrate a measure
// (simSample²/2 pairs).
const simSample = 120

// simFloor bounds a calibrated threshold from below: whatever the sample
// says, pairs sharing less than this are not near-duplicates.
const simFloor = 0.5

// simCalibration holds the engine's calibrated thresholds, measured once
// per measure (and model) on first use.
type simCalibration struct {
	mu      sync.Mutex
	jaccard float64 // 0: not measured yet
	cosine  map[string]float64
}

// similarity returns MMR's similarity of two candidates by index: the
// calibrated cosine of their embeddings when both have one, else the
// calibrated Jaccard overlap of their terms.
func (qc *queryCtx) similarity(cands []Hit) func(i, j int) float64 {
	cal := &qc.s.e.simCal
	model := ""
	if view, _ := qc.s.e.emb.view(); view != nil {
		model = qc.s.e.emb.modelID()
	}
	vecs := make([][]float32, len(cands))
	terms := make([][]uint64, len(cands))
	loaded := make([]bool, len(cands))
	load := func(i int) {
		if loaded[i] {
			return
		}
		loaded[i] = true
		if model != "" {
			if c, ok := qc.chunk(cands[i].Chunk.String()); ok {
				vecs[i] = qc.s.cachedVector(model, c.Recipe)
			}
		}
		if vecs[i] == nil {
			terms[i] = termHashes(cands[i].Text)
		}
	}
	cosThr, jacThr := -1.0, -1.0 // each measured at most once per query
	return func(i, j int) float64 {
		if cands[i].Path == cands[j].Path {
			return 0 // the per-file cap already bounds what one file repeats
		}
		load(i)
		load(j)
		// A measure is calibrated when a pair first exceeds simFloor, below
		// which no threshold can lie: most queries never pay for it.
		if vecs[i] != nil && vecs[j] != nil {
			sim := float64(vectors.Cosine(vecs[i], vecs[j]))
			if sim <= simFloor {
				return 0
			}
			if cosThr < 0 {
				cosThr = cal.cosineThreshold(qc.s, model)
			}
			return rescale(sim, cosThr)
		}
		ti, tj := terms[i], terms[j]
		if ti == nil {
			ti = termHashes(cands[i].Text)
		}
		if tj == nil {
			tj = termHashes(cands[j].Text)
		}
		sim := packs.Jaccard(ti, tj)
		if sim <= simFloor {
			return 0
		}
		if jacThr < 0 {
			jacThr = cal.jaccardThreshold(qc.s)
		}
		return rescale(sim, jacThr)
	}
}

// rescale maps a similarity at or below thr to 0 and thr..1 to 0..1.
func rescale(sim, thr float64) float64 {
	if sim <= thr || thr >= 1 {
		return 0
	}
	return (sim - thr) / (1 - thr)
}

// cachedVector returns the embedding of a chunk recipe from the store's
// embedding cache, or nil.
func (s *Snapshot) cachedVector(model string, r store.Recipe) []float32 {
	b, err := s.st.Vector(model, r)
	if err != nil {
		return nil
	}
	var q vectors.Quantized
	if q.UnmarshalBinary(b) != nil {
		return nil
	}
	return q.Dequantize()
}

// jaccardMeta names the store's copy of the term-overlap threshold,
// measured at the end of a bulk run: a fresh process (a CLI command) reads
// it instead of measuring it again (0.15 s on the Linux kernel).
const jaccardMeta = "simJaccard"

func (c *simCalibration) jaccardThreshold(s *Snapshot) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.jaccard == 0 {
		if v, err := s.e.db.Meta(jaccardMeta); err == nil {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= simFloor && f < 1 {
				c.jaccard = f
				return f
			}
		}
		c.jaccard = measureJaccard(s)
	}
	return c.jaccard
}

// measureJaccard measures the term-overlap threshold on a sample of the
// snapshot's chunks.
func measureJaccard(s *Snapshot) float64 {
	sample := s.sampleChunks(simSample)
	ts := make([][]uint64, 0, len(sample))
	for _, id := range sample {
		if ch, err := s.st.Chunk(id); err == nil {
			ts = append(ts, termHashes(ch.Text))
		}
	}
	return threshold(len(ts), func(i, j int) float64 { return packs.Jaccard(ts[i], ts[j]) })
}

// calibrate measures the term-overlap threshold after a bulk run and keeps
// it in the store for the processes that open the index next.
func (e *Engine) calibrate() error {
	s := e.Snapshot()
	defer s.Release()
	thr := measureJaccard(s)
	e.simCal.mu.Lock()
	e.simCal.jaccard = thr
	e.simCal.mu.Unlock()
	return e.db.SetMeta(jaccardMeta, strconv.FormatFloat(thr, 'g', -1, 64))
}

func (c *simCalibration) cosineThreshold(s *Snapshot, model string) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if thr, ok := c.cosine[model]; ok {
		return thr
	}
	var vs [][]float32
	sample := s.sampleChunks(simSample)
	for _, id := range sample {
		if m, err := s.st.ChunkMeta(id); err == nil {
			if v := s.cachedVector(model, m.Recipe); v != nil {
				vs = append(vs, v)
			}
		}
	}
	thr := threshold(len(vs), func(i, j int) float64 { return float64(vectors.Cosine(vs[i], vs[j])) })
	if len(vs) >= len(sample)/2 { // measure again until most chunks are embedded
		if c.cosine == nil {
			c.cosine = map[string]float64{}
		}
		c.cosine[model] = thr
	}
	return thr
}

// threshold returns the simQuantile of sim over all pairs of n items,
// floored at simFloor.
func threshold(n int, sim func(i, j int) float64) float64 {
	var all []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			all = append(all, sim(i, j))
		}
	}
	if len(all) == 0 {
		return simFloor
	}
	sort.Float64s(all)
	return max(simFloor, all[int(simQuantile*float64(len(all)-1))])
}

// sampleChunks returns up to n chunk ids spread evenly over the files of
// the index (one per file, from files evenly spaced in path order), the
// same sample for the same index.
func (s *Snapshot) sampleChunks(n int) []store.ChunkID {
	var paths []string
	if err := s.e.text.Paths(func(p string) bool {
		paths = append(paths, p)
		return true
	}); err != nil || len(paths) == 0 {
		return nil
	}
	var out []store.ChunkID
	step := max(1, len(paths)/n)
	for i := 0; i < len(paths) && len(out) < n; i += step {
		rec, err := s.st.File(paths[i])
		if err != nil || len(rec.Chunks) == 0 {
			continue
		}
		out = append(out, rec.Chunks[len(rec.Chunks)/2])
	}
	return out
}

// termHashes returns the distinct search terms of text as sorted 64-bit
// hashes: Jaccard overlaps of hash lists are a merge, not map lookups.
func termHashes(text string) []uint64 {
	var hs []uint64
	search.Terms([]byte(text), func(t string, _, _ int) {
		h := fnv.New64a()
		h.Write([]byte(t))
		hs = append(hs, h.Sum64())
	})
	slices.Sort(hs)
	return slices.Compact(hs)
}
