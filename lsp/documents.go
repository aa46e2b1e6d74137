package lsp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/context-ls/context-ls/workspace"
	"go.lsp.dev/protocol"
)

// Document errors, checked with errors.Is.
var (
	// ErrNotOpen is returned for a change or close of a document that is
	// not open.
	ErrNotOpen = errors.New("document is not open")
	// ErrStaleVersion is returned for a change whose version is not newer
	// than the document's.
	ErrStaleVersion = errors.New("stale document version")
	// ErrBadRange is returned for a change whose range ends before it starts.
	ErrBadRange = errors.New("invalid change range")
)

// Document is one open document at one version. It is immutable: a change
// produces a new Document, so a request may keep using the one it read.
type Document struct {
	// URI is the document URI as the client sent it.
	URI string
	// Path is the absolute file path the URI names.
	Path string
	// LanguageID is the client's language identifier.
	LanguageID string
	// Version is the client's version number.
	Version int32
	// Text is the full content; it must not be modified.
	Text []byte

	mapperOnce sync.Once
	mapper     *Mapper
}

// Mapper returns the position mapper of the document's text, built on
// first use.
func (d *Document) Mapper() *Mapper {
	d.mapperOnce.Do(func() { d.mapper = NewMapper(d.Text) })
	return d.mapper
}

// ContentChange is one entry of didChange's contentChanges: a replacement
// of Range (in UTF-16 positions) by Text, or the whole text when Range is
// nil.
type ContentChange struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// ApplyChanges applies changes to text in order and returns the new text;
// text itself is not modified. Positions follow [Mapper.PositionOffset]:
// past a line end they clamp to the line end, past the last line to the end
// of the text. A range whose end lies before its start fails with
// ErrBadRange and nothing is applied.
func ApplyChanges(text []byte, changes []ContentChange) ([]byte, error) {
	for i, ch := range changes {
		if ch.Range == nil {
			text = []byte(ch.Text)
			continue
		}
		m := NewMapper(text)
		start := m.PositionOffset(ch.Range.Start)
		end := m.PositionOffset(ch.Range.End)
		if end < start {
			return nil, fmt.Errorf("contentChanges[%d]: range end %d:%d before start %d:%d: %w", i,
				ch.Range.End.Line, ch.Range.End.Character, ch.Range.Start.Line, ch.Range.Start.Character, ErrBadRange)
		}
		next := make([]byte, 0, len(text)-(end-start)+len(ch.Text))
		next = append(next, text[:start]...)
		next = append(next, ch.Text...)
		next = append(next, text[end:]...)
		text = next
	}
	return text, nil
}

// documentStore holds the open documents, keyed by path.
type documentStore struct {
	mu   sync.RWMutex
	docs map[string]*Document
}

func newDocumentStore() *documentStore {
	return &documentStore{docs: make(map[string]*Document)}
}

// open records a document. Opening an already open document replaces it
// (the client's didOpen is authoritative) and reports replaced=true.
func (st *documentStore) open(d *Document) (replaced bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, replaced = st.docs[d.Path]
	st.docs[d.Path] = d
	return replaced
}

// change applies changes to the open document at path and returns the new
// Document. On any error the stored document is unchanged.
func (st *documentStore) change(path string, version int32, changes []ContentChange) (*Document, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	old, ok := st.docs[path]
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrNotOpen)
	}
	if version <= old.Version {
		return nil, fmt.Errorf("%s: version %d after version %d: %w", path, version, old.Version, ErrStaleVersion)
	}
	text, err := ApplyChanges(old.Text, changes)
	if err != nil {
		return nil, fmt.Errorf("%s version %d: %w", path, version, err)
	}
	d := &Document{URI: old.URI, Path: path, LanguageID: old.LanguageID, Version: version, Text: text}
	st.docs[path] = d
	return d, nil
}

// close forgets the document at path and returns its last state.
func (st *documentStore) close(path string) (*Document, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	d, ok := st.docs[path]
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrNotOpen)
	}
	delete(st.docs, path)
	return d, nil
}

