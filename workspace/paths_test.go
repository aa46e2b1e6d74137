package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resolveFixture builds root/{a.go, dir/b.go, in -> dir, out -> ../outside,
// abs-out -> <tmp>/outside, dangling-out -> ../nowhere/x, dangling-in ->
// dir/missing, loop -> loop} and outside/secret.
func resolveFixture(t *testing.T) (tmp string, w *Workspace) {
	t.Helper()
	tmp = t.TempDir()
	root := filepath.Join(tmp, "root")
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	os.MkdirAll(filepath.Join(tmp, "outside"), 0o755)
	os.Mkdir(filepath.Join(tmp, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "dir", "b.go"), []byte("package dir\n"), 0o644)
	os.WriteFile(filepath.Join(tmp, "outside", "secret"), []byte("secret\n"), 0o644)
	links := map[string]string{
		"in": "dir", "out": "../outside", "abs-out": filepath.Join(tmp, "outside"),
		"dangling-out": "../nowhere/x", "dangling-in": "dir/missing", "loop": "loop",
		"dir/up": "..", "dir/upup": "../..",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Open(root, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return tmp, w
}

func TestResolve(t *testing.T) {
	tmp, w := resolveFixture(t)
	root := w.Root()
	tests := []struct {
		in      string
		want    string // "" = error wrapping ErrOutsideWorkspace
		wantErr string // substring of the error
	}{
		{"a.go", "a.go", ""},
		{"./a.go", "a.go", ""},
		{"dir//b.go", "dir/b.go", ""},
		{"dir/./b.go", "dir/b.go", ""},
		{"dir/../a.go", "a.go", ""},
		{".", ".", ""},
		{"dir", "dir", ""},
		{root, ".", ""},
		{root + "/", ".", ""},
		{filepath.Join(root, "dir", "b.go"), "dir/b.go", ""},
		{"new/file.go", "new/file.go", ""},       // need not exist
		{"a.go/below", "a.go/below", ""},         // below a file: lexical
		{"in/b.go", "dir/b.go", ""},              // symlink inside: canonical
		{"in", "dir", ""},                        //
		{"dir/up/a.go", "a.go", ""},              // link to the root's own dir
		{"in/../a.go", "a.go", ""},               // ".." after a link applies to the target
		{"dangling-in", "dir/missing", ""},       // dangling link, target inside
		{"../root/a.go", "a.go", ""},             // climbs out and back in
		{"a\\b.go", "a\\b.go", ""},               // a backslash is a name byte on Unix
		{"a:12:3.go", "a:12:3.go", ""},           // a colon is a name byte too; not a drive
		{"..", "", "resolves to"},                //
		{"../outside/secret", "", "resolves to"}, //
		{"dir/../../outside", "", "resolves to"}, //
		{"/etc/passwd", "", "resolves to"},       //
		{filepath.Join(tmp, "outside"), "", "resolves to"},
		{root + "x/a.go", "", "resolves to"}, // a sibling sharing the prefix
		{"out", "", "resolves to"},
		{"out/secret", "", "resolves to"},
		{"abs-out/secret", "", "resolves to"},
		{"dangling-out", "", "resolves to"},
		{"dir/upup/outside/secret", "", "resolves to"},
		{"in/../../outside", "", "resolves to"},
		{"", "", "empty path"},
		{"a.go\x00", "", "NUL"},
		{"\x00", "", "NUL"},
		{"bad\xff.go", "", "UTF-8"},
		{`..\..\etc\passwd`, "", "backslash"},
		{`dir\..\..\x`, "", "backslash"},
		{`C:\Windows\win.ini`, "", "drive"},
		{`c:/x`, "", "drive"},
		{`\\server\share\x`, "", "UNC"},
		{`\\?\C:\x`, "", "UNC"},
		{"loop", "", "too many levels"},
	}
	for _, tt := range tests {
		got, err := w.Resolve(tt.in)
		if tt.wantErr == "" {
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Resolve(%q) = %q, %v; want error containing %q", tt.in, got, err, tt.wantErr)
			continue
		}
		if tt.wantErr != "too many levels" && !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("Resolve(%q) error %v does not wrap ErrOutsideWorkspace", tt.in, err)
		}
	}
}

func TestWindowsPathRules(t *testing.T) {
	bad := []string{"CON", "con.txt", "dir/NUL", "aux.go", "COM1", "lpt9.log", "x.go.", "x.go ", "file.go:stream", "a/b:$DATA", "C:x", `\\srv\share`, "//srv/share"}
	for _, p := range bad {
		if err := checkPathSyntax(p, true); !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("checkPathSyntax(%q, windows) = %v, want ErrOutsideWorkspace", p, err)
		}
	}
	good := []string{"console.go", "dir/auxiliary.go", "COM10", "x.go", `dir\x.go`, "C:/ok.txt", `C:\x`}
	for _, p := range good {
		if err := checkPathSyntax(p, true); err != nil {
			t.Errorf("checkPathSyntax(%q, windows) = %v, want nil", p, err)
		}
	}
	// Device names are ordinary files elsewhere.
	if err := checkPathSyntax("aux.go", false); err != nil {
		t.Errorf("checkPathSyntax(aux.go, unix) = %v", err)
	}
}

func TestAbs(t *testing.T) {
	_, w := resolveFixture(t)
	root := w.Root()
	for rel, want := range map[string]string{
		"a.go": filepath.Join(root, "a.go"), "dir/b.go": filepath.Join(root, "dir", "b.go"),
		".": root, "new.go": filepath.Join(root, "new.go"), "in/b.go": filepath.Join(root, "in", "b.go"),
	} {
		if got, err := w.Abs(rel); err != nil || got != want {
			t.Errorf("Abs(%q) = %q, %v; want %q", rel, got, err, want)
		}
	}
	for _, rel := range []string{"", "..", "../x", "/etc/passwd", "./a.go", "dir/../a.go", "dir//b.go", "a.go/", "out/secret", "abs-out", "x\x00", `..\x`} {
		if got, err := w.Abs(rel); !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("Abs(%q) = %q, %v; want ErrOutsideWorkspace", rel, got, err)
		}
	}
}

