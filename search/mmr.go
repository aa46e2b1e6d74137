package search

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
