package workspace

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var goroot = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	return strings.TrimSpace(string(out)), err
})

// goSrc returns the Go standard library's source tree, or skips the test.
func goSrc(tb testing.TB) string {
	tb.Helper()
	root, err := goroot()
	if err != nil || root == "" {
		tb.Skipf("go env GOROOT failed (%v): no Go standard library to measure", err)
	}
	return filepath.Join(root, "src")
}
