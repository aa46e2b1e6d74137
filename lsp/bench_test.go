package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
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

// BenchmarkEditThenHover measures edit-to-fresh latency of the protocol
// edge on a 1.5 MB document: a one-character didChange followed by a hover
// that must see it (the hover waits for the change to be applied, then maps
// its UTF-16 position through the new text's line index).
func BenchmarkEditThenHover(b *testing.B) {
	line := "\tfunc (s *server) handle(ctx context.Context) error { return nil } // 😀 é\n"
	text := strings.Repeat(line, 20000)
	f := Features{
		OpenFolder: func(_ context.Context, root string, _ Settings, _ ProgressFunc) (FolderHandle, error) {
			return root, nil
		},
		Hover: func(_ context.Context, _ FolderHandle, at Place) (*HoverResult, error) {
			return &HoverResult{Markdown: fmt.Sprint(at.Point.Column)}, nil
		},
	}
	h := startServer(b, Options{Features: f})
	h.initialize(clientCaps{}, nil)
	uri := PathToURI(filepath.Join(h.root, "big.go"))
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
		var hov struct {
			Contents struct{ Value string } `json:"contents"`
		}
		if err := h.c.Call(ctx, "textDocument/hover", map[string]any{
			"textDocument": map[string]string{"uri": uri},
			"position":     map[string]int{"line": 10000, "character": 72},
		}, &hov); err != nil {
			b.Fatal(err)
		}
		if hov.Contents.Value != "74" { // "😀 é" before: 2 UTF-16 units, 4 bytes
			b.Fatalf("hover column %s", hov.Contents.Value)
		}
	}
}
