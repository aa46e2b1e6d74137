package vectors

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

var hexSHA = regexp.MustCompile(`^[0-9a-f]{64}$`)

func TestRegistryEntries(t *testing.T) {
	want := map[string]struct {
		dim     int
		pooling Pooling
		output  string
		prefix  bool
		urls    bool
	}{
		"all-MiniLM-L6-v2":      {384, PoolingMean, "last_hidden_state", false, true},
		"all-MiniLM-L6-v2-int8": {384, PoolingMean, "last_hidden_state", false, true},
		"bge-small-en-v1.5":     {384, PoolingCLS, "last_hidden_state", true, true},
		"use-lite":              {512, PoolingModel, "sentence_embedding", false, false},
	}
	models := Models()
	if len(models) != len(want) {
		t.Fatalf("Models() has %d entries, want %d", len(models), len(want))
	}
	for _, m := range models {
		w, ok := want[m.Name]
		if !ok {
			t.Errorf("unexpected model %q", m.Name)
			continue
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
		if m.Fixture {
			t.Errorf("%s: a fixture in Models()", m.Name)
		}
		if m.Dim != w.dim || m.Pooling != w.pooling || m.Output != w.output {
			t.Errorf("%s: dim %d pooling %s output %s, want %d %s %s", m.Name, m.Dim, m.Pooling, m.Output, w.dim, w.pooling, w.output)
		}
		if (m.QueryPrefix != "") != w.prefix {
			t.Errorf("%s: query prefix %q", m.Name, m.QueryPrefix)
		}
		for _, f := range m.Files {
			if f.SHA256 != "" && !hexSHA.MatchString(f.SHA256) {
				t.Errorf("%s/%s: malformed sha256 %q", m.Name, f.Name, f.SHA256)
			}
			if f.SHA256 == "" || f.Size <= 0 {
				t.Errorf("%s/%s: no pinned sha256/size", m.Name, f.Name)
			}
			if w.urls != (f.URL != "") {
				t.Errorf("%s/%s: URL %q", m.Name, f.Name, f.URL)
			}
			if f.URL != "" && !strings.HasPrefix(f.URL, "https://huggingface.co/") {
				t.Errorf("%s/%s: URL %q is not a Hugging Face HTTPS URL", m.Name, f.Name, f.URL)
			}
		}
	}
	if got, _ := Lookup("use-lite"); got.MaxSeq != 128 || len(got.Inputs) != 2 {
		t.Errorf("use-lite: MaxSeq %d inputs %v", got.MaxSeq, got.Inputs)
	}
	// The tokenizer checksums are those of the real files (the
	// all-MiniLM-L6-v2 one is testdata/models/all-MiniLM-L6-v2/tokenizer.json).
	tokSHA := map[string]string{
		"all-MiniLM-L6-v2":  "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0",
		"bge-small-en-v1.5": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
		"use-lite":          "69c4e843812ef4a2214d755446e44029fd4d729980ee8a8349491c8bc2dc8a6b",
	}
	for name, sum := range tokSHA {
		s, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if f, _ := s.file(TokenizerFileName); f.SHA256 != sum {
			t.Errorf("%s tokenizer sha256 %s, want %s", name, f.SHA256, sum)
		}
	}
}

func TestFixturesAreNotUserFacing(t *testing.T) {
	fx := FixtureModels()
	if len(fx) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range fx {
		if !f.Fixture {
			t.Errorf("%s: Fixture false", f.Name)
		}
		for _, m := range Models() {
			if m.Name == f.Name {
				t.Errorf("fixture %s listed by Models()", f.Name)
			}
		}
		if _, err := Lookup(f.Name); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("Lookup(%s) = %v, want ErrUnknownModel", f.Name, err)
		}
	}
	if _, err := Lookup("no-such-model"); !errors.Is(err, ErrUnknownModel) || !strings.Contains(err.Error(), "use-lite") {
		t.Errorf("Lookup(unknown) = %v", err)
	}
}

