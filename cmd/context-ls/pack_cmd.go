package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

func init() {
	register(command{name: "pack",
		usage:   "[--root DIR] [--db DIR] [--budget N] [--format markdown|xml|json|plain] [--task T] [--file PATH [--lines A-B]] [QUERY]",
		summary: "a token-budgeted context pack for a query and/or a selection", run: runPack, indexed: true})
}

func runPack(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(false)
	budget := fs.Int("budget", 0, "token budget `N` (default: the workspace's budget_tokens)")
	format := fs.String("format", "", "output `FORMAT`: markdown, xml, json or plain (default: the workspace's)")
	task := fs.String("task", "", "task type: "+strings.Join(packs.Tasks, ", "))
	file := fs.String("file", "", "selection `PATH` (relative to the root, or absolute)")
	lines := fs.String("lines", "", "selected lines `A-B` of --file (1-based, inclusive; default: the whole file)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(rest, " "))
	if *budget < 0 {
		return usagef("--budget must be positive")
	}
	if *format != "" && !contains(packs.Formats, *format) {
		return usagef("--format must be one of %s", strings.Join(packs.Formats, ", "))
	}
	if *lines != "" && *file == "" {
		return usagef("--lines needs --file")
	}
	if query == "" && *file == "" {
		return usagef("missing QUERY or --file")
	}
	if _, _, err := parseLines(*lines); err != nil {
		return err
	}
	return env.withIndex(ctx, func(e *engine.Engine, snap *engine.Snapshot) error {
		var sel *engine.Selection
		if *file != "" {
			s, err := env.selection(e, *file, *lines)
			if err != nil {
				return err
			}
			sel = &engine.Selection{Path: s.rel, StartLine: s.start, EndLine: s.end, Content: []byte(s.content)}
		}
		p, err := snap.Pack(ctx, engine.PackRequest{Query: query, Selection: sel, Budget: *budget, Format: *format, Task: *task})
		if err != nil {
			return err
		}
		if p.Format == packs.FormatJSON {
			return env.printJSON(p)
		}
		fmt.Fprint(env.stdout, p.Text)
		fmt.Fprintf(env.stderr, "pack: %d/%d tokens, %d items, %d dropped for budget, %.0f ms\n",
			p.Tokens, p.Budget, len(p.Items), p.Dropped, p.LatencyMs)
		for _, n := range p.Notes {
			fmt.Fprintf(env.stderr, "note: %s\n", n)
		}
		return nil
	})
}

// parseLines parses "A-B" or "A" (1-based); "" selects the whole file.
func parseLines(s string) (int, int, error) {
	if s == "" {
		return 1, int(^uint32(0) >> 1), nil
	}
	a, b, found := strings.Cut(s, "-")
	start, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil || start < 1 {
		return 0, 0, usagef("--lines %q: want A-B with 1 ≤ A ≤ B", s)
	}
	end := start
	if found {
		end, err = strconv.Atoi(strings.TrimSpace(b))
		if err != nil || end < start {
			return 0, 0, usagef("--lines %q: want A-B with 1 ≤ A ≤ B", s)
		}
	}
	return start, end, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
