// Package testutil holds the helpers every package's tests share: fixture
// trees on disk, the checkout root, git in a test's own repository, a
// goroutine-safe buffer and golden files rewritten with -update.
package testutil

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Update is the -update flag: golden files are rewritten instead of
// compared.
var Update = flag.Bool("update", false, "rewrite golden files")

// WriteTree creates files (slash-separated relative path → content) under
// a new temporary root and returns the root.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	WriteFiles(t, root, files)
	return root
}

// WriteFiles creates files (slash-separated relative path → content) under
// root, making the folders they need.
func WriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Fixture is a small workspace: a Go file with two methods, a Python
// retry helper, a Markdown guide and a file the denylist excludes.
var Fixture = map[string]string{
	"geo/shapes.go": `package geo

import "math"

// Circle is a round shape.
type Circle struct{ R float64 }

// Area returns the area of the circle.
func (c Circle) Area() float64 { return math.Pi * c.R * c.R }

// Perimeter returns the circumference.
func (c Circle) Perimeter() float64 { return 2 * math.Pi * c.R }
`,
	"util/retry.py": `"""Retry helpers."""

def retry_upload(fn, attempts=3):
    """Retry a failed upload a few times with backoff."""
    for i in range(attempts):
        try:
            return fn()
        except IOError:
            pass
`,
	"docs/guide.md":           "# Guide\n\n## Shapes\n\nCircles have an area and a perimeter.\n",
	"node_modules/x/index.js": "function ignored() {}\n",
}

// BillingSecret is a token planted in Billing: no output may show it.
const BillingSecret = "ghp_Zq8rT4mN2pLx7Vb9Kc3Hs6Jd1Fw5Ga0Ey2Uq"

// Billing is a small Go workspace for tests of what every front end
// answers: a caller of billing.Total behind non-ASCII text (so character
// and byte columns differ), a test of it, a README, and BillingSecret in a
// constant, its doc comment and a caller. Four files are indexed (go.mod
// is not).
var Billing = map[string]string{
	"go.mod": "module shop\n\ngo 1.22\n",
	"billing/invoice.go": `package billing

// Item is one line of an invoice.
type Item struct {
	Name  string
	Cents int
}

// Total adds the cents of every item of an invoice.
func Total(items []Item) int {
	sum := 0
	for _, it := range items {
		sum += it.Cents
	}
	return sum
}
`,
	"billing/charge.go": `package billing

import "fmt"

// paymentToken authenticates to the payment API (` + BillingSecret + `).
const paymentToken = "` + BillingSecret + `"

// Charge bills the customer for the invoice total.
func Charge(items []Item) string {
	/* prix é */ t := Total(items)
	return fmt.Sprintf("%s:%d", paymentToken, t)
}
`,
	"billing/invoice_test.go": `package billing

import "testing"

func TestTotal(t *testing.T) {
	if Total([]Item{{"a", 2}, {"b", 3}}) != 5 {
		t.Fatal("sum")
	}
}
`,
	"README.md": "# Shop\n\nInvoices are totalled by billing.Total and charged by billing.Charge with the payment token.\n",
}

// RepoRoot is the checkout root: the nearest parent of the test's working
// directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// GitEnv is the environment for git in a test's own repository at dir:
// the caller's without the variables that point git elsewhere (a test run
// from a git hook or `git rebase -x` has GIT_DIR naming the checkout), no
// repository above dir, and a fixed identity.
func GitEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
}

// Git runs git with args in dir, a test's own repository (GitEnv, no
// commit signing), and returns its output, trimmed. It skips the test when
// git is not installed and fails it when git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = GitEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// SyncBuffer is a goroutine-safe buffer, for captured logs and output.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Golden compares got with the file at path, rewriting it under -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run the test with -update to create it): %v", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the output (run %s with -update to accept):\n%s", path, t.Name(), LineDiff(string(want), string(got)))
	}
}

// LineDiff shows the first differing line of two texts.
func LineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, w, g)
		}
	}
	return "(no line differs)"
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// Binary builds the context-ls command once per test process and returns
// its path; tests that run it as users do (the MCP server, the CLI, the
// language server under Neovim) share it. Call RemoveBinary from TestMain.
func Binary(t testing.TB) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot build the context-ls binary")
	}
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "context-ls-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "context-ls")
		cmd := exec.Command(gobin, "build", "-o", binPath, "./cmd/context-ls")
		cmd.Dir = RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatalf("building context-ls: %v", binErr)
	}
	return binPath
}

// RemoveBinary removes what Binary built.
func RemoveBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// Poll calls cond every 10 ms until it reports true or within passes, then
// fails the test with cond's last description. It guards against hangs;
// it is not a speed assertion.
func Poll(t testing.TB, what string, within time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %v: %s", what, within, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
