package packing

// The other sources of a selection: documentation sections that mention
// it, files changed with it in git, code similar to it by embedding.

import (
	"context"
	"errors"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

// docs adds documentation sections that mention one of names; the reason
// says which it mentions.
func (g *gatherer) docs(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	q := strings.Join(names, " ")
	res, err := g.s.Search(ctx, engine.SearchRequest{Query: q, K: packDocHits, Kinds: []string{"markdown_section"}})
	if err != nil && !errors.Is(err, engine.ErrEmptyQuery) {
		return err
	}
	i := 0
	for _, h := range res.Hits {
		if h.Kind != "markdown_section" {
			continue // Search's symbol leg does not apply the kind filter
		}
		name := mentioned(h.Text, names)
		if name == "" {
			continue // matched the words of a name, not the name
		}
		i++
		g.add(packs.Candidate{
			Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol, Kind: h.Kind,
			Language: h.Language, Text: h.Text, Score: scoreDoc * h.Score * (1 - 0.1*float64(i-1)),
			Source: packs.SourceDoc, Reason: "mentions " + name,
		})
	}
	return nil
}

// mentioned returns the first of names that text holds as a word, or "".
func mentioned(text string, names []string) string {
	for _, n := range names {
		for i := 0; ; {
			j := strings.Index(text[i:], n)
			if j < 0 {
				break
			}
			a, b := i+j, i+j+len(n)
			if (a == 0 || !isIdentByte(text[a-1])) && (b == len(text) || !isIdentByte(text[b])) {
				return n
			}
			i = b
		}
	}
	return ""
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// coChanged adds, for the files most often changed together with rel, the
// chunk that best matches the selected symbols (else the file's first).
func (g *gatherer) coChanged(ctx context.Context, rel string, selected []string) error {
	cctx, cancel := context.WithTimeout(ctx, coChangeTimeout)
	defer cancel()
	files, err := packs.CoChanged(cctx, g.s.Root(), rel, packCoCommits)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		g.notes = append(g.notes, "co-changed files skipped: "+err.Error())
		return nil
	}
	n := 0
	for _, f := range files {
		if n >= packCoChanged {
			break
		}
		first, err := g.s.FirstChunk(f)
		if err != nil {
			continue // deleted, ignored or not indexable
		}
		var c packs.Candidate
		if len(selected) > 0 {
			res, err := g.s.Search(ctx, engine.SearchRequest{Query: strings.Join(selected, " "), K: 1, Paths: []string{"/" + escapeGlob(f)}})
			if err == nil && len(res.Hits) > 0 {
				h := res.Hits[0]
				c = packs.Candidate{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol,
					Kind: h.Kind, Language: h.Language, Text: h.Text}
			}
		}
		if c.Text == "" {
			c = packs.Candidate{Path: first.Path, StartLine: first.StartLine, EndLine: first.EndLine, Symbol: first.Label,
				Kind: first.Kind, Language: first.Language, Text: first.Text}
		}
		c.Score = scoreCoChange * (1 - 0.1*float64(n))
		c.Source = packs.SourceCochange
		c.Reason = "co-changed with " + rel
		g.add(c)
		n++
	}
	return nil
}

// escapeGlob makes a path match itself as a glob (with a leading "/",
// which anchors it at the root).
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\!`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// similar adds the code nearest to the selection by embedding; without
// embeddings the source is skipped and named in the notes.
func (g *gatherer) similar(ctx context.Context, sel Selection, selText string) error {
	res, err := g.s.Similar(ctx, engine.SimilarRequest{Text: selText, K: packSimilar,
		ExcludePath: sel.Path, ExcludeStart: sel.StartLine, ExcludeEnd: sel.EndLine})
	if errors.Is(err, engine.ErrNoEmbeddings) || errors.Is(err, engine.ErrEmptyQuery) {
		g.notes = append(g.notes, "similar code skipped: "+err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	for i, h := range res.Hits {
		g.add(packs.Candidate{
			Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol, Kind: h.Kind,
			Language: h.Language, Text: h.Text, Score: scoreSimilar * (1 - 0.15*float64(i)),
			Source: packs.SourceSimilar, Reason: "similar to selection",
		})
	}
	return nil
}
