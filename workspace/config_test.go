package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// TestConfigGolden parses each testdata/config/*.toml and compares the
// diagnostics and the resulting configuration with its .golden file.
func TestConfigGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "config", "*.toml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no config fixtures: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cfg, diags := ParseConfig(data)
			var b strings.Builder
			b.WriteString("== diagnostics\n")
			for _, d := range diags {
				b.WriteString(d.String() + "\n")
			}
			b.WriteString("== config\n")
			js, err := json.MarshalIndent(configView(cfg), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			b.Write(js)
			b.WriteString("\n")
			golden := strings.TrimSuffix(path, ".toml") + ".golden"
			if *testutil.Update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if b.String() != string(want) {
				t.Errorf("output differs from %s (run with -update):\n%s", golden, lineDiff(string(want), b.String()))
			}
		})
	}
}

// configView is Config without its function field, for JSON.
func configView(c Config) any {
	c.OnSkip = nil
	type plain Config
	v := struct {
		plain
		OnSkip any `json:"OnSkip,omitempty"`
	}{plain: plain(c)}
	return v
}

func TestLoadConfigCases(t *testing.T) {
	tests := []struct {
		name  string
		toml  string
		diags []string
		check func(Config) bool
	}{
		{
			name:  "syntax error line",
			toml:  "ignore = [\"a\"]\n\nmaxFileSize = = 3\n",
			diags: []string{"line 3: syntax error: "},
			check: func(c Config) bool { return reflect.DeepEqual(c, DefaultConfig()) },
		},
		{
			name:  "bad value line, others load",
			toml:  "budgetTokens = 100\n\nmaxFileSize = -1\nlogLevel = \"warn\"\n",
			diags: []string{`maxFileSize: line 3: must be a positive size like 1048576 or "2MiB"`},
			check: func(c Config) bool {
				return c.MaxFileSize == DefaultMaxFileSize && c.BudgetTokens == 100 && c.LogLevel == "warn"
			},
		},
		{
			name:  "unknown keys",
			toml:  "colour = 1\n[pack]\nformat = \"json\"\nshape = 2\n[other]\nx = 1\n",
			diags: []string{"colour: line 1: unknown key", "pack.shape: line 4: unknown key", "other: line 5: unknown key"},
			check: func(c Config) bool { return c.Pack.Format == "json" },
		},
		{
			name:  "sizes",
			toml:  "maxFileSize = \"512 KiB\"\n",
			check: func(c Config) bool { return c.MaxFileSize == 512<<10 },
		},
		{
			name:  "size too large",
			toml:  "maxFileSize = \"2GiB\"\n",
			diags: []string{"maxFileSize: line 1: must be at most 1GiB"},
			check: func(c Config) bool { return c.MaxFileSize == DefaultMaxFileSize },
		},
		{
			name:  "list element dropped",
			toml:  "ignore = [\"a\", 1, \"b\"]\n",
			diags: []string{"ignore: line 1: element 2: must be a string"},
			check: func(c Config) bool { return reflect.DeepEqual(c.Ignore, []string{"a", "b"}) },
		},
		{
			name:  "invalid regexp",
			toml:  "[scrub]\npatterns = ['(x', 'y+']\n",
			diags: []string{"scrub.patterns: line 2: element 1: invalid regular expression: "},
			check: func(c Config) bool { return reflect.DeepEqual(c.Scrub.Patterns, []string{"y+"}) },
		},
		{
			name:  "multi-line array line is the key's",
			toml:  "\nlanguages = [\n  \"go\",\n  \"Bad Name\",\n]\n",
			diags: []string{"languages: line 2: element 2: must be a lower-case language name"},
			check: func(c Config) bool { return reflect.DeepEqual(c.Languages, []string{"go"}) },
		},
		{
			name:  "invalid UTF-8",
			toml:  "model = \"\xff\"\n",
			diags: []string{"line 1: syntax error: "},
			check: func(c Config) bool { return c.Model == "use-lite" },
		},
		{
			name:  "binary garbage",
			toml:  "\x00\x01\x02",
			diags: []string{"syntax error"},
			check: func(c Config) bool { return reflect.DeepEqual(c, DefaultConfig()) },
		},
		{
			name:  "empty file",
			toml:  "",
			check: func(c Config) bool { return reflect.DeepEqual(c, DefaultConfig()) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, ConfigFileName), []byte(tt.toml), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, diags, err := LoadConfig(root)
			if err != nil {
				t.Fatalf("LoadConfig: %v", err)
			}
			if len(diags) != len(tt.diags) {
				t.Fatalf("diagnostics = %v, want %d like %q", diags, len(tt.diags), tt.diags)
			}
			for i, d := range diags {
				if !strings.Contains(d.String(), tt.diags[i]) {
					t.Errorf("diagnostic %d = %q, want it to contain %q", i, d.String(), tt.diags[i])
				}
			}
			if !tt.check(cfg) {
				t.Errorf("config = %+v", cfg)
			}
		})
	}
}

