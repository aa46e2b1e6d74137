package engine

import (
	"fmt"
	"time"

	"github.com/context-ls/context-ls/packs"
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
