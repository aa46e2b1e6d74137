package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/context-ls/context-ls/lsp/lsptest"
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

// poll calls fn every 10 ms until it reports done or wait passes; the
// last description is the failure message.
func poll(t *testing.T, what string, fn func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		ok, desc := fn()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %v: %s", what, wait, desc)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// session drives a server serving root through a scripted client.
type session struct {
	t    *testing.T
	c    *lsptest.Client
	root string
	// versions of the open documents
	mu       sync.Mutex
	versions map[string]int32
	texts    map[string]string
}

func newSession(t *testing.T, c *lsptest.Client, root string) *session {
	c.Handle("window/workDoneProgress/create", func(json.RawMessage) (any, error) { return nil, nil })
	c.Handle("client/registerCapability", func(json.RawMessage) (any, error) { return nil, nil })
	return &session{t: t, c: c, root: root, versions: map[string]int32{}, texts: map[string]string{}}
}

func (s *session) path(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }
func (s *session) uri(rel string) string  { return PathToURI(s.path(rel)) }

// initialize starts the session with progress support, client-side file
// watching and hierarchical document symbols, serving the given folders
// (s.root when none).
func (s *session) initialize(initOptions map[string]any, folders ...string) map[string]any {
	s.t.Helper()
	if len(folders) == 0 {
		folders = []string{s.root}
	}
	var wf []map[string]string
	for _, f := range folders {
		wf = append(wf, map[string]string{"uri": PathToURI(f), "name": filepath.Base(f)})
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
func (s *session) awaitIndexed() (string, []string) {
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
func (s *session) fileText(rel string) string {
	s.t.Helper()
	b, err := os.ReadFile(s.path(rel))
	must(s.t, err)
	return string(b)
}

// command runs workspace/executeCommand with one argument object.
func (s *session) command(name string, args any, out any) error {
	params := map[string]any{"command": name}
	if args != nil {
		params["arguments"] = []any{args}
	}
	return s.c.Call(testCtx(s.t), "workspace/executeCommand", params, out)
}

// commandWithToken runs a command with a workDoneToken.
func (s *session) commandWithToken(name string, args any, token string, out any) error {
	return s.c.Call(testCtx(s.t), "workspace/executeCommand", map[string]any{
		"command": name, "arguments": []any{args}, "workDoneToken": token,
	}, out)
}

// search runs contextLs.search.
func (s *session) search(query string, k int) SearchResult {
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

func (s *session) workspaceSymbols(query string) []symbolResult {
	s.t.Helper()
	var out []symbolResult
	must(s.t, s.c.Call(testCtx(s.t), "workspace/symbol", map[string]any{"query": query}, &out))
	return out
}

func (s *session) definition(rel string, pos protocol.Position) []protocol.Location {
	s.t.Helper()
	var out []protocol.Location
	must(s.t, s.c.Call(testCtx(s.t), "textDocument/definition", map[string]any{
		"textDocument": map[string]any{"uri": s.uri(rel)}, "position": pos,
	}, &out))
	return out
}

func (s *session) hover(rel string, pos protocol.Position) *protocol.Hover {
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

func (s *session) documentSymbols(rel string) []docSymbol {
	s.t.Helper()
	var out []docSymbol
	must(s.t, s.c.Call(testCtx(s.t), "textDocument/documentSymbol", map[string]any{
		"textDocument": map[string]any{"uri": s.uri(rel)},
	}, &out))
	return out
}

// didOpen opens rel with its disk content.
func (s *session) didOpen(rel, languageID string) {
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
func (s *session) insert(rel, text string) {
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
func (s *session) buffer(rel string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.texts[rel]
}

// save writes the buffer to disk and sends didSave.
func (s *session) save(rel string) {
	s.t.Helper()
	must(s.t, os.WriteFile(s.path(rel), []byte(s.buffer(rel)), 0o644))
	must(s.t, s.c.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": s.uri(rel)}}))
}

func (s *session) didClose(rel string) {
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

// Building the real binary, once per test process.
var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// serverBinary builds cmd/context-ls into a temporary directory (removed by
// TestMain) and returns its path; the test is skipped when the go command
// is not available.
func serverBinary(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot build the server binary")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "context-ls-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "context-ls")
		cmd := exec.Command(gobin, "build", "-o", binPath, "./cmd/context-ls")
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatalf("building the server: %v", binErr)
	}
	return binPath
}

// removeBinary deletes the built binary (TestMain calls it).
func removeBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

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
