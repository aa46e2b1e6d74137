package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// featureBackend answers queries over two files whose lines mix ASCII,
// 2-byte, 3-byte and 4-byte runes, so byte and UTF-16 columns differ.
type featureBackend struct {
	fakeBackend
	main, lib string
	mu        sync.Mutex
	seen      []string // what the query hooks received, in engine terms
}

func (fb *featureBackend) saw(format string, args ...any) {
	fb.mu.Lock()
	fb.seen = append(fb.seen, fmt.Sprintf(format, args...))
	fb.mu.Unlock()
}

func (fb *featureBackend) features() Features {
	f := fb.fakeBackend.features()
	f.Definition = func(_ context.Context, h FolderHandle, at Place) ([]Location, error) {
		fb.saw("definition %s %d:%d", filepath.Base(at.Path), at.Point.Line, at.Point.Column)
		// "func Größe()" on lib line 1: the name starts at byte 5.
		return []Location{{Path: fb.lib, Range: Range{Start: Point{1, 5}, End: Point{1, 12}}}}, nil
	}
	f.Hover = func(_ context.Context, h FolderHandle, at Place) (*HoverResult, error) {
		fb.saw("hover %s %d:%d", filepath.Base(at.Path), at.Point.Line, at.Point.Column)
		return &HoverResult{Markdown: "**Größe** returns a size", Range: &Range{Start: Point{0, 4}, End: Point{0, 9}}}, nil
	}
	f.DocumentSymbols = func(_ context.Context, h FolderHandle, path string) ([]DocumentSymbol, error) {
		fb.saw("symbols %s", filepath.Base(path))
		return []DocumentSymbol{{
			Name: "T", Kind: "struct", Detail: "type T struct",
			Range: Range{Point{0, 0}, Point{2, 1}}, SelectionRange: Range{Point{0, 5}, Point{0, 6}},
			Children: []DocumentSymbol{{Name: "😀field", Kind: "field", Range: Range{Point{1, 1}, Point{1, 14}}, SelectionRange: Range{Point{1, 1}, Point{1, 10}}}},
		}}, nil
	}
	f.WorkspaceSymbols = func(_ context.Context, h FolderHandle, query string) ([]SymbolInfo, error) {
		fb.saw("workspace %q", query)
		if query == "fail" {
			return nil, errors.New("index unavailable")
		}
		return []SymbolInfo{{Name: "Größe", Kind: "function", Container: "lib", Location: Location{Path: fb.lib, Range: Range{Point{1, 5}, Point{1, 12}}}}}, nil
	}
	f.PrepareCallHierarchy = func(_ context.Context, h FolderHandle, at Place) ([]CallItem, error) {
		fb.saw("prepare %s %d:%d", filepath.Base(at.Path), at.Point.Line, at.Point.Column)
		return []CallItem{{Name: "Größe", Kind: "function", Path: fb.lib, Range: Range{Point{1, 0}, Point{1, 16}},
			SelectionRange: Range{Point{1, 5}, Point{1, 12}}, Data: json.RawMessage(`{"id":42}`)}}, nil
	}
	f.IncomingCalls = func(_ context.Context, h FolderHandle, item CallItem) ([]Call, error) {
		fb.saw("incoming %s %s %s sel %d:%d data %s", item.Name, item.Kind, filepath.Base(item.Path), item.SelectionRange.Start.Line, item.SelectionRange.Start.Column, item.Data)
		caller := CallItem{Name: "main", Kind: "function", Path: fb.main, Range: Range{Point{0, 0}, Point{0, 20}}, SelectionRange: Range{Point{0, 0}, Point{0, 4}}}
		return []Call{{Item: caller, Ranges: []Range{{Point{0, 12}, Point{0, 19}}}}}, nil
	}
	f.OutgoingCalls = func(_ context.Context, h FolderHandle, item CallItem) ([]Call, error) {
		fb.saw("outgoing %s", item.Name)
		callee := CallItem{Name: "main", Kind: "function", Path: fb.main, Range: Range{Point{0, 0}, Point{0, 20}}, SelectionRange: Range{Point{0, 0}, Point{0, 4}}}
		// Call sites are in the item's own file (lib).
		return []Call{{Item: callee, Ranges: []Range{{Point{1, 5}, Point{1, 12}}}}}, nil
	}
	return f
}

func TestFeatureConversions(t *testing.T) {
	fb := &featureBackend{}
	h := startServer(t, Options{Features: fb.features()})
	// main: "😀 = Größe()" — byte 12 is UTF-16 column 9.
	fb.main = writeFile(t, h.root, "main.go", "😀 = x; y = Größe()\n")
	fb.lib = writeFile(t, h.root, "lib/lib.go", "package lib\nfunc Größe() int\n")
	h.initialize(clientCaps{hierarchical: true}, nil)
	mainURI, libURI := PathToURI(fb.main), PathToURI(fb.lib)
	// The open document differs from the disk: its text is used.
	must(t, h.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": mainURI, "languageId": "go", "version": 1, "text": "ab = Größe()\n"}}))

	at := func(uri string, line, char int) map[string]any {
		return map[string]any{"textDocument": map[string]string{"uri": uri}, "position": map[string]int{"line": line, "character": char}}
	}
	var out bytes.Buffer
	call := func(label, method string, params any) json.RawMessage {
		var res json.RawMessage
		if err := h.c.Call(testCtx(t), method, params, &res); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		var pretty bytes.Buffer
		must(t, json.Indent(&pretty, res, "", "  "))
		fmt.Fprintf(&out, "== %s\n%s\n", label, strings.ReplaceAll(pretty.String(), PathToURI(h.root), "file://$ROOT"))
		return res
	}
	call("definition", "textDocument/definition", at(mainURI, 0, 8))
	call("hover", "textDocument/hover", at(libURI, 1, 5))
	call("documentSymbol hierarchical", "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": libURI}})
	call("workspace/symbol", "workspace/symbol", map[string]any{"query": "Gr"})
	items := call("prepareCallHierarchy", "textDocument/prepareCallHierarchy", at(libURI, 1, 6))
	var parsed []json.RawMessage
	must(t, json.Unmarshal(items, &parsed))
	call("incomingCalls", "callHierarchy/incomingCalls", map[string]any{"item": parsed[0]})
	call("outgoingCalls", "callHierarchy/outgoingCalls", map[string]any{"item": parsed[0]})
	fb.mu.Lock()
	fmt.Fprintf(&out, "== backend saw\n%s\n", strings.Join(fb.seen, "\n"))
	fb.mu.Unlock()
	golden(t, "features.golden", out.Bytes())
}

