package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/workspace"
)

// TestCLIWhileAServerOwnsTheIndex: with an MCP server owning the index,
// CLI commands run on it (same output, same exit status) instead of
// failing on the lock; commands that do not use the index run locally.
func TestCLIWhileAServerOwnsTheIndex(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		"a.go":      "package a\n\n// Alpha greets.\nfunc Alpha() string { return Beta() }\n",
		"b.go":      "package a\n\n// Beta answers.\nfunc Beta() string { return \"b\" }\n",
		"a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestAlpha(t *testing.T) { Alpha() }\n",
	})
	srv := exec.Command(binPath, "mcp", "--root", root, "--db", db)
	srv.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	stdin, err := srv.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout = io.Discard
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		srv.Wait()
	}()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "index up to date") {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the MCP server exited before indexing")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the MCP server did not index the workspace")
	}

	// The server holds the index: the CLI cannot open it itself.
	want, _ := engine.IndexDir(db, root)
	if e, err := engine.Open(context.Background(), root, engine.Options{DBDir: want}); !errors.Is(err, engine.ErrLocked) {
		if e != nil {
			e.Close()
		}
		t.Fatalf("the index is not held by the server: %v", err)
	}

	out, errOut, code := cli(t, "search", "--json", "--root", root, "--db", db, "Beta answers")
	var res struct {
		Hits []struct{ Path, Symbol string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Hits) == 0 || res.Hits[0].Symbol != "Beta" {
		t.Fatalf("search through the server: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if out, errOut, code := cli(t, "callers", "--root", root, "--db", db, "Beta"); code != 0 || !strings.Contains(out, "Alpha") {
		t.Fatalf("callers through the server: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var st struct{ Index string }
	out, errOut, code = cli(t, "stats", "--json", "--root", root, "--db", db)
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Index != want {
		t.Fatalf("stats through the server: exit %d, stdout %q, stderr %q; want the index %s", code, out, errOut, want)
	}
	// An error in the command comes back with its exit status and message.
	if _, errOut, code := cli(t, "pack", "--root", root, "--db", db, "--file", "../outside.go"); code != exitUsage || !strings.Contains(errOut, "context-ls pack: --file") {
		t.Fatalf("a failing command through the server: exit %d, stderr %q", code, errOut)
	}
	// Usage errors are found before the index is needed.
	if _, errOut, code := cli(t, "search", "--root", root, "--db", db); code != exitUsage || !strings.Contains(errOut, "QUERY: required") {
		t.Fatalf("usage error: exit %d, stderr %q", code, errOut)
	}
	// Flags that configure an engine cannot reach the owner's: said so.
	if out, errOut, code := cli(t, "search", "--root", root, "--db", db, "--model", "use-lite", "Beta"); code != 0 || !strings.Contains(out, "b.go") || !strings.Contains(errOut, "do not apply") {
		t.Fatalf("--model through the server: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// files does not open the index.
	if out, _, code := cli(t, "files", "--root", root, "--db", db); code != 0 || !strings.Contains(out, "b.go") {
		t.Fatalf("files: exit %d, %q", code, out)
	}
}

// TestTwoEditorsOnOneWorkspace: two language servers on one workspace and
// index (two VS Code windows, or VS Code and Neovim) both answer — the
// second through the first, which keeps the index — and when the first
// exits the second takes the index over by itself: a CLI command then
// finds it the owner, and a definition typed into its buffer (never
// saved) is found by its search.
func TestTwoEditorsOnOneWorkspace(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, repo)
	const files = 4
	a := startLSP(t, root, db, files)
	b := startLSP(t, root, db, files)
	owner := func() string {
		out, errOut, code := cli(t, "stats", "--root", root, "--db", db)
		if code != 0 {
			t.Fatalf("stats: exit %d: %s", code, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(line, "owner:"); ok {
				return strings.TrimSpace(rest)
			}
		}
		return "this command"
	}
	pid := func(ls *lspSession) string { return fmt.Sprintf("process %d (editor)", ls.c.PID()) }
	if got := owner(); got != pid(a) {
		t.Fatalf("owner with two editors: %s, want the first, %s", got, pid(a))
	}
	search := func(ls *lspSession, q string) []string {
		var res struct {
			Hits []struct{ Symbol string } `json:"hits"`
		}
		if err := json.Unmarshal(ls.call("workspace/executeCommand", map[string]any{"command": "contextLs.search",
			"arguments": []any{map[string]any{"query": q, "k": 5}}}), &res); err != nil {
			t.Fatal(err)
		}
		var syms []string
		for _, h := range res.Hits {
			syms = append(syms, h.Symbol)
		}
		return syms
	}
	for name, ls := range map[string]*lspSession{"first": a, "second": b} {
		if got := search(ls, "retry a failed upload"); len(got) == 0 || got[0] != "RetryUpload" {
			t.Errorf("%s editor's search: %v", name, got)
		}
	}

	// The first editor exits; the second takes the index over.
	a.stop()
	if code, err := a.c.Wait(); err != nil || code != 0 {
		t.Fatalf("first editor: exit %d, %v", code, err)
	}
	testutil.Poll(t, "the second editor owning the index", 30*time.Second, func() (bool, string) {
		got := owner()
		return got == pid(b), got
	})
	uri := workspace.PathToURI(filepath.Join(root, "store", "upload.go"))
	text := repo["store/upload.go"] + "\n// ResumeUpload continues an interrupted upload from its last chunk.\nfunc ResumeUpload(path string) error { return nil }\n"
	if err := b.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "go", "version": 1, "text": text}}); err != nil {
		t.Fatal(err)
	}
	testutil.Poll(t, "the unsaved definition in the second editor's search", 30*time.Second, func() (bool, string) {
		got := search(b, "resume an interrupted upload from its last chunk")
		return len(got) > 0 && got[0] == "ResumeUpload", strings.Join(got, ", ")
	})
	b.stop()
}
