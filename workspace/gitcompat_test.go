package workspace

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Names and patterns the random trees are made of: chosen to exercise
// anchoring, negation, directory-only patterns, double stars, bracket
// expressions, escapes and trailing spaces. None is on the denylist.
var (
	compatNames = []string{
		"a", "b", "c", "foo", "bar", "doc", "lib", "x.go", "y.py", "z.txt", "a.log",
		"keep.go", "#h", "!bang", "sp ace", "t[1]", "q?", "ab", "ba", "é",
	}
	compatPatterns = []string{
		"*.go", "!keep.go", "/a", "a/", "foo/**", "**/bar", "lib/*.txt", "!lib/z.txt",
		"doc/", "!doc/", "*.log", "!a.log", "b/**/c", `\#h`, `\!bang`, "x.go", "a/b",
		"/b/", "[ab]", "?", "*", "!*", `sp\ ace`, `t\[1\]`, "**/a/**", "c/", "!c/keep.go",
		"bar  ", "#comment", "[!a-c]*", "*/z.txt", "!*/", "/*", "!/foo", "a*", "**/x.go",
		"[[:alpha:]]", "ba?", "!b*/", "foo/*/", "!foo/**/keep.go", "", `\ `, "q\\?",
	}
)

// TestGitCompat builds random trees with random .gitignore files and checks
// that Walk visits exactly the files git reports as untracked and not
// ignored. It needs git; it skips without it.
func TestGitCompat(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed: cannot compare with git's ignore rules")
	}
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	seeds := 15
	if testing.Short() {
		seeds = 5
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		root := t.TempDir()
		cmd := exec.Command(git, "init", "-q", root)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		var ignoreFiles []string
		randomTree(t, rng, root, "", 0, &ignoreFiles)
		if rng.IntN(3) == 0 {
			writeRandomIgnore(t, rng, filepath.Join(root, ".git", "info", "exclude"))
		}
		cmd = exec.Command(git, "-C", root, "ls-files", "-o", "--exclude-standard", "-z")
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git ls-files: %v", err)
		}
		var want []string
		for _, p := range bytes.Split(out, []byte{0}) {
			if len(p) > 0 {
				want = append(want, string(p))
			}
		}
		slices.Sort(want)
		w, err := Open(root, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		got := walkAll(t, w)
		if !slices.Equal(got, want) {
			var rules strings.Builder
			for _, f := range ignoreFiles {
				data, _ := os.ReadFile(filepath.Join(root, f))
				rules.WriteString("--- " + f + "\n" + string(data))
			}
			if data, err := os.ReadFile(filepath.Join(root, ".git", "info", "exclude")); err == nil {
				rules.WriteString("--- .git/info/exclude\n" + string(data))
			}
			t.Errorf("seed %d: Walk differs from git ls-files:\n%s\nrules:\n%s", seed, lineDiff(strings.Join(want, "\n"), strings.Join(got, "\n")), rules.String())
			continue
		}
		checkConsistency(t, w, root, got)
	}
}

// randomTree fills dir (relative rel) with random files, directories and
// .gitignore files.
func randomTree(t *testing.T, rng *rand.Rand, root, rel string, depth int, ignoreFiles *[]string) {
	dir := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if rng.IntN(2) == 0 {
		writeRandomIgnore(t, rng, filepath.Join(dir, ".gitignore"))
		*ignoreFiles = append(*ignoreFiles, joinRel(rel, ".gitignore"))
	}
	n := 2 + rng.IntN(5)
	for range n {
		name := compatNames[rng.IntN(len(compatNames))]
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		if depth < 3 && rng.IntN(3) == 0 {
			randomTree(t, rng, root, joinRel(rel, name), depth+1, ignoreFiles)
			continue
		}
		if err := os.WriteFile(p, []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeRandomIgnore(t *testing.T, rng *rand.Rand, path string) {
	var b strings.Builder
	for range 1 + rng.IntN(5) {
		b.WriteString(compatPatterns[rng.IntN(len(compatPatterns))] + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
