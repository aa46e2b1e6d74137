package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/context-ls/context-ls/engine"
)

// engineFolders returns the open folders served by the engine backend.
func engineFolders(env *CommandEnv) ([]*backendFolder, error) {
	var out []*backendFolder
	for _, h := range env.Folders() {
		f, err := handleOf(h)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no workspace folder is open: %w", ErrFolderUnavailable)
	}
	return out, nil
}

// detachedProgress starts progress that outlives the command's response
// (a background job): on the client's workDoneToken when it sent one,
// else on a server-created token, else nowhere (nil). The caller ends it.
func (e *CommandEnv) detachedProgress(title, unit string) *progress {
	if len(e.token) > 0 && !isNull(e.token) {
		return startProgress(e.s.ctx, e.s.conn, e.token, false, title, unit, e.s.opts.ClientRequestTimeout)
	}
	return e.s.newServerProgress(title, unit)
}

// maxSearchK bounds contextLs.search's k.
const maxSearchK = 100

// SearchArgs are the arguments of contextLs.search.
type SearchArgs struct {
	Query     string   `json:"query" doc:"what to look for: words, identifiers or a question"`
	K         int      `json:"k,omitempty" doc:"number of hits, 1 to 100 (default 10)"`
	Languages []string `json:"languages,omitempty" doc:"only chunks of these languages (\"go\", \"python\", \"markdown\", …)"`
	Kinds     []string `json:"kinds,omitempty" doc:"only chunks of these kinds (\"function\", \"method\", \"markdown_section\", …)"`
	Paths     []string `json:"paths,omitempty" doc:"globs on folder-relative paths (\"**\" crosses directories); a glob starting with ! excludes"`
	MinScore  float64  `json:"minScore,omitempty" doc:"drop hits whose score (0 to 1) is below this"`
}

func (a *SearchArgs) validate() error {
	switch {
	case strings.TrimSpace(a.Query) == "":
		return errors.New("query: required")
	case a.K < 0 || a.K > maxSearchK:
		return fmt.Errorf("k: must be between 1 and %d (0: the default 10)", maxSearchK)
	case a.MinScore < 0 || a.MinScore > 1:
		return errors.New("minScore: must be between 0 and 1")
	}
	return nil
}

// SearchResult is the result of contextLs.search.
type SearchResult struct {
	Query string      `json:"query" doc:"the query"`
	Hits  []SearchHit `json:"hits" doc:"best first, across every workspace folder"`
}

// SearchHit is one located snippet.
type SearchHit struct {
	Location LocationResult `json:"location" doc:"where the snippet is: its exact span in the file"`
	Folder   string         `json:"folder" doc:"URI of the workspace folder holding it"`
	Path     string         `json:"path" doc:"path relative to the folder"`
	Symbol   string         `json:"symbol" doc:"the definition the snippet is about (or its label)"`
	Kind     string         `json:"kind" doc:"chunk kind: function, method, class, markdown_section, …"`
	Language string         `json:"language" doc:"language of the file"`
	Score    float64        `json:"score" doc:"relevance from 0 to 1"`
	Sources  []string       `json:"sources" doc:"the retrieval legs that found it (bm25, symbol)"`
	Text     string         `json:"text" doc:"the snippet: the file's text over location (contextLs.definition resolves positions inside it)"`
}

// folderHit is an engine hit and its folder.
type folderHit struct {
	f *backendFolder
	h engine.Hit
}

func runSearch(ctx context.Context, env *CommandEnv, a SearchArgs) (SearchResult, error) {
	folders, err := engineFolders(env)
	if err != nil {
		return SearchResult{}, err
	}
	k := a.K
	if k == 0 {
		k = 10
	}
	req := engine.SearchRequest{Query: a.Query, K: k, Languages: a.Languages, Kinds: a.Kinds, Paths: a.Paths, MinScore: a.MinScore}
	var all []folderHit
	for _, f := range folders {
		hits, err := f.search(ctx, req)
		if err != nil {
			return SearchResult{}, err
		}
		for _, h := range hits {
			all = append(all, folderHit{f, h})
		}
	}
	return SearchResult{Query: a.Query, Hits: mergeHits(env, all, k)}, nil
}

