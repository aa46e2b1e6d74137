package engine

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/store"
)

// IndexedFiles returns the indexed paths equal to dir or below it, sorted;
// dir "." or "" lists every indexed file.
func (s *Snapshot) IndexedFiles(dir string) ([]string, error) {
	dir = strings.TrimSuffix(dir, "/")
	var out []string
	err := s.st.FileHeads(func(rec store.FileRecord, _ int) bool {
		if dir == "." || dir == "" || rec.Path == dir || strings.HasPrefix(rec.Path, dir+"/") {
			out = append(out, rec.Path)
		}
		return true
	})
	return out, err
}

// FileState is what the index holds about one file.
type FileState struct {
	Path     string `json:"path"`
	Language string `json:"language"`
	// Overlay is set when the indexed content came from an editor buffer.
	Overlay bool `json:"overlay"`
	// Hash identifies the indexed content (store.ContentHash).
	Hash string `json:"hash"`
	Note string `json:"note,omitempty"`
}

// File returns what the snapshot holds about rel, or an error wrapping
// ErrNotIndexed.
func (s *Snapshot) File(rel string) (FileState, error) {
	rec, err := s.st.File(path.Clean(rel))
	if errors.Is(err, store.ErrNotFound) {
		return FileState{}, fmt.Errorf("%s: %w", rel, ErrNotIndexed)
	}
	if err != nil {
		return FileState{}, err
	}
	return FileState{Path: rec.Path, Language: rec.Language, Overlay: rec.Overlay, Hash: rec.Hash, Note: rec.Note}, nil
}

// HasContent reports whether the snapshot holds rel with exactly this
// content (whether it came from disk or from an editor buffer).
func (s *Snapshot) HasContent(rel string, content []byte) bool {
	rec, err := s.st.File(path.Clean(rel))
	return err == nil && rec.Hash == store.ContentHash(content)
}

// SymbolScore is the score WorkspaceSymbols ranks name by for query
// (higher is better, 0: no match). Results of several workspaces merge by
// it.
func SymbolScore(query, name string) int {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return 0
	}
	sc := fuzzyScore(q, strings.ToLower(name))
	if sc == 0 {
		return 0
	}
	return sc + caseBonus(query, name)
}

// FirstChunk returns the first chunk of rel, or an error wrapping
// ErrNotIndexed when the snapshot holds no chunk of it.
func (s *Snapshot) FirstChunk(rel string) (chunking.Chunk, error) {
	rec, err := s.st.File(path.Clean(rel))
	if errors.Is(err, store.ErrNotFound) || err == nil && len(rec.Chunks) == 0 {
		return chunking.Chunk{}, fmt.Errorf("%s: %w", rel, ErrNotIndexed)
	}
	if err != nil {
		return chunking.Chunk{}, err
	}
	c, err := s.st.Chunk(rec.Chunks[0])
	if err != nil {
		return chunking.Chunk{}, err
	}
	return c.Chunk, nil
}

// Content returns the text of rel as the snapshot sees it: an indexed
// editor overlay (rebuilt from its chunks), else the file on disk.
func (s *Snapshot) Content(rel string) ([]byte, error) {
	if rec, err := s.st.File(path.Clean(rel)); err == nil && rec.Overlay {
		return s.overlayText(rec)
	}
	return s.e.ws.ReadFile(rel)
}

// overlayText rebuilds an overlay's content from its indexed chunks; lines
// no chunk covers (blank lines between definitions) come back empty.
func (s *Snapshot) overlayText(rec store.FileRecord) ([]byte, error) {
	var lines []string
	for _, id := range rec.Chunks {
		c, err := s.st.Chunk(id)
		if err != nil {
			return nil, fmt.Errorf("overlay %s: %w", rec.Path, err)
		}
		for i, l := range strings.SplitAfter(c.Text, "\n") {
			n := c.StartLine - 1 + i
			if l == "" || n < 0 {
				continue
			}
			for len(lines) <= n {
				lines = append(lines, "\n")
			}
			if !strings.HasSuffix(l, "\n") {
				l += "\n"
			}
			lines[n] = l
		}
	}
	return []byte(strings.Join(lines, "")), nil
}
