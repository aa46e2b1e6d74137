package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/service"
)

// The query commands: each parses its flags into one service request and
// prints the result (as JSON with --json: the service's result shape).

func init() {
	register(command{name: "search", usage: "[--root DIR] [--k N] [--lang L,..] [--kind K,..] [--path GLOB] [--min-score S] [--json] QUERY",
		summary: "ranked, located search (indexes first if needed)", run: runSearch})
	register(command{name: "similar", usage: "[--root DIR] [--k N] [--lang L,..] [--path GLOB] [--json] (SNIPPET | --file PATH [--lines A-B] | --symbol NAME)",
		summary: "code that looks like a snippet or a selection (embeddings)", run: runSimilar})
	register(command{name: "related", usage: "[--root DIR] [--k N] [--budget N] [--json] (--file PATH [--lines A-B] | TARGET)",
		summary: "what bears on a selection: definitions it uses, callers, callees, tests, docs, co-changes", run: runRelated})
	register(command{name: "pack",
		usage:   "[--root DIR] [--budget N] [--format markdown|xml|json|plain] [--task T] [--file PATH [--lines A-B]] [--symbol NAME] [--exclude PATH[:A-B]] [QUERY]",
		summary: "a token-budgeted context pack for a query and/or a selection", run: runPack})
	for _, c := range []struct{ name, summary string }{
		{"callers", "definitions that call TARGET (PATH:LINE[:COL] or a symbol name)"},
		{"callees", "definitions TARGET calls"},
		{"tests", "tests that exercise TARGET: direct calls, two hops, naming convention"},
	} {
		register(command{name: c.name, usage: "[--root DIR] [--limit N] [--guesses] [--json] TARGET", summary: c.summary, run: runGraph})
	}
	register(command{name: "symbols", usage: "[--root DIR] [--file PATH] [--limit N] [--json] [NAME]",
		summary: "list definitions (all, those named NAME, or a file's)", run: runSymbols})
	register(command{name: "pins", usage: "[--root DIR] [--json]", summary: "list what every context pack includes", run: runPins})
	register(command{name: "pin", usage: "[--root DIR] [--json] (--file PATH [--lines A-B] | TARGET)",
		summary: "include a selection, a definition or a file in every context pack", run: runPin})
	register(command{name: "unpin", usage: "[--root DIR] [--json] (--file PATH [--lines A-B] | TARGET | --all)",
		summary: "remove a pin (or every pin)", run: runPin})
}

// selectionFlags binds the flags naming a selection: --file and --lines,
// or --symbol.
type selectionFlags struct {
	file, lines, symbol string
}

func (s *selectionFlags) bind(fs interface {
	StringVar(*string, string, string, string)
}) {
	fs.StringVar(&s.file, "file", "", "the selection's file `PATH` (relative to the root, or absolute)")
	fs.StringVar(&s.lines, "lines", "", "its lines `A-B`, 1-based and inclusive (default: the whole file)")
	fs.StringVar(&s.symbol, "symbol", "", "a definition `NAME` instead of a file")
}

// selection builds the request's selection from the flags, or from a
// TARGET argument (PATH:LINE[:COL] or a symbol) when the flags are absent.
func (s *selectionFlags) selection(root, target string) (service.Selection, error) {
	sel := service.Selection{Target: service.Target{File: s.file, Symbol: s.symbol}, Lines: s.lines}
	if target == "" {
		return sel, nil
	}
	if s.file != "" || s.symbol != "" {
		return sel, usagef("give a TARGET or --file/--symbol, not both")
	}
	t, err := service.ParseTarget(target)
	if err != nil {
		return sel, err
	}
	if t.Symbol != "" && isFile(filepath.Join(root, t.Symbol)) {
		t = service.Target{File: t.Symbol} // a file at the root ("main.go"), not a name
	}
	sel.Target = t
	return sel, nil
}

func runSearch(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	var req service.SearchRequest
	fs.IntVar(&req.K, "k", 10, "number of hits, 1 to 100")
	fs.Var((*multiFlag)(&req.Languages), "lang", "only these languages (comma-separated)")
	fs.Var((*multiFlag)(&req.Kinds), "kind", "only these chunk kinds (function, method, markdown_section, …)")
	fs.Var((*multiFlag)(&req.Paths), "path", "only paths matching this `GLOB` (repeatable; !GLOB excludes)")
	fs.Float64Var(&req.MinScore, "min-score", 0, "drop hits scoring below this (0..1)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if req.Query = strings.TrimSpace(strings.Join(rest, " ")); req.Query == "" {
		return usagef("missing QUERY")
	}
	return runOp(ctx, env, service.OpSearch, req, false, func(res *service.SearchResult) error {
		printHits(env, res)
		return nil
	})
}

