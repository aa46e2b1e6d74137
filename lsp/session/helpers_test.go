package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/testutil"
)

// wait bounds a poll for eventual consistency; it is a hang guard, not a
// speed assertion.
const wait = 15 * time.Second

// poll waits (up to wait) until fn reports done.
func poll(t *testing.T, what string, fn func() (bool, string)) { testutil.Poll(t, what, wait, fn) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// writeFile writes a file under dir.
func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(text), 0o644))
}
