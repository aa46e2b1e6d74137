package vectors

import (
	"fmt"
	"os"
	"path/filepath"
)

// A release archive (make dist) unpacks into one directory:
//
//	bin/context-ls     the binary
//	lib/               the ONNX Runtime library it loads
//	models/<name>/     the embedding models it carries
//
// The binary finds the library and the models beside it before the user
// cache, wherever the directory was unpacked and however the binary is
// reached (a symlink on PATH resolves to the archive's bin/).

// Directory names inside a release archive.
const (
	BundleLibDir    = "lib"
	BundleModelsDir = "models"
)

// executable returns the path of the running binary; tests replace it.
var executable = os.Executable

// BundleDir returns the directory the running binary's release archive
// unpacked into: the parent of the directory holding the executable, its
// symlinks resolved. It returns "" when the executable cannot be located.
func BundleDir() string {
	exe, err := executable()
	if err != nil || exe == "" {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Dir(filepath.Dir(exe))
}

// BundledRuntimeDir is the lib/ directory beside the binary ("" when the
// executable cannot be located).
func BundledRuntimeDir() string { return bundlePath(BundleLibDir) }

// BundledModelsDir is the models/ directory beside the binary ("" when the
// executable cannot be located).
func BundledModelsDir() string { return bundlePath(BundleModelsDir) }

func bundlePath(name string) string {
	dir := BundleDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

// Present reports whether dir holds every file of spec (by name only: Verify
// checks sizes and checksums).
func Present(spec ModelSpec, dir string) bool {
	if dir == "" || len(spec.Files) == 0 {
		return false
	}
	for _, f := range spec.Files {
		st, err := os.Stat(filepath.Join(dir, f.Name))
		if err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// DefaultModel is the model used when a configuration names none.
const DefaultModel = "all-MiniLM-L6-v2"

// ResolveModel finds a model (name; "" for DefaultModel): its registry entry
// and its directory. modelPath, when set, is the directory. Otherwise it is
// models/<name> beside the binary (BundledModelsDir) when that holds the
// model's files, else cacheDir/<name>, where `context-ls model pull` puts it.
func ResolveModel(name, modelPath, cacheDir string) (ModelSpec, string, error) {
	if name == "" {
		name = DefaultModel
	}
	spec, err := Lookup(name)
	if err != nil {
		return spec, "", err
	}
	if modelPath != "" {
		return spec, modelPath, nil
	}
	if base := BundledModelsDir(); base != "" {
		if dir := filepath.Join(base, name); Present(spec, dir) {
			return spec, dir, nil
		}
	}
	if cacheDir == "" {
		return spec, "", fmt.Errorf("model %s: no user cache directory to find it in (set HOME or XDG_CACHE_HOME, or give a model path)", name)
	}
	return spec, filepath.Join(cacheDir, name), nil
}
