package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/context-ls/context-ls/store"

	"github.com/context-ls/context-ls/engine"
)

// binPath is the context-ls binary built once for these tests.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "context-ls-cli")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "context-ls")
	if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cli runs the binary with CONTEXT_LS_EMBEDDINGS=off and returns stdout,
// stderr and the exit code.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return cliStdin(t, nil, args...)
}

// cliStdin runs the binary with stdin (embeddings off) and returns its
// stdout, stderr and exit status.
func cliStdin(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	cmd.Stdin = bytes.NewReader(stdin)
	return runCmd(t, cmd)
}

// runCmd runs cmd and returns its stdout, stderr and exit status.
func runCmd(t *testing.T, cmd *exec.Cmd) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var repo = map[string]string{
	"store/upload.go": `package store

// RetryUpload sends a file again after a failed upload, with backoff.
func RetryUpload(path string, attempts int) error {
	return nil
}

// Bucket holds uploaded objects.
type Bucket struct{ Name string }

// Put stores an object in the bucket.
func (b *Bucket) Put(key string, data []byte) error { return nil }
`,
	"store/upload_test.go": "package store\n\nimport \"testing\"\n\nfunc TestRetryUpload(t *testing.T) { RetryUpload(\"x\", 1) }\n",
	"tools/report.py":      "def render_report(rows):\n    \"\"\"Render rows as an HTML report.\"\"\"\n    return ''.join(rows)\n",
	"docs/upload.md":       "# Uploads\n\n## Retries\n\nFailed uploads are retried with backoff.\n",
	"node_modules/x/a.js":  "function ignored() {}\n",
	".git/HEAD":            "ref: refs/heads/main\n", // a repository: its .gitignore applies
	".gitignore":           "build/\n",
	"build/gen.go":         "package build\n",
}

func TestCLIEndToEnd(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, repo)
	common := []string{"--root", root, "--db", db}

	out, errOut, code := cli(t, append([]string{"index", "--json"}, common...)...)
	if code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	var idx struct {
		Files, Indexed int
	}
	if err := json.Unmarshal([]byte(out), &idx); err != nil || idx.Files != 4 || idx.Indexed != 4 {
		t.Fatalf("index --json = %s (%v)", out, err)
	}

	// search --json has exactly the contract's shape.
	out, errOut, code = cli(t, append([]string{"search", "--json", "--k", "3", "retry a failed upload"}, common...)...)
	if code != 0 {
		t.Fatalf("search: %d %s", code, errOut)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if keys := sortedKeys(raw); !reflect.DeepEqual(keys, []string{"hits", "query"}) {
		t.Fatalf("top-level keys %v", keys)
	}
	var hits []map[string]any
	json.Unmarshal(raw["hits"], &hits)
	if len(hits) == 0 || len(hits) > 3 {
		t.Fatalf("hits = %v", hits)
	}
	want := []string{"endColumn", "endLine", "kind", "language", "path", "score", "sources", "startColumn", "startLine", "symbol", "text", "uri"}
	if keys := sortedKeys(hits[0]); !reflect.DeepEqual(keys, want) {
		t.Fatalf("hit keys %v, want %v", keys, want)
	}
	if hits[0]["path"] != "store/upload.go" || hits[0]["symbol"] != "RetryUpload" || hits[0]["startLine"] != 3.0 || hits[0]["endLine"] != 6.0 || hits[0]["language"] != "go" {
		t.Fatalf("top hit %v", hits[0])
	}

	// Filters.
	for _, c := range []struct {
		args []string
		path string
	}{
		{[]string{"--languages", "python", "report"}, "tools/report.py"},
		{[]string{"--kinds", "markdown_section", "retried uploads"}, "docs/upload.md"},
		{[]string{"--paths", "!**/*_test.go", "--paths", "store/**", "RetryUpload"}, "store/upload.go"},
	} {
		out, _, code = cli(t, append(append([]string{"search", "--json"}, c.args...), common...)...)
		var res struct{ Hits []struct{ Path string } }
		json.Unmarshal([]byte(out), &res)
		if code != 0 || len(res.Hits) == 0 {
			t.Fatalf("search %v: %s", c.args, out)
		}
		for _, h := range res.Hits {
			if h.Path != c.path {
				t.Fatalf("search %v returned %s", c.args, h.Path)
			}
		}
	}

	out, _, code = cli(t, append([]string{"symbols", "--json", "Bucket.Put"}, common...)...)
	if code != 0 || !strings.Contains(out, `"symbol": "Bucket.Put"`) || !strings.Contains(out, `"startLine": 12`) {
		t.Fatalf("symbols Bucket.Put: %s", out)
	}
	out, _, code = cli(t, append([]string{"stats", "--json"}, common...)...)
	var st struct {
		Files     int
		Languages map[string]int
		LastIndex string
	}
	if json.Unmarshal([]byte(out), &st); code != 0 || st.Files != 4 || st.Languages["go"] != 2 || st.LastIndex == "" {
		t.Fatalf("stats: %s", out)
	}

	// files and files --why.
	out, _, _ = cli(t, "files", "--root", root)
	if strings.Contains(out, "node_modules") || strings.Contains(out, "build/gen.go") || !strings.Contains(out, "tools/report.py\tpython") {
		t.Fatalf("files: %s", out)
	}
	out, _, _ = cli(t, "files", "--root", root, "--why", "node_modules/x/a.js")
	if !strings.Contains(out, "excluded") || !strings.Contains(out, "denylist") {
		t.Fatalf("why node_modules: %s", out)
	}
	out, _, _ = cli(t, "files", "--root", root, "--why", "build/gen.go")
	if !strings.Contains(out, "excluded") || !strings.Contains(out, ".gitignore:1") {
		t.Fatalf("why build/gen.go: %s", out)
	}
}