func TestIncludedRejectsBadPaths(t *testing.T) {
	_, w := resolveFixture(t)
	for _, rel := range []string{"", "../x", "/abs", "dir/../a.go", "a\x00"} {
		if ok, err := w.Included(rel); ok || !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("Included(%q) = %v, %v; want ErrOutsideWorkspace", rel, ok, err)
		}
	}
	for rel, want := range map[string]bool{"a.go": true, "dir/b.go": true, "in/b.go": false, "out/secret": false, "missing.go": false} {
		if ok, err := w.Included(rel); ok != want || err != nil {
			t.Errorf("Included(%q) = %v, %v; want %v", rel, ok, err, want)
		}
	}
}

func TestReadFile(t *testing.T) {
	_, w := resolveFixture(t)
	if data, err := w.ReadFile("dir/b.go"); err != nil || string(data) != "package dir\n" {
		t.Errorf("ReadFile(dir/b.go) = %q, %v", data, err)
	}
	if data, err := w.ReadFile("in/b.go"); err != nil || string(data) != "package dir\n" {
		t.Errorf("ReadFile(in/b.go) = %q, %v", data, err)
	}
	for _, rel := range []string{"out/secret", "abs-out/secret", "../outside/secret", "dir", "missing"} {
		if data, err := w.ReadFile(rel); err == nil {
			t.Errorf("ReadFile(%q) = %q, want an error", rel, data)
		}
	}
	big := strings.Repeat("x", DefaultMaxFileSize+1)
	os.WriteFile(filepath.Join(w.Root(), "big.txt"), []byte(big), 0o644)
	if _, err := w.ReadFile("big.txt"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile(big.txt) error = %v, want ErrTooLarge", err)
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.go", "../x", "in/../../y", "/etc", `..\x`, "dir/up/up/a", "\x00", "C:x"} {
		f.Add(s)
	}
	tmp := f.TempDir()
	root := filepath.Join(tmp, "root")
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	os.Symlink("..", filepath.Join(root, "dir", "up"))
	os.Symlink("dir", filepath.Join(root, "in"))
	w, err := Open(root, DefaultConfig())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := w.Resolve(p)
		if err != nil {
			return
		}
		if rel != "." && (strings.HasPrefix(rel, "../") || rel == ".." || strings.HasPrefix(rel, "/") || filepath.ToSlash(filepath.Clean(rel)) != rel) {
			t.Fatalf("Resolve(%q) = %q: not a clean path inside the root", p, rel)
		}
		abs, err := w.Abs(rel)
		if err != nil {
			t.Fatalf("Abs(Resolve(%q) = %q): %v", p, rel, err)
		}
		real, err := realpath(abs)
		if err != nil {
			return
		}
		if _, ok := relUnder(w.Root(), real); !ok {
			t.Fatalf("Resolve(%q) = %q, which resolves outside to %s", p, rel, real)
		}
		_ = w.Explain(p)
	})
}
