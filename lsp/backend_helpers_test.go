package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
)

// fixtureDir is the workspace the backend tests serve (copied first, so
// edits and saves never touch testdata).
const fixtureDir = "testdata/workspace"

// copyFixture copies the fixture workspace into dst.
func copyFixture(t *testing.T, dst string) {
	t.Helper()
	err := filepath.WalkDir(fixtureDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(fixtureDir, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying the fixture: %v", err)
	}
}

// wait bounds a poll for eventual consistency; it is a hang guard, not a
// speed assertion.
const wait = 15 * time.Second

// poll waits (up to wait) until fn reports done.
func poll(t *testing.T, what string, fn func() (bool, string)) { testutil.Poll(t, what, wait, fn) }

// editor drives a server serving root through a scripted client.
type editor struct {
	t    *testing.T
	c    *lsptest.Client
	root string
	// versions of the open documents
	mu       sync.Mutex
	versions map[string]int32
	texts    map[string]string
}

func newSession(t *testing.T, c *lsptest.Client, root string) *editor {
	c.Handle("window/workDoneProgress/create", func(json.RawMessage) (any, error) { return nil, nil })
	c.Handle("client/registerCapability", func(json.RawMessage) (any, error) { return nil, nil })
	return &editor{t: t, c: c, root: root, versions: map[string]int32{}, texts: map[string]string{}}
}

func (s *editor) path(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }
func (s *editor) uri(rel string) string  { return workspace.PathToURI(s.path(rel)) }

// initialize starts the editor with progress support, client-side file
// watching and hierarchical document symbols, serving the given folders
// (s.root when none).
func (s *editor) initialize(initOptions map[string]any, folders ...string) map[string]any {
	s.t.Helper()
	if len(folders) == 0 {
		folders = []string{s.root}
	}
	var wf []map[string]string
	for _, f := range folders {
		wf = append(wf, map[string]string{"uri": workspace.PathToURI(f), "name": filepath.Base(f)})
	}
	caps := clientCaps{progress: true, dynamicWatch: true, hierarchical: true}.json()
	var res struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	must(s.t, s.c.Call(testCtx(s.t), "initialize", map[string]any{
		"processId": os.Getpid(), "capabilities": caps, "workspaceFolders": wf,
		"initializationOptions": initOptions,
	}, &res))
	must(s.t, s.c.Notify("initialized", map[string]any{}))
	return res.Capabilities
}

// workDoneValue is a $/progress value.
type workDoneValue struct {
	Kind       string `json:"kind"`
	Title      string `json:"title"`
	Message    string `json:"message"`
	Percentage uint32 `json:"percentage"`
}

// progressOn matches $/progress notifications on token of kind.
func progressOn(token json.RawMessage, kind string) func(lsptest.Message) bool {
	return func(m lsptest.Message) bool {
		if m.Method != "$/progress" {
			return false
		}
		var p struct {
			Token json.RawMessage `json:"token"`
			Value workDoneValue   `json:"value"`
		}
		return json.Unmarshal(m.Params, &p) == nil && string(p.Token) == string(token) && p.Value.Kind == kind
	}
}

// awaitIndexed waits for the bootstrap progress of one folder: the
// server's token creation, then begin … end; it returns the end message
// and the reports seen.
func (s *editor) awaitIndexed() (string, []string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	defer cancel()
	create, err := s.c.Await(ctx, lsptest.Method("window/workDoneProgress/create"))
	must(s.t, err)
	var cp struct {
		Token json.RawMessage `json:"token"`
	}
	must(s.t, create.Decode(&cp))
	begin, err := s.c.Await(ctx, progressOn(cp.Token, "begin"))
	must(s.t, err)
	var bp struct {
		Value workDoneValue `json:"value"`
	}
	must(s.t, begin.Decode(&bp))
	if !strings.HasPrefix(bp.Value.Title, "Indexing") {
		s.t.Errorf("progress title %q", bp.Value.Title)
	}
	end, err := s.c.Await(ctx, progressOn(cp.Token, "end"))
	must(s.t, err)
	var ep struct {
		Value workDoneValue `json:"value"`
	}
	must(s.t, end.Decode(&ep))
	var reports []string
	for _, m := range s.c.Messages() {
		if progressOn(cp.Token, "report")(m) {
			var rp struct {
				Value workDoneValue `json:"value"`
			}
			must(s.t, m.Decode(&rp))
			reports = append(reports, rp.Value.Message)
		}
	}
	return ep.Value.Message, reports
}

// position is the UTF-16 position of the n-th (0-based) occurrence of
// needle in text, plus offset bytes into it.
func position(t *testing.T, text, needle string, n, offset int) protocol.Position {
	t.Helper()
	at := -1
	for i, from := 0, 0; i <= n; i++ {
		j := strings.Index(text[from:], needle)
		if j < 0 {
			t.Fatalf("%q: occurrence %d not found", needle, n)
		}
		at = from + j
		from = at + len(needle)
	}
	return NewMapper([]byte(text)).OffsetPosition(at + offset)
}

// fileText reads a workspace file.
func (s *editor) fileText(rel string) string {
	s.t.Helper()
	b, err := os.ReadFile(s.path(rel))
	must(s.t, err)
	return string(b)
}

// command runs workspace/executeCommand with one argument object.
func (s *editor) command(name string, args any, out any) error {
	params := map[string]any{"command": name}
	if args != nil {
		params["arguments"] = []any{args}
	}
	return s.c.Call(testCtx(s.t), "workspace/executeCommand", params, out)
}

// commandWithToken runs a command with a workDoneToken.
func (s *editor) commandWithToken(name string, args any, token string, out any) error {
	return s.c.Call(testCtx(s.t), "workspace/executeCommand", map[string]any{
		"command": name, "arguments": []any{args}, "workDoneToken": token,
	}, out)
}

// The language server's answers as the tests read them: the service's
// results, every location with the LSP location the server adds.
type (
	SearchHit struct {
		service.Hit
		Location protocol.Location `json:"location"`
	}
	SearchResult struct {
		Query string      `json:"query"`
		Hits  []SearchHit `json:"hits"`
		Notes []string    `json:"notes"`
	}
	located struct {
		service.Location
		LSP protocol.Location `json:"location"`
	}
	lspSymbol struct {
		service.Symbol
		Location protocol.Location `json:"location"`
	}
	GraphEntry struct {
		service.GraphItem
		Location protocol.Location `json:"location"`
		Sites    []located         `json:"sites"`
	}
	GraphTarget struct {
		Definition lspSymbol    `json:"definition"`
		Items      []GraphEntry `json:"items"`
		Guesses    []GraphEntry `json:"guesses"`
		Omitted    int          `json:"omitted"`
		Truncated  int          `json:"truncated"`
		Unresolved []string     `json:"unresolved"`
	}
	GraphAnswer struct {
		Results []GraphTarget `json:"results"`
		Folder  string        `json:"folder"`
	}
	PackItem struct {
		service.PackItem
		Location protocol.Location `json:"location"`
	}
	ContextPackResult struct {
		service.PackResult
		Items  []PackItem `json:"items"`
		Folder string     `json:"folder"`
	}
	RelatedItem struct {
		service.RelatedItem
		Location protocol.Location `json:"location"`
	}
	RelatedResult struct {
		service.RelatedResult
		Selection located       `json:"selection"`
		Items     []RelatedItem `json:"items"`
		Folder    string        `json:"folder"`
	}
	PinEntry struct {
		service.Pin
		Location protocol.Location `json:"location"`
	}
	PinsResult struct {
		Pins   []PinEntry `json:"pins"`
		Tokens int        `json:"tokens"`
		Folder string     `json:"folder"`
	}
	FolderStats struct {
		service.StatsResult
		Folder string `json:"folder"`
	}
	StatsResult struct {
		Folders []FolderStats `json:"folders"`
	}
	ReindexFolder struct {
		service.ReindexResult
		Folder string `json:"folder"`
	}
	ReindexResult struct {
		Folders []ReindexFolder `json:"folders"`
	}
)

// search runs contextLs.search.
func (s *editor) search(query string, k int) SearchResult {
	s.t.Helper()
	var res SearchResult
	must(s.t, s.command("contextLs.search", map[string]any{"query": query, "k": k}, &res))
	return res
}

// symbolResult is a SymbolInformation.
type symbolResult struct {
	Name          string            `json:"name"`
	Kind          int               `json:"kind"`
	ContainerName string            `json:"containerName"`
	Location      protocol.Location `json:"location"`
}

func (s *editor) workspaceSymbols(query string) []symbolResult {
	s.t.Helper()
	var out []symbolResult
	must(s.t, s.c.Call(testCtx(s.t), "workspace/symbol", map[string]any{"query": query}, &out))
	return out
}

func (s *editor) definition(rel string, pos protocol.Position) []protocol.Location {
	s.t.Helper()
	var out []protocol.Location
	must(s.t, s.c.Call(testCtx(s.t), "textDocument/definition", map[string]any{
		"textDocument": map[string]any{"uri": s.uri(rel)}, "position": pos,
	}, &out))
	return out
}

func (s *editor) hover(rel string, pos protocol.Position) *protocol.Hover {
	s.t.Helper()
	var out *protocol.Hover
	must(s.t, s.c.Call(testCtx(s.t), "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": s.uri(rel)}, "position": pos,
	}, &out))
	return out
}

