package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

var graphRepo = map[string]string{
	"go.mod": "module example.com/app\n\ngo 1.22\n",
	"store/store.go": `package store

// Open opens a store.
func Open(path string) *DB { return &DB{} }

// DB is a store.
type DB struct{}

// Get reads a key.
func (d *DB) Get(k string) string { return k }
`,
	"app/app.go": `package app

import "example.com/app/store"

// Run reads one key.
func Run() string {
	db := store.Open("x")
	return db.Get("k")
}
`,
	"app/app_test.go": "package app\n\nimport \"testing\"\n\nfunc TestRun(t *testing.T) { Run() }\n",
	"tools/get.py":    "def Get(k):\n    return k\n",
}

func TestGraphCommands(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, graphRepo)
	common := []string{"--root", root, "--db", db}

	// callers by qualified name: the JSON contract.
	out, errOut, code := cli(t, append([]string{"callers", "--json", "DB.Get"}, common...)...)
	if code != 0 {
		t.Fatalf("callers: %d %s", code, errOut)
	}
	var res struct {
		Results []struct {
			Target map[string]any   `json:"definition"`
			Items  []map[string]any `json:"items"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Results) != 1 || len(res.Results[0].Items) != 1 {
		t.Fatalf("callers --json = %s (%v)", out, err)
	}
	it := res.Results[0].Items[0]
	for k, v := range map[string]any{"path": "app/app.go", "startLine": 6.0, "endLine": 9.0, "symbol": "Run",
		"kind": "function", "confidence": "exact", "reason": "receiver type DB"} {
		if it[k] != v {
			t.Errorf("item %s = %v, want %v (item %v)", k, it[k], v, it)
		}
	}
	if res.Results[0].Target["symbol"] != "DB.Get" {
		t.Errorf("target = %v", res.Results[0].Target)
	}

	// callers by position (the Open call site resolves to store.Open).
	out, _, code = cli(t, append([]string{"callers", "app/app.go:7:15"}, common...)...)
	if code != 0 || !strings.Contains(out, "callers of Open (store/store.go:4, function)") || !strings.Contains(out, "app/app.go:6-9  Run (function)  exact") {
		t.Fatalf("callers by position: %s", out)
	}

	// A bare name names every definition: one group each.
	out, _, code = cli(t, append([]string{"callers", "--json", "Get"}, common...)...)
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Results) != 2 {
		t.Fatalf("callers Get: %s", out)
	}

	out, _, code = cli(t, append([]string{"callees", "Run"}, common...)...)
	if code != 0 || !strings.Contains(out, "store/store.go:10-10  DB.Get (method)  exact") || !strings.Contains(out, "store/store.go:4-4  Open (function)  exact") {
		t.Fatalf("callees: %s", out)
	}

	out, _, code = cli(t, append([]string{"tests", "store.Open"}, common...)...)
	if code != 0 || !strings.Contains(out, "app/app_test.go:5-5  TestRun (test)  exact  two-hops  [via Run; line 5]") {
		t.Fatalf("tests: %s", out)
	}

	outside := filepath.Join(t.TempDir(), "x.go")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no target", []string{"callers"}, 2, "callers: TARGET: required"},
		{"two targets", []string{"callers", "A", "B"}, 2, "at most one TARGET"},
		{"line zero", []string{"callers", "app/app.go:0"}, 2, "lines start at 1"},
		{"outside the workspace", []string{"callers", outside + ":1"}, 2, "outside"},
		{"traversal", []string{"tests", "../../etc/passwd:1"}, 2, "outside"},
		{"unknown symbol", []string{"callers", "NoSuchThing"}, 1, "no definition named"},
		{"not indexed", []string{"callees", "missing.go:3"}, 1, "not indexed"},
	} {
		_, errOut, code := cli(t, append(c.args, common...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", c.name, code, errOut, c.code, c.want)
		}
	}
}

// TestTargetPathWithANewline: a TARGET whose path holds a newline is
// PATH:LINE like any other (issue 29: it exited 2, "line: required").
func TestTargetPathWithANewline(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"names/new\nline.go": "package names\n\nfunc A() {}\n\nfunc B() { A() }\n"})
	out, errOut, code := cli(t, "callers", "--json", "names/new\nline.go:3", "--root", root, "--db", db)
	if code != 0 || !strings.Contains(out, `"symbol": "B"`) {
		t.Fatalf("callers of a target in a file named with a newline: exit %d, %s %s", code, out, errOut)
	}
}
