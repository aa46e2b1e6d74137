package vectors

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fakeBundle lays out an unpacked release archive in a temporary directory
// (bin/context-ls, lib/ with a library file, models/) and makes it the
// running binary's; it returns the archive's directory.
func fakeBundle(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"bin", BundleLibDir, BundleModelsDir} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join("bin", "context-ls"), filepath.Join(BundleLibDir, runtimeLibNames[0])} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "bin", "context-ls")
	old := executable
	executable = func() (string, error) { return exe, nil }
	t.Cleanup(func() { executable = old })
	return dir
}

func TestFindRuntimeBesideTheBinary(t *testing.T) {
	bundle := fakeBundle(t)
	lib := filepath.Join(bundle, BundleLibDir, runtimeLibNames[0])
	t.Setenv(RuntimeEnv, "")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	cached := filepath.Join(DefaultRuntimeDir(), runtimeLibNames[0])
	os.MkdirAll(filepath.Dir(cached), 0o755)
	os.WriteFile(cached, []byte("x"), 0o644)

	if got, err := FindRuntime(""); err != nil || got != lib {
		t.Fatalf("FindRuntime = %q, %v; want the library beside the binary %s (before the user cache)", got, err, lib)
	}
	setting := filepath.Join(t.TempDir(), "libonnxruntime.so")
	os.WriteFile(setting, []byte("x"), 0o644)
	if got, _ := FindRuntime(setting); got != setting {
		t.Errorf("FindRuntime(setting) = %q, want the setting %s", got, setting)
	}
	env := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	os.WriteFile(env, []byte("x"), 0o644)
	t.Setenv(RuntimeEnv, env)
	if got, _ := FindRuntime(setting); got != env {
		t.Errorf("FindRuntime with $%s = %q, want %s", RuntimeEnv, got, env)
	}

	t.Setenv(RuntimeEnv, "")
	os.Remove(lib)
	if got, _ := FindRuntime(""); got != cached {
		t.Errorf("FindRuntime without a library beside the binary = %q, want the user cache's %s", got, cached)
	}
	os.Remove(cached)
	_, err := FindRuntime("")
	if !errors.Is(err, ErrRuntimeNotFound) {
		t.Fatalf("FindRuntime with nothing installed = %v, want ErrRuntimeNotFound", err)
	}
	places := RuntimePlaces("")
	want := []struct{ origin, path, problem string }{
		{"$" + RuntimeEnv, "", "not set"},
		{"setting", "", "not set"},
		{"beside the binary", filepath.Join(bundle, BundleLibDir), "directory holds no " + runtimeLibNames[0]},
		{"user cache", DefaultRuntimeDir(), "directory holds no " + runtimeLibNames[0]},
	}
	if len(places) != len(want) {
		t.Fatalf("RuntimePlaces = %+v", places)
	}
	for i, w := range want {
		if p := places[i]; p.Origin != w.origin || p.Path != w.path || p.Problem != w.problem || p.Found != "" {
			t.Errorf("place %d = %+v, want %+v", i, p, w)
		}
	}
}

func TestBundleDirResolvesSymlinks(t *testing.T) {
	bundle := fakeBundle(t)
	link := filepath.Join(t.TempDir(), "context-ls")
	if err := os.Symlink(filepath.Join(bundle, "bin", "context-ls"), link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	executable = func() (string, error) { return link, nil }
	want, _ := filepath.EvalSymlinks(bundle)
	if got := BundleDir(); got != want {
		t.Errorf("BundleDir through a symlink on PATH = %q, want the archive's %q", got, want)
	}
	if got := BundledModelsDir(); got != filepath.Join(want, BundleModelsDir) {
		t.Errorf("BundledModelsDir = %q", got)
	}
	executable = func() (string, error) { return "", errors.New("no /proc") }
	if BundleDir() != "" || BundledRuntimeDir() != "" {
		t.Errorf("an executable that cannot be located gives %q, want no bundle", BundleDir())
	}
}

func TestDownloadable(t *testing.T) {
	for _, m := range Models() {
		want := m.Name != "use-lite"
		if m.Downloadable() != want {
			t.Errorf("%s: Downloadable() = %v, want %v", m.Name, !want, want)
		}
	}
	if (ModelSpec{}).Downloadable() {
		t.Error("a spec without files is downloadable")
	}
}

func TestPresent(t *testing.T) {
	spec, _ := Lookup("use-lite")
	dir := t.TempDir()
	if Present(spec, dir) || Present(spec, "") {
		t.Fatal("an empty directory holds the model")
	}
	os.WriteFile(filepath.Join(dir, ModelFileName), []byte("x"), 0o644)
	if Present(spec, dir) {
		t.Fatal("a directory without the tokenizer holds the model")
	}
	os.Mkdir(filepath.Join(dir, TokenizerFileName), 0o755)
	if Present(spec, dir) {
		t.Fatal("a directory named like a file counts")
	}
	os.Remove(filepath.Join(dir, TokenizerFileName))
	os.WriteFile(filepath.Join(dir, TokenizerFileName), []byte("{}"), 0o644)
	if !Present(spec, dir) {
		t.Fatal("both files present, Present is false")
	}
}

// install writes spec's files (placeholders) into dir.
func install(t *testing.T, spec ModelSpec, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range spec.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestResolveModel(t *testing.T) {
	bundle := fakeBundle(t)
	cache := t.TempDir()
	useLite, _ := Lookup("use-lite")
	bundled := filepath.Join(bundle, BundleModelsDir)
	check := func(what, name, modelPath, wantName, wantDir string) {
		t.Helper()
		spec, dir, err := ResolveModel(name, modelPath, cache)
		if err != nil || spec.Name != wantName || dir != wantDir {
			t.Errorf("%s: ResolveModel(%q, %q) = %s in %q, %v; want %s in %q", what, name, modelPath, spec.Name, dir, err, wantName, wantDir)
		}
	}
	check("no name: the default, in the user cache", "", "", DefaultModel, filepath.Join(cache, DefaultModel))
	check("not installed: the user cache, where model pull puts it", "use-lite", "", "use-lite", filepath.Join(cache, "use-lite"))
	install(t, useLite, filepath.Join(cache, "use-lite"))
	check("in the user cache", "use-lite", "", "use-lite", filepath.Join(cache, "use-lite"))
	install(t, useLite, filepath.Join(bundled, "use-lite"))
	check("beside the binary, before the user cache", "use-lite", "", "use-lite", filepath.Join(bundled, "use-lite"))
	check("a model path wins", "use-lite", "/models/mine", "use-lite", "/models/mine")
	check("a model path without a name", "", "/models/mine", DefaultModel, "/models/mine")

	if _, _, err := ResolveModel("nope", "", cache); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("unknown model: %v, want ErrUnknownModel", err)
	}
	if _, _, err := ResolveModel("bge-small-en-v1.5", "", ""); err == nil {
		t.Errorf("no user cache and nothing beside the binary: want an error")
	}
}
