package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

// The tools' implementations. Each runs in the process that owns the
// index, against its engine.

func runQueryContext(ctx context.Context, s *service, a *QueryContextArgs) (*QueryResult, error) {
	snap := s.e.Snapshot()
	defer snap.Release()
	res, err := snap.Search(ctx, engine.SearchRequest{
		Query: a.Query, K: a.K, Languages: a.Languages, Kinds: a.Kinds, Paths: a.Paths, MinScore: a.MinScore,
	})
	if err != nil {
		if errors.Is(err, path.ErrBadPattern) {
			return nil, argErrorf("paths", "%v", err)
		}
		return nil, err
	}
	hits, err := s.hits(res.Hits)
	if err != nil {
		return nil, err
	}
	return &QueryResult{Query: a.Query, Hits: hits}, nil
}

// hits converts engine hits, scrubbing their text.
func (s *service) hits(in []engine.Hit) ([]Hit, error) {
	sc, err := s.scrubber()
	if err != nil {
		return nil, err
	}
	out := make([]Hit, 0, len(in))
	for _, h := range in {
		out = append(out, Hit{
			Location: s.loc(h.Path, h.StartLine, h.EndLine), Symbol: h.Symbol, Kind: h.Kind, Language: h.Language,
			Score: h.Score, Sources: append([]string{}, h.Sources...), Text: sc.Scrub(h.Text),
		})
	}
	return out, nil
}

func runContextPack(ctx context.Context, s *service, a *ContextPackArgs) (*PackResult, error) {
	if strings.TrimSpace(a.Query) == "" && a.File == "" {
		return nil, argErrorf("query", "required without file (give query, or file with optional lines, or both)")
	}
	if a.Lines != "" && a.File == "" {
		return nil, argErrorf("file", "required with lines")
	}
	req := engine.PackRequest{Query: a.Query, Budget: a.Budget, Format: a.Format, Task: a.Task}
	if a.File != "" {
		rel, err := s.fileRel("file", a.File)
		if err != nil {
			return nil, err
		}
		start, end, err := parseLines("lines", a.Lines)
		if err != nil {
			return nil, err
		}
		req.Selection = &engine.Selection{Path: rel, StartLine: start, EndLine: end}
	}
	snap := s.e.Snapshot()
	defer snap.Release()
	p, err := snap.Pack(ctx, req)
	if err != nil {
		return nil, fileError("file", a.File, err)
	}
	out := &PackResult{Text: p.Text, Format: p.Format, Tokens: p.Tokens, Budget: p.Budget, Dropped: p.Dropped,
		Items: make([]PackItem, 0, len(p.Items)), Notes: p.Notes}
	for _, it := range p.Items {
		out.Items = append(out.Items, PackItem{
			Location: s.loc(it.Path, it.StartLine, it.EndLine), Symbol: it.Symbol, Kind: it.Kind, Reason: it.Reason,
			IncludeMode: it.IncludeMode, Score: it.Score, Tokens: it.Tokens, Shortened: it.Shortened,
		})
	}
	if out.Format == "" {
		out.Format = packs.DefaultFormat
	}
	return out, nil
}

func runRelatedContext(ctx context.Context, s *service, a *RelatedContextArgs) (*RelatedResult, error) {
	rel, err := s.fileRel("file", a.File)
	if err != nil {
		return nil, err
	}
	start, end, err := parseLines("lines", a.Lines)
	if err != nil {
		return nil, err
	}
	snap := s.e.Snapshot()
	defer snap.Release()
	r, err := snap.Related(ctx, engine.Selection{Path: rel, StartLine: start, EndLine: end})
	if err != nil {
		return nil, fileError("file", a.File, err)
	}
	out := &RelatedResult{
		Selection: s.loc(r.Selection.Path, r.Selection.StartLine, r.Selection.EndLine),
		Items:     make([]RelatedItem, 0, min(len(r.Items), a.K)), Notes: r.Notes,
	}
	for i, it := range r.Items { // already scrubbed by the engine
		if i == a.K {
			break
		}
		out.Items = append(out.Items, RelatedItem{
			Location: s.loc(it.Path, it.StartLine, it.EndLine), Symbol: it.Symbol, Kind: it.Kind,
			Language: it.Language, Source: it.Source, Reason: it.Reason, Score: it.Score, Tokens: it.Tokens, Text: it.Text,
		})
	}
	return out, nil
}

