package search

import (
	"sort"
)

// RRFK is the reciprocal rank fusion constant (Cormack et al.: k = 60).
const RRFK = 60

// Leg is one ranked list to fuse: keys best first.
type Leg struct {
	Name   string // reported in Fused.Sources ("bm25", "symbol", "vector")
	Weight float64
	Keys   []string
}

// Fused is a key with its fused score and the legs that found it.
type Fused struct {
	Key     string
	Score   float64
	Sources []string
}

// RRF fuses ranked lists with weighted reciprocal rank fusion:
// score(d) = Σ weight_l / (k + rank_l(d)), ranks from 1. Ties keep the order
// of first appearance (earlier legs first), so the result is deterministic.
// Duplicate keys within a leg count once, at their best rank.
func RRF(k float64, legs ...Leg) []Fused {
	idx := map[string]int{}
	var out []Fused
	for _, leg := range legs {
		seen := map[string]bool{}
		rank := 0
		for _, key := range leg.Keys {
			if seen[key] {
				continue
			}
			seen[key] = true
			rank++
			i, ok := idx[key]
			if !ok {
				i = len(out)
				idx[key] = i
				out = append(out, Fused{Key: key})
			}
			out[i].Score += leg.Weight / (k + float64(rank))
			out[i].Sources = append(out[i].Sources, leg.Name)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	return out
}

// CapPerGroup keeps at most max items of each group (e.g. file), preserving
// order. max <= 0 disables the cap.
func CapPerGroup[T any](items []T, group func(T) string, max int) []T {
	if max <= 0 {
		return items
	}
	count := map[string]int{}
	out := items[:0:0]
	for _, it := range items {
		g := group(it)
		if count[g] >= max {
			continue
		}
		count[g]++
		out = append(out, it)
	}
	return out
}

// MMR reorders candidates (given best first with relevance scores) by maximal
// marginal relevance: each step picks the candidate maximising
// λ·relevance − (1−λ)·max similarity to those already picked. It returns the
// indexes of the picked candidates, at most k. Relevance should be on a scale
// comparable to sim (e.g. normalised to [0, 1]).
func MMR(relevance []float64, lambda float64, k int, sim func(i, j int) float64) []int {
	n := len(relevance)
	if k <= 0 || k > n {
		k = n
	}
	picked := make([]int, 0, k)
	used := make([]bool, n)
	maxSim := make([]float64, n) // max similarity of i to anything picked so far
	for len(picked) < k {
		best, bestScore := -1, 0.0
		for i := 0; i < n; i++ {
			if used[i] {
				continue
			}
			s := lambda * relevance[i]
			if len(picked) > 0 {
				s -= (1 - lambda) * maxSim[i]
			}
			if best < 0 || s > bestScore {
				best, bestScore = i, s
			}
		}
		used[best] = true
		picked = append(picked, best)
		for i := 0; i < n; i++ {
			if !used[i] {
				if s := sim(i, best); s > maxSim[i] {
					maxSim[i] = s
				}
			}
		}
	}
	return picked
}