// TestCLIFilesQuotesOddNames: one line per file, whatever the names hold.
func TestCLIFilesQuotesOddNames(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"plain.go": "package p\n", "new\nline.go": "package p\n", "tab\tbed.go": "package p\n", "a:12:3.go": "package p\n"})
	out, errOut, code := cli(t, "files", "--root", root)
	if code != 0 {
		t.Fatalf("files: exit %d: %s", code, errOut)
	}
	want := []string{"a:12:3.go\tgo", `"new\nline.go"` + "\tgo", "plain.go\tgo", `"tab\tbed.go"` + "\tgo"}
	if got := strings.Split(strings.TrimSpace(out), "\n"); !reflect.DeepEqual(got, want) {
		t.Fatalf("files printed\n%q\nwant\n%q", got, want)
	}
}

func TestCLIErrors(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, repo)
	outside := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"missing query", []string{"search", "--root", root, "--db", db}, 2, "search: QUERY: required"},
		{"k out of range", []string{"search", "--root", root, "--db", db, "--k", "0", "x"}, 2, "context-ls search: --k: must be between 1 and 100, got 0"},
		{"bad enum", []string{"pack", "--root", root, "--db", db, "--format", "yaml", "x"}, 2, `--format: "yaml" is not one of markdown, xml, json, plain`},
		{"bad flag value", []string{"search", "--k", "zero", "x"}, 2, "invalid value"},
		{"root is not a directory", []string{"index", "--root", filepath.Join(root, "tools/report.py"), "--db", db}, 1, ""},
		{"path outside the workspace", []string{"similar", "--root", root, "--db", db, "--file", filepath.Join(outside, "x.go")}, 2, "outside"},
		{"traversal", []string{"files", "--root", root, "--why", "../../etc/passwd"}, 0, "outside"},
	}
	for _, c := range cases {
		out, errOut, code := cli(t, c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, code, c.code, errOut)
		}
		if c.want != "" && !strings.Contains(errOut+out, c.want) {
			t.Errorf("%s: output %q lacks %q", c.name, errOut+out, c.want)
		}
		if strings.Contains(errOut, "goroutine ") || strings.Contains(errOut, "panic") {
			t.Errorf("%s: stack trace on stderr: %s", c.name, errOut)
		}
		if c.code != 0 && strings.Count(strings.TrimSpace(errOut), "\n") > 0 && !strings.Contains(errOut, "usage:") {
			t.Errorf("%s: error is not one line: %q", c.name, errOut)
		}
	}
	// An unknown flag: one line saying so, one line of usage.
	_, errOut, code := cli(t, "search", "--root", root, "--db", db, "--nope", "x")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != 2 || len(lines) != 2 || lines[0] != "context-ls search: flag provided but not defined: -nope" || !strings.HasPrefix(lines[1], "usage: context-ls search ") {
		t.Errorf("unknown flag: exit %d, stderr %q; want 2, the mistake and the usage once", code, errOut)
	}
	// -h: the usage, what the command does and every argument's flag.
	_, errOut, code = cli(t, "search", "-h")
	for _, want := range []string{"usage: context-ls search ", "Ranked, located search", "-min-score", "(1 to 100; default 10)"} {
		if code != 0 || !strings.Contains(errOut, want) {
			t.Errorf("search -h: exit %d, stderr lacks %q:\n%s", code, want, errOut)
		}
	}
}