type docSymbol struct {
	Name           string         `json:"name"`
	Detail         string         `json:"detail"`
	Kind           int            `json:"kind"`
	Range          protocol.Range `json:"range"`
	SelectionRange protocol.Range `json:"selectionRange"`
	Children       []docSymbol    `json:"children"`
}

func (s *editor) documentSymbols(rel string) []docSymbol {
	s.t.Helper()
	var out []docSymbol
	must(s.t, s.c.Call(testCtx(s.t), "textDocument/documentSymbol", map[string]any{
		"textDocument": map[string]any{"uri": s.uri(rel)},
	}, &out))
	return out
}

// didOpen opens rel with its disk content.
func (s *editor) didOpen(rel, languageID string) {
	s.t.Helper()
	text := s.fileText(rel)
	s.mu.Lock()
	s.versions[rel] = 1
	s.texts[rel] = text
	s.mu.Unlock()
	must(s.t, s.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": s.uri(rel), "languageId": languageID, "version": 1, "text": text,
	}}))
}

// insert inserts text at the end of the open document rel (an
// incremental change at a UTF-16 position).
func (s *editor) insert(rel, text string) {
	s.t.Helper()
	s.mu.Lock()
	old := s.texts[rel]
	end := NewMapper([]byte(old)).OffsetPosition(len(old))
	s.versions[rel]++
	v := s.versions[rel]
	s.texts[rel] = old + text
	s.mu.Unlock()
	must(s.t, s.c.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": s.uri(rel), "version": v},
		"contentChanges": []map[string]any{{
			"range": map[string]any{"start": end, "end": end}, "text": text,
		}},
	}))
}

