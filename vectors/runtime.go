package vectors

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// RuntimeEnv names the environment variable that points at the ONNX Runtime
// shared library (a file, or a directory holding libonnxruntime.so.1). It
// takes precedence over the setting passed to FindRuntime.
const RuntimeEnv = "CONTEXT_LS_ORT_LIB"

// RuntimeVersion is the ONNX Runtime release scripts/fetch-ort.sh installs.
// onnxruntime_go v1.27.0 needs API version 24, i.e. 1.24.1 or newer.
const RuntimeVersion = "1.24.1"

// runtimeLibNames are the file names looked for inside a directory.
var runtimeLibNames = []string{"libonnxruntime.so.1", "libonnxruntime.so", "libonnxruntime.dylib", "onnxruntime.dll"}

// DefaultRuntimeDir is where scripts/fetch-ort.sh installs the library:
// ${XDG_CACHE_HOME:-$HOME/.cache}/context-ls/onnxruntime/<RuntimeVersion>.
// It returns "" when neither variable is set.
func DefaultRuntimeDir() string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "context-ls", "onnxruntime", RuntimeVersion)
}

// FindRuntime returns the path of the ONNX Runtime shared library. It looks,
// in order, at $CONTEXT_LS_ORT_LIB, at setting (a configuration value; "" to
// skip) and at DefaultRuntimeDir. Each may name the library file or a
// directory containing it. When none holds a library the error wraps
// ErrRuntimeUnavailable and names every place tried and why it failed.
func FindRuntime(setting string) (string, error) {
	type place struct{ origin, path string }
	places := []place{
		{"$" + RuntimeEnv, os.Getenv(RuntimeEnv)},
		{"setting", setting},
		{"default cache", DefaultRuntimeDir()},
	}
	var tried []string
	for _, p := range places {
		if p.path == "" {
			tried = append(tried, p.origin+": not set")
			continue
		}
		found, why := runtimeAt(p.path)
		if found != "" {
			return found, nil
		}
		tried = append(tried, fmt.Sprintf("%s: %s: %s", p.origin, p.path, why))
	}
	return "", fmt.Errorf("%w: no ONNX Runtime library found (tried %s); run scripts/fetch-ort.sh or set %s",
		ErrRuntimeUnavailable, strings.Join(tried, "; "), RuntimeEnv)
}

// runtimeAt reports the library file at path (a file or a directory), or ""
// and the reason it is not usable.
func runtimeAt(path string) (string, string) {
	st, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return "", "does not exist"
		}
		return "", err.Error()
	}
	if st.Mode().IsRegular() {
		return path, ""
	}
	if !st.IsDir() {
		return "", "not a regular file"
	}
	for _, name := range runtimeLibNames {
		f := filepath.Join(path, name)
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return f, ""
		}
	}
	return "", "directory holds no " + runtimeLibNames[0]
}

// The ONNX Runtime environment of onnxruntime_go is global to the process:
// it is created once, by the first successful ensureRuntime, and never torn
// down (sessions of several Embedders share it).
var runtimeState struct {
	sync.Mutex
	path string // library the environment was created from; "" until then
}

// ensureRuntime initialises the ONNX Runtime environment from the library at
// path unless it is already initialised. A failed initialisation leaves the
// process uninitialised, so a later call with another path can succeed; the
// error wraps ErrRuntimeUnavailable.
func ensureRuntime(path string) (err error) {
	runtimeState.Lock()
	defer runtimeState.Unlock()
	if runtimeState.path != "" && ort.IsInitialized() {
		// One environment per process: later callers share the first library.
		return nil
	}
	defer func() {
		// The binding validates most failures, but guard the process anyway:
		// a broken library must become an error, not a crash of the server.
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: initialising ONNX Runtime from %s panicked: %v", ErrRuntimeUnavailable, path, r)
		}
	}()
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("%w: loading %s (ONNX Runtime >= %s is required): %w", ErrRuntimeUnavailable, path, RuntimeVersion, err)
	}
	runtimeState.path = path
	return nil
}

// RuntimeLoaded returns the path of the library the process environment was
// created from, or "" if no Embedder has initialised ONNX Runtime yet.
func RuntimeLoaded() string {
	runtimeState.Lock()
	defer runtimeState.Unlock()
	return runtimeState.path
}