func TestModelsReturnsCopies(t *testing.T) {
	m := Models()
	m[0].Files[0].SHA256 = "tampered"
	m[0].Inputs[0] = "tampered"
	if again := Models(); again[0].Files[0].SHA256 == "tampered" || again[0].Inputs[0] == "tampered" {
		t.Fatal("Models() exposes the registry")
	}
}

func TestValidate(t *testing.T) {
	good, _ := Lookup("use-lite")
	tests := []struct {
		name   string
		mutate func(*ModelSpec)
		want   string
	}{
		{"ok", func(*ModelSpec) {}, ""},
		{"dim", func(s *ModelSpec) { s.Dim = 0 }, "dimension 0"},
		{"pooling", func(s *ModelSpec) { s.Pooling = "max" }, `unknown pooling "max"`},
		{"maxseq", func(s *ModelSpec) { s.MaxSeq = 1 }, "max sequence 1"},
		{"output", func(s *ModelSpec) { s.Output = "" }, "no output name"},
		{"input", func(s *ModelSpec) { s.Inputs = []string{"pixels"} }, `unsupported input "pixels"`},
		{"ids", func(s *ModelSpec) { s.Inputs = []string{AttentionMask} }, "no input_ids input"},
		{"file", func(s *ModelSpec) { s.Files = s.Files[1:] }, "no model.onnx file"},
		{"path", func(s *ModelSpec) { s.Files = append(s.Files, ModelFile{Name: "../x"}) }, `bad file name "../x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := cloneSpec(good)
			tc.mutate(&s)
			err := s.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

// testSpec returns a spec whose files are served by srv with the given
// contents, pinned to them.
func testSpec(srvURL string, files map[string][]byte, pin bool) ModelSpec {
	s := ModelSpec{Name: "served", Dim: 3, Pooling: PoolingMean, MaxSeq: 8,
		Inputs: []string{InputIDs}, Output: "last_hidden_state"}
	for _, name := range []string{ModelFileName, TokenizerFileName} {
		f := ModelFile{Name: name, URL: srvURL + "/" + name}
		if pin {
			sum := sha256.Sum256(files[name])
			f.SHA256, f.Size = hex.EncodeToString(sum[:]), int64(len(files[name]))
		}
		s.Files = append(s.Files, f)
	}
	return s
}

func serveFiles(t *testing.T, files map[string][]byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		body, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	old := httpClient
	httpClient = srv.Client()
	t.Cleanup(func() { httpClient = old })
	return srv, &hits
}

func TestPullAndVerify(t *testing.T) {
	files := map[string][]byte{
		ModelFileName:     []byte("pretend onnx bytes"),
		TokenizerFileName: []byte(`{"pretend":"tokenizer"}`),
	}
	srv, hits := serveFiles(t, files)
	spec := testSpec(srv.URL, files, true)
	dir := filepath.Join(t.TempDir(), "served")

	if _, err := Verify(spec, dir); !errors.Is(err, ErrModelMissing) {
		t.Fatalf("Verify before Pull = %v, want ErrModelMissing", err)
	}
	var progressed atomic.Int64
	err := Pull(context.Background(), spec, dir, func(file string, done, total int64) {
		if total != int64(len(files[file])) || done > total {
			t.Errorf("progress %s %d/%d", file, done, total)
		}
		progressed.Add(1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if progressed.Load() == 0 {
		t.Error("progress never called")
	}
	st, err := Verify(spec, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if !s.OK || !s.Present || !s.Pinned || s.Problem != "" {
			t.Errorf("%+v", s)
		}
	}
	// A second Pull finds valid files and downloads nothing.
	before := hits.Load()
	if err := Pull(context.Background(), spec, dir, nil); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != before {
		t.Errorf("second Pull downloaded again")
	}
	// A corrupted file is detected and replaced.
	os.WriteFile(filepath.Join(dir, ModelFileName), []byte("pretend onnx bytez"), 0o644)
	if _, err := Verify(spec, dir); !errors.Is(err, ErrChecksum) {
		t.Fatalf("Verify corrupted = %v, want ErrChecksum", err)
	}
	if err := Pull(context.Background(), spec, dir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(spec, dir); err != nil {
		t.Fatal(err)
	}
	assertNoTempFiles(t, dir)
}

func TestPullRejectsBadDownloads(t *testing.T) {
	good := map[string][]byte{ModelFileName: []byte("model"), TokenizerFileName: []byte("tok")}
	tests := []struct {
		name   string
		served map[string][]byte
		mutate func(*ModelSpec)
		want   error
		text   string
	}{
		{"wrong content", map[string][]byte{ModelFileName: []byte("modex"), TokenizerFileName: []byte("tok")}, nil, ErrChecksum, "sha256"},
		{"too long", map[string][]byte{ModelFileName: []byte("model and more"), TokenizerFileName: []byte("tok")}, nil, ErrChecksum, "want 5"},
		{"not found", map[string][]byte{TokenizerFileName: []byte("tok")}, nil, nil, "404"},
		{"plain http", good, func(s *ModelSpec) { s.Files[0].URL = strings.Replace(s.Files[0].URL, "https:", "http:", 1) }, nil, "non-HTTPS"},
		{"no url", good, func(s *ModelSpec) { s.Files[0].URL = "" }, ErrModelMissing, "no download URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serveFiles(t, tc.served)
			spec := testSpec(srv.URL, good, true)
			if tc.mutate != nil {
				tc.mutate(&spec)
			}
			dir := t.TempDir()
			err := Pull(context.Background(), spec, dir, nil)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("Pull = %v, want %v containing %q", err, tc.want, tc.text)
			}
			if _, err := os.Stat(filepath.Join(dir, ModelFileName)); err == nil {
				t.Error("a rejected download was kept under its final name")
			}
			assertNoTempFiles(t, dir)
		})
	}
}

func TestPullCancelled(t *testing.T) {
	files := map[string][]byte{ModelFileName: []byte("m"), TokenizerFileName: []byte("t")}
	srv, _ := serveFiles(t, files)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Pull(ctx, testSpec(srv.URL, files, true), t.TempDir(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Pull with cancelled context = %v", err)
	}
}

func TestVerifyUnpinned(t *testing.T) {
	dir := t.TempDir()
	spec := testSpec("https://example.invalid", nil, false)
	for _, f := range spec.Files {
		os.WriteFile(filepath.Join(dir, f.Name), []byte("x"), 0o644)
	}
	st, err := Verify(spec, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if !s.OK || s.Pinned || s.Problem != "no pinned checksum" {
			t.Errorf("%+v", s)
		}
	}
}

// TestVerifySharedModels checks the registry's pins against real files:
// the repository's all-MiniLM-L6-v2 tokenizer always, use-lite and the
// bge-small-en-v1.5 tokenizer when ../shared has them.
func TestVerifySharedModels(t *testing.T) {
	t.Run("use-lite", func(t *testing.T) {
		dir := sharedModel(t, "use-lite")
		spec, _ := Lookup("use-lite")
		st, err := Verify(spec, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range st {
			if !s.OK || !s.Pinned {
				t.Errorf("%+v", s)
			}
		}
	})
	for _, name := range []string{miniLM, "bge-small-en-v1.5"} {
		t.Run(name, func(t *testing.T) {
			spec, _ := Lookup(name)
			tok, _ := spec.file(TokenizerFileName)
			size, sum, err := hashFile(tokenizerFile(t, name))
			if err != nil {
				t.Fatal(err)
			}
			if p := checkFile(tok, size, sum); p != "" {
				t.Errorf("%s tokenizer: %s", name, p)
			}
		})
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".part-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
