// Package lsp is context-ls's Language Server Protocol edge: the server
// lifecycle, the navigation requests (definition, hover, document and
// workspace symbols, call hierarchy), open documents with UTF-16 position
// conversion ([Mapper]), work-done progress, watched-file registration and
// the typed command table of workspace/executeCommand (which also
// generates docs/commands.md).
//
// It is the only package of the project that imports go.lsp.dev/protocol,
// and it answers nothing itself: every request is translated to a request
// of package service, run on the service of the workspace folder it names,
// and the service's result (workspace-relative paths, 1-based lines,
// character columns) is translated back to URIs and UTF-16 positions.
// Argument errors of the service become InvalidParams naming the
// argument.
//
// Below it, package lsp/jsonrpc is the wire (framing, ids, dispatch,
// ordering, cancellation) and package lsp/session the state: folders and
// their indexes, settings, overlays of open documents, watching. [Backend]
// is the session as this package uses it.
package lsp