// A command without arguments of its own takes the workspace root as its
// one argument, as a user types "context-ls index ~/src/app"; anything
// else there is refused and indexes nothing.
func TestCLIRootArgument(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, repo)
	if _, errOut, code := cli(t, "index", "--db", db, root); code != 0 {
		t.Fatalf("index DIR: exit %d: %s", code, errOut)
	}
	byFlag, errOut, code := cli(t, "stats", "--db", db, "--root", root, "--json")
	if code != 0 {
		t.Fatalf("stats --root: exit %d: %s", code, errOut)
	}
	byArg, errOut, code := cli(t, "stats", "--db", db, "--json", root)
	// The same workspace and index (free disk space may differ).
	var a, b struct {
		Root  string `json:"root"`
		Index string `json:"index"`
		Files int    `json:"files"`
	}
	if code != 0 || json.Unmarshal([]byte(byFlag), &a) != nil || json.Unmarshal([]byte(byArg), &b) != nil || a != b || b.Files == 0 {
		t.Fatalf("stats DIR: exit %d, %s%s\nwant the workspace --root gives:\n%s", code, byArg, errOut, byFlag)
	}
	other := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "--db", db, filepath.Join(root, "tools/report.py")}, "not a directory"},
		{[]string{"index", "--db", db, root, other}, "give one workspace root"},
		{[]string{"index", "--db", db, "--root", root, other}, "given by --root already"},
		{[]string{"doctor", "--db", db, root, other}, "give one workspace root"},
	} {
		_, errOut, code := cli(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "usage: context-ls ") {
			t.Errorf("%q: exit %d, stderr %q; want 2, %q and the usage", c.args, code, errOut, c.want)
		}
	}
	if entries, err := os.ReadDir(db); err != nil || len(entries) != 1 {
		t.Errorf("refused commands touched the index directory: %v, %v", entries, err)
	}
	// model's -h is its usage, not an unknown subcommand.
	if _, errOut, code := cli(t, "model", "-h"); code != 0 || !strings.Contains(errOut, "usage: context-ls model list") {
		t.Errorf("model -h: exit %d, stderr %q", code, errOut)
	}
}

func TestCLIConfigDiagnostics(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, repo)
	writeFiles(t, root, map[string]string{".context-ls.toml": "languages = [\"python\"]\nmaxFileSize = -3\n"})
	out, errOut, code := cli(t, "index", "--json", "--root", root, "--db", db)
	if code != 0 {
		t.Fatalf("index with a bad config value: %d %s", code, errOut)
	}
	if !strings.Contains(errOut, "maxFileSize") || !strings.Contains(errOut, "line 2") {
		t.Fatalf("diagnostic lacks key and line: %q", errOut)
	}
	var idx struct{ Files int }
	if json.Unmarshal([]byte(out), &idx); idx.Files != 1 { // languages = python still applies
		t.Fatalf("index: %s", out)
	}
}