// mergeHits ranks hits of several folders by score, keeps the best k and
// locates them.
func mergeHits(env *CommandEnv, all []folderHit, k int) []SearchHit {
	sort.SliceStable(all, func(i, j int) bool { return all[i].h.Score > all[j].h.Score })
	if len(all) > k {
		all = all[:k]
	}
	out := []SearchHit{}
	conv := env.Locations(hitLocations(all))
	for i, fh := range all {
		h := fh.h
		out = append(out, SearchHit{
			Location: conv[i], Folder: PathToURI(fh.f.root), Path: h.Path,
			Symbol: h.Symbol, Kind: h.Kind, Language: h.Language, Score: h.Score,
			Sources: append([]string{}, h.Sources...), Text: h.Text,
		})
	}
	return out
}

// search runs one engine search on the folder's current snapshot.
func (f *backendFolder) search(ctx context.Context, req engine.SearchRequest) ([]engine.Hit, error) {
	_, snap, done, err := f.snapshotOf()
	if err != nil {
		return nil, err
	}
	defer done()
	res, err := snap.Search(ctx, req)
	if err != nil {
		if errors.Is(err, path.ErrBadPattern) {
			return nil, invalidParams("arguments[0].paths: %v", err)
		}
		return nil, fmt.Errorf("search in %s: %w", f.root, err)
	}
	return res.Hits, nil
}

// hitLocations locates snippets exactly: a snippet's text starts inside
// its first line (a method's chunk starts at its indentation), found by
// matching the text's first line against the end of that line in the
// current file; its end follows from the text. When the file changed so
// that the text no longer matches, the snippet is placed at column 0.
func hitLocations(hits []folderHit) []Location {
	type key struct {
		f   *backendFolder
		rel string
	}
	cache := map[key]*Mapper{}
	out := make([]Location, 0, len(hits))
	for _, fh := range hits {
		k := key{fh.f, fh.h.Path}
		m, ok := cache[k]
		if !ok {
			if fe, release, err := fh.f.engineOf(); err == nil {
				if content, err := fh.f.content(fe, fh.h.Path); err == nil {
					m = NewMapper(content)
				}
				release()
			}
			cache[k] = m
		}
		out = append(out, Location{Path: fh.f.abs(fh.h.Path), Range: snippetRange(m, fh.h.StartLine-1, fh.h.Text)})
	}
	return out
}

// snippetRange is the range of text placed on line (0-based) of the file
// m maps (nil: unknown content).
func snippetRange(m *Mapper, line int, text string) Range {
	first, _, _ := strings.Cut(text, "\n")
	col := 0
	if m != nil {
		start := m.PointOffset(Point{Line: line})
		end := m.PointOffset(Point{Line: line, Column: 1 << 30})
		if l := m.Text()[start:end]; bytes.HasSuffix(l, []byte(first)) {
			col = len(l) - len(first)
		}
	}
	r := Range{Start: Point{Line: line, Column: col}}
	n := strings.Count(text, "\n")
	if n == 0 {
		r.End = Point{Line: line, Column: col + len(text)}
	} else {
		r.End = Point{Line: line + n, Column: len(text) - strings.LastIndexByte(text, '\n') - 1}
	}
	return r
}

// SnippetDefinitionArgs are the arguments of contextLs.definition.
type SnippetDefinitionArgs struct {
	Location *LocationResult `json:"location" doc:"the snippet's location, as a command returned it"`
	Position *PositionArg    `json:"position" doc:"a position inside the snippet text: line counted from the snippet's first line (0), character in UTF-16 units from the start of that line of the snippet"`
}

func (a *SnippetDefinitionArgs) validate() error {
	switch {
	case a.Location == nil || a.Location.URI == "":
		return errors.New("location.uri: required")
	case a.Position == nil:
		return errors.New("position: required")
	case a.Location.Range.End.Line < a.Location.Range.Start.Line:
		return errors.New("location.range: end before start")
	case a.Position.Line > a.Location.Range.End.Line-a.Location.Range.Start.Line:
		return fmt.Errorf("position.line: %d is past the snippet's last line %d", a.Position.Line, a.Location.Range.End.Line-a.Location.Range.Start.Line)
	}
	return nil
}

func runSnippetDefinition(ctx context.Context, env *CommandEnv, a SnippetDefinitionArgs) ([]LocationResult, error) {
	if _, err := engineFolders(env); err != nil {
		return nil, err
	}
	pos := PositionArg{Line: a.Location.Range.Start.Line + a.Position.Line, Character: a.Position.Character}
	if a.Position.Line == 0 {
		pos.Character += a.Location.Range.Start.Character
	}
	place, err := env.ResolvePlace(PlaceArgs{URI: a.Location.URI, Position: &pos})
	if err != nil {
		return nil, err
	}
	f, err := handleOf(place.Folder)
	if err != nil {
		return nil, err
	}
	locs, err := f.b.definition(ctx, place.Folder, Place{Path: place.Path, Point: *place.Point})
	if err != nil {
		return nil, err
	}
	return env.Locations(locs), nil
}

