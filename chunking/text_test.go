package chunking

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// goldenOptions are small enough that the fixtures exercise splitting.
var goldenOptions = Options{MaxTokens: 120, MergeTokens: 40, OverlapLines: 2, WindowLines: 12}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *testutil.Update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatalf("write %s: %v", golden, err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read %s (run with -update to create it): %v", golden, err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s--- want\n%s", golden, got, want)
	}
}

func TestTextGolden(t *testing.T) {
	tests := []struct {
		file, language string
	}{
		{"guide.md", "markdown"},
		{"deploy.yaml", ""},
		{"Cargo.toml", "toml"},
		{"schema.sql", "sql"},
		{"config.json", "json"},
		{"notes.txt", ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			p := filepath.Join("testdata", "text", tc.file)
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("read fixture: %v", err)
			}
			chunks := Text("text/"+tc.file, tc.language, src, goldenOptions)
			checkInvariants(t, src, chunks)
			checkGolden(t, p+".golden", formatChunks(chunks))
		})
	}
}

// TestTextRules pins individual rules with small inputs.
func TestTextRules(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            []string // "kind label" per chunk
	}{
		{
			name: "markdown fence hides headings",
			path: "a.md",
			src:  "# A\n\n```\n# not\n```\n\n## B\ntext\n",
			want: []string{"markdown_section A"},
		},
		{
			name: "markdown unclosed fence runs to the end",
			path: "a.md",
			src:  "intro\n```\n# inside\n## inside\n",
			want: []string{"markdown_section a.md"},
		},
		{
			name: "markdown heading needs a space",
			path: "a.md",
			src:  "#tag\n####### seven\n# Real\nbody\n",
			want: []string{"markdown_section a.md", "markdown_section Real"},
		},
		{
			name: "markdown thematic break is no heading",
			path: "a.md",
			src:  "# T\n\npara\n\n---\n\nmore\n",
			want: []string{"markdown_section T"},
		},
		{
			name: "yaml comments attach to the next key",
			path: "a.yml",
			src:  "a: 1\n\n# about b\nb:\n  c: 2\n",
			want: []string{"yaml_key a", "yaml_key b"},
		},
		{
			name: "toml array of tables",
			path: "a.toml",
			src:  "x = 1\n[[t]]\na = 1\n[[t]]\na = 2\n",
			want: []string{"toml_table a.toml", "toml_table [[t]]", "toml_table [[t]]"},
		},
		{
			name: "sql semicolons in strings comments and dollar bodies",
			path: "a.sql",
			src:  "select ';' -- ;\n/* ; */ from t;\nselect $x$ ; $x$, $1;\nselect \"a;b\";",
			want: []string{"sql_statement select '", "sql_statement select $x$", "sql_statement select \"a"},
		},
		{
			name: "sql trailing comments alone",
			path: "a.sql",
			src:  "select 1;\n-- done\n",
			want: []string{"sql_statement select 1", "sql_statement (comments)"},
		},
		{
			name: "binary yields nothing",
			path: "a.bin",
			src:  "ab\x00cd\n",
			want: nil,
		},
		{
			name: "blank yields nothing",
			path: "a.txt",
			src:  "\n \n\t\n",
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			chunks := Text(tc.path, "", []byte(tc.src), DefaultOptions())
			if len(tc.want) > 0 {
				checkInvariants(t, []byte(tc.src), chunks)
			}
			var got []string
			for _, c := range chunks {
				got = append(got, c.Kind+" "+c.Label)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// textFormats are the paths FuzzText and the property test feed to Text.
var textFormats = []string{"a.md", "a.yaml", "a.toml", "a.sql", "a.json", "a.txt"}

// isBinaryInput reports what Text treats as binary.
func isBinaryInput(src []byte) bool {
	return strings.IndexByte(string(src[:min(len(src), binarySniff)]), 0) >= 0
}

func FuzzText(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "text"))
	if err != nil {
		f.Fatalf("read fixtures: %v", err)
	}
	for i, e := range entries {
		if strings.HasSuffix(e.Name(), ".golden") {
			continue
		}
		src, err := os.ReadFile(filepath.Join("testdata", "text", e.Name()))
		if err != nil {
			f.Fatalf("read fixture: %v", err)
		}
		f.Add(src, uint8(i), uint16(60))
	}
	f.Add([]byte("# a\n```\n# b\n"), uint8(0), uint16(5))
	f.Add([]byte("x = '''\n[a]\n'''\n[b]\n"), uint8(2), uint16(3))
	f.Add([]byte("select $a$ ; $a$; select 'x\\';';\n"), uint8(3), uint16(2))
	f.Add([]byte("\xff\xfe# h\xc3\n\xe2\x82"), uint8(0), uint16(1))
	f.Fuzz(func(t *testing.T, src []byte, format uint8, maxTokens uint16) {
		opts := Options{MaxTokens: int(maxTokens%600) + 1, MergeTokens: 10, OverlapLines: int(format % 4), WindowLines: int(format%7) + 1}
		p := textFormats[int(format)%len(textFormats)]
		chunks := Text(p, "", src, opts)
		if isBinaryInput(src) {
			if len(chunks) != 0 {
				t.Fatalf("binary input gave %d chunks", len(chunks))
			}
			return
		}
		checkInvariants(t, src, chunks)
	})
}

// TestTextRealFiles runs Text over Markdown, YAML, TOML and JSON files found
// in the Go installation, the Python standard library and the module cache,
// checks the invariants and reports chunks above MaxTokens (allowed only for
// a fenced code block, an SQL statement without a line to cut at, a line
// window that holds one unit).
func TestTextRealFiles(t *testing.T) {
	roots := []string{goStdlib(t), pyStdlib(t), filepath.Join(os.Getenv("HOME"), "go", "pkg", "mod")}
	var files []string
	for _, r := range roots {
		if _, err := os.Stat(r); err == nil {
			files = append(files, every(listFiles(t, r, ".md", ".yaml", ".yml", ".toml", ".json"), 5, 0)...)
		}
	}
	if len(files) == 0 {
		t.Skip("no Markdown, YAML, TOML or JSON files found")
	}
	opts := DefaultOptions()
	nChunks, oversized := 0, 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		chunks := Text(p, "", src, opts)
		nChunks += len(chunks)
		if isBinaryInput(src) {
			continue
		}
		for _, e := range invariantErrors(src, chunks) {
			t.Errorf("%s: %s", p, e)
		}
		for _, c := range chunks {
			if c.Tokens > opts.MaxTokens {
				oversized++
				first, _, _ := strings.Cut(c.Text, "\n")
				if _, n, _ := fenceMarker([]byte(first)); textFormat("", p) != formatMarkdown || n == 0 {
					t.Errorf("%s: chunk %q has %d tokens, above %d, and is no fenced code block", p, c.Label, c.Tokens, opts.MaxTokens)
				}
			}
		}
	}
	t.Logf("%d files, %d chunks, %d above MaxTokens (fenced code blocks kept whole)", len(files), nChunks, oversized)
}
