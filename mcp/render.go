package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/context-ls/context-ls/service"
)

// Text renderings of tool results: what an agent reads in content[0].
// Locations come first on each item, as path:start-end.

// span renders path:start-end (or path:line).
func span(l service.Location) string {
	if l.StartLine == 0 {
		return l.Path
	}
	if l.EndLine <= l.StartLine {
		return fmt.Sprintf("%s:%d", l.Path, l.StartLine)
	}
	return fmt.Sprintf("%s:%d-%d", l.Path, l.StartLine, l.EndLine)
}

// fenced wraps text in a code fence longer than any backtick run inside.
func fenced(text, lang string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + lang + "\n" + text + fence + "\n"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func writeHits(b *strings.Builder, hits []service.Hit) {
	for i, h := range hits {
		fmt.Fprintf(b, "\n%d. %s  %s (%s, %s)  score %.2f\n", i+1, span(h.Location), h.Symbol, h.Kind, h.Language, h.Score)
		b.WriteString(fenced(h.Text, h.Language))
	}
}

func renderHits(r *service.SearchResult) string {
	var b strings.Builder
	if len(r.Hits) == 0 {
		fmt.Fprintf(&b, "No hits for %q. Try other words or fewer filters; after changing files, refresh_context.\n", clip(r.Query))
	} else {
		fmt.Fprintf(&b, "%s for %q, best first:\n", plural(len(r.Hits), "hit", "hits"), clip(r.Query))
		writeHits(&b, r.Hits)
	}
	writeNotes(&b, r.Notes)
	return b.String()
}

// clip shortens a long query for a heading.
func clip(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 120 {
		return strings.ToValidUTF8(q[:120], "") + "…"
	}
	return q
}

func writeNotes(b *strings.Builder, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(b, "\nNote: %s\n", n)
	}
}

func renderSimilar(r *service.SearchResult) string {
	if len(r.Hits) == 0 {
		return "No similar code found.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s nearest to the snippet:\n", plural(len(r.Hits), "snippet", "snippets"))
	writeHits(&b, r.Hits)
	return b.String()
}

// renderPack is the pack text itself: it is what the budget bounds (with
// format json, the items).
func renderPack(r *service.PackResult) string {
	if len(r.Items) == 0 {
		msg := "The context pack is empty: nothing relevant was found."
		if len(r.Notes) > 0 {
			msg += " " + strings.Join(r.Notes, " ")
		}
		return msg + "\n"
	}
	if r.Text == "" {
		b, _ := json.MarshalIndent(r.Items, "", "  ")
		return string(b) + "\n"
	}
	return r.Text
}

func renderRelated(r *service.RelatedResult) string {
	var b strings.Builder
	if len(r.Items) == 0 {
		fmt.Fprintf(&b, "Nothing related to %s was found.\n", span(r.Selection))
	} else {
		fmt.Fprintf(&b, "%s related to %s, best first:\n", plural(len(r.Items), "item", "items"), span(r.Selection))
	}
	for i, it := range r.Items {
		fmt.Fprintf(&b, "\n%d. %s  %s (%s)  %s, score %.2f\n", i+1, span(it.Location), it.Symbol, it.Kind, it.Reason, it.Score)
		b.WriteString(fenced(it.Text, it.Language))
	}
	writeNotes(&b, r.Notes)
	return b.String()
}

