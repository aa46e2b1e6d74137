package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/testutil"

	"github.com/context-ls/context-ls/vectors"
	"github.com/context-ls/context-ls/workspace"
)

// modelDir returns a model directory, skipping the test when it or the ONNX
// Runtime library is absent (make deps provides both; ../shared/models is
// beside the checkout on every machine of this project).
func modelDir(t *testing.T, which string) string {
	t.Helper()
	var dir string
	switch which {
	case "use-lite":
		dir = filepath.Join(filepath.Dir(testutil.RepoRoot(t)), "shared", "models", "use-lite")
	case "fixture":
		dir = filepath.Join(testutil.RepoRoot(t), ".cache", "models", "minilm-arch-random-fixture")
	}
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Skipf("model %s not found at %s (make deps)", which, dir)
	}
	if _, err := vectors.FindRuntime(""); err != nil {
		t.Skipf("ONNX Runtime not installed (make deps): %v", err)
	}
	return dir
}

func embedConfig(model, dir string) workspace.Config {
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = true
	cfg.Model = model
	cfg.ModelPath = dir
	return cfg
}

// waitEmbeddings polls until the embedder settles (ready or unavailable).
func waitEmbeddings(t *testing.T, e *Engine, want string) EmbeddingStats {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st := e.emb.stats()
		if st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("embeddings state %q (%s), want %q", st.State, st.Reason, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var semanticFixture = map[string]string{
	"net/upload.go": `package net

// retryUpload sends a file to the server again after a failed attempt,
// waiting longer between attempts each time.
func retryUpload(path string, attempts int) error { return nil }
`,
	"color/palette.go": `package color

// Blend mixes two colours of paint in equal parts.
func Blend(a, b string) string { return a + b }
`,
	"text/trim.go": `package text

// TrimSpace removes leading and trailing white space from a string.
func TrimSpace(s string) string { return s }
`,
}

func TestEmbeddingsIndexSearchAndCacheAcrossRestarts(t *testing.T) {
	dir := modelDir(t, "use-lite")
	root := testutil.WriteTree(t, semanticFixture)
	db := t.TempDir()
	ctx := context.Background()
	e, err := Open(ctx, root, Options{DBDir: db, Config: embedConfig("use-lite", dir)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st := waitEmbeddings(t, e, EmbedReady)
	s := e.Snapshot()
	stats, _ := s.Stats()
	s.Release()
	if st.Vectors != stats.Chunks || st.Embedded != int64(stats.Chunks) || !strings.HasPrefix(st.Model, "use-lite@") {
		t.Fatalf("after first index: %+v (chunks %d)", st, stats.Chunks)
	}

	// A chunk's own text is its own nearest neighbour.
	s = e.Snapshot()
	res, err := s.Similar(ctx, SimilarRequest{Text: "// Blend mixes two colours of paint in equal parts.\nfunc Blend(a, b string) string { return a + b }", K: 3})
	s.Release()
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "color/palette.go" {
		t.Fatalf("similar: %+v %v", res.Hits, err)
	}
	// The vector leg takes part in search.
	hits := query(t, e, "send the data again when it did not work")
	found := false
	for _, h := range hits {
		found = found || contains(h.Sources, "vector")
	}
	if !found {
		t.Fatalf("no hit from the vector leg: %+v", hits)
	}
	// A description of several lines is left to the text legs
	// (noVectorLeg); the same words as one sentence still use vectors.
	for q, want := range map[string]bool{
		"Retry a failed upload\nSend the data to the server again when the attempt did not work.":   false,
		"Send the data to the server again when the attempt did not work, waiting longer each time": true,
	} {
		found = false
		for _, h := range query(t, e, q) {
			found = found || contains(h.Sources, "vector")
		}
		if found != want {
			t.Errorf("%q: vector leg used %v, want %v", q, found, want)
		}
	}

	// An edit is embedded first and its old chunk's vector leaves the index.
	if err := e.UpdateOverlay(ctx, "color/palette.go", []byte("package color\n\n// Darken makes a colour darker.\nfunc Darken(c string) string { return c }\n")); err != nil {
		t.Fatal(err)
	}
	st = waitEmbeddings(t, e, EmbedReady)
	if st.Vectors != stats.Chunks {
		t.Fatalf("vectors %d after replacing one chunk, want %d", st.Vectors, stats.Chunks)
	}
	e.Close()

	// Reopen: every vector comes from the cache, nothing is embedded again.
	e, err = Open(ctx, root, Options{DBDir: db, Config: embedConfig("use-lite", dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	st = waitEmbeddings(t, e, EmbedReady)
	if st.Embedded != 0 || st.CacheHitRate != 1 || st.Vectors != stats.Chunks {
		t.Fatalf("after restart: %+v, want all %d vectors from the cache", st, stats.Chunks)
	}
}

func TestEmbeddingsModelSwitchNeverMixes(t *testing.T) {
	lite, fixture := modelDir(t, "use-lite"), modelDir(t, "fixture")
	root := testutil.WriteTree(t, semanticFixture)
	db := t.TempDir()
	ctx := context.Background()
	e, err := Open(ctx, root, Options{DBDir: db, Config: embedConfig("use-lite", lite)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	first := waitEmbeddings(t, e, EmbedReady)
	e.Close()
	// The MiniLM-architecture test fixture stands in for a second model.
	e, err = Open(ctx, root, Options{DBDir: db, Config: embedConfig("all-MiniLM-L6-v2", fixture)})
	if err != nil {
		t.Fatal(err)
	}
	second := waitEmbeddings(t, e, EmbedReady)
	e.Close()
	if second.Model == first.Model || second.Embedded != int64(first.Vectors) || second.CacheHitRate != 0 {
		t.Fatalf("switch: %+v after %+v: the new model must embed everything itself", second, first)
	}
	view, _ := e.emb.view()
	if view != nil && view.Dim() != 384 {
		t.Fatalf("index dimension %d after switching to a 384-dim model", view.Dim())
	}
	// Back to the first model: its vectors are still cached.
	e, err = Open(ctx, root, Options{DBDir: db, Config: embedConfig("use-lite", lite)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	back := waitEmbeddings(t, e, EmbedReady)
	if back.Embedded != 0 || back.Model != first.Model {
		t.Fatalf("switching back re-embedded: %+v", back)
	}
}

func TestEmbeddingsDegradeWithoutModel(t *testing.T) {
	root := testutil.WriteTree(t, semanticFixture)
	ctx := context.Background()
	e, err := Open(ctx, root, Options{DBDir: t.TempDir(), Config: embedConfig("use-lite", t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st := waitEmbeddings(t, e, EmbedUnavailable)
	if !strings.Contains(st.Reason, "model") {
		t.Fatalf("reason %q does not say the model is missing", st.Reason)
	}
	if hits := query(t, e, "trim white space"); len(hits) == 0 || hits[0].Path != "text/trim.go" {
		t.Fatalf("search without embeddings: %v", hitPaths(hits))
	}
	s := e.Snapshot()
	defer s.Release()
	if _, err := s.Similar(ctx, SimilarRequest{Text: "func f() {}"}); !errors.Is(err, ErrNoEmbeddings) {
		t.Fatalf("similar without embeddings: %v", err)
	}
	stats, _ := s.Stats()
	if stats.Embeddings.State != EmbedUnavailable {
		t.Fatalf("stats embeddings %+v", stats.Embeddings)
	}
}

func TestEmbeddingsOff(t *testing.T) {
	root := testutil.WriteTree(t, semanticFixture)
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	e, err := Open(context.Background(), root, Options{DBDir: t.TempDir(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if st := e.emb.stats(); st.State != EmbedOff {
		t.Fatalf("state %q", st.State)
	}
}

func TestEmbedQueuePriorities(t *testing.T) {
	var q embedQueue
	q.push("big.go", priorityNormal)
	q.push("small.go", prioritySmall)
	q.push("edited.go", priorityEdited)
	q.push("big.go", priorityEdited) // an edit promotes a queued file
	q.push("small.go", priorityNormal)
	if q.len() != 3 {
		t.Fatalf("len %d", q.len())
	}
	// During bulk indexing only edits run.
	if p, _, ok := q.pop(true); !ok || p != "edited.go" {
		t.Fatalf("bulk pop 1 = %q", p)
	}
	if p, _, ok := q.pop(true); !ok || p != "big.go" {
		t.Fatalf("bulk pop 2 = %q", p)
	}
	if _, _, ok := q.pop(true); ok {
		t.Fatal("bulk pop returned a non-edited file")
	}
	if p, prio, ok := q.pop(false); !ok || p != "small.go" || prio != prioritySmall {
		t.Fatalf("pop = %q %d", p, prio)
	}
	if _, _, ok := q.pop(false); ok || q.len() != 0 {
		t.Fatal("queue not empty")
	}
}
