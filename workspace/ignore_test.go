package workspace

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestPatternMatch(t *testing.T) {
	type probe struct {
		path  string
		isDir bool
		want  bool
	}
	f := func(path string, want bool) probe { return probe{path, false, want} }
	d := func(path string, want bool) probe { return probe{path, true, want} }
	tests := []struct {
		line   string
		probes []probe
	}{
		// No slash: matches the base name at any depth.
		{"*.log", []probe{f("a.log", true), f("dir/a.log", true), f("a.logx", false), f("a.log/x", false), d("x.log", true)}},
		{"foo", []probe{f("foo", true), d("a/b/foo", true), f("foobar", false), f("a/foo/b", false)}},
		// Leading slash anchors to the ignore file's directory.
		{"/root.txt", []probe{f("root.txt", true), f("sub/root.txt", false)}},
		// An inner slash anchors too.
		{"doc/frotz", []probe{f("doc/frotz", true), d("doc/frotz", true), f("a/doc/frotz", false)}},
		// Trailing slash: directories only.
		{"frotz/", []probe{d("frotz", true), f("frotz", false), d("a/frotz", true), f("a/frotz", false)}},
		{"doc/frotz/", []probe{d("doc/frotz", true), d("a/doc/frotz", false), f("doc/frotz", false)}},
		// '*' and '?' never match '/'.
		{"a/*/c", []probe{f("a/b/c", true), f("a/b/x/c", false), f("a/c", false)}},
		{"foo?", []probe{f("foo1", true), f("foo", false), f("fooé", false), f("foo12", false)}}, // bytes, as in git
		{"foo??", []probe{f("fooé", true)}},
		{"a?b", []probe{f("a/b", false), f("axb", true)}},
		{"*", []probe{f("x", true), f("a/b/c", true), d(".hidden", true)}},
		{"*.min.*", []probe{f("app.min.js", true), f("app.js", false)}},
		// Bracket expressions.
		{"[a-c]at", []probe{f("bat", true), f("dat", false), f("Bat", false)}},
		{"[!a-c]at", []probe{f("dat", true), f("bat", false)}},
		{"[^a-c]at", []probe{f("dat", true), f("cat", false)}},
		{"[[:digit:]]x", []probe{f("5x", true), f("ax", false)}},
		{"[[:upper:][:digit:]]", []probe{f("Q", true), f("7", true), f("q", false)}},
		{"[]]", []probe{f("]", true), f("a", false)}},
		{"[a\\]]", []probe{f("]", true), f("a", true), f("b", false)}},
		{"[[:alpha:]]", []probe{f("q", true), f("é", false), f("1", false)}}, // ASCII classes, as in git
		{"[z-a]", []probe{f("z", false), f("a", false)}},
		{"[abc", []probe{f("[abc", false), f("a", false)}},
		{"[[:bogus:]]", []probe{f("b", false)}},
		// Double stars.
		{"**/foo", []probe{f("foo", true), f("a/b/foo", true), f("a/foox", false)}},
		{"**/foo/bar", []probe{f("foo/bar", true), f("x/y/foo/bar", true), f("foo/x/bar", false)}},
		{"abc/**", []probe{f("abc/x", true), d("abc/x/y", true), d("abc", false), f("x/abc/y", false)}},
		{"a/**/b", []probe{f("a/b", true), f("a/x/b", true), f("a/x/y/b", true), f("a/xb", false), f("b", false)}},
		{"/**", []probe{f("x", true), f("a/b", true)}},
		{"**", []probe{f("x", true), f("a/b", true)}},
		{"a/**/**/b", []probe{f("a/b", true), f("a/x/y/z/b", true)}},
		{"foo**bar", []probe{f("fooxbar", true), f("x/fooAbar", true), f("foo/bar", false)}},
		{"a**/b", []probe{f("ax/b", true), f("a/x/b", false)}},
		{"**/", []probe{d("x", true), f("x", false)}},
		// Escapes, comments and spaces.
		{"\\#file", []probe{f("#file", true), f("\\#file", false)}},
		{"\\!important", []probe{f("!important", true)}},
		{"trailing   ", []probe{f("trailing", true), f("trailing ", false)}},
		{"trailing\\ ", []probe{f("trailing ", true), f("trailing", false)}},
		{"a\\*b", []probe{f("a*b", true), f("axb", false)}},
		{"foo\\", []probe{f("foo", false), f("foo\\", false)}},
		{"crlf\r", []probe{f("crlf", true)}},
		// Case matters.
		{"*.LOG", []probe{f("a.log", false), f("a.LOG", true)}},
	}
	for _, tt := range tests {
		p, ok := parsePattern(tt.line, 1)
		if !ok {
			t.Errorf("parsePattern(%q) returned no pattern", tt.line)
			continue
		}
		for _, pr := range tt.probes {
			if got := p.matches(pr.path, pr.isDir); got != pr.want {
				t.Errorf("pattern %q on %q (dir=%v) = %v, want %v", tt.line, pr.path, pr.isDir, got, pr.want)
			}
		}
	}
}