// get returns the open document at path, or nil.
func (st *documentStore) get(path string) *Document {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.docs[path]
}

// all returns the open documents sorted by path.
func (st *documentStore) all() []*Document {
	st.mu.RLock()
	out := make([]*Document, 0, len(st.docs))
	for _, d := range st.docs {
		out = append(out, d)
	}
	st.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// didOpenParams is DidOpenTextDocumentParams.
type didOpenParams struct {
	TextDocument protocol.TextDocumentItem `json:"textDocument"`
}

func (p *didOpenParams) Validate() error {
	if p.TextDocument.URI == "" {
		return errors.New("textDocument.uri: required")
	}
	return nil
}

// didChangeParams is DidChangeTextDocumentParams with change ranges kept
// optional, so a whole-text change is told apart from an insertion at 0:0.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []ContentChange                          `json:"contentChanges"`
}

func (p *didChangeParams) Validate() error {
	if p.TextDocument.URI == "" {
		return errors.New("textDocument.uri: required")
	}
	return nil
}

// textDocumentParams covers didClose and didSave (Text is ignored: the
// server asks for includeText false).
type textDocumentParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
}

func (p *textDocumentParams) Validate() error {
	if p.TextDocument.URI == "" {
		return errors.New("textDocument.uri: required")
	}
	return nil
}

// documentPath converts a document URI; non-file documents (untitled:,
// git:) are skipped with a debug log and ok=false.
func (s *server) documentPath(method, uri string) (string, bool) {
	path, err := workspace.URIToPath(uri)
	if err != nil {
		s.log.Debug("document ignored", "method", method, "error", err)
		return "", false
	}
	return path, true
}

// callDocHook calls one of the backend's DidOpen/DidChange/DidClose/DidSave.
func (s *server) callDocHook(name string, hook func(string, []byte, int32), d *Document) {
	if err := s.rpc.Protect(name, func() error { hook(d.Path, d.Text, d.Version); return nil }); err != nil {
		s.log.Error("backend hook failed", "hook", name, "path", d.Path, "error", err)
	}
}

func (s *server) didOpen(_ context.Context, p didOpenParams) error {
	path, ok := s.documentPath("didOpen", string(p.TextDocument.URI))
	if !ok {
		return nil
	}
	d := &Document{
		URI: string(p.TextDocument.URI), Path: path, LanguageID: string(p.TextDocument.LanguageID),
		Version: p.TextDocument.Version, Text: []byte(p.TextDocument.Text),
	}
	if s.docs.open(d) {
		s.log.Warn("didOpen of a document already open; replaced", "path", path)
	}
	s.callDocHook("DidOpen", s.backend.DidOpen, d)
	return nil
}

func (s *server) didChange(_ context.Context, p didChangeParams) error {
	path, ok := s.documentPath("didChange", string(p.TextDocument.URI))
	if !ok {
		return nil
	}
	d, err := s.docs.change(path, p.TextDocument.Version, p.ContentChanges)
	if err != nil {
		if errors.Is(err, ErrStaleVersion) {
			s.log.Warn("didChange rejected", "error", err)
			return nil
		}
		return fmt.Errorf("didChange: %w", err)
	}
	s.callDocHook("DidChange", s.backend.DidChange, d)
	return nil
}

func (s *server) didClose(_ context.Context, p textDocumentParams) error {
	path, ok := s.documentPath("didClose", string(p.TextDocument.URI))
	if !ok {
		return nil
	}
	d, err := s.docs.close(path)
	if err != nil {
		return fmt.Errorf("didClose: %w", err)
	}
	s.callDocHook("DidClose", s.backend.DidClose, d)
	return nil
}

func (s *server) didSave(_ context.Context, p textDocumentParams) error {
	path, ok := s.documentPath("didSave", string(p.TextDocument.URI))
	if !ok {
		return nil
	}
	d := s.docs.get(path)
	if d == nil {
		return fmt.Errorf("didSave: %s: %w", path, ErrNotOpen)
	}
	s.callDocHook("DidSave", s.backend.DidSave, d)
	return nil
}
