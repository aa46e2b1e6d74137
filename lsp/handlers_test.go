package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
	"go.lsp.dev/protocol"
)

// featureWorkspace has lines that mix ASCII, 2-, 3- and 4-byte runes, so
// byte, character and UTF-16 columns all differ.
var featureWorkspace = map[string]string{
	"go.mod": "module example.com/app\n\ngo 1.22\n",
	"main.go": "package main\n\nimport \"example.com/app/lib\"\n\n" +
		"// main prints a size.\nfunc main() { s := \"😀€\"; größe := lib.Größe(); println(s, größe) }\n",
	"lib/shape.py": "class Größe:\n    \"\"\"A size in m².\"\"\"\n\n    def maß(self):\n        return 1\n",
	"lib/lib.go": "package lib\n\n// Größe returns a size.\nfunc Größe() int { return größeIn(\"m²\") }\n\n" +
		"// T holds 😀 fields.\ntype T struct {\n\t😀field int\n}\n\nfunc größeIn(u string) int { return len(u) }\n",
}

// startFeatures serves featureWorkspace with a real session and waits
// for its index.
func startFeatures(t *testing.T, cc clientCaps) (*harness, *editor) {
	t.Helper()
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 1})
	h := startServer(t, Options{Backend: b})
	for rel, text := range featureWorkspace {
		writeFile(t, h.root, rel, text)
	}
	e := newSession(t, h.c, h.root)
	caps := cc.json()
	var res json.RawMessage
	must(t, h.c.Call(testCtx(t), "initialize", map[string]any{
		"processId": nil, "capabilities": caps, "initializationOptions": map[string]any{"embeddings": false},
		"workspaceFolders": []map[string]string{{"uri": workspace.PathToURI(h.root), "name": "root"}},
	}, &res))
	must(t, h.c.Notify("initialized", map[string]any{}))
	poll(t, "the feature workspace indexed", func() (bool, string) {
		var st StatsResult
		if err := e.command("contextLs.stats", nil, &st); err != nil || len(st.Folders) == 0 {
			return false, fmt.Sprint(err)
		}
		return st.Folders[0].Indexing.State == "done", st.Folders[0].Indexing.State
	})
	return h, e
}

// TestFeatureConversions: every navigation request converts positions
// between UTF-16 (the protocol) and the service's characters both ways.
func TestFeatureConversions(t *testing.T) {
	h, e := startFeatures(t, clientCaps{hierarchical: true, progress: true})
	mainURI, libURI := e.uri("main.go"), e.uri("lib/lib.go")
	mainText, libText := featureWorkspace["main.go"], featureWorkspace["lib/lib.go"]
	at := func(uri string, pos protocol.Position) map[string]any {
		return map[string]any{"textDocument": map[string]string{"uri": uri}, "position": pos}
	}
	var out bytes.Buffer
	call := func(label, method string, params any) json.RawMessage {
		var res json.RawMessage
		if err := h.c.Call(testCtx(t), method, params, &res); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		var pretty bytes.Buffer
		must(t, json.Indent(&pretty, res, "", "  "))
		fmt.Fprintf(&out, "== %s\n%s\n", label, strings.ReplaceAll(pretty.String(), workspace.PathToURI(h.root), "file://$ROOT"))
		return res
	}
	// On "Größe" after "😀€" and "größe := lib.".
	call("definition", "textDocument/definition", at(mainURI, position(t, mainText, "Größe", 0, 2)))
	call("hover", "textDocument/hover", at(libURI, position(t, libText, "Größe", 1, 1)))
	call("documentSymbol hierarchical", "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": libURI}})
	call("workspace/symbol", "workspace/symbol", map[string]any{"query": "größeIn"})
	items := call("prepareCallHierarchy", "textDocument/prepareCallHierarchy", at(libURI, position(t, libText, "größeIn", 1, 3)))
	var parsed []json.RawMessage
	must(t, json.Unmarshal(items, &parsed))
	if len(parsed) != 1 {
		t.Fatalf("prepareCallHierarchy: %s", items)
	}
	call("incomingCalls", "callHierarchy/incomingCalls", map[string]any{"item": parsed[0]})
	items = call("prepareCallHierarchy of Größe", "textDocument/prepareCallHierarchy", at(libURI, position(t, libText, "Größe", 1, 0)))
	must(t, json.Unmarshal(items, &parsed))
	call("outgoingCalls", "callHierarchy/outgoingCalls", map[string]any{"item": parsed[0]})
	golden(t, "features.golden", out.Bytes())
}