// StatsArgs are the (empty) arguments of contextLs.stats.
type StatsArgs struct{}

// StatsResult is the result of contextLs.stats.
type StatsResult struct {
	Folders []FolderStats `json:"folders" doc:"one entry per workspace folder"`
	Jobs    []JobStatus   `json:"jobs" doc:"recent reindex jobs, oldest first"`
}

// FolderStats describes one folder's index.
type FolderStats struct {
	URI        string         `json:"uri" doc:"folder URI"`
	Index      string         `json:"index" doc:"index directory"`
	Files      int            `json:"files" doc:"files indexed"`
	Symbols    int            `json:"symbols" doc:"definitions indexed"`
	Chunks     int            `json:"chunks" doc:"chunks indexed"`
	Lines      int            `json:"lines" doc:"lines indexed"`
	Languages  map[string]int `json:"languages" doc:"files per language"`
	IndexBytes int64          `json:"indexBytes" doc:"size of the index on disk"`
	Indexing   IndexingStats  `json:"indexing" doc:"how complete the index is"`
	Embeddings string         `json:"embeddings" doc:"embeddings state: off, unavailable: reason, loading, embedding or ready"`
	Vectors    VectorStats    `json:"vectors" doc:"the semantic index"`
	Queries    QueryLatency   `json:"queries" doc:"search latency since the folder opened"`
	CacheHit   Measure        `json:"cacheHitRate" doc:"embedding cache hit rate"`
	PackTokens Measure        `json:"avgPackTokens" doc:"average tokens of the context packs contextLs.contextPack built"`
	Overlays   int            `json:"openBuffers" doc:"open documents tracked (their unsaved text is what queries see)"`
	Recent     []string       `json:"recent" doc:"recent indexing activity, newest last"`
}

// IndexingStats tells how complete a folder's index is.
type IndexingStats struct {
	State     string  `json:"state" doc:"running, done, cancelled or failed: reason (the latest full index run)"`
	Done      int     `json:"done" doc:"files processed in the running or last run"`
	Total     int     `json:"total" doc:"files that run had to process"`
	Complete  float64 `json:"complete" doc:"0 to 1; queries meanwhile answer from the part indexed so far"`
	LastIndex string  `json:"lastIndex,omitempty" doc:"RFC 3339 time the last full index completed"`
}

// QueryLatency summarises search latency.
type QueryLatency struct {
	Count int     `json:"count" doc:"searches answered"`
	P50Ms float64 `json:"p50Ms" doc:"median latency in milliseconds"`
	P95Ms float64 `json:"p95Ms" doc:"95th percentile latency in milliseconds"`
}

// VectorStats describes a folder's semantic index.
type VectorStats struct {
	Model    string `json:"model,omitempty" doc:"embedding model id (name@sha)"`
	Vectors  int    `json:"vectors" doc:"chunks with a vector"`
	Pending  int    `json:"pending" doc:"files queued for embedding"`
	Embedded int64  `json:"embedded" doc:"vectors computed since the folder opened (the rest came from the cache)"`
}

// Measure is a figure that a build may not have.
type Measure struct {
	Value       *float64 `json:"value,omitempty" doc:"the figure"`
	Unavailable string   `json:"unavailable,omitempty" doc:"why there is no figure"`
}

func runStats(_ context.Context, env *CommandEnv, _ StatsArgs) (StatsResult, error) {
	folders, err := engineFolders(env)
	if err != nil {
		return StatsResult{}, err
	}
	res := StatsResult{Folders: []FolderStats{}, Jobs: []JobStatus{}}
	for _, f := range folders {
		fs, err := f.stats()
		if err != nil {
			return StatsResult{}, err
		}
		res.Folders = append(res.Folders, fs)
	}
	b := folders[0].b
	b.mu.RLock()
	jobs := append([]*reindexJob(nil), b.jobs...)
	b.mu.RUnlock()
	for _, j := range jobs {
		res.Jobs = append(res.Jobs, j.status())
	}
	return res, nil
}

