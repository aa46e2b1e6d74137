package vectors

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
)

// randomUnit returns a random unit vector (Gaussian components).
func randomUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return Normalize(v)
}

// clustered returns n unit vectors drawn around `centers` random centres,
// closer to real embeddings (topics) than uniform noise.
func clustered(r *rand.Rand, n, dim, centers int, spread float64) [][]float32 {
	cs := make([][]float32, centers)
	for i := range cs {
		cs[i] = randomUnit(r, dim)
	}
	out := make([][]float32, n)
	for i := range out {
		c := cs[r.IntN(centers)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + float32(r.NormFloat64()*spread)
		}
		out[i] = Normalize(v)
	}
	return out
}

// bruteForce returns the exact top-k ids by float32 dot product over vecs
// (vecs[i] has id ids[i]), ties to the lower id.
func bruteForce(q []float32, ids []uint64, vecs [][]float32, k int, keep func(uint64) bool) []Hit {
	var hits []Hit
	for i, v := range vecs {
		if v == nil || (keep != nil && !keep(ids[i])) {
			continue
		}
		hits = append(hits, Hit{ID: ids[i], Score: Dot(q, v)})
	}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		return hits[a].ID < hits[b].ID
	})
	return hits[:min(k, len(hits))]
}

func hitIDs(h []Hit) []uint64 {
	out := make([]uint64, len(h))
	for i, x := range h {
		out[i] = x.ID
	}
	return out
}

// overlap is |a ∩ b| / |b|.
func overlap(a, b []Hit) float64 {
	if len(b) == 0 {
		return 1
	}
	set := map[uint64]bool{}
	for _, h := range a {
		set[h.ID] = true
	}
	n := 0
	for _, h := range b {
		if set[h.ID] {
			n++
		}
	}
	return float64(n) / float64(len(b))
}

