package session

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// parsed is DefaultSettings with a settings payload applied.
func parsed(t *testing.T, payload string) Settings {
	t.Helper()
	s, issues := ParseSettings(DefaultSettings(), []byte(payload))
	if len(issues) > 0 {
		t.Fatalf("settings %s: %v", payload, issues)
	}
	return s
}

func TestFolderConfig(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".context-ls.toml", "ignore = [\"vendor/\"]\nmaxFileSize = \"2MiB\"\nbogus = 1\n")
	tests := []struct {
		name      string
		settings  Settings
		env       string
		ignore    []string
		maxSize   int64
		embed     bool
		problemIn string
	}{
		{"defaults keep the file's values", DefaultSettings(), "", []string{"vendor/"}, 2 << 20, true, "bogus"},
		{"settings add patterns and override", parsed(t, `{"ignore": ["gen/"], "maxFileSize": 4096, "embeddings": false}`),
			"", []string{"vendor/", "gen/"}, 4096, false, ""},
		{"a setting sent as null is unset: the file's value applies", parsed(t, `{"maxFileSize": null}`),
			"", []string{"vendor/"}, 2 << 20, true, ""},
		{"a setting equal to the default still overrides the file", parsed(t, `{"maxFileSize": 1048576}`),
			"", []string{"vendor/"}, 1 << 20, true, ""},
		{"environment turns embeddings off", DefaultSettings(), "off", []string{"vendor/"}, 2 << 20, false, ""},
		{"bad settings are reported", parsed(t, `{"ignore": [" "]}`), "", []string{"vendor/"}, 2 << 20, true, "settings: ignore"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONTEXT_LS_EMBEDDINGS", tc.env)
			cfg, problems, err := folderConfig(root, tc.settings)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Ignore, tc.ignore) || cfg.MaxFileSize != tc.maxSize || cfg.Embeddings != tc.embed {
				t.Errorf("config ignore %v size %d embeddings %v", cfg.Ignore, cfg.MaxFileSize, cfg.Embeddings)
			}
			if tc.problemIn != "" && !strings.Contains(strings.Join(problems, "\n"), tc.problemIn) {
				t.Errorf("problems %v lack %q", problems, tc.problemIn)
			}
		})
	}
	// An unreadable configuration is an error.
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, ".context-ls.toml"), 0o755))
	if _, _, err := folderConfig(dir, DefaultSettings()); err == nil {
		t.Error("a directory as configuration file was accepted")
	}
}

func TestDBDirFor(t *testing.T) {
	b := New(Options{DBPath: "/var/idx"})
	s := DefaultSettings()
	a1, a2 := b.dbDirFor("/w/a", s, ""), b.dbDirFor("/x/a", s, "")
	if !strings.HasPrefix(a1, "/var/idx/a-") || a1 == a2 || a1 != b.dbDirFor("/w/a", s, "") {
		t.Errorf("dirs %s %s", a1, a2)
	}
	s.DBPath = ".cache/idx"
	if got := b.dbDirFor("/w/a", s, ""); !strings.HasPrefix(got, "/w/a/.cache/idx/a-") {
		t.Errorf("relative dbPath: %s", got)
	}
	if got := New(Options{}).dbDirFor("/w/a", DefaultSettings(), ""); got != "" {
		t.Errorf("no dbPath: %q", got)
	}
	// The workspace file's dbPath comes last.
	if got := New(Options{}).dbDirFor("/w/a", DefaultSettings(), ".idx"); !strings.HasPrefix(got, "/w/a/.idx/a-") {
		t.Errorf(".context-ls.toml dbPath: %s", got)
	}
	if got := b.dbDirFor("/w/a", DefaultSettings(), ".idx"); !strings.HasPrefix(got, "/var/idx/a-") {
		t.Errorf("serve --db before the file's dbPath: %s", got)
	}
}