// buffer returns the client's text of an open document.
func (s *editor) buffer(rel string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.texts[rel]
}

// save writes the buffer to disk and sends didSave.
func (s *editor) save(rel string) {
	s.t.Helper()
	must(s.t, os.WriteFile(s.path(rel), []byte(s.buffer(rel)), 0o644))
	must(s.t, s.c.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": s.uri(rel)}}))
}

func (s *editor) didClose(rel string) {
	s.t.Helper()
	s.mu.Lock()
	delete(s.texts, rel)
	delete(s.versions, rel)
	s.mu.Unlock()
	must(s.t, s.c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": s.uri(rel)}}))
}

// hasHit reports whether a search result holds a hit whose symbol is sym.
func hasHit(res SearchResult, sym string) (SearchHit, bool) {
	for _, h := range res.Hits {
		if h.Symbol == sym {
			return h, true
		}
	}
	return SearchHit{}, false
}

func hitSymbols(res SearchResult) string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, fmt.Sprintf("%s@%s", h.Symbol, h.Path))
	}
	return strings.Join(out, ", ")
}

func symbolNames(syms []symbolResult) string {
	var out []string
	for _, s := range syms {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

// serverBinary builds cmd/context-ls once per test process.
func serverBinary(t *testing.T) string { return testutil.Binary(t) }

// rpcMessage returns the message of an *lsptest.RPCError.
func rpcMessage(err error) string {
	var re *lsptest.RPCError
	if errors.As(err, &re) {
		return re.Message
	}
	if err != nil {
		return err.Error()
	}
	return ""
}
