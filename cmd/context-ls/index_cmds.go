package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
)

func init() {
	register(command{name: "index", usage: "[--root DIR] [--db DIR] [--json] [--verify]",
		summary: "create or incrementally update the index", run: runIndex, indexed: true})
	register(command{name: "search", usage: "[--root DIR] [--k N] [--lang L,..] [--kind K,..] [--path GLOB] [--json] QUERY",
		summary: "ranked, located search (indexes first if needed)", run: runSearch, indexed: true})
	register(command{name: "symbols", usage: "[--root DIR] [--json] [NAME]",
		summary: "list definitions (all, or those matching NAME)", run: runSymbols, indexed: true})
	register(command{name: "stats", usage: "[--root DIR] [--json]",
		summary: "index size, languages and freshness", run: runStats, indexed: true})
	register(command{name: "files", usage: "[--root DIR] [--why PATH]",
		summary: "list what would be indexed, or explain why PATH is or is not", run: runFiles})
}

func runIndex(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	verify := fs.Bool("verify", false, "read the whole index, check it and rebuild what is damaged (exit status 1 when damaged)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	e, done, err := env.open(ctx)
	if err != nil {
		return err
	}
	defer func() { done() }()
	if *verify {
		return verifyIndex(ctx, env, e, &done)
	}
	// A progress line is drawn only on a terminal, at most once a second.
	drawn, last := false, time.Now()
	res, err := e.Index(ctx, func(p engine.Progress) {
		if env.jsonOut || !isTerminal(env.stderr) || p.Phase != "index" || time.Since(last) < time.Second {
			return
		}
		last, drawn = time.Now(), true
		fmt.Fprintf(env.stderr, "\rindexing %d/%d files", p.Done, p.Total)
	})
	if drawn {
		fmt.Fprintln(env.stderr)
	}
	if err != nil {
		return err
	}
	// The index includes vectors when embeddings are on: wait for them
	// (interrupting is safe: computed vectors are cached, the next run
	// resumes).
	if err := e.WaitEmbeddings(ctx, env.embedProgress()); err != nil {
		return err
	}
	snap := e.Snapshot()
	st, err := snap.Stats()
	snap.Release()
	if err != nil {
		return err
	}
	if env.jsonOut {
		return env.printJSON(struct {
			engine.IndexResult
			Embeddings engine.EmbeddingStats `json:"embeddings"`
		}{res, st.Embeddings})
	}
	env.printf("%d files: %d indexed, %d unchanged, %d deleted, %d failed; %d symbols, %d chunks in %s\n",
		res.Files, res.Indexed, res.Unchanged, res.Deleted, res.Failed, res.Symbols, res.Chunks, res.Duration.Round(time.Millisecond))
	env.printf("embeddings: %s\n", describeEmbeddings(st.Embeddings))
	return nil
}

// verifyIndex checks the whole index (engine.Verify) and prints one line:
// intact (exit status 0), or damaged (exit status 1) and rebuilt — by
// reopening it, which starts the damaged part empty, and indexing. In a
// server that owns the index (the command was forwarded to it) the
// rebuild waits until the server next opens the index. done releases the
// engine e; it is replaced when the index is reopened.
func verifyIndex(ctx context.Context, env *cliEnv, e *engine.Engine, done *func()) error {
	rep, err := e.Verify(ctx)
	if err != nil {
		return err
	}
	out := struct {
		engine.VerifyReport
		Reindexed int    `json:"reindexed"`
		Message   string `json:"message"`
	}{VerifyReport: rep}
	switch {
	case !rep.Damaged():
		out.Message = fmt.Sprintf("index ok: %d files, %d chunks, %d keys and %d text documents checked",
			rep.Store.Files, rep.Store.Chunks, rep.Store.Keys, rep.Text.Docs)
	case env.owned != nil:
		out.Message = fmt.Sprintf("index damaged (%s): the %s is rebuilt when the server next opens the index; restart it",
			rep.Problem(), rep.Rebuild)
	default:
		(*done)()
		if e, *done, err = env.open(ctx); err != nil {
			return err
		}
		res, err := e.Index(ctx, nil)
		if err != nil {
			return fmt.Errorf("index damaged (%s), rebuild failed: %w", rep.Problem(), err)
		}
		out.Reindexed = res.Indexed
		if rep.Rebuild == "text" {
			out.Message = fmt.Sprintf("index damaged (%s): text index rebuilt from the store", rep.Problem())
		} else {
			out.Message = fmt.Sprintf("index damaged (%s): rebuilt, %d files re-indexed", rep.Problem(), res.Indexed)
		}
	}
	if env.jsonOut {
		if err := env.printJSON(out); err != nil {
			return err
		}
	} else {
		env.printf("%s\n", out.Message)
	}
	if rep.Damaged() {
		return exitStatus(exitError)
	}
	return nil
}

func runSearch(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	k := fs.Int("k", 10, "number of hits")
	var langs, kinds, paths multiFlag
	fs.Var(&langs, "lang", "only these languages (comma-separated)")
	fs.Var(&kinds, "kind", "only these chunk kinds (function, method, markdown_section, …)")
	fs.Var(&paths, "path", "only paths matching this `GLOB` (repeatable; !GLOB excludes)")
	minScore := fs.Float64("min-score", 0, "drop hits scoring below this (0..1)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(rest, " "))
	if query == "" {
		return usagef("missing QUERY")
	}
	if *k <= 0 {
		return usagef("--k must be positive")
	}
	return env.withIndex(ctx, func(e *engine.Engine, snap *engine.Snapshot) error {
		res, err := snap.Search(ctx, engine.SearchRequest{Query: query, K: *k, Languages: langs, Kinds: kinds, Paths: paths, MinScore: *minScore})
		if err != nil {
			return err
		}
		if env.jsonOut {
			return env.printJSON(res)
		}
		if len(res.Hits) == 0 {
			env.printf("no results for %q\n", query)
			return nil
		}
		for i, h := range res.Hits {
			env.printf("%2d. %s:%d-%d  %s (%s)  %.3f  [%s]\n", i+1, h.Path, h.StartLine, h.EndLine, h.Symbol, h.Kind, h.Score, strings.Join(h.Sources, " "))
		}
		return nil
	})
}

// symbolJSON is the CLI's JSON shape of a definition.
type symbolJSON struct {
	Path      string `json:"path"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Symbol    string `json:"symbol"`
	Kind      string `json:"kind"`
	Language  string `json:"language"`
	Signature string `json:"signature,omitempty"`
	Exported  bool   `json:"exported"`
}

func toSymbolJSON(si engine.SymbolInfo) symbolJSON {
	return symbolJSON{Path: si.Path, StartLine: si.Span.Start.Line + 1, EndLine: si.Span.End.Line + 1,
		Symbol: si.Qualified(), Kind: string(si.Kind), Language: si.Language, Signature: si.Signature, Exported: si.Exported}
}

func runSymbols(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	limit := fs.Int("limit", 0, "at most this many (0: all)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return usagef("at most one NAME")
	}
	return env.withIndex(ctx, func(e *engine.Engine, snap *engine.Snapshot) error {
		var syms []engine.SymbolInfo
		if len(rest) == 1 {
			if syms, err = snap.FindSymbols(rest[0]); err != nil {
				return err
			}
			if len(syms) == 0 { // no exact definition: fall back to fuzzy matching
				if syms, err = snap.WorkspaceSymbols(ctx, rest[0], 50); err != nil {
					return err
				}
			}
		} else if syms, err = snap.AllSymbols(); err != nil {
			return err
		}
		if *limit > 0 && len(syms) > *limit {
			syms = syms[:*limit]
		}
		out := make([]symbolJSON, len(syms))
		for i, si := range syms {
			out[i] = toSymbolJSON(si)
		}
		if env.jsonOut {
			return env.printJSON(map[string]any{"symbols": out})
		}
		for _, s := range out {
			env.printf("%s:%d-%d  %s (%s)  %s\n", s.Path, s.StartLine, s.EndLine, s.Symbol, s.Kind, s.Signature)
		}
		return nil
	})
}

func runStats(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	e, done, err := env.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	snap := e.Snapshot()
	defer snap.Release()
	st, err := snap.Stats()
	if err != nil {
		return err
	}
	if env.jsonOut {
		return env.printJSON(st)
	}
	env.printf("root:      %s\nindex:     %s (%s)\n", st.Root, st.DBPath, humanBytes(st.DBSizeBytes))
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
	return nil
}

func runFiles(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(false)
	why := fs.String("why", "", "explain the decision for `PATH`")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	cfg, err := env.config()
	if err != nil {
		return err
	}
	if *why != "" {
		d, err := engine.ExplainFile(env.root, cfg, *why)
		if err != nil {
			return err
		}
		verdict := "excluded"
		if d.Included {
			verdict = "included"
		}
		env.printf("%s: %s", d.Rel, verdict)
		if d.Rule != "" || d.Source != "" {
			env.printf(" by %s", d.Source)
			if d.Rule != "" {
				env.printf(" (%s)", d.Rule)
			}
		}
		env.printf("\n")
		return nil
	}
	return engine.ListFiles(ctx, env.root, cfg, func(rel, lang string) {
		env.printf("%s\t%s\n", rel, lang)
	})
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func describeEmbeddings(st engine.EmbeddingStats) string {
	switch st.State {
	case engine.EmbedOff:
		return "off"
	case engine.EmbedUnavailable:
		return "unavailable: " + st.Reason
	}
	s := fmt.Sprintf("%s, %d vectors (%s)", st.State, st.Vectors, st.Model)
	if st.Pending > 0 {
		s += fmt.Sprintf(", %d files queued", st.Pending)
	}
	return s
}

// embedProgress draws embedding progress on a terminal.
func (env *cliEnv) embedProgress() func(engine.EmbeddingStats) {
	return func(st engine.EmbeddingStats) {
		if !env.jsonOut && isTerminal(env.stderr) {
			fmt.Fprintf(env.stderr, "embedding: %d vectors, %d files queued\n", st.Vectors, st.Pending)
		}
	}
}
