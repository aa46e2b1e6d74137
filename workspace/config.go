package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// ConfigFileName is the workspace configuration file, at the root.
const ConfigFileName = ".context-ls.toml"

// maxConfigSize bounds the configuration file; anything larger is not a
// hand-written configuration.
const maxConfigSize = 1 << 20

// Config is the workspace configuration: the keys of .context-ls.toml, with
// the same names as the LSP settings where both exist. The zero value is not
// useful; start from DefaultConfig.
type Config struct {
	// Ignore holds extra gitignore-syntax patterns relative to the root.
	Ignore []string
	// MaxFileSize is the largest file, in bytes, that is indexed.
	MaxFileSize int64
	// Languages restricts indexing to these languages; empty means all.
	// The engine applies it; the workspace package only validates it.
	Languages []string
	// Embeddings enables the semantic (vector) index.
	Embeddings bool
	// Model is the embedding model's registry name.
	Model string
	// ModelPath is a local model directory overriding the registry; empty
	// means use the registry.
	ModelPath string
	// DBPath, as read from the file, is where indexes are kept (one per
	// workspace; relative to the root; empty: the default location). Once
	// an engine opens, it is that engine's index directory: when it lies
	// inside the workspace, Walk never visits it.
	DBPath string
	// BudgetTokens is the default token budget of a context pack.
	BudgetTokens int
	// LogLevel is one of "error", "warn", "info", "debug".
	LogLevel string
	// Search holds the [search] table.
	Search SearchConfig
	// Pack holds the [pack] table.
	Pack PackConfig
	// Scrub holds the [scrub] table.
	Scrub ScrubConfig

	// OnSkip, if set, is told about entries Walk and Watch skip for an
	// unusual reason: unreadable directories and files, symlinks (escaping,
	// broken, or inside the root and therefore visited at their target),
	// special files, names that are not UTF-8, unreadable ignore files and
	// directories that cannot be watched. Routine exclusions (ignore rules,
	// denylist, size, binary content) are not reported; Explain gives them.
	// It is not part of the configuration file.
	OnSkip func(rel, reason string)
}

// SearchConfig is the [search] table.
type SearchConfig struct {
	// PerFileCap is the most hits one file may contribute to a result list
	// (0: no bound). Hits are definitions, ranked so that a strong file
	// gives more of its own before a weaker one gives its first; the
	// default, 10, leaves the first ten hits as ranked and lets a long list
	// reach further files (localisation over 50 hits: the files a change
	// touches among the first five 0.920 → 0.927 on the development change
	// descriptions, 0.842 → 0.858 on other repositories' histories).
	// Packs choose among every definition of the best files whatever it is.
	PerFileCap int
	// MMRLambda trades relevance (1) against diversity (0) when search
	// results are reordered by maximal marginal relevance.
	MMRLambda float64
}

// PackConfig is the [pack] table.
type PackConfig struct {
	// Format is the pack rendering: "markdown", "xml", "json" or "plain".
	Format string
	// IncludeScore is the minimum relevance score, in [0, 1], for a hit to
	// be included in a pack.
	IncludeScore float64
	// TopN is the most hits a pack considers.
	TopN int
	// Always lists root-relative, slash-separated paths always included.
	Always []string
	// MMRLambda trades relevance (1) against diversity (0), in [0, 1].
	MMRLambda float64
}

// ScrubConfig is the [scrub] table.
type ScrubConfig struct {
	// Patterns are extra secret patterns (Go regexp syntax), each known to
	// compile.
	Patterns []string
}

// DefaultMaxFileSize is the default Config.MaxFileSize: 1 MiB.
const DefaultMaxFileSize = 1 << 20

// maxMaxFileSize is the largest accepted Config.MaxFileSize: 1 GiB.
const maxMaxFileSize = 1 << 30

// DefaultConfig returns the configuration used when no file or setting says
// otherwise.
func DefaultConfig() Config {
	return Config{
		MaxFileSize:  DefaultMaxFileSize,
		Embeddings:   true,
		Model:        "use-lite",
		BudgetTokens: 4000,
		LogLevel:     "info",
		Search:       SearchConfig{PerFileCap: 10, MMRLambda: 0.7},
		Pack: PackConfig{
			Format:       "markdown",
			IncludeScore: 0.7,
			TopN:         25, // packs.DefaultTopN
			MMRLambda:    0.7,
		},
	}
}

