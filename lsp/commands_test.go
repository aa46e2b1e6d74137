package lsp

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
	"go.lsp.dev/protocol"
)

// TestGenerated regenerates docs/commands.md and the editors' protocol
// types from the command table and fails when a committed file differs;
// -update rewrites them.
func TestGenerated(t *testing.T) {
	cmds := commandTable()
	testutil.Golden(t, filepath.Join("..", "docs", "commands.md"), []byte(CommandsMarkdown(cmds)))
	testutil.Golden(t, filepath.Join("..", "editors", "vscode", "src", "protocol.ts"), []byte(TypeScript(cmds)))
	testutil.Golden(t, filepath.Join("..", "editors", "neovim", "lua", "context_ls", "protocol.lua"), []byte(Lua(cmds)))
}

// TestGeneratedContract: the generated files say what the table says —
// every operation with a command, its arguments under their one name with
// their rules, the place arguments for those about a place, locations in
// results, one-folder and per-folder answers.
func TestGeneratedContract(t *testing.T) {
	cmds := commandTable()
	md, ts, lua := CommandsMarkdown(cmds), TypeScript(cmds), Lua(cmds)
	for _, o := range service.Ops {
		if o.Command == "" {
			continue
		}
		if !strings.Contains(md, "### `"+o.Command+"`\n\n"+o.Doc) {
			t.Errorf("docs lack %s with its doc", o.Command)
		}
		if !strings.Contains(ts, "  "+o.Name+": '"+o.Command+"',") || !strings.Contains(lua, "  "+o.Name+" = '"+o.Command+"',") {
			t.Errorf("the editors' tables lack %s", o.Command)
		}
	}
	for _, want := range []string{
		"| `budget` | integer | most tokens the pack may have",
		"(100 to 1000000)",
		"| `k` | integer | number of hits (1 to 100; default 10) |",
		"| `query` | string, required |",
		"| `hits[].location` | Location | the same span as an LSP location (added by the language server) |",
		"| `textDocument.uri` | string | file URI of the document |",
		"One answer per folder: `{folders: [...]}`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("docs lack %q", want)
		}
	}
	for _, want := range []string{
		"export interface PackArgs extends PlaceArgs {",
		"  budget?: number;",
		"export interface SearchArgs {\n",
		"  query: string;",
		"export interface Located extends LineRange {",
		"  location: Location;",
		"export type PackAnswer = PackResult & InFolder;",
		"export type StatsAnswer = PerFolder<StatsResult>;",
		"  pack: { budget: { min: 100, max: 1000000 } },",
	} {
		if !strings.Contains(ts, want) {
			t.Errorf("protocol.ts lacks %q", want)
		}
	}
	for _, want := range []string{"  pack = { budget = { min = 100, max = 1000000 } },", "  similar = { 'snippet', 'symbol', 'k', 'paths', 'languages' },"} {
		if !strings.Contains(lua, want) {
			t.Errorf("protocol.lua lacks %q", want)
		}
	}
	// A place's arguments replace the request's file, line, column and lines.
	if strings.Contains(md[strings.Index(md, "### `contextLs.callers`"):], "| `line` |") {
		t.Error("contextLs.callers documents line, which a place fills")
	}
}

func TestExecuteCommandErrors(t *testing.T) {
	type args struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
		Place struct {
			Line uint32 `json:"line"`
		} `json:"place"`
	}
	echo := NewCommand("test.echo", "test: echo", func(_ context.Context, _ *CommandEnv, a args) (args, error) { return a, nil })
	h := startServer(t, Options{commands: append(commandTable(), echo)})
	h.initialize(clientCaps{}, nil)
	tests := []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"command": "nope"}, `command: unknown command "nope"`},
		{map[string]any{"command": "test.echo", "arguments": []any{map[string]any{"name": 5}}}, "arguments[0].name: expected string"},
		{map[string]any{"command": "test.echo", "arguments": []any{map[string]any{"place": map[string]any{"line": "x"}}}}, "arguments[0].place.line: expected non-negative integer"},
		{map[string]any{"command": "test.echo", "arguments": []any{map[string]any{"nmae": "typo"}}}, `arguments[0]: unknown field "nmae"`},
		{map[string]any{"command": "test.echo", "arguments": []any{"just a string"}}, "arguments[0]: expected object"},
		{map[string]any{"command": "test.echo", "arguments": []any{map[string]any{}, map[string]any{}}}, "takes one argument object, got 2"},
		// Embedded argument structs are not named (not "PlaceArgs.textDocument").
		{map[string]any{"command": "contextLs.callers", "arguments": []any{map[string]any{"textDocument": 5}}}, "arguments[0].textDocument: expected object"},
		{map[string]any{"command": "contextLs.callers", "arguments": []any{map[string]any{"textDocument": map[string]any{"uri": 5}}}}, "arguments[0].textDocument.uri: expected string"},
	}
	for _, tc := range tests {
		err := h.c.Call(testCtx(t), "workspace/executeCommand", tc.params, nil)
		if rpcCode(err) != int64(jsonrpc.CodeInvalidParams) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want InvalidParams containing %q", tc.params, err, tc.want)
		}
	}
	var out args
	must(t, h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.echo", "arguments": []any{map[string]any{"name": "n", "count": 3}}}, &out))
	if out.Name != "n" || out.Count != 3 {
		t.Errorf("echo %+v", out)
	}
	// No argument at all: the zero value.
	must(t, h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.echo"}, &out))
	if out.Name != "" {
		t.Errorf("echo without arguments %+v", out)
	}
}

func TestStatusCommand(t *testing.T) {
	h := startServer(t, Options{Backend: &fakeBackend{}})
	h.initialize(clientCaps{}, nil)
	uri := workspace.PathToURI(filepath.Join(h.root, "s.go"))
	must(t, h.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 3, "text": "héllo"}}))
	st := h.status()
	if st.Server.Name != "context-ls-test" || st.Server.Version != "0.0.0-test" {
		t.Errorf("server %+v", st.Server)
	}
	if len(st.Folders) != 1 || st.Folders[0].Path != h.root || st.Folders[0].State != "open" || st.Folders[0].Name != "root" {
		t.Errorf("folders %+v", st.Folders)
	}
	if len(st.Documents) != 1 || st.Documents[0].URI != uri || st.Documents[0].Version != 3 || st.Documents[0].Bytes != 6 {
		t.Errorf("documents %+v", st.Documents)
	}
	if st.Watching != "server" {
		t.Errorf("watching %q", st.Watching)
	}
}

