package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/context-ls/context-ls/store"
)

// TestUnindexedFilesAreNotReadAgain: an extension-less file that no
// language takes is recorded when the walk reads it, and trusted while its
// size and modification time hold — even when its content changed
// underneath them, which shows it was not read; once they change it is
// read again (a shebang now makes it a script), and a deleted file's
// record goes.
func TestUnindexedFilesAreNotReadAgain(t *testing.T) {
	e, root := indexedEngine(t, map[string]string{
		"main.go": "package main\n\nfunc main() {}\n",
		"NOTES":   "plain words, no code\n",
		"Kconfig": "config FOO\n\tbool \"foo\"\n",
	})
	defer e.Close()
	ctx := context.Background()
	recorded := func() []string {
		t.Helper()
		snap := e.db.Snapshot()
		defer snap.Release()
		var out []string
		if err := snap.Unindexed(func(u store.Unindexed) bool { out = append(out, u.Path); return true }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	indexed := func(rel string) bool {
		snap := e.db.Snapshot()
		defer snap.Release()
		_, err := snap.File(rel)
		return err == nil
	}
	if got := recorded(); !slices.Equal(got, []string{"Kconfig", "NOTES"}) {
		t.Fatalf("recorded = %q", got)
	}

	// Same size and time, new content (a shebang): not read, so not seen.
	notes := filepath.Join(root, "NOTES")
	st, err := os.Stat(notes)
	if err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho a long line\n"[:st.Size()]
	if err := os.WriteFile(notes, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(notes, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if indexed("NOTES") {
		t.Fatal("NOTES was read again although its size and time held")
	}

	// A new time: read again, now a shell script.
	later := st.ModTime().Add(time.Minute)
	if err := os.Chtimes(notes, later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "Kconfig")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !indexed("NOTES") {
		t.Fatal("NOTES with a shebang and a new time is not indexed")
	}
	if got := recorded(); len(got) != 0 {
		t.Fatalf("records after NOTES became a script and Kconfig went: %q", got)
	}
}
