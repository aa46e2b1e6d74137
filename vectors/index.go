package vectors

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// segCap is the number of vector slots of a segment.
const segCap = 1024

// Index holds the vectors of one model in memory, int8-quantised with a
// per-vector scale and a 4-bit refinement (Quantized: 1.5 bytes per
// dimension), keyed by uint64 ids. It is safe for
// concurrent use. Queries run on immutable snapshots (Snapshot), which stay
// valid while the index keeps changing.
//
// Storage is a list of segments of segCap slots. A snapshot shares the
// segments: slots below a segment's length are never rewritten, so appends
// go to fresh slots without copying, and a removal copies only the
// segment's small liveness bitmap if a snapshot holds it. A segment whose
// slots are at least half dead is compacted into a new one. Each update thus
// costs O(1) amortised (O(segCap·dim) at worst), and a snapshot
// O(segments).
type Index struct {
	model string
	dim   int

	mu   sync.Mutex
	segs []*segment
	loc  map[uint64]location
	tail *segment // segment receiving appends; nil when full or absent
}

type location struct {
	seg *segment
	pos int32
}

// segment is a block of vector slots. ids, scales, codes and fine are
// written only at slots >= n (appends); alive may be rewritten in place only
// while no snapshot holds it (aliveShared false).
type segment struct {
	ids         []uint64
	scales      []float32
	codes       []int8
	fine        []byte // refinement nibbles, fineLen(dim) bytes per slot
	n           int
	alive       []uint64 // bitmap over slots
	aliveShared bool
	nAlive      int
}

// NewIndex returns an empty index for vectors of dimension dim (positive,
// else the error wraps ErrDimension) produced by the model identified by
// model (an Embedder's ModelID).
func NewIndex(model string, dim int) (*Index, error) {
	if dim <= 0 || dim > maxDim {
		return nil, fmt.Errorf("%w: new index: dimension %d", ErrDimension, dim)
	}
	return &Index{model: model, dim: dim, loc: make(map[uint64]location)}, nil
}

// maxDim bounds the dimension (int32 dot products stay exact far beyond).
const maxDim = 1 << 16

// Model returns the model identifier given to NewIndex.
func (x *Index) Model() string { return x.model }

// Dim returns the vector dimension.
func (x *Index) Dim() int { return x.dim }

// Len returns the number of vectors in the index.
func (x *Index) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.loc)
}

// Has reports whether the index holds a vector for id, in constant time.
func (x *Index) Has(id uint64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.loc[id]
	return ok
}

