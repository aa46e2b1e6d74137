package search

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// TestTiesRankByIDAcrossSegments: hits of equal score rank by id — in
// rank, and in bleve's answer to a filtered query both when the whole tie
// group comes back with the spare hits (sorted here) and when it is larger
// (the query runs again sorted by id).
func TestTiesRankByIDAcrossSegments(t *testing.T) {
	for _, tc := range []struct {
		n     int
		langs []string
	}{{20, nil}, {20, []string{"go"}}, {5 + tieSpare + 20, []string{"go"}}} {
		n := tc.n
		t.Run(fmt.Sprint(n, tc.langs), func(t *testing.T) {
			x, _, err := Open(filepath.Join(t.TempDir(), "bleve"))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			// n identical documents over several batches (several
			// segments): every one scores the same. Ids are spread so that
			// no segment holds exactly the lowest five, whatever order
			// bleve visits segments in.
			for batch := 0; batch < 4; batch++ {
				b := x.NewBatch()
				for i := 0; i < n/4; i++ {
					id := i*4 + batch
					if err := b.Add(Doc{ID: fmt.Sprintf("%016x", id), Body: "parse the widget", Name: "Parse", Path: "p.go", Lang: "go", Kind: "function", File: "p.go"}); err != nil {
						t.Fatal(err)
					}
				}
				if err := x.Apply(b); err != nil {
					t.Fatal(err)
				}
			}
			hits, err := x.Search(context.Background(), Query{Text: "widget", Languages: tc.langs, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, h := range hits {
				ids = append(ids, h.ID)
			}
			want := []string{"0000000000000000", "0000000000000001", "0000000000000002", "0000000000000003", "0000000000000004"}
			if !reflect.DeepEqual(ids, want) {
				t.Fatalf("tied hits %v, want the lowest ids in order %v", ids, want)
			}
		})
	}
}

// TestCommonTermsLeftOut: in a large index (here: large enough by
// commonMinDocs), a term in most documents ("widget", like "go" in Go
// paths) does not widen a query that has rarer terms, and a query of
// common terms alone still finds them.
func TestCommonTermsLeftOut(t *testing.T) {
	x, _, err := Open(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	b := x.NewBatch()
	for i := 0; i < 20; i++ {
		body, lang := "render the widget", "go"
		switch {
		case i < 2:
			body = "parse the widget gizmo"
		case i == 19:
			body, lang = "a python widget", "python"
		}
		if err := b.Add(Doc{ID: fmt.Sprintf("%016x", i), Body: body, Path: "p.go", Lang: lang, Kind: "function", File: "p.go"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Apply(b); err != nil {
		t.Fatal(err)
	}
	ids := func(q string, langs ...string) []string {
		hits, err := x.Search(context.Background(), Query{Text: q, Languages: langs, Limit: 30})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.ID)
		}
		return out
	}
	// A small index keeps every term.
	if got := ids("gizmo widget"); len(got) != 20 {
		t.Errorf("gizmo widget in a small index: %d hits, want all 20", len(got))
	}
	defer func(n uint64) { commonMinDocs = n }(commonMinDocs)
	commonMinDocs = 10
	if got, want := ids("gizmo widget"), []string{"0000000000000000", "0000000000000001"}; !reflect.DeepEqual(got, want) {
		t.Errorf("gizmo widget: %v, want only the gizmo documents %v", got, want)
	}
	for _, tc := range []struct {
		q     string
		langs []string
		want  int
	}{
		{"widget", nil, 20},                     // common terms alone
		{"widget handlr", nil, 20},              // the other term is in no document
		{"widget gizmo", []string{"python"}, 1}, // frequencies are not those of the filtered documents
	} {
		if got := ids(tc.q, tc.langs...); len(got) != tc.want {
			t.Errorf("%q %v: %d hits, want %d", tc.q, tc.langs, len(got), tc.want)
		}
	}
}

// TestMatches: a query matches when one of its words occurs; an identifier
// counts as a whole, found through its whole form or all of its parts.
func TestMatches(t *testing.T) {
	x, _, err := Open(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	b := x.NewBatch()
	for i, body := range []string{"func parseMultipartForm(r *Request) error", "qq := nomatch(x)", "retry the upload"} {
		if err := b.Add(Doc{ID: fmt.Sprintf("%016x", i), Body: body, Path: "a.go", File: "a.go"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Apply(b); err != nil {
		t.Fatal(err)
	}
	paths := []string{}
	if err := x.Paths(func(p string) bool { paths = append(paths, p); return true }); err != nil || !reflect.DeepEqual(paths, []string{"a.go"}) {
		t.Fatalf("paths %v %v", paths, err)
	}
	for q, want := range map[string]bool{
		"zzqxv_nomatch_qq":          false, // "nomatch" and "qq" occur, "zzqxv" does not
		"zzqxv":                     false,
		"parseMultipartForms":       true, // all parts occur
		"parse a multipart form":    true,
		"how to frobnicate uploads": true, // one word is enough
		"the of and":                true, // no words: nothing to refuse
	} {
		got, err := x.Matches(context.Background(), q)
		if err != nil || got != want {
			t.Errorf("Matches(%q) = %v, %v; want %v", q, got, err, want)
		}
	}
}

func TestUnits(t *testing.T) {
	var got []string
	Units([]byte("the zzqxv_nomatch_qq readFile, a Parsing x"), func(whole string, parts []string) {
		got = append(got, fmt.Sprintf("%s%v", whole, parts))
	})
	want := []string{"zzqxv_nomatch_qq[zzqxv nomatch qq]", "readfile[read file]", "pars[]"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("units %q, want %q", got, want)
	}
}

// TestRepeats: with Repeats, a word the text uses three times outweighs one
// it uses once (the documents tie without it).
func TestRepeats(t *testing.T) {
	x, _, err := Open(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	b := x.NewBatch()
	for _, d := range []Doc{
		{ID: "a", Body: "cache entry", Name: "A", Path: "a.go", Lang: "go", Kind: "function", File: "a.go"},
		{ID: "b", Body: "route entry", Name: "B", Path: "b.go", Lang: "go", Kind: "function", File: "b.go"},
	} {
		if err := b.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Apply(b); err != nil {
		t.Fatal(err)
	}
	text := "route the cache; a route is stale when the route changes"
	for _, rep := range []bool{false, true} {
		hits, err := x.Search(context.Background(), Query{Text: text, Limit: 2, Repeats: rep})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 {
			t.Fatalf("repeats %v: %d hits, want 2", rep, len(hits))
		}
		tied := hits[0].Score == hits[1].Score
		if rep && (tied || hits[0].ID != "b") || !rep && !tied {
			t.Errorf("repeats %v: %+v, want %s", rep, hits, map[bool]string{false: "a tie", true: "b first"}[rep])
		}
	}
}