func (f *backendFolder) stats() (FolderStats, error) {
	fe, release, err := f.engineOf()
	if err != nil {
		return FolderStats{}, err
	}
	defer release()
	snap := fe.eng.Snapshot()
	st, err := snap.Stats()
	snap.Release()
	if err != nil {
		return FolderStats{}, fmt.Errorf("stats of %s: %w", f.root, err)
	}
	out := FolderStats{
		URI: PathToURI(f.root), Index: st.DBPath,
		Files: st.Files, Symbols: st.Symbols, Chunks: st.Chunks, Lines: st.Lines,
		Languages: st.Languages, IndexBytes: st.DBSizeBytes,
		Indexing: IndexingStats{
			State: fe.bootstrapState(), Done: st.Indexing.Done, Total: st.Indexing.Total,
			Complete: st.Indexing.Complete, LastIndex: st.LastIndex,
		},
		Queries:    QueryLatency{Count: st.Queries.Count, P50Ms: st.Queries.P50Ms, P95Ms: st.Queries.P95Ms},
		Embeddings: embeddingsState(st.Embeddings),
		Vectors: VectorStats{Model: st.Embeddings.Model, Vectors: st.Embeddings.Vectors,
			Pending: st.Embeddings.Pending, Embedded: st.Embeddings.Embedded},
		CacheHit:   cacheHitRate(st.Embeddings),
		PackTokens: f.averagePackTokens(),
		Overlays:   f.docs.count(),
		Recent:     append([]string{}, st.Recent...),
	}
	if out.Languages == nil {
		out.Languages = map[string]int{}
	}
	return out, nil
}

// embeddingsState renders the engine's embeddings state: "off",
// "unavailable: reason", or the state with its reason if any.
func embeddingsState(st engine.EmbeddingStats) string {
	state := st.State
	if state == "" {
		state = engine.EmbedOff
	}
	if st.Reason != "" && state != engine.EmbedOff {
		return state + ": " + st.Reason
	}
	return state
}

// cacheHitRate is the embedding cache's hit rate once vectors have been
// looked up, else why there is none.
func cacheHitRate(st engine.EmbeddingStats) Measure {
	switch {
	case st.State == engine.EmbedOff || st.State == "":
		return Measure{Unavailable: "embeddings are off"}
	case st.State == engine.EmbedUnavailable:
		return Measure{Unavailable: "embeddings are unavailable"}
	case st.Vectors == 0 && st.Embedded == 0:
		return Measure{Unavailable: "no vector looked up yet"}
	}
	rate := st.CacheHitRate
	return Measure{Value: &rate}
}

// ReindexArgs are the arguments of contextLs.reindex.
type ReindexArgs struct {
	Confirm bool     `json:"confirm,omitempty" doc:"must be true to re-index (not needed with dryRun)"`
	DryRun  bool     `json:"dryRun,omitempty" doc:"only list what would be re-indexed and removed"`
	Paths   []string `json:"paths,omitempty" doc:"files or directories: file URIs, absolute paths, or paths relative to a workspace folder; empty: every folder entirely"`
}

// ReindexResult is the result of contextLs.reindex.
type ReindexResult struct {
	JobID   string          `json:"jobId,omitempty" doc:"the job, started in the background (not for dryRun); contextLs.stats reports its state"`
	DryRun  bool            `json:"dryRun" doc:"true when nothing was changed"`
	Folders []ReindexFolder `json:"folders" doc:"the folders the job covers"`
}

// ReindexFolder is one folder of a reindex.
type ReindexFolder struct {
	URI     string        `json:"uri" doc:"folder URI"`
	Reindex []ReindexItem `json:"reindex,omitempty" doc:"dryRun: files that would be parsed and written again"`
	Remove  []ReindexItem `json:"remove,omitempty" doc:"dryRun: indexed files that would be dropped (gone, excluded or not indexable)"`
}

// ReindexItem is one file of a reindex plan.
type ReindexItem struct {
	Location LocationResult `json:"location" doc:"the file (its start)"`
	Path     string         `json:"path" doc:"path relative to the folder"`
}

func runReindex(ctx context.Context, env *CommandEnv, a ReindexArgs) (ReindexResult, error) {
	folders, err := engineFolders(env)
	if err != nil {
		return ReindexResult{}, err
	}
	if !a.Confirm && !a.DryRun {
		return ReindexResult{}, invalidParams("arguments[0].confirm: must be true: contextLs.reindex parses every selected file again (pass dryRun: true to see which)")
	}
	b := folders[0].b
	targets, rels, err := b.planFor(folders, a.Paths)
	if err != nil {
		return ReindexResult{}, err
	}
	res := ReindexResult{DryRun: a.DryRun, Folders: []ReindexFolder{}}
	if a.DryRun {
		for _, f := range targets {
			rf, err := f.planReindex(ctx, env, rels[f])
			if err != nil {
				return ReindexResult{}, err
			}
			res.Folders = append(res.Folders, rf)
		}
		return res, nil
	}
	job, err := b.startReindex(targets, rels, func() *progress { return env.detachedProgress("Re-indexing", "files") })
	if err != nil {
		return ReindexResult{}, err
	}
	res.JobID = job.ID
	for _, f := range targets {
		res.Folders = append(res.Folders, ReindexFolder{URI: PathToURI(f.root)})
	}
	return res, nil
}

