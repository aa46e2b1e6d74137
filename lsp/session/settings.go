package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/context-ls/context-ls/internal/logcap"

	"github.com/context-ls/context-ls/workspace"
)

// LogLevel filters log output: "error", "warn", "info" or "debug".
type LogLevel string

// Log levels, most severe first.
const (
	LogError LogLevel = "error"
	LogWarn  LogLevel = "warn"
	LogInfo  LogLevel = "info"
	LogDebug LogLevel = "debug"
)

// SlogLevel maps the level to log/slog; unknown levels count as info.
func (l LogLevel) SlogLevel() slog.Level {
	switch l {
	case LogError:
		return slog.LevelError
	case LogWarn:
		return slog.LevelWarn
	case LogDebug:
		return slog.LevelDebug
	default:
		return slog.LevelInfo
	}
}

// Settings are the user-facing options of the server. The JSON names are
// the setting keys clients send.
type Settings struct {
	DBPath       string   `json:"dbPath" desc:"where indexes are kept, one per workspace folder (relative: to the folder); empty: the default location"`
	Ignore       []string `json:"ignore" desc:"extra gitignore-style patterns of paths not to index"`
	MaxFileSize  int64    `json:"maxFileSize" desc:"files larger than this many bytes are not indexed"`
	Embeddings   bool     `json:"embeddings" desc:"compute embeddings for semantic search (forced off by CONTEXT_LS_EMBEDDINGS=off)"`
	ModelPath    string   `json:"modelPath" desc:"embedding model directory; empty: the default model"`
	BudgetTokens int      `json:"budgetTokens" desc:"default token budget of context packs"`
	LogLevel     LogLevel `json:"logLevel" desc:"error, warn, info or debug; filters window/logMessage and stderr"`

	// set holds the keys the client set (to a valid value): only those
	// override the workspace's .context-ls.toml. A key sent as null is
	// unset again, and the file's value (or the default) applies.
	set map[string]bool
}

// configKeys are the settings that are also keys of .context-ls.toml.
var configKeys = []string{"ignore", "maxFileSize", "embeddings", "modelPath", "budgetTokens"}

// overrides returns the configuration keys the client set, as
// workspace.Config.Apply takes them.
func (s Settings) overrides() map[string]any {
	m := map[string]any{}
	for _, k := range configKeys {
		if !s.set[k] {
			continue
		}
		switch k {
		case "ignore":
			list := make([]any, len(s.Ignore))
			for i, p := range s.Ignore {
				list[i] = p
			}
			m[k] = list
		case "maxFileSize":
			m[k] = float64(s.MaxFileSize)
		case "embeddings":
			m[k] = s.Embeddings
		case "modelPath":
			m[k] = s.ModelPath
		case "budgetTokens":
			m[k] = float64(s.BudgetTokens)
		}
	}
	return m
}

// IsSet reports whether the client set a setting.
func (s Settings) IsSet(key string) bool { return s.set[key] }

// Defaults of the settings.
const (
	DefaultMaxFileSize  = 1 << 20
	DefaultBudgetTokens = 4000
)

// DefaultSettings returns the settings used when the client sends none.
func DefaultSettings() Settings {
	return Settings{
		MaxFileSize:  DefaultMaxFileSize,
		Embeddings:   true,
		BudgetTokens: DefaultBudgetTokens,
		LogLevel:     LogInfo,
	}
}

// Equal reports whether two settings are the same.
func (s Settings) Equal(o Settings) bool {
	if s.DBPath != o.DBPath || s.MaxFileSize != o.MaxFileSize || s.Embeddings != o.Embeddings ||
		s.ModelPath != o.ModelPath || s.BudgetTokens != o.BudgetTokens || s.LogLevel != o.LogLevel ||
		len(s.Ignore) != len(o.Ignore) {
		return false
	}
	for i := range s.Ignore {
		if s.Ignore[i] != o.Ignore[i] {
			return false
		}
	}
	return maps.Equal(s.set, o.set)
}

// SettingsIssue is one problem found while parsing settings. Issues are
// never fatal: the offending key keeps its default.
type SettingsIssue struct {
	// Key is the setting key ("" for the settings object itself).
	Key string `json:"key"`
	// Unknown is true when the key is not a setting.
	Unknown bool `json:"unknown,omitempty"`
	// Message describes the problem and names the key.
	Message string `json:"message"`
}

// SettingsSection is the key under which clients nest the server's settings.
const SettingsSection = "contextLs"

