package evalset

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

// LocQuery is one file-localisation query: a change description, the tree it
// applies to and the files the change touched (the gold).
type LocQuery struct {
	Repo   string   `json:"repo"`   // owner/name
	Commit string   `json:"commit"` // the tree to search
	Query  string   `json:"query"`
	Files  []string `json:"files"`
}

// Tree is the directory name materialise.sh gives the query's tree:
// <owner>+<name>-<first 12 hex digits of the commit>.
func (q LocQuery) Tree() string {
	c := q.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	return strings.ReplaceAll(q.Repo, "/", "+") + "-" + c
}

// Ext is the file extension of the repository's language: only files with it
// are ranked (the gold's extension).
func (q LocQuery) Ext() string { return path.Ext(q.Files[0]) }

// LoadLocalisation reads a JSON-lines file of localisation queries.
func LoadLocalisation(file string) ([]LocQuery, error) {
	return ReadLines(file, func(q LocQuery) error {
		if q.Repo == "" || q.Commit == "" || q.Query == "" || len(q.Files) == 0 {
			return errors.New("repo, commit, query and files are required")
		}
		return nil
	})
}

// LocScore is how one ranking serves a localisation query.
type LocScore struct {
	Acc1, Acc3, Acc5 float64 // 1 when every gold file is among the first k
	RR               float64 // 1/rank of the first gold file, 0 when none
	Ranks            []int   // rank of each gold file, 0 when absent
	Top              []string
}

// ScoreLocalisation scores ranked hit paths as the eval README defines it:
// paths reduced to distinct files in order of first appearance, keeping only
// files with the query's extension; Acc@k = every gold file within the first
// k; RR from the first gold file found.
func ScoreLocalisation(q LocQuery, paths []string) LocScore {
	ext := q.Ext()
	var ranked []string
	seen := map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, ext) && !seen[p] {
			seen[p] = true
			ranked = append(ranked, p)
		}
	}
	rank := map[string]int{}
	for i, p := range ranked {
		rank[p] = i + 1
	}
	var s LocScore
	worst, first := 0, 0
	for _, g := range q.Files {
		r := rank[g]
		s.Ranks = append(s.Ranks, r)
		if r == 0 {
			worst = 1 << 30
		} else {
			worst = max(worst, r)
			if first == 0 || r < first {
				first = r
			}
		}
	}
	for k, acc := range map[int]*float64{1: &s.Acc1, 3: &s.Acc3, 5: &s.Acc5} {
		if worst <= k {
			*acc = 1
		}
	}
	if first > 0 {
		s.RR = 1 / float64(first)
	}
	s.Top = ranked[:min(5, len(ranked))]
	return s
}

// LocScores aggregates localisation scores.
type LocScores struct {
	N                     int
	Acc1, Acc3, Acc5, MRR float64
}

// Add accumulates one query's score.
func (s *LocScores) Add(x LocScore) {
	s.N++
	s.Acc1 += x.Acc1
	s.Acc3 += x.Acc3
	s.Acc5 += x.Acc5
	s.MRR += x.RR
}

// Mean returns the averages.
func (s LocScores) Mean() LocScores {
	if s.N == 0 {
		return s
	}
	n := float64(s.N)
	return LocScores{N: s.N, Acc1: s.Acc1 / n, Acc3: s.Acc3 / n, Acc5: s.Acc5 / n, MRR: s.MRR / n}
}

func (s LocScores) String() string {
	return fmt.Sprintf("n=%-4d Acc@1 %.3f  Acc@3 %.3f  Acc@5 %.3f  MRR %.3f", s.N, s.Acc1, s.Acc3, s.Acc5, s.MRR)
}

// ByRepo groups per-query scores by repository, in name order, and returns
// the means with the overall mean last (named "all").
func ByRepo(qs []LocQuery, scores []LocScore) (names []string, means []LocScores) {
	groups := map[string]*LocScores{}
	var all LocScores
	for i, q := range qs {
		g := groups[q.Repo]
		if g == nil {
			g = &LocScores{}
			groups[q.Repo] = g
			names = append(names, q.Repo)
		}
		g.Add(scores[i])
		all.Add(scores[i])
	}
	sort.Strings(names)
	for _, n := range names {
		means = append(means, groups[n].Mean())
	}
	return append(names, "all"), append(means, all.Mean())
}