func printHits(env *cliEnv, res *service.SearchResult) {
	for _, n := range res.Notes {
		fmt.Fprintf(env.stderr, "note: %s\n", n)
	}
	if len(res.Hits) == 0 {
		env.printf("no results for %q\n", res.Query)
		return
	}
	for i, h := range res.Hits {
		env.printf("%2d. %s  %s (%s)  %.3f  [%s]\n", i+1, span(h.Location), h.Symbol, h.Kind, h.Score, strings.Join(h.Sources, " "))
	}
}

// span renders path:start-end.
func span(l service.Location) string {
	return fmt.Sprintf("%s:%d-%d", l.Path, l.StartLine, l.EndLine)
}

func runSimilar(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	var req service.SimilarRequest
	var sf selectionFlags
	sf.bind(fs)
	fs.IntVar(&req.K, "k", 10, "number of hits, 1 to 100")
	fs.Var((*multiFlag)(&req.Languages), "lang", "only these languages (comma-separated)")
	fs.Var((*multiFlag)(&req.Paths), "path", "only paths matching this `GLOB` (repeatable; !GLOB excludes)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	req.Snippet = strings.Join(rest, " ")
	if req.Selection, err = sf.selection(env.root, ""); err != nil {
		return err
	}
	return runOp(ctx, env, service.OpSimilar, req, true, func(res *service.SearchResult) error {
		if len(res.Hits) == 0 {
			env.printf("no similar code found\n")
		}
		for i, h := range res.Hits {
			env.printf("%2d. %s  %s (%s)  %.3f\n", i+1, span(h.Location), h.Symbol, h.Kind, h.Score)
		}
		return nil
	})
}

func runRelated(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	var req service.RelatedRequest
	var sf selectionFlags
	sf.bind(fs)
	fs.IntVar(&req.K, "k", 20, "most items, 1 to 100")
	fs.IntVar(&req.BudgetTokens, "budget", 0, "stop once the items' tokens would pass `N` (0: no budget)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return usagef("at most one TARGET")
	}
	if req.Selection, err = sf.selection(env.root, strings.Join(rest, "")); err != nil {
		return err
	}
	return runOp(ctx, env, service.OpRelated, req, false, func(res *service.RelatedResult) error {
		if len(res.Items) == 0 {
			env.printf("nothing related to %s found\n", span(res.Selection))
		}
		for _, it := range res.Items {
			env.printf("%s  %s (%s)  %s  %.3f  %d tokens\n", span(it.Location), it.Symbol, it.Kind, it.Reason, it.Score, it.Tokens)
		}
		for _, n := range res.Notes {
			fmt.Fprintf(env.stderr, "note: %s\n", n)
		}
		return nil
	})
}

func runPack(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(false)
	var req service.PackRequest
	var sf selectionFlags
	sf.bind(fs)
	fs.IntVar(&req.Budget, "budget", 0, "token budget `N` (default: the workspace's budgetTokens)")
	fs.StringVar(&req.Format, "format", "", "output `FORMAT`: markdown, xml, json or plain (default: the workspace's)")
	fs.StringVar(&req.Task, "task", "", "task type: "+strings.Join(packs.Tasks, ", "))
	fs.Var((*multiFlag)(&req.Exclude), "exclude", "leave out `PATH[:A-B]` (repeatable)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	req.Query = strings.TrimSpace(strings.Join(rest, " "))
	if req.Selection, err = sf.selection(env.root, ""); err != nil {
		return err
	}
	if req.Query == "" && !req.Selection.Given() {
		return usagef("missing QUERY, --file or --symbol")
	}
	if req.Format == packs.FormatJSON {
		// The pack as one JSON object: its items carry their text.
		return runOp(ctx, env, service.OpPack, req, false, func(p *service.PackResult) error {
			p.Text = ""
			return env.printJSON(p)
		})
	}
	return runOp(ctx, env, service.OpPack, req, false, func(p *service.PackResult) error {
		fmt.Fprint(env.stdout, p.Text)
		fmt.Fprintf(env.stderr, "pack: %d/%d tokens, %s, %d dropped for budget, %.0f ms\n",
			p.Tokens, p.Budget, plural(len(p.Items), "item", "items"), p.Dropped, p.LatencyMs)
		for _, n := range p.Notes {
			fmt.Fprintf(env.stderr, "note: %s\n", n)
		}
		return nil
	})
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func runGraph(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	var req service.GraphRequest
	fs.IntVar(&req.Limit, "limit", 50, "most items per definition, 1 to 1000")
	fs.BoolVar(&req.Guesses, "guesses", false, "also list name-only guesses, apart")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("want exactly one TARGET (PATH:LINE[:COL] or a symbol name)")
	}
	if req.Target, err = service.ParseTarget(rest[0]); err != nil {
		return err
	}
	o := map[string]*service.Op{"callers": service.OpCallers, "callees": service.OpCallees, "tests": service.OpTests}[env.cmd.name]
	return runOp(ctx, env, o, req, false, func(res *service.GraphResult) error {
		for i, r := range res.Results {
			if i > 0 {
				env.printf("\n")
			}
			d := r.Definition
			env.printf("%s of %s (%s:%d, %s)\n", env.cmd.name, d.Symbol, d.Path, d.NameRange.StartLine, d.Kind)
			if len(r.Items) == 0 {
				env.printf("  none found\n")
			}
			printGraphItems(env, r.Items)
			if r.Truncated > 0 {
				env.printf("  … %d more (raise --limit)\n", r.Truncated)
			}
			if len(r.Guesses) > 0 {
				env.printf("  name-only guesses:\n")
				printGraphItems(env, r.Guesses)
			} else if r.Omitted > 0 {
				env.printf("  … %s left out (--guesses lists them)\n", plural(r.Omitted, "name-only guess", "name-only guesses"))
			}
			if len(r.Unresolved) > 0 {
				env.printf("  outside the workspace or unresolved: %s\n", strings.Join(r.Unresolved, ", "))
			}
		}
		return nil
	})
}

func printGraphItems(env *cliEnv, items []service.GraphItem) {
	for _, it := range items {
		var extra []string
		if it.Via != "" {
			extra = append(extra, "via "+it.Via)
		}
		if len(it.Sites) > 0 {
			lines := make([]string, 0, len(it.Sites))
			for i, s := range it.Sites {
				if i == 8 {
					lines = append(lines, fmt.Sprintf("+%d", len(it.Sites)-i))
					break
				}
				lines = append(lines, strconv.Itoa(s.StartLine))
			}
			extra = append(extra, "line "+strings.Join(lines, ","))
		}
		tail := ""
		if len(extra) > 0 {
			tail = "  [" + strings.Join(extra, "; ") + "]"
		}
		env.printf("  %s  %s (%s)  %s  %s%s\n", span(it.Location), it.Symbol, it.Kind, it.Confidence, it.Reason, tail)
	}
}

func runSymbols(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	var req service.SymbolsRequest
	fs.StringVar(&req.File, "file", "", "the definitions of this file `PATH`, in source order")
	fs.IntVar(&req.Limit, "limit", 0, "at most this many (0: all)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return usagef("at most one NAME")
	}
	req.Name = strings.Join(rest, "")
	return runOp(ctx, env, service.OpSymbols, req, false, func(res *service.SymbolsResult) error {
		for _, s := range res.Symbols {
			env.printf("%s  %s (%s)  %s\n", span(s.Location), s.Symbol, s.Kind, s.Signature)
		}
		return nil
	})
}

func runPins(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	return runOp(ctx, env, service.OpPins, service.PinsRequest{}, false, func(res *service.PinsResult) error {
		printPins(env, res)
		return nil
	})
}

func runPin(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	var req service.PinRequest
	var sf selectionFlags
	sf.bind(fs)
	if env.cmd.name == "unpin" {
		fs.BoolVar(&req.All, "all", false, "remove every pin")
	}
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return usagef("at most one TARGET")
	}
	if req.Selection, err = sf.selection(env.root, strings.Join(rest, "")); err != nil {
		return err
	}
	o := service.OpPin
	if env.cmd.name == "unpin" {
		o = service.OpUnpin
	}
	return runOp(ctx, env, o, req, false, func(res *service.PinsResult) error {
		printPins(env, res)
		return nil
	})
}

func printPins(env *cliEnv, res *service.PinsResult) {
	if len(res.Pins) == 0 {
		env.printf("nothing is pinned\n")
		return
	}
	for _, p := range res.Pins {
		what := p.Path
		if p.Lines != "" {
			what += ":" + p.Lines
		}
		if p.Error != "" {
			env.printf("%s  (%s)\n", what, p.Error)
			continue
		}
		env.printf("%s  %s\n", what, plural(p.Tokens, "token", "tokens"))
	}
	env.printf("%s pinned: every context pack includes %s\n", plural(len(res.Pins), "item", "items"), plural(res.Tokens, "token", "tokens"))
}

// isFile reports whether p is a regular file.
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
