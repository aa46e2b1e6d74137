package codemap

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

const module = "github.com/context-ls/context-ls"

// TestCodeMap compares ARCHITECTURE.md's code map with `go list`.
func TestCodeMap(t *testing.T) {
	root := testutil.RepoRoot(t)
	rows := codeMap(t, filepath.Join(root, "ARCHITECTURE.md"))
	actual := moduleImports(t, root)
	for pkg, imports := range actual {
		if strings.HasPrefix(pkg, "bench") || strings.HasPrefix(pkg, "scripts/") {
			continue // programs that measure, not parts of the server
		}
		listed, ok := rows[pkg]
		if !ok {
			t.Errorf("package %s has no row in the code map", pkg)
			continue
		}
		if !slices.Equal(listed, imports) {
			t.Errorf("code map row %s imports %s; go list says %s", pkg, show(listed), show(imports))
		}
	}
	for pkg := range rows {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("the code map has a row for %s, which is no package of the module", pkg)
		}
	}
}

func show(list []string) string {
	if len(list) == 0 {
		return "—"
	}
	return strings.Join(list, ", ")
}

// codeMap reads the code map table: package → the module packages of its
// imports column (what follows a semicolon names outside packages).
func codeMap(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string][]string{}
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## Code map"):
			in = true
			continue
		case in && strings.HasPrefix(line, "## "):
			in = false
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) < 3 {
			t.Fatalf("code map row with %d cells: %s", len(cells), line)
		}
		pkg := strings.Trim(strings.TrimSpace(cells[0]), "`")
		col, _, _ := strings.Cut(strings.TrimSpace(cells[len(cells)-1]), ";")
		var imports []string
		for _, p := range strings.Split(col, ",") {
			if p = strings.TrimSpace(p); p != "" && p != "—" {
				imports = append(imports, p)
			}
		}
		sort.Strings(imports)
		rows[pkg] = imports
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no code map table in " + path)
	}
	return rows
}

// moduleImports lists, per package of the module, the module packages
// its non-test files import, sorted, paths relative to the module.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	pkgs := map[string][]string{}
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		var imports []string
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, rel)
			}
		}
		sort.Strings(imports)
		pkgs[strings.TrimPrefix(p.ImportPath, module+"/")] = imports
	}
	return pkgs
}
