package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// fixture is a txtar-style archive: a comment, then "-- name --" sections.
// Section names: "path" (a file with the section as content), "path/" (an
// empty directory), "path -> target" (a symlink), "#explain" (extra paths
// to explain, one per line). Paths starting with "../" are created beside
// the root, inside the test's temporary directory. Comment lines
// "config.ignore: PATTERN" add Config.Ignore patterns.
type fixture struct {
	comment string
	files   []fixtureFile
	explain []string
	ignore  []string
}

type fixtureFile struct {
	name, content, link string
}

func parseFixture(t *testing.T, path string) fixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fx fixture
	var cur *fixtureFile
	var comment []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") {
			name := strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			f := fixtureFile{name: name}
			if n, target, ok := strings.Cut(name, " -> "); ok {
				f.name, f.link = n, target
			}
			fx.files = append(fx.files, f)
			cur = &fx.files[len(fx.files)-1]
			continue
		}
		if cur == nil {
			if p, ok := strings.CutPrefix(trimmed, "config.ignore: "); ok {
				fx.ignore = append(fx.ignore, p)
			} else {
				comment = append(comment, trimmed)
			}
			continue
		}
		cur.content += line
	}
	fx.comment = strings.Join(comment, "\n")
	files := fx.files[:0]
	for _, f := range fx.files {
		if f.name == "#explain" {
			fx.explain = append(fx.explain, strings.Fields(f.content)...)
			continue
		}
		files = append(files, f)
	}
	fx.files = files
	return fx
}

