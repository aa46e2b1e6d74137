package service

import (
	"context"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

// Stats answers the index's state: size, languages, completeness,
// embeddings, latency, packs, jobs and recent activity.
func (s *Service) Stats(_ context.Context, req StatsRequest) (*StatsResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	snap := s.e.Snapshot()
	st, err := snap.Stats()
	snap.Release()
	if err != nil {
		return nil, err
	}
	out := &StatsResult{
		Root: st.Root, URI: workspace.PathToURI(st.Root), Index: st.DBPath, Files: st.Files, Symbols: st.Symbols,
		Chunks: st.Chunks, Lines: st.Lines, Languages: st.Languages, IndexBytes: st.DBSizeBytes, LastIndex: st.LastIndex,
		Indexing: IndexingState{State: s.maint.scanState(), Running: st.Indexing.Running, Done: st.Indexing.Done,
			Total: st.Indexing.Total, Complete: st.Indexing.Complete,
			Rate: engineRate(st.Indexing.Bytes, st.Indexing.BytesTotal, st.Indexing.FilesPerSecond, st.Indexing.EtaSeconds)},
		Embeddings: embeddingsState(st.Embeddings),
		Storage: StorageState{State: st.Storage.State, Message: st.Storage.Message, FreeBytes: st.Storage.FreeBytes,
			MinFreeBytes: st.Storage.MinFreeBytes},
		Queries: QueryLatency{Count: st.Queries.Count, P50Ms: st.Queries.P50Ms, P95Ms: st.Queries.P95Ms},
		Packs:   PackStats{Count: int(s.packs.Load())},
		Jobs:    jobs.of(s.e.DBDir()),
		Recent:  st.Recent,
	}
	if s.buffers != nil {
		out.OpenBuffers = s.buffers.Open()
	}
	if out.Languages == nil {
		out.Languages = map[string]int{}
	}
	if out.Indexing.State == "" {
		out.Indexing.State = "idle"
		if st.Indexing.Running {
			out.Indexing.State = "running"
		}
	}
	if n := s.packs.Load(); n > 0 {
		avg := float64(s.packTokens.Load()) / float64(n)
		out.Packs.AvgTokens = &avg
	}
	return out, nil
}

// embeddingsState converts the engine's embedding statistics.
func embeddingsState(st engine.EmbeddingStats) EmbeddingsState {
	out := EmbeddingsState{State: st.State, Reason: st.Reason, Model: st.Model, Vectors: st.Vectors,
		Pending: st.Pending, Embedded: st.Embedded}
	if out.State == "" {
		out.State = engine.EmbedOff
	}
	if (out.State != engine.EmbedOff && out.State != engine.EmbedUnavailable) && (st.Vectors > 0 || st.Embedded > 0) {
		rate := st.CacheHitRate
		out.CacheHitRate = &rate
	}
	return out
}

// Files lists what the workspace's rules index, or explains the decision
// for one path.
func (s *Service) Files(ctx context.Context, req FilesRequest) (*FilesResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	return ListFiles(ctx, s.e.Root(), s.e.Config(), req)
}

// ListFiles answers files for a workspace without opening its index: the
// CLI asks it of a workspace whose index another process may hold.
func ListFiles(ctx context.Context, root string, cfg workspace.Config, req FilesRequest) (*FilesResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	if req.Why != "" {
		d, err := engine.ExplainFile(root, cfg, req.Why)
		if err != nil {
			return nil, classify("why", req.Why, err)
		}
		return &FilesResult{Why: &Decision{Path: d.Rel, Included: d.Included, Source: d.Source, Rule: d.Rule}}, nil
	}
	out := &FilesResult{Files: []FileEntry{}}
	err := engine.ListFiles(ctx, root, cfg, func(rel, lang string) {
		out.Files = append(out.Files, FileEntry{Path: rel, Language: lang})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Verify reads the whole index and checks it (engine.Verify): the store's
// blocks and records, the text index's segments, document count and
// watermark. What is damaged is marked to be rebuilt when the index is
// next opened; meanwhile answers come from what is intact.
func (s *Service) Verify(ctx context.Context, _ VerifyRequest) (*VerifyResult, error) {
	rep, err := s.e.Verify(ctx)
	if err != nil {
		return nil, classify("", "", err)
	}
	res := &VerifyResult{
		Damaged: rep.Damaged(), Rebuild: rep.Rebuild, Problems: []string{},
		Files: rep.Store.Files, Chunks: rep.Store.Chunks, Keys: rep.Store.Keys, TextDocs: rep.Text.Docs,
	}
	res.Problems = append(append(res.Problems, rep.Store.Problems...), rep.Text.Problems...)
	return res, nil
}
