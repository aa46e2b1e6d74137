package lsp

import (
	"context"
	"encoding/json"
)

// FolderHandle is the backend's value for one open workspace folder,
// returned by Features.OpenFolder and handed back to every query about a
// file in that folder. The lsp package never looks inside it.
type FolderHandle any

// ProgressFunc reports progress of a long operation: done of total units
// (files, for indexing). It is safe to call from any goroutine; calls are
// throttled to about ten reports a second and ignored once the operation's
// progress has ended.
type ProgressFunc func(done, total int)

// Place is a position in a file, in engine terms.
type Place struct {
	// Path is the absolute file path.
	Path string
	// Point is the 0-based line and byte column.
	Point Point
}

// Location is a range in a file, in engine terms.
type Location struct {
	Path  string
	Range Range
}

// HoverResult is the answer to a hover.
type HoverResult struct {
	// Markdown is the hover text.
	Markdown string
	// Range is the span the hover applies to, if known.
	Range *Range
}

// SymbolKind names the kind of a symbol with the engine's kind names
// ("function", "method", "constructor", "class", "struct", "interface",
// "trait", "enum", "type", "module", "const", "var", "field", "macro");
// the LSP names "namespace", "package", "property", "enumMember",
// "constant", "variable", "key", "object" and "string" are understood too.
type SymbolKind string

// DocumentSymbol is one definition in a file, with its nested definitions.
type DocumentSymbol struct {
	Name string
	// Detail is a short signature or type, shown beside the name.
	Detail string
	Kind   SymbolKind
	// Range covers the whole definition; SelectionRange the name.
	Range          Range
	SelectionRange Range
	Children       []DocumentSymbol
}

// SymbolInfo is one workspace symbol search result.
type SymbolInfo struct {
	Name string
	Kind SymbolKind
	// Container is the enclosing type or namespace, if any.
	Container string
	Location  Location
	// Score ranks the match (higher is better); results of several
	// folders are merged by it. Equal scores keep the backend's order.
	Score float64
}

// CallItem is one node of a call hierarchy.
type CallItem struct {
	Name   string
	Kind   SymbolKind
	Detail string
	Path   string
	// Range covers the definition; SelectionRange its name.
	Range          Range
	SelectionRange Range
	// Data is the backend's own identification of the item; it travels to
	// the client and back unchanged.
	Data json.RawMessage
}

// Call is one edge of a call hierarchy. For incoming calls Item is the
// caller and Ranges are the call sites inside the caller's file; for
// outgoing calls Item is the callee and Ranges are the call sites inside
// the file of the item that was asked about.
type Call struct {
	Item   CallItem
	Ranges []Range
}

// Features is the seam between the protocol edge and the domain backend.
// Every field is optional: a nil query hook makes the matching request
// answer CodeMethodNotFound naming the missing feature (and the capability
// is not advertised); a nil notification hook is skipped.
//
// Paths are absolute file paths. Notification hooks run one at a time in
// the order the client sent the notifications; query hooks run
// concurrently with each other and must honour ctx (the client may cancel,
// and every request has a deadline).
type Features struct {
	// OpenFolder opens a workspace folder: root is its absolute path. It is
	// called after `initialized` (and for folders added later) on the
	// ordered queue, so document notifications wait until it returns. A
	// backend that indexes for long should open its store, start indexing
	// in the background and return: progress reported after OpenFolder has
	// returned continues to reach the client until done reaches total.
	OpenFolder func(ctx context.Context, root string, s Settings, progress ProgressFunc) (FolderHandle, error)
	// CloseFolder releases a folder: on removal, on shutdown, or when the
	// server stops without shutdown.
	CloseFolder func(h FolderHandle) error

	// DidOpen, DidChange, DidClose and DidSave report the editor's
	// overlays: text is the document's full content after the event (the
	// last known content for DidClose and DidSave) and version the
	// client's version number.
	DidOpen   func(path string, text []byte, version int32)
	DidChange func(path string, text []byte, version int32)
	DidClose  func(path string, text []byte, version int32)
	DidSave   func(path string, text []byte, version int32)
	// FilesChanged reports files created, changed or deleted on disk, as
	// reported by the client's watcher.
	FilesChanged func(paths []string)
	// SettingsChanged reports new settings after the folders are open.
	SettingsChanged func(s Settings)
	// StartWatcher starts a file watcher on root when the client cannot
	// watch files for the server; stop is called when the folder closes.
	StartWatcher func(root string) (stop func())

	// Definition returns the definitions of the identifier at a place.
	Definition func(ctx context.Context, h FolderHandle, at Place) ([]Location, error)
	// Hover returns hover text for a place, or nil when there is none.
	Hover func(ctx context.Context, h FolderHandle, at Place) (*HoverResult, error)
	// DocumentSymbols returns the definitions of a file as a tree.
	DocumentSymbols func(ctx context.Context, h FolderHandle, path string) ([]DocumentSymbol, error)
	// WorkspaceSymbols returns the symbols of one folder matching query.
	WorkspaceSymbols func(ctx context.Context, h FolderHandle, query string) ([]SymbolInfo, error)
	// PrepareCallHierarchy returns the call hierarchy items at a place.
	PrepareCallHierarchy func(ctx context.Context, h FolderHandle, at Place) ([]CallItem, error)
	// IncomingCalls returns the callers of item.
	IncomingCalls func(ctx context.Context, h FolderHandle, item CallItem) ([]Call, error)
	// OutgoingCalls returns the callees of item.
	OutgoingCalls func(ctx context.Context, h FolderHandle, item CallItem) ([]Call, error)
}
