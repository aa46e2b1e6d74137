package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/share"
	"github.com/context-ls/context-ls/workspace"
)

// Processes sharing one index: an editor's language server (context-ls
// serve, driven with lsptest) and MCP servers on the same workspace and
// the same --db.

// lspProc is a context-ls serve process with a scripted editor.
type lspProc struct {
	t      *testing.T
	c      *lsptest.Client
	cmd    *exec.Cmd
	stderr *testutil.SyncBuffer
	root   string
	ver    int
}

func startLSP(t *testing.T, root, db string) *lspProc {
	t.Helper()
	cmd := exec.Command(binary(t), "serve", "--db", db)
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	l := &lspProc{t: t, cmd: cmd, stderr: &testutil.SyncBuffer{}, root: root}
	cmd.Stderr = l.stderr
	c, err := lsptest.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	l.c = c
	t.Cleanup(func() {
		c.Close()
		if cmd.ProcessState == nil {
			select {
			case <-c.Done():
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
			}
			c.Wait()
		}
		if t.Failed() || os.Getenv("MCP_TEST_LOGS") != "" {
			t.Logf("serve stderr (pid %d):\n%s", cmd.Process.Pid, l.stderr.String())
		}
	})
	err = c.Call(testCtx(t), "initialize", map[string]any{
		"processId": os.Getpid(), "capabilities": map[string]any{},
		"workspaceFolders": []map[string]string{{"uri": l.uri(""), "name": filepath.Base(root)}},
	}, nil)
	if err != nil {
		t.Fatalf("initialize the language server: %v", err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *lspProc) pid() int { return l.cmd.Process.Pid }

func (l *lspProc) uri(rel string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(l.root, filepath.FromSlash(rel)))}).String()
}