// renderGraph renders callers, callees or tests.
func renderGraph(what string) func(*service.GraphResult) string {
	return func(r *service.GraphResult) string {
		var b strings.Builder
		for i, t := range r.Results {
			if i > 0 {
				b.WriteString("\n")
			}
			d := t.Definition
			fmt.Fprintf(&b, "%s of %s (%s, %s):\n", what, d.Symbol, d.Kind, span(d.Location))
			if len(t.Items) == 0 {
				b.WriteString("  none found\n")
			}
			writeGraphItems(&b, t.Items)
			if t.Truncated > 0 {
				fmt.Fprintf(&b, "  … %d more (raise limit to see them)\n", t.Truncated)
			}
			if len(t.Guesses) > 0 {
				fmt.Fprintf(&b, "  name-only guesses (calls of the same name the graph cannot tie to this definition):\n")
				writeGraphItems(&b, t.Guesses)
				if t.Omitted > 0 {
					fmt.Fprintf(&b, "  … %s more (raise limit to see them)\n", plural(t.Omitted, "name-only guess", "name-only guesses"))
				}
			} else if t.Omitted > 0 {
				fmt.Fprintf(&b, "  … %s left out (guesses: true lists them)\n", plural(t.Omitted, "name-only guess", "name-only guesses"))
			}
			if len(t.Unresolved) > 0 {
				fmt.Fprintf(&b, "  unresolved (library or builtin): %s\n", strings.Join(t.Unresolved, ", "))
			}
		}
		return b.String()
	}
}

func writeGraphItems(b *strings.Builder, items []service.GraphItem) {
	for _, it := range items {
		fmt.Fprintf(b, "  %s  %s (%s)  %s, %s", span(it.Location), it.Symbol, it.Kind, it.Confidence, it.Reason)
		if it.Via != "" {
			fmt.Fprintf(b, ", via %s", it.Via)
		}
		if len(it.Sites) > 0 {
			lines := make([]string, 0, len(it.Sites))
			for _, s := range it.Sites {
				lines = append(lines, strconv.Itoa(s.StartLine))
			}
			fmt.Fprintf(b, "  [call at line %s]", strings.Join(lines, ", "))
		}
		b.WriteString("\n")
	}
}

func renderSymbols(r *service.SymbolsResult) string {
	if len(r.Symbols) == 0 {
		return "No definitions found.\n"
	}
	var b strings.Builder
	if r.Fuzzy {
		b.WriteString("No definition has that name exactly; the closest:\n")
	}
	for _, sym := range r.Symbols {
		fmt.Fprintf(&b, "%s  %s (%s)", span(sym.Location), sym.Symbol, sym.Kind)
		if sym.Signature != "" {
			fmt.Fprintf(&b, "  %s", sym.Signature)
		}
		b.WriteString("\n")
	}
	if r.More > 0 {
		fmt.Fprintf(&b, "… %d more definitions: ask with a larger limit, or a name, query or file.\n", r.More)
	}
	return b.String()
}