func TestLoadConfigMissingAndUnreadable(t *testing.T) {
	cfg, diags, err := LoadConfig(t.TempDir())
	if err != nil || diags != nil || !reflect.DeepEqual(cfg, DefaultConfig()) {
		t.Errorf("missing file: %+v %v %v", cfg, diags, err)
	}
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ConfigFileName), 0o755)
	if _, _, err := LoadConfig(root); err == nil {
		t.Errorf("a directory named %s loaded without error", ConfigFileName)
	}
	big := t.TempDir()
	os.WriteFile(filepath.Join(big, ConfigFileName), []byte(strings.Repeat("# x\n", maxConfigSize/4+1)), 0o644)
	if _, diags, err := LoadConfig(big); err != nil || len(diags) != 1 {
		t.Errorf("oversized file: %v %v", diags, err)
	}
}

func TestConfigApply(t *testing.T) {
	settings := map[string]any{}
	if err := json.Unmarshal([]byte(`{
		"maxFileSize": 2048, "budgetTokens": 1200, "logLevel": "debug",
		"ignore": ["*.tmp"], "embeddings": false,
		"pack": {"format": "json", "topN": 5.5, "nope": 1},
		"search": 7, "dbPath": 3, "whatever": true
	}`), &settings); err != nil {
		t.Fatal(err)
	}
	base := DefaultConfig()
	got, diags := base.Apply(settings)
	want := []string{
		"dbPath: must be a path (a string; empty for the default)",
		"pack.nope: unknown key",
		"pack.topN: must be an integer between 1 and 10000",
		"search: must be an object",
		"whatever: unknown key",
	}
	var gotDiags []string
	for _, d := range diags {
		gotDiags = append(gotDiags, d.String())
	}
	if !reflect.DeepEqual(gotDiags, want) {
		t.Errorf("diagnostics = %q, want %q", gotDiags, want)
	}
	if got.MaxFileSize != 2048 || got.BudgetTokens != 1200 || got.LogLevel != "debug" || got.Embeddings ||
		got.Pack.Format != "json" || got.Pack.TopN != DefaultConfig().Pack.TopN || !reflect.DeepEqual(got.Ignore, []string{"*.tmp"}) {
		t.Errorf("Apply = %+v", got)
	}
	if !reflect.DeepEqual(base, DefaultConfig()) {
		t.Errorf("Apply modified its receiver")
	}
}

func TestParseSize(t *testing.T) {
	tests := map[any]int64{
		int64(1048576): 1048576, "1048576": 1048576, "2MiB": 2 << 20, "2mib": 2 << 20, "1.5 MB": 1500000,
		"10KB": 10000, "10k": 10240, "1GiB": 1 << 30, "512b": 512, float64(4096): 4096,
		int64(0): -1, int64(-5): -1, "": -1, "MiB": -1, "2XB": -1, "-1MiB": -1, "1e9": -1, true: -1, 1.5: -1, "0.0001b": -1,
	}
	for in, want := range tests {
		n, ok := parseSize(in)
		if (want < 0 && ok) || (want >= 0 && (!ok || n != want)) {
			t.Errorf("parseSize(%#v) = %d, %v; want %d", in, n, ok, want)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, name := range []string{"full.toml", "bad-values.toml", "syntax.toml", "tables-wrong.toml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "config", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Count(string(data), "\n") + 1
		cfg, diags := ParseConfig(data)
		for _, d := range diags {
			if d.Line < 0 || d.Line > lines || d.Message == "" {
				t.Fatalf("bad diagnostic %+v for %d lines", d, lines)
			}
		}
		if cfg.MaxFileSize <= 0 || cfg.MaxFileSize > maxMaxFileSize || cfg.BudgetTokens < 1 || cfg.Pack.TopN < 1 ||
			cfg.Pack.MMRLambda < 0 || cfg.Pack.MMRLambda > 1 {
			t.Fatalf("invalid value accepted: %+v", cfg)
		}
	})
}
