package evalset

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScore(t *testing.T) {
	q := Query{Query: "x", Files: []string{"b.go", "z.go"}, Symbols: []string{"Foo"}}
	// Files by first occurrence: a.go (1), b.go (2) → hit@1 0, hit@5 1, RR 1/2.
	h1, h5, rr, s5 := Score(q, Result{Paths: []string{"a.go", "a.go", "b.go"}, Symbols: []string{"Bar", "T.Foo"}})
	if h1 != 0 || h5 != 1 || math.Abs(rr-0.5) > 1e-12 || s5 != 1 {
		t.Fatalf("got %v %v %v %v", h1, h5, rr, s5)
	}
	h1, h5, rr, s5 = Score(q, Result{Paths: []string{"1", "2", "3", "4", "5", "b.go"}})
	if h1 != 0 || h5 != 0 || math.Abs(rr-1.0/6) > 1e-12 || s5 != 0 {
		t.Fatalf("rank 6: got %v %v %v %v", h1, h5, rr, s5)
	}
	var s Scores
	s.Add(1, 1, 1, 1)
	s.Add(0, 1, 0.5, 0)
	if m := s.Mean(); m.Hit1 != 0.5 || m.Hit5 != 1 || m.MRR != 0.75 || m.Symbol5 != 0.5 {
		t.Fatalf("mean = %+v", m)
	}
}

func TestLoadRejectsBadLines(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "q.jsonl")
	os.WriteFile(p, []byte("{\"query\":\"a\",\"files\":[\"x\"]}\n{\"query\":\"\"}\n"), 0o644)
	if _, err := Load(p); err == nil {
		t.Fatal("missing fields accepted")
	}
	os.WriteFile(p, []byte("{\"query\":\"a\",\"files\":[\"x\"]}\n\n"), 0o644)
	qs, err := Load(p)
	if err != nil || len(qs) != 1 {
		t.Fatalf("%v %v", qs, err)
	}
}

func TestScoreLocalisation(t *testing.T) {
	q := LocQuery{Repo: "o/r", Commit: "0123456789abcdef", Files: []string{"b.py", "c.py"}}
	if q.Tree() != "o+r-0123456789ab" || q.Ext() != ".py" {
		t.Fatalf("tree %q ext %q", q.Tree(), q.Ext())
	}
	// Distinct .py files in order: a.py b.py d.py c.py → ranks 2 and 4.
	s := ScoreLocalisation(q, []string{"README.md", "a.py", "a.py", "b.py", "d.py", "docs/x.rst", "c.py"})
	if s.Acc1 != 0 || s.Acc3 != 0 || s.Acc5 != 1 || s.RR != 0.5 || s.Ranks[0] != 2 || s.Ranks[1] != 4 {
		t.Fatalf("%+v", s)
	}
	s = ScoreLocalisation(q, []string{"b.py"})
	if s.Acc5 != 0 || s.RR != 1 || s.Ranks[1] != 0 {
		t.Fatalf("a gold file missing: %+v", s)
	}
	names, means := ByRepo([]LocQuery{q, q}, []LocScore{{Acc5: 1, RR: 1}, {RR: 0.5}})
	if len(names) != 2 || names[1] != "all" || means[1].Acc5 != 0.5 || means[1].MRR != 0.75 {
		t.Fatalf("%v %+v", names, means)
	}
}

func TestLoadLocalisationRejectsBadLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "l.jsonl")
	os.WriteFile(p, []byte(`{"repo":"o/r","commit":"c","query":"q","files":["a.go"]}`+"\n"+`{"repo":"o/r","query":"q","files":["a.go"]}`+"\n"), 0o644)
	if _, err := LoadLocalisation(p); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Fatalf("missing commit accepted: %v", err)
	}
}
