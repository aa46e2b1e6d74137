package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/workspace"
)

// TestServerBinary drives the real context-ls binary over pipes through a
// whole session on the fixture workspace: bootstrap progress, standard
// requests, unsaved edits seen by queries, save, close, an external
// change, reindex, stats, shutdown and exit.
func TestServerBinary(t *testing.T) {
	bin := serverBinary(t)
	root := filepath.Join(t.TempDir(), "ws")
	copyFixture(t, root)
	db := t.TempDir()

	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	c, err := lsptest.Start(cmd)
	must(t, err)
	t.Cleanup(func() {
		_ = c.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_, _ = c.Wait()
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	s := newSession(t, c, root)

	// initialize: capabilities follow the backend.
	caps := s.initialize(map[string]any{"dbPath": db, "logLevel": "debug"})
	for _, k := range []string{"definitionProvider", "hoverProvider", "documentSymbolProvider", "workspaceSymbolProvider", "callHierarchyProvider"} {
		if caps[k] != true {
			t.Errorf("capability %s = %v", k, caps[k])
		}
	}
	exec, _ := caps["executeCommandProvider"].(map[string]any)
	cmds, _ := exec["commands"].([]any)
	for _, want := range []string{"contextLs.search", "contextLs.stats", "contextLs.reindex", "contextLs.definition", "contextLs.callers"} {
		if !slices.Contains(cmds, any(want)) {
			t.Errorf("command %s not advertised: %v", want, cmds)
		}
	}

	// Bootstrap progress runs to its end.
	endMsg, reports := s.awaitIndexed()
	if !strings.HasSuffix(endMsg, " files indexed") {
		t.Errorf("progress end message %q", endMsg)
	}
	if len(reports) == 0 {
		t.Errorf("no progress report before the end")
	}

	// definition: from a call after an emoji (UTF-16 columns) to the
	// definition in another package.
	mainText := s.fileText("cmd/app/main.go")
	defs := s.definition("cmd/app/main.go", position(t, mainText, "NewCircle", 0, 3))
	shapes := s.fileText("geo/shapes.go")
	wantDef := protocol.Range{Start: position(t, shapes, "NewCircle", 1, 0), End: position(t, shapes, "NewCircle", 1, len("NewCircle"))}
	if len(defs) != 1 || string(defs[0].URI) != s.uri("geo/shapes.go") || defs[0].Range != wantDef {
		t.Errorf("definition of geo.NewCircle: %+v, want %s %+v", defs, s.uri("geo/shapes.go"), wantDef)
	}

	// hover: signature, doc comment, related section.
	hov := s.hover("cmd/app/main.go", position(t, mainText, "NewCircle", 0, 0))
	if hov == nil {
		t.Fatal("no hover on NewCircle")
	}
	mainURI := s.uri("cmd/app/main.go")
	for _, want := range []string{"func NewCircle(r float64) Circle", "NewCircle returns a circle of radius r.", "**Related**",
		"- callers: 2 — [`main`](" + mainURI + "#L10), [`TestCircleArea`](" + s.uri("geo/shapes_test.go") + "#L5)",
		"- tests: 1 — [`TestCircleArea`](" + s.uri("geo/shapes_test.go") + "#L5) (direct)", "geo/shapes.go:12"} {
		if !strings.Contains(hov.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, hov.Contents.Value)
		}
	}
	if hov.Range == nil || *hov.Range != (protocol.Range{Start: position(t, mainText, "NewCircle", 0, 0), End: position(t, mainText, "NewCircle", 0, 9)}) {
		t.Errorf("hover range %+v", hov.Range)
	}

	// workspace/symbol: fuzzy.
	if syms := s.workspaceSymbols("totar"); len(syms) == 0 || syms[0].Name != "TotalArea" || string(syms[0].Location.URI) != s.uri("geo/rect.go") {
		t.Errorf("workspace/symbol totar: %s", symbolNames(syms))
	}

	// documentSymbol: hierarchical for a Python class.
	ds := s.documentSymbols("util/retry.py")
	var backoff *docSymbol
	for i := range ds {
		if ds[i].Name == "Backoff" {
			backoff = &ds[i]
		}
	}
	if backoff == nil || len(backoff.Children) != 2 || backoff.Children[1].Name != "delay" {
		t.Errorf("document symbols of retry.py: %+v", ds)
	}

	// An unsaved edit is visible to search and workspace/symbol.
	s.didOpen("geo/shapes.go", "go")
	s.insert("geo/shapes.go", "\n// Diameter returns twice the radius.\nfunc (c Circle) Diameter() float64 {\n\treturn 2 * c.R\n}\n")
	var diameter SearchHit
	poll(t, "search sees the unsaved Diameter", func() (bool, string) {
		res := s.search("Diameter", 5)
		h, ok := hasHit(res, "Circle.Diameter")
		diameter = h
		return ok, hitSymbols(res)
	})
	buf := s.buffer("geo/shapes.go")
	if !strings.HasPrefix(diameter.Text, "// Diameter returns twice the radius.\nfunc (c Circle) Diameter() float64 {") {
		t.Errorf("Diameter snippet %q", diameter.Text)
	}
	wantLoc := protocol.Range{Start: position(t, buf, "// Diameter", 0, 0), End: position(t, buf, "return 2 * c.R\n}", 0, len("return 2 * c.R\n}"))}
	gotLoc := protocol.Range{
		Start: protocol.Position{Line: diameter.Location.Range.Start.Line, Character: diameter.Location.Range.Start.Character},
		End:   protocol.Position{Line: diameter.Location.Range.End.Line, Character: diameter.Location.Range.End.Character},
	}
	if string(diameter.Location.URI) != s.uri("geo/shapes.go") || gotLoc != wantLoc {
		t.Errorf("Diameter location %+v, want %+v", diameter.Location, wantLoc)
	}
	if syms := s.workspaceSymbols("Diameter"); len(syms) == 0 || syms[0].Name != "Diameter" {
		t.Errorf("workspace/symbol Diameter: %s", symbolNames(syms))
	}

	// contextLs.definition from inside a snippet: the receiver type
	// "Circle" on the snippet's second line resolves to the type.
	snippetPos := position(t, diameter.Text, "Circle", 0, 2)
	if snippetPos.Line != 1 {
		t.Fatalf("the snippet's receiver is on line %d", snippetPos.Line)
	}
	var fromSnippet []protocol.Location
	must(t, s.command("contextLs.definition", map[string]any{"location": diameter.Location, "position": snippetPos}, &fromSnippet))
	typeCircle := position(t, buf, "Circle struct", 0, 0)
	want := protocol.Location{URI: protocol.DocumentURI(s.uri("geo/shapes.go")), Range: protocol.Range{
		Start: typeCircle, End: protocol.Position{Line: typeCircle.Line, Character: typeCircle.Character + uint32(len("Circle"))},
	}}
	if len(fromSnippet) != 1 || fromSnippet[0] != want {
		t.Errorf("definition from the snippet: %+v, want %+v", fromSnippet, want)
	}

	// Save, then close: the function stays (it is on disk now).
	s.save("geo/shapes.go")
	s.didClose("geo/shapes.go")
	poll(t, "Diameter found after save and close", func() (bool, string) {
		res := s.search("Diameter", 5)
		_, ok := hasHit(res, "Circle.Diameter")
		return ok, hitSymbols(res)
	})

	// Close without saving: the unsaved function disappears again.
	s.didOpen("util/retry.py", "python")
	s.insert("util/retry.py", "\n\ndef unsaved_helper():\n    \"\"\"Only in the editor.\"\"\"\n    return 42\n")
	poll(t, "unsaved_helper visible while open", func() (bool, string) {
		syms := s.workspaceSymbols("unsaved_helper")
		return len(syms) > 0 && syms[0].Name == "unsaved_helper", symbolNames(syms)
	})
	s.didClose("util/retry.py")
	poll(t, "unsaved_helper gone after close", func() (bool, string) {
		syms := s.workspaceSymbols("unsaved_helper")
		return len(syms) == 0 || syms[0].Name != "unsaved_helper", symbolNames(syms)
	})

	// A file created outside the editor, reported by the client's watcher.
	writeFile(t, root, "geo/square.go", "package geo\n\n// NewSquare returns a square rectangle.\nfunc NewSquare(side float64) Rect { return Rect{side, side} }\n")
	must(t, c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": s.uri("geo/square.go"), "type": 1}}}))
	poll(t, "NewSquare indexed after the watched-file event", func() (bool, string) {
		syms := s.workspaceSymbols("NewSquare")
		return len(syms) > 0 && syms[0].Name == "NewSquare", symbolNames(syms)
	})

	// reindex: refused without confirm; with it, a job with progress.
	err = s.command("contextLs.reindex", map[string]any{}, nil)
	if rpcCode(err) != int64(jsonrpc.CodeInvalidParams) || !strings.Contains(rpcMessage(err), "confirm") {
		t.Errorf("reindex without confirm: %v", err)
	}
	var job ReindexResult
	must(t, s.commandWithToken("contextLs.reindex", map[string]any{"confirm": true}, "reindex-token", &job))
	if len(job.Folders) != 1 || !strings.HasPrefix(job.Folders[0].JobID, "reindex-") || job.Folders[0].Folder != workspace.PathToURI(root) {
		t.Errorf("reindex result %+v", job)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	end, err := c.Await(ctx, progressOn(json.RawMessage(`"reindex-token"`), "end"))
	must(t, err)
	var ep struct {
		Value workDoneValue `json:"value"`
	}
	must(t, end.Decode(&ep))
	if !strings.Contains(ep.Value.Message, "files re-indexed, 0 removed, 0 failed") {
		t.Errorf("reindex progress end %q", ep.Value.Message)
	}

	// stats: counts, languages, completeness, states of missing parts.
	var st StatsResult
	must(t, s.command("contextLs.stats", nil, &st))
	if len(st.Folders) != 1 {
		t.Fatalf("stats folders %+v", st.Folders)
	}
	fs := st.Folders[0]
	if fs.Files < 7 || fs.Symbols < 10 || fs.Chunks < 6 || fs.IndexBytes <= 0 {
		t.Errorf("stats counts %+v", fs)
	}
	for _, lang := range []string{"go", "python", "markdown"} {
		if fs.Languages[lang] == 0 {
			t.Errorf("stats languages %v lack %s", fs.Languages, lang)
		}
	}
	if fs.Indexing.State != "done" || fs.Indexing.Complete != 1 || fs.LastIndex == "" {
		t.Errorf("stats indexing %+v", fs.Indexing)
	}
	if fs.Embeddings.State != "off" {
		t.Errorf("embeddings %q with CONTEXT_LS_EMBEDDINGS=off", fs.Embeddings.State)
	}
	if fs.Queries.Count == 0 || fs.Queries.P95Ms < fs.Queries.P50Ms {
		t.Errorf("stats queries %+v", fs.Queries)
	}
	if fs.Embeddings.CacheHitRate != nil || fs.Packs.AvgTokens != nil {
		t.Errorf("stats cache/pack figures %+v %+v", fs.Embeddings, fs.Packs)
	}
	if len(fs.Jobs) != 1 || fs.Jobs[0].JobID != job.Folders[0].JobID || fs.Jobs[0].Status != "done" || fs.Jobs[0].Indexed < 7 {
		t.Errorf("stats jobs %+v", fs.Jobs)
	}

	// The code graph: callers by symbol, with the call site after the
	// emoji in UTF-16 columns; the call hierarchy both ways.
	callSite := protocol.Range{Start: position(t, mainText, "NewCircle", 0, 0), End: position(t, mainText, "NewCircle", 0, len("NewCircle"))}
	var callers GraphAnswer
	must(t, s.command("contextLs.callers", map[string]any{"symbol": "NewCircle"}, &callers))
	if len(callers.Results) != 1 || callers.Results[0].Definition.Symbol.Symbol != "NewCircle" || len(callers.Results[0].Items) != 2 {
		t.Fatalf("callers of NewCircle: %+v", callers)
	}
	caller := callers.Results[0].Items[0]
	if caller.Symbol != "main" || caller.Confidence != "exact" || string(caller.Location.URI) != mainURI || len(caller.Sites) != 1 ||
		caller.Sites[0].LSP.Range != callSite {
		t.Errorf("caller %+v, want main calling at %+v", caller, callSite)
	}
	// References: textDocument/references at the definition's name lists
	// it (includeDeclaration) and its two calls, the one after the emoji
	// in UTF-16 columns; contextLs.references by symbol the same calls.
	var refs []protocol.Location
	must(t, c.Call(testCtx(t), "textDocument/references", map[string]any{
		"textDocument": map[string]any{"uri": s.uri("geo/shapes.go")}, "position": wantDef.Start, "context": map[string]any{"includeDeclaration": true},
	}, &refs))
	if len(refs) != 3 || refs[0] != (protocol.Location{URI: protocol.DocumentURI(s.uri("geo/shapes.go")), Range: wantDef}) ||
		!slices.Contains(refs, protocol.Location{URI: protocol.DocumentURI(mainURI), Range: callSite}) {
		t.Errorf("references of NewCircle: %+v, want its name and the call at %+v", refs, callSite)
	}
	var byName struct {
		Results []struct {
			References []struct {
				In       string            `json:"in"`
				Location protocol.Location `json:"location"`
			} `json:"references"`
		} `json:"results"`
	}
	must(t, s.command("contextLs.references", map[string]any{"symbol": "NewCircle"}, &byName))
	if len(byName.Results) != 1 || len(byName.Results[0].References) != 2 || byName.Results[0].References[0].In != "main" ||
		byName.Results[0].References[0].Location != (protocol.Location{URI: protocol.DocumentURI(mainURI), Range: callSite}) {
		t.Errorf("contextLs.references of NewCircle: %+v", byName)
	}
	var items []protocol.CallHierarchyItem
	must(t, c.Call(testCtx(t), "textDocument/prepareCallHierarchy", map[string]any{
		"textDocument": map[string]any{"uri": mainURI}, "position": position(t, mainText, "NewCircle", 0, 2),
	}, &items))
	if len(items) != 1 || items[0].Name != "NewCircle" || string(items[0].URI) != s.uri("geo/shapes.go") || items[0].SelectionRange != wantDef {
		t.Fatalf("prepareCallHierarchy: %+v", items)
	}
	var incoming []protocol.CallHierarchyIncomingCall
	must(t, c.Call(testCtx(t), "callHierarchy/incomingCalls", map[string]any{"item": items[0]}, &incoming))
	if len(incoming) != 2 || incoming[0].From.Name != "main" || string(incoming[0].From.URI) != mainURI ||
		len(incoming[0].FromRanges) != 1 || incoming[0].FromRanges[0] != callSite || incoming[1].From.Name != "TestCircleArea" {
		t.Errorf("incoming calls of NewCircle: %+v", incoming)
	}
	var outgoing []protocol.CallHierarchyOutgoingCall
	must(t, c.Call(testCtx(t), "callHierarchy/outgoingCalls", map[string]any{"item": incoming[0].From}, &outgoing))
	var callees []string
	for _, o := range outgoing {
		callees = append(callees, o.To.Name)
		if o.To.Name == "NewCircle" && (len(o.FromRanges) != 1 || o.FromRanges[0] != callSite) {
			t.Errorf("outgoing call to NewCircle at %+v, want %+v", o.FromRanges, callSite)
		}
	}
	if !slices.Contains(callees, "NewCircle") || !slices.Contains(callees, "TotalArea") {
		t.Errorf("outgoing calls of main: %v", callees)
	}

	// A context pack for a query, within its budget.
	var pack ContextPackResult
	must(t, s.command("contextLs.contextPack", map[string]any{"query": "retry a failed upload with backoff", "budget": 300}, &pack))
	if pack.Tokens > 300 || len(pack.Items) == 0 || pack.Items[0].Location.URI == "" || !strings.Contains(pack.Text, "retry_upload") {
		t.Errorf("context pack %+v", pack)
	}

	// shutdown, exit: code 0 and a clean end of stdout.
	must(t, c.Call(testCtx(t), "shutdown", nil, nil))
	must(t, c.Notify("exit", nil))
	code, err := c.Wait()
	must(t, err)
	if code != 0 {
		t.Errorf("exit code %d", code)
	}
	<-c.Done()
	if err := c.Err(); !errors.Is(err, io.EOF) {
		t.Errorf("server output ended with %v, want EOF", err)
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("stderr mentions a panic:\n%s", stderr.String())
	}
}
