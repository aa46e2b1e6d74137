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
// takes precedence over the setting passed to FindRuntime and over the
// library beside the binary.
const RuntimeEnv = "CONTEXT_LS_ORT_LIB"

// RuntimeVersion is the ONNX Runtime release scripts/fetch-ort.sh installs
// and release archives carry.
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

// RuntimePlace is one place FindRuntime looks for the ONNX Runtime library.
type RuntimePlace struct {
	// Origin says where the place comes from: "$CONTEXT_LS_ORT_LIB",
	// "setting", "beside the binary", "user cache".
	Origin string
	// Path is the file or directory looked at; "" when the origin is not set.
	Path string
	// Found is the library file found there; "" when none.
	Found string
	// Problem says why nothing usable is there ("not set", "does not exist").
	Problem string
}

// RuntimePlaces returns, in the order FindRuntime tries them, the places
// where the ONNX Runtime library may be: $CONTEXT_LS_ORT_LIB, setting (a
// configuration value; "" to skip), lib/ beside the binary (BundledRuntimeDir)
// and the user cache (DefaultRuntimeDir). Each may name the library file or a
// directory containing it; each says what it holds.
func RuntimePlaces(setting string) []RuntimePlace {
	places := []RuntimePlace{
		{Origin: "$" + RuntimeEnv, Path: os.Getenv(RuntimeEnv)},
		{Origin: "setting", Path: setting},
		{Origin: "beside the binary", Path: BundledRuntimeDir()},
		{Origin: "user cache", Path: DefaultRuntimeDir()},
	}
	for i := range places {
		p := &places[i]
		if p.Path == "" {
			p.Problem = "not set"
			continue
		}
		p.Found, p.Problem = runtimeAt(p.Path)
	}
	return places
}

// FindRuntime returns the path of the ONNX Runtime shared library: the first
// of RuntimePlaces(setting) that holds one. When none does, the error wraps
// ErrRuntimeNotFound (and so ErrRuntimeUnavailable) and names every place
// tried and why it failed.
func FindRuntime(setting string) (string, error) {
	var tried []string
	for _, p := range RuntimePlaces(setting) {
		if p.Found != "" {
			return p.Found, nil
		}
		if p.Path == "" {
			tried = append(tried, p.Origin+": "+p.Problem)
		} else {
			tried = append(tried, fmt.Sprintf("%s: %s: %s", p.Origin, p.Path, p.Problem))
		}
	}
	return "", fmt.Errorf("%w (tried %s); put ONNX Runtime >= %s in lib/ beside the binary or in the user cache, or set %s",
		ErrRuntimeNotFound, strings.Join(tried, "; "), RuntimeVersion, RuntimeEnv)
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

// LoadRuntime initialises the process's ONNX Runtime environment from the
// library at path (as an Embedder does; once per process) and returns the
// runtime's version. A library that does not load gives an error wrapping
// ErrRuntimeUnavailable.
func LoadRuntime(path string) (string, error) {
	if err := ensureRuntime(path); err != nil {
		return "", err
	}
	return ort.GetVersion(), nil
}
