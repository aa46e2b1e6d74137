package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCommandsDoc regenerates docs/commands.md from the command table and
// fails when the committed file differs; -update rewrites it.
func TestCommandsDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "commands.md")
	got := CommandsMarkdown(commandTable())
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s (run with -update to create it): %v", path, err)
	}
	if string(want) != got {
		t.Errorf("%s is out of date with lsp/commands.go; run `go test ./lsp -run TestCommandsDoc -update`", path)
	}
}

func TestCommandsMarkdownReflection(t *testing.T) {
	type inner struct {
		Deep string `json:"deep" doc:"a nested field"`
	}
	type args struct {
		PlaceArgs
		Limit  int      `json:"limit,omitempty" doc:"at most this many"`
		Inner  inner    `json:"inner" doc:"an object"`
		Items  []inner  `json:"items" doc:"objects"`
		Tags   []string `json:"tags" doc:"labels | with a pipe"`
		hidden int
		Skip   string `json:"-"`
	}
	type result struct {
		Hits []struct {
			Location LocationResult `json:"location" doc:"where"`
		} `json:"hits" doc:"the hits"`
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
		if rpcCode(err) != int64(CodeInvalidParams) || !strings.Contains(err.Error(), tc.want) {
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
	h := startServer(t, Options{Features: (&fakeBackend{}).features()})
	h.initialize(clientCaps{}, nil)
	uri := PathToURI(filepath.Join(h.root, "s.go"))
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
	type res struct {
		Path   string `json:"path"`
		Point  *Point `json:"point"`
		Range  *Range `json:"range"`
		Symbol string `json:"symbol"`
		Folder bool   `json:"folder"`
	}
	cmd := NewCommand("test.place", "test: resolve a place", func(_ context.Context, env *CommandEnv, a args) (res, error) {
		p, err := env.ResolvePlace(a.PlaceArgs)
		if err != nil {
			return res{}, err
		}
		return res{Path: p.Path, Point: p.Point, Range: p.Range, Symbol: p.Symbol, Folder: p.Folder != nil}, nil
	})
	h := startServer(t, Options{Features: (&fakeBackend{}).features(), commands: []Command{cmd}})
	path := writeFile(t, h.root, "p.go", "a😀b\nline2\n")
	uri := PathToURI(path)
	h.initialize(clientCaps{}, nil)
	tests := []struct {
		name    string
		args    map[string]any
		want    string // JSON of res, or an error substring when wantErr
		wantErr bool
	}{
		{"textDocument and position", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 3}},
			`{"path":"` + path + `","point":{"line":0,"column":5},"range":null,"symbol":"","folder":true}`, false},
		{"bare uri", map[string]any{"uri": uri, "position": map[string]any{"line": 1, "character": 2}},
			`{"path":"` + path + `","point":{"line":1,"column":2},"range":null,"symbol":"","folder":true}`, false},
		{"range", map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0, "character": 1}, "end": map[string]any{"line": 0, "character": 3}}},
			`{"path":"` + path + `","point":null,"range":{"start":{"line":0,"column":1},"end":{"line":0,"column":5}},"symbol":"","folder":true}`, false},
		{"symbol", map[string]any{"symbol": "Server.Handle"},
			`{"path":"","point":null,"range":null,"symbol":"Server.Handle","folder":false}`, false},
		{"nothing", map[string]any{}, "textDocument: required (with position), or symbol", true},
		{"uri without position", map[string]any{"uri": uri}, "position: required", true},
		{"position without uri", map[string]any{"position": map[string]any{"line": 0, "character": 0}}, "textDocument.uri: required", true},
		{"disagreeing uris", map[string]any{"uri": uri, "textDocument": map[string]any{"uri": uri + "x"}, "position": map[string]any{"line": 0, "character": 0}}, "uri: disagrees", true},
		{"range end before start", map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}}, "range: end before start", true},
		{"non-file uri", map[string]any{"uri": "untitled:1", "position": map[string]any{"line": 0, "character": 0}}, "textDocument.uri:", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got json.RawMessage
			err := h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.place", "arguments": []any{tc.args}}, &got)
			if tc.wantErr {
				if rpcCode(err) != int64(CodeInvalidParams) || !strings.Contains(err.Error(), tc.want) {
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

func TestCommandEnvHelpers(t *testing.T) {
	type args struct{}
	type res struct {
		Folders   int              `json:"folders"`
		HasHook   bool             `json:"hasHook"`
		Locations []LocationResult `json:"locations"`
	}
	var path string
	cmd := NewCommand("test.locate", "test: convert locations", func(_ context.Context, env *CommandEnv, _ args) (res, error) {
		return res{
			Folders: len(env.Folders()),
			HasHook: env.Features().OpenFolder != nil,
			Locations: env.Locations([]Location{
				{Path: path, Range: Range{Start: Point{0, 4}, End: Point{1, 2}}},
			}),
		}, nil
	})
	h := startServer(t, Options{Features: (&fakeBackend{}).features(), commands: []Command{cmd}})
	path = writeFile(t, h.root, "l.go", "😀x\nab\n")
	h.initialize(clientCaps{}, nil)
	var got res
	must(t, h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.locate"}, &got))
	want := res{Folders: 1, HasHook: true, Locations: []LocationResult{{
		URI:   PathToURI(path),
		Range: RangeArg{Start: PositionArg{Line: 0, Character: 2}, End: PositionArg{Line: 1, Character: 2}},
	}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
