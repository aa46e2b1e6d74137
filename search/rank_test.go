package search

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
)

// TestRankMatchesBleve: rank answers every query as bleve's disjunction of
// term queries does — the same documents in the same order with the same
// scores — over an index of several segments with deleted and replaced
// documents, for queries of one to fifteen words, with repeated words
// weighed and with words no document holds. Up to ten words the scores are
// bleve's to the last bit; beyond, bleve adds them in another order, and
// they may differ in the last bits (a swap of two such near-equal hits is
// allowed).
func TestRankMatchesBleve(t *testing.T) {
	x, _, err := Open(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rng := rand.New(rand.NewSource(7))
	vocab := make([]string, 60)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%c%c", 'a'+i%26, 'a'+i/26)
	}
	word := func() string { // Zipf-like: low indexes are common
		return vocab[int(float64(len(vocab))*math.Pow(rng.Float64(), 2.5))]
	}
	doc := func(id int) Doc {
		n := 1 + rng.Intn(60)
		words := make([]string, n)
		for i := range words {
			words[i] = word()
		}
		return Doc{ID: fmt.Sprintf("%08d", id), Body: strings.Join(words, " "), Name: word(), Path: "p/" + word() + ".go", Lang: "go", Kind: "function", File: "p.go"}
	}
	next := 0
	for batch := 0; batch < 5; batch++ {
		b := x.NewBatch()
		for i := 0; i < 150; i++ {
			if err := b.Add(doc(next)); err != nil {
				t.Fatal(err)
			}
			next++
		}
		if batch > 1 { // delete and replace documents of earlier segments
			for i := 0; i < 20; i++ {
				id := rng.Intn(next - 150)
				if i%2 == 0 {
					b.Delete(fmt.Sprintf("%08d", id))
				} else if err := b.Add(doc(id)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := x.Apply(b); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for qi := 0; qi < 200; qi++ {
		n := 1 + rng.Intn(15)
		words := make([]string, n)
		for i := range words {
			words[i] = word()
			if rng.Intn(10) == 0 {
				words[i] = "absent" + fmt.Sprint(i)
			}
		}
		q := Query{Text: strings.Join(words, " "), Repeats: qi%2 == 0, Limit: 1 + rng.Intn(60)}
		field := FieldText
		if qi%5 == 0 {
			field = FieldName
		}
		terms := queryTerms(q)
		// The index is below commonMinDocs: rank keeps every term, as
		// the disjunction does.
		got, err := x.rank(ctx, terms, field, q.Limit)
		if err != nil {
			t.Fatal(err)
		}
		want, err := x.run(ctx, disjunction(terms, field), q, q.Limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q in %s: %d hits, bleve %d", q.Text, field, len(got), len(want))
		}
		exact := len(terms) <= 10
		for i := range got {
			g, w := got[i], want[i]
			if exact && g != w {
				t.Fatalf("%q in %s: hit %d is %v, bleve's %v", q.Text, field, i, g, w)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
			if !near(g.Score, w.Score) {
				t.Fatalf("%q in %s: hit %d scores %v, bleve's %v", q.Text, field, i, g.Score, w.Score)
			}
			if g.ID != w.ID && !(i+1 < len(got) && near(got[i+1].Score, g.Score)) && !(i > 0 && near(got[i-1].Score, g.Score)) {
				t.Fatalf("%q in %s: hit %d is %v, bleve's %v", q.Text, field, i, g, w)
			}
		}
	}
}
