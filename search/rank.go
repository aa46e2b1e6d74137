package search

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// The ranking of an unfiltered query (every question the engine asks but
// those restricted to languages or kinds) is computed here, term at a time,
// over the segments of the current bleve snapshot instead of by bleve's
// searcher, which walks the posting lists of all query terms document at a
// time, merging them and allocating a match for each posting: for the Go
// standard library that walk was two thirds of a query's time. The scores
// are bleve's own — BM25 with its parameters, each term's weight normalised
// over the query's terms (every term counts, also one no document has), the
// sum over matched terms scaled by the share of terms matched — added in
// the order bleve adds them, so rankings do not depend on which path answered
// (TestRankMatchesBleve compares the two). A filtered query goes to bleve.

// weightedTerm is one distinct analyzed word of a query with its boost.
type weightedTerm struct {
	term  string
	boost float64
}

// termPostings is a term's posting lists in the segments of one snapshot.
type termPostings struct {
	weightedTerm
	lists []segment.PostingsList // by segment; nil where absent
	count uint64                 // live documents holding the term
	// weight is the factor of a posting's BM25 saturation: idf² · boost ·
	// query norm, as bleve's term scorer multiplies them.
	idf, weight float64
}

// accumulators is the scratch of one ranking, reused segment by segment: a
// score and a count of matched terms per document number of the segment,
// and the numbers matched. All zero between segments.
type accumulators struct {
	score   []float64
	matched []uint16
	touched []uint32
}

// candidate is a document that scored at least the worst of the best seen
// when its segment was done.
type candidate struct {
	score float64
	seg   int
	num   uint32
}

var accPool = sync.Pool{New: func() any { return new(accumulators) }}

