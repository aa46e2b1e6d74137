package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// The built-in denylist: names that are never source code a reader wants in
// context. Every entry says why it is here. It can be overridden by a
// negation in a .contextignore file or in Config.Ignore (see the package
// documentation), never by a .gitignore negation.

// deniedDirs are directory names denied wherever they appear.
var deniedDirs = map[string]string{
	// version control metadata
	".git": "version control", ".hg": "version control", ".svn": "version control",
	".bzr": "version control", ".jj": "version control", "_darcs": "version control",
	// dependency trees installed by package managers
	"node_modules": "dependencies", "bower_components": "dependencies", "vendor": "dependencies",
	".pnpm-store": "dependencies", "jspm_packages": "dependencies", "elm-stuff": "dependencies",
	// virtual environments and tool caches
	".venv": "virtualenv", "venv": "virtualenv", ".tox": "tool cache", ".nox": "tool cache",
	"__pycache__": "bytecode cache", ".mypy_cache": "tool cache", ".pytest_cache": "tool cache",
	".ruff_cache": "tool cache", ".hypothesis": "tool cache", ".eggs": "build output",
	".gradle": "tool cache", ".cache": "tool cache", ".parcel-cache": "tool cache",
	".turbo": "tool cache", ".nyc_output": "coverage output", "htmlcov": "coverage output",
	".terraform": "dependencies", ".direnv": "tool cache", ".stack-work": "build output",
	".dart_tool": "tool cache", ".zig-cache": "build output", "zig-cache": "build output",
	"zig-out": "build output",
	// editor and IDE state
	".idea": "IDE state", ".vs": "IDE state",
	// framework build output
	".next": "build output", ".nuxt": "build output", ".svelte-kit": "build output",
	".angular": "build output", ".docusaurus": "build output", ".expo": "build output",
	// context-ls's own index directory when kept inside the workspace
	".context-ls": "index directory",
}

// conditionalDirs are directory names denied only when one of the listed
// marker files sits beside them, because the names are also ordinary source
// directories elsewhere (Go's cmd/dist, go/build; a "build" package in Java).
var conditionalDirs = map[string][]string{
	"target": {"Cargo.toml", "pom.xml", "build.sbt"},                                          // Cargo, Maven, sbt output
	"dist":   {"package.json", "pyproject.toml", "setup.py", "setup.cfg"},                     // npm bundles, Python sdists/wheels
	"build":  {"pyproject.toml", "setup.py", "setup.cfg", "build.gradle", "build.gradle.kts"}, // Python and Gradle output
	"_build": {"mix.exs", "dune-project", "conf.py"},                                          // Elixir, OCaml dune, Sphinx output
}

// deniedFiles are exact file names denied wherever they appear.
var deniedFiles = map[string]string{
	// lock files: generated, huge, no meaning for a reader
	"package-lock.json": "lock file", "npm-shrinkwrap.json": "lock file", "yarn.lock": "lock file",
	"pnpm-lock.yaml": "lock file", "bun.lock": "lock file", "bun.lockb": "lock file",
	"Cargo.lock": "lock file", "go.sum": "lock file", "go.work.sum": "lock file",
	"poetry.lock": "lock file", "Pipfile.lock": "lock file", "uv.lock": "lock file", "pdm.lock": "lock file",
	"Gemfile.lock": "lock file", "composer.lock": "lock file", "mix.lock": "lock file",
	"pubspec.lock": "lock file", "Podfile.lock": "lock file", "packages.lock.json": "lock file",
	"flake.lock": "lock file", "deno.lock": "lock file", "Package.resolved": "lock file",
	"gradle.lockfile": "lock file",
	// operating system litter
	".DS_Store": "OS metadata", "Thumbs.db": "OS metadata", "desktop.ini": "OS metadata",
	// credentials: never hand them to a model
	".env": "secrets", ".netrc": "secrets", ".pgpass": "secrets", "id_rsa": "secrets",
	"id_dsa": "secrets", "id_ecdsa": "secrets", "id_ed25519": "secrets",
}

// deniedSuffixes are name endings (compared case-insensitively) denied
// wherever they appear.
var deniedSuffixes = []struct{ suffix, why string }{
	{".min.js", "minified"}, {".min.mjs", "minified"}, {".min.css", "minified"}, {".map", "source map"},
}

