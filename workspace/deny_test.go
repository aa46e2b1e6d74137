package workspace

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/context-ls/context-ls/internal/testutil"
)

// setSiblings answers siblings from a fixed set of names.
type setSiblings []string

func (s setSiblings) has(name string) bool {
	for _, n := range s {
		if n == name {
			return true
		}
	}
	return false
}

func TestDenied(t *testing.T) {
	tests := []struct {
		name  string
		isDir bool
		sib   setSiblings
		want  string // "" = not denied
	}{
		{".git", true, nil, ".git/ (version control)"},
		{".git", false, nil, ".git (version control)"},
		{"node_modules", true, nil, "node_modules/ (dependencies)"},
		{"node_modules", false, nil, ""}, // a file of that name is not a directory
		{"vendor", true, nil, "vendor/ (dependencies)"},
		{"__pycache__", true, nil, "__pycache__/ (bytecode cache)"},
		{".venv", true, nil, ".venv/ (virtualenv)"},
		{"target", true, setSiblings{"Cargo.toml"}, "target/ beside Cargo.toml (build output)"},
		{"target", true, setSiblings{"pom.xml"}, "target/ beside pom.xml (build output)"},
		{"target", true, nil, ""},
		{"dist", true, setSiblings{"package.json"}, "dist/ beside package.json (build output)"},
		{"dist", true, setSiblings{"main.go"}, ""}, // Go's cmd/dist
		{"build", true, nil, ""},                   // Go's go/build
		{"build", true, setSiblings{"setup.py"}, "build/ beside setup.py (build output)"},
		{"bin", true, nil, ""},
		{"testdata", true, nil, ""},
		{"go.sum", false, nil, "go.sum (lock file)"},
		{"package-lock.json", false, nil, "package-lock.json (lock file)"},
		{"Cargo.lock", false, nil, "Cargo.lock (lock file)"},
		{"uv.lock", false, nil, "uv.lock (lock file)"},
		{"go.mod", false, nil, ""},
		{"app.min.js", false, nil, "*.min.js (minified)"},
		{"APP.MIN.CSS", false, nil, "*.min.css (minified)"},
		{"app.js.map", false, nil, "*.map (source map)"},
		{"app.js", false, nil, ""},
		{"logo.PNG", false, nil, "*.png (image)"},
		{"font.woff2", false, nil, "*.woff2 (font)"},
		{"clip.mp4", false, nil, "*.mp4 (media)"},
		{"src.tar.gz", false, nil, "*.gz (archive)"},
		{"lib.so", false, nil, "*.so (compiled)"},
		{"Main.class", false, nil, "*.class (compiled)"},
		{"mod.pyc", false, nil, "*.pyc (compiled)"},
		{"x.wasm", false, nil, "*.wasm (compiled)"},
		{"data.sqlite3", false, nil, "*.sqlite3 (database)"},
		{"server.pem", false, nil, "*.pem (secrets)"},
		{".env", false, nil, ".env (secrets)"},
		{".env.production", false, nil, ".env.* (secrets)"},
		{".env.example", false, nil, ""},
		{"id_ed25519", false, nil, "id_ed25519 (secrets)"},
		{".DS_Store", false, nil, ".DS_Store (OS metadata)"},
		{"Makefile", false, nil, ""},
		{".png", false, nil, ""}, // a dotfile, not an extension
	}
	for _, tt := range tests {
		if got := denied(tt.name, tt.isDir, tt.sib); got != tt.want {
			t.Errorf("denied(%q, dir=%v, %v) = %q, want %q", tt.name, tt.isDir, tt.sib, got, tt.want)
		}
	}
}

func TestExtGroupsDisjoint(t *testing.T) {
	seen := map[string]string{}
	for _, g := range extGroups {
		for _, e := range strings.Fields(g.exts) {
			if prev, ok := seen[e]; ok {
				t.Errorf("extension %s is in groups %s and %s", e, prev, g.why)
			}
			if e != strings.ToLower(e) || !strings.HasPrefix(e, ".") {
				t.Errorf("extension %q must be lower case with a leading dot", e)
			}
			seen[e] = g.why
		}
	}
}