// TestCLIKilledIndexResumes kills `context-ls index` with SIGKILL in the
// middle of a run, runs it again and checks the result equals an
// uninterrupted run.
func TestCLIKilledIndexResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 1500; i++ {
		files[fmt.Sprintf("pkg%02d/f%04d.go", i%40, i)] = fmt.Sprintf(
			"package pkg%02d\n\n// Handler%d answers request kind %d with a computed value.\nfunc Handler%d(x int) int {\n\treturn x * %d\n}\n\n// Helper%d formats value %d.\nfunc Helper%d() string { return \"%d\" }\n",
			i%40, i, i, i, i, i, i, i, i)
	}
	writeFiles(t, root, files)
	clean, killed := t.TempDir(), t.TempDir()
	if _, errOut, code := cli(t, "index", "--root", root, "--db", clean); code != 0 {
		t.Fatalf("clean index: %s", errOut)
	}
	// Start, wait until part of the tree is written, kill -9.
	cmd := exec.Command(binPath, "index", "--root", root, "--db", killed)
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && store.DirBytes(killed) < 256<<10 {
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	out, errOut, code := cli(t, "index", "--json", "--root", root, "--db", killed)
	if code != 0 {
		t.Fatalf("index after kill: %d %s", code, errOut)
	}
	var res struct{ Files, Indexed, Unchanged int }
	json.Unmarshal([]byte(out), &res)
	if res.Files != 1500 {
		t.Fatalf("resumed index: %s", out)
	}
	t.Logf("resume after SIGKILL: %d files re-indexed, %d already done", res.Indexed, res.Unchanged)
	for _, q := range []string{"Handler777", "request kind 1234", "formats value", "pkg07.Helper47"} {
		a, _, _ := cli(t, "search", "--json", "--root", root, "--db", clean, q)
		b, _, _ := cli(t, "search", "--json", "--root", root, "--db", killed, q)
		if a != b {
			t.Fatalf("%q: resumed index answers\n%s\nclean index answers\n%s", q, b, a)
		}
	}
	a, _, _ := cli(t, "stats", "--json", "--root", root, "--db", clean)
	b, _, _ := cli(t, "stats", "--json", "--root", root, "--db", killed)
	if counts(a) != counts(b) {
		t.Fatalf("stats differ: %s vs %s", counts(b), counts(a))
	}
}

func counts(statsJSON string) string {
	var st struct{ Files, Symbols, Chunks, Lines int }
	json.Unmarshal([]byte(statsJSON), &st)
	return fmt.Sprintf("%+v", st)
}

func sortedKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestDBHoldsOneIndexPerWorkspace: --db names where indexes are kept, the
// same way for every command (serve and mcp place theirs there too).
func TestDBHoldsOneIndexPerWorkspace(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "package a\n\n// Alpha is here.\nfunc Alpha() {}\n"})
	if _, errOut, code := cli(t, "index", "--root", root, "--db", db); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	want, err := engine.IndexDir(db, root)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(db)
	if len(entries) != 1 || filepath.Join(db, entries[0].Name()) != want {
		t.Fatalf("--db %s holds %v, want only %s", db, entries, want)
	}

	// A relative --db is inside the workspace, and never indexed itself.
	for i := 0; i < 2; i++ {
		if _, errOut, code := cli(t, "index", "--root", root, "--db", ".ctx"); code != 0 {
			t.Fatalf("index --db .ctx: %d %s", code, errOut)
		}
	}
	out, _, _ := cli(t, "stats", "--json", "--root", root, "--db", ".ctx")
	var st struct {
		Files     int
		Languages map[string]int
		Index     string
	}
	inside, _ := engine.IndexDir(".ctx", root)
	if json.Unmarshal([]byte(out), &st) != nil || st.Files != 1 || st.Index != inside {
		t.Fatalf("--db .ctx: %s, want 1 file and the index in %s", out, inside)
	}

	if out, _, _ := cli(t, "files", "--root", root, "--db", ".ctx"); strings.Contains(out, ".ctx") {
		t.Fatalf("files lists the index: %s", out)
	}

	// Without --db, the dbPath of .context-ls.toml places the index.
	writeFiles(t, root, map[string]string{".context-ls.toml": "dbPath = \".idx\"\n"})
	out, errOut, code := cli(t, "stats", "--json", "--root", root)
	fromFile, _ := engine.IndexDir(".idx", root)
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Index != fromFile {
		t.Fatalf("dbPath in .context-ls.toml: exit %d %s %s, want the index in %s", code, out, errOut, fromFile)
	}
}
