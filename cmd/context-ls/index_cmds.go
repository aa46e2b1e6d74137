package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/context-ls/context-ls/service"
)

func init() {
	register(command{name: "index", usage: "[--root DIR] [--db DIR] [--json] [--verify] [DIR]",
		summary: "create or incrementally update the index", run: runIndex})
}

func runIndex(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	verify := fs.Bool("verify", false, "read the whole index, check it and rebuild what is damaged (exit status 1 when damaged)")
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	if err := env.rootArg(fs, rest); err != nil {
		return err
	}
	env.quietRebuild = *verify // the check's one line says so
	ix, err := env.openIndex(ctx)
	if err != nil {
		return err
	}
	defer func() { ix.close() }()
	if *verify {
		return verifyIndex(ctx, env, &ix)
	}
	// Progress: on a terminal a bar redrawn at most once a second; otherwise
	// (a log, a pipe) a plain line every ten seconds, so a run of minutes
	// shows it is alive; none with --json. The index includes vectors when
	// embeddings are on (interrupting is safe: computed vectors are cached,
	// the next run resumes).
	drawn, last := false, time.Now()
	term := isTerminal(env.stderr)
	ctx = service.WithProgress(ctx, func(p service.Progress) {
		if env.jsonOut || p.End {
			return
		}
		msg := p.Message
		if msg == "" {
			msg = fmt.Sprintf("%d/%d", p.Done, p.Total)
		}
		switch {
		case term && time.Since(last) >= time.Second:
			last, drawn = time.Now(), true
			fmt.Fprintf(env.stderr, "\r\033[K%s %s %s", strings.ToLower(p.Title), progressBar(p.Done, p.Total, 20), msg)
		case !term && time.Since(last) >= 10*time.Second:
			last = time.Now()
			fmt.Fprintf(env.stderr, "%s: %s\n", strings.ToLower(p.Title), msg)
		}
	})
	res, err := service.Do[service.IndexResult](ctx, ix, service.OpIndex, service.IndexRequest{Embeddings: true})
	if drawn {
		fmt.Fprintln(env.stderr)
	}
	if err != nil {
		return err
	}
	if env.jsonOut {
		return env.printJSON(res)
	}
	env.printf("%d files: %d indexed, %d unchanged, %d deleted, %d failed; %d symbols, %d chunks in %s\n",
		res.Files, res.Indexed, res.Unchanged, res.Deleted, res.Failed, res.Symbols, res.Chunks,
		time.Duration(res.DurationMs*float64(time.Millisecond)).Round(time.Millisecond))
	env.printf("embeddings: %s\n", describeEmbeddings(res.Embeddings))
	return nil
}

// progressBar draws done of total as a bar of width cells.
func progressBar(done, total, width int) string {
	n := 0
	if total > 0 {
		n = min(width, done*width/total)
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

// verifyIndex checks the whole index and prints one line: intact (exit
// status 0), or damaged (exit status 1) and rebuilt — by reopening it,
// which starts the damaged part empty, and indexing. When a server owns
// the index (the check was forwarded to it) the rebuild waits until the
// server next opens the index. *ix is replaced when the index is reopened.
func verifyIndex(ctx context.Context, env *cliEnv, ix **index) error {
	rep, err := service.Do[service.VerifyResult](ctx, *ix, service.OpVerify, service.VerifyRequest{})
	if err != nil {
		return err
	}
	out := struct {
		*service.VerifyResult
		Reindexed int    `json:"reindexed"`
		Message   string `json:"message"`
	}{VerifyResult: rep}
	problem := ""
	if len(rep.Problems) > 0 {
		problem = rep.Problems[0]
	}
	switch {
	case !rep.Damaged:
		out.Message = fmt.Sprintf("index ok: %d files, %d chunks, %d keys and %d text documents checked", rep.Files, rep.Chunks, rep.Keys, rep.TextDocs)
	case (*ix).x.Local() == nil:
		out.Message = fmt.Sprintf("index damaged (%s): the %s is rebuilt when the server that owns it next opens it; restart the server", problem, rep.Rebuild)
	default:
		(*ix).close()
		if *ix, err = env.openIndex(ctx); err != nil {
			return err
		}
		res, err := service.Do[service.IndexResult](ctx, *ix, service.OpIndex, service.IndexRequest{})
		if err != nil {
			return fmt.Errorf("index damaged (%s), rebuild failed: %w", problem, err)
		}
		out.Reindexed = res.Indexed
		if rep.Rebuild == "text" {
			out.Message = fmt.Sprintf("index damaged (%s): text index rebuilt from the store", problem)
		} else {
			out.Message = fmt.Sprintf("index damaged (%s): rebuilt, %d files re-indexed", problem, res.Indexed)
		}
	}
	if env.jsonOut {
		if err := env.printJSON(out); err != nil {
			return err
		}
	} else {
		env.printf("%s\n", out.Message)
	}
	if rep.Damaged {
		return exitStatus(exitError)
	}
	return nil
}

// quoteName quotes a path whose characters would break a line-per-file
// listing (a newline or tab in a file name); plain names print as they are.
func quoteName(p string) string {
	if strings.ContainsAny(p, "\n\r\t\"\\") || !isPrintable(p) {
		return strconv.Quote(p)
	}
	return p
}

func isPrintable(s string) bool {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return false
		}
	}
	return true
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

func describeEmbeddings(st service.EmbeddingsState) string {
	switch st.State {
	case "off":
		return "off"
	case "unavailable":
		return "unavailable: " + st.Reason
	}
	s := fmt.Sprintf("%s, %d vectors (%s)", st.State, st.Vectors, st.Model)
	if st.Pending > 0 {
		s += fmt.Sprintf(", %d files queued", st.Pending)
	}
	return s
}