// deniedExts are extensions (lower case, with the dot) of files that are not
// text a reader wants: images, fonts, media, archives, compiled artefacts,
// databases, office documents, key material.
var deniedExts = map[string]string{}

// extGroups lists deniedExts by reason; an extension appears in one group.
var extGroups = []struct{ why, exts string }{
	{"image", ".png .jpg .jpeg .gif .bmp .ico .icns .webp .tif .tiff .psd .heic .heif .avif .svg .xcf"},
	{"font", ".ttf .otf .woff .woff2 .eot .pfb"},
	{"media", ".mp3 .wav .ogg .oga .flac .aac .m4a .opus .mid .midi .mp4 .m4v .mov .avi .mkv .webm .wmv .flv .mpg .mpeg"},
	{"archive", ".zip .tar .gz .tgz .bz2 .tbz2 .xz .txz .zst .lz4 .lzma .7z .rar .jar .war .ear .whl .egg .apk .aar .deb .rpm .dmg .iso .cab .crx .xpi .nupkg"},
	{"compiled", ".o .obj .a .lib .so .dylib .dll .exe .class .pyc .pyo .pyd .wasm .ko .elf .pdb .idb .ilk .beam .rlib .rmeta"},
	{"database", ".db .sqlite .sqlite3 .db3 .mdb .accdb .ibd .realm"},
	{"document", ".pdf .doc .docx .xls .xlsx .ppt .pptx .odt .ods .odp .numbers .pages"},
	{"secrets", ".pem .key .p12 .pfx .jks .keystore"},
}

func init() {
	for _, g := range extGroups {
		for _, e := range strings.Fields(g.exts) {
			deniedExts[e] = g.why
		}
	}
}

// siblings answers whether a name exists in a directory; the walker answers
// from its directory listing, Explain from the file system.
type siblings interface {
	has(name string) bool
}

// denied applies the built-in denylist to one entry of a directory. It
// returns the rule (as shown in Decision.Rule) or "".
func denied(name string, isDir bool, sib siblings) string {
	if isDir {
		if why, ok := deniedDirs[name]; ok {
			return name + "/ (" + why + ")"
		}
		if markers, ok := conditionalDirs[name]; ok {
			for _, m := range markers {
				if sib.has(m) {
					return name + "/ beside " + m + " (build output)"
				}
			}
		}
		return ""
	}
	if why, ok := deniedFiles[name]; ok {
		return name + " (" + why + ")"
	}
	if name == ".git" { // a worktree or submodule link file
		return ".git (version control)"
	}
	if strings.HasPrefix(name, ".env.") && !envTemplate(name) {
		return ".env.* (secrets)"
	}
	lower := strings.ToLower(name)
	for _, s := range deniedSuffixes {
		if strings.HasSuffix(lower, s.suffix) {
			return "*" + s.suffix + " (" + s.why + ")"
		}
	}
	if i := strings.LastIndexByte(lower, '.'); i > 0 {
		if why, ok := deniedExts[lower[i:]]; ok {
			return "*" + lower[i:] + " (" + why + ")"
		}
	}
	return ""
}

// envTemplate reports whether a ".env.*" name is a committed template
// without real values.
func envTemplate(name string) bool {
	switch strings.TrimPrefix(name, ".env.") {
	case "example", "sample", "template", "dist", "defaults":
		return true
	}
	return false
}

// readHead reads up to len(buf) bytes from the start of the file. Sizing
// buf to the file saves the read that would only report the end.
func readHead(abs string, buf []byte) (int, error) {
	f, err := os.Open(abs)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return n, err
}

// shebangLine returns the first line of head when it starts with "#!"
// (after a byte-order mark), at most 256 bytes of it.
func shebangLine(head []byte) string {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return string(head[:min(len(head), 256)])
}

// headSize is how much of a file the content checks read from its start
// (and, for the minified check, from its end).
const headSize = 8 << 10

// newContentBuf returns the buffer judge reads a file's first and last
// bytes into.
func newContentBuf() []byte { return make([]byte, 2*headSize) }

