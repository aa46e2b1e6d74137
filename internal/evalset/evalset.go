// Package evalset loads golden retrieval queries (JSON lines of query →
// expected files and symbols) and scores ranked results against them with
// the metrics the project reports: file hit@1, hit@5, MRR and symbol@5.
package evalset

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Query is one golden query.
type Query struct {
	Query   string   `json:"query"`
	Files   []string `json:"files"`
	Symbols []string `json:"symbols"`
}

// Load reads a JSON-lines file of queries.
func Load(path string) ([]Query, error) {
	return ReadLines(path, func(q Query) error {
		if q.Query == "" || len(q.Files) == 0 {
			return errors.New("query and files are required")
		}
		return nil
	})
}

// ReadLines decodes a JSON-lines file, one T a line (blank lines skipped),
// each checked by check when it is not nil.
func ReadLines[T any](path string, check func(T) error) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if check == nil {
			out = append(out, v)
			continue
		}
		if err := check(v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// Result is a ranked answer: paths and symbol names of the hits, best first.
type Result struct {
	Paths   []string
	Symbols []string // the hit's symbol label; "Type.Method" matches "Method"
}

// Scores aggregates metrics over queries.
type Scores struct {
	N       int
	Hit1    float64
	Hit5    float64
	MRR     float64
	Symbol5 float64
}

// Score computes the metrics for one query: ranks are over the distinct
// files of the hits (first occurrence of each path).
func Score(q Query, r Result) (hit1, hit5, rr, sym5 float64) {
	want := map[string]bool{}
	for _, f := range q.Files {
		want[f] = true
	}
	seen := map[string]bool{}
	rank := 0
	for _, p := range r.Paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		rank++
		if want[p] {
			rr = 1 / float64(rank)
			if rank == 1 {
				hit1 = 1
			}
			if rank <= 5 {
				hit5 = 1
			}
			break
		}
	}
	wantSym := map[string]bool{}
	for _, s := range q.Symbols {
		wantSym[s] = true
	}
	for i, s := range r.Symbols {
		if i >= 5 {
			break
		}
		if wantSym[s] || wantSym[lastPart(s)] {
			sym5 = 1
			break
		}
	}
	return
}

// Add accumulates one query's metrics.
func (s *Scores) Add(hit1, hit5, rr, sym5 float64) {
	s.N++
	s.Hit1 += hit1
	s.Hit5 += hit5
	s.MRR += rr
	s.Symbol5 += sym5
}

// Mean returns the averages.
func (s Scores) Mean() Scores {
	if s.N == 0 {
		return s
	}
	n := float64(s.N)
	return Scores{N: s.N, Hit1: s.Hit1 / n, Hit5: s.Hit5 / n, MRR: s.MRR / n, Symbol5: s.Symbol5 / n}
}

func (s Scores) String() string {
	return fmt.Sprintf("n=%d hit@1=%.2f hit@5=%.2f MRR=%.2f symbol@5=%.2f", s.N, s.Hit1, s.Hit5, s.MRR, s.Symbol5)
}

func lastPart(s string) string {
	if i := strings.LastIndexAny(s, ".:"); i >= 0 {
		return s[i+1:]
	}
	return s
}
