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
// The tool table (tools.go) lists each tool's name, description, argument
// struct and result struct. Input and output JSON Schemas are generated
// from the structs' tags (args.go), and arguments are decoded and checked
// by the same tags, so the schema an agent reads cannot drift from what
// the server accepts. Results carry a text rendering for the agent
// (content) and the JSON (structuredContent, described by outputSchema
// from protocol 2025-06-18 on). Locations are workspace-relative paths
// with 1-based inclusive line ranges, plus a file URI. Every path argument
// is resolved with workspace.Resolve, and a path outside the workspace is
// a tool error naming the argument. Snippet text is scrubbed of secrets
// with the scrubber context packs use (engine.Scrubber); context packs
// never exceed their token budget.
//
// # One writer per index
//
// Pebble and bleve lock the index directory, so one process at a time can
// open an index: its owner. An editor's language server and one or more
// MCP servers on the same workspace share the index through the owner
// instead of opening it (engine/share.go):
//
//   - The owner listens on a Unix socket in the index directory
//     (owner.sock, mode 0600; other users' connections are refused).
//   - An MCP server that finds the index locked connects to the socket and
//     forwards each tools/call — the tool name and its JSON arguments — to
//     the owner, which runs the very same tool code (the "mcp" engine
//     service, see Register) against its engine and returns the result.
//     Edits the editor has not saved are therefore visible to the agent.
//   - The editor's server (context-ls serve, through engine.OpenShared)
//     must own the index: it holds the unsaved buffers and needs the engine
//     for overlays, definitions and hover. When it finds the index owned by
//     an MCP server, it asks for a handover: the MCP server finishes its
//     in-flight calls, cancels its background work (scans, rebuild jobs),
//     closes its engine and becomes a forwarding client of the editor's
//     server. An editor's server never hands the index over.
//   - When the owner exits, its clients open the index themselves (one wins
//     the lock and serves the others) or find the new owner; a call that
//     was in flight when an owner died is sent again if the tool only
//     reads. A socket left by an owner that died is stale: the lock is
//     free, and the next owner replaces the socket. Concurrent starts are
//     decided by the lock.
//
// An MCP server that owns the index keeps it fresh itself: a scan at
// start-up, then a file watcher. Tool calls on a new index wait for its
// first full scan. Rebuild jobs run in the owner's process; their ids name
// that process.
package mcp
