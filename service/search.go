package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
)

// vectorLoadWait bounds how long a search waits for cached vectors to load
// in a process that just opened the index (the CLI, a fresh MCP server):
// long enough for a large index, short enough never to stall a query.
const vectorLoadWait = 5 * time.Second

// Search answers a ranked, located search: BM25, symbol names, file
// evidence and embeddings fused (see engine.Snapshot.Search).
func (s *Service) Search(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	notes := s.awaitVectors(ctx)
	return withSnapshot(s, func(snap *engine.Snapshot) (*SearchResult, error) {
		res, err := snap.Search(ctx, engine.SearchRequest{
			Query: req.Query, K: req.K, Languages: req.Languages, Kinds: req.Kinds, Paths: req.Paths, MinScore: req.MinScore,
		})
		if err != nil {
			return nil, globError(err)
		}
		return &SearchResult{Query: req.Query, Hits: s.hits(snap, res.Hits), Notes: notes}, nil
	})
}

// awaitVectors waits while cached vectors load (a fresh process) and says
// when the vector leg is left out.
func (s *Service) awaitVectors(ctx context.Context) []string {
	st := s.e.WaitVectorsLoaded(ctx, vectorLoadWait)
	switch st.State {
	case engine.EmbedLoading:
		return []string{fmt.Sprintf("embeddings are still loading (%d vectors so far): the vector leg is left out of this answer", st.Vectors)}
	case engine.EmbedUnavailable:
		return []string{"embeddings unavailable (" + st.Reason + "): words, names and the code graph only; `context-ls doctor` explains"}
	}
	return nil
}

// globError names the paths argument when a glob is malformed.
func globError(err error) error {
	if errors.Is(err, path.ErrBadPattern) {
		return invalid("paths", "%v", err)
	}
	return err
}

// Similar finds the code nearest a snippet, or a selection, by embedding.
// The selection itself is left out of the answer.
func (s *Service) Similar(ctx context.Context, req SimilarRequest) (*SearchResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	hasSnippet := strings.TrimSpace(req.Snippet) != ""
	switch {
	case hasSnippet && req.Selection.Given():
		return nil, invalid("snippet", "give a snippet or a selection (file, lines, symbol), not both")
	case !hasSnippet && !req.Selection.Given():
		return nil, invalid("snippet", "required without a selection (file with lines or line, or symbol)")
	}
	s.awaitVectors(ctx)
	return withSnapshot(s, func(snap *engine.Snapshot) (*SearchResult, error) {
		tx := s.texts(snap)
		ereq := engine.SimilarRequest{Text: req.Snippet, K: req.K, Languages: req.Languages, Paths: req.Paths}
		if !hasSnippet {
			sp, err := s.resolveSelection(snap, tx, req.Selection, spanDefinition)
			if err != nil {
				return nil, err
			}
			ft, err := tx.get(sp.rel)
			if err != nil {
				return nil, classify("file", sp.rel, err)
			}
			ereq.Text = ft.text(sp.start, sp.end)
			ereq.ExcludePath, ereq.ExcludeStart, ereq.ExcludeEnd = sp.rel, sp.start, sp.end
		}
		res, err := snap.Similar(ctx, ereq)
		if err != nil {
			return nil, globError(err)
		}
		return &SearchResult{Query: s.scrub.Scrub(ereq.Text), Hits: s.hits(snap, res.Hits)}, nil
	})
}

// hits converts engine hits: exact locations, text scrubbed.
func (s *Service) hits(snap *engine.Snapshot, in []engine.Hit) []Hit {
	return s.hitList(snap, in, true)
}

// hitList is hits; without withText the hits carry no text (located by
// it all the same), and nothing is scrubbed.
func (s *Service) hitList(snap *engine.Snapshot, in []engine.Hit, withText bool) []Hit {
	tx := s.texts(snap)
	out := make([]Hit, 0, len(in))
	for _, h := range in {
		hit := Hit{
			Location: s.location(h.Path, snippetRange(tx, h.Path, h.StartLine, h.EndLine, h.Text)),
			Symbol:   h.Symbol, Kind: h.Kind, Language: h.Language, Score: h.Score,
			Sources: append([]string{}, h.Sources...),
		}
		if withText {
			hit.Text = s.scrub.Scrub(h.Text)
		}
		out = append(out, hit)
	}
	return out
}

// snippetRange locates a snippet exactly: its text starts inside its first
// line (a method's chunk starts at its indentation), found by matching the
// text's first line against the end of that line in the file as the
// request sees it; its end follows from the text. When the file no longer
// holds the text there, the span is its whole lines.
func snippetRange(tx *texts, rel string, start, end int, text string) Range {
	r := lines(start, end)
	ft, err := tx.get(rel)
	if err != nil || text == "" {
		return r
	}
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimSuffix(first, "\r")
	l := ft.line(start - 1)
	if !bytes.HasSuffix(l, []byte(first)) {
		return r
	}
	startByte := len(l) - len(first)
	r.StartColumn = ft.charColumn(start-1, startByte)
	trimmed := strings.TrimRight(text, "\r\n")
	last := trimmed
	endByte := 0
	if i := strings.LastIndexByte(trimmed, '\n'); i >= 0 {
		last = trimmed[i+1:]
	} else {
		endByte = startByte
	}
	r.EndLine = start + strings.Count(trimmed, "\n")
	r.EndColumn = ft.charColumn(r.EndLine-1, endByte+len(last))
	return r
}

// mergeHits merges search hits by score (a stable sort keeps folder order
// among equals) and keeps the best k.
func mergeHits[Req interface{ SearchRequest | SimilarRequest }](req any, results []any) any {
	k := reflect.ValueOf(req).FieldByName("K").Interface().(int)
	out := &SearchResult{Hits: []Hit{}}
	for _, r := range results {
		sr := r.(*SearchResult)
		if out.Query == "" {
			out.Query = sr.Query
		}
		out.Hits = append(out.Hits, sr.Hits...)
		out.Notes = append(out.Notes, sr.Notes...)
	}
	sort.SliceStable(out.Hits, func(i, j int) bool { return out.Hits[i].Score > out.Hits[j].Score })
	if k > 0 && len(out.Hits) > k {
		out.Hits = out.Hits[:k]
	}
	return out
}
