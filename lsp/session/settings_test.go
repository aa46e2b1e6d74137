package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// parsedOver applies a settings payload to base.
func parsedOver(t *testing.T, base Settings, payload string) Settings {
	t.Helper()
	s, issues := ParseSettings(base, []byte(payload))
	if len(issues) > 0 {
		t.Fatalf("settings %s: %v", payload, issues)
	}
	return s
}

// TestParseSettingsGolden parses each testdata/settings/*.json over a base
// with non-default values and compares settings and issues with the golden
// file beside it.
func TestParseSettingsGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "settings", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	base := DefaultSettings()
	base.DBPath = "/base/index"
	base.Ignore = []string{"base/"}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got, issues := ParseSettings(base, raw)
			out, err := json.MarshalIndent(struct {
				Settings Settings        `json:"settings"`
				Issues   []SettingsIssue `json:"issues"`
			}{got, issues}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", "settings", name+".golden"), append(out, '\n'))
		})
	}
}

func TestApplyEnv(t *testing.T) {
	tests := []struct {
		env  string
		want bool
	}{{"off", false}, {"OFF", false}, {"0", false}, {"false", false}, {"on", true}, {"", true}}
	for _, tc := range tests {
		t.Setenv("CONTEXT_LS_EMBEDDINGS", tc.env)
		s := DefaultSettings()
		if got := ApplyEnv(s).Embeddings; got != tc.want {
			t.Errorf("CONTEXT_LS_EMBEDDINGS=%q: embeddings %v, want %v", tc.env, got, tc.want)
		}
	}
}

func FuzzParseSettings(f *testing.F) {
	entries, _ := filepath.Glob(filepath.Join("testdata", "settings", "*.json"))
	for _, e := range entries {
		if b, err := os.ReadFile(e); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, issues := ParseSettings(DefaultSettings(), raw)
		for _, is := range issues {
			if is.Message == "" {
				t.Fatalf("issue without message: %+v", is)
			}
		}
		if s.LogLevel != LogError && s.LogLevel != LogWarn && s.LogLevel != LogInfo && s.LogLevel != LogDebug {
			t.Fatalf("invalid log level %q", s.LogLevel)
		}
		if s.MaxFileSize <= 0 || s.BudgetTokens <= 0 {
			t.Fatalf("non-positive limits: %+v", s)
		}
	})
}

func TestSettingsEqual(t *testing.T) {
	a := DefaultSettings()
	a.Ignore = []string{"x", "y"}
	tests := []struct {
		name   string
		change func(*Settings)
		equal  bool
	}{
		{"same", func(*Settings) {}, true},
		{"dbPath", func(s *Settings) { s.DBPath = "/d" }, false},
		{"ignore order", func(s *Settings) { s.Ignore = []string{"y", "x"} }, false},
		{"ignore length", func(s *Settings) { s.Ignore = []string{"x"} }, false},
		{"embeddings", func(s *Settings) { s.Embeddings = !s.Embeddings }, false},
		{"logLevel", func(s *Settings) { s.LogLevel = LogDebug }, false},
		{"a key set to its default", func(s *Settings) { *s = parsedOver(t, *s, `{"embeddings": true}`) }, false},
	}
	for _, tc := range tests {
		b := a
		b.Ignore = append([]string(nil), a.Ignore...)
		tc.change(&b)
		if got := a.Equal(b); got != tc.equal {
			t.Errorf("%s: Equal = %v", tc.name, got)
		}
	}
}