// Diagnostic reports one problem in the configuration. The key's default
// (or, for a list, the list without the bad element) applies instead.
type Diagnostic struct {
	// Key is the dotted key ("maxFileSize", "pack.format"); empty for a
	// syntax error.
	Key string
	// Line is the 1-based line in the configuration file; 0 when unknown
	// (settings that did not come from the file).
	Line int
	// Message says what is wrong and what is expected.
	Message string
	// Source names the layer it comes from (Layered sets it): the
	// configuration file, "settings" or an environment variable.
	Source string
}

// String formats the diagnostic as `source: key: line N: message`.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Source != "" {
		b.WriteString(d.Source)
		b.WriteString(": ")
	}
	if d.Key != "" {
		b.WriteString(d.Key)
		b.WriteString(": ")
	}
	if d.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(d.Line))
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	return b.String()
}

// LoadConfig reads ConfigFileName at root. A missing file yields
// DefaultConfig and no diagnostics. A syntax error yields one Diagnostic with
// its line and the defaults. Every bad value and every unknown key yields a
// Diagnostic while the other keys still load. The error is non-nil only when
// the file exists but cannot be read; the defaults come with it.
func LoadConfig(root string) (Config, []Diagnostic, error) {
	cfg := DefaultConfig()
	name := filepath.Join(root, ConfigFileName)
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil, nil
	}
	if err != nil {
		return cfg, nil, fmt.Errorf("load config: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return cfg, nil, fmt.Errorf("load config: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return cfg, nil, fmt.Errorf("load config: %s is not a regular file", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return cfg, nil, fmt.Errorf("load config: %w", err)
	}
	if len(data) > maxConfigSize {
		return cfg, []Diagnostic{{Message: fmt.Sprintf("file is larger than %d bytes; ignored", maxConfigSize)}}, nil
	}
	cfg, diags := ParseConfig(data)
	return cfg, diags, nil
}

// ParseConfig parses the content of a configuration file, as LoadConfig
// does after reading it.
func ParseConfig(data []byte) (Config, []Diagnostic) {
	cfg := DefaultConfig()
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return cfg, []Diagnostic{{Line: errorLine(data, pe), Message: "syntax error: " + pe.Message}}
		}
		return cfg, []Diagnostic{{Message: "syntax error: " + err.Error()}}
	}
	var diags []Diagnostic
	for key, prim := range top {
		raw, line := probeValue(&md, prim)
		if tbl, ok := configTables[key]; ok {
			var sub map[string]toml.Primitive
			if _, isTable := raw.(map[string]any); !isTable || md.PrimitiveDecode(prim, &sub) != nil {
				diags = append(diags, Diagnostic{Key: key, Line: line, Message: "must be a table like [" + key + "]"})
				continue
			}
			for subKey, subPrim := range sub {
				subRaw, subLine := probeValue(&md, subPrim)
				full := key + "." + subKey
				if !slices.Contains(tbl, subKey) {
					diags = append(diags, Diagnostic{Key: full, Line: subLine, Message: "unknown key"})
					continue
				}
				diags = append(diags, applySetting(&cfg, full, subRaw, subLine)...)
			}
			continue
		}
		diags = append(diags, applySetting(&cfg, key, raw, line)...)
	}
	sortDiagnostics(diags)
	return cfg, diags
}

// errorLine is the 1-based line of a TOML syntax error. The decoder counts a
// newline it stumbles on as the start of the next line; the byte offset
// says where the offending character is.
func errorLine(data []byte, pe toml.ParseError) int {
	start := pe.Position.Start
	if start < 0 || start > len(data) {
		return pe.Position.Line
	}
	return bytes.Count(data[:start], []byte{'\n'}) + 1
}

