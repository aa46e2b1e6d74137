// Package jsonrpc is the wire of the language server: the LSP base
// protocol over a byte stream — Content-Length framing, JSON-RPC 2.0
// messages and request ids, dispatch of a handler table, cancellation,
// deadlines and the lifecycle gate — and nothing of the features.
//
// The framing and the request ids are implemented here rather than with
// go.lsp.dev/jsonrpc2 v0.10.0, whose ID type holds only int32 numbers and
// whose stream limits a message to 2 GiB of int32 length: ids here are
// integers of any size or strings, and $/cancelRequest matches numeric and
// string ids alike.
//
// Notifications and ordered requests (initialize, shutdown, the
// textDocument/did* and workspace/didChange* notifications) are applied
// one at a time in arrival order on one goroutine. Other requests start
// once every earlier ordered message has been applied, then run
// concurrently on a bounded pool, each with a deadline and a context that
// $/cancelRequest cancels. Replies are serialized on the writer and
// written even when the request's context is cancelled. The reader never
// waits on a handler or on a response from the client.
package jsonrpc
