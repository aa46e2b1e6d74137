package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/vectors"
	"github.com/context-ls/context-ls/workspace"
)

// TestProtocolVersions negotiates every supported version and an unknown
// one with the real binary, and checks what tools/list then carries.
func TestProtocolVersions(t *testing.T) {
	root := fixture(t)
	db := t.TempDir()
	for _, tc := range []struct {
		ask, want               string
		annotations, outputSchs bool
		golden                  string
	}{
		{"2025-11-25", "2025-11-25", true, true, ""},
		{"2025-06-18", "2025-06-18", true, true, "tools-2025-06-18.json"},
		{"2025-03-26", "2025-03-26", true, false, ""},
		{"2024-11-05", "2024-11-05", false, false, "tools-2024-11-05.json"},
		{"1999-01-01", LatestProtocolVersion, true, true, ""},
	} {
		t.Run(tc.ask, func(t *testing.T) {
			c := startMCP(t, nil, "--root", root, "--db", db)
			res := c.initialize(tc.ask)
			if res["protocolVersion"] != tc.want {
				t.Errorf("asked %s, got version %v, want %s", tc.ask, res["protocolVersion"], tc.want)
			}
			caps, _ := res["capabilities"].(map[string]any)
			if _, ok := caps["tools"]; !ok {
				t.Errorf("capabilities lack tools: %v", caps)
			}
			info, _ := res["serverInfo"].(map[string]any)
			if info["name"] != "context-ls" || res["instructions"] == "" {
				t.Errorf("serverInfo %v, instructions %v", info, res["instructions"])
			}
			r := c.request("tools/list", nil)
			if r.Error != nil {
				t.Fatalf("tools/list: %v", r.Error)
			}
			var list struct {
				Tools []map[string]any `json:"tools"`
			}
			if err := json.Unmarshal(r.Result, &list); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range list.Tools {
				names = append(names, tl["name"].(string))
				in, _ := tl["inputSchema"].(map[string]any)
				if in["type"] != "object" || tl["description"] == "" {
					t.Errorf("%s: inputSchema %v", tl["name"], in)
				}
				if _, ok := tl["annotations"]; ok != tc.annotations {
					t.Errorf("%s at %s: annotations present %v, want %v", tl["name"], tc.want, ok, tc.annotations)
				}
				if _, ok := tl["outputSchema"]; ok != tc.outputSchs {
					t.Errorf("%s at %s: outputSchema present %v, want %v", tl["name"], tc.want, ok, tc.outputSchs)
				}
			}
			want := []string{"query_context", "context_pack", "related_context", "find_callers", "find_callees",
				"find_tests", "find_references", "find_implementations", "find_symbols", "find_similar", "refresh_context", "get_context_stats", "rebuild_context", "get_rebuild_status"}
			if !slices.Equal(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}
			if tc.golden != "" {
				var pretty any
				json.Unmarshal(r.Result, &pretty)
				b, _ := json.MarshalIndent(pretty, "", "  ")
				golden(t, tc.golden, append(b, '\n'))
			}
		})
	}
}

