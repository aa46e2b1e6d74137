package vectors

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
)

var useLite struct {
	sync.Once
	e   *Embedder
	err error
}

// openUseLite returns a use-lite Embedder: the shared one (never closed: it
// lives as long as the test process) when mutate is nil, else a new one.
func openUseLite(t *testing.T, mutate func(*ModelSpec)) *Embedder {
	t.Helper()
	if mutate == nil {
		sharedModel(t, "use-lite")
		needRuntime(t)
		useLite.Do(func() {
			spec, _ := Lookup("use-lite")
			useLite.e, useLite.err = Open(spec, sharedModel(t, "use-lite"), Options{})
		})
		if useLite.err != nil {
			t.Fatal(useLite.err)
		}
		return useLite.e
	}
	dir := sharedModel(t, "use-lite")
	needRuntime(t)
	spec, err := Lookup("use-lite")
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(&spec)
	}
	e, err := Open(spec, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestUseLiteSimilarity(t *testing.T) {
	e := openUseLite(t, nil)
	if e.Dim() != 512 || e.ModelID() != "use-lite@9f21c35e029fb550" {
		t.Fatalf("Dim %d ModelID %s", e.Dim(), e.ModelID())
	}
	pairs := []struct {
		a, similar, unrelated string
	}{
		{"The cat sat on the mat.", "A kitten is sitting on a rug.", "Stock prices fell sharply today."},
		{"How do I open a file for reading?", "Open the file and read its contents.", "The weather is sunny in Spain."},
		{"Close the network connection.", "Shut down the socket when done.", "Bake the cake for forty minutes."},
		{"parse the configuration file", "read settings from a config file", "a recipe for tomato soup"},
	}
	var texts []string
	for _, p := range pairs {
		texts = append(texts, p.a, p.similar, p.unrelated)
	}
	vecs, err := e.Embed(context.Background(), texts, Document)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vecs {
		if n := Norm(v); math.Abs(float64(n)-1) > 1e-5 {
			t.Fatalf("vector norm %v, want 1", n)
		}
	}
	for i, p := range pairs {
		a, sim, unrel := vecs[3*i], vecs[3*i+1], vecs[3*i+2]
		s, u := Dot(a, sim), Dot(a, unrel)
		if s <= u+0.1 {
			t.Errorf("%q: similar %.3f, unrelated %.3f", p.a, s, u)
		}
	}
}

func TestUseLiteQueryAndDocument(t *testing.T) {
	ctx := context.Background()
	text := "open a file for reading"
	plain := openUseLite(t, nil)
	doc, err := plain.Embed(ctx, []string{text}, Document)
	if err != nil {
		t.Fatal(err)
	}
	query, err := plain.Embed(ctx, []string{text}, Query)
	if err != nil {
		t.Fatal(err)
	}
	// use-lite has no query prefix: both kinds give the same vector.
	assertVec(t, "use-lite query vs document", query[0], doc[0], 0)

	prefixed := openUseLite(t, func(s *ModelSpec) { s.QueryPrefix = "question: " })
	q2, err := prefixed.Embed(ctx, []string{text}, Query)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := prefixed.Embed(ctx, []string{"question: " + text}, Document)
	if err != nil {
		t.Fatal(err)
	}
	assertVec(t, "query = prefixed document", q2[0], d2[0], 1e-6)
	if Dot(q2[0], doc[0]) > 0.999 {
		t.Errorf("the query prefix changed nothing")
	}
}

// codeSnippets are short code-and-doc texts of varied lengths.
var codeSnippets = []string{
	"// Open opens the named file for reading.\nfunc Open(name string) (*File, error)",
	"func (c *Client) Do(req *Request) (*Response, error) { return c.do(req) }",
	"// Sum returns the SHA256 checksum of the data.",
	"type Reader interface { Read(p []byte) (n int, err error) }",
	"x",
	"def parse_config(path):\n    with open(path) as f:\n        return toml.load(f)",
	strings.Repeat("for i := 0; i < n; i++ { total += values[i] * weights[i] }\n", 20),
	"",
	"SELECT id, name FROM users WHERE active = 1 ORDER BY name",
	"# Installation\n\nRun `make deps` and then `make build`.",
}

func TestUseLiteBatchMatchesSingle(t *testing.T) {
	e := openUseLite(t, nil)
	batchEqualsSingles(t, e, 1e-5)
}

func TestFixtureBatchMatchesSingle(t *testing.T) {
	dir := fixtureDir(t)
	needRuntime(t)
	e, err := Open(fixtureSpec(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Dim() != 384 {
		t.Fatalf("Dim %d", e.Dim())
	}
	// Random weights through 6 layers: padding changes the float summation
	// order of the fused attention kernels a little more than for use-lite.
	batchEqualsSingles(t, e, 1e-4)
}

func batchEqualsSingles(t *testing.T, e *Embedder, tol float64) {
	t.Helper()
	ctx := context.Background()
	batch, err := e.Embed(ctx, codeSnippets, Document)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range codeSnippets {
		one, err := e.Embed(ctx, []string{text}, Document)
		if err != nil {
			t.Fatal(err)
		}
		assertVec(t, text, batch[i], one[0], tol)
		if isBlank(text) {
			if Norm(one[0]) != 0 {
				t.Errorf("blank text: non-zero vector")
			}
		} else if n := Norm(one[0]); math.Abs(float64(n)-1) > 1e-5 {
			t.Errorf("%.20q: norm %v", text, n)
		}
	}
}

func TestUseLiteHostileInput(t *testing.T) {
	e := openUseLite(t, nil)
	texts := []string{
		"\xff\xfe invalid utf-8 \xc3\x28",
		"\x00\x01\x02",
		strings.Repeat("長い日本語のテキスト", 5000),
		strings.Repeat("z", 200000),
		"\u2581\u2581\u2581",
		"emoji 🎉🎉 and ZWJ 👩‍💻",
	}
	vecs, err := e.Embed(context.Background(), texts, Document)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if len(v) != 512 {
			t.Errorf("text %d: %d dims", i, len(v))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("text %d: non-finite value", i)
			}
		}
	}
}
