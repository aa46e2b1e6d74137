package engine

import (
	"fmt"

	"github.com/context-ls/context-ls/packs"
)

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
