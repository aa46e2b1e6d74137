package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/context-ls/context-ls/engine"
)

func init() {
	for _, c := range []struct{ name, summary string }{
		{"callers", "definitions that call TARGET (PATH:LINE[:COL] or a symbol name)"},
		{"callees", "definitions TARGET calls"},
		{"tests", "tests that exercise TARGET: direct calls, two hops, naming convention"},
	} {
		register(command{name: c.name, usage: "[--root DIR] [--db DIR] [--json] TARGET", summary: c.summary, run: runGraph, indexed: true})
	}
}

// positionTarget matches PATH:LINE or PATH:LINE:COL.
var positionTarget = regexp.MustCompile(`^(.+?):([0-9]+)(?::([0-9]+))?$`)

// parseTarget reads a CLI TARGET: a 1-based PATH:LINE[:COL] relative to
// the root (or absolute), or a symbol name.
func parseTarget(s string) (engine.Target, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return engine.Target{}, usagef("empty TARGET")
	}
	m := positionTarget.FindStringSubmatch(s)
	if m == nil {
		return engine.Target{Symbol: s}, nil
	}
	line, err := strconv.Atoi(m[2])
	if err != nil || line < 1 {
		return engine.Target{}, usagef("bad line in %q: lines start at 1", s)
	}
	t := engine.Target{Path: m[1], Line: line}
	if m[3] != "" {
		col, err := strconv.Atoi(m[3])
		if err != nil || col < 1 {
			return engine.Target{}, usagef("bad column in %q: columns start at 1", s)
		}
		t.Col = col
	}
	return t, nil
}

// graphResultJSON is the CLI's JSON shape of one target's answer.
type graphResultJSON struct {
	Target     symbolJSON         `json:"target"`
	Items      []engine.GraphItem `json:"items"`
	Omitted    int                `json:"omitted,omitempty"`
	Unresolved []string           `json:"unresolved,omitempty"`
}

func runGraph(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("want exactly one TARGET (PATH:LINE[:COL] or a symbol name)")
	}
	target, err := parseTarget(rest[0])
	if err != nil {
		return err
	}
	return env.withIndex(ctx, func(e *engine.Engine, snap *engine.Snapshot) error {
		var results []engine.GraphResult
		switch env.cmd.name {
		case "callers":
			results, err = snap.Callers(ctx, target)
		case "callees":
			results, err = snap.Callees(ctx, target)
		default:
			results, err = snap.Tests(ctx, target)
		}
		if err != nil {
			return err
		}
		if env.jsonOut {
			out := make([]graphResultJSON, len(results))
			for i, r := range results {
				out[i] = graphResultJSON{Target: toSymbolJSON(r.Target), Items: r.Items, Omitted: r.Omitted, Unresolved: r.Unresolved}
			}
			return env.printJSON(map[string]any{"results": out})
		}
		for i, r := range results {
			if i > 0 {
				env.printf("\n")
			}
			t := r.Target
			env.printf("%s of %s (%s:%d, %s)\n", env.cmd.name, t.Qualified(), t.Path, t.NameSpan.Start.Line+1, t.Kind)
			if len(r.Items) == 0 {
				env.printf("  none found\n")
			}
			for _, it := range r.Items {
				env.printf("  %s:%d-%d  %s (%s)  %s  %s%s\n", it.Path, it.StartLine, it.EndLine, it.Symbol, it.Kind,
					it.Confidence, it.Reason, graphItemExtra(it))
			}
			if r.Omitted > 0 {
				env.printf("  … %d more name-only matches omitted\n", r.Omitted)
			}
			if len(r.Unresolved) > 0 {
				env.printf("  outside the workspace or unresolved: %s\n", strings.Join(r.Unresolved, ", "))
			}
		}
		return nil
	})
}

// graphItemExtra renders call-site lines and two-hop intermediates.
func graphItemExtra(it engine.GraphItem) string {
	var parts []string
	if it.Via != "" {
		parts = append(parts, "via "+it.Via)
	}
	if len(it.Sites) > 0 {
		lines := make([]string, 0, len(it.Sites))
		for i, s := range it.Sites {
			if i == 8 {
				lines = append(lines, fmt.Sprintf("+%d", len(it.Sites)-i))
				break
			}
			lines = append(lines, strconv.Itoa(s.Line))
		}
		parts = append(parts, "line "+strings.Join(lines, ","))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  [" + strings.Join(parts, "; ") + "]"
}