func TestDocumentSymbolFlat(t *testing.T) {
	h, e := startFeatures(t, clientCaps{})
	var syms []struct {
		Name          string `json:"name"`
		ContainerName string `json:"containerName"`
		Kind          int    `json:"kind"`
	}
	must(t, h.c.Call(testCtx(t), "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": e.uri("lib/shape.py")}}, &syms))
	var got []string
	for _, s := range syms {
		got = append(got, fmt.Sprintf("%s<%s>%d", s.Name, s.ContainerName, s.Kind))
	}
	want := "Größe<>5 maß<Größe>6"
	if strings.Join(got, " ") != want {
		t.Errorf("flat symbols %q, want %q", strings.Join(got, " "), want)
	}
}

func TestFeatureErrors(t *testing.T) {
	h, _ := startFeatures(t, clientCaps{})
	outside := workspace.PathToURI(filepath.Join(t.TempDir(), "elsewhere.go"))
	err := h.c.Call(testCtx(t), "textDocument/definition", map[string]any{
		"textDocument": map[string]string{"uri": outside}, "position": map[string]int{"line": 0, "character": 0}}, nil)
	if rpcCode(err) != int64(jsonrpc.CodeRequestFailed) || !strings.Contains(err.Error(), "outside the workspace folders") {
		t.Errorf("outside file: %v", err)
	}
	// A position past the end of the file names the line.
	err = h.c.Call(testCtx(t), "textDocument/hover", map[string]any{
		"textDocument": map[string]string{"uri": workspace.PathToURI(filepath.Join(h.root, "main.go"))},
		"position":     map[string]int{"line": 400, "character": 0}}, nil)
	if err != nil {
		t.Errorf("hover past the end: %v (the position clamps to the end)", err)
	}
	// A missing file is still located: character columns are kept.
	gone := filepath.Join(h.root, "gone.go")
	l := (&server{docs: newDocumentStore(), log: newLogger(nil, &bytes.Buffer{})}).newLocator()
	r := l.serviceRange(gone, service.Range{StartLine: 4, StartColumn: 8, EndLine: 4, EndColumn: 10})
	if r.Start.Line != 3 || r.Start.Character != 7 || r.End.Character != 9 {
		t.Errorf("range in unreadable file %+v", r)
	}
}

// TestWorkspaceSymbolPartialFailure: a folder whose index is not
// available is skipped (and logged) when another answers.
func TestWorkspaceSymbolPartialFailure(t *testing.T) {
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 1})
	h := startServer(t, Options{Backend: b})
	writeFile(t, h.root, "a.go", "package a\n\nvar A = 1\n")
	e := newSession(t, h.c, h.root)
	e.initialize(map[string]any{"embeddings": false})
	e.awaitIndexed()
	// The second folder exists for the client but is not a directory the
	// session can open.
	second := filepath.Join(t.TempDir(), "missing")
	must(t, h.c.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{map[string]string{"uri": workspace.PathToURI(second), "name": "second"}}, "removed": []any{}}}))
	var syms []struct {
		Name string `json:"name"`
	}
	must(t, h.c.Call(testCtx(t), "workspace/symbol", map[string]any{"query": "A"}, &syms))
	if len(syms) != 1 || syms[0].Name != "A" {
		t.Errorf("symbols %+v", syms)
	}
}

func TestSymbolKinds(t *testing.T) {
	for name, kind := range symbolKinds {
		if got := protocolSymbolKind(name); got != kind {
			t.Errorf("%s → %v, want %v", name, got, kind)
		}
	}
	if got := protocolSymbolKind("markdown_section"); got != protocol.SymbolKindObject {
		t.Errorf("unknown kind → %v, want Object", got)
	}
}
