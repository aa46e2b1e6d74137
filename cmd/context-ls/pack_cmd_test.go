package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// packWorkspace writes a tiny workspace and returns its root and an index
// directory.
func packWorkspace(t *testing.T) (string, string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"calc/calc.go": "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n" +
			"// Twice doubles n by adding it to itself.\nfunc Twice(n int) int {\n\treturn Add(n, n)\n}\n",
		"README.md": "# calc\n\nAdd and Twice do arithmetic.\n",
	}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, filepath.Join(t.TempDir(), "db")
}

func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func keys(m map[string]json.RawMessage) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}

func TestPackCommandJSON(t *testing.T) {
	t.Setenv("CONTEXT_LS_EMBEDDINGS", "off")
	root, db := packWorkspace(t)
	code, out, errOut := runCLI("pack", "--root", root, "--db", db, "--budget", "400", "--format", "json", "add two numbers")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var pack map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &pack); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	delete(pack, "notes") // present only when a source was skipped
	want := []string{"budget", "dropped", "format", "items", "latencyMs", "tokens"}
	if got := keys(pack); !reflect.DeepEqual(got, want) {
		t.Errorf("pack keys %v, want %v", got, want)
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(pack["items"], &items); err != nil || len(items) == 0 {
		t.Fatalf("items: %v, %s", err, pack["items"])
	}
	wantItem := []string{"endLine", "includeMode", "kind", "language", "path", "reason", "score", "source", "startLine", "symbol", "text", "tokens", "uri"}
	delete(items[0], "shortened") // present only when the item was cut to fit
	if got := keys(items[0]); !reflect.DeepEqual(got, wantItem) {
		t.Errorf("item keys %v, want %v", got, wantItem)
	}
	// The items carry the text once: no rendered copy beside them.
	if !strings.Contains(string(pack["items"]), "func Add") {
		t.Errorf("no item holds the Add function: %s", pack["items"])
	}
}

func TestPackCommandText(t *testing.T) {
	t.Setenv("CONTEXT_LS_EMBEDDINGS", "off")
	root, db := packWorkspace(t)
	code, out, errOut := runCLI("pack", "--root", root, "--db", db, "--budget", "300",
		"--file", filepath.Join(root, "calc", "calc.go"), "--lines", "10-12")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "### calc/calc.go:3-6 · Add (function) · definition of Add") {
		t.Errorf("markdown pack without the definition of Add:\n%s", out)
	}
	if !strings.HasPrefix(errOut, "pack: ") || !strings.Contains(errOut, "/300 tokens") {
		t.Errorf("stderr summary missing: %q", errOut)
	}
}

func TestPackCommandUsage(t *testing.T) {
	root, db := packWorkspace(t)
	for _, args := range [][]string{
		{"pack", "--root", root, "--db", db},
		{"pack", "--root", root, "--db", db, "--lines", "1-2", "q"},
		{"pack", "--root", root, "--db", db, "--file", "calc/calc.go", "--lines", "5-2"},
		{"pack", "--root", root, "--db", db, "--file", "calc/calc.go", "--lines", "x"},
		{"pack", "--root", root, "--db", db, "--format", "html", "q"},
		{"pack", "--root", root, "--db", db, "--budget", "-3", "q"},
	} {
		if code, _, errOut := runCLI(args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args[5:], code, exitUsage, errOut)
		}
	}
}
