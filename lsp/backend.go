package lsp

import (
	"context"

	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
)

// Backend is the session as the protocol edge uses it: *session.Session
// for context-ls serve. Every path is absolute. Notifications run one at a
// time in the client's order; queries go to a folder's service.
//
// It is an interface for one reason: the tests of the protocol's own
// behaviour (ordering, lifecycle, watching, settings) observe these calls
// with a fake instead of indexing a workspace.
type Backend interface {
	// OpenFolder opens a workspace folder and starts indexing it in the
	// background; progress (nil for none) hears files (and bytes, rate and
	// time left, said in the message) done of total until done reaches
	// total.
	OpenFolder(ctx context.Context, root string, s session.Settings, progress func(service.Progress)) error
	// CloseFolder releases a folder.
	CloseFolder(root string) error
	// SettingsChanged applies new settings to every open folder.
	SettingsChanged(s session.Settings)
	// StartWatcher watches root for changes on disk, for a client that
	// cannot; stop ends it.
	StartWatcher(root string) (stop func())

	// DidOpen, DidChange, DidClose and DidSave report the editor's
	// buffers: text is the document's full content after the event (the
	// last known content for DidClose and DidSave).
	DidOpen(path string, text []byte, version int32)
	DidChange(path string, text []byte, version int32)
	DidClose(path string, text []byte, version int32)
	DidSave(path string, text []byte, version int32)
	// FilesChanged reports files created, changed or deleted on disk.
	FilesChanged(paths []string)
	// Sync waits until the index holds the current text of the open
	// document path (bounded by ctx); need says whether the store is
	// enough (session.NeedStore: symbols, hover, definitions) or the text
	// index must hold it too (session.NeedText: search, packs).
	Sync(ctx context.Context, path string, need session.Need) error
	// SyncAll waits until the index holds the pending text of every open
	// document (bounded by ctx): workspace-wide queries read the edits
	// sent before them.
	SyncAll(ctx context.Context, need session.Need) error

	// Backend returns what answers the operations of the open folder root
	// (its service, or the process owning its index); release ends its
	// use.
	Backend(root string) (b service.Backend, release func(), err error)
	// OnStorage sets fn to hear when a folder's index stops accepting
	// writes (state diskFull or failed, message one line) and when it
	// accepts them again (state ok), once per episode; fn must not block.
	OnStorage(fn func(root, state, message string))
}

var _ Backend = (*session.Session)(nil)