// TestProtocolErrors drives malformed and unexpected input through the
// real binary: every mistake gets its JSON-RPC error and the session goes
// on; stdout holds protocol messages only; closing stdin ends the process
// with status 0.
func TestProtocolErrors(t *testing.T) {
	root := fixture(t)
	c := startMCP(t, nil, "--root", root, "--db", t.TempDir())
	c.initialize(LatestProtocolVersion)

	if r := c.request("ping", nil); r.Error != nil || string(r.Result) != "{}" {
		t.Errorf("ping: %s %v", r.Result, r.Error)
	}
	expectError := func(what string, r rpcResponse, code int, wantMsg string) {
		t.Helper()
		if r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message, wantMsg) {
			t.Errorf("%s: got %s %+v, want error %d mentioning %q", what, r.Result, r.Error, code, wantMsg)
		}
	}
	nullResp := func(line string) rpcResponse {
		ch := c.expect("null")
		c.sendLine(line)
		return c.await(ch, line)
	}
	expectError("malformed JSON", nullResp(`{"jsonrpc":"2.0","id":7,"method":`), codeParseError, "not valid JSON")
	expectError("binary garbage", nullResp("\x00\xff\xfe garbage"), codeParseError, "not valid JSON")
	expectError("not an object", nullResp(`42`), codeInvalidRequest, "JSON object")
	expectError("null id", nullResp(`{"jsonrpc":"2.0","id":null,"method":"ping"}`), codeInvalidRequest, "id must be")
	expectError("empty batch", nullResp(`[]`), codeInvalidRequest, "batch")

	ch := c.expect("90")
	c.sendLine(`{"id":90,"method":"ping"}`)
	expectError("no jsonrpc member", c.await(ch, "no jsonrpc"), codeInvalidRequest, `"jsonrpc" must be "2.0"`)
	ch = c.expect(`"str-id"`)
	c.sendLine(`{"jsonrpc":"2.0","id":"str-id","method":"resources/list"}`)
	expectError("unknown method", c.await(ch, "unknown method"), codeMethodNotFound, "resources/list")
	ch = c.expect("91")
	c.sendLine(`{"jsonrpc":"2.0","id":91,"method":"tools/call","params":"query"}`)
	expectError("params not an object", c.await(ch, "params"), codeInvalidRequest, "params")

	expectError("unknown tool", c.request("tools/call", map[string]any{"name": "delete_everything"}), codeInvalidParams, `unknown tool "delete_everything"`)
	expectError("tool without name", c.request("tools/call", map[string]any{"arguments": map[string]any{}}), codeInvalidParams, "name is required")
	expectError("second initialize", c.request("initialize", map[string]any{"protocolVersion": LatestProtocolVersion}), codeInvalidRequest, "already initialized")

	// An id beyond 64 bits is echoed verbatim.
	big := "123456789012345678901234567890"
	ch = c.expect(big)
	c.sendLine(`{"jsonrpc":"2.0","id":` + big + `,"method":"ping"}`)
	if r := c.await(ch, "big id"); r.Error != nil {
		t.Errorf("big id: %v", r.Error)
	}

	// A batch: responses come back together, notifications get none.
	ch1, ch2 := c.expect("101"), c.expect("102")
	c.sendLine(`[{"jsonrpc":"2.0","id":101,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":102,"method":"tools/list"}]`)
	if r := c.await(ch1, "batch ping"); r.Error != nil {
		t.Errorf("batch ping: %v", r.Error)
	}
	if r := c.await(ch2, "batch tools/list"); r.Error != nil || !strings.Contains(string(r.Result), "query_context") {
		t.Errorf("batch tools/list: %v", r.Error)
	}
	c.mu.Lock()
	if n := len(c.batches); n != 1 || len(c.batches[0]) != 2 {
		t.Errorf("batch answers: %v", c.batches)
	}
	c.mu.Unlock()

	// Still serving, and stdout held protocol messages only.
	if r := c.request("ping", nil); r.Error != nil {
		t.Errorf("ping after the errors: %v", r.Error)
	}
	c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(wait):
		t.Fatal("the server did not exit after stdin closed")
	}
	if code := c.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after stdin closed", code)
	}
	if junk := c.stdoutJunk(); len(junk) > 0 {
		t.Errorf("stdout carried non-protocol lines: %q", junk)
	}
}

