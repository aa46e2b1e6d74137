package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/workspace"
)

// locSpan is what every front end's result items share.
type locSpan struct {
	Path        string `json:"path"`
	StartLine   int    `json:"startLine"`
	StartColumn int    `json:"startColumn"`
	EndLine     int    `json:"endLine"`
	EndColumn   int    `json:"endColumn"`
	Symbol      string `json:"symbol"`
	Sites       []struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	} `json:"sites"`
}

func (s locSpan) String() string {
	out := fmt.Sprintf("%s:%d:%d-%d:%d %s", s.Path, s.StartLine, s.StartColumn, s.EndLine, s.EndColumn, s.Symbol)
	for _, c := range s.Sites {
		out += fmt.Sprintf(" @%d:%d", c.StartLine, c.StartColumn)
	}
	return out
}

// answer is the located part of a result: hits, items, or the items of
// each graph target (results for the CLI and MCP, targets for the LSP).
type answer struct {
	Hits    []locSpan `json:"hits"`
	Items   []locSpan `json:"items"`
	Results []struct {
		Items []locSpan `json:"items"`
	} `json:"results"`
	Targets []struct {
		Items []locSpan `json:"items"`
	} `json:"targets"`
}

func (a answer) locSpans() []string {
	var out []string
	for _, list := range [][]locSpan{a.Hits, a.Items} {
		for _, s := range list {
			out = append(out, s.String())
		}
	}
	for _, r := range append(a.Results, a.Targets...) {
		for _, s := range r.Items {
			out = append(out, s.String())
		}
	}
	return out
}

// parityQueries are the questions asked of every front end.
var parityQueries = []struct {
	name    string
	cli     []string
	tool    string
	args    string
	cmd     string
	cmdArgs func(root string) map[string]any
}{
	{"search", []string{"search", "--json", "charge the customer for the invoice total payment token"},
		"query_context", `{"query":"charge the customer for the invoice total payment token"}`,
		"contextLs.search", func(string) map[string]any {
			return map[string]any{"query": "charge the customer for the invoice total payment token"}
		}},
	{"callers", []string{"callers", "--json", "Total"},
		"find_callers", `{"symbol":"Total"}`,
		"contextLs.callers", func(string) map[string]any { return map[string]any{"symbol": "Total"} }},
	{"tests", []string{"tests", "--json", "Total"},
		"find_tests", `{"symbol":"Total"}`,
		"contextLs.tests", func(string) map[string]any { return map[string]any{"symbol": "Total"} }},
	{"related", []string{"related", "--json", "--file", "billing/charge.go", "--lines", "9-12"},
		"related_context", `{"file":"billing/charge.go","lines":"9-12"}`,
		"contextLs.relatedContext", func(root string) map[string]any {
			return map[string]any{"uri": workspace.PathToURI(filepath.Join(root, "billing", "charge.go")),
				"range": map[string]any{"start": map[string]any{"line": 8, "character": 0}, "end": map[string]any{"line": 11, "character": 1}}}
		}},
	{"pack", []string{"pack", "--format", "json", "--budget", "3000", "charge the customer with the payment token"},
		"context_pack", `{"query":"charge the customer with the payment token","format":"json","budget":3000}`,
		"contextLs.contextPack", func(string) map[string]any {
			return map[string]any{"query": "charge the customer with the payment token", "format": "json", "budget": 3000}
		}},
}

