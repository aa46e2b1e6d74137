package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/workspace"
)

// Accessors for servers built on the engine (the MCP tool service).

// Scrubber returns the secret scrubber context packs use for this
// workspace: the built-in rules of package packs plus the configured
// scrub.patterns. Callers that show indexed text outside a pack (search
// hits, similar code) scrub it with this, so every surface redacts the
// same secrets.
func (e *Engine) Scrubber() (*packs.Scrubber, error) {
	sc, err := packs.NewScrubber(e.cfg.Scrub.Patterns)
	if err != nil {
		return nil, fmt.Errorf("scrub patterns of %s: %w", e.ws.Root(), err)
	}
	return sc, nil
}

// LastIndexed returns when a full scan of the workspace (Index, or a
// whole-workspace Reindex) last completed, and false if none ever did:
// until then queries answer from a partial index.
func (e *Engine) LastIndexed() (time.Time, bool) {
	v, err := e.db.Meta("lastIndex")
	if err != nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}

// WaitVectorsLoaded waits while embeddings are loading (the model opening
// and cached vectors being read), at most for d: a fresh process then
// searches with the vectors it has instead of silently without. It
// returns the embeddings state it ended with.
func (e *Engine) WaitVectorsLoaded(ctx context.Context, d time.Duration) EmbeddingStats {
	deadline := time.Now().Add(d)
	for {
		st := e.emb.stats()
		if st.State != EmbedLoading || time.Now().After(deadline) || ctx.Err() != nil {
			return st
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Config returns the workspace configuration the engine runs with.
func (e *Engine) Config() workspace.Config { return e.cfg }
