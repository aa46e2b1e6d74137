package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/vectors"
)

// newUser is a user of a copy of the binary in <tmp>/dist/bin (as a
// release archive lays it out), with an empty home, a PATH without
// context-ls or Go, and no CONTEXT_LS_ variable: what a new user has.
type newUser struct {
	t              *testing.T
	tmp, home, bin string
	ws             string
}

func newUserEnv(t *testing.T) *newUser {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	u := &newUser{t: t, tmp: tmp, home: filepath.Join(tmp, "home"), bin: filepath.Join(tmp, "dist", "bin", "context-ls"), ws: filepath.Join(tmp, "shop")}
	os.MkdirAll(u.home, 0o755)
	os.MkdirAll(filepath.Dir(u.bin), 0o755)
	if err := os.Link(binPath, u.bin); err != nil {
		data, err := os.ReadFile(binPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(u.bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, u.ws, repo)
	writeFiles(t, u.ws, map[string]string{
		".contextignore":   "gen/\n",
		".context-ls.toml": "ignore = [\"*.tmp\"]\n",
		"gen/big.go":       "package gen\n",
		"scratch.tmp":      "notes\n",
	})
	return u
}

// run runs the binary in the workspace with only HOME and PATH set.
func (u *newUser) run(args ...string) (string, string, int) {
	u.t.Helper()
	cmd := exec.Command(u.bin, args...)
	cmd.Dir = u.ws
	cmd.Env = []string{"HOME=" + u.home, "PATH=/usr/bin:/bin"}
	return runCmd(u.t, cmd)
}

// normalise replaces what differs between machines and runs: the
// temporary directory, the Go version and platform, sizes, times and
// index key counts.
func (u *newUser) normalise(s string) string {
	s = strings.ReplaceAll(s, u.tmp, "$TMP")
	s = strings.ReplaceAll(s, runtime.Version()+", "+runtime.GOOS+"/"+runtime.GOARCH, "$GO, $OS/$ARCH")
	for _, r := range []struct{ re, with string }{
		{`\(\d+(\.\d+)? (B|KiB|MiB)\)`, "(SIZE)"},
		{`last full index \S+`, "last full index TIME"},
		{`in \d+ ms`, "in N ms"},
		{`ws-[0-9a-f]+|shop-[0-9a-f]+`, "shop-HASH"},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.with)
	}
	return s
}

func TestDoctorGolden(t *testing.T) {
	u := newUserEnv(t)
	out, errOut, code := u.run("doctor")
	if code != 0 || errOut != "" {
		t.Fatalf("doctor before any index: exit %d, stderr %q", code, errOut)
	}
	testutil.Golden(t, filepath.Join("testdata", "doctor-new-user.golden"), []byte(u.normalise(out)))
	if _, err := os.Stat(filepath.Join(u.home, ".cache", "context-ls", "index")); !os.IsNotExist(err) {
		t.Errorf("doctor created an index (%v): it must change nothing", err)
	}

	if _, errOut, code := u.run("index"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errOut)
	}
	out, errOut, code = u.run("doctor")
	if code != 0 || errOut != "" {
		t.Fatalf("doctor after index: exit %d, stderr %q", code, errOut)
	}
	testutil.Golden(t, filepath.Join("testdata", "doctor-indexed.golden"), []byte(u.normalise(out)))

	jsonOut, _, code := u.run("doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil || code != 0 {
		t.Fatalf("doctor --json: exit %d, %v:\n%s", code, err, jsonOut)
	}
	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name+"="+c.Status)
	}
	if got := strings.Join(names, " "); got != "binary=ok runtime=warn model=warn index=ok ignore=ok editors=info" {
		t.Errorf("doctor --json checks: %s", got)
	}
}

// TestDoctorBundle: a binary with the runtime in ../lib and use-lite in
// ../models (an unpacked release archive) finds both, loads them and
// embeds; a workspace's .mcp.json naming the binary is reported.
func TestDoctorBundle(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "") // the runtime of this machine's user cache, for the test's own look-up
	lib, err := vectors.FindRuntime("")
	if err != nil {
		t.Skipf("no ONNX Runtime installed (make deps): %v", err)
	}
	model := filepath.Join(testutil.RepoRoot(t), "..", "shared", "models", "use-lite")
	if _, err := os.Stat(filepath.Join(model, vectors.ModelFileName)); err != nil {
		t.Skipf("use-lite not found at %s (an optional directory beside the checkout)", model)
	}
	u := newUserEnv(t)
	dist := filepath.Dir(filepath.Dir(u.bin))
	link := func(from, to string) {
		os.MkdirAll(filepath.Dir(to), 0o755)
		if err := os.Symlink(from, to); err != nil {
			t.Fatal(err)
		}
	}
	link(lib, filepath.Join(dist, "lib", filepath.Base(lib)))
	for _, f := range []string{vectors.ModelFileName, vectors.TokenizerFileName} {
		link(filepath.Join(model, f), filepath.Join(dist, "models", "use-lite", f))
	}
	writeFiles(t, u.ws, map[string]string{".mcp.json": `{"mcpServers": {"context-ls": {"command": "` + u.bin + `", "args": ["mcp"]}}}`})
	out, errOut, code := u.run("doctor")
	if code != 0 || errOut != "" {
		t.Fatalf("doctor: exit %d, stderr %q\n%s", code, errOut, out)
	}
	testutil.Golden(t, filepath.Join("testdata", "doctor-bundle.golden"), []byte(u.normalise(out)))
}

// TestNoWarnInNormalUse: without a runtime or a model no command prints a
// log line; a command that would have used vectors says so in one note
// naming doctor.
func TestNoWarnInNormalUse(t *testing.T) {
	u := newUserEnv(t)
	for _, args := range [][]string{
		{"index"}, {"stats"}, {"search", "retry a failed upload"}, {"pack", "retry a failed upload"},
		{"callers", "RetryUpload"}, {"symbols", "Bucket"}, {"files"}, {"model", "list"}, {"doctor"},
	} {
		_, errOut, code := u.run(args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", args[0], code, errOut)
		}
		if strings.Contains(errOut, "WARN") || strings.Contains(errOut, "level=") {
			t.Errorf("%s printed a log line: %q", args[0], errOut)
		}
		switch args[0] {
		case "search", "pack":
			notes := regexp.MustCompile(`(?m)^note: .*`).FindAllString(errOut, -1)
			if len(notes) != 1 || !strings.Contains(notes[0], "context-ls doctor") || len(notes[0]) > 160 {
				t.Errorf("%s: want one short note naming doctor, got %q", args[0], notes)
			}
		}
	}
}