func TestIndexAddRemoveReplace(t *testing.T) {
	x := mustIndex(t, "m@1", 4)
	if x.Model() != "m@1" || x.Dim() != 4 || x.Len() != 0 {
		t.Fatal("new index")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(x.Add(1, []float32{1, 0, 0, 0}))
	must(x.Add(2, []float32{0, 1, 0, 0}))
	must(x.Add(3, []float32{0, 0, 1, 0}))
	if x.Len() != 3 {
		t.Fatalf("Len %d", x.Len())
	}
	q := []float32{0.1, 0.2, 0.9, 0}
	if got := hitIDs(x.Snapshot().Search(q, 3, nil)); !slices.Equal(got, []uint64{3, 2, 1}) {
		t.Fatalf("Search = %v", got)
	}
	// Replace id 1 so that it becomes the best match.
	must(x.Add(1, []float32{0, 0.1, 1, 0}))
	if x.Len() != 3 {
		t.Fatalf("Len after replace %d", x.Len())
	}
	if got := hitIDs(x.Snapshot().Search(q, 3, nil)); !slices.Equal(got, []uint64{1, 3, 2}) {
		t.Fatalf("Search after replace = %v", got)
	}
	if !x.Has(3) || x.Has(99) {
		t.Fatal("Has before remove")
	}
	if !x.Remove(3) || x.Remove(3) || x.Remove(99) {
		t.Fatal("Remove results")
	}
	if x.Has(3) || !x.Has(1) {
		t.Fatal("Has after remove")
	}
	if got := hitIDs(x.Snapshot().Search(q, 10, nil)); !slices.Equal(got, []uint64{1, 2}) {
		t.Fatalf("Search after remove = %v", got)
	}
	// Filter keeps only odd ids.
	if got := hitIDs(x.Snapshot().Search(q, 10, func(id uint64) bool { return id%2 == 1 })); !slices.Equal(got, []uint64{1}) {
		t.Fatalf("filtered Search = %v", got)
	}
	v, ok := x.Snapshot().Get(2)
	if !ok {
		t.Fatal("Get(2) missing")
	}
	assertVec(t, "Get(2)", v, []float32{0, 1, 0, 0}, 1e-6)
	if _, ok := x.Snapshot().Get(3); ok {
		t.Fatal("Get(3) found a removed vector")
	}
}

func TestIndexBadInput(t *testing.T) {
	x := mustIndex(t, "m", 3)
	if err := x.Add(1, []float32{1, 2}); !errors.Is(err, ErrDimension) {
		t.Errorf("Add short = %v", err)
	}
	if err := x.Add(1, []float32{1, float32(math.NaN()), 0}); err == nil {
		t.Error("Add NaN accepted")
	}
	if err := x.Add(1, []float32{float32(math.Inf(1)), 0, 0}); err == nil {
		t.Error("Add Inf accepted")
	}
	if err := x.AddQuantized(1, Quantized{Codes: []int8{1, 2}, Scale: 1}); !errors.Is(err, ErrDimension) {
		t.Errorf("AddQuantized short = %v", err)
	}
	if err := x.AddQuantized(1, Quantized{Codes: []int8{1, 2, 3}, Scale: float32(math.NaN())}); !errors.Is(err, ErrCorruptVector) {
		t.Errorf("AddQuantized NaN scale = %v", err)
	}
	if x.Len() != 0 {
		t.Fatalf("rejected vectors were stored: Len %d", x.Len())
	}
	x.Add(1, []float32{1, 0, 0})
	v := x.Snapshot()
	for _, q := range [][]float32{nil, {1, 0}, {1, 0, 0, 0}, {float32(math.NaN()), 0, 0}} {
		if got := v.Search(q, 5, nil); got != nil {
			t.Errorf("Search(%v) = %v", q, got)
		}
	}
	if got := v.Search([]float32{1, 0, 0}, 0, nil); got != nil {
		t.Errorf("Search k=0 = %v", got)
	}
	// A zero vector is stored and scores 0.
	x.Add(2, []float32{0, 0, 0})
	if got := x.Snapshot().Search([]float32{1, 0, 0}, 5, nil); len(got) != 2 || got[1].ID != 2 || got[1].Score != 0 {
		t.Errorf("zero vector: %v", got)
	}
}

func TestIndexMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const dim = 64
	for _, n := range []int{1, 10, 3000, parallelMin + 3000} {
		x := mustIndex(t, "m", dim)
		ids := make([]uint64, n)
		vecs := make([][]float32, n)
		for i := range ids {
			ids[i] = uint64(r.Uint32())<<8 | uint64(i) // unique, unordered
			vecs[i] = randomUnit(r, dim)
			if err := x.Add(ids[i], vecs[i]); err != nil {
				t.Fatal(err)
			}
		}
		// Compare with the exact scan over the stored (dequantised)
		// vectors: the int8 first pass must not lose true top-k hits.
		stored := make([][]float32, n)
		v := x.Snapshot()
		for i, id := range ids {
			stored[i], _ = v.Get(id)
		}
		keep := func(id uint64) bool { return id%3 != 0 }
		for qi := 0; qi < 20; qi++ {
			q := randomUnit(r, dim)
			for _, f := range []func(uint64) bool{nil, keep} {
				got := v.Search(q, 10, f)
				want := bruteForce(q, ids, stored, 10, f)
				if !slices.Equal(hitIDs(got), hitIDs(want)) {
					t.Fatalf("n=%d: Search = %v, want %v", n, hitIDs(got), hitIDs(want))
				}
				for i := range got {
					if math.Abs(float64(got[i].Score-want[i].Score)) > 1e-5 {
						t.Fatalf("n=%d: score %v, want %v", n, got[i].Score, want[i].Score)
					}
				}
			}
		}
	}
}