// TestPlace: the LSP place arguments become the request's file, line,
// column and lines — a range is lines for an operation about a selection,
// its start for one about a definition —, and a bad place is an error
// naming what the client sent.
func TestPlace(t *testing.T) {
	type args struct {
		Op   string          `json:"op"`
		Args json.RawMessage `json:"args"`
	}
	cmd := NewCommand("test.place", "test: convert a place", func(ctx context.Context, env *CommandEnv, a args) (map[string]json.RawMessage, error) {
		o, _ := service.Lookup(a.Op)
		out := map[string]json.RawMessage{}
		if err := json.Unmarshal(a.Args, &out); err != nil {
			return nil, err
		}
		_, err := env.place(o, out)
		return out, err
	})
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 1})
	h := startServer(t, Options{Backend: b, commands: []Command{cmd}})
	path := writeFile(t, h.root, "p.go", "a😀b\nline2\n")
	uri := workspace.PathToURI(path)
	file, _ := json.Marshal(path)
	h.initialize(clientCaps{}, map[string]any{"embeddings": false})
	tests := []struct {
		name    string
		op      string
		args    map[string]any
		want    string // JSON of the request, or an error substring when wantErr
		wantErr bool
	}{
		{"textDocument and position", "related", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 3}},
			`{"column":3,"file":` + string(file) + `,"line":1}`, false},
		{"bare uri", "related", map[string]any{"uri": uri, "position": map[string]any{"line": 1, "character": 2}, "k": 3},
			`{"column":3,"file":` + string(file) + `,"k":3,"line":2}`, false},
		{"range", "related", map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0, "character": 1}, "end": map[string]any{"line": 1, "character": 3}}},
			`{"file":` + string(file) + `,"lines":"1-2"}`, false},
		{"range ending at a line start", "pin", map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 1, "character": 0}}},
			`{"file":` + string(file) + `,"lines":"1-1"}`, false},
		{"range of a definition: its start", "callers", map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0, "character": 3}, "end": map[string]any{"line": 1, "character": 0}}},
			`{"column":3,"file":` + string(file) + `,"line":1}`, false},
		{"document alone: the whole file", "pin", map[string]any{"uri": uri}, `{"file":` + string(file) + `}`, false},
		{"symbol: the operation's own", "callers", map[string]any{"symbol": "Server.Handle"}, `{"symbol":"Server.Handle"}`, false},
		{"position without uri", "related", map[string]any{"position": map[string]any{"line": 0, "character": 0}}, "textDocument.uri: required", true},
		{"disagreeing uris", "related", map[string]any{"uri": uri, "textDocument": map[string]any{"uri": uri + "x"}, "position": map[string]any{"line": 0, "character": 0}}, "uri: disagrees", true},
		{"range end before start", "related", map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}}, "range: end before start", true},
		{"non-file uri", "related", map[string]any{"uri": "untitled:1", "position": map[string]any{"line": 0, "character": 0}}, "textDocument.uri:", true},
		{"symbol and document", "related", map[string]any{"uri": uri, "symbol": "X"}, "give a symbol or a document", true},
		{"a place and the service's file", "related", map[string]any{"uri": uri, "file": "p.go"}, "arguments[0].file: give a place as textDocument", true},
		{"a place where none is taken", "search", map[string]any{"uri": uri, "query": "x"}, "contextLs.search takes no place", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got json.RawMessage
			err := h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.place", "arguments": []any{map[string]any{"op": tc.op, "args": tc.args}}}, &got)
			if tc.wantErr {
				if rpcCode(err) != int64(jsonrpc.CodeInvalidParams) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("got %v, want InvalidParams containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestLocate: every service location (characters) in a result gains its
// LSP location (UTF-16) against the file's text.
func TestLocate(t *testing.T) {
	path := writeFile(t, t.TempDir(), "l.go", "😀x\nab\n")
	s := &server{docs: newDocumentStore(), log: newLogger(nil, io.Discard)}
	res := `{"hits":[{"path":"l.go","uri":"` + workspace.PathToURI(path) + `","startLine":1,"startColumn":2,"endLine":2,"endColumn":3}],"n":1}`
	out, err := s.newLocator().locate(json.RawMessage(res))
	must(t, err)
	var got struct {
		Hits []struct {
			Path     string            `json:"path"`
			Location protocol.Location `json:"location"`
		} `json:"hits"`
		N int `json:"n"`
	}
	must(t, json.Unmarshal(out, &got))
	want := protocol.Location{URI: protocol.DocumentURI(workspace.PathToURI(path)), Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 2}, End: protocol.Position{Line: 1, Character: 2}}}
	if len(got.Hits) != 1 || got.Hits[0].Path != "l.go" || got.Hits[0].Location != want || got.N != 1 {
		t.Errorf("got %s, want the hit located at %+v", out, want)
	}
}
