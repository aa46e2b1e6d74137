package engine

import (
	"context"
	"testing"
)

// TestNoMatchNoHits: a query none of whose words occur in the workspace gets
// no hits (not the least bad ones), even though parts of it ("qq") could be
// matched; short legitimate queries, with words the workspace lacks, still
// answer.
func TestNoMatchNoHits(t *testing.T) {
	files := map[string]string{"util/match.py": "def nomatch(qq):\n    \"\"\"True when the pattern qq finds nothing.\"\"\"\n    return not qq\n"}
	for p, c := range fixture {
		files[p] = c
	}
	e := openTest(t, writeTree(t, files), t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	// "nomatch" and "qq" occur (util/match.py), "zzqxv" does not.
	for _, q := range []string{"zzqxv_nomatch_qq", "zzqxv", "frobnicate quux"} {
		if hits := query(t, e, q); len(hits) != 0 {
			t.Errorf("%q: %d hits, want none: %v", q, len(hits), hitPaths(hits))
		}
	}
	for q, want := range map[string]string{
		"area":                            "geo/shapes.go",
		"retry_upload":                    "util/retry.py",
		"retry a flaky upload eventually": "util/retry.py",
		"Circle.Perimeter":                "geo/shapes.go",
	} {
		hits := query(t, e, q)
		if len(hits) == 0 || hits[0].Path != want {
			t.Errorf("%q: %v, want %s first", q, hitPaths(hits), want)
		}
	}
}
