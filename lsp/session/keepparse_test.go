package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenBufferParsedAhead: an opened buffer of a parsed language large
// enough is parsed before its first edit, its parse outlives a save, and
// closing the buffer drops it.
func TestOpenBufferParsedAhead(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	b.WriteString("package big\n")
	for i := 0; b.Len() < 64<<10; i++ {
		fmt.Fprintf(&b, "\n// F%d returns %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
	}
	text := []byte(b.String())
	path := filepath.Join(root, "big.go")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{DBPath: t.TempDir(), Workers: 1})
	defer s.CloseFolder(root)
	set := DefaultSettings()
	set.Embeddings = false
	must(t, s.OpenFolder(context.Background(), root, set, nil))
	kept := func() bool {
		fe, release := s.folderOf(path).acquire()
		defer release()
		eng, _ := fe.local()
		return eng != nil && eng.ParseKept("big.go")
	}
	s.DidOpen(path, text, 1)
	poll(t, "the opened buffer parsed ahead", func() (bool, string) { return kept(), "" })
	edited := append(append([]byte(nil), text...), "\nfunc Added() {}\n"...)
	s.DidChange(path, edited, 2)
	must(t, s.Sync(context.Background(), path, NeedStore))
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	s.DidSave(path, edited, 2)
	must(t, s.Sync(context.Background(), path, NeedStore))
	if !kept() {
		t.Error("the saved buffer lost its parse")
	}
	s.DidClose(path, nil, 2)
	poll(t, "the closed buffer's parse dropped", func() (bool, string) { return !kept(), "" })
}