// TestIndexSnapshotIsolation changes the index in every way after taking a
// snapshot (appends, replacements, removals enough to compact and drop
// segments) and checks the snapshot still answers as before.
func TestIndexSnapshotIsolation(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const dim, n = 16, 3 * segCap
	x := mustIndex(t, "m", dim)
	vecs := map[uint64][]float32{}
	for id := uint64(0); id < n; id++ {
		vecs[id] = randomUnit(r, dim)
		x.Add(id, vecs[id])
	}
	old := x.Snapshot()
	queries := make([][]float32, 10)
	before := make([][]Hit, len(queries))
	for i := range queries {
		queries[i] = randomUnit(r, dim)
		before[i] = old.Search(queries[i], 20, nil)
	}
	// Remove the whole first segment (dropped), most of the second
	// (compacted), replace some of the third, and append more.
	for id := uint64(0); id < segCap; id++ {
		x.Remove(id)
	}
	for id := uint64(segCap); id < segCap+segCap*3/4; id++ {
		x.Remove(id)
	}
	for id := uint64(2 * segCap); id < 2*segCap+100; id++ {
		vecs[id] = randomUnit(r, dim)
		x.Add(id, vecs[id])
	}
	for id := uint64(n); id < n+500; id++ {
		vecs[id] = randomUnit(r, dim)
		x.Add(id, vecs[id])
	}
	if old.Len() != n {
		t.Fatalf("old snapshot Len %d", old.Len())
	}
	for i, q := range queries {
		if got := old.Search(q, 20, nil); !slices.Equal(got, before[i]) {
			t.Fatalf("old snapshot changed: %v, was %v", hitIDs(got), hitIDs(before[i]))
		}
	}
	// The new snapshot reflects every change.
	cur := x.Snapshot()
	wantLen := n - segCap - segCap*3/4 + 500
	if cur.Len() != wantLen || x.Len() != wantLen {
		t.Fatalf("Len %d/%d, want %d", cur.Len(), x.Len(), wantLen)
	}
	var ids []uint64
	var stored [][]float32
	for id := range vecs {
		if v, ok := cur.Get(id); ok {
			ids = append(ids, id)
			stored = append(stored, v)
		}
	}
	if len(ids) != wantLen {
		t.Fatalf("%d vectors reachable, want %d", len(ids), wantLen)
	}
	for _, q := range queries {
		got := cur.Search(q, 20, nil)
		if want := bruteForce(q, ids, stored, 20, nil); !slices.Equal(hitIDs(got), hitIDs(want)) {
			t.Fatalf("new snapshot: %v, want %v", hitIDs(got), hitIDs(want))
		}
	}
	if len(x.segs) > 4 {
		t.Errorf("%d segments after compaction", len(x.segs))
	}
}

// TestIndexConcurrentSearch runs searches on snapshots while another
// goroutine keeps updating the index (run with -race).
func TestIndexConcurrentSearch(t *testing.T) {
	const dim = 32
	x := mustIndex(t, "m", dim)
	r := rand.New(rand.NewPCG(5, 6))
	for id := uint64(0); id < 2*segCap; id++ {
		x.Add(id, randomUnit(r, dim))
	}
	stop := make(chan struct{})
	var writes atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := rand.New(rand.NewPCG(7, 8))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			id := uint64(w.IntN(4 * segCap))
			if i%3 == 0 {
				x.Remove(id)
			} else {
				x.Add(id, randomUnit(w, dim))
			}
			writes.Add(1)
		}
	}()
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(uint64(g), 9))
			for i := 0; i < 150; i++ {
				v := x.Snapshot()
				q := randomUnit(rr, dim)
				a := v.Search(q, 10, nil)
				b := v.Search(q, 10, nil)
				if !slices.Equal(a, b) {
					t.Error("a snapshot answered the same query differently")
					return
				}
				if len(a) != min(10, v.Len()) {
					t.Errorf("%d hits from a view of %d", len(a), v.Len())
					return
				}
			}
		}()
	}
	for writes.Load() < 2000 {
		runtimeGosched()
	}
	close(stop)
	wg.Wait()
}

func TestQuantizeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	tests := [][]float32{
		{},
		{0, 0, 0},
		{1, -1, 0.5, -0.25},
		randomUnit(r, 384),
		{1e-30, -1e-30},
		{3e38, -3e38},
	}
	for _, v := range tests {
		b, err := EncodeVector(v)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != 5+len(v)+(len(v)+1)/2 {
			t.Fatalf("encoded %d bytes for %d dims", len(b), len(v))
		}
		got, err := DecodeVector(b)
		if err != nil {
			t.Fatal(err)
		}
		var maxAbs float32
		for _, x := range v {
			maxAbs = max(maxAbs, abs32(x))
		}
		// Each component is within half a refinement step (scale/28); the
		// codes alone are within half a code step (scale/2).
		coarse := Quantize(v)
		coarse.Fine = nil
		codesOnly := coarse.Dequantize()
		for i := range v {
			if d := abs32(got[i] - v[i]); float64(d) > float64(maxAbs)/127/28*1.001 {
				t.Fatalf("component %d: %v -> %v", i, v[i], got[i])
			}
			if d := abs32(codesOnly[i] - v[i]); float64(d) > float64(maxAbs)/127/2*1.001 {
				t.Fatalf("component %d: %v -> %v without refinement", i, v[i], codesOnly[i])
			}
		}
		// Unmarshal + Marshal gives back the same bytes.
		var q Quantized
		if err := q.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if b2, err := q.MarshalBinary(); err != nil || !slices.Equal(b, b2) {
			t.Fatalf("Unmarshal/Marshal changed the bytes: %v", err)
		}
	}
	for _, bad := range [][]float32{{float32(math.NaN())}, {float32(math.Inf(-1))}, {math.MaxFloat32}} {
		if _, err := EncodeVector(bad); err == nil {
			t.Errorf("%v encoded", bad)
		}
	}
	// The refinement nibbles are two's complement: check every value.
	for f := int32(-7); f <= 7; f++ {
		for i := 0; i < 2; i++ {
			fine := []byte{0}
			fine[0] |= byte(f&0xf) << (4 * i)
			if got := fineAt(fine, i); got != f {
				t.Fatalf("fineAt(%d) = %d", f, got)
			}
		}
	}
}

func TestDecodeVectorCorrupt(t *testing.T) {
	nan := math.Float32bits(float32(math.NaN()))
	tests := map[string][]byte{
		"empty":        nil,
		"short":        {1, 0, 0},
		"format":       {2, 0, 0, 0x80, 0x3f, 1},
		"nan scale":    {1, byte(nan), byte(nan >> 8), byte(nan >> 16), byte(nan >> 24), 1},
		"neg scale":    {1, 0, 0, 0x80, 0xbf, 1},
		"code -128":    {1, 0, 0, 0x80, 0x3f, 0x80},
		"inf scale":    {1, 0, 0, 0x80, 0x7f, 1},
		"header only?": {1, 0, 0, 0x80},
		"fine length":  {2, 0, 0, 0x80, 0x3f, 1},
		"fine padding": {2, 0, 0, 0x80, 0x3f, 1, 0xf0},
		"fine code":    {2, 0, 0, 0x80, 0x3f, 0x80, 0x00},
	}
	for name, b := range tests {
		if _, err := DecodeVector(b); !errors.Is(err, ErrCorruptVector) {
			t.Errorf("%s: DecodeVector = %v, want ErrCorruptVector", name, err)
		}
	}
	// A valid header with no codes is the empty vector, in both formats.
	for _, f := range []byte{1, 2} {
		if v, err := DecodeVector([]byte{f, 0, 0, 0x80, 0x3f}); err != nil || len(v) != 0 {
			t.Errorf("empty vector (format %d): %v %v", f, v, err)
		}
	}
	// Format 1 (codes only) and format 2 (with refinement) decode.
	if v, err := DecodeVector([]byte{1, 0, 0, 0x80, 0x3f, 2, 0xfe}); err != nil || !slices.Equal(v, []float32{2, -2}) {
		t.Errorf("format 1: %v %v", v, err)
	}
	if v, err := DecodeVector([]byte{2, 0, 0, 0x80, 0x3f, 2, 0xfe, 0x9e}); err != nil || !slices.Equal(v, []float32{2 - 2.0/14, -2 - 7.0/14}) {
		t.Errorf("format 2: %v %v", v, err)
	}
}

func TestAddQuantizedMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	a, b, c := mustIndex(t, "m", 47), mustIndex(t, "m", 47), mustIndex(t, "m", 47)
	for id := uint64(0); id < 200; id++ {
		v := randomUnit(r, 47)
		a.Add(id, v)
		enc, _ := EncodeVector(v)
		var q Quantized
		if err := q.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		if err := b.AddQuantized(id, q); err != nil {
			t.Fatal(err)
		}
		q.Fine = nil // a codes-only vector gets a zero refinement
		if err := c.AddQuantized(id, q); err != nil {
			t.Fatal(err)
		}
		got, _ := c.Snapshot().Get(id)
		if want := q.Dequantize(); !slices.Equal(got, want) {
			t.Fatalf("codes-only vector: %v, want %v", got, want)
		}
	}
	q := randomUnit(r, 47)
	if ha, hb := a.Snapshot().Search(q, 20, nil), b.Snapshot().Search(q, 20, nil); !slices.Equal(ha, hb) {
		t.Fatalf("Add vs AddQuantized: %v vs %v", ha, hb)
	}
}

