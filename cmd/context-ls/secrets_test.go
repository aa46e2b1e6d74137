package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/secrettest"
	"github.com/context-ls/context-ls/workspace"
)

// TestNoPlantedSecretLeaks plants secrets of every kind secrettest knows
// in a workspace and asks every front end everything that returns code,
// signatures or doc text: the CLI as a user types it, the MCP server over
// stdio and the language server (hover and document symbols on every
// definition, workspace symbols, and its commands), also about unsaved
// buffers holding secrets of their own (secrettest.Buffers). No output
// may hold a fragment of any secret.
func TestNoPlantedSecretLeaks(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	secrets, err := secrettest.Plant(root)
	if err != nil {
		t.Fatal(err)
	}
	if kinds := secrettest.Kinds(secrets); len(kinds) < 40 {
		t.Fatalf("only %d kinds of secret planted, want 40 or more", len(kinds))
	}
	if _, errOut, code := cli(t, "index", "--root", root, "--db", db); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errOut)
	}
	outputs := map[string]string{} // channel → output
	queries := []string{"password", "token secret key", "aws credentials", "private key", "database connection", "deploy"}

	// CLI.
	cliRuns := [][]string{
		{"symbols", "--json"}, {"symbols", "--json", "--file", "config/config.go"},
		{"callers", "--json", "connect"}, {"callees", "--json", "Connect"}, {"tests", "--json", "Connect"},
		{"related", "--json", "--file", "config/config.go", "--lines", "1-40"},
		{"pack", "--format", "markdown", "--file", "config/config.go"},
		{"pin", "--json", "--file", "config/config.go"}, {"pins", "--json"},
	}
	for _, q := range queries {
		cliRuns = append(cliRuns, []string{"search", "--json", "--k", "20", q},
			[]string{"pack", "--format", "json", "--budget", "8000", q}, []string{"pack", "--format", "xml", q})
	}
	for _, args := range cliRuns {
		out, errOut, code := cli(t, append(args, "--root", root, "--db", db)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		outputs["cli "+strings.Join(args, " ")] = out + errOut
	}

	// MCP.
	type call struct{ tool, args string }
	calls := []call{
		{"find_symbols", `{"query":"key"}`}, {"find_symbols", `{"file":"config/config.go"}`}, {"find_symbols", `{"name":"Connect"}`},
		{"find_callers", `{"symbol":"connect"}`}, {"find_callees", `{"symbol":"Connect"}`}, {"find_tests", `{"symbol":"Connect"}`},
		{"related_context", `{"file":"config/config.go","lines":"1-40"}`},
		{"context_pack", `{"file":"config/config.go"}`},
	}
	for _, q := range queries {
		calls = append(calls, call{"query_context", fmt.Sprintf(`{"query":%q,"k":20}`, q)},
			call{"context_pack", fmt.Sprintf(`{"query":%q,"budget":8000,"format":"json"}`, q)})
	}
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"secrets","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i, c := range calls {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, c.tool, c.args))
	}
	out, errOut, code := cliStdin(t, []byte(strings.Join(lines, "\n")+"\n"), "mcp", "--root", root, "--db", db)
	if code != 0 {
		t.Fatalf("mcp: exit %d: %s", code, errOut)
	}
	answered := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.ID == 0 {
			continue
		}
		c := calls[m.ID-1]
		if m.Result.IsError {
			t.Errorf("mcp %s %s: tool error %s", c.tool, c.args, line)
		}
		outputs[fmt.Sprintf("mcp %s %s", c.tool, c.args)] = line
		answered++
	}
	if answered != len(calls) {
		t.Errorf("mcp answered %d of %d calls", answered, len(calls))
	}

	// The language server, with the unsaved buffers open.
	ls := startLSP(t, root, db, len(secrettest.Files()))
	files := secrettest.Paths()
	for rel, text := range secrettest.Buffers() {
		if err := ls.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": workspace.PathToURI(filepath.Join(root, filepath.FromSlash(rel))), "languageId": "", "version": 1, "text": text,
		}}); err != nil {
			t.Fatal(err)
		}
		files = append(files, rel)
	}
	sort.Strings(files)
	for _, rel := range files {
		uri := workspace.PathToURI(filepath.Join(root, filepath.FromSlash(rel)))
		doc := map[string]any{"uri": uri}
		raw := ls.call("textDocument/documentSymbol", map[string]any{"textDocument": doc})
		outputs["lsp documentSymbol "+rel] = string(raw)
		var syms []struct {
			SelectionRange struct {
				Start map[string]int `json:"start"`
			} `json:"selectionRange"`
			Location struct {
				Range struct {
					Start map[string]int `json:"start"`
				} `json:"range"`
			} `json:"location"`
		}
		json.Unmarshal(raw, &syms)
		for _, s := range syms {
			pos := s.SelectionRange.Start
			if pos == nil {
				pos = s.Location.Range.Start
			}
			outputs[fmt.Sprintf("lsp hover %s:%v", rel, pos)] = string(ls.call("textDocument/hover", map[string]any{"textDocument": doc, "position": pos}))
		}
		outputs["lsp contextPack "+rel] = string(ls.call("workspace/executeCommand", map[string]any{
			"command": "contextLs.contextPack", "arguments": []any{map[string]any{"uri": uri}}}))
	}
	outputs["lsp workspace/symbol"] = string(ls.call("workspace/symbol", map[string]any{"query": ""}))
	for _, q := range queries {
		outputs["lsp search "+q] = string(ls.call("workspace/executeCommand", map[string]any{
			"command": "contextLs.search", "arguments": []any{map[string]any{"query": q, "k": 20}}}))
	}
	for _, cmd := range []string{"contextLs.callers", "contextLs.callees", "contextLs.tests", "contextLs.relatedContext"} {
		outputs["lsp "+cmd] = string(ls.call("workspace/executeCommand", map[string]any{
			"command": cmd, "arguments": []any{map[string]any{"symbol": "Connect"}}}))
	}
	ls.stop()

	for _, name := range sortedKeys(outputs) {
		for _, l := range secrettest.Leaks(outputs[name], secrets) {
			t.Errorf("%s: %s", name, l)
		}
	}
	t.Logf("%d outputs of the CLI, MCP and LSP checked for %d planted secrets of %d kinds", len(outputs), len(secrets), len(secrettest.Kinds(secrets)))
}
