package packs

import (
	"testing"

	"github.com/context-ls/context-ls/internal/secrettest"
)

// TestScrubPlantedWorkspace scrubs every file and buffer of the
// planted-secret workspace (secrettest) whole: no fragment of any secret
// may survive.
func TestScrubPlantedWorkspace(t *testing.T) {
	secrets := secrettest.Secrets()
	for _, files := range []map[string]string{secrettest.Files(), secrettest.Buffers()} {
		for rel, content := range files {
			out := Scrub(content)
			for _, l := range secrettest.Leaks(out, secrets) {
				t.Errorf("%s: %s in:\n%s", rel, l, out)
			}
		}
	}
}