// TestTools runs every tool on the fixture repository through the real
// binary and checks what the answers hold.
func TestTools(t *testing.T) {
	root := fixture(t)
	db := t.TempDir()
	c := startMCP(t, nil, "--root", root, "--db", db)
	c.initialize("2025-06-18")

	t.Run("query_context", func(t *testing.T) {
		var q service.SearchResult
		res := c.ok("query_context", map[string]any{"query": "how is the cart total computed", "k": 5}, &q)
		if len(q.Hits) == 0 || q.Hits[0].Path != "cart/cart.go" || !strings.Contains(q.Hits[0].Text, "func (c *Cart) Total() Money") {
			t.Fatalf("hits: %+v", q.Hits)
		}
		h := q.Hits[0]
		if h.StartLine < 1 || h.EndLine < h.StartLine || h.URI != workspace.PathToURI(filepath.Join(realRoot(t, root), "cart", "cart.go")) || h.Language != "go" {
			t.Errorf("location of the top hit: %+v", h.Location)
		}
		lines := fileLines(t, root, "cart/cart.go")
		if got := strings.Join(lines[h.StartLine-1:h.EndLine], "\n"); got != strings.TrimRight(h.Text, "\n") {
			t.Errorf("hit text is not lines %d-%d of the file:\n%s\n---\n%s", h.StartLine, h.EndLine, h.Text, got)
		}
		if !strings.Contains(res.text(), "cart/cart.go:") || !strings.Contains(res.text(), "func (c *Cart) Total") {
			t.Errorf("text rendering:\n%s", res.text())
		}
		// Filters.
		c.ok("query_context", map[string]any{"query": "total discount", "paths": []string{"docs/**"}}, &q)
		if len(q.Hits) == 0 {
			t.Error("no hit under docs/")
		}
		for _, h := range q.Hits {
			if !strings.HasPrefix(h.Path, "docs/") || h.Kind != "markdown_section" {
				t.Errorf("paths filter let through %s (%s)", h.Path, h.Kind)
			}
		}
		c.ok("query_context", map[string]any{"query": "total", "languages": []string{"python"}}, &q)
		for _, h := range q.Hits {
			if h.Language != "python" {
				t.Errorf("languages filter let through %s", h.Path)
			}
		}
		// Secrets are scrubbed from snippet text.
		c.ok("query_context", map[string]any{"query": "stripe payment gateway api key"}, &q)
		found := false
		for _, h := range q.Hits {
			if strings.Contains(h.Text, "sk_live_") {
				t.Errorf("secret not scrubbed from a hit:\n%s", h.Text)
			}
			if h.Symbol == "gateway_client" {
				found = strings.Contains(h.Text, "api_key=\""+packs.Redacted)
			}
		}
		if !found {
			t.Errorf("no hit shows gateway_client with its key redacted: %+v", q.Hits)
		}
	})

	t.Run("context_pack", func(t *testing.T) {
		var p service.PackResult
		res := c.ok("context_pack", map[string]any{"query": "how is the cart total computed", "budget": 300}, &p)
		if p.Budget != 300 || p.Tokens > 300 || packs.CountTokens(res.text()) > 300 || len(p.Items) == 0 {
			t.Errorf("pack: budget %d, tokens %d (text %d), %d items", p.Budget, p.Tokens, packs.CountTokens(res.text()), len(p.Items))
		}
		if res.text() != p.Text || !strings.Contains(p.Text, "Total") || p.Format != "markdown" {
			t.Errorf("pack text (%s):\n%s", p.Format, p.Text)
		}
		if it := p.Items[0]; it.Path == "" || it.StartLine < 1 || !strings.HasPrefix(it.URI, "file://") || it.Reason == "" {
			t.Errorf("first item: %+v", it)
		}
		// A selection: main's lines bring the cart definitions they use.
		c.ok("context_pack", map[string]any{"file": "cmd/shop/main.go", "lines": "10-14", "budget": 2000, "format": "xml", "task": "review"}, &p)
		if p.Format != "xml" || !strings.HasPrefix(strings.TrimSpace(p.Text), "<") {
			t.Errorf("xml pack:\n%s", p.Text)
		}
		var defs []string
		for _, it := range p.Items {
			if it.Path == "cart/cart.go" || it.Path == "cart/money.go" {
				defs = append(defs, it.Symbol)
			}
		}
		if !slices.Contains(defs, "Cart.Total") && !slices.Contains(defs, "FormatMoney") {
			t.Errorf("selection pack lacks the definitions main uses: %+v", p.Items)
		}
		// The secret never reaches a pack.
		c.ok("context_pack", map[string]any{"file": "config/settings.py"}, &p)
		if strings.Contains(p.Text, "sk_live_") {
			t.Errorf("secret in a pack:\n%s", p.Text)
		}
	})

	t.Run("related_context", func(t *testing.T) {
		var r service.RelatedResult
		c.ok("related_context", map[string]any{"file": "cmd/shop/main.go", "lines": "10-14"}, &r)
		if r.Selection.Path != "cmd/shop/main.go" || r.Selection.StartLine != 10 || r.Selection.EndLine != 14 {
			t.Errorf("selection %+v", r.Selection)
		}
		var syms []string
		for _, it := range r.Items {
			syms = append(syms, it.Symbol)
			if it.Text == "" || it.Source == "" {
				t.Errorf("item without text or source: %+v", it)
			}
		}
		for _, want := range []string{"New", "Cart.Add", "Cart.Total", "FormatMoney"} {
			if !slices.Contains(syms, want) {
				t.Errorf("related items %v lack %s", syms, want)
			}
		}
		c.ok("related_context", map[string]any{"file": "cmd/shop/main.go", "lines": "10-14", "k": 2}, &r)
		if len(r.Items) != 2 {
			t.Errorf("k=2 gave %d items", len(r.Items))
		}
	})

	t.Run("find_callers", func(t *testing.T) {
		var g service.GraphResult
		res := c.ok("find_callers", map[string]any{"symbol": "Cart.Total"}, &g)
		if len(g.Results) != 1 || g.Results[0].Definition.Symbol != "Cart.Total" || g.Results[0].Definition.Path != "cart/cart.go" {
			t.Fatalf("callers: %+v", g.Results)
		}
		var callers []string
		for _, it := range g.Results[0].Items {
			callers = append(callers, it.Path+":"+it.Symbol)
			if it.Symbol == "main" && (len(it.Sites) != 1 || it.Sites[0].StartLine != 13) {
				t.Errorf("call site in main: %+v", it.Sites)
			}
		}
		if !slices.Contains(callers, "cmd/shop/main.go:main") || !slices.Contains(callers, "cart/cart_test.go:TestCartTotal") {
			t.Errorf("callers of Cart.Total: %v", callers)
		}
		if !strings.Contains(res.text(), "callers of Cart.Total") || !strings.Contains(res.text(), "cmd/shop/main.go:") {
			t.Errorf("text:\n%s", res.text())
		}
		// By position: the line of a call to FormatMoney resolves to it.
		c.ok("find_callers", map[string]any{"file": "cmd/shop/main.go", "line": 13, "column": strings.Index(fileLines(t, root, "cmd/shop/main.go")[12], "FormatMoney") + 1}, &g)
		if len(g.Results) != 1 || g.Results[0].Definition.Symbol != "FormatMoney" {
			t.Errorf("callers at a call site: %+v", g.Results)
		}
	})

	t.Run("find_references", func(t *testing.T) {
		var r service.ReferencesResult
		res := c.ok("find_references", map[string]any{"symbol": "Cart.Total"}, &r)
		if len(r.Results) != 1 || r.Results[0].Definition.Symbol != "Cart.Total" {
			t.Fatalf("references: %+v", r.Results)
		}
		var sites []string
		for _, ref := range r.Results[0].References {
			sites = append(sites, fmt.Sprintf("%s:%d %s", ref.Path, ref.StartLine, ref.In))
		}
		if !slices.Contains(sites, "cmd/shop/main.go:13 main") {
			t.Errorf("references of Cart.Total: %v", sites)
		}
		// The text names each site and the definition holding it.
		if !strings.Contains(res.text(), "Cart.Total (cart/cart.go:") || !strings.Contains(res.text(), "cmd/shop/main.go:13  main  (function)") {
			t.Errorf("text:\n%s", res.text())
		}
	})

	t.Run("find_callees", func(t *testing.T) {
		var g service.GraphResult
		c.ok("find_callees", map[string]any{"file": "cmd/shop/main.go", "line": 10}, &g)
		if len(g.Results) != 1 || g.Results[0].Definition.Symbol != "main" {
			t.Fatalf("callees: %+v", g.Results)
		}
		var callees []string
		for _, it := range g.Results[0].Items {
			callees = append(callees, it.Symbol)
		}
		for _, want := range []string{"New", "Cart.Add", "Cart.Total", "FormatMoney"} {
			if !slices.Contains(callees, want) {
				t.Errorf("callees of main %v lack %s", callees, want)
			}
		}
		if !slices.Contains(g.Results[0].Unresolved, "fmt.Println") {
			t.Errorf("unresolved callees %v lack fmt.Println", g.Results[0].Unresolved)
		}
		c.ok("find_callees", map[string]any{"file": "cmd/shop/main.go", "line": 10, "limit": 1}, &g)
		if len(g.Results[0].Items) != 1 || g.Results[0].Truncated != len(callees)-1 {
			t.Errorf("limit 1: %d items, %d truncated", len(g.Results[0].Items), g.Results[0].Truncated)
		}
	})

	t.Run("find_tests", func(t *testing.T) {
		var g service.GraphResult
		c.ok("find_tests", map[string]any{"symbol": "Cart.Total"}, &g)
		if len(g.Results) != 1 || len(g.Results[0].Items) == 0 || g.Results[0].Items[0].Symbol != "TestCartTotal" ||
			g.Results[0].Items[0].Path != "cart/cart_test.go" {
			t.Fatalf("tests of Cart.Total: %+v", g.Results)
		}
		// Two hops: applyDiscount is reached through Total.
		c.ok("find_tests", map[string]any{"symbol": "applyDiscount"}, &g)
		if len(g.Results) != 1 || len(g.Results[0].Items) == 0 || g.Results[0].Items[0].Via != "Cart.Total" {
			t.Errorf("tests of applyDiscount: %+v", g.Results)
		}
	})

	t.Run("find_similar without embeddings", func(t *testing.T) {
		c.toolError("find_similar", map[string]any{"snippet": "func add(a, b int) int { return a + b }"}, "embeddings are not available")
	})

	t.Run("get_context_stats", func(t *testing.T) {
		var st StatsResult
		res := c.ok("get_context_stats", map[string]any{}, &st)
		if st.Files != fixtureFiles || st.Languages["go"] != 4 || st.Languages["python"] != 1 || st.Languages["markdown"] != 1 {
			t.Errorf("stats: %d files, languages %v", st.Files, st.Languages)
		}
		if st.Root != realRoot(t, root) || !strings.HasPrefix(st.Index, db) || st.LastIndex == "" || st.Embeddings.State != "off" {
			t.Errorf("stats: root %s, index %s, lastIndex %q, embeddings %+v", st.Root, st.Index, st.LastIndex, st.Embeddings)
		}
		if st.Sharing == nil || st.Sharing.State != "owner" || st.Sharing.OwnerPID != c.pid() || st.Sharing.OwnerRole != "agent" {
			t.Errorf("sharing: %+v", st.Sharing)
		}
		if !strings.Contains(res.text(), "6 files") || !strings.Contains(res.text(), "owns the index") {
			t.Errorf("text:\n%s", res.text())
		}
	})

	t.Run("refresh_context", func(t *testing.T) {
		edit := "\n// Refund returns money to the customer.\nfunc Refund(m Money) Money {\n\treturn -m\n}\n"
		appendFile(t, root, "cart/money.go", edit)
		writeFile(t, root, "cart/coupon.go", "package cart\n\n// Coupon is a discount code.\ntype Coupon struct{ Code string }\n")
		var r service.RefreshResult
		res := c.ok("refresh_context", map[string]any{"paths": []string{"cart/money.go", filepath.Join(root, "cart", "coupon.go"), "nope.go"}}, &r)
		got := map[string]string{}
		for _, f := range r.Files {
			got[f.Path] = f.Outcome
		}
		// The watcher may have been quicker: then the file is unchanged.
		if o := got["cart/money.go"]; o != "updated" && o != "unchanged" {
			t.Errorf("money.go: %q", o)
		}
		if o := got["cart/coupon.go"]; o != "added" && o != "unchanged" {
			t.Errorf("coupon.go: %q", o)
		}
		if got["nope.go"] != "not found" || r.Status != "done" {
			t.Errorf("refresh: %+v", r)
		}
		if !strings.Contains(res.text(), "cart/money.go") {
			t.Errorf("text: %s", res.text())
		}
		var q service.SearchResult
		c.ok("query_context", map[string]any{"query": "Refund"}, &q)
		if len(q.Hits) == 0 || q.Hits[0].Path != "cart/money.go" || !strings.Contains(q.Hits[0].Text, "func Refund") {
			t.Errorf("after refresh, Refund: %+v", q.Hits)
		}
		// Asynchronous: returns at once; the change shows up.
		os.Remove(filepath.Join(root, "cart", "coupon.go"))
		c.ok("refresh_context", map[string]any{"paths": []string{"cart/coupon.go"}, "sync": false}, &r)
		if r.Status != "started" || len(r.Files) != 1 || r.Files[0].Outcome != "queued" {
			t.Errorf("async refresh: %+v", r)
		}
		poll(t, "coupon.go dropped", func() (bool, string) {
			var st StatsResult
			c.ok("get_context_stats", map[string]any{}, &st)
			return st.Files == fixtureFiles, fmt.Sprint("files ", st.Files)
		})
		// The whole workspace.
		c.ok("refresh_context", map[string]any{}, &r)
		if r.Scan == nil || r.Scan.Files != fixtureFiles {
			t.Errorf("full refresh: %+v", r)
		}
		c.toolError("refresh_context", map[string]any{"paths": []string{"cart", "../outside.go"}}, "paths[1]", "outside the workspace")
	})

	t.Run("rebuild_context", func(t *testing.T) {
		c.toolError("rebuild_context", map[string]any{}, "confirm", "dryRun")
		var rb service.ReindexResult
		res := c.ok("rebuild_context", map[string]any{"dryRun": true, "paths": []string{"cart"}}, &rb)
		if rb.Status != "planned" || rb.JobID != "" || rb.ReindexCount != 3 || !slices.Equal(rb.Reindex, []string{"cart/cart.go", "cart/cart_test.go", "cart/money.go"}) {
			t.Errorf("dryRun: %+v", rb)
		}
		if !strings.Contains(res.text(), "would parse 3 files again") {
			t.Errorf("text: %s", res.text())
		}
		c.toolError("rebuild_context", map[string]any{"confirm": true, "paths": []string{"/etc"}}, "paths[0]", "outside the workspace")
		c.ok("rebuild_context", map[string]any{"confirm": true}, &rb)
		if rb.Status != "started" || !strings.HasPrefix(rb.JobID, "reindex-") {
			t.Fatalf("rebuild: %+v", rb)
		}
		var js service.JobStatus
		poll(t, "rebuild done", func() (bool, string) {
			c.ok("get_rebuild_status", map[string]any{"jobId": rb.JobID}, &js)
			return js.Status == "done", js.Status + " " + js.Error
		})
		if js.Indexed != fixtureFiles || js.Total != fixtureFiles || js.Done != fixtureFiles || js.Finished == "" {
			t.Errorf("finished job: %+v", js)
		}
		var st StatsResult
		c.ok("get_context_stats", map[string]any{}, &st)
		if len(st.Jobs) == 0 || st.Jobs[len(st.Jobs)-1].JobID != rb.JobID {
			t.Errorf("stats lack the job: %+v", st.Jobs)
		}
		c.toolError("get_rebuild_status", map[string]any{"jobId": "rebuild-1-999"}, "jobId", "no reindex job")
	})

	t.Run("bad arguments", func(t *testing.T) {
		for _, tc := range []struct {
			tool  string
			args  any
			wants []string
		}{
			{"query_context", map[string]any{}, []string{"query: required"}},
			{"query_context", map[string]any{"query": 5}, []string{"query: must be a string"}},
			{"query_context", map[string]any{"query": "x", "k": 0}, []string{"k: must be between 1 and 100"}},
			{"query_context", map[string]any{"query": "x", "k": 2.5}, []string{"k: must be an integer"}},
			{"query_context", map[string]any{"query": "x", "kk": 1}, []string{"kk: unknown argument", "query, k, paths"}},
			{"query_context", map[string]any{"query": "x", "paths": []any{"ok/**", 3}}, []string{"paths[1]: must be a string"}},
			{"query_context", map[string]any{"query": "x", "paths": []string{"[bad"}}, []string{"paths", "syntax error in pattern"}},
			{"query_context", "not an object", []string{"arguments: must be an object"}},
			{"context_pack", map[string]any{}, []string{"query: required without a selection"}},
			{"context_pack", map[string]any{"query": "x", "format": "html"}, []string{"format", `"html" is not one of markdown, xml, json, plain`}},
			{"context_pack", map[string]any{"query": "x", "budget": 10}, []string{"budget: must be between 100 and 1000000"}},
			{"context_pack", map[string]any{"file": "cart/cart.go", "lines": "9-3"}, []string{"lines", "A-B"}},
			{"context_pack", map[string]any{"file": "cart/cart.go", "lines": "400-410"}, []string{"lines", "has 45 lines"}},
			{"context_pack", map[string]any{"file": "../../etc/passwd"}, []string{"file", "outside the workspace"}},
			{"context_pack", map[string]any{"file": "cart/missing.go"}, []string{"file", "does not exist"}},
			{"related_context", map[string]any{"file": "/etc/passwd"}, []string{"file", "outside the workspace"}},
			{"related_context", map[string]any{"lines": "1-2"}, []string{"file: required"}},
			{"find_callers", map[string]any{}, []string{"symbol: required"}},
			{"find_callers", map[string]any{"file": "cart/cart.go"}, []string{"line: required with file"}},
			{"find_callers", map[string]any{"symbol": "Total", "line": 3}, []string{"symbol", "not both"}},
			{"find_callers", map[string]any{"symbol": "NoSuchThing"}, []string{"symbol", `no definition named "NoSuchThing"`}},
			{"find_callees", map[string]any{"file": "cart/cart.go", "line": 0}, []string{"line: must be at least 1"}},
			{"find_tests", map[string]any{"file": "go.mod", "line": 1}, []string{"file", "not indexed"}},
			{"find_similar", map[string]any{"snippet": "  "}, []string{"snippet: required without a selection"}},
			{"refresh_context", map[string]any{"sync": "yes"}, []string{"sync: must be true or false"}},
			{"get_rebuild_status", map[string]any{}, []string{"jobId: required"}},
			{"get_context_stats", map[string]any{"verbose": true}, []string{"verbose: unknown argument", "takes no arguments"}},
		} {
			c.toolError(tc.tool, tc.args, tc.wants...)
		}
	})
}

