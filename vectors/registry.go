package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Pooling says how one vector is made from a model's output.
type Pooling string

// Pooling modes.
const (
	// PoolingMean averages the token vectors of last_hidden_state over the
	// attention mask (padding excluded).
	PoolingMean Pooling = "mean"
	// PoolingCLS takes the first token's vector ([CLS]).
	PoolingCLS Pooling = "cls"
	// PoolingModel means the model's output is already one vector per text.
	PoolingModel Pooling = "model"
)

// Model input names the Embedder knows how to fill.
const (
	InputIDs      = "input_ids"
	AttentionMask = "attention_mask"
	TokenTypeIDs  = "token_type_ids"
)

// ModelFile is one file of a model.
type ModelFile struct {
	// Name is the file name inside the model directory.
	Name string
	// URL is the HTTPS download address; "" for local-only files.
	URL string
	// SHA256 is the pinned lower-case hex digest; "" when no published value
	// could be pinned (Verify then reports "no pinned checksum").
	SHA256 string
	// Size is the pinned size in bytes; 0 when unknown.
	Size int64
}

// ModelSpec describes a sentence encoder: its files and how to run it.
type ModelSpec struct {
	Name        string
	Description string
	// Dim is the length of the vectors the model produces.
	Dim int
	// Pooling turns the model output into one vector per text.
	Pooling Pooling
	// MaxSeq is the longest token sequence fed to the model, special tokens
	// included; longer texts keep their head.
	MaxSeq int
	// Inputs lists the model's input names (InputIDs, AttentionMask,
	// TokenTypeIDs).
	Inputs []string
	// Output is the output read: last_hidden_state [batch, seq, Dim] for
	// mean/CLS pooling, or a [batch, Dim] output for PoolingModel.
	Output string
	// QueryPrefix is prepended to texts embedded as queries.
	QueryPrefix string
	// Files are the model's files; the one ending in ".onnx" is the graph and
	// "tokenizer.json" the tokenizer.
	Files []ModelFile
	// Fixture marks test fixtures, never offered to users.
	Fixture bool
}

// File names every ModelSpec uses for its graph and tokenizer.
const (
	ModelFileName     = "model.onnx"
	TokenizerFileName = "tokenizer.json"
)

const bgeQueryInstruction = "Represent this sentence for searching relevant passages: "

var registry = []ModelSpec{
	{
		Name: "all-MiniLM-L6-v2",
		Description: "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), 384-dim, mean pooling, fp32 ONNX " +
			"as published in the Xenova/all-MiniLM-L6-v2 Hugging Face repository (90 MB)",
		Dim: 384, Pooling: PoolingMean, MaxSeq: 256,
		Inputs: []string{InputIDs, AttentionMask, TokenTypeIDs}, Output: "last_hidden_state",
		Files: []ModelFile{
			{Name: ModelFileName, URL: "https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/onnx/model.onnx",
				SHA256: "759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e", Size: 90387606},
			{Name: TokenizerFileName, URL: "https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/tokenizer.json",
				SHA256: "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0", Size: 711661},
		},
	},
	{
		Name: "all-MiniLM-L6-v2-int8",
		Description: "all-MiniLM-L6-v2 with int8 dynamically quantised weights (Xenova/all-MiniLM-L6-v2 " +
			"onnx/model_quantized.onnx, 23 MB): about 4x smaller, slightly less accurate",
		Dim: 384, Pooling: PoolingMean, MaxSeq: 256,
		Inputs: []string{InputIDs, AttentionMask, TokenTypeIDs}, Output: "last_hidden_state",
		Files: []ModelFile{
			{Name: ModelFileName, URL: "https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/onnx/model_quantized.onnx",
				SHA256: "afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1", Size: 22972370},
			{Name: TokenizerFileName, URL: "https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/tokenizer.json",
				SHA256: "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0", Size: 711661},
		},
	},
	{
		Name: "bge-small-en-v1.5",
		Description: "BAAI/bge-small-en-v1.5 (MIT), 384-dim, CLS pooling, queries prefixed with its " +
			"retrieval instruction (133 MB)",
		Dim: 384, Pooling: PoolingCLS, MaxSeq: 512,
		Inputs: []string{InputIDs, AttentionMask, TokenTypeIDs}, Output: "last_hidden_state",
		QueryPrefix: bgeQueryInstruction,
		Files: []ModelFile{
			{Name: ModelFileName, URL: "https://huggingface.co/BAAI/bge-small-en-v1.5/resolve/main/onnx/model.onnx",
				SHA256: "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35", Size: 133093490},
			{Name: TokenizerFileName, URL: "https://huggingface.co/BAAI/bge-small-en-v1.5/resolve/main/tokenizer.json",
				SHA256: "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66", Size: 711396},
		},
	},
	{
		Name: "use-lite",
		Description: "Universal Sentence Encoder lite (Apache-2.0), 512-dim, pooled by the model; " +
			"local files only (shipped beside the checkout, no download)",
		Dim: 512, Pooling: PoolingModel, MaxSeq: 128,
		Inputs: []string{InputIDs, AttentionMask}, Output: "sentence_embedding",
		Files: []ModelFile{
			{Name: ModelFileName, SHA256: "9f21c35e029fb550596a88488710521567c91599a4f8501c266147c2074c1fe8", Size: 28041023},
			{Name: TokenizerFileName, SHA256: "69c4e843812ef4a2214d755446e44029fd4d729980ee8a8349491c8bc2dc8a6b", Size: 250889},
		},
	},
}

