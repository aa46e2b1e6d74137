package vectors

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sugarme/tokenizer/normalizer"
)

// unit returns v scaled to length 1: expected values below are written as
// the hand-computed raw vector, normalised here.
func unit(v ...float32) []float32 { return Normalize(append([]float32(nil), v...)) }

// tinySpec describes testdata/tiny: a 12-token WordPiece tokenizer and a graph
// whose last_hidden_state is (id, 1, token_type) per token and whose
// sentence_embedding is (sum of ids under the mask, mask count, 1).
func tinySpec(pooling Pooling, maxSeq int) ModelSpec {
	s := ModelSpec{
		Name: "tiny-" + string(pooling), Dim: 3, Pooling: pooling, MaxSeq: maxSeq,
		Inputs: []string{InputIDs, AttentionMask, TokenTypeIDs}, Output: "last_hidden_state",
		QueryPrefix: "find : ",
		Files:       []ModelFile{{Name: ModelFileName}, {Name: TokenizerFileName}},
	}
	if pooling == PoolingModel {
		s.Output = "sentence_embedding"
	}
	return s
}

func openTiny(t *testing.T, pooling Pooling, maxSeq int) *Embedder {
	t.Helper()
	needRuntime(t)
	e, err := Open(tinySpec(pooling, maxSeq), filepath.Join("testdata", "tiny"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func assertVec(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len %d, want %d (%v)", what, len(got), len(want), got)
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

// Token ids of the tiny tokenizer: [CLS]=2 [SEP]=3 [UNK]=1 hello=4 world=5
// foo=6 ##s=8 find=11 :=10.
func TestPoolingOnTinyGraph(t *testing.T) {
	tests := []struct {
		name    string
		pooling Pooling
		maxSeq  int
		kind    InputKind
		texts   []string
		want    [][]float32
	}{
		{"mean", PoolingMean, 16, Document, []string{"hello world"},
			// ids 2 4 5 3: mean (14/4, 1, 0)
			[][]float32{unit(3.5, 1, 0)}},
		{"mean excludes padding", PoolingMean, 16, Document, []string{"hello world", "foo"},
			// "foo" = 2 6 3, padded to 4 in the batch: mean (11/3, 1, 0), not (11/4, 1, 0)
			[][]float32{unit(3.5, 1, 0), unit(11.0/3, 1, 0)}},
		{"mean wordpiece and unknown", PoolingMean, 16, Document, []string{"FOOS", "zzz"},
			// foo ##s: 2 6 8 3 -> 19/4; zzz -> [UNK]: 2 1 3 -> 2
			[][]float32{unit(19.0/4, 1, 0), unit(2, 1, 0)}},
		{"cls", PoolingCLS, 16, Document, []string{"hello world", "foo"},
			[][]float32{unit(2, 1, 0), unit(2, 1, 0)}},
		{"model pooled", PoolingModel, 16, Document, []string{"hello world", "foo"},
			[][]float32{unit(14, 4, 1), unit(11, 3, 1)}},
		{"query prefix", PoolingMean, 16, Query, []string{"hello"},
			// "find : hello" = 2 11 10 4 3 -> 30/5
			[][]float32{unit(6, 1, 0)}},
		{"truncation keeps the head", PoolingMean, 4, Document, []string{"hello world foo bar"},
			// MaxSeq 4: [CLS] hello world [SEP]
			[][]float32{unit(3.5, 1, 0)}},
		{"blank texts give zero vectors", PoolingMean, 16, Document, []string{"", " \n\t", "hello world"},
			[][]float32{{0, 0, 0}, {0, 0, 0}, unit(3.5, 1, 0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := openTiny(t, tc.pooling, tc.maxSeq)
			got, err := e.Embed(context.Background(), tc.texts, tc.kind)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d vectors, want %d", len(got), len(tc.want))
			}
			for i := range got {
				assertVec(t, tc.texts[i], got[i], tc.want[i], 1e-6)
			}
		})
	}
}

func TestTinyBatchingAndShapes(t *testing.T) {
	needRuntime(t)
	// MaxBatchTokens 8 forces several batches and several shapes.
	e, err := Open(tinySpec(PoolingMean, 16), filepath.Join("testdata", "tiny"), Options{MaxBatchTokens: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	texts := []string{"hello", "hello world foo bar hello world", "foo bar", "", "world", "foos bar world", "hello"}
	all, err := e.Embed(context.Background(), texts, Document)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		one, err := e.Embed(context.Background(), []string{text}, Document)
		if err != nil {
			t.Fatal(err)
		}
		assertVec(t, text, all[i], one[0], 1e-6)
	}
	if len(e.shapes) < 2 {
		t.Errorf("expected several batch shapes, got %d", len(e.shapes))
	}
}

func TestEmbedCancelledAndClosed(t *testing.T) {
	e := openTiny(t, PoolingMean, 16)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"hello"}, Document); !errors.Is(err, context.Canceled) {
		t.Fatalf("Embed with cancelled context = %v", err)
	}
	// The embedder still works after a cancelled call.
	if _, err := e.Embed(context.Background(), []string{"hello"}, Document); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	if _, err := e.Embed(context.Background(), []string{"hello"}, Document); !errors.Is(err, ErrClosed) {
		t.Fatalf("Embed after Close = %v", err)
	}
}

func TestEmbedderIdentity(t *testing.T) {
	e := openTiny(t, PoolingMean, 16)
	if e.Dim() != 3 || !strings.HasPrefix(e.ModelID(), "tiny-mean@") || len(e.ModelID()) != len("tiny-mean@")+16 {
		t.Fatalf("Dim %d ModelID %q", e.Dim(), e.ModelID())
	}
	e2 := openTiny(t, PoolingCLS, 16)
	if strings.TrimPrefix(e.ModelID(), "tiny-mean") != strings.TrimPrefix(e2.ModelID(), "tiny-cls") {
		t.Errorf("same model file, different hashes: %s %s", e.ModelID(), e2.ModelID())
	}
}

func TestOpenDegradation(t *testing.T) {
	tiny := filepath.Join("testdata", "tiny")
	t.Run("missing model file", func(t *testing.T) {
		dir := t.TempDir()
		data, _ := os.ReadFile(filepath.Join(tiny, TokenizerFileName))
		os.WriteFile(filepath.Join(dir, TokenizerFileName), data, 0o644)
		_, err := Open(tinySpec(PoolingMean, 16), dir, Options{})
		if !errors.Is(err, ErrModelMissing) || !strings.Contains(err.Error(), filepath.Join(dir, ModelFileName)) {
			t.Fatalf("Open = %v, want ErrModelMissing naming the file", err)
		}
	})
	t.Run("missing runtime", func(t *testing.T) {
		t.Setenv(RuntimeEnv, filepath.Join(t.TempDir(), "nope.so"))
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		_, err := Open(tinySpec(PoolingMean, 16), tiny, Options{RuntimePath: "/nonexistent/lib"})
		if !errors.Is(err, ErrRuntimeUnavailable) || !errors.Is(err, ErrRuntimeNotFound) {
			t.Fatalf("Open = %v, want ErrRuntimeNotFound", err)
		}
		for _, want := range []string{"$" + RuntimeEnv, "nope.so", "/nonexistent/lib", "beside the binary", "user cache", RuntimeVersion} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	})
	t.Run("spec does not match the graph", func(t *testing.T) {
		needRuntime(t)
		for _, mutate := range []func(*ModelSpec){
			func(s *ModelSpec) { s.Dim = 5 },
			func(s *ModelSpec) { s.Output = "pooled" },
			func(s *ModelSpec) { s.Inputs = s.Inputs[:2] },
			func(s *ModelSpec) { s.Pooling = PoolingModel }, // rank 3 output for model pooling
		} {
			s := tinySpec(PoolingMean, 16)
			mutate(&s)
			if _, err := Open(s, tiny, Options{}); !errors.Is(err, ErrModelMismatch) {
				t.Errorf("Open(%+v) = %v, want ErrModelMismatch", s, err)
			}
		}
	})
	t.Run("corrupt model file", func(t *testing.T) {
		needRuntime(t)
		dir := t.TempDir()
		data, _ := os.ReadFile(filepath.Join(tiny, TokenizerFileName))
		os.WriteFile(filepath.Join(dir, TokenizerFileName), data, 0o644)
		os.WriteFile(filepath.Join(dir, ModelFileName), []byte("not an onnx graph"), 0o644)
		if _, err := Open(tinySpec(PoolingMean, 16), dir, Options{}); !errors.Is(err, ErrModelMismatch) {
			t.Fatalf("Open = %v, want ErrModelMismatch", err)
		}
	})
}

func TestFindRuntime(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libonnxruntime.so.1")
	os.WriteFile(lib, []byte("x"), 0o644)
	empty := t.TempDir()
	tests := []struct {
		name, env, setting, cache string
		want                      string
	}{
		{"env file wins", lib, "/nope", empty, lib},
		{"env directory", dir, "", empty, lib},
		{"setting when env unset", "", lib, empty, lib},
		{"setting directory", "", dir, empty, lib},
		{"missing env falls through to setting", "/nope/lib.so", dir, empty, lib},
		{"default cache", "", "", dir, lib},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(RuntimeEnv, tc.env)
			t.Setenv("XDG_CACHE_HOME", tc.cache)
			if tc.cache == dir {
				// DefaultRuntimeDir appends context-ls/onnxruntime/<version>.
				cache := t.TempDir()
				full := filepath.Join(cache, "context-ls", "onnxruntime", RuntimeVersion)
				os.MkdirAll(full, 0o755)
				os.WriteFile(filepath.Join(full, "libonnxruntime.so.1"), []byte("x"), 0o644)
				t.Setenv("XDG_CACHE_HOME", cache)
				tc.want = filepath.Join(full, "libonnxruntime.so.1")
			}
			got, err := FindRuntime(tc.setting)
			if err != nil || got != tc.want {
				t.Fatalf("FindRuntime = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	t.Run("nothing found", func(t *testing.T) {
		t.Setenv(RuntimeEnv, "")
		t.Setenv("XDG_CACHE_HOME", empty)
		_, err := FindRuntime(empty)
		if !errors.Is(err, ErrRuntimeUnavailable) {
			t.Fatalf("FindRuntime = %v", err)
		}
		for _, want := range []string{"$" + RuntimeEnv + ": not set", "setting: " + empty + ": directory holds no libonnxruntime.so.1", "user cache"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	})
}

// TestRuntimeInitFailure loads a file that is not a shared library in a
// child process (the ONNX Runtime environment is per process): the failure
// must be an ErrRuntimeUnavailable error, and a later attempt with the real
// library must still succeed.
func TestRuntimeInitFailure(t *testing.T) {
	if os.Getenv("VECTORS_INIT_CHILD") == "1" {
		bogus := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
		os.WriteFile(bogus, []byte("not a library"), 0o644)
		err := ensureRuntime(bogus)
		if !errors.Is(err, ErrRuntimeUnavailable) || !strings.Contains(err.Error(), bogus) {
			t.Fatalf("ensureRuntime(bogus) = %v", err)
		}
		real, ferr := FindRuntime("")
		if ferr != nil {
			t.Skip("no runtime for the second half")
		}
		if err := ensureRuntime(real); err != nil {
			t.Fatalf("ensureRuntime after a failure = %v", err)
		}
		if RuntimeLoaded() != real {
			t.Fatalf("RuntimeLoaded = %q", RuntimeLoaded())
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRuntimeInitFailure$", "-test.count=1")
	cmd.Env = append(os.Environ(), "VECTORS_INIT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, out)
	}
}

// boomNormalizer wraps a normalizer and panics on texts containing "boom",
// standing in for the tokenizer's rare panics on odd input.
type boomNormalizer struct{ inner normalizer.Normalizer }

func (b boomNormalizer) Normalize(n *normalizer.NormalizedString) (*normalizer.NormalizedString, error) {
	if strings.Contains(n.GetNormalized(), "boom") {
		panic("boom")
	}
	return b.inner.Normalize(n)
}

func TestEmbedItemErrors(t *testing.T) {
	e := openTiny(t, PoolingMean, 16)
	e.tok.tk.WithNormalizer(boomNormalizer{e.tok.tk.GetNormalizer()})
	texts := []string{"hello world", "boom", "bo\x01om world", "foo"}
	vecs, err := e.Embed(context.Background(), texts, Document)
	var ee *EmbedError
	if !errors.As(err, &ee) || !errors.Is(err, ErrTokenize) {
		t.Fatalf("Embed = %v, want an *EmbedError wrapping ErrTokenize", err)
	}
	if len(ee.Items) != 1 || ee.Items[0].Index != 1 || !strings.Contains(err.Error(), "text 1") {
		t.Fatalf("items %+v (%v)", ee.Items, err)
	}
	if len(vecs) != len(texts) || vecs[1] != nil {
		t.Fatalf("vectors %v", vecs)
	}
	assertVec(t, texts[0], vecs[0], unit(3.5, 1, 0), 1e-6)
	// "bo\x01om" is cleaned to "boom" and panics; the fallback replaces the
	// control character with a space: "bo om world" = 2 1 1 5 3 -> 12/5.
	assertVec(t, texts[2], vecs[2], unit(12.0/5, 1, 0), 1e-6)
	assertVec(t, texts[3], vecs[3], unit(11.0/3, 1, 0), 1e-6)
}