func TestIsBinary(t *testing.T) {
	tests := []struct {
		name string
		head []byte
		want bool
	}{
		{"empty", nil, false},
		{"ascii", []byte("package main\n\nfunc main() {}\n"), false},
		{"utf8", []byte("// Größe: 名前 — ünïcödé\n"), false},
		{"bom", []byte("\xef\xbb\xbfhello\n"), false},
		{"tabs crlf ff esc", []byte("a\tb\r\n\f\x1b[31mred\x1b[0m\n"), false},
		{"nul", []byte("abc\x00def"), true},
		{"utf16le", []byte("\xff\xfeh\x00i\x00"), true},
		{"png header", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), true},
		{"control heavy", bytes.Repeat([]byte("\x01\x02a"), 100), true},
		{"some control", append(bytes.Repeat([]byte("text "), 100), 0x01, 0x02), false},
		{"latin1 sprinkle", []byte(strings.Repeat("caf\xe9 au lait is nice to drink. ", 10)), false},
		{"latin1 dense", bytes.Repeat([]byte("\xe9\xe8a"), 100), true},
		{"cut rune at end", append(bytes.Repeat([]byte("x"), 100), 0xe5, 0x90), false},
		{"one invalid byte in 100", append(bytes.Repeat([]byte("x"), 99), 0xff), false},
		{"one invalid byte in 10", append(bytes.Repeat([]byte("x"), 9), 0xff), true},
		{"random bytes", func() []byte {
			b := make([]byte, 4096)
			x := uint32(1)
			for i := range b {
				x = x*1664525 + 1013904223
				b[i] = byte(x>>24) | 1 // no NUL
			}
			return b
		}(), true},
	}
	for _, tt := range tests {
		if got := IsBinary(tt.head); got != tt.want {
			_, why := classifyHead(tt.head)
			t.Errorf("%s: IsBinary = %v (%s), want %v", tt.name, got, why, tt.want)
		}
	}
}

func TestMinified(t *testing.T) {
	long := bytes.Repeat([]byte("var a=1;"), 500)                       // 4000 bytes, one line
	normal := bytes.Repeat([]byte("  const x = compute(a, b);\n"), 200) // 27-byte lines
	tests := []struct {
		name       string
		head, tail []byte
		want       bool
	}{
		{"bundle.js", long, nil, true},
		{"bundle.mjs", long, nil, true},
		{"style.css", long, nil, true},
		{"app.js", normal, nil, false},
		{"app.js", normal, normal, false},
		{"bundle.js", normal, long, true},       // a readable prelude, then the bundle
		{"small.js", long[:900], nil, false},    // under 1 KiB: never minified
		{"small.js", normal, long[:900], false}, // a long last line under 1 KiB
		{"data.json", long, nil, false},         // not a .js/.css file
		{"main.go", long, long, false},
	}
	for _, tt := range tests {
		if _, got := minified(tt.name, tt.head, tt.tail); got != tt.want {
			t.Errorf("minified(%s, %d+%d bytes) = %v, want %v", tt.name, len(tt.head), len(tt.tail), got, tt.want)
		}
	}
}