// TestQuantizedRecall measures the top-10 overlap of the int8 index against
// an fp32 exact scan of the original vectors (target >= 0.99).
func TestQuantizedRecall(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 15))
	for _, tc := range []struct {
		name string
		vecs [][]float32
	}{
		{"clustered-384", clustered(r, 10000, 384, 100, 0.05)},
		{"uniform-384", clustered(r, 10000, 384, 10000, 1)},
	} {
		x := mustIndex(t, "m", 384)
		ids := make([]uint64, len(tc.vecs))
		for i, v := range tc.vecs {
			ids[i] = uint64(i)
			x.Add(ids[i], v)
		}
		v := x.Snapshot()
		var sum float64
		const queries = 60
		for i := 0; i < queries; i++ {
			// Queries near stored vectors, as real queries land near
			// relevant chunks.
			base := tc.vecs[r.IntN(len(tc.vecs))]
			q := make([]float32, len(base))
			for j := range q {
				q[j] = base[j] + float32(r.NormFloat64()*0.05)
			}
			Normalize(q)
			sum += overlap(v.Search(q, 10, nil), bruteForce(q, ids, tc.vecs, 10, nil))
		}
		if got := sum / queries; got < 0.99 {
			t.Errorf("%s: top-10 overlap %.4f, want >= 0.99", tc.name, got)
		} else {
			t.Logf("%s: top-10 overlap %.4f", tc.name, got)
		}
	}
}

func FuzzDecodeVector(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0x80, 0x3f, 1, 2, 0xff})
	f.Add([]byte{})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeVector(b)
		if err != nil {
			if !errors.Is(err, ErrCorruptVector) {
				t.Fatalf("error %v does not wrap ErrCorruptVector", err)
			}
			return
		}
		b2, err := EncodeVector(v)
		if err != nil {
			t.Fatalf("decoded vector does not encode: %v", err)
		}
		v2, err := DecodeVector(b2)
		if err != nil || len(v2) != len(v) {
			t.Fatalf("round trip: %v", err)
		}
		// Re-encoding moves each component by at most half a refinement
		// step of the new scale (the decoded codes need not reach ±127).
		var maxAbs float64
		for _, x := range v {
			maxAbs = max(maxAbs, math.Abs(float64(x)))
		}
		for i := range v {
			if d := math.Abs(float64(v[i] - v2[i])); d > maxAbs/127/28*1.001+1e-37 {
				t.Fatalf("round trip moved component %d: %v -> %v", i, v[i], v2[i])
			}
		}
	})
}

// TestDotQueryKernels compares the assembly kernel (when the CPU has it)
// with the portable loop on random and extreme codes of many lengths.
func TestDotQueryKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	for n := 0; n <= 600; n++ {
		q := make([]int16, n)
		v := make([]int8, n+7) // longer: dotQuery must use only len(q)
		for i := range q {
			q[i] = int16(r.IntN(255) - 127)
		}
		for i := range v {
			v[i] = int8(r.IntN(255) - 127)
		}
		if n%50 == 0 { // extremes: every product +-127*127
			for i := range q {
				q[i], v[i] = 127, -127
			}
		}
		want := dotQueryGo(q, v[:n])
		var exact int64
		for i := range q {
			exact += int64(q[i]) * int64(v[i])
		}
		if int64(want) != exact {
			t.Fatalf("n=%d: portable %d, exact %d", n, want, exact)
		}
		if got := dotQuery(q, v); got != want {
			t.Fatalf("n=%d: dotQuery %d (avx2 %v), want %d", n, got, useAVX2, want)
		}
	}
}

func mustIndex(tb testing.TB, model string, dim int) *Index {
	tb.Helper()
	x, err := NewIndex(model, dim)
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

func TestNewIndexDimension(t *testing.T) {
	for _, dim := range []int{0, -1, 1 << 20} {
		if _, err := NewIndex("m", dim); !errors.Is(err, ErrDimension) {
			t.Errorf("NewIndex(%d) = %v", dim, err)
		}
	}
}