var fixtures = []ModelSpec{
	{
		Name: "minilm-arch-random-fixture",
		Description: "test fixture: the all-MiniLM-L6-v2 architecture with seeded random weights, " +
			"generated by scripts/gen-minilm-fixture.py; measures speed and plumbing only",
		Dim: 384, Pooling: PoolingMean, MaxSeq: 256,
		Inputs: []string{InputIDs, AttentionMask, TokenTypeIDs}, Output: "last_hidden_state",
		Files: []ModelFile{
			// Generated locally; its bytes depend on the numpy/onnx versions.
			{Name: ModelFileName},
			{Name: TokenizerFileName, SHA256: "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0", Size: 711661},
		},
		Fixture: true,
	},
}

// Models returns the models offered to users (no test fixtures). The slice
// and its specs are copies: changing them does not change the registry.
func Models() []ModelSpec { return cloneSpecs(registry) }

// FixtureModels returns the test-fixture models, which are never offered to
// users.
func FixtureModels() []ModelSpec { return cloneSpecs(fixtures) }

// Lookup returns the user-facing model with the given name. Unknown names and
// fixtures give an error wrapping ErrUnknownModel.
func Lookup(name string) (ModelSpec, error) {
	for _, s := range registry {
		if s.Name == name {
			return cloneSpec(s), nil
		}
	}
	for _, s := range fixtures {
		if s.Name == name {
			return ModelSpec{}, fmt.Errorf("%w: %q is a test fixture, not a model for users", ErrUnknownModel, name)
		}
	}
	names := make([]string, len(registry))
	for i, s := range registry {
		names[i] = s.Name
	}
	return ModelSpec{}, fmt.Errorf("%w: %q (known: %s)", ErrUnknownModel, name, strings.Join(names, ", "))
}

func cloneSpecs(in []ModelSpec) []ModelSpec {
	out := make([]ModelSpec, len(in))
	for i, s := range in {
		out[i] = cloneSpec(s)
	}
	return out
}

func cloneSpec(s ModelSpec) ModelSpec {
	s.Inputs = append([]string(nil), s.Inputs...)
	s.Files = append([]ModelFile(nil), s.Files...)
	return s
}

