package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/share"
)

// How the CLI prints the results of operations (without --json, which
// prints the service's result as it is). An operation without a printer
// here prints service.Text.

// printer prints an operation's result; owner is the process that
// answered when another process owns the index.
type printer func(env *cliEnv, res any, owner *share.OwnerInfo) error

// printers are the renderings of the operations that have one.
var printers = map[string]printer{
	"search":          typed(printSearch),
	"similar":         typed(printSimilar),
	"related":         typed(printRelated),
	"pack":            typed(printPack),
	"callers":         typed(graphPrinter("callers")),
	"callees":         typed(graphPrinter("callees")),
	"tests":           typed(graphPrinter("tests")),
	"implementations": typed(graphPrinter("implementations")),
	"symbols":         typed(printSymbols),
	"pins":            typed(printPins),
	"pin":             typed(printPins),
	"unpin":           typed(printPins),
	"files":           typed(printFiles),
	"stats":           printStats,
}

// typed adapts a printer of one result type.
func typed[Res any](p func(env *cliEnv, res *Res) error) printer {
	return func(env *cliEnv, res any, _ *share.OwnerInfo) error { return p(env, res.(*Res)) }
}

func printSearch(env *cliEnv, res *service.SearchResult) error {
	for _, n := range res.Notes {
		fmt.Fprintf(env.stderr, "note: %s\n", n)
	}
	if len(res.Hits) == 0 {
		env.printf("no results for %q\n", res.Query)
		return nil
	}
	for i, h := range res.Hits {
		env.printf("%2d. %s  %s (%s)  %.3f  [%s]\n", i+1, span(h.Location), h.Symbol, h.Kind, h.Score, strings.Join(h.Sources, " "))
	}
	return nil
}

// span renders path:start-end.
func span(l service.Location) string {
	return fmt.Sprintf("%s:%d-%d", l.Path, l.StartLine, l.EndLine)
}

func printSimilar(env *cliEnv, res *service.SearchResult) error {
	if len(res.Hits) == 0 {
		env.printf("no similar code found\n")
	}
	for i, h := range res.Hits {
		env.printf("%2d. %s  %s (%s)  %.3f\n", i+1, span(h.Location), h.Symbol, h.Kind, h.Score)
	}
	return nil
}

func printRelated(env *cliEnv, res *service.RelatedResult) error {
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
}

// printPack prints the pack's text, and a summary on stderr; a pack in
// format json prints as one JSON object whose items carry their text.
func printPack(env *cliEnv, p *service.PackResult) error {
	if p.Format == packs.FormatJSON {
		p.Text = ""
		return env.printJSON(p)
	}
	fmt.Fprint(env.stdout, p.Text)
	fmt.Fprintf(env.stderr, "pack: %d/%d tokens, %s, %d dropped for budget, %.0f ms\n",
		p.Tokens, p.Budget, plural(len(p.Items), "item", "items"), p.Dropped, p.LatencyMs)
	for _, n := range p.Notes {
		fmt.Fprintf(env.stderr, "note: %s\n", n)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// graphPrinter prints callers, callees or tests, what names them.
func graphPrinter(what string) func(env *cliEnv, res *service.GraphResult) error {
	return func(env *cliEnv, res *service.GraphResult) error {
		for i, r := range res.Results {
			if i > 0 {
				env.printf("\n")
			}
			d := r.Definition
			env.printf("%s of %s (%s:%d, %s)\n", what, d.Symbol, d.Path, d.NameRange.StartLine, d.Kind)
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
				if r.Omitted > 0 {
					env.printf("  … %s more (raise --limit)\n", plural(r.Omitted, "name-only guess", "name-only guesses"))
				}
			} else if r.Omitted > 0 {
				env.printf("  … %s left out (--guesses lists them)\n", plural(r.Omitted, "name-only guess", "name-only guesses"))
			}
			if len(r.Unresolved) > 0 {
				env.printf("  outside the workspace or unresolved: %s\n", strings.Join(r.Unresolved, ", "))
			}
		}
		return nil
	}
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

func printSymbols(env *cliEnv, res *service.SymbolsResult) error {
	for _, s := range res.Symbols {
		env.printf("%s  %s (%s)  %s\n", span(s.Location), s.Symbol, s.Kind, s.Signature)
	}
	if res.More > 0 {
		fmt.Fprintf(env.stderr, "note: %d more definitions (--limit N lists more)\n", res.More)
	}
	return nil
}

func printPins(env *cliEnv, res *service.PinsResult) error {
	if len(res.Pins) == 0 {
		env.printf("nothing is pinned\n")
		return nil
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
	return nil
}

func printStats(env *cliEnv, res any, owner *share.OwnerInfo) error {
	st := res.(*service.StatsResult)
	env.printf("root:      %s\nindex:     %s (%s)\n", st.Root, st.Index, humanBytes(st.IndexBytes))
	env.printf("files:     %d\nsymbols:   %d\nchunks:    %d\nlines:     %d\n", st.Files, st.Symbols, st.Chunks, st.Lines)
	last := st.LastIndex
	if last == "" {
		last = "never completed"
	}
	env.printf("indexed:   %s\n", last)
	env.printf("vectors:   %s\n", describeEmbeddings(st.Embeddings))
	var langs []string
	for l, n := range st.Languages {
		langs = append(langs, l+"="+strconv.Itoa(n))
	}
	sort.Strings(langs)
	env.printf("languages: %s\n", strings.Join(langs, " "))
	if owner != nil {
		env.printf("owner:     process %d (%s)\n", owner.PID, owner.Role)
	}
	return nil
}

// listFiles answers files without opening the index: what the workspace's
// rules index is a question about the files, not the index.
func listFiles(ctx context.Context, env *cliEnv, raw json.RawMessage) (any, error) {
	var req service.FilesRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, err
	}
	cfg, err := env.config()
	if err != nil {
		return nil, err
	}
	return service.ListFiles(ctx, env.root, cfg, req)
}

func printFiles(env *cliEnv, res *service.FilesResult) error {
	if d := res.Why; d != nil {
		verdict := "excluded"
		if d.Included {
			verdict = "included"
		}
		env.printf("%s: %s", quoteName(d.Path), verdict)
		if d.Rule != "" || d.Source != "" {
			env.printf(" by %s", d.Source)
			if d.Rule != "" {
				env.printf(" (%s)", d.Rule)
			}
		}
		env.printf("\n")
		return nil
	}
	for _, f := range res.Files {
		env.printf("%s\t%s\n", quoteName(f.Path), f.Language)
	}
	return nil
}