// Apply returns c with settings applied: keys as in the configuration file,
// either nested ({"pack": {"format": "xml"}}) or dotted ("pack.format"),
// values as decoded from JSON (numbers as float64) or TOML. Bad values and
// unknown keys yield Diagnostics with Line 0 and leave c's value in place.
// The LSP server uses it for its initializationOptions and settings.
func (c Config) Apply(settings map[string]any) (Config, []Diagnostic) {
	out := c
	out.Ignore = slices.Clone(c.Ignore)
	out.Languages = slices.Clone(c.Languages)
	out.Pack.Always = slices.Clone(c.Pack.Always)
	out.Scrub.Patterns = slices.Clone(c.Scrub.Patterns)
	var diags []Diagnostic
	for key, v := range settings {
		if sub, ok := configTables[key]; ok {
			m, ok := v.(map[string]any)
			if !ok {
				diags = append(diags, Diagnostic{Key: key, Message: "must be an object"})
				continue
			}
			for subKey, sv := range m {
				full := key + "." + subKey
				if !slices.Contains(sub, subKey) {
					diags = append(diags, Diagnostic{Key: full, Message: "unknown key"})
					continue
				}
				diags = append(diags, applySetting(&out, full, sv, 0)...)
			}
			continue
		}
		diags = append(diags, applySetting(&out, key, v, 0)...)
	}
	sortDiagnostics(diags)
	return out, diags
}

