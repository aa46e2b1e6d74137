package engine

import "testing"

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		glob, path string
		want       bool
	}{
		{"*.md", "docs/guide/intro.md", true},
		{"*.md", "main.go", false},
		{"docs/", "docs/a/b.md", true},
		{"docs/", "src/docs.go", false},
		{"net/**/*.go", "net/http/fs.go", true},
		{"net/**/*.go", "net/url.go", true},
		{"net/**/*.go", "netx/url.go", false},
		{"**/*_test.go", "a/b/c_test.go", true},
		{"**/*_test.go", "c_test.go", true},
		{"src/*.go", "src/a/b.go", false},
		{"/src/*.go", "src/b.go", true},
	}
	for _, c := range cases {
		if got := matchGlob(c.glob, c.path); got != c.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
}

func TestMatchPaths(t *testing.T) {
	noTests := []string{"!**/*_test.go"}
	if !matchPaths(noTests, "a/b.go") || matchPaths(noTests, "a/b_test.go") {
		t.Fatal("exclude glob")
	}
	docs := []string{"*.md", "!CHANGELOG.md"}
	if !matchPaths(docs, "README.md") || matchPaths(docs, "CHANGELOG.md") || matchPaths(docs, "x.go") {
		t.Fatal("include + exclude")
	}
	if !matchPaths(nil, "anything") {
		t.Fatal("no globs must match everything")
	}
	if err := validGlobs([]string{"[a-"}); err == nil {
		t.Fatal("malformed glob accepted")
	}
}

func TestSpelledNames(t *testing.T) {
	got := spelledNames("read an entire file")
	want := []spelledName{{"readentirefile", 3}, {"readentire", 2}, {"entirefile", 2}, {"readfile", 2}}
	if len(got) != len(want) {
		t.Fatalf("spelledNames = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("spelledNames = %v, want %v", got, want)
		}
	}
	if got := spelledNames("the"); len(got) != 0 {
		t.Fatalf("stop words only: %v", got)
	}
}