// target converts graph-tool arguments to an engine target.
func (s *service) target(a *TargetArgs) (engine.Target, error) {
	sym := strings.TrimSpace(a.Symbol)
	switch {
	case sym != "" && (a.File != "" || a.Line != 0):
		return engine.Target{}, argErrorf("symbol", "give either symbol, or file and line, not both")
	case sym != "":
		if a.Column != 0 {
			return engine.Target{}, argErrorf("column", "only with file and line")
		}
		return engine.Target{Symbol: sym}, nil
	case a.File == "" && a.Line == 0:
		return engine.Target{}, argErrorf("symbol", "required: name the definition by symbol, or by file and line")
	case a.File == "":
		return engine.Target{}, argErrorf("file", "required with line")
	case a.Line == 0:
		return engine.Target{}, argErrorf("line", "required with file (1-based)")
	}
	rel, err := s.fileRel("file", a.File)
	if err != nil {
		return engine.Target{}, err
	}
	t := engine.Target{Path: rel, Line: a.Line}
	if a.Column > 0 {
		t.Col = s.byteColumn(rel, a.Line, a.Column)
	}
	return t, nil
}

// byteColumn converts a 1-based character column on a 1-based line of rel
// to the engine's 1-based byte column, reading the file from disk (the
// column is kept when the file or line cannot be read).
func (s *service) byteColumn(rel string, line, col int) int {
	content, err := s.e.Workspace().ReadFile(rel)
	if err != nil {
		return col
	}
	for i := 1; i < line; i++ {
		nl := bytes.IndexByte(content, '\n')
		if nl < 0 {
			return col
		}
		content = content[nl+1:]
	}
	if nl := bytes.IndexByte(content, '\n'); nl >= 0 {
		content = content[:nl]
	}
	off, runes := 0, 0
	for off < len(content) && runes < col-1 {
		_, size := utf8.DecodeRune(content[off:])
		off += size
		runes++
	}
	return off + (col - 1 - runes) + 1
}

// graphQuery runs one of the graph queries and converts its answer.
func (s *service) graphQuery(ctx context.Context, a *TargetArgs,
	q func(*engine.Snapshot, context.Context, engine.Target) ([]engine.GraphResult, error)) (*GraphResult, error) {
	t, err := s.target(a)
	if err != nil {
		return nil, err
	}
	snap := s.e.Snapshot()
	defer snap.Release()
	results, err := q(snap, ctx, t)
	switch {
	case errors.Is(err, engine.ErrNoSymbol) && t.Symbol != "":
		return nil, argErrorf("symbol", "no definition named %q is indexed", t.Symbol)
	case errors.Is(err, engine.ErrNoSymbol):
		return nil, argErrorf("line", "no definition at %s:%d", t.Path, t.Line)
	case err != nil:
		return nil, fileError("file", a.File, err)
	}
	out := &GraphResult{Results: make([]GraphTarget, 0, len(results))}
	for _, r := range results {
		d := r.Target
		gt := GraphTarget{
			Definition: Definition{
				Location: s.loc(d.Path, d.Span.Start.Line+1, d.Span.End.Line+1),
				Symbol:   d.QualifiedName(), Kind: string(d.Kind), Signature: d.Signature,
			},
			Items: make([]GraphItem, 0, min(len(r.Items), a.Limit)), Omitted: r.Omitted, Unresolved: r.Unresolved,
		}
		for i, it := range r.Items {
			if i == a.Limit {
				gt.Truncated = len(r.Items) - a.Limit
				break
			}
			gi := GraphItem{
				Location: s.loc(it.Path, it.StartLine, it.EndLine), Symbol: it.Symbol, Kind: it.Kind,
				Confidence: it.Confidence, Reason: it.Reason, Via: it.Via,
			}
			for _, site := range it.Sites {
				gi.Sites = append(gi.Sites, CallSite{Line: site.Line, Column: site.Col})
			}
			gt.Items = append(gt.Items, gi)
		}
		out.Results = append(out.Results, gt)
	}
	return out, nil
}

func runCallers(ctx context.Context, s *service, a *TargetArgs) (*GraphResult, error) {
	return s.graphQuery(ctx, a, (*engine.Snapshot).Callers)
}

func runCallees(ctx context.Context, s *service, a *TargetArgs) (*GraphResult, error) {
	return s.graphQuery(ctx, a, (*engine.Snapshot).Callees)
}

func runTests(ctx context.Context, s *service, a *TargetArgs) (*GraphResult, error) {
	return s.graphQuery(ctx, a, (*engine.Snapshot).Tests)
}

func runFindSimilar(ctx context.Context, s *service, a *FindSimilarArgs) (*SimilarResult, error) {
	snap := s.e.Snapshot()
	defer snap.Release()
	res, err := snap.Similar(ctx, engine.SimilarRequest{Text: a.Snippet, K: a.K, Languages: a.Languages, Paths: a.Paths})
	switch {
	case errors.Is(err, path.ErrBadPattern):
		return nil, argErrorf("paths", "%v", err)
	case errors.Is(err, engine.ErrNoEmbeddings):
		return nil, fmt.Errorf("%w; start the server with an embedding model (context-ls model pull, or --model-path DIR) and wait until get_context_stats reports embeddings ready", err)
	case err != nil:
		return nil, err
	}
	hits, err := s.hits(res.Hits)
	if err != nil {
		return nil, err
	}
	return &SimilarResult{Hits: hits}, nil
}