func TestParsePatternLines(t *testing.T) {
	tests := []struct {
		line     string
		ok       bool
		negate   bool
		dirOnly  bool
		anchored bool
		text     string
	}{
		{"", false, false, false, false, ""},
		{"   ", false, false, false, false, ""},
		{"# comment", false, false, false, false, ""},
		{"/", false, false, false, false, ""},
		{"!", false, false, false, false, ""},
		{"!keep.go", true, true, false, false, "!keep.go"},
		{"build/", true, false, true, false, "build/"},
		{"/build/", true, false, true, true, "/build/"},
		{"a/b", true, false, false, true, "a/b"},
		{"!/a/b/  ", true, true, true, true, "!/a/b/"},
		{"\\!x", true, false, false, false, "\\!x"},
	}
	for _, tt := range tests {
		p, ok := parsePattern(tt.line, 7)
		if ok != tt.ok {
			t.Errorf("parsePattern(%q) ok = %v, want %v", tt.line, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if p.negate != tt.negate || p.dirOnly != tt.dirOnly || p.anchored != tt.anchored || p.text != tt.text || p.line != 7 {
			t.Errorf("parsePattern(%q) = negate %v dirOnly %v anchored %v text %q line %d; want %v %v %v %q 7",
				tt.line, p.negate, p.dirOnly, p.anchored, p.text, p.line, tt.negate, tt.dirOnly, tt.anchored, tt.text)
		}
	}
}

func TestPatternListLastMatchWins(t *testing.T) {
	l := parsePatternList([]byte("*.go\n!keep.go\n# c\n\nsub/keep.go\n"), "docs/.gitignore", "docs", "")
	tests := []struct {
		rel       string
		wantLine  int // 0: no match
		wantNeg   bool
		wantLabel string
	}{
		{"docs/a.go", 1, false, "docs/.gitignore:1"},
		{"docs/keep.go", 2, true, "docs/.gitignore:2"},
		{"docs/sub/keep.go", 5, false, "docs/.gitignore:5"},
		{"docs/x/keep.go", 2, true, "docs/.gitignore:2"},
		{"a.go", 0, false, ""},       // outside the list's directory
		{"docsx/a.go", 0, false, ""}, // a sibling with a longer name
	}
	for _, tt := range tests {
		p := l.match(tt.rel, false)
		if tt.wantLine == 0 {
			if p != nil {
				t.Errorf("match(%q) = line %d, want none", tt.rel, p.line)
			}
			continue
		}
		if p == nil || p.line != tt.wantLine || p.negate != tt.wantNeg || l.label(p) != tt.wantLabel {
			t.Errorf("match(%q) = %+v, want line %d negate %v label %q", tt.rel, p, tt.wantLine, tt.wantNeg, tt.wantLabel)
		}
	}
	outer := parsePatternList([]byte("/ws/gen/\n"), "../.gitignore", "", "ws/")
	if p := outer.match("gen", true); p == nil {
		t.Errorf("outer list: /ws/gen/ does not match gen")
	}
	if p := outer.match("x/gen", true); p != nil {
		t.Errorf("outer list: /ws/gen/ matches x/gen")
	}
}

// TestGlobAdversarial checks that patterns built to make backtracking
// matchers explode still answer (the matcher is O(pattern × path)).
func TestGlobAdversarial(t *testing.T) {
	pat := strings.Repeat("*a", 30) + "b"
	name := strings.Repeat("a", 200)
	if globMatch(pat, name) {
		t.Fatalf("globMatch(%q, a×200) = true", pat)
	}
	segs := strings.Repeat("**/a/", 20) + "b"
	p, _ := parsePattern(segs, 1)
	path := strings.Repeat("a/", 100) + "c"
	if p.matches(path, false) {
		t.Fatalf("%q matched %q", segs, path)
	}
}

func FuzzPattern(f *testing.F) {
	for _, s := range []string{"*.go", "a/**/b", "[a-z]?", "\\#x", "!x/", "**/", "[[:alpha:]]", "[", "a\\"} {
		f.Add(s, "a/b/c.go", false)
	}
	f.Fuzz(func(t *testing.T, line, path string, isDir bool) {
		p, ok := parsePattern(line, 1)
		if !ok || path == "" {
			return
		}
		got := p.matches(path, isDir)
		// A pattern without wildcards or escapes matches exactly its text.
		body := strings.TrimPrefix(p.text, "!")
		if !strings.ContainsAny(body, "*?[\\\r ") && !p.dirOnly && !p.anchored && !strings.Contains(path, "/") && body != "" && body[0] != '#' {
			if want := path == body; got != want {
				t.Fatalf("literal pattern %q on %q = %v, want %v", line, path, got, want)
			}
		}
	})
}

// TestPatternIndexMatchesLinearScan: a long list (indexed) answers every
// path as trying each of its patterns from the last does, on random lists
// of the gitcompat patterns and random paths of its names.
func TestPatternIndexMatchesLinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 29))
	for round := 0; round < 50; round++ {
		var b strings.Builder
		for range indexFrom + rng.IntN(200) {
			p := compatPatterns[rng.IntN(len(compatPatterns))]
			if rng.IntN(3) == 0 {
				p = strings.ReplaceAll(p, "a", "a"+strconv.Itoa(rng.IntN(5)))
			}
			b.WriteString(p + "\n")
		}
		for _, base := range []string{"", "sub"} {
			l := parsePatternList([]byte(b.String()), ".gitignore", base, "")
			if l.index == nil {
				t.Fatalf("a list of %d patterns is not indexed", len(l.patterns))
			}
			for range 300 {
				var segs []string
				if base != "" {
					segs = append(segs, base)
				}
				for range 1 + rng.IntN(5) {
					n := compatNames[rng.IntN(len(compatNames))]
					if rng.IntN(3) == 0 {
						n = strings.ReplaceAll(n, "a", "a"+strconv.Itoa(rng.IntN(5)))
					}
					segs = append(segs, n)
				}
				rel, isDir := strings.Join(segs, "/"), rng.IntN(2) == 0
				got := l.match(rel, isDir)
				idx := l.index
				l.index = nil
				want := l.match(rel, isDir)
				l.index = idx
				if got != want {
					t.Fatalf("round %d: %q (dir %v): indexed %v, linear %v\nrules:\n%s", round, rel, isDir, got, want, b.String())
				}
			}
		}
	}
}