// IsBinary reports whether the first bytes of a file (up to 8 KiB) look like
// binary data rather than UTF-8 text: a NUL byte, more than 30% control or
// invalid bytes, or more than 5% bytes that are not valid UTF-8. An
// incomplete UTF-8 sequence cut off at the end of head is not counted.
// UTF-16 text contains NUL bytes and is therefore binary here.
func IsBinary(head []byte) bool {
	binary, _ := classifyHead(head)
	return binary
}

// classifyHead is IsBinary with a reason for Decision.Rule.
func classifyHead(head []byte) (bool, string) {
	if len(head) == 0 {
		return false, ""
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return true, fmt.Sprintf("NUL byte at offset %d", i)
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	var control, invalid int
	for i := 0; i < len(head); {
		c := head[i]
		if c < utf8.RuneSelf {
			control += int(asciiControl[c])
			i++
			continue
		}
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 {
			if !utf8.FullRune(head[i:]) {
				break // a sequence cut off by the 8 KiB limit
			}
			invalid++
		}
		i += n
	}
	if len(head) == 0 {
		return false, ""
	}
	if invalid*100 > len(head)*5 {
		return true, fmt.Sprintf("not UTF-8 text: %d%% of the first %d bytes are invalid UTF-8", invalid*100/len(head), len(head))
	}
	if bad := control + invalid; bad*100 > len(head)*30 {
		return true, fmt.Sprintf("%d%% of the first %d bytes are control characters or invalid UTF-8", bad*100/len(head), len(head))
	}
	return false, ""
}

// asciiControl is 1 for the ASCII bytes that do not occur in text: control
// characters other than tab, newline, vertical tab, form feed, carriage
// return, backspace and escape (terminal colours in logs and golden
// files), and DEL.
var asciiControl = func() (t [utf8.RuneSelf]uint8) {
	for c := range 0x20 {
		t[c] = 1
	}
	for _, c := range []byte{'\t', '\n', '\v', '\f', '\r', '\b', 0x1b} {
		t[c] = 0
	}
	t[0x7f] = 1
	return t
}()

// minifiedExts are the extensions the average-line-length heuristic applies to.
var minifiedExts = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".css": true}

// minifiable reports whether the minified check applies to a file name.
func minifiable(name string) bool {
	i := strings.LastIndexByte(name, '.')
	return i >= 0 && minifiedExts[strings.ToLower(name[i:])]
}

// minifiedLineLength is the average line length, in bytes, above which a
// JavaScript or CSS file is taken to be minified or bundled.
const minifiedLineLength = 300

// minified reports whether a .js/.css file looks minified from its first
// and last bytes (head and tail, up to 8 KiB each; tail is empty when the
// file is no longer than head): the average line length of either exceeds
// minifiedLineLength. Both ends are read because a bundle often starts
// with a licence header and a readable prelude before its minified body.
// Parts under 1 KiB are never minified: they cost nothing to index.
func minified(name string, head, tail []byte) (string, bool) {
	if !minifiable(name) {
		return "", false
	}
	for _, part := range []struct {
		what  string
		bytes []byte
	}{{"first", head}, {"last", tail}} {
		b := part.bytes
		if len(b) < 1024 {
			continue
		}
		lines := bytes.Count(b, []byte{'\n'})
		if b[len(b)-1] != '\n' {
			lines++
		}
		if avg := len(b) / lines; avg > minifiedLineLength {
			return fmt.Sprintf("average line length of the %s %d bytes %d > %d", part.what, len(b), avg, minifiedLineLength), true
		}
	}
	return "", false
}

// readTail reads the last len(buf) bytes of abs, or fewer after skip bytes
// (the head already read), into buf.
func readTail(abs string, size, skip int64, buf []byte) (int, error) {
	n := min(int64(len(buf)), size-skip)
	if n <= 0 {
		return 0, nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	got, err := f.ReadAt(buf[:n], size-n)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return got, err
}

// contentRules applies the content checks to a file's first and last
// bytes: binary content (never overridden), then minified code unless
// explicit (a user rule named the file). It returns the exclusion's
// rule and source, or "" and "".
func contentRules(name string, head, tail []byte, explicit bool) (rule, source string) {
	if bin, why := classifyHead(head); bin {
		return why, SourceBinary
	}
	if !explicit {
		if why, ok := minified(name, head, tail); ok {
			return why, SourceMinified
		}
	}
	return "", ""
}