// TestFindSimilar runs find_similar with the real sentence encoder beside
// the checkout.
func TestFindSimilar(t *testing.T) {
	model := useLite(t)
	root := fixture(t)
	c := startMCP(t, []string{"CONTEXT_LS_EMBEDDINGS=on"}, "--root", root, "--db", t.TempDir(), "--model", "use-lite", "--model-path", model)
	c.initialize(LatestProtocolVersion)
	poll(t, "embeddings ready", func() (bool, string) {
		var st StatsResult
		c.ok("get_context_stats", map[string]any{}, &st)
		return st.Embeddings.State == "ready", st.Embeddings.State + " " + st.Embeddings.Reason
	})
	var s service.SearchResult
	res := c.ok("find_similar", map[string]any{"snippet": "func sumPrices(items []Item) (total Money) {\n\tfor _, it := range items {\n\t\ttotal += it.Price\n\t}\n\treturn total\n}", "k": 3, "languages": []string{"go"}}, &s)
	if len(s.Hits) == 0 || s.Hits[0].Sources[0] != "vector" {
		t.Fatalf("similar: %+v", s.Hits)
	}
	for _, h := range s.Hits {
		if h.Language != "go" || h.Text == "" || h.URI == "" {
			t.Errorf("hit %+v", h)
		}
	}
	if !strings.Contains(res.text(), "nearest to the snippet") {
		t.Errorf("text: %s", res.text())
	}
	c.ok("find_similar", map[string]any{"snippet": "configure the payment gateway key", "k": 5}, &s)
	for _, h := range s.Hits {
		if strings.Contains(h.Text, "sk_live_") {
			t.Errorf("secret in a similar hit: %s", h.Text)
		}
	}
}