// Add inserts or replaces the vector of id. The vector is quantised; it must
// have the index dimension (else the error wraps ErrDimension) and finite
// components.
func (x *Index) Add(id uint64, v []float32) error {
	if len(v) != x.dim {
		return fmt.Errorf("%w: add %d: length %d, index dimension %d", ErrDimension, id, len(v), x.dim)
	}
	if err := validVector(v); err != nil {
		return fmt.Errorf("add %d: %w", id, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	s, pos := x.slot(id)
	fl := fineLen(x.dim)
	quantizeInto(s.codes[pos*x.dim:(pos+1)*x.dim], s.fine[pos*fl:(pos+1)*fl], v, &s.scales[pos])
	return nil
}

// AddQuantized inserts or replaces the vector of id from its stored form
// (Quantized.UnmarshalBinary of an EncodeVector result), without
// requantising. A vector without refinement is stored with a zero one.
func (x *Index) AddQuantized(id uint64, q Quantized) error {
	if len(q.Codes) != x.dim {
		return fmt.Errorf("%w: add %d: length %d, index dimension %d", ErrDimension, id, len(q.Codes), x.dim)
	}
	if _, err := q.MarshalBinary(); err != nil { // validates scale, codes and refinement
		return fmt.Errorf("add %d: %w", id, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	s, pos := x.slot(id)
	fl := fineLen(x.dim)
	copy(s.codes[pos*x.dim:(pos+1)*x.dim], q.Codes)
	fine := s.fine[pos*fl : (pos+1)*fl]
	clear(fine)
	copy(fine, q.Fine)
	s.scales[pos] = q.Scale
	return nil
}

// slot removes any previous vector of id and returns a fresh live slot for
// it. The caller holds x.mu and fills the codes and scale.
func (x *Index) slot(id uint64) (*segment, int) {
	if _, ok := x.loc[id]; ok {
		x.removeLocked(id)
	}
	if x.tail == nil || x.tail.n == segCap {
		x.tail = x.newSegment()
		x.segs = append(x.segs, x.tail)
	}
	s := x.tail
	pos := s.n
	s.ids[pos] = id
	s.n++
	s.setAlive(pos, true)
	x.loc[id] = location{s, int32(pos)}
	return s, pos
}

// Remove deletes the vector of id and reports whether it was present.
func (x *Index) Remove(id uint64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.removeLocked(id)
}

func (x *Index) removeLocked(id uint64) bool {
	l, ok := x.loc[id]
	if !ok {
		return false
	}
	delete(x.loc, id)
	s := l.seg
	s.setAlive(int(l.pos), false)
	if dead := s.n - s.nAlive; s.nAlive == 0 || dead >= segCap/2 {
		x.compact(s)
	}
	return true
}

// setAlive flips a liveness bit, copying the bitmap first if a snapshot
// holds it.
func (s *segment) setAlive(pos int, alive bool) {
	if s.aliveShared {
		s.alive = slices.Clone(s.alive)
		s.aliveShared = false
	}
	word, bit := pos/64, uint64(1)<<(pos%64)
	if alive {
		s.alive[word] |= bit
		s.nAlive++
	} else {
		s.alive[word] &^= bit
		s.nAlive--
	}
}

// compact replaces s by a new segment holding only its live vectors, or
// drops it when none is left. Snapshots keep the old segment.
func (x *Index) compact(s *segment) {
	i := slices.Index(x.segs, s)
	if s.nAlive == 0 {
		x.segs = slices.Delete(x.segs, i, i+1)
		if x.tail == s {
			x.tail = nil
		}
		return
	}
	c := x.newSegment()
	fl := fineLen(x.dim)
	for pos := 0; pos < s.n; pos++ {
		if !s.isAlive(pos) {
			continue
		}
		p := c.n
		c.ids[p], c.scales[p] = s.ids[pos], s.scales[pos]
		copy(c.codes[p*x.dim:(p+1)*x.dim], s.codes[pos*x.dim:(pos+1)*x.dim])
		copy(c.fine[p*fl:(p+1)*fl], s.fine[pos*fl:(pos+1)*fl])
		c.n++
		c.setAlive(p, true)
		x.loc[c.ids[p]] = location{c, int32(p)}
	}
	x.segs[i] = c
	if x.tail == s {
		x.tail = c
	}
}

func (x *Index) newSegment() *segment {
	return &segment{
		ids:    make([]uint64, segCap),
		scales: make([]float32, segCap),
		codes:  make([]int8, segCap*x.dim),
		fine:   make([]byte, segCap*fineLen(x.dim)),
		alive:  make([]uint64, segCap/64),
	}
}

func (s *segment) isAlive(pos int) bool {
	return s.alive[pos/64]&(uint64(1)<<(pos%64)) != 0
}

// IndexView is an immutable snapshot of an Index. It is safe for concurrent
// use and stays valid whatever happens to the Index afterwards.
type IndexView struct {
	model string
	dim   int
	segs  []segView
	n     int
	// coarse makes Search rescore without the refinement (int8 codes
	// only); benchmarks use it to measure what the refinement buys.
	coarse bool
}

// segView is a segment as a snapshot sees it: its first n slots and the
// liveness bitmap of that moment.
type segView struct {
	ids    []uint64
	scales []float32
	codes  []int8
	fine   []byte
	alive  []uint64
}

// Snapshot returns an immutable view of the index's current contents.
func (x *Index) Snapshot() *IndexView {
	x.mu.Lock()
	defer x.mu.Unlock()
	v := &IndexView{model: x.model, dim: x.dim, segs: make([]segView, 0, len(x.segs)), n: len(x.loc)}
	fl := fineLen(x.dim)
	for _, s := range x.segs {
		s.aliveShared = true
		v.segs = append(v.segs, segView{
			ids:    s.ids[:s.n:s.n],
			scales: s.scales[:s.n:s.n],
			codes:  s.codes[: s.n*x.dim : s.n*x.dim],
			fine:   s.fine[: s.n*fl : s.n*fl],
			alive:  s.alive,
		})
	}
	return v
}

// Model returns the model identifier of the index the view was taken from.
func (v *IndexView) Model() string { return v.model }

// Dim returns the vector dimension.
func (v *IndexView) Dim() int { return v.dim }

// Len returns the number of vectors in the view.
func (v *IndexView) Len() int { return v.n }

// Get returns the (dequantised) vector of id and whether the view holds it.
// It scans the view: use it for tests and diagnostics, not per query.
func (v *IndexView) Get(id uint64) ([]float32, bool) {
	for _, s := range v.segs {
		for pos, got := range s.ids {
			if got == id && s.alive[pos/64]&(uint64(1)<<(pos%64)) != 0 {
				return v.quantized(s, pos).Dequantize(), true
			}
		}
	}
	return nil, false
}

// quantized returns the stored form of slot pos of s (sharing memory).
func (v *IndexView) quantized(s segView, pos int) Quantized {
	fl := fineLen(v.dim)
	return Quantized{
		Codes: s.codes[pos*v.dim : (pos+1)*v.dim],
		Scale: s.scales[pos],
		Fine:  s.fine[pos*fl : (pos+1)*fl],
	}
}

// Hit is one search result.
type Hit struct {
	ID    uint64
	Score float32
}

// rescoreFactor: the int8 pass keeps rescoreFactor×k candidates (at least
// minCandidates) per worker, which are then rescored with the float32 query
// and the refined vectors.
const (
	rescoreFactor = 4
	minCandidates = 32
)

// parallelMin is the view size from which Search uses several goroutines.
const parallelMin = 16384

// Search returns the k vectors with the highest dot product with q (the
// cosine, for normalised vectors), best first; ties go to the lower id.
// filter, if not nil, keeps only ids for which it returns true. The scan is
// exhaustive: a first pass scores every vector's int8 codes with an int8
// query (AVX2 when available), split across runtime.GOMAXPROCS goroutines;
// the best candidates are then rescored with the float32 query and the
// refined vectors. A query of the wrong length, non-finite values or k <= 0
// returns nil.
func (v *IndexView) Search(q []float32, k int, filter func(id uint64) bool) []Hit {
	if k <= 0 || len(q) != v.dim || v.n == 0 || validVector(q) != nil {
		return nil
	}
	qq := Quantize(q)
	q16 := make([]int16, len(qq.Codes))
	for i, c := range qq.Codes {
		q16[i] = int16(c)
	}
	keep := max(k*rescoreFactor, minCandidates)
	workers := 1
	if v.n >= parallelMin {
		workers = max(1, min(runtime.GOMAXPROCS(0), len(v.segs)))
	}
	parts := splitSegments(v.segs, workers)
	heaps := make([]candHeap, len(parts))
	if len(parts) == 1 {
		heaps[0] = v.scan(parts[0], q16, keep, filter)
	} else {
		var wg sync.WaitGroup
		for i, p := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				heaps[i] = v.scan(p, q16, keep, filter)
			}()
		}
		wg.Wait()
	}
	// Rescore the candidates with the float32 query and the refinement.
	var cands []Hit
	for _, h := range heaps {
		for _, c := range h.items {
			s := v.segs[c.seg]
			qv := v.quantized(s, int(c.pos))
			score := dotF32I8(q, qv.Codes)
			if !v.coarse {
				score += dotF32Fine(q, qv.Fine) / fineSteps
			}
			cands = append(cands, Hit{ID: s.ids[c.pos], Score: score * qv.Scale})
		}
	}
	slices.SortFunc(cands, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return cands[:min(k, len(cands))]
}

// segRange is a half-open range of segment indexes.
type segRange struct{ from, to int }

// splitSegments cuts segs into at most n ranges of about equal slot counts.
func splitSegments(segs []segView, n int) []segRange {
	total := 0
	for _, s := range segs {
		total += len(s.ids)
	}
	var out []segRange
	from, acc := 0, 0
	for i, s := range segs {
		acc += len(s.ids)
		if len(out) < n-1 && acc*n >= total*(len(out)+1) {
			out = append(out, segRange{from, i + 1})
			from = i + 1
		}
	}
	if from < len(segs) {
		out = append(out, segRange{from, len(segs)})
	}
	return out
}

// scan scores the live vectors of a range of segments with the int8 query
// and returns the best keep candidates. The approximate score is
// dot(codes_q, codes_v) × scale_v (the query scale is common to all).
func (v *IndexView) scan(r segRange, q []int16, keep int, filter func(uint64) bool) candHeap {
	h := candHeap{items: make([]cand, 0, keep), cap: keep}
	dim := v.dim
	for si := r.from; si < r.to; si++ {
		s := v.segs[si]
		for word, bitsLeft := range s.alive {
			for bitsLeft != 0 {
				pos := word*64 + bits.TrailingZeros64(bitsLeft)
				bitsLeft &= bitsLeft - 1
				if pos >= len(s.ids) {
					break
				}
				score := float32(dotQuery(q, s.codes[pos*dim:pos*dim+dim])) * s.scales[pos]
				if len(h.items) == h.cap && !h.better(score, s.ids[pos]) {
					continue
				}
				if filter != nil && !filter(s.ids[pos]) {
					continue
				}
				h.push(cand{score: score, id: s.ids[pos], seg: int32(si), pos: int32(pos)})
			}
		}
	}
	return h
}

// dotQueryGo is the portable dotQuery.
func dotQueryGo(a []int16, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += int32(a[i])*int32(b[i]) + int32(a[i+4])*int32(b[i+4])
		s1 += int32(a[i+1])*int32(b[i+1]) + int32(a[i+5])*int32(b[i+5])
		s2 += int32(a[i+2])*int32(b[i+2]) + int32(a[i+6])*int32(b[i+6])
		s3 += int32(a[i+3])*int32(b[i+3]) + int32(a[i+7])*int32(b[i+7])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// dotF32I8 is the dot product of a float32 and an int8 vector.
func dotF32I8(a []float32, b []int8) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * float32(b[i])
		s1 += a[i+1] * float32(b[i+1])
		s2 += a[i+2] * float32(b[i+2])
		s3 += a[i+3] * float32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += a[i] * float32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// dotF32Fine is the dot product of a float32 vector and refinement nibbles.
func dotF32Fine(a []float32, fine []byte) float32 {
	var s0, s1 float32
	for i := 0; i+1 < len(a); i += 2 {
		b := fine[i/2]
		lo, hi := int32(b&0xf), int32(b>>4)
		s0 += a[i] * float32(lo-(lo&8)<<1)
		s1 += a[i+1] * float32(hi-(hi&8)<<1)
	}
	if len(a)%2 == 1 {
		s0 += a[len(a)-1] * float32(fineAt(fine, len(a)-1))
	}
	return s0 + s1
}

// cand is a first-pass candidate.
type cand struct {
	score float32
	id    uint64
	seg   int32
	pos   int32
}

// candHeap is a bounded min-heap (worst candidate at the root).
type candHeap struct {
	items []cand
	cap   int
}

// worse orders candidates: lower score, then higher id, is worse.
func worse(a, b cand) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.id > b.id
}

// better reports whether a candidate (score, id) beats the current worst.
func (h *candHeap) better(score float32, id uint64) bool {
	return worse(h.items[0], cand{score: score, id: id})
}

func (h *candHeap) push(c cand) {
	if len(h.items) < h.cap {
		h.items = append(h.items, c)
		i := len(h.items) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !worse(h.items[i], h.items[p]) {
				break
			}
			h.items[i], h.items[p] = h.items[p], h.items[i]
			i = p
		}
		return
	}
	h.items[0] = c
	i, n := 0, len(h.items)
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && worse(h.items[l], h.items[m]) {
			m = l
		}
		if r < n && worse(h.items[r], h.items[m]) {
			m = r
		}
		if m == i {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
