package workspace

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genNames mixes ordinary names with denylisted ones, build markers, ignore
// files, minified, binary and oversized content.
var genNames = []string{
	"a.go", "b.py", "c.txt", "d.js", "app.min.js", "node_modules", "vendor", "target", "dist",
	"build", "Cargo.toml", "package.json", "go.sum", "logo.png", ".env", "src", "lib", "testdata",
	"x", "y", "big.txt", "blob.bin", "bundle.js", ".git", "__pycache__",
}

var genPatterns = []string{
	"*.go", "!a.go", "src/", "!vendor/", "!node_modules/", "*.txt", "!c.txt", "lib/**", "/x",
	"y/", "!target/", "*.js", "!*.min.js", "**/src/*.py", "!build/", "d.js", "!dist/",
}

// TestWalkExplainConsistencyGenerated builds random trees with ignore
// files, .contextignore files, denylisted names, symlinks (inside, outside,
// cycles, broken), binary, minified and oversized files, and checks that
// Walk, Included and Explain agree on every entry.
func TestWalkExplainConsistencyGenerated(t *testing.T) {
	for seed := range 12 {
		rng := rand.New(rand.NewPCG(uint64(seed), 99))
		tmp := t.TempDir()
		root := filepath.Join(tmp, "root")
		os.MkdirAll(filepath.Join(tmp, "outside", "d"), 0o755)
		os.WriteFile(filepath.Join(tmp, "outside", "o.go"), []byte("package o\n"), 0o644)
		os.Mkdir(filepath.Join(tmp, ".git"), 0o755)
		var dirs []string
		genTree(t, rng, root, "", 0, &dirs)
		// Symlinks of every kind, at random places.
		targets := []string{"../outside", "../outside/o.go", ".", "..", "nowhere", "a.go", "src", "x/y"}
		for range 6 {
			dir := dirs[rng.IntN(len(dirs))]
			link := filepath.Join(root, filepath.FromSlash(dir), "link"+string(rune('a'+rng.IntN(6))))
			target := targets[rng.IntN(len(targets))]
			if strings.HasPrefix(target, "../outside") {
				target = strings.Repeat("../", strings.Count(dir, "/")+boolInt(dir != "")) + target
			}
			os.Symlink(target, link)
		}
		cfg := DefaultConfig()
		cfg.MaxFileSize = 2000
		if rng.IntN(2) == 0 {
			cfg.Ignore = []string{genPatterns[rng.IntN(len(genPatterns))]}
		}
		w, err := Open(root, cfg)
		if err != nil {
			t.Fatal(err)
		}
		walked := walkAll(t, w)
		checkConsistency(t, w, root, walked)
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func genTree(t *testing.T, rng *rand.Rand, root, rel string, depth int, dirs *[]string) {
	dir := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	*dirs = append(*dirs, rel)
	for _, name := range []string{".gitignore", ".contextignore"} {
		if rng.IntN(3) == 0 {
			var b strings.Builder
			for range 1 + rng.IntN(4) {
				b.WriteString(genPatterns[rng.IntN(len(genPatterns))] + "\n")
			}
			os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
		}
	}
	for range 3 + rng.IntN(6) {
		name := genNames[rng.IntN(len(genNames))]
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		if depth < 3 && !strings.Contains(name, ".") && rng.IntN(2) == 0 || name == "node_modules" || name == "vendor" {
			genTree(t, rng, root, joinRel(rel, name), depth+1, dirs)
			continue
		}
		var content []byte
		switch {
		case name == "big.txt":
			content = []byte(strings.Repeat("line\n", 500))
		case name == "blob.bin":
			content = []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}
		case name == "bundle.js":
			content = []byte(strings.Repeat("a=1;", 400))
		default:
			content = []byte(name + "\n")
		}
		os.WriteFile(p, content, 0o644)
	}
}