func renderRefresh(r *service.RefreshResult) string {
	var b strings.Builder
	if r.Status == "started" {
		if len(r.Files) == 0 {
			b.WriteString("Refresh of the whole workspace started in the background.\n")
		} else {
			paths := make([]string, len(r.Files))
			for i, f := range r.Files {
				paths[i] = f.Path
			}
			fmt.Fprintf(&b, "Refresh started in the background for: %s.\n", strings.Join(paths, ", "))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Refreshed in %.0f ms.", r.DurationMs)
	if len(r.Files) > 0 {
		parts := make([]string, len(r.Files))
		for i, f := range r.Files {
			parts[i] = f.Path + " " + f.Outcome
		}
		fmt.Fprintf(&b, " Files: %s.", strings.Join(parts, "; "))
	}
	if s := r.Scan; s != nil {
		fmt.Fprintf(&b, " Workspace scan: %d files, %d indexed, %d unchanged, %d removed, %d failed.",
			s.Files, s.Indexed, s.Unchanged, s.Removed, s.Failed)
	}
	b.WriteString("\n")
	return b.String()
}

func renderStats(r *StatsResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Workspace %s, index %s (%.1f MB)\n", r.Root, r.Index, float64(r.IndexBytes)/(1<<20))
	fmt.Fprintf(&b, "Indexed: %d files, %d symbols, %d chunks, %d lines\n", r.Files, r.Symbols, r.Chunks, r.Lines)
	if len(r.Languages) > 0 {
		langs := make([]string, 0, len(r.Languages))
		for l := range r.Languages {
			langs = append(langs, l)
		}
		sort.Slice(langs, func(i, j int) bool {
			if r.Languages[langs[i]] != r.Languages[langs[j]] {
				return r.Languages[langs[i]] > r.Languages[langs[j]]
			}
			return langs[i] < langs[j]
		})
		parts := make([]string, len(langs))
		for i, l := range langs {
			parts[i] = fmt.Sprintf("%s %d", l, r.Languages[l])
		}
		fmt.Fprintf(&b, "Languages: %s\n", strings.Join(parts, ", "))
	}
	switch {
	case r.Indexing.Running:
		fmt.Fprintf(&b, "Indexing: running, %d of %d files (%.0f%%)\n", r.Indexing.Done, r.Indexing.Total, 100*r.Indexing.Complete)
	case r.LastIndex != "":
		fmt.Fprintf(&b, "Indexing: complete (last full scan %s)\n", r.LastIndex)
	default:
		b.WriteString("Indexing: no full scan completed yet\n")
	}
	e := r.Embeddings
	fmt.Fprintf(&b, "Embeddings: %s", e.State)
	if e.Reason != "" {
		fmt.Fprintf(&b, " (%s)", e.Reason)
	}
	if e.Model != "" {
		fmt.Fprintf(&b, ", model %s, %d vectors, %d files pending", e.Model, e.Vectors, e.Pending)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Queries: %d, p50 %.1f ms, p95 %.1f ms\n", r.Queries.Count, r.Queries.P50Ms, r.Queries.P95Ms)
	for _, j := range r.Jobs {
		fmt.Fprintf(&b, "Rebuild %s\n", jobLine(&j))
	}
	if s := r.Sharing; s != nil {
		if s.State == "owner" {
			fmt.Fprintf(&b, "Sharing: this MCP server (pid %d) owns the index; others reach it through %s\n", s.ServerPID, s.Socket)
		} else {
			fmt.Fprintf(&b, "Sharing: the index is owned by pid %d (%s); this MCP server (pid %d) forwards its calls\n", s.OwnerPID, s.OwnerRole, s.ServerPID)
		}
	}
	return b.String()
}

func renderRebuild(r *service.ReindexResult) string {
	what := "the whole workspace"
	if len(r.Paths) > 0 {
		what = strings.Join(r.Paths, ", ")
	}
	if r.Status == "started" {
		return fmt.Sprintf("Rebuild %s started for %s. Poll get_rebuild_status with jobId %q.\n", r.JobID, what, r.JobID)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A rebuild of %s would parse %s again and remove %s from the index (nothing was changed).\n",
		what, plural(r.ReindexCount, "file", "files"), plural(r.RemoveCount, "file", "files"))
	list := func(title string, files []string, n int) {
		if len(files) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s: %s", title, strings.Join(files[:min(len(files), 20)], ", "))
		if n > 20 {
			fmt.Fprintf(&b, " … (%d more)", n-20)
		}
		b.WriteString("\n")
	}
	list("Re-index", r.Reindex, r.ReindexCount)
	list("Remove", r.Remove, r.RemoveCount)
	return b.String()
}

func jobLine(j *service.JobStatus) string {
	s := fmt.Sprintf("%s: %s", j.JobID, j.Status)
	switch j.Status {
	case "running":
		s += fmt.Sprintf(", %d of %d files", j.Done, j.Total) + j.Rate.Describe()
	case "done", "failed", "cancelled":
		s += fmt.Sprintf(", %d files re-indexed, %d removed, %d failed in %.0f ms", j.Indexed, j.Removed, j.Failed, j.DurationMs)
	}
	if j.Error != "" {
		s += " — " + j.Error
	}
	return s
}

func renderJob(j *service.JobStatus) string { return "Rebuild " + jobLine(j) + "\n" }