// dbRel is the index directory relative to the root when it lies inside
// the workspace, else "".
func (s *service) dbRel() string {
	rel, err := s.e.Workspace().Resolve(s.e.DBDir())
	if err != nil || rel == "." {
		return ""
	}
	return rel
}

func runRefresh(ctx context.Context, s *service, a *RefreshArgs) (*RefreshResult, error) {
	rels := make([]string, 0, len(a.Paths))
	for i, p := range a.Paths {
		rel, err := s.rel(fmt.Sprintf("paths[%d]", i), p)
		if err != nil {
			return nil, err
		}
		rels = append(rels, rel)
	}
	if !a.Sync {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if _, err := refreshPaths(s.ctx, s.e, rels, s.dbRel()); err != nil && s.ctx.Err() == nil {
				s.log.Warn("background refresh", "paths", rels, "error", err)
			}
		}()
		res := &RefreshResult{Status: "started", Files: []FileOutcome{}}
		for _, rel := range rels {
			res.Files = append(res.Files, FileOutcome{Path: rel, Outcome: "queued"})
		}
		return res, nil
	}
	res, err := refreshPaths(ctx, s.e, rels, s.dbRel())
	if err != nil {
		return nil, err
	}
	return &res, nil
}

func runStats(_ context.Context, s *service, _ *StatsArgs) (*StatsResult, error) {
	snap := s.e.Snapshot()
	st, err := snap.Stats()
	snap.Release()
	if err != nil {
		return nil, err
	}
	out := &StatsResult{
		Root: st.Root, Index: st.DBPath, Files: st.Files, Symbols: st.Symbols, Chunks: st.Chunks, Lines: st.Lines,
		Languages: st.Languages, IndexBytes: st.DBSizeBytes, LastIndex: st.LastIndex,
		Indexing: IndexingState{Running: st.Indexing.Running, Done: st.Indexing.Done, Total: st.Indexing.Total, Complete: st.Indexing.Complete},
		Embeddings: EmbeddingsState{State: st.Embeddings.State, Reason: st.Embeddings.Reason, Model: st.Embeddings.Model,
			Vectors: st.Embeddings.Vectors, Pending: st.Embeddings.Pending},
		Queries:  QueryLatency{Count: st.Queries.Count, P50Ms: st.Queries.P50Ms, P95Ms: st.Queries.P95Ms},
		Rebuilds: jobs.of(s.e.DBDir()),
		Recent:   st.Recent,
	}
	if out.Languages == nil {
		out.Languages = map[string]int{}
	}
	if out.Embeddings.State == "" {
		out.Embeddings.State = engine.EmbedOff
	}
	return out, nil
}

// maxPlanList bounds the files a validateOnly answer lists.
const maxPlanList = 200

func runRebuild(ctx context.Context, s *service, a *RebuildArgs) (*RebuildResult, error) {
	if !a.Confirm && !a.ValidateOnly {
		return nil, argErrorf("confirm", "must be true to start a rebuild (it parses every selected file again); pass validateOnly: true to see what it would do")
	}
	rels := make([]string, 0, len(a.Paths))
	for i, p := range a.Paths {
		rel, err := s.rel(fmt.Sprintf("paths[%d]", i), p)
		if err != nil {
			return nil, err
		}
		rels = append(rels, rel)
	}
	if a.ValidateOnly {
		plan, err := s.e.PlanReindex(ctx, rels)
		if err != nil {
			return nil, err
		}
		return &RebuildResult{
			Status: "validated", Paths: rels, ReindexCount: len(plan.Reindex), RemoveCount: len(plan.Remove),
			Reindex: plan.Reindex[:min(len(plan.Reindex), maxPlanList)], Remove: plan.Remove[:min(len(plan.Remove), maxPlanList)],
		}, nil
	}
	j, err := jobs.start(s.e.DBDir(), rels)
	if err != nil {
		return nil, err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		j.run(s.ctx, s.e, rels)
	}()
	return &RebuildResult{Status: "started", JobID: j.id, Paths: rels}, nil
}

func runRebuildStatus(_ context.Context, _ *service, a *RebuildStatusArgs) (*JobStatus, error) {
	j := jobs.get(a.JobID)
	if j == nil {
		return nil, argErrorf("jobId", "no rebuild job %q: jobs live in the process that owned the index when they started, which may have exited (get_context_stats lists recent jobs)", a.JobID)
	}
	st := j.status()
	return &st, nil
}