// ParseSettings applies a settings payload to base. The payload may be
// {"settings": {"contextLs": {...}}}, {"settings": {...}}, {"contextLs":
// {...}} or the flat object. A null or empty payload returns base. Keys
// absent from the payload keep base's value; a key set to null gets its
// default. Keys with the wrong type or an invalid value get their default
// and are reported; unknown keys are reported with Unknown set. Issues are
// sorted by key.
func ParseSettings(base Settings, raw json.RawMessage) (Settings, []SettingsIssue) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return base, nil
	}
	obj, err := settingsObject(raw)
	if err != nil {
		return base, []SettingsIssue{{Message: "settings: " + err.Error()}}
	}
	if inner, ok := obj["settings"]; ok {
		if o, err := settingsObject(inner); err == nil {
			obj = o
		} else if !IsNull(inner) {
			return base, []SettingsIssue{{Key: "settings", Message: "settings: expected an object"}}
		} else {
			return base, nil
		}
	}
	if inner, ok := obj[SettingsSection]; ok {
		if o, err := settingsObject(inner); err == nil {
			obj = o
		} else if !IsNull(inner) {
			return base, []SettingsIssue{{Key: SettingsSection, Message: SettingsSection + ": expected an object"}}
		} else {
			return base, nil
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	def := DefaultSettings()
	out := base
	out.set = maps.Clone(base.set)
	if out.set == nil {
		out.set = map[string]bool{}
	}
	var issues []SettingsIssue
	bad := func(key, format string, args ...any) {
		issues = append(issues, SettingsIssue{Key: key, Message: key + ": " + fmt.Sprintf(format, args...)})
	}
	for _, key := range keys {
		v := obj[key]
		null := IsNull(v)
		before := len(issues)
		delete(out.set, key)
		switch key {
		case "dbPath":
			out.DBPath = def.DBPath
			if !null {
				if s, ok := jsonString(v); ok {
					out.DBPath = s
				} else {
					bad(key, "expected a string, got %s; using the default", jsonKind(v))
				}
			}
		case "modelPath":
			out.ModelPath = def.ModelPath
			if !null {
				if s, ok := jsonString(v); ok {
					out.ModelPath = s
				} else {
					bad(key, "expected a string, got %s; using the default", jsonKind(v))
				}
			}
		case "ignore":
			out.Ignore = def.Ignore
			if !null {
				var list []string
				if err := json.Unmarshal(v, &list); err == nil {
					out.Ignore = list
				} else {
					got := jsonKind(v)
					if got == "an array" {
						got = "an array with a non-string element"
					}
					bad(key, "expected an array of strings, got %s; using the default", got)
				}
			}
		case "maxFileSize":
			out.MaxFileSize = def.MaxFileSize
			if !null {
				if n, ok := jsonInt(v); ok && n > 0 {
					out.MaxFileSize = n
				} else {
					bad(key, "expected a positive integer (bytes), got %s; using the default %d", jsonKind(v), def.MaxFileSize)
				}
			}
		case "budgetTokens":
			out.BudgetTokens = def.BudgetTokens
			if !null {
				if n, ok := jsonInt(v); ok && n > 0 && n <= math.MaxInt32 {
					out.BudgetTokens = int(n)
				} else {
					bad(key, "expected a positive integer, got %s; using the default %d", jsonKind(v), def.BudgetTokens)
				}
			}
		case "embeddings":
			out.Embeddings = def.Embeddings
			if !null {
				var b bool
				if err := json.Unmarshal(v, &b); err == nil {
					out.Embeddings = b
				} else {
					bad(key, "expected a boolean, got %s; using the default %t", jsonKind(v), def.Embeddings)
				}
			}
		case "logLevel":
			out.LogLevel = def.LogLevel
			if !null {
				s, ok := jsonString(v)
				switch l := LogLevel(strings.ToLower(s)); {
				case ok && (l == LogError || l == LogWarn || l == LogInfo || l == LogDebug):
					out.LogLevel = l
				case ok:
					bad(key, "expected one of error, warn, info, debug, got %q; using the default %q", logcap.Clip(s, 40), def.LogLevel)
				default:
					bad(key, "expected a string, got %s; using the default %q", jsonKind(v), def.LogLevel)
				}
			}
		default:
			issues = append(issues, SettingsIssue{Key: key, Unknown: true, Message: fmt.Sprintf("unknown setting %q ignored", logcap.Clip(key, 80))})
		}
		if !null && len(issues) == before {
			out.set[key] = true
		}
	}
	return out, issues
}

// ApplyEnv applies the environment layer (workspace.ApplyEnv) to the
// settings reported as in effect: CONTEXT_LS_EMBEDDINGS=off turns
// embeddings off whatever the settings say.
func ApplyEnv(s Settings) Settings {
	cfg, _ := workspace.ApplyEnv(workspace.Config{Embeddings: s.Embeddings})
	s.Embeddings = cfg.Embeddings
	return s
}

func settingsObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("expected an object, got %s", jsonKind(raw))
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("decoding settings: %w", err)
	}
	return obj, nil
}

// IsNull reports whether a raw JSON value is null.
func IsNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

func jsonString(v json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// jsonInt accepts an integral JSON number (1048576, 1e6, 2.0).
func jsonInt(v json.RawMessage) (int64, bool) {
	t := string(bytes.TrimSpace(v))
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// jsonKind names the JSON type of v for messages.
func jsonKind(v json.RawMessage) string {
	t := bytes.TrimSpace(v)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "the number " + logcap.Clip(string(t), 30)
	}
}
