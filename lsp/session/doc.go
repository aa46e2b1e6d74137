// Package session is the language server's state between the protocol
// edge (package lsp) and the service layer: the workspace folders and
// their indexes (one per folder, opened with share.Open as an editor: this
// process owns the index and serves it to an agent's MCP server or a CLI
// command on the same workspace, or, while another editor owns it, asks
// that one and takes the index over when it leaves), the settings
// and how they layer over .context-ls.toml, the editor's open documents
// as debounced overlays, file watching, and index maintenance.
//
// Everything here speaks absolute file paths and plain text; nothing
// knows LSP positions or URIs.
package session