// TestFrontEndsAgree asks the CLI, the MCP server and the language server
// the same questions about one workspace and compares the answers: the
// same locations in the same order (columns in characters; the LSP adds
// UTF-16 positions of its own), and the planted secret in none of them.
func TestFrontEndsAgree(t *testing.T) {
	root, db := t.TempDir(), t.TempDir()
	writeFiles(t, root, testutil.Billing)
	if _, errOut, code := cli(t, "index", "--root", root, "--db", db); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errOut)
	}

	answers := map[string]map[string]string{} // query → front end → raw JSON
	record := func(q, frontEnd, raw string) {
		if answers[q] == nil {
			answers[q] = map[string]string{}
		}
		answers[q][frontEnd] = raw
	}

	// The CLI, as a user types it.
	for _, q := range parityQueries {
		out, errOut, code := cli(t, append(q.cli, "--root", root, "--db", db)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(q.cli, " "), code, errOut)
		}
		record(q.name, "cli", out)
	}

	// The MCP server, through a client's handshake.
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"parity","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i, q := range parityQueries {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, q.tool, q.args))
	}
	out, errOut, code := cliStdin(t, []byte(strings.Join(lines, "\n")+"\n"), "mcp", "--root", root, "--db", db)
	if code != 0 {
		t.Fatalf("mcp: exit %d: %s", code, errOut)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				IsError           bool            `json:"isError"`
				Content           json.RawMessage `json:"content"`
				StructuredContent json.RawMessage `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("mcp output %q: %v", line, err)
		}
		if m.ID == 0 {
			continue
		}
		q := parityQueries[m.ID-1]
		if m.Result.IsError {
			t.Fatalf("mcp %s: tool error %s", q.tool, m.Result.Content)
		}
		record(q.name, "mcp", string(m.Result.StructuredContent))
		record(q.name+" (mcp text)", "mcp", string(m.Result.Content))
	}

	// The language server, through a scripted client.
	for q, raw := range lspAnswers(t, root, db) {
		record(q, "lsp", raw)
	}

	for _, q := range parityQueries {
		got := answers[q.name]
		var want []string
		for _, fe := range []string{"cli", "mcp", "lsp"} {
			raw, ok := got[fe]
			if !ok {
				t.Errorf("%s: no answer from %s", q.name, fe)
				continue
			}
			var a answer
			if err := json.Unmarshal([]byte(raw), &a); err != nil {
				t.Fatalf("%s %s: %v\n%s", q.name, fe, err, raw)
			}
			spans := a.locSpans()
			if len(spans) == 0 {
				t.Errorf("%s %s: no located items:\n%s", q.name, fe, raw)
			}
			if want == nil {
				t.Logf("%s: %d items: %s", q.name, len(spans), strings.Join(spans, "; "))
				want = spans
			} else if !reflect.DeepEqual(spans, want) {
				t.Errorf("%s: %s answers\n  %s\nthe CLI answers\n  %s", q.name, fe, strings.Join(spans, "\n  "), strings.Join(want, "\n  "))
			}
		}
	}
	for q, byFE := range answers {
		for fe, raw := range byFE {
			if strings.Contains(raw, testutil.BillingSecret) || strings.Contains(raw, testutil.BillingSecret[4:20]) {
				t.Errorf("%s via %s shows the planted secret:\n%s", q, fe, raw)
			}
		}
	}
	// The pack holds the code that uses the secret, redacted.
	if !strings.Contains(answers["pack"]["cli"], "paymentToken") {
		t.Errorf("the pack does not hold the token's definition:\n%s", answers["pack"]["cli"])
	}
}

// lspAnswers runs context-ls serve on the workspace, waits for its index,
// and answers parityQueries through workspace/executeCommand.
func lspAnswers(t *testing.T, root, db string) map[string]string {
	t.Helper()
	ls := startLSP(t, root, db, len(testutil.Billing)-1) // go.mod is not indexed
	out := map[string]string{}
	for _, q := range parityQueries {
		out[q.name] = string(ls.call("workspace/executeCommand", map[string]any{"command": q.cmd, "arguments": []any{q.cmdArgs(root)}}))
	}
	ls.stop()
	return out
}

// lspSession is a context-ls serve process with one workspace folder.
type lspSession struct {
	t      *testing.T
	c      *lsptest.Client
	ctx    context.Context
	stderr *testutil.SyncBuffer
}

// startLSP starts context-ls serve on root with its index under db and
// waits until the folder's files are indexed.
func startLSP(t *testing.T, root, db string, files int) *lspSession {
	t.Helper()
	cmd := exec.Command(binPath, "serve")
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	c, err := lsptest.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(func() {
		cancel()
		c.Close()
		c.Wait()
	})
	ls := &lspSession{t: t, c: c, ctx: ctx, stderr: stderr}
	uri := workspace.PathToURI(root)
	ls.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": uri, "capabilities": map[string]any{},
		"workspaceFolders":      []map[string]any{{"uri": uri, "name": filepath.Base(root)}},
		"initializationOptions": map[string]any{"dbPath": db},
	})
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	testutil.Poll(t, "the language server's index", time.Minute, func() (bool, string) {
		var st struct {
			Folders []struct {
				Files    int `json:"files"`
				Indexing struct {
					State   string `json:"state"`
					Running bool   `json:"running"`
				} `json:"indexing"`
			} `json:"folders"`
		}
		if err := c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "contextLs.stats"}, &st); err != nil {
			return false, err.Error()
		}
		return len(st.Folders) == 1 && st.Folders[0].Indexing.State == "done" && !st.Folders[0].Indexing.Running && st.Folders[0].Files == files,
			fmt.Sprintf("%+v", st)
	})
	return ls
}

// call sends a request and returns its result; an error fails the test.
func (ls *lspSession) call(method string, params any) json.RawMessage {
	ls.t.Helper()
	var raw json.RawMessage
	if err := ls.c.Call(ls.ctx, method, params, &raw); err != nil {
		ls.t.Fatalf("%s %v: %v\n%s", method, params, err, ls.stderr)
	}
	return raw
}

// stop shuts the server down.
func (ls *lspSession) stop() {
	ls.call("shutdown", nil)
	ls.c.Notify("exit", nil)
}
