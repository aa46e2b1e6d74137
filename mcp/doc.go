// Package mcp is the Model Context Protocol server of context-ls: coding
// agents (Claude Code, Cursor, Codex-style CLIs) call its tools to get
// small, located context from the same engine the editor's language server
// uses.
//
// # Protocol
//
// Serve speaks MCP over a byte stream (stdio for "context-ls mcp"):
// JSON-RPC 2.0, one message per line, stdout carrying protocol messages
// only (logs go to stderr). The lifecycle is initialize (the client's
// protocol version when this server speaks it — see ProtocolVersions —
// else the newest), notifications/initialized, then tools/list, tools/call
// and ping; notifications/cancelled cancels a running call, whose response
// is then not sent. JSON-RPC batches (2025-03-26) are accepted. Malformed
// input is answered with JSON-RPC errors — parse error, invalid request,
// method not found, invalid params (including an unknown tool) — and never
// ends the session. Everything that goes wrong inside a tool, including a
// bad argument value, is a tool result with isError: true whose text names
// the argument, so that the agent can correct its call.
//
// # Tools
//
// The tool table (tools.go) maps each tool to an operation of package
// service: its name, description and the service's request and result
// types. Input and output JSON Schemas are generated from those types'
// tags (schema.go), and the service decodes and checks arguments by the
// same tags, so the schema an agent reads cannot drift from what the
// server accepts. Results carry a text rendering for the agent (content)
// and the service's JSON result (structuredContent, described by
// outputSchema from protocol 2025-06-18 on). Locations are
// workspace-relative paths with 1-based inclusive line ranges (and
// character columns where a span is exact), plus a file URI. The service
// resolves path arguments (a path outside the workspace is a tool error
// naming the argument), scrubs secrets from every snippet, signature and
// doc, and keeps context packs within their token budget.
//
// # One writer per index
//
// Pebble and bleve lock the index directory, so one process at a time can
// open an index: its owner. The MCP server joins the index through package
// share (share.Open): it owns the index when nobody else does; otherwise it
// forwards each operation — its name and JSON request — to the owner over
// the owner's Unix socket, and the owner answers from its own service, the
// editor's unsaved edits included. An editor's language server that starts
// later asks this server to hand the index over: the server finishes its
// in-flight calls, cancels its background work (scans, rebuild jobs),
// closes its engine and forwards from then on. When the owner exits, a
// remaining process takes the index over; a call in flight when an owner
// died is sent again if the operation only reads.
//
// An MCP server that owns the index keeps it fresh itself: a scan at
// start-up, then a file watcher. Tool calls on a new index wait for its
// first full scan. Rebuild jobs run in the owner's process; their ids name
// that process.
package mcp