// planReindex lists a folder's reindex plan.
func (f *backendFolder) planReindex(ctx context.Context, env *CommandEnv, rels []string) (ReindexFolder, error) {
	fe, release, err := f.engineOf()
	if err != nil {
		return ReindexFolder{}, err
	}
	plan, err := fe.eng.PlanReindex(ctx, rels)
	release()
	if err != nil {
		return ReindexFolder{}, fmt.Errorf("planning the reindex of %s: %w", f.root, err)
	}
	items := func(list []string) []ReindexItem {
		locs := make([]Location, len(list))
		for i, rel := range list {
			locs[i] = Location{Path: f.abs(rel)}
		}
		conv := env.Locations(locs)
		out := make([]ReindexItem, len(list))
		for i, rel := range list {
			out[i] = ReindexItem{Location: conv[i], Path: rel}
		}
		return out
	}
	return ReindexFolder{URI: PathToURI(f.root), Reindex: items(plan.Reindex), Remove: items(plan.Remove)}, nil
}

// SimilarArgs are the arguments of contextLs.similar: a text, or a place
// (a selection, the definition at a position, or a symbol's definition).
type SimilarArgs struct {
	PlaceArgs
	Text string `json:"text,omitempty" doc:"code or prose to find neighbours of, instead of a place"`
	K    int    `json:"k,omitempty" doc:"number of hits (default 10)"`
}

// maxSimilarK bounds contextLs.similar's k.
const maxSimilarK = 100

func (a *SimilarArgs) validate() error {
	if a.K < 0 || a.K > maxSimilarK {
		return fmt.Errorf("k: must be between 1 and %d (0: the default 10)", maxSimilarK)
	}
	return nil
}

// similarSource is the snippet contextLs.similar looks for neighbours of,
// and the place it comes from (left out of the answer).
type similarSource struct {
	text       string
	f          *backendFolder
	rel        string
	start, end int // 1-based lines
}

func runSimilar(ctx context.Context, env *CommandEnv, a SimilarArgs) (SearchResult, error) {
	folders, err := engineFolders(env)
	if err != nil {
		return SearchResult{}, err
	}
	src := similarSource{text: a.Text}
	if strings.TrimSpace(a.Text) == "" {
		sp, err := resolveSpan(env, folders, a.PlaceArgs, spanDefinition)
		if err != nil {
			return SearchResult{}, err
		}
		src = similarSource{text: sp.text(), f: sp.f, rel: sp.rel, start: sp.r.Start.Line + 1, end: sp.r.End.Line + 1}
	} else if err := checkPlace(env, a.PlaceArgs, false); err != nil {
		return SearchResult{}, err
	}
	k := a.K
	if k == 0 {
		k = 10
	}
	var all []folderHit
	var unavailable []error
	for _, f := range folders {
		req := engine.SimilarRequest{Text: src.text, K: k}
		if f == src.f {
			req.ExcludePath, req.ExcludeStart, req.ExcludeEnd = src.rel, src.start, src.end
		}
		hits, err := f.similar(ctx, req)
		if errors.Is(err, engine.ErrNoEmbeddings) {
			unavailable = append(unavailable, fmt.Errorf("%s: %w", f.root, err))
			continue
		}
		if err != nil {
			return SearchResult{}, err
		}
		for _, h := range hits {
			all = append(all, folderHit{f, h})
		}
	}
	if len(unavailable) == len(folders) {
		return SearchResult{}, errors.Join(unavailable...)
	}
	return SearchResult{Query: src.text, Hits: mergeHits(env, all, k)}, nil
}

// similar runs one engine Similar on the folder's current snapshot.
func (f *backendFolder) similar(ctx context.Context, req engine.SimilarRequest) ([]engine.Hit, error) {
	_, snap, done, err := f.snapshotOf()
	if err != nil {
		return nil, err
	}
	defer done()
	res, err := snap.Similar(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("similar in %s: %w", f.root, err)
	}
	return res.Hits, nil
}