// minHeap keeps the best scores seen, the lowest on top.
type minHeap []float64

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// rank returns the best limit documents for the disjunction of terms in
// field, ordered by score and, within equal scores, by id. Terms in more
// than commonShare of the documents are left out (see commonShare).
func (x *Index) rank(ctx context.Context, terms []weightedTerm, field string, limit int) ([]Hit, error) {
	snap, err := x.snapshot()
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	defer snap.Close()
	segs := snap.Segments()
	docTotal, err := snap.DocCount()
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	card, err := snap.FieldCardinality(field)
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	if docTotal == 0 {
		return nil, nil
	}
	avgLen := math.Ceil(float64(card) / float64(docTotal))

	dicts := make([]segment.TermDictionary, len(segs))
	for i, s := range segs {
		if dicts[i], err = s.Segment().Dictionary(field); err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
	}
	tps := make([]termPostings, 0, len(terms))
	for _, t := range terms {
		tp := termPostings{weightedTerm: t, lists: make([]segment.PostingsList, len(segs))}
		for i, s := range segs {
			pl, err := dicts[i].PostingsList([]byte(t.term), s.Deleted(), nil)
			if err != nil {
				return nil, fmt.Errorf("text search: %w", err)
			}
			if pl != nil && pl.Count() > 0 {
				tp.lists[i] = pl
				tp.count += pl.Count()
			}
		}
		tps = append(tps, tp)
	}
	if len(tps) > 1 && docTotal >= commonMinDocs {
		tps = withoutCommon(tps, docTotal)
	}
	if len(tps) == 0 {
		return nil, nil
	}

	for i := range tps {
		tp := &tps[i]
		tp.idf = math.Log(1 + (float64(docTotal)-float64(tp.count)+0.5)/(float64(tp.count)+0.5))
	}
	// bleve adds a document's term scores in the order of its searchers:
	// up to DisjunctionHeapTakeover (10) terms sorted by how many documents hold
	// each (its insertion sort of a few searchers keeps equal counts in
	// query order, as a stable sort does), more in query order but matched
	// through a heap. The query norm is summed in that searcher order.
	// Sorted the same way, the sums of a short query are bleve's to the last
	// bit; those of a longer one may differ in it.
	sorted := func() {
		sort.SliceStable(tps, func(i, j int) bool { return tps[i].count < tps[j].count })
	}
	if len(tps) <= searcher.DisjunctionHeapTakeover {
		sorted()
	}
	// The query norm is over all terms, a term no document holds included.
	sumSq := 0.0
	for _, tp := range tps {
		w := tp.boost * tp.idf
		sumSq += w * w
	}
	norm := 1 / math.Sqrt(sumSq)
	for i := range tps {
		tp := &tps[i]
		tp.weight = tp.boost * tp.idf * norm
	}
	if len(tps) > searcher.DisjunctionHeapTakeover {
		sorted()
	}

	// The accumulators go back to the pool only cleared, as each segment
	// leaves them; a ranking that fails within a segment drops them.
	acc := accPool.Get().(*accumulators)
	nterms := float64(len(tps))
	best := make(minHeap, 0, limit+1)
	var cands []candidate
	var it segment.PostingsIterator
	for si, s := range segs {
		if err := ctx.Err(); err != nil {
			accPool.Put(acc)
			return nil, err
		}
		n := int(s.Segment().Count())
		acc.score, acc.matched = grow(acc.score, n), grow(acc.matched, n)
		score, matched, touched := acc.score, acc.matched, acc.touched[:0]
		for _, tp := range tps {
			pl := tp.lists[si]
			if pl == nil {
				continue
			}
			it = pl.Iterator(true, true, false, it)
			for {
				p, err := it.Next()
				if err != nil {
					return nil, fmt.Errorf("text search: %w", err)
				}
				if p == nil {
					break
				}
				num := p.Number()
				if matched[num] == 0 {
					touched = append(touched, uint32(num))
				}
				score[num] += bm25(tp, p, avgLen)
				matched[num]++
			}
		}
		acc.touched = touched
		// A document that scores below the worst of the best seen so far
		// is out for good (that worst only rises); one scoring as much may
		// tie with the last hit kept, which id decides.
		for _, num := range touched {
			sc := score[num] * (float64(matched[num]) / nterms)
			score[num], matched[num] = 0, 0
			switch {
			case len(best) < limit:
				heap.Push(&best, sc)
			case sc > best[0]:
				best[0] = sc
				heap.Fix(&best, 0)
			case sc < best[0]:
				continue
			}
			cands = append(cands, candidate{sc, si, num})
		}
	}
	accPool.Put(acc)
	if len(best) == 0 {
		return nil, nil
	}
	floor := best[0]
	var hits []Hit
	for _, c := range cands {
		if c.score < floor {
			continue
		}
		id, err := segs[c.seg].DocID(uint64(c.num))
		if err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
		hits = append(hits, Hit{ID: string(id), Score: c.score})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	return hits[:min(limit, len(hits))], nil
}

// bm25 is bleve's BM25 score of one posting of a term, weighted.
func bm25(tp termPostings, p segment.Posting, avgLen float64) float64 {
	freq := p.Frequency()
	var tf float64
	if freq < 64 {
		tf = sqrtSmall[freq]
	} else {
		tf = math.Sqrt(float64(freq))
	}
	nrm := p.Norm()
	fieldLen := 1 / (nrm * nrm)
	s := tp.idf * (tf * bsearch.BM25_k1) /
		(tf + bsearch.BM25_k1*(1-bsearch.BM25_b+(bsearch.BM25_b*fieldLen/avgLen)))
	if tp.weight != 1 {
		s *= tp.weight
	}
	return s
}

// sqrtSmall caches the square roots of small term frequencies.
var sqrtSmall = func() (c [64]float64) {
	for i := range c {
		c[i] = math.Sqrt(float64(i))
	}
	return c
}()

// withoutCommon leaves out terms in more than commonShare of the documents,
// provided a kept term occurs.
func withoutCommon(tps []termPostings, docTotal uint64) []termPostings {
	var keep []termPostings
	occurs := false
	for _, tp := range tps {
		if float64(tp.count) <= commonShare*float64(docTotal) {
			keep = append(keep, tp)
			occurs = occurs || tp.count > 0
		}
	}
	if !occurs {
		return tps
	}
	return keep
}

// grow returns s with length n and every element zero. Elements of s are
// zero on entry (a ranking clears what it used).
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}
