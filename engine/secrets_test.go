package engine

import (
	"context"
	"testing"

	"github.com/context-ls/context-ls/internal/secrettest"
	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/store"
)

// TestPlantedSecretsScrubPerPiece indexes the planted-secret workspace
// and scrubs each piece the front ends return on its own — a definition's
// signature, its doc comment, a chunk's text and summary — as they do:
// no fragment of a secret may survive, however chunking cut the file.
func TestPlantedSecretsScrubPerPiece(t *testing.T) {
	root := t.TempDir()
	secrets, err := secrettest.Plant(root)
	if err != nil {
		t.Fatal(err)
	}
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	res, err := e.Index(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != len(secrettest.Paths()) {
		t.Fatalf("%d of the %d planted files indexed", res.Files, len(secrettest.Paths()))
	}
	snap := e.Snapshot()
	defer snap.Release()
	syms, err := snap.AllSymbols()
	if err != nil {
		t.Fatal(err)
	}
	check := func(what, text string) {
		t.Helper()
		for _, l := range secrettest.Leaks(packs.Scrub(text), secrets) {
			t.Errorf("%s: %s in %q", what, l, packs.Scrub(text))
		}
	}
	for _, s := range syms {
		check(s.Path+" "+s.Qualified()+" signature", s.Signature)
		check(s.Path+" "+s.Qualified()+" doc", s.Doc)
	}
	pieces := 0
	err = snap.st.Files(func(rec store.FileRecord) bool {
		for _, id := range rec.Chunks {
			c, err := snap.st.Chunk(id)
			if err != nil {
				t.Fatal(err)
			}
			check(c.Path+" chunk text", c.Text)
			check(c.Path+" chunk summary", c.Summary)
			pieces++
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d kinds, %d secrets; %d definitions and %d chunks scrubbed piece by piece",
		len(secrettest.Kinds(secrets)), len(secrets), len(syms), pieces)
}
