package search

import (
	"math"
	"reflect"
	"testing"
)

func TestRRFHandChecked(t *testing.T) {
	// bm25: a b c ; symbol: c a ; k = 60, equal weights.
	// a: 1/61 + 1/62 = 0.032522…   c: 1/63 + 1/61 = 0.032266…   b: 1/62 = 0.016129…
	got := RRF(60, Leg{"bm25", 1, []string{"a", "b", "c"}}, Leg{"symbol", 1, []string{"c", "a"}})
	keys := []string{}
	for _, f := range got {
		keys = append(keys, f.Key)
	}
	if !reflect.DeepEqual(keys, []string{"a", "c", "b"}) {
		t.Fatalf("order = %v", keys)
	}
	if want := 1.0/61 + 1.0/62; math.Abs(got[0].Score-want) > 1e-12 {
		t.Fatalf("score(a) = %v, want %v", got[0].Score, want)
	}
	if !reflect.DeepEqual(got[1].Sources, []string{"bm25", "symbol"}) || !reflect.DeepEqual(got[2].Sources, []string{"bm25"}) {
		t.Fatalf("sources = %v %v", got[1].Sources, got[2].Sources)
	}
}

func TestRRFWeightsAndDuplicates(t *testing.T) {
	// A heavy second leg wins; a duplicate key in a leg counts once, at its best rank.
	got := RRF(60, Leg{"bm25", 1, []string{"a", "b", "a"}}, Leg{"vector", 3, []string{"b"}})
	if got[0].Key != "b" || math.Abs(got[0].Score-(1.0/62+3.0/61)) > 1e-12 {
		t.Fatalf("got %+v", got)
	}
	if got[1].Key != "a" || math.Abs(got[1].Score-1.0/61) > 1e-12 {
		t.Fatalf("duplicate counted twice: %+v", got[1])
	}
}

func TestCapPerGroup(t *testing.T) {
	items := []string{"x/1", "x/2", "y/1", "x/3", "y/2", "y/3"}
	got := CapPerGroup(items, func(s string) string { return s[:1] }, 2)
	if !reflect.DeepEqual(got, []string{"x/1", "x/2", "y/1", "y/2"}) {
		t.Fatalf("got %v", got)
	}
	if got := CapPerGroup(items, func(s string) string { return s[:1] }, 0); len(got) != len(items) {
		t.Fatal("cap 0 must disable")
	}
}

func TestMMRHandChecked(t *testing.T) {
	// Candidates 0 and 1 are near duplicates (sim 0.95); 2 is different.
	rel := []float64{1.0, 0.9, 0.6}
	sim := func(i, j int) float64 {
		if (i == 0 && j == 1) || (i == 1 && j == 0) {
			return 0.95
		}
		return 0.1
	}
	// λ = 0.7: step 1 picks 0 (0.7). Step 2: cand 1 = 0.63 - 0.3*0.95 = 0.345,
	// cand 2 = 0.42 - 0.3*0.1 = 0.39 → picks 2, then 1.
	if got := MMR(rel, 0.7, 3, sim); !reflect.DeepEqual(got, []int{0, 2, 1}) {
		t.Fatalf("λ=0.7: %v", got)
	}
	// λ = 1 is pure relevance order.
	if got := MMR(rel, 1, 3, sim); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Fatalf("λ=1: %v", got)
	}
	if got := MMR(rel, 0.7, 1, sim); !reflect.DeepEqual(got, []int{0}) {
		t.Fatalf("k=1: %v", got)
	}
}