// useLite returns the real sentence encoder beside the checkout, skipping
// when it or the ONNX Runtime library is absent (make deps).
func useLite(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "shared", "models", "use-lite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Skipf("the use-lite model is not at %s (it sits beside the checkout; make deps)", dir)
	}
	if _, err := vectors.FindRuntime(""); err != nil {
		t.Skipf("ONNX Runtime not installed (make deps): %v", err)
	}
	return dir
}

func realRoot(t *testing.T, root string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func fileLines(t *testing.T, root, rel string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

func appendFile(t *testing.T, root, rel, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(rel)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFindReferencesLanguages asks find_references in Python and
// TypeScript (issue 27): through a package's re-export, a renamed
// re-export and a #private method.
func TestFindReferencesLanguages(t *testing.T) {
	root := testutil.WriteTree(t, map[string]string{
		"retry/__init__.py": "from .backoff import retry_upload\n",
		"retry/backoff.py":  "def retry_upload(upload):\n    return upload()\n",
		"jobs/sync.py":      "import retry\n\n\ndef send_all(files):\n    for f in files:\n        retry.retry_upload(f.send)\n",
		"web/queue.ts":      "export class TaskQueue {\n  push(task: () => void): void {\n    this.#drain();\n  }\n\n  #drain(): void {}\n}\n",
		"web/index.ts":      "export { TaskQueue as Queue } from \"./queue\";\n",
		"web/queue.test.ts": "import { test } from \"node:test\";\nimport { Queue } from \"./index\";\n\ntest(\"push\", () => {\n  new Queue().push(() => {});\n});\n",
	})
	c := startMCP(t, nil, "--root", root, "--db", t.TempDir())
	c.initialize("2025-06-18")
	for _, tt := range []struct{ symbol, want, text string }{
		{"retry_upload", "jobs/sync.py:6 send_all", "jobs/sync.py:6  send_all  (function)"},
		{"TaskQueue.push", "web/queue.test.ts:5 push", "web/queue.test.ts:5  push  (test)"},
		{"TaskQueue.#drain", "web/queue.ts:3 TaskQueue.push", "web/queue.ts:3  TaskQueue.push  (method)"},
	} {
		var r service.ReferencesResult
		res := c.ok("find_references", map[string]any{"symbol": tt.symbol}, &r)
		if len(r.Results) != 1 {
			t.Fatalf("references of %s: %+v", tt.symbol, r.Results)
		}
		var sites []string
		for _, ref := range r.Results[0].References {
			sites = append(sites, fmt.Sprintf("%s:%d %s", ref.Path, ref.StartLine, ref.In))
		}
		if !slices.Contains(sites, tt.want) || !strings.Contains(res.text(), tt.text) {
			t.Errorf("references of %s: %v\ntext:\n%s", tt.symbol, sites, res.text())
		}
	}
}
