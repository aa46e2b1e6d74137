package search

import (
	"reflect"
	"testing"
)

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