func sortDiagnostics(diags []Diagnostic) {
	slices.SortStableFunc(diags, func(a, b Diagnostic) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// configTables lists the keys of each table.
var configTables = map[string][]string{
	"search": {"perFileCap", "mmrLambda"},
	"pack":   {"format", "includeScore", "topN", "always", "mmrLambda"},
	"scrub":  {"patterns"},
}

// errProbe is returned by probe to make the TOML decoder report the position
// of the key being decoded.
var errProbe = errors.New("context-ls position probe")

// probe captures a raw TOML value and fails on purpose: BurntSushi/toml
// answers an Unmarshaler's error with a ParseError that carries the line of
// the key being decoded, which MetaData does not otherwise expose.
type probe struct{ v any }

// UnmarshalTOML implements toml.Unmarshaler.
func (p *probe) UnmarshalTOML(v any) error {
	p.v = v
	return errProbe
}

// probeValue returns the raw value of prim and the 1-based line of its key
// (0 if the decoder does not say).
func probeValue(md *toml.MetaData, prim toml.Primitive) (any, int) {
	var p probe
	err := md.PrimitiveDecode(prim, &p)
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.Message == errProbe.Error() {
		return p.v, pe.Position.Line
	}
	return p.v, 0
}

// applySetting validates one value and stores it in cfg, or returns the
// diagnostics that explain why not.
func applySetting(cfg *Config, key string, v any, line int) []Diagnostic {
	bad := func(format string, args ...any) []Diagnostic {
		return []Diagnostic{{Key: key, Line: line, Message: fmt.Sprintf(format, args...)}}
	}
	switch key {
	case "ignore":
		list, diags := stringList(key, line, v, func(s string) string {
			if strings.TrimSpace(s) == "" || strings.IndexByte(s, 0) >= 0 {
				return "must be a non-empty gitignore pattern"
			}
			return ""
		})
		if list != nil {
			cfg.Ignore = list
		}
		return diags
	case "maxFileSize":
		n, ok := parseSize(v)
		if !ok {
			return bad(`must be a positive size like 1048576 or "2MiB"`)
		}
		if n > maxMaxFileSize {
			return bad(`must be at most 1GiB`)
		}
		cfg.MaxFileSize = n
		if n > HardMaxFileSize {
			return []Diagnostic{{Key: key, Line: line, Message: "files above 16MiB are never indexed (the hard limit applies)"}}
		}
	case "languages":
		list, diags := stringList(key, line, v, func(s string) string {
			if !languageName.MatchString(s) {
				return "must be a lower-case language name like \"go\" or \"python\""
			}
			return ""
		})
		if list != nil {
			cfg.Languages = list
		}
		return diags
	case "embeddings":
		b, ok := v.(bool)
		if !ok {
			return bad("must be true or false")
		}
		cfg.Embeddings = b
	case "model":
		s, ok := v.(string)
		if !ok || !modelName.MatchString(s) {
			return bad(`must be a model name like "use-lite"`)
		}
		cfg.Model = s
	case "modelPath", "dbPath":
		s, ok := v.(string)
		if !ok || strings.IndexByte(s, 0) >= 0 {
			return bad("must be a path (a string; empty for the default)")
		}
		if key == "modelPath" {
			cfg.ModelPath = s
		} else {
			cfg.DBPath = s
		}
	case "budgetTokens":
		n, ok := parseInt(v)
		if !ok || n < 1 || n > 1_000_000 {
			return bad("must be an integer between 1 and 1000000")
		}
		cfg.BudgetTokens = int(n)
	case "logLevel":
		s, ok := v.(string)
		s = strings.ToLower(s)
		if !ok || !slices.Contains([]string{"error", "warn", "info", "debug"}, s) {
			return bad("must be one of error, warn, info, debug")
		}
		cfg.LogLevel = s
	case "search.perFileCap":
		n, ok := parseInt(v)
		if !ok || n < 0 || n > 1000 {
			return bad("must be an integer between 0 (no bound) and 1000")
		}
		cfg.Search.PerFileCap = int(n)
	case "pack.format":
		s, ok := v.(string)
		s = strings.ToLower(s)
		if !ok || !slices.Contains([]string{"markdown", "xml", "json", "plain"}, s) {
			return bad("must be one of markdown, xml, json, plain")
		}
		cfg.Pack.Format = s
	case "pack.includeScore", "pack.mmrLambda", "search.mmrLambda":
		f, ok := parseFloat(v)
		if !ok || f < 0 || f > 1 {
			return bad("must be a number between 0 and 1")
		}
		switch key {
		case "pack.includeScore":
			cfg.Pack.IncludeScore = f
		case "pack.mmrLambda":
			cfg.Pack.MMRLambda = f
		default:
			cfg.Search.MMRLambda = f
		}
	case "pack.topN":
		n, ok := parseInt(v)
		if !ok || n < 1 || n > 10_000 {
			return bad("must be an integer between 1 and 10000")
		}
		cfg.Pack.TopN = int(n)
	case "pack.always":
		list, diags := stringList(key, line, v, func(s string) string {
			if s == "." || checkRel(s) != nil {
				return "must be a clean slash-separated path relative to the root"
			}
			return ""
		})
		if list != nil {
			cfg.Pack.Always = list
		}
		return diags
	case "scrub.patterns":
		list, diags := stringList(key, line, v, func(s string) string {
			if s == "" {
				return "must be a non-empty regular expression"
			}
			if _, err := regexp.Compile(s); err != nil {
				return "invalid regular expression: " + err.Error()
			}
			return ""
		})
		if list != nil {
			cfg.Scrub.Patterns = list
		}
		return diags
	default:
		if _, ok := configTables[key]; ok {
			return bad("must be a table like [%s]", key)
		}
		return bad("unknown key")
	}
	return nil
}

var (
	languageName = regexp.MustCompile(`^[a-z][a-z0-9_+#-]*$`)
	modelName    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// stringList validates a list of strings element by element: a value that
// is not a list yields one diagnostic and a nil list (the default stays);
// a bad element yields a diagnostic and is dropped.
func stringList(key string, line int, v any, check func(string) string) ([]string, []Diagnostic) {
	var items []any
	switch t := v.(type) {
	case []any:
		items = t
	case []string:
		for _, s := range t {
			items = append(items, s)
		}
	default:
		return nil, []Diagnostic{{Key: key, Line: line, Message: "must be a list of strings"}}
	}
	list := make([]string, 0, len(items))
	var diags []Diagnostic
	for i, item := range items {
		s, ok := item.(string)
		msg := "must be a string"
		if ok {
			msg = check(s)
		}
		if msg != "" {
			diags = append(diags, Diagnostic{Key: key, Line: line, Message: fmt.Sprintf("element %d: %s", i+1, msg)})
			continue
		}
		list = append(list, s)
	}
	return list, diags
}

// parseInt accepts TOML integers, JSON numbers without a fraction and Go ints.
func parseInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, false
		}
		return int64(n), true
	}
	return 0, false
}

// parseFloat accepts TOML floats and integers, JSON numbers and Go numbers.
func parseFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n)
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// sizeUnits maps size suffixes (lower case) to their multipliers.
var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1e3, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1e6, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1e9, "gib": 1 << 30,
}

// parseSize accepts a positive integer number of bytes, or a string holding
// one, optionally with a fraction and a unit: "2MiB", "512 KiB", "1.5MB".
func parseSize(v any) (int64, bool) {
	if n, ok := parseInt(v); ok {
		return n, n > 0
	}
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	mult, ok := sizeUnits[unit]
	if !ok || num == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f <= 0 || f*mult > math.MaxInt64/2 {
		return 0, false
	}
	n := int64(math.Round(f * mult))
	return n, n > 0
}
