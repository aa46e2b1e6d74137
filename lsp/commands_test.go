package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
)

// TestCommandsDoc regenerates docs/commands.md from the command table and
// fails when the committed file differs; -update rewrites it.
func TestCommandsDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "commands.md")
	testutil.Golden(t, path, []byte(CommandsMarkdown(commandTable())))
}

func TestCommandsMarkdownReflection(t *testing.T) {
	type inner struct {
		Deep string `json:"deep" desc:"a nested field"`
	}
	type args struct {
		PlaceArgs
		Limit  int      `json:"limit,omitempty" desc:"at most this many"`
		Inner  inner    `json:"inner" desc:"an object"`
		Items  []inner  `json:"items" desc:"objects"`
		Tags   []string `json:"tags" desc:"labels | with a pipe"`
		hidden int
		Skip   string `json:"-"`
	}
	type result struct {
		Hits []struct {
			Location LocationResult `json:"location" desc:"where"`
		} `json:"hits" desc:"the hits"`
	}
	cmd := NewCommand("test.doc", "Test the generator.", func(context.Context, *CommandEnv, args) (result, error) {
		return result{}, nil
	})
	md := CommandsMarkdown([]Command{cmd})
	for _, want := range []string{
		"### `test.doc`\n\nTest the generator.",
		"| `textDocument.uri` | string | file URI of the document |",
		"| `position` | object, optional |",
		"| `position.character` | integer | 0-based offset in the line, in UTF-16 code units |",
		"| `limit` | integer, optional | at most this many |",
		"| `inner.deep` | string | a nested field |",
		"| `items[].deep` | string | a nested field |",
		"| `tags` | array of string | labels \\| with a pipe |",
		"| `hits[].location.range.start.line` | integer | 0-based line |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range []string{"hidden", "Skip"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown documents %s", bad)
		}
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

func TestResolvePlace(t *testing.T) {
	// Resolve through a command so the session state is the real one.
	type args struct {
		PlaceArgs
	}
	cmd := NewCommand("test.place", "test: resolve a place", func(ctx context.Context, env *CommandEnv, a args) (service.Selection, error) {
		p, err := env.resolvePlace(ctx, a.PlaceArgs)
		if err != nil {
			return service.Selection{}, err
		}
		p.release()
		return p.sel, nil
	})
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 1})
	h := startServer(t, Options{Backend: b, commands: []Command{cmd}})
	path := writeFile(t, h.root, "p.go", "a😀b\nline2\n")
	uri := workspace.PathToURI(path)
	h.initialize(clientCaps{}, map[string]any{"embeddings": false})
	tests := []struct {
		name    string
		args    map[string]any
		want    string // JSON of the selection, or an error substring when wantErr
		wantErr bool
	}{
		{"textDocument and position", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 3}},
			`{"file":"p.go","line":1,"column":3}`, false},
		{"bare uri", map[string]any{"uri": uri, "position": map[string]any{"line": 1, "character": 2}},
			`{"file":"p.go","line":2,"column":3}`, false},
		{"range", map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0, "character": 1}, "end": map[string]any{"line": 1, "character": 3}}},
			`{"file":"p.go","lines":"1-2"}`, false},
		{"range ending at a line start", map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 1, "character": 0}}},
			`{"file":"p.go","lines":"1-1"}`, false},
		{"document alone: the whole file", map[string]any{"uri": uri}, `{"file":"p.go"}`, false},
		{"symbol", map[string]any{"symbol": "Server.Handle"}, `{"symbol":"Server.Handle"}`, false},
		{"nothing", map[string]any{}, "textDocument: required (with position), or symbol", true},
		{"position without uri", map[string]any{"position": map[string]any{"line": 0, "character": 0}}, "textDocument.uri: required", true},
		{"disagreeing uris", map[string]any{"uri": uri, "textDocument": map[string]any{"uri": uri + "x"}, "position": map[string]any{"line": 0, "character": 0}}, "uri: disagrees", true},
		{"range end before start", map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}}, "range: end before start", true},
		{"non-file uri", map[string]any{"uri": "untitled:1", "position": map[string]any{"line": 0, "character": 0}}, "textDocument.uri:", true},
		{"symbol and document", map[string]any{"uri": uri, "symbol": "X"}, "give a symbol or a document", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got json.RawMessage
			err := h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.place", "arguments": []any{tc.args}}, &got)
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

// TestCommandEnvLocation: service locations (characters) become LSP
// locations (UTF-16) against the file's text.
func TestCommandEnvLocation(t *testing.T) {
	type args struct{}
	cmd := NewCommand("test.locate", "test: convert a location", func(_ context.Context, env *CommandEnv, _ args) (LocationResult, error) {
		f := env.s.openFolders()[0]
		return env.location(f, service.Location{Path: "l.go", Range: service.Range{StartLine: 1, StartColumn: 2, EndLine: 2, EndColumn: 3}}), nil
	})
	h := startServer(t, Options{Backend: &fakeBackend{}, commands: []Command{cmd}})
	path := writeFile(t, h.root, "l.go", "😀x\nab\n")
	h.initialize(clientCaps{}, nil)
	var got LocationResult
	must(t, h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.locate"}, &got))
	want := LocationResult{URI: workspace.PathToURI(path), Range: RangeArg{Start: PositionArg{Line: 0, Character: 2}, End: PositionArg{Line: 1, Character: 2}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
