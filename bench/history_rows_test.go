package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// TestHistoryRows runs scripts/history-rows.py on a scratch repository
// whose commits are known: a method edited, a function appended after
// another (new code, no span), a test-only change and a version bump (no
// rows), and checks the rows, their spans and the unpacked trees.
func TestHistoryRows(t *testing.T) {
	evalDir := filepath.Dir(evalFile("score_pack.py"))
	if _, err := os.Stat(filepath.Join(evalDir, "score_pack.py")); err != nil {
		t.Skip("no ../shared/eval/score_pack.py beside the checkout")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	write := func(name, text string) { t.Helper(); testutil.WriteFiles(t, repo, map[string]string{name: text}) }
	commit := func(msg string) string {
		t.Helper()
		testutil.Git(t, repo, "add", "-A")
		testutil.Git(t, repo, "commit", "-q", "-m", msg)
		return testutil.Git(t, repo, "rev-parse", "HEAD")
	}
	shop := "class Cart:\n    def total(self):\n        return sum(self.items)\n\n    def count(self):\n        return len(self.items)\n\n\ndef helper():\n    return 1\n"
	priced := strings.Replace(shop, "return sum(self.items)", "return sum(i.price for i in self.items)", 1)
	write("shop/cart.py", shop)
	write("tests/test_cart.py", "def test_total():\n    assert True\n")
	testutil.Git(t, repo, "init", "-q")
	base := commit("Initial import of the shop package")
	write("shop/cart.py", priced)
	edit := commit("Cart.total sums the prices of the items, not the items")
	write("shop/cart.py", priced+"\n\ndef appended():\n    return 2\n")
	added := commit("Add an appended helper after the last function")
	write("tests/test_cart.py", "def test_total():\n    assert 1\n")
	commit("Tighten the cart total test a little")
	write("shop/cart.py", priced+"\n\ndef appended():\n    return 3\n")
	commit("Release 1.2.0 of the shop package")

	rows, trees := filepath.Join(dir, "rows.jsonl"), filepath.Join(dir, "trees")
	script := filepath.Join(repoRoot(), "scripts", "history-rows.py")
	cmd := exec.Command("python3", script, "--git", filepath.Join(repo, ".git"), "--repo", "acme/shop",
		"--ext", ".py", "--rows", rows, "--trees", trees, "--eval", evalDir)
	cmd.Env = testutil.GitEnv(repo)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("history-rows.py: %v\n%s", err, out)
	}
	type row struct {
		Repo, Commit, Query string
		FixCommit           string `json:"fix_commit"`
		Files               []string
		Spans               map[string][]string
	}
	var got []row
	b, err := os.ReadFile(rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r row
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	// git log lists the newest first: the appended helper, then the edit.
	want := []row{
		{Repo: "acme/shop", Commit: edit, Query: "Add an appended helper after the last function", FixCommit: added,
			Files: []string{"shop/cart.py"}, Spans: map[string][]string{}},
		{Repo: "acme/shop", Commit: base, Query: "Cart.total sums the prices of the items, not the items", FixCommit: edit,
			Files: []string{"shop/cart.py"}, Spans: map[string][]string{"shop/cart.py": {"Cart.total"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n%+v\nwant\n%+v\n(%s)", got, want, out)
	}
	for _, c := range []string{base, edit} {
		if _, err := os.Stat(filepath.Join(trees, "acme+shop-"+c[:12], "shop", "cart.py")); err != nil {
			t.Errorf("tree of %s: %v", c[:12], err)
		}
	}
}