func TestDocumentSymbolFlat(t *testing.T) {
	fb := &featureBackend{}
	h := startServer(t, Options{Features: fb.features()})
	fb.lib = writeFile(t, h.root, "lib.go", "type T struct {\n\t😀field int\n}\n")
	h.initialize(clientCaps{}, nil)
	var syms []struct {
		Name          string `json:"name"`
		ContainerName string `json:"containerName"`
		Kind          int    `json:"kind"`
		Location      struct {
			Range struct {
				Start struct{ Line, Character int } `json:"start"`
			} `json:"range"`
		} `json:"location"`
	}
	must(t, h.c.Call(testCtx(t), "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": PathToURI(fb.lib)}}, &syms))
	if len(syms) != 2 || syms[0].Name != "T" || syms[0].Kind != 23 || syms[1].Name != "😀field" || syms[1].ContainerName != "T" || syms[1].Kind != 8 {
		t.Errorf("flat symbols %+v", syms)
	}
}

func TestFeatureErrors(t *testing.T) {
	fb := &featureBackend{}
	h := startServer(t, Options{Features: fb.features()})
	fb.lib = writeFile(t, h.root, "lib.go", "x\n")
	h.initialize(clientCaps{}, nil)
	outside := PathToURI(filepath.Join(t.TempDir(), "elsewhere.go"))
	err := h.c.Call(testCtx(t), "textDocument/definition", map[string]any{
		"textDocument": map[string]string{"uri": outside}, "position": map[string]int{"line": 0, "character": 0}}, nil)
	if rpcCode(err) != int64(CodeRequestFailed) || !strings.Contains(err.Error(), "outside the workspace folders") {
		t.Errorf("outside file: %v", err)
	}
	err = h.c.Call(testCtx(t), "workspace/symbol", map[string]any{"query": "fail"}, nil)
	if rpcCode(err) != int64(CodeRequestFailed) || !strings.Contains(err.Error(), "index unavailable") {
		t.Errorf("failing backend: %v", err)
	}
	// A missing file is still located: byte columns are kept.
	gone := filepath.Join(h.root, "gone.go")
	l := (&server{docs: newDocumentStore(), log: newLogger(nil, &syncBuffer{})}).newLocator()
	r := l.protoRange(gone, Range{Point{3, 7}, Point{3, 9}})
	if r.Start.Line != 3 || r.Start.Character != 7 || r.End.Character != 9 {
		t.Errorf("range in unreadable file %+v", r)
	}
}

func TestWorkspaceSymbolPartialFailure(t *testing.T) {
	second := t.TempDir()
	f := Features{
		OpenFolder: func(_ context.Context, root string, _ Settings, _ ProgressFunc) (FolderHandle, error) {
			return root, nil
		},
		WorkspaceSymbols: func(_ context.Context, h FolderHandle, q string) ([]SymbolInfo, error) {
			if h.(string) == second {
				return nil, errors.New("second folder broken")
			}
			return []SymbolInfo{{Name: "A", Kind: "var", Location: Location{Path: filepath.Join(h.(string), "a.go")}}}, nil
		},
	}
	h := startServer(t, Options{Features: f})
	h.initialize(clientCaps{}, nil)
	must(t, h.c.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{map[string]string{"uri": PathToURI(second), "name": "second"}}, "removed": []any{}}}))
	var syms []struct {
		Name string `json:"name"`
	}
	must(t, h.c.Call(testCtx(t), "workspace/symbol", map[string]any{"query": "A"}, &syms))
	if len(syms) != 1 || syms[0].Name != "A" {
		t.Errorf("symbols %+v", syms)
	}
	if !strings.Contains(h.stderr.String(), "second folder broken") {
		t.Error("folder failure not logged")
	}
}

func TestSymbolKinds(t *testing.T) {
	for name, kind := range symbolKinds {
		if got := protocolSymbolKind(name); got != kind {
			t.Errorf("%s → %v, want %v", name, got, kind)
		}
		// Round trip through the client keeps a name of the same LSP kind.
		if back := engineSymbolKind(kind); symbolKinds[back] != kind {
			t.Errorf("%s → %v → %q", name, kind, back)
		}
	}
	if got := protocolSymbolKind("markdown_section"); got != 19 {
		t.Errorf("unknown kind → %v, want Object (19)", got)
	}
}