// TestMinifiedBundleAfterAPrelude: a bundle whose first 8 KiB are a
// licence header and short lines (issue 29's reproduction) is excluded as
// minified by Walk, files --why and the buffer check alike; a user rule
// naming it includes it.
func TestMinifiedBundleAfterAPrelude(t *testing.T) {
	bundle := testutil.Bundle(200, 190_000)
	files := map[string]string{"s.js": bundle, "keep/s.js": bundle, "ok.js": bundle[:20000], ".contextignore": "!keep/s.js\n"}
	root := testutil.WriteTree(t, files)
	w, err := Open(root, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := w.Walk(context.Background(), func(fi FileInfo) error { got = append(got, fi.Rel); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := ".contextignore keep/s.js ok.js"; strings.Join(got, " ") != want {
		t.Errorf("walk = %v, want %s", got, want)
	}
	for rel, source := range map[string]string{"s.js": SourceMinified, "keep/s.js": "", "ok.js": ""} {
		d := w.Explain(rel)
		if d.Included != (source == "") || (source != "" && d.Source != source) {
			t.Errorf("Explain(%s) = %+v, want source %q", rel, d, source)
		}
		if _, s := JudgeContent(d, []byte(files[rel])); s != source {
			t.Errorf("JudgeContent(%s) = %q, want %q", rel, s, source)
		}
	}
}

func FuzzIsBinary(f *testing.F) {
	f.Add([]byte("package x\n"))
	f.Add([]byte("\x00\x01"))
	f.Add([]byte("caf\xe9"))
	f.Fuzz(func(t *testing.T, head []byte) {
		bin, why := classifyHead(head)
		if bin && why == "" {
			t.Fatalf("binary without a reason")
		}
		if bytes.IndexByte(head, 0) >= 0 && !bin {
			t.Fatalf("NUL byte classified as text")
		}
		// Valid UTF-8 made of printable text and common whitespace is text.
		if utf8.Valid(head) && !bin {
			return
		}
		if utf8.Valid(head) {
			clean := true
			for _, c := range head {
				if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
					clean = false
				}
			}
			if clean {
				t.Fatalf("clean UTF-8 text classified binary: %s", why)
			}
		}
	})
}

// textExts are extensions of files that are text in the Go and Python
// standard libraries.
var textExts = map[string]bool{
	".go": true, ".s": true, ".c": true, ".h": true, ".py": true, ".txt": true, ".md": true,
	".json": true, ".html": true, ".js": true, ".css": true, ".xml": true, ".toml": true,
	".sh": true, ".bash": true, ".bat": true, ".rst": true, ".cfg": true, ".ini": true,
	".mod": true, ".tmpl": true, ".csv": true, ".yaml": true, ".yml": true, ".svg": true,
	".pem": true, ".proto": true, ".pyi": true,
}

// binaryExts are extensions of files that are binary in those libraries.
var binaryExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".zip": true, ".gz": true,
	".pyc": true, ".so": true, ".o": true, ".a": true, ".wasm": true,
	".whl": true, ".bz2": true, ".zst": true, ".ico": true, ".exe": true, ".tar": true,
}

// knownNonUTF8 are stdlib text files deliberately stored in other encodings
// (legacy CJK and Cyrillic code pages, UTF-16, invalid UTF-8 fixtures):
// IsBinary rejects them because the indexer needs UTF-8.
var knownNonUTF8 = []string{
	"test/cjkencodings/", "test/encoded_modules/module_koi8_r.py",
	"test/tokenizedata/badsyntax_pep3120.py", "test/badsyntax_pep3120.py",
	"utf-16.file", "utf-16le", "utf-16be", "utf16",
}

// TestIsBinaryStdlibs classifies every file of the Go standard library and,
// when python3 is installed, of the Python standard library (without
// site-packages): files with text extensions must be text, files with
// binary extensions binary.
func TestIsBinaryStdlibs(t *testing.T) {
	roots := []string{goSrc(t)}
	if py, err := exec.LookPath("python3"); err == nil {
		out, err := exec.Command(py, "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
		if err == nil {
			roots = append(roots, strings.TrimSpace(string(out)))
		}
	} else {
		t.Log("python3 not found: checking the Go standard library only")
	}
	buf := make([]byte, headSize)
	for _, root := range roots {
		if _, err := os.Stat(root); err != nil {
			t.Logf("skipping %s: %v", root, err)
			continue
		}
		var total, text, binary int
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && d.Name() == "site-packages" {
				return filepath.SkipDir
			}
			if !d.Type().IsRegular() {
				return nil
			}
			n, err := readHead(p, buf)
			if err != nil {
				return nil
			}
			total++
			rel := filepath.ToSlash(p[len(root)+1:])
			bin, why := classifyHead(buf[:n])
			if bin {
				binary++
			} else {
				text++
			}
			ext := strings.ToLower(filepath.Ext(p))
			switch {
			case textExts[ext] && bin && !knownEncoded(rel):
				t.Errorf("%s: text file classified binary: %s", p, why)
			case binaryExts[ext] && !bin:
				t.Errorf("%s: binary file classified text", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d files, %d text, %d binary", root, total, text, binary)
	}
}

func knownEncoded(rel string) bool {
	for _, k := range knownNonUTF8 {
		if strings.Contains(rel, k) {
			return true
		}
	}
	return false
}