// Validate checks that the spec is usable by an Embedder.
func (s ModelSpec) Validate() error {
	var problems []string
	if s.Name == "" {
		problems = append(problems, "no name")
	}
	if s.Dim <= 0 {
		problems = append(problems, fmt.Sprintf("dimension %d", s.Dim))
	}
	switch s.Pooling {
	case PoolingMean, PoolingCLS, PoolingModel:
	default:
		problems = append(problems, fmt.Sprintf("unknown pooling %q", s.Pooling))
	}
	if s.MaxSeq < 2 {
		problems = append(problems, fmt.Sprintf("max sequence %d", s.MaxSeq))
	}
	if s.Output == "" {
		problems = append(problems, "no output name")
	}
	hasIDs := false
	for _, in := range s.Inputs {
		switch in {
		case InputIDs:
			hasIDs = true
		case AttentionMask, TokenTypeIDs:
		default:
			problems = append(problems, fmt.Sprintf("unsupported input %q", in))
		}
	}
	if !hasIDs {
		problems = append(problems, "no "+InputIDs+" input")
	}
	if _, ok := s.file(ModelFileName); !ok {
		problems = append(problems, "no "+ModelFileName+" file")
	}
	if _, ok := s.file(TokenizerFileName); !ok {
		problems = append(problems, "no "+TokenizerFileName+" file")
	}
	for _, f := range s.Files {
		if f.Name == "" || f.Name != filepath.Base(f.Name) || f.Name == "." || f.Name == ".." {
			problems = append(problems, fmt.Sprintf("bad file name %q", f.Name))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid model spec %q: %s", s.Name, strings.Join(problems, "; "))
	}
	return nil
}

// Downloadable reports whether Pull can fetch every file of the model (all
// have a URL); use-lite ships beside the binary instead.
func (s ModelSpec) Downloadable() bool {
	for _, f := range s.Files {
		if f.URL == "" {
			return false
		}
	}
	return len(s.Files) > 0
}

func (s ModelSpec) file(name string) (ModelFile, bool) {
	for _, f := range s.Files {
		if f.Name == name {
			return f, true
		}
	}
	return ModelFile{}, false
}

// FileStatus is the state of one model file on disk.
type FileStatus struct {
	Name string
	Path string
	// Present is true when the file exists.
	Present bool
	// Size and SHA256 are the file's actual size and digest (when present).
	Size   int64
	SHA256 string
	// Pinned is true when the registry has a checksum for the file.
	Pinned bool
	// OK is true when the file is present and matches its pinned size and
	// checksum (or is present and has nothing pinned).
	OK bool
	// Problem explains what is wrong, or notes "no pinned checksum".
	Problem string
}

// Verify checks every file of spec in dir: presence, size and sha256. It
// returns one status per file; the error joins the failures, each wrapping
// ErrModelMissing or ErrChecksum. A present file without a pinned checksum is
// OK with the Problem "no pinned checksum".
func Verify(spec ModelSpec, dir string) ([]FileStatus, error) {
	statuses := make([]FileStatus, 0, len(spec.Files))
	var errs []error
	for _, f := range spec.Files {
		st := FileStatus{Name: f.Name, Path: filepath.Join(dir, f.Name), Pinned: f.SHA256 != ""}
		size, sum, err := hashFile(st.Path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			st.Problem = "missing"
			errs = append(errs, fmt.Errorf("%w: %s", ErrModelMissing, st.Path))
		case err != nil:
			st.Problem = err.Error()
			errs = append(errs, fmt.Errorf("verify %s: %w", st.Path, err))
		default:
			st.Present, st.Size, st.SHA256 = true, size, sum
			st.Problem = checkFile(f, size, sum)
			st.OK = st.Problem == "" || st.Problem == noPinnedChecksum
			if !st.OK {
				errs = append(errs, fmt.Errorf("%w: %s: %s", ErrChecksum, st.Path, st.Problem))
			}
		}
		statuses = append(statuses, st)
	}
	return statuses, errors.Join(errs...)
}

const noPinnedChecksum = "no pinned checksum"

// checkFile compares a file's size and digest with the pinned values and
// returns "" when they match.
func checkFile(f ModelFile, size int64, sum string) string {
	if f.Size > 0 && size != f.Size {
		return fmt.Sprintf("size %d, want %d", size, f.Size)
	}
	if f.SHA256 == "" {
		return noPinnedChecksum
	}
	if !strings.EqualFold(sum, f.SHA256) {
		return fmt.Sprintf("sha256 %s, want %s", sum, f.SHA256)
	}
	return ""
}

func hashFile(path string) (int64, string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return 0, "", err
	}
	if !st.Mode().IsRegular() {
		return 0, "", fmt.Errorf("%s is not a regular file", path)
	}
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		return 0, "", fmt.Errorf("read %s: %w", path, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
