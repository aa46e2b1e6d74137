package lsp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/workspace"
)

// BenchmarkStatusRoundTrip measures one request through the whole stack:
// client framing, reader, dispatch, the worker pool, a command, JSON and the
// reply, over in-memory pipes.
func BenchmarkStatusRoundTrip(b *testing.B) {
	h := startServer(b, Options{})
	h.initialize(clientCaps{}, nil)
	ctx := testCtx(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var st StatusResult
		if err := h.c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "contextLs.status"}, &st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditThenPosition measures edit-to-fresh latency of the
// protocol edge on a 1.5 MB document: a one-character didChange followed
// by a request that must see it (it waits for the change to be applied,
// then maps its UTF-16 position through the new text's line index).
func BenchmarkEditThenPosition(b *testing.B) {
	line := "\tfunc (s *server) handle(ctx context.Context) error { return nil } // 😀 é\n"
	text := strings.Repeat(line, 20000)
	h := startServer(b, Options{commands: []Command{positionCommand()}})
	h.initialize(clientCaps{}, nil)
	uri := workspace.PathToURI(filepath.Join(h.root, "big.go"))
	if err := h.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": text}}); err != nil {
		b.Fatal(err)
	}
	ctx := testCtx(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := h.c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{"range": rng(10000, 1, 10000, 2), "text": "F"}},
		}); err != nil {
			b.Fatal(err)
		}
		var out string
		if err := h.c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "test.position",
			"arguments": []any{map[string]any{"uri": uri, "position": map[string]int{"line": 10000, "character": 72}}}}, &out); err != nil {
			b.Fatal(err)
		}
		if out != "10000:74" { // "😀 é" before: 2 UTF-16 units, 4 bytes
			b.Fatalf("position %s", out)
		}
	}
}
