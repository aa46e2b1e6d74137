package chunking

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// goStdlib returns the Go standard library source directory.
func goStdlib(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(dir, "fmt")); err != nil {
		tb.Skipf("Go standard library sources not found at %s", dir)
	}
	return dir
}

// pyStdlib returns the Python standard library directory, skipping when no
// python3 is installed.
func pyStdlib(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		tb.Skipf("python3 not available: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(dir, "os.py")); err != nil {
		tb.Skipf("Python standard library not found at %s", dir)
	}
	return dir
}

// listFiles returns the files under root with one of the extensions, sorted.
func listFiles(tb testing.TB, root string, exts ...string) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable directories are skipped
		}
		if d.IsDir() {
			if n := d.Name(); n == "site-packages" || n == "__pycache__" {
				return filepath.SkipDir // not the standard library itself
			}
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(p, e) {
				files = append(files, p)
				break
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("walk %s: %v", root, err)
	}
	sort.Strings(files)
	return files
}

// every returns every k-th element of xs starting at offset.
func every[T any](xs []T, k, offset int) []T {
	var out []T
	for i := offset; i < len(xs); i += k {
		out = append(out, xs[i])
	}
	return out
}
