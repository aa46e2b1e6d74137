package workspace

import (
	"errors"
	"runtime"
	"testing"
)

func TestURIToPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	tests := []struct {
		uri, path string
		ok        bool
	}{
		{"file:///home/u/a.go", "/home/u/a.go", true},
		{"file:///home/u/a%20b.go", "/home/u/a b.go", true},
		{"file://localhost/x/y", "/x/y", true},
		{"FILE:///x/../y", "/y", true},
		{"file:///%E2%82%AC.go", "/€.go", true},
		{"untitled:Untitled-1", "", false},
		{"https://example.com/a.go", "", false},
		{"file://server/share/a.go", "", false},
		{"file:relative/a.go", "", false},
		{"", "", false},
		{"file:///a%00b", "", false},
		{"%zz", "", false},
	}
	for _, tc := range tests {
		got, err := URIToPath(tc.uri)
		if (err == nil) != tc.ok || got != tc.path {
			t.Errorf("URIToPath(%q) = %q, %v; want %q ok=%v", tc.uri, got, err, tc.path, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrUnsupportedURI) {
			t.Errorf("URIToPath(%q): %v is not ErrUnsupportedURI", tc.uri, err)
		}
	}
	for _, p := range []string{"/a/b c/ü€😀.go", "/x#y?z.go", "/"} {
		back, err := URIToPath(PathToURI(p))
		if err != nil || back != p {
			t.Errorf("round trip %q → %q → %q, %v", p, PathToURI(p), back, err)
		}
	}
}
