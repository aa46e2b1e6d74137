// Package lsp is context-ls's Language Server Protocol edge: JSON-RPC framing
// and dispatch, the server lifecycle, open-document overlays with UTF-16
// position conversion, progress reporting, settings, watched-file
// registration and the custom command table.
//
// It is the only package of the project that imports go.lsp.dev/protocol.
// Protocol types are converted to plain Go values at this edge: the domain
// backend plugs in through the function fields of [Features], which speak
// absolute file paths, 0-based lines and byte columns ([Point], [Range],
// [Location]) and never see a URI or a UTF-16 offset.
//
// # Transport
//
// Messages are framed with Content-Length headers over any
// io.ReadWriteCloser (stdio in production, pipes in tests). The framing and
// the request ids are implemented here rather than with go.lsp.dev/jsonrpc2
// v0.10.0, whose ID type holds only int32 numbers and whose stream limits a
// message to 2 GiB of int32 length: ids here are integers of any size or
// strings, and $/cancelRequest matches numeric and string ids alike.
//
// # Ordering
//
// Notifications and mutating requests (initialize, shutdown, the
// textDocument/did* and workspace/didChange* notifications) are applied one
// at a time in arrival order on one goroutine. Read-only requests start once
// every earlier ordered message has been applied, then run concurrently on a
// bounded pool, each with a deadline and a context that $/cancelRequest
// cancels. Replies are serialized on the writer and written even when the
// request's context is cancelled. The reader never waits on a handler or on
// a response from the client.
//
// # Backend
//
// [NewBackend] is the engine-backed implementation of [Features] that
// `context-ls serve` runs: one engine.Engine per workspace folder, opened
// at once and indexed in the background with $/progress, queried from
// immutable snapshots (so the partial index answers during the bootstrap).
// Open documents whose text differs from disk are indexed as overlays
// after a short debounce (an older version still being indexed is
// cancelled); a save or an undo back to the disk content clears the
// overlay, and so does closing the document. Watched-file events (from the
// client, or from the server's own watcher when the client cannot watch)
// refresh the changed files. Hovers, the call hierarchy and the
// contextLs.callers, contextLs.callees and contextLs.tests commands answer
// from the engine's code graph. The engine-backed commands of the command
// table work on folders a Backend opened.
package lsp
