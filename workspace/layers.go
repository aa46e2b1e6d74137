package workspace

import (
	"fmt"
	"os"
	"strings"
)

// A configuration is built in layers, each over the one before:
//
//	defaults < .context-ls.toml < overrides (editor settings, CLI flags) < environment
//
// Overrides hold only the keys their source set: an editor that sends null
// for a key removes it, and the file's value (or the default) applies
// again. Every front end builds its configuration with Layered.

// EnvEmbeddings is the environment variable that turns embeddings on or
// off whatever the other layers say.
const EnvEmbeddings = "CONTEXT_LS_EMBEDDINGS"

// Layered loads root's configuration file, applies the overrides (keys as
// in the file, dotted or nested) and then the environment. Diagnostics of
// the file say where they come from, as do those of the overrides and the
// environment; a bad value keeps the layer below.
func Layered(root string, overrides map[string]any) (Config, []Diagnostic, error) {
	cfg, diags, err := LoadConfig(root)
	if err != nil {
		return cfg, nil, err
	}
	for i := range diags {
		diags[i].Source = ConfigFileName
	}
	if len(overrides) > 0 {
		var od []Diagnostic
		cfg, od = cfg.Apply(overrides)
		for i := range od {
			od[i].Source = "settings"
		}
		diags = append(diags, od...)
	}
	cfg, ed := ApplyEnv(cfg)
	return cfg, append(diags, ed...), nil
}

// ApplyEnv applies the environment layer: CONTEXT_LS_EMBEDDINGS=off (or
// 0, false, no) turns embeddings off and on (1, true, yes) turns them on;
// another value is a diagnostic and changes nothing.
func ApplyEnv(cfg Config) (Config, []Diagnostic) {
	v, set := os.LookupEnv(EnvEmbeddings)
	if !set || strings.TrimSpace(v) == "" {
		return cfg, nil
	}
	on, ok := ParseSwitch(v)
	if !ok {
		return cfg, []Diagnostic{{Key: "embeddings", Source: EnvEmbeddings,
			Message: fmt.Sprintf("%q is not on or off (1, true, yes / 0, false, no); ignored", v)}}
	}
	cfg.Embeddings = on
	return cfg, nil
}

// ParseSwitch reads an on/off value: on, 1, true, yes or off, 0, false, no
// (any case).
func ParseSwitch(v string) (on, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "1", "true", "yes":
		return true, true
	case "off", "0", "false", "no":
		return false, true
	}
	return false, false
}