// build creates the fixture in a new temporary directory and returns the
// temporary directory and the root. Unless the fixture has a .git of its
// own, an empty .git directory beside the root stops the search for an
// enclosing repository, keeping the test hermetic.
func (fx fixture) build(t *testing.T) (tmp, root string) {
	t.Helper()
	tmp = t.TempDir()
	root = filepath.Join(tmp, "root")
	if err := os.MkdirAll(filepath.Join(tmp, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range fx.files {
		p := filepath.Join(root, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case f.link != "":
			if err := os.Symlink(filepath.FromSlash(f.link), p); err != nil {
				t.Fatal(err)
			}
		case strings.HasSuffix(f.name, "/"):
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tmp, root
}

// walkAll returns the Rel paths Walk visits.
func walkAll(t *testing.T, w *Workspace) []string {
	t.Helper()
	var got []string
	err := w.Walk(context.Background(), func(fi FileInfo) error {
		got = append(got, fi.Rel)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return got
}

// entries lists every entry below root without following symlinks.
func entries(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != root {
			out = append(out, filepath.ToSlash(p[len(root)+1:]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func formatDecision(d Decision) string {
	state := "excluded"
	if d.Included {
		state = "included"
	}
	s := fmt.Sprintf("%s\t%s", d.Rel, state)
	if d.Rule != "" || d.Source != "" {
		s += fmt.Sprintf("\t%s\t%s", d.Rule, d.Source)
	}
	if d.Ancestor != "" {
		s += "\tvia " + d.Ancestor
	}
	if d.Dir {
		s += "\t(dir)"
	}
	return s
}

// checkConsistency verifies that Walk's output is exactly the set of
// entries Included accepts, that Explain agrees, and that the output is
// sorted and duplicate-free.
func checkConsistency(t *testing.T, w *Workspace, root string, walked []string) {
	t.Helper()
	if !slices.IsSorted(walked) {
		t.Errorf("Walk output is not sorted: %q", walked)
	}
	if len(slices.Compact(slices.Clone(walked))) != len(walked) {
		t.Errorf("Walk output has duplicates: %q", walked)
	}
	inWalk := map[string]bool{}
	for _, p := range walked {
		inWalk[p] = true
	}
	explained := map[string]bool{}
	for _, p := range entries(t, root) {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		inc, err := w.Included(p)
		if err != nil {
			inc = false
		}
		if fi.IsDir() {
			continue
		}
		if inc != inWalk[p] {
			t.Errorf("Included(%q) = %v, but Walk visited it: %v (%s)", p, inc, inWalk[p], formatDecision(w.Explain(p)))
		}
		d := w.Explain(p)
		if d.Included && !d.Dir {
			explained[d.Rel] = true
			if !inWalk[d.Rel] {
				t.Errorf("Explain(%q) includes %q, which Walk did not visit", p, d.Rel)
			}
		}
		if fi.Mode().IsRegular() && d.Included != inWalk[p] {
			t.Errorf("Explain(%q) = %s, Walk visited it: %v", p, formatDecision(d), inWalk[p])
		}
	}
	for _, p := range walked {
		if !explained[p] {
			t.Errorf("Walk visited %q, which Explain does not include", p)
		}
	}
}

func TestWalkFixtures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "walk", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			fx := parseFixture(t, path)
			tmp, root := fx.build(t)
			var skips []string
			cfg := DefaultConfig()
			cfg.Ignore = fx.ignore
			cfg.OnSkip = func(rel, reason string) { skips = append(skips, rel+"\t"+reason) }
			w, err := Open(root, cfg)
			if err != nil {
				t.Fatal(err)
			}
			walked := walkAll(t, w)
			checkConsistency(t, w, root, walked)

			var b strings.Builder
			b.WriteString("== walk\n")
			for _, p := range walked {
				b.WriteString(p + "\n")
			}
			b.WriteString("== skipped\n")
			for _, s := range skips {
				b.WriteString(s + "\n")
			}
			b.WriteString("== explain\n")
			for _, p := range append(entries(t, root), fx.explain...) {
				b.WriteString(p + "\t=> " + formatDecision(w.Explain(p)) + "\n")
			}
			got := strings.ReplaceAll(b.String(), tmp, "$TMP")
			golden := strings.TrimSuffix(path, ".txtar") + ".golden"
			if *testutil.Update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run with -update to rewrite):\n%s", golden, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range wl {
		if !slices.Contains(gl, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range gl {
		if !slices.Contains(wl, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// TestFixtureExpectations pins the decisions that matter in each fixture,
// independently of the golden files.
func TestFixtureExpectations(t *testing.T) {
	tests := map[string]map[string]string{ // path -> "in" or the expected Source
		"gitignore": {
			"a.go":                 "in",
			"x.parent":             "../.gitignore:2",
			"from-parent.txt":      "../.gitignore:1",
			"sub/from-parent.txt":  "in",
			"excluded-by-info.txt": "../.git/info/exclude:1",
			"app.log":              ".gitignore:2",
			"important.log":        "in",
			"root-only.txt":        ".gitignore:4",
			"sub/root-only.txt":    "in",
			"sub/debug.log":        "in", // re-included by sub/.gitignore
			"build-out/x.go":       ".gitignore:5",
			"sub/build-out/y.go":   ".gitignore:5",
			"docs/a.tmp":           ".gitignore:6",
			"docs/x/y/b.tmp":       ".gitignore:6",
			"c.tmp":                "in",
			"#hash.txt":            ".gitignore:7",
			"trailing.txt":         ".gitignore:8",
			"gen/keep.go":          ".gitignore:9", // parent excluded: no re-include
			"cache/a.txt":          ".gitignore:11",
			"cache/keep.txt":       "in",
			"sub/local.txt":        "sub/.gitignore:2",
			"sub/deeper/local.txt": "in",
			"sub/deeper/x.go":      "sub/deeper/.gitignore:1",
			"sub/deeper/notes.md":  "in",
		},
		"contextignore": {
			"vendor/lib/lib.go":         "in",
			"node_modules/pkg/index.js": "denylist",
			"generated/api.go":          "in",
			"api.pb.go":                 "in",
			"docs/private/secret.md":    ".contextignore:3",
			"docs/public.md":            "config ignore",
			"docs/other.md":             "in",
			"bundle.min.js":             "in",
			"x.tmp":                     "config ignore",
			"keep.tmp":                  "in",
			"sub/readme.md":             "sub/.contextignore:1",
			"sub/code.go":               "in",
		},
		"denylist": {
			"go/build/build.go":         "in",
			"cmd/dist/main.go":          "in",
			"testdata/x.go":             "in",
			"bin/tool.sh":               "in",
			"build/x.go":                "in",
			"node_modules/pkg/index.js": "denylist",
			"vendor/golang.org/x/y.go":  "denylist",
			"a/b/node_modules/c.js":     "denylist",
			"__pycache__/m.py":          "denylist",
			".venv/lib/site.py":         "denylist",
			".git/config":               "denylist",
			"rust/src/main.rs":          "in",
			"rust/target/debug/out.rs":  "denylist",
			"other/target/t.go":         "in",
			"web/dist/app.js":           "denylist",
			"py/build/lib/m.py":         "denylist",
			"go.sum":                    "denylist",
			"go.mod":                    "in",
			"web/package-lock.json":     "denylist",
			"logo.png":                  "denylist",
			"app.min.js":                "denylist",
			".env":                      "denylist",
			".env.local":                "denylist",
			".env.example":              "in",
		},
		"symlinks": {
			"real/a.go":             "in",
			"real/sub/b.go":         "in",
			"out-file":              SourceSymlinkEscape,
			"out-dir":               SourceSymlinkEscape,
			"out-dir/secret.txt":    SourceSymlinkEscape,
			"escape-chain":          SourceSymlinkEscape,
			"../outside/secret.txt": SourceOutside,
			"/etc/passwd":           SourceOutside,
			"bazel-out":             ".gitignore:1",
			"broken":                SourceBrokenLink,
			"self":                  SourceBrokenLink,
			"nope.go":               SourceNotFound,
		},
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			fx := parseFixture(t, filepath.Join("testdata", "walk", name+".txtar"))
			_, root := fx.build(t)
			cfg := DefaultConfig()
			cfg.Ignore = fx.ignore
			w, err := Open(root, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for p, src := range want {
				d := w.Explain(p)
				if src == "in" {
					if !d.Included {
						t.Errorf("Explain(%q) = %s, want included", p, formatDecision(d))
					}
					continue
				}
				if d.Included || d.Source != src {
					t.Errorf("Explain(%q) = %s, want excluded by %s", p, formatDecision(d), src)
				}
			}
		})
	}
}

func TestSymlinkedInsideExplainedAtTarget(t *testing.T) {
	fx := parseFixture(t, filepath.Join("testdata", "walk", "symlinks.txtar"))
	_, root := fx.build(t)
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"in-file": "real/a.go", "in-dir/sub/b.go": "real/sub/b.go", "chain1": "real/a.go",
		"loop/real/a.go": "real/a.go", "real/up/real/sub/b.go": "real/sub/b.go",
	} {
		d := w.Explain(in)
		if d.Rel != want || !d.Included {
			t.Errorf("Explain(%q) = %s, want %s included", in, formatDecision(d), want)
		}
		if ok, err := w.Included(in); ok || err != nil {
			t.Errorf("Included(%q) = %v, %v; want false: Walk visits the target, not the link", in, ok, err)
		}
	}
	walked := walkAll(t, w)
	if want := []string{".gitignore", "real/a.go", "real/sub/b.go"}; !slices.Equal(walked, want) {
		t.Errorf("Walk = %q, want %q (each file once, at its real path)", walked, want)
	}
}

func TestWalkOrderIsLexical(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	for _, p := range []string{"a/b.go", "a.go", "a-b/x.go", "a b.go", "a/c/d.go", "a0", "A.go", "ab/z", "a!", "é.go"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(tmp, ".git"), 0o755)
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	got := walkAll(t, w)
	want := []string{"A.go", "a b.go", "a!", "a-b/x.go", "a.go", "a/b.go", "a/c/d.go", "a0", "ab/z", "é.go"}
	if !slices.Equal(got, want) {
		t.Errorf("Walk order = %q, want %q", got, want)
	}
}

func TestContentChecks(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	os.Mkdir(filepath.Join(tmp, ".git"), 0o755)
	os.Mkdir(root, 0o755)
	const max = 4096
	files := map[string][]byte{
		"at-limit.txt":     []byte(strings.Repeat("a\n", max/2)),
		"over-limit.txt":   []byte(strings.Repeat("a\n", max/2+1)),
		"nul.dat":          []byte("text\x00more"),
		"latin1.txt":       []byte(strings.Repeat("caf\xe9 ", 200)),
		"bundle.js":        []byte(strings.Repeat("x", 2000) + "\n"),
		"forced/bundle.js": []byte(strings.Repeat("x", 2000) + "\n"),
		"short.js":         []byte("var x = 1;\n"),
		"empty.go":         nil,
		"big.png":          []byte("not really an image"),
	}
	for p, data := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, ".contextignore"), []byte("!forced/bundle.js\n"), 0o644)
	cfg := DefaultConfig()
	cfg.MaxFileSize = max
	w, err := Open(root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"at-limit.txt":     "",
		"over-limit.txt":   SourceMaxSize,
		"nul.dat":          SourceBinary,
		"latin1.txt":       SourceBinary,
		"bundle.js":        SourceMinified,
		"forced/bundle.js": "",
		"short.js":         "",
		"empty.go":         "",
		"big.png":          SourceDenylist,
	}
	for p, src := range want {
		d := w.Explain(p)
		if d.Included != (src == "") || (src != "" && d.Source != src) {
			t.Errorf("Explain(%q) = %s, want source %q", p, formatDecision(d), src)
		}
	}
	checkConsistency(t, w, root, walkAll(t, w))
	if d := w.Explain("over-limit.txt"); d.Rule != "size 4098 > 4096" {
		t.Errorf("max size rule = %q", d.Rule)
	}
}

func TestWalkCancelAndCallbackError(t *testing.T) {
	root := filepath.Join(goSrc(t), "go")
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = w.Walk(ctx, func(FileInfo) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Errorf("Walk after cancel: n=%d err=%v, want 3 files and context.Canceled", n, err)
	}
	stop := errors.New("stop")
	n = 0
	err = w.Walk(context.Background(), func(FileInfo) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Walk with failing callback: n=%d err=%v", n, err)
	}
}

func TestWalkFileInfo(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	os.Mkdir(filepath.Join(tmp, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, "d"), 0o755)
	os.WriteFile(filepath.Join(root, "d", "f.go"), []byte("package d\n"), 0o644)
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var got []FileInfo
	w.Walk(context.Background(), func(fi FileInfo) error { got = append(got, fi); return nil })
	st, _ := os.Stat(filepath.Join(root, "d", "f.go"))
	want := FileInfo{Rel: "d/f.go", Abs: filepath.Join(w.Root(), "d", "f.go"), Size: 10, ModTime: st.ModTime().UnixNano()}
	if len(got) != 1 || got[0] != want {
		t.Errorf("Walk = %+v, want [%+v]", got, want)
	}
}

func TestOpen(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	link := filepath.Join(tmp, "link")
	os.Symlink(tmp, link)
	for _, bad := range []string{"", filepath.Join(tmp, "missing"), file, "a\x00b"} {
		if _, err := Open(bad, DefaultConfig()); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
	w, err := Open(link, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(tmp)
	if w.Root() != real {
		t.Errorf("Root() = %q, want %q", w.Root(), real)
	}
	// A path under the root as given (through the link) is inside.
	if rel, err := w.Resolve(filepath.Join(link, "file")); err != nil || rel != "file" {
		t.Errorf("Resolve via the unresolved root = %q, %v", rel, err)
	}
}

func TestDBPathNeverWalked(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	os.Mkdir(filepath.Join(tmp, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, "index"), 0o755)
	os.WriteFile(filepath.Join(root, "index", "MANIFEST"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a.go"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".contextignore"), []byte("!index/\n"), 0o644)
	cfg := DefaultConfig()
	cfg.DBPath = "index"
	w, err := Open(root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := walkAll(t, w); !slices.Equal(got, []string{".contextignore", "a.go"}) {
		t.Errorf("Walk = %q", got)
	}
	if d := w.Explain("index/MANIFEST"); d.Source != SourceIndexDir {
		t.Errorf("Explain(index/MANIFEST) = %s", formatDecision(d))
	}
}