// search runs contextLs.search and returns the hits' path:symbol.
func (l *lspProc) search(query string) ([]string, error) {
	var res struct {
		Hits []struct {
			Path   string `json:"path"`
			Symbol string `json:"symbol"`
		} `json:"hits"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := l.c.Call(ctx, "workspace/executeCommand", map[string]any{
		"command": "contextLs.search", "arguments": []any{map[string]any{"query": query, "k": 5}},
	}, &res)
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Path+":"+h.Symbol)
	}
	return out, err
}

// awaitIndexed polls until the first scan of the index the server uses is
// done: a search while it runs answers from the files indexed so far. A
// server forwarding to another process reports that process's scan; call
// it once the server owns the index to wait for its own.
func (l *lspProc) awaitIndexed() {
	l.t.Helper()
	poll(l.t, "the language server's first scan is done", func() (bool, string) {
		var st struct {
			Folders []struct {
				Indexing struct {
					State string `json:"state"`
				} `json:"indexing"`
			} `json:"folders"`
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := l.c.Call(ctx, "workspace/executeCommand", map[string]any{
			"command": "contextLs.stats",
		}, &st)
		if err != nil {
			return false, err.Error()
		}
		return len(st.Folders) == 1 && st.Folders[0].Indexing.State == "done", fmt.Sprintf("%+v", st)
	})
}

// edit opens rel and replaces its buffer with text, unsaved.
func (l *lspProc) edit(rel, text string) {
	l.t.Helper()
	l.ver++
	if l.ver == 1 {
		disk, err := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(rel)))
		if err != nil {
			l.t.Fatal(err)
		}
		if err := l.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": l.uri(rel), "languageId": "go", "version": 1, "text": string(disk)}}); err != nil {
			l.t.Fatal(err)
		}
		l.ver++
	}
	if err := l.c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": l.uri(rel), "version": l.ver},
		"contentChanges": []map[string]any{{"text": text}},
	}); err != nil {
		l.t.Fatal(err)
	}
}

// stop ends the session the way an editor does.
func (l *lspProc) stop() {
	l.t.Helper()
	if err := l.c.Call(testCtx(l.t), "shutdown", nil, nil); err != nil {
		l.t.Fatalf("shutdown: %v", err)
	}
	if err := l.c.Notify("exit", nil); err != nil {
		l.t.Fatal(err)
	}
	if code, err := l.c.Wait(); err != nil || code != 0 {
		l.t.Errorf("language server exit: code %d, %v", code, err)
	}
}

// kill ends the process at once (SIGKILL): no cleanup, a stale socket.
func (l *lspProc) kill() {
	l.t.Helper()
	l.cmd.Process.Kill()
	l.c.Wait()
}

func (c *mcpClient) kill() {
	c.t.Helper()
	c.cmd.Process.Kill()
	<-c.done
}

// sharing returns the stats' sharing section.
func (c *mcpClient) sharing() Sharing {
	c.t.Helper()
	var st StatsResult
	c.ok("get_context_stats", map[string]any{}, &st)
	if st.Sharing == nil {
		c.t.Fatal("stats without a sharing section")
	}
	return *st.Sharing
}

// awaitOwner polls until the MCP server reports wantState with the owner
// predicate holding.
func (c *mcpClient) awaitOwner(what, wantState string, owner func(Sharing) bool) {
	c.t.Helper()
	poll(c.t, what, func() (bool, string) {
		sh := c.sharing()
		return sh.State == wantState && owner(sh), fmt.Sprintf("%+v", sh)
	})
}

// queryHas reports whether query_context's hits include a snippet of path
// containing text.
func (c *mcpClient) queryHas(query, path, text string) (bool, string) {
	res := c.call("query_context", map[string]any{"query": query, "k": 5})
	if res.IsError {
		return false, res.text()
	}
	var q service.SearchResult
	if err := json.Unmarshal(res.StructuredContent, &q); err != nil {
		return false, err.Error()
	}
	var seen []string
	for _, h := range q.Hits {
		if h.Path == path && strings.Contains(h.Text, text) {
			return true, ""
		}
		seen = append(seen, h.Path+":"+h.Symbol)
	}
	return false, fmt.Sprint(seen)
}

// indexDir is where serve and mcp keep the index of root under --db.
func indexDir(db, root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(db, filepath.Base(root)+"-"+hex.EncodeToString(sum[:6]))
}

// checkIndex reopens the index once every process is gone: it opens (no
// lock left behind), holds the fixture's files and answers a query.
func checkIndex(t *testing.T, db, root string) {
	t.Helper()
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	e, err := engine.Open(context.Background(), root, engine.Options{DBDir: indexDir(db, root), Config: cfg})
	if err != nil {
		t.Fatalf("reopening the shared index: %v", err)
	}
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatalf("scanning with the reopened index: %v", err)
	}
	snap := e.Snapshot()
	defer snap.Release()
	st, err := snap.Stats()
	if err != nil || st.Files != fixtureFiles {
		t.Errorf("reopened index: %d files, %v", st.Files, err)
	}
	res, err := snap.Search(context.Background(), engine.SearchRequest{Query: "FormatMoney", K: 3})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "cart/money.go" || res.Hits[0].Symbol != "FormatMoney" {
		t.Errorf("reopened index answers %+v, %v", res.Hits, err)
	}
}

// TestEditorFirst: the editor's server owns the index; an MCP server
// started next forwards to it, sees the editor's unsaved edits, and takes
// the index over when the editor's server is killed.
func TestEditorFirst(t *testing.T) {
	root := fixture(t)
	db := t.TempDir()
	ed := startLSP(t, root, db)
	ed.awaitIndexed()

	agent := startMCP(t, nil, "--root", root, "--db", db)
	agent.initialize(LatestProtocolVersion)
	sh := agent.sharing()
	if sh.State != "client" || sh.OwnerPID != ed.pid() || sh.OwnerRole != share.RoleEditor {
		t.Fatalf("the MCP server does not forward to the editor's server: %+v", sh)
	}
	if ok, seen := agent.queryHas("cart total", "cart/cart.go", "func (c *Cart) Total"); !ok {
		t.Errorf("query through the editor's server: %s", seen)
	}

	// An unsaved edit in the editor is what the agent sees.
	disk, err := os.ReadFile(filepath.Join(root, "cart", "money.go"))
	if err != nil {
		t.Fatal(err)
	}
	ed.edit("cart/money.go", string(disk)+"\n// UnsavedFrobnicator exists only in the editor's buffer.\nfunc UnsavedFrobnicator() {}\n")
	poll(t, "the agent sees the unsaved edit", func() (bool, string) {
		return agent.queryHas("UnsavedFrobnicator", "cart/money.go", "func UnsavedFrobnicator")
	})
	if hits, err := ed.search("UnsavedFrobnicator"); err != nil || len(hits) == 0 {
		t.Errorf("the editor's own search: %v %v", hits, err)
	}

	// The editor's server dies: the agent takes the index over, and the
	// buffer that was never saved gives way to the file on disk.
	ed.kill()
	agent.awaitOwner("the agent owns the index", "owner", func(s Sharing) bool { return s.OwnerPID == agent.pid() })
	poll(t, "the agent answers from disk", func() (bool, string) {
		ok, seen := agent.queryHas("UnsavedFrobnicator", "cart/money.go", "func UnsavedFrobnicator")
		return !ok, seen
	})
	if ok, seen := agent.queryHas("cart total", "cart/cart.go", "func (c *Cart) Total"); !ok {
		t.Errorf("query after the takeover: %s", seen)
	}
	agent.stdin.Close()
	<-agent.done
	checkIndex(t, db, root)
}

// TestAgentFirst: two MCP servers share the index (the second forwards to
// the first); an editor's server started next takes the index over; both
// agents then forward to it; when it exits an agent takes over, and when
// that agent is killed the other one does.
func TestAgentFirst(t *testing.T) {
	root := fixture(t)
	db := t.TempDir()
	a := startMCP(t, nil, "--root", root, "--db", db)
	a.initialize(LatestProtocolVersion)
	a.awaitOwner("the first agent owns the index", "owner", func(s Sharing) bool { return s.OwnerPID == a.pid() })
	b := startMCP(t, nil, "--root", root, "--db", db)
	b.initialize(LatestProtocolVersion)
	if sh := b.sharing(); sh.State != "client" || sh.OwnerPID != a.pid() || sh.OwnerRole != share.RoleAgent {
		t.Fatalf("the second agent: %+v", sh)
	}
	if ok, seen := b.queryHas("cart total", "cart/cart.go", "func (c *Cart) Total"); !ok {
		t.Errorf("query through the first agent: %s", seen)
	}

	// The editor's server arrives: handover.
	ed := startLSP(t, root, db)
	for name, c := range map[string]*mcpClient{"first": a, "second": b} {
		c.awaitOwner(name+" agent forwards to the editor", "client", func(s Sharing) bool {
			return s.OwnerPID == ed.pid() && s.OwnerRole == share.RoleEditor
		})
	}
	ed.awaitIndexed()
	disk, err := os.ReadFile(filepath.Join(root, "cart", "cart.go"))
	if err != nil {
		t.Fatal(err)
	}
	ed.edit("cart/cart.go", strings.Replace(string(disk), "func applyDiscount", "func applyLoyaltyDiscount", 1))
	for _, c := range []*mcpClient{a, b} {
		poll(t, "agents see the editor's buffer", func() (bool, string) {
			return c.queryHas("applyLoyaltyDiscount", "cart/cart.go", "func applyLoyaltyDiscount")
		})
	}

	// The editor closes: one agent owns the index again.
	ed.stop()
	owners := func() (ok bool, state string) {
		sa, sb := a.sharing(), b.sharing()
		state = fmt.Sprintf("first %+v, second %+v", sa, sb)
		switch {
		case sa.State == "owner" && sb.State == "client" && sb.OwnerPID == a.pid():
			return true, state
		case sb.State == "owner" && sa.State == "client" && sa.OwnerPID == b.pid():
			return true, state
		}
		return false, state
	}
	poll(t, "one agent owns the index after the editor left", owners)
	owner, other := a, b
	if b.sharing().State == "owner" {
		owner, other = b, a
	}
	// Kill the owning agent: the other takes over.
	owner.kill()
	other.awaitOwner("the remaining agent owns the index", "owner", func(s Sharing) bool { return s.OwnerPID == other.pid() })
	if ok, seen := other.queryHas("cart total", "cart/cart.go", "func (c *Cart) Total"); !ok {
		t.Errorf("query after the owner was killed: %s", seen)
	}
	other.stdin.Close()
	<-other.done
	checkIndex(t, db, root)
}

// TestConcurrentStarts starts an editor's server and two MCP servers at
// the same moment: whoever wins the lock, the editor's server ends up
// owning the index and both agents forward to it.
func TestConcurrentStarts(t *testing.T) {
	root := fixture(t)
	db := t.TempDir()
	binary(t)
	agents := make(chan *mcpClient, 2)
	for range 2 {
		go func() { agents <- startMCP(t, nil, "--root", root, "--db", db) }()
	}
	ed := startLSP(t, root, db)
	a, b := <-agents, <-agents
	a.initialize(LatestProtocolVersion)
	b.initialize(LatestProtocolVersion)
	for _, c := range []*mcpClient{a, b} {
		c.awaitOwner("agents forward to the editor", "client", func(s Sharing) bool { return s.OwnerPID == ed.pid() })
	}
	// The editor's scan, once it owns the index (its stats before that
	// are the agent's it forwarded to).
	ed.awaitIndexed()
	for _, c := range []*mcpClient{a, b} {
		if ok, seen := c.queryHas("cart total", "cart/cart.go", "func (c *Cart) Total"); !ok {
			t.Errorf("query: %s", seen)
		}
	}
	ed.stop()
	for _, c := range []*mcpClient{a, b} {
		c.stdin.Close()
		<-c.done
	}
	checkIndex(t, db, root)
}
