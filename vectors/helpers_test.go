package vectors

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// sharedModel returns ../shared/models/<name> beside the checkout, skipping
// the test when it is absent: the directory is an optional extra of this
// project's machines, a clone passes without it.
func sharedModel(t testing.TB, name string) string {
	t.Helper()
	dir, ok := sharedModelDir(t, name)
	if !ok {
		t.Skipf("shared model %s not found at %s (an optional directory beside the checkout)", name, dir)
	}
	return dir
}

// sharedModelDir returns ../shared/models/<name> and whether it exists.
func sharedModelDir(t testing.TB, name string) (string, bool) {
	t.Helper()
	dir := filepath.Join(testutil.RepoRoot(t), "..", "shared", "models", name)
	_, err := os.Stat(dir)
	return dir, err == nil
}

// miniLM is the model whose tokenizer the repository keeps
// (testdata/models/all-MiniLM-L6-v2, with its licence).
const miniLM = "all-MiniLM-L6-v2"

// tokenizerFile returns the tokenizer.json of model name: the repository's
// copy for miniLM, else the one in ../shared/models (skipping the test when
// it is absent).
func tokenizerFile(t testing.TB, name string) string {
	t.Helper()
	if name == miniLM {
		return filepath.Join(testutil.RepoRoot(t), "testdata", "models", miniLM, TokenizerFileName)
	}
	return filepath.Join(sharedModel(t, name), TokenizerFileName)
}

// needRuntime skips the test when no ONNX Runtime library is installed.
func needRuntime(t testing.TB) {
	t.Helper()
	if _, err := FindRuntime(""); err != nil {
		t.Skipf("ONNX Runtime not installed (run scripts/fetch-ort.sh): %v", err)
	}
}

// fixtureDir returns the generated minilm-arch-random-fixture directory
// ($CONTEXT_LS_FIXTURE_DIR or .cache/models/minilm-arch-random-fixture in
// the checkout), skipping the test when it has not been generated.
func fixtureDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CONTEXT_LS_FIXTURE_DIR")
	if dir == "" {
		dir = filepath.Join(testutil.RepoRoot(t), ".cache", "models", "minilm-arch-random-fixture")
	}
	if _, err := os.Stat(filepath.Join(dir, ModelFileName)); err != nil {
		t.Skipf("fixture model not generated at %s (run /usr/bin/python3 scripts/gen-minilm-fixture.py %s)", dir, dir)
	}
	return dir
}

func fixtureSpec() ModelSpec {
	for _, s := range FixtureModels() {
		if s.Name == "minilm-arch-random-fixture" {
			return s
		}
	}
	panic("fixture spec missing")
}

// runGoEnv returns `go env NAME`.
func runGoEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out)), err
}

func runtimeGosched() { runtime.Gosched() }
