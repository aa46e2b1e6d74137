package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/share"
	"github.com/context-ls/context-ls/vectors"
	"github.com/context-ls/context-ls/workspace"
)

// startBackend serves the fixture workspace in-process with a Backend and
// waits for the bootstrap index.
func startBackend(t *testing.T, initOptions map[string]any) (*harness, *editor, *session.Session) {
	t.Helper()
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 2})
	h := startServer(t, Options{Backend: b})
	copyFixture(t, h.root)
	s := newSession(t, h.c, h.root)
	if initOptions == nil {
		// Embeddings follow the machine (runtime, models): off unless a
		// test asks for them.
		initOptions = map[string]any{"embeddings": false}
	}
	s.initialize(initOptions)
	s.awaitIndexed()
	return h, s, b
}

func TestBackendSettingsReopen(t *testing.T) {
	_, s, b := startBackend(t, nil)
	if syms := s.workspaceSymbols("retry_upload"); len(syms) == 0 {
		t.Fatal("retry_upload not indexed")
	}
	var before StatsResult
	must(t, s.command("contextLs.stats", nil, &before))

	// An ignore pattern reopens the engine and drops the excluded files.
	must(t, s.c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"contextLs": map[string]any{"ignore": []string{"util/"}}}}))
	poll(t, "util/ dropped after the ignore setting", func() (bool, string) {
		syms := s.workspaceSymbols("retry_upload")
		return len(syms) == 0, symbolNames(syms)
	})
	if syms := s.workspaceSymbols("NewCircle"); len(syms) == 0 {
		t.Error("other files lost after the reopen")
	}

	// dbPath moves the index.
	newDB := t.TempDir()
	must(t, s.c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"contextLs": map[string]any{"ignore": []string{"util/"}, "dbPath": newDB}}}))
	poll(t, "index moved to the new dbPath", func() (bool, string) {
		var st StatsResult
		if err := s.command("contextLs.stats", nil, &st); err != nil {
			return false, err.Error()
		}
		fs := st.Folders[0]
		return strings.HasPrefix(fs.Index, newDB) && fs.Indexing.State == "done" && fs.Files > 0, fs.Index + " " + fs.Indexing.State
	})
	if syms := s.workspaceSymbols("NewCircle"); len(syms) == 0 {
		t.Error("NewCircle missing from the new index")
	}
	// Settings that do not change the index keep the engine: its query
	// counter (an engine's own) keeps counting.
	s.search("circle", 3)
	var mid StatsResult
	must(t, s.command("contextLs.stats", nil, &mid))
	must(t, s.c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"contextLs": map[string]any{"ignore": []string{"util/"}, "dbPath": newDB, "logLevel": "debug"}}}))
	s.workspaceSymbols("x") // an ordered barrier: the notification has been handled
	var st StatsResult
	must(t, s.command("contextLs.stats", nil, &st))
	if st.Folders[0].Queries.Count < mid.Folders[0].Queries.Count {
		t.Errorf("engine replaced by a log level change: queries %d → %d", mid.Folders[0].Queries.Count, st.Folders[0].Queries.Count)
	}
	// Embeddings off (already off) and a budget do change what the index
	// is built with: the engine is reopened with them.
	must(t, s.c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"contextLs": map[string]any{"ignore": []string{"util/"}, "dbPath": newDB, "budgetTokens": 9000, "embeddings": false}}}))
	s.workspaceSymbols("x")
	must(t, s.command("contextLs.stats", nil, &st))
	if st.Folders[0].Embeddings.State != "off" {
		t.Errorf("embeddings %q after turning them off", st.Folders[0].Embeddings.State)
	}
	var status StatusResult
	must(t, s.command("contextLs.status", nil, &status))
	if status.Settings.BudgetTokens != 9000 || status.Settings.Embeddings {
		t.Errorf("settings not stored: %+v", status.Settings)
	}
	_ = b
}

func TestBackendMultiRoot(t *testing.T) {
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 2})
	h := startServer(t, Options{Backend: b})
	one, two := filepath.Join(h.root, "one"), filepath.Join(h.root, "two")
	copyFixture(t, one)
	writeFile(t, two, "lib/area.py", "def total_area(shapes):\n    \"\"\"Sum of the areas.\"\"\"\n    return sum(s.area() for s in shapes)\n")
	s := newSession(t, h.c, h.root)
	s.initialize(map[string]any{"embeddings": false}, one, two)
	s.awaitIndexed()
	s.awaitIndexed()

	// workspace/symbol merges both folders by score: folder two's
	// total_area (a prefix match of the same case) outranks folder one's
	// TotalArea.
	syms := s.workspaceSymbols("total")
	if len(syms) < 2 || syms[0].Name != "total_area" || syms[1].Name != "TotalArea" {
		t.Errorf("merged symbols %s", symbolNames(syms))
	}
	if len(syms) > 0 && string(syms[0].Location.URI) != workspace.PathToURI(filepath.Join(two, "lib/area.py")) {
		t.Errorf("total_area at %s", syms[0].Location.URI)
	}
	// search spans both folders, each hit located in its own.
	res := s.search("total area", 10)
	folders := map[string]bool{}
	for _, hit := range res.Hits {
		for _, root := range []string{one, two} {
			if strings.HasPrefix(hit.URI, workspace.PathToURI(root)+"/") {
				folders[workspace.PathToURI(root)] = true
			}
		}
		if string(hit.Location.URI) != hit.URI {
			t.Errorf("hit %s located at %s", hit.URI, hit.Location.URI)
		}
	}
	if !folders[workspace.PathToURI(one)] || !folders[workspace.PathToURI(two)] {
		t.Errorf("search hits from %v, want both folders: %s", folders, hitSymbols(res))
	}
	var st StatsResult
	must(t, s.command("contextLs.stats", nil, &st))
	if len(st.Folders) != 2 || st.Folders[0].Folder != workspace.PathToURI(one) || st.Folders[1].Files != 1 {
		t.Errorf("stats %+v", st.Folders)
	}
	// Each folder has its own index directory.
	if st.Folders[0].Index == st.Folders[1].Index {
		t.Errorf("folders share the index %s", st.Folders[0].Index)
	}
}

func TestBackendRefusesPathsOutside(t *testing.T) {
	h, s, _ := startBackend(t, nil)
	outside := writeFile(t, t.TempDir(), "secret.go", "package secret\n\nfunc Secret() {}\n")
	link := filepath.Join(h.root, "geo", "link.go")
	if err := os.Symlink(outside, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	tests := []struct {
		name, uri, want string
	}{
		{"outside every folder", workspace.PathToURI(outside), "outside the workspace folders"},
		{"symlink out of the folder", workspace.PathToURI(link), "outside the workspace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := h.c.Call(testCtx(t), "textDocument/definition", map[string]any{
				"textDocument": map[string]any{"uri": tc.uri}, "position": map[string]any{"line": 2, "character": 6},
			}, nil)
			if err == nil || !strings.Contains(rpcMessage(err), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	err := s.command("contextLs.reindex", map[string]any{"confirm": true, "paths": []string{outside}}, nil)
	if rpcCode(err) != int64(jsonrpc.CodeInvalidParams) || !strings.Contains(rpcMessage(err), "paths[0]: "+outside+" is in no open workspace folder") {
		t.Errorf("reindex outside: %v", err)
	}
	// The symlinked file was never indexed.
	if syms := s.workspaceSymbols("Secret"); len(syms) > 0 {
		t.Errorf("a file outside the folder was indexed: %s", symbolNames(syms))
	}
}

func TestBackendReindex(t *testing.T) {
	h, s, b := startBackend(t, nil)
	must(t, os.Remove(filepath.Join(h.root, "docs/guide.md")))

	// dryRun lists without changing anything; relative paths name files
	// of a folder.
	var plan ReindexResult
	must(t, s.command("contextLs.reindex", map[string]any{"dryRun": true, "paths": []string{"geo", "docs/guide.md"}}, &plan))
	reindex, remove := plan.Folders[0].Reindex, plan.Folders[0].Remove
	if len(plan.Folders) != 1 || plan.Folders[0].Status != "planned" || plan.Folders[0].JobID != "" || !reflect.DeepEqual(reindex, []string{"geo/rect.go", "geo/shapes.go", "geo/shapes_test.go"}) || !reflect.DeepEqual(remove, []string{"docs/guide.md"}) {
		t.Errorf("dry run %+v: reindex %v remove %v", plan, reindex, remove)
	}
	if res := s.search("Fixture guide", 5); len(res.Hits) == 0 || res.Hits[0].Path != "docs/guide.md" {
		t.Errorf("the dry run changed the index: %s", hitSymbols(res))
	}

	// A second reindex of a folder is refused while one runs: hold the
	// engine's scan lock so the first stays waiting.
	backend, release, err := b.Backend(h.root)
	must(t, err)
	unlock, err := backend.(*share.Index).Local().Engine().LockScan(testCtx(t))
	must(t, err)
	var first ReindexResult
	must(t, s.commandWithToken("contextLs.reindex", map[string]any{"confirm": true, "paths": []string{"docs"}}, "tok-1", &first))
	err = s.command("contextLs.reindex", map[string]any{"confirm": true}, nil)
	unlock()
	release()
	if !strings.Contains(rpcMessage(err), first.Folders[0].JobID) || !strings.Contains(rpcMessage(err), "is still") {
		t.Errorf("second reindex: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	end, err := s.c.Await(ctx, progressOn(json.RawMessage(`"tok-1"`), "end"))
	must(t, err)
	var ep struct {
		Value workDoneValue `json:"value"`
	}
	must(t, end.Decode(&ep))
	if ep.Value.Message != "0 files re-indexed, 1 removed, 0 failed" {
		t.Errorf("progress end %q", ep.Value.Message)
	}
	if res := s.search("Fixture guide", 5); len(res.Hits) > 0 && res.Hits[0].Path == "docs/guide.md" {
		t.Errorf("the removed file is still found: %s", hitSymbols(res))
	}
	// Once finished, a new reindex is accepted.
	var again ReindexResult
	must(t, s.command("contextLs.reindex", map[string]any{"confirm": true, "paths": []string{s.uri("geo/rect.go")}}, &again))
	if again.Folders[0].JobID == first.Folders[0].JobID || again.Folders[0].JobID == "" {
		t.Errorf("second job %+v", again)
	}
}

func TestBackendServerWatcher(t *testing.T) {
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 2})
	h := startServer(t, Options{Backend: b})
	copyFixture(t, h.root)
	s := newSession(t, h.c, h.root)
	// No dynamic registration: the server watches files itself.
	must(t, s.c.Call(testCtx(t), "initialize", map[string]any{
		"capabilities":          clientCaps{progress: true}.json(),
		"workspaceFolders":      []map[string]string{{"uri": workspace.PathToURI(h.root), "name": "ws"}},
		"initializationOptions": map[string]any{"embeddings": false},
	}, nil))
	must(t, s.c.Notify("initialized", map[string]any{}))
	s.awaitIndexed()
	if st := h.status(); st.Watching != "server" {
		t.Fatalf("watching %q", st.Watching)
	}
	writeFile(t, h.root, "geo/tri.go", "package geo\n\n// Triangle has three sides.\ntype Triangle struct{ A, B, C float64 }\n")
	poll(t, "the watcher reports the new file", func() (bool, string) {
		syms := s.workspaceSymbols("Triangle")
		return len(syms) > 0 && syms[0].Name == "Triangle", symbolNames(syms)
	})
	must(t, os.RemoveAll(filepath.Join(h.root, "util")))
	poll(t, "the watcher reports the removed directory", func() (bool, string) {
		syms := s.workspaceSymbols("retry_upload")
		return len(syms) == 0, symbolNames(syms)
	})
}

func TestBackendBuffers(t *testing.T) {
	h, s, _ := startBackend(t, nil)

	// A file changed on disk without any event: opening it reconciles.
	writeFile(t, h.root, "geo/rect.go", s.fileText("geo/rect.go")+"\n// Square makes a square.\nfunc Square(a float64) Rect { return Rect{a, a} }\n")
	s.didOpen("geo/rect.go", "go")
	poll(t, "didOpen reconciles a stale file", func() (bool, string) {
		syms := s.workspaceSymbols("Square")
		return len(syms) > 0 && syms[0].Name == "Square", symbolNames(syms)
	})

	// Binary and oversized buffers are not indexed, and do not break
	// the server.
	s.insert("geo/rect.go", "\nfunc Binary() {}\n\x00\x01\x02")
	s.didOpen("util/retry.py", "python")
	s.insert("util/retry.py", "\ndef too_big():\n    pass\n"+strings.Repeat("# padding line\n", session.DefaultMaxFileSize/15+10))
	s.didOpen("geo/shapes.go", "go")
	s.insert("geo/shapes.go", "\nfunc Valid\xff\xfeUTF8() {}\n\nfunc AfterInvalid() {}\n")
	poll(t, "an invalid UTF-8 buffer is still indexed", func() (bool, string) {
		syms := s.workspaceSymbols("AfterInvalid")
		return len(syms) > 0, symbolNames(syms)
	})
	for _, name := range []string{"Binary", "too_big"} {
		if syms := s.workspaceSymbols(name); len(syms) > 0 && syms[0].Name == name {
			t.Errorf("%s indexed from an excluded buffer", name)
		}
	}
	if res := s.search("Square", 3); len(res.Hits) == 0 {
		t.Error("search broken after bad buffers")
	}
	// A buffer is judged by the rules its file would be once saved: a
	// readable prelude that becomes a bundle (one long last line) is
	// minified in the buffer as on disk (it was indexed live, issue 29).
	var prelude strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&prelude, "// line %d of a licence header\nfunction preludeFn%d(a) { return a + %d; }\n", i, i, i)
	}
	writeFile(t, h.root, "web/app.js", prelude.String())
	must(t, s.command("contextLs.reindex", map[string]any{"confirm": true, "paths": []string{"web/app.js"}}, nil))
	poll(t, "the prelude indexed", func() (bool, string) {
		syms := s.workspaceSymbols("preludeFn7")
		return len(syms) > 0, symbolNames(syms)
	})
	s.didOpen("web/app.js", "javascript")
	s.insert("web/app.js", strings.Repeat("function bundledFn(a,b){return a*b+bundledFn(b,a)};", 400)+"\n")
	if syms := s.workspaceSymbols("bundledFn"); len(syms) > 0 {
		t.Errorf("a minified buffer was indexed: %s", symbolNames(syms))
	}
	s.save("web/app.js")
	poll(t, "the saved bundle left the index", func() (bool, string) {
		syms := s.workspaceSymbols("preludeFn7")
		return len(syms) == 0, symbolNames(syms)
	})
	if syms := s.workspaceSymbols("bundledFn"); len(syms) > 0 {
		t.Errorf("the saved bundle was indexed: %s", symbolNames(syms))
	}

	// Editing a file of a language the engine does not index is fine.
	writeFile(t, h.root, "notes.txt", "plain notes\n")
	s.didOpen("notes.txt", "plaintext")
	s.insert("notes.txt", "more notes\n")
	s.didClose("notes.txt")
	if st := h.status(); len(st.Documents) != 4 {
		t.Errorf("documents %+v", st.Documents)
	}
}

// TestAnswersFollowTheBuffer: requests about an open document answer from
// its current version, at once — no poll: the request right after the
// edit must see it (the debounce of the overlay is cut short).
func TestAnswersFollowTheBuffer(t *testing.T) {
	_, s, _ := startBackend(t, nil)
	names := func(rel string) string {
		var out []string
		var walk func([]docSymbol)
		walk = func(list []docSymbol) {
			for _, d := range list {
				out = append(out, d.Name)
				walk(d.Children)
			}
		}
		walk(s.documentSymbols(rel))
		return strings.Join(out, " ")
	}
	s.didOpen("geo/rect.go", "go")
	s.insert("geo/rect.go", "\n// Square makes a square.\nfunc Square(a float64) Rect { return Rect{a, a} }\n")
	if got := names("geo/rect.go"); !strings.Contains(got, "Square") {
		t.Fatalf("documentSymbol right after didChange: %s; want Square", got)
	}
	text := s.buffer("geo/rect.go")
	if h := s.hover("geo/rect.go", position(t, text, "Square(a", 0, 1)); h == nil || !strings.Contains(h.Contents.Value, "Square") {
		t.Fatalf("hover on the new function right after didChange: %+v", h)
	}

	// Close, then open again with other text: the first answer is the
	// new buffer's, not the closed one's.
	s.didClose("geo/rect.go")
	fresh := "package geo\n\n// Hexagon has six sides.\ntype Hexagon struct{ Side float64 }\n"
	must(t, s.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": s.uri("geo/rect.go"), "languageId": "go", "version": 7, "text": fresh,
	}}))
	if got := names("geo/rect.go"); got != "Hexagon Side" && got != "Hexagon" {
		t.Fatalf("documentSymbol right after reopening with new text: %q; want the new buffer's Hexagon only", got)
	}
}

// TestWorkspaceQueriesReadTheirWrites: a search, a workspace symbol query
// and a context pack right after didChange see the edit — no poll, and a
// debounce of an hour: workspace-wide queries wait for pending buffers.
func TestWorkspaceQueriesReadTheirWrites(t *testing.T) {
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 2, Debounce: time.Hour})
	h := startServer(t, Options{Backend: b})
	copyFixture(t, h.root)
	s := newSession(t, h.c, h.root)
	s.initialize(map[string]any{"embeddings": false})
	s.awaitIndexed()
	s.didOpen("geo/rect.go", "go")
	s.insert("geo/rect.go", "\n// Trapezoid makes a trapezoid.\nfunc Trapezoid(a, b, h float64) float64 { return (a + b) * h / 2 }\n")
	if _, ok := hasHit(s.search("Trapezoid", 5), "Trapezoid"); !ok {
		t.Fatal("search right after didChange misses the new function")
	}
	s.insert("geo/rect.go", "\n// Rhombus makes a rhombus.\nfunc Rhombus(d1, d2 float64) float64 { return d1 * d2 / 2 }\n")
	found := false
	for _, sym := range s.workspaceSymbols("Rhombus") {
		found = found || sym.Name == "Rhombus"
	}
	if !found {
		t.Fatal("workspace/symbol right after didChange misses the new function")
	}
	s.insert("geo/rect.go", "\n// Parallelogram makes a parallelogram.\nfunc Parallelogram(b, h float64) float64 { return b * h }\n")
	var pack ContextPackResult
	must(t, s.command("contextLs.contextPack", map[string]any{"query": "Parallelogram", "budget": 2000}, &pack))
	if !strings.Contains(pack.Text, "func Parallelogram") {
		t.Fatalf("context pack right after didChange misses the new function:\n%s", pack.Text)
	}
}

// TestBootstrapProgressSaysBytesAndRate: the first scan's $/progress
// reports say what the CLI's progress line says — files and bytes done of
// total, and (once known) the rate and the time left — with the files'
// fraction as the percentage, and the end says how many files are indexed.
// (TestIndexProgress checks the rate and the time left word for word.)
func TestBootstrapProgressSaysBytesAndRate(t *testing.T) {
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 1})
	h := startServer(t, Options{Backend: b})
	copyFixture(t, h.root)
	for i := 0; i < 600; i++ {
		n := strconv.Itoa(i)
		body := strings.Repeat("\t// A line of padding, so the files weigh something.\n", 40)
		writeFile(t, h.root, filepath.Join("gen", "f"+n+".go"), "package gen\n\n// Gen"+n+" is generated.\nfunc Gen"+n+"() int {\n"+body+"\treturn "+n+"\n}\n")
	}
	s := newSession(t, h.c, h.root)
	s.initialize(map[string]any{"embeddings": false})
	end, _ := s.awaitIndexed()
	if end != "606 files indexed" {
		t.Errorf("end message %q, want 606 files indexed", end)
	}
	line := regexp.MustCompile(`^(\d+)/606 files, (\d+\.\d)/(\d+\.\d) MB(, (\d+) files/s)?(, about \S+ left)?$`)
	_, values := progressMessages(t, h.c)
	seen := 0
	for _, v := range values {
		if v.Value.Kind != "report" || v.Value.Message == "0/1 files" {
			continue // the report before the scan knows its total
		}
		m := line.FindStringSubmatch(v.Value.Message)
		if m == nil {
			t.Errorf("report %q does not say files and bytes done of total", v.Value.Message)
			continue
		}
		seen++
		done, _ := strconv.Atoi(m[1])
		if v.Value.Percentage == nil || *v.Value.Percentage != uint32(done*100/606) {
			t.Errorf("report %q with percentage %v, want %d", v.Value.Message, v.Value.Percentage, done*100/606)
		}
		if m[3] == "0.0" {
			t.Errorf("report %q: no bytes to do", v.Value.Message)
		}
		// The rate is known after half a second of the run (engine.meter),
		// and the time left with it.
		if (m[5] == "") != (m[6] == "") {
			t.Errorf("report %q: a rate without the time left, or the reverse", v.Value.Message)
		}
	}
	if seen == 0 {
		t.Fatalf("no report of the scan among %+v", values)
	}
}

func TestBackendQueriesDuringBootstrap(t *testing.T) {
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 1})
	h := startServer(t, Options{Backend: b})
	copyFixture(t, h.root)
	for i := 0; i < 300; i++ {
		n := strconv.Itoa(i)
		writeFile(t, h.root, filepath.Join("gen", "f"+n+".go"), "package gen\n\n// Gen"+n+" is generated.\nfunc Gen"+n+"() int { return "+n+" }\n")
	}
	s := newSession(t, h.c, h.root)
	s.initialize(map[string]any{"embeddings": false})
	// Queries answer while the bootstrap runs; stats says how far it is.
	var st StatsResult
	must(t, s.command("contextLs.stats", nil, &st))
	if c := st.Folders[0].Indexing.Complete; c < 0 || c > 1 {
		t.Errorf("complete %v", c)
	}
	s.workspaceSymbols("Gen1")
	s.awaitIndexed()
	must(t, s.command("contextLs.stats", nil, &st))
	if fs := st.Folders[0]; fs.Indexing.State != "done" || fs.Indexing.Complete != 1 || fs.Files != 306 {
		t.Errorf("after bootstrap: %+v", fs)
	}
}

func TestBackendArgumentErrors(t *testing.T) {
	_, s, _ := startBackend(t, nil)
	// similar needs embeddings, and says why there are none.
	err := s.command("contextLs.similar", map[string]any{"snippet": "sum areas"}, nil)
	if rpcCode(err) != int64(jsonrpc.CodeRequestFailed) || !strings.Contains(rpcMessage(err), "embeddings are not available (off") {
		t.Errorf("similar without embeddings: %v", err)
	}
	// Argument errors come first.
	bad := []struct {
		command string
		args    map[string]any
		want    string
	}{
		{"contextLs.callers", map[string]any{}, "arguments[0].symbol: required: name the definition by symbol, or by file and line"},
		{"contextLs.callers", map[string]any{"uri": s.uri("geo/rect.go")}, "arguments[0].position: required with file"},
		{"contextLs.tests", map[string]any{"symbol": "Area", "limit": 5000}, "limit: must be between 1 and 1000"},
		{"contextLs.contextPack", map[string]any{}, "arguments[0].query: required without a selection"},
		{"contextLs.contextPack", map[string]any{"query": "x", "task": "golf"}, "task: \"golf\" is not one of"},
		{"contextLs.contextPack", map[string]any{"query": "x", "format": "yaml"}, "format: \"yaml\" is not"},
		{"contextLs.contextPack", map[string]any{"query": "x", "folder": "file:///not/open"}, "folder: file:///not/open is not an open workspace folder"},
		{"contextLs.relatedContext", map[string]any{"symbol": "Area", "k": 500}, "k: must be between 1 and 100"},
		{"contextLs.contextPack", map[string]any{"query": "x", "budget": 5}, "arguments[0].budget: must be between 100"},
		{"contextLs.contextPack", map[string]any{"query": "x", "budgetTokens": 500}, "arguments[0].budgetTokens: unknown argument; the arguments are: query, symbol, file"},
		{"contextLs.search", map[string]any{"query": "x", "k": "ten"}, "arguments[0].k: must be an integer, got a string"},
		// Errors name the place the client sent, not the service's fields.
		{"contextLs.pin", map[string]any{"uri": s.uri("no/such.go"), "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 1, "character": 0}}}, "arguments[0].textDocument: \"" + s.path("no/such.go") + "\" does not exist"},
		{"contextLs.unpin", map[string]any{"symbol": "TotalArea"}, "not pinned"},
		{"contextLs.pin", map[string]any{"uri": s.uri("geo/rect.go"), "position": map[string]any{"line": 1, "character": 0}}, "no definition at geo/rect.go:2"},
		{"contextLs.search", map[string]any{"query": " "}, "query: must not be empty"},
		{"contextLs.search", map[string]any{"query": "x", "k": 1000}, "k: must be between 1 and 100"},
		{"contextLs.search", map[string]any{"query": "x", "paths": []string{"[bad"}}, "paths"},
		{"contextLs.definition", map[string]any{"position": map[string]any{"line": 0, "character": 0}}, "location.uri: required"},
		{"contextLs.definition", map[string]any{"location": map[string]any{"uri": s.uri("geo/rect.go"), "range": map[string]any{"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 3, "character": 0}}}, "position": map[string]any{"line": 2, "character": 0}}, "position.line: 2 is past the snippet's last line 1"},
		{"contextLs.reindex", map[string]any{"confirm": true, "paths": []string{"no/such/file.go"}}, `arguments[0].paths[0]: "no/such/file.go" is neither a file of the workspace nor indexed`},
		{"contextLs.similar", map[string]any{"uri": s.uri("geo/rect.go"), "position": map[string]any{"line": 1, "character": 0}}, "no definition at geo/rect.go:2"},
		{"contextLs.similar", map[string]any{"symbol": "NoSuchThing"}, "no definition named"},
		{"contextLs.similar", map[string]any{"snippet": "x", "k": -1}, "k: must be between"},
	}
	for _, tc := range bad {
		err := s.command(tc.command, tc.args, nil)
		if rpcCode(err) != int64(jsonrpc.CodeInvalidParams) || !strings.Contains(rpcMessage(err), tc.want) {
			t.Errorf("%s %v: %v, want InvalidParams containing %q", tc.command, tc.args, err, tc.want)
		}
	}
}

func TestBackendHoverAndDefinitionEdges(t *testing.T) {
	_, s, _ := startBackend(t, nil)
	rect := s.fileText("geo/rect.go")
	// On whitespace: no hover, no definition.
	if hov := s.hover("geo/rect.go", position(t, rect, "\n\n", 0, 1)); hov != nil {
		t.Errorf("hover on an empty line: %+v", hov)
	}
	if defs := s.definition("geo/rect.go", position(t, rect, "\n\n", 0, 1)); len(defs) != 0 {
		t.Errorf("definition on an empty line: %+v", defs)
	}
	var refs []protocol.Location
	must(t, s.c.Call(testCtx(t), "textDocument/references", map[string]any{
		"textDocument": map[string]any{"uri": s.uri("geo/rect.go")}, "position": position(t, rect, "\n\n", 0, 1), "context": map[string]any{},
	}, &refs))
	if refs == nil || len(refs) != 0 {
		t.Errorf("references on an empty line: %+v, want an empty list", refs)
	}
	// s.Area() inside TotalArea: s ranges over shapes ...Shape, so the
	// call resolves to the interface method Shape.Area, as gopls answers
	// (not Rect.Area, nor the Area definitions further away).
	defs := s.definition("geo/rect.go", position(t, rect, "s.Area()", 0, 2))
	want := protocol.Range{Start: position(t, rect, "Area() float64\n", 0, 0), End: position(t, rect, "Area() float64\n", 0, 4)}
	if len(defs) != 1 || string(defs[0].URI) != s.uri("geo/rect.go") || defs[0].Range != want {
		t.Errorf("definitions of Area: %+v, want %+v", defs, want)
	}
	// Hover on a Python method call lists related definitions.
	py := s.fileText("util/retry.py")
	hov := s.hover("util/retry.py", position(t, py, "delay(i)", 0, 0))
	if hov == nil || !strings.Contains(hov.Contents.Value, "def delay(self, attempt)") || !strings.Contains(hov.Contents.Value, "Seconds to wait") {
		t.Fatalf("hover on delay: %+v", hov)
	}
	if !strings.Contains(hov.Contents.Value, "util/retry.py:") || !strings.Contains(hov.Contents.Value, "](file://") {
		t.Errorf("hover lacks located related definitions:\n%s", hov.Contents.Value)
	}
	// documentSymbol of an unindexed file is empty, not an error.
	writeFile(t, s.root, "notes.txt", "notes\n")
	if ds := s.documentSymbols("notes.txt"); len(ds) != 0 {
		t.Errorf("symbols of notes.txt: %+v", ds)
	}
}

func TestSymbolTree(t *testing.T) {
	l := (&server{docs: newDocumentStore(), log: newLogger(nil, io.Discard)}).newLocator()
	rng := func(l0, c0, l1, c1 int) service.Range {
		return service.Range{StartLine: l0 + 1, StartColumn: c0 + 1, EndLine: l1 + 1, EndColumn: c1 + 1}
	}
	syms := []service.Symbol{
		{Name: "A", Kind: "class", Location: service.Location{Range: rng(0, 0, 9, 0)}, NameRange: rng(0, 6, 0, 7), Parent: -1},
		{Name: "m", Kind: "method", Signature: "def m(self)", Location: service.Location{Range: rng(1, 4, 2, 0)}, NameRange: rng(1, 8, 1, 9), Parent: 0},
		{Name: "inner", Kind: "function", Location: service.Location{Range: rng(1, 10, 1, 20)}, NameRange: rng(1, 14, 1, 19), Parent: 1},
		{Name: "f", Kind: "function", Location: service.Location{Range: rng(10, 0, 11, 0)}, NameRange: rng(10, 0, 10, 0), Parent: -1},
		// A name outside the definition is clamped; a forward parent is a root.
		{Name: "odd", Kind: "var", Location: service.Location{Range: rng(12, 0, 12, 5)}, NameRange: rng(13, 0, 13, 3), Parent: 7},
	}
	got := symbolTree(l, filepath.Join(t.TempDir(), "gone.py"), syms)
	if len(got) != 3 || got[0].Name != "A" || got[1].Name != "f" || got[2].Name != "odd" {
		t.Fatalf("roots %+v", got)
	}
	m := got[0].Children
	if len(m) != 1 || m[0].Name != "m" || m[0].Detail != "def m(self)" || len(m[0].Children) != 1 || m[0].Children[0].Name != "inner" {
		t.Errorf("children %+v", m)
	}
	if got[2].SelectionRange != (protocol.Range{Start: protocol.Position{Line: 12}, End: protocol.Position{Line: 12}}) {
		t.Errorf("selection outside the range %+v", got[2].SelectionRange)
	}
}

func TestCommandsNeedTheBackend(t *testing.T) {
	h := startServer(t, Options{Backend: &fakeBackend{}})
	h.initialize(clientCaps{}, nil)
	err := h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "contextLs.search", "arguments": []any{map[string]any{"query": "x"}}}, nil)
	if !strings.Contains(rpcMessage(err), "not available") {
		t.Errorf("search on a foreign backend: %v", err)
	}
}

// useLite returns the real sentence encoder beside the checkout, skipping
// the test when it or the ONNX Runtime library is absent (make deps).
func useLite(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "shared", "models", "use-lite"))
	must(t, err)
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Skipf("the use-lite model is not at %s (it sits beside the checkout; make deps)", dir)
	}
	if _, err := vectors.FindRuntime(""); err != nil {
		t.Skipf("ONNX Runtime not installed (make deps): %v", err)
	}
	return dir
}

func TestBackendSimilar(t *testing.T) {
	model := useLite(t)
	_, s, _ := startBackend(t, map[string]any{"embeddings": true, "modelPath": model})
	var st StatsResult
	poll(t, "embeddings ready", func() (bool, string) {
		if err := s.command("contextLs.stats", nil, &st); err != nil {
			return false, err.Error()
		}
		return st.Folders[0].Embeddings.State == "ready", st.Folders[0].Embeddings.State
	})
	fs := st.Folders[0]
	if fs.Embeddings.Vectors < fs.Chunks || !strings.HasPrefix(fs.Embeddings.Model, "use-lite@") || fs.Embeddings.CacheHitRate == nil {
		t.Errorf("vector stats %+v, chunks %d", fs.Embeddings, fs.Chunks)
	}

	var res SearchResult
	must(t, s.command("contextLs.similar", map[string]any{"snippet": "try the upload again after it fails, waiting longer each time", "k": 3}, &res))
	if len(res.Hits) == 0 || res.Hits[0].Path != "util/retry.py" || res.Hits[0].Sources[0] != "vector" {
		t.Errorf("similar to a retry text: %s", hitSymbols(res))
	}
	// From a place: the definition at the position is the snippet, and it
	// is left out of its own neighbours.
	rect := s.fileText("geo/rect.go")
	must(t, s.command("contextLs.similar", map[string]any{"uri": s.uri("geo/rect.go"), "position": position(t, rect, "Area() float64 {", 0, 0)}, &res))
	if len(res.Hits) == 0 {
		t.Fatal("no neighbours of Rect.Area")
	}
	for _, h := range res.Hits {
		if h.Symbol == "Rect.Area" {
			t.Errorf("the snippet itself is among its neighbours: %s", hitSymbols(res))
		}
	}
}

// TestBackendGolden records document symbols of every fixture file and the
// definition and hover answers at marked places, in testdata/backend.golden
// (rewritten with -update).
func TestBackendGolden(t *testing.T) {
	_, s, _ := startBackend(t, nil)
	var out strings.Builder
	root := workspace.PathToURI(s.root)
	clean := func(v string) string { return strings.ReplaceAll(v, root, "$ROOT") }
	var dump func(prefix string, syms []docSymbol)
	dump = func(prefix string, syms []docSymbol) {
		for _, d := range syms {
			fmt.Fprintf(&out, "%s%s kind=%d %d:%d-%d:%d name@%d:%d %q\n", prefix, d.Name, d.Kind,
				d.Range.Start.Line, d.Range.Start.Character, d.Range.End.Line, d.Range.End.Character,
				d.SelectionRange.Start.Line, d.SelectionRange.Start.Character, d.Detail)
			dump(prefix+"  ", d.Children)
		}
	}
	for _, rel := range []string{"cmd/app/main.go", "docs/guide.md", "geo/rect.go", "geo/shapes.go", "util/retry.py"} {
		fmt.Fprintf(&out, "== documentSymbol %s\n", rel)
		dump("", s.documentSymbols(rel))
	}
	places := []struct {
		rel, needle string
		n, offset   int
	}{
		{"cmd/app/main.go", "NewCircle", 0, 4},
		{"cmd/app/main.go", "TotalArea", 0, 0},
		{"cmd/app/main.go", "Rect{", 0, 1},
		{"geo/rect.go", "Shape)", 0, 0},
		{"util/retry.py", "Backoff()", 0, 3},
		{"util/retry.py", "delay(i)", 0, 0},
		{"util/retry.py", "time.sleep", 0, 0},
	}
	for _, p := range places {
		text := s.fileText(p.rel)
		pos := position(t, text, p.needle, p.n, p.offset)
		fmt.Fprintf(&out, "== definition %s %q (%d:%d)\n", p.rel, p.needle, pos.Line, pos.Character)
		for _, l := range s.definition(p.rel, pos) {
			fmt.Fprintf(&out, "%s %d:%d-%d:%d\n", clean(string(l.URI)), l.Range.Start.Line, l.Range.Start.Character, l.Range.End.Line, l.Range.End.Character)
		}
		fmt.Fprintf(&out, "== hover %s %q\n", p.rel, p.needle)
		if h := s.hover(p.rel, pos); h != nil {
			out.WriteString(clean(h.Contents.Value) + "\n")
		}
	}
	golden(t, "backend.golden", []byte(out.String()))
}

func TestBackendGraph(t *testing.T) {
	_, s, _ := startBackend(t, nil)
	mainText := s.fileText("cmd/app/main.go")
	names := func(g GraphTarget) []string {
		var out []string
		for _, it := range g.Items {
			out = append(out, it.Symbol)
		}
		return out
	}
	tests := []struct {
		name    string
		command string
		args    map[string]any
		target  string
		items   []string
		check   func(t *testing.T, g GraphTarget)
	}{
		{"callees of the function around a position", "contextLs.callees",
			map[string]any{"textDocument": map[string]any{"uri": s.uri("cmd/app/main.go")}, "position": position(t, mainText, "fmt.Println", 0, 0)},
			"main", []string{"TotalArea", "NewCircle"}, func(t *testing.T, g GraphTarget) {
				if !slices.Contains(g.Unresolved, "fmt.Println") {
					t.Errorf("unresolved %v", g.Unresolved)
				}
				// Call sites of callees lie in the target's file.
				for _, it := range g.Items {
					if len(it.Sites) != 1 || string(it.Sites[0].LSP.URI) != s.uri("cmd/app/main.go") || it.Sites[0].Path != "cmd/app/main.go" {
						t.Errorf("call sites of %s: %+v", it.Symbol, it.Sites)
					}
				}
			}},
		{"tests of a symbol", "contextLs.tests", map[string]any{"symbol": "geo.NewCircle"},
			"NewCircle", []string{"TestCircleArea"}, func(t *testing.T, g GraphTarget) {
				if it := g.Items[0]; it.Reason != "direct" || it.Kind != "test" || string(it.Location.URI) != s.uri("geo/shapes_test.go") {
					t.Errorf("test %+v", it)
				}
			}},
		{"callers in Python through a receiver", "contextLs.callers", map[string]any{"symbol": "Backoff.delay"},
			"Backoff.delay", []string{"retry_upload"}, nil},
		{"a limit leaves items out", "contextLs.callers", map[string]any{"symbol": "NewCircle", "limit": 1},
			"NewCircle", []string{"main"}, func(t *testing.T, g GraphTarget) {
				if g.Truncated != 1 {
					t.Errorf("truncated %d, want 1", g.Truncated)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res GraphAnswer
			must(t, s.command(tc.command, tc.args, &res))
			if len(res.Results) != 1 || res.Results[0].Definition.Symbol.Symbol != tc.target || !reflect.DeepEqual(names(res.Results[0]), tc.items) {
				t.Fatalf("got %+v, want %s with %v", res, tc.target, tc.items)
			}
			if tc.check != nil {
				tc.check(t, res.Results[0])
			}
		})
	}
	err := s.command("contextLs.callers", map[string]any{"symbol": "NoSuchFunction"}, nil)
	if !strings.Contains(rpcMessage(err), `no definition named "NoSuchFunction"`) {
		t.Errorf("callers of a missing symbol: %v", err)
	}
	// Outgoing calls of a Python function through the call hierarchy.
	py := s.fileText("util/retry.py")
	var items []protocol.CallHierarchyItem
	must(t, s.c.Call(testCtx(t), "textDocument/prepareCallHierarchy", map[string]any{
		"textDocument": map[string]any{"uri": s.uri("util/retry.py")}, "position": position(t, py, "retry_upload", 0, 0),
	}, &items))
	if len(items) != 1 || items[0].Name != "retry_upload" {
		t.Fatalf("prepare: %+v", items)
	}
	var out []protocol.CallHierarchyOutgoingCall
	must(t, s.c.Call(testCtx(t), "callHierarchy/outgoingCalls", map[string]any{"item": items[0]}, &out))
	var callees []string
	for _, o := range out {
		callees = append(callees, o.To.Name)
		if !rangeWithin(o.To.Range, o.To.SelectionRange) {
			t.Errorf("%s: selection %+v outside range %+v", o.To.Name, o.To.SelectionRange, o.To.Range)
		}
	}
	if !slices.Contains(callees, "delay") || !slices.Contains(callees, "Backoff") {
		t.Errorf("outgoing calls of retry_upload: %v", callees)
	}
}

func TestBackendPacks(t *testing.T) {
	_, s, _ := startBackend(t, nil)
	shapes := s.fileText("geo/shapes.go")

	// A query pack stays within its budget; every item is located.
	var pack ContextPackResult
	must(t, s.command("contextLs.contextPack", map[string]any{"query": "area of a circle", "budget": 400}, &pack))
	if pack.Tokens > 400 || pack.Budget != 400 || len(pack.Items) == 0 || !strings.Contains(pack.Text, "func (c Circle) Area() float64") {
		t.Fatalf("pack %+v", pack)
	}
	for _, it := range pack.Items {
		if string(it.Location.URI) != s.uri(it.Path) || it.Location.Range.End.Line < it.Location.Range.Start.Line {
			t.Errorf("item %+v", it)
		}
	}

	// Related context of a definition at a position: its caller and its
	// test, with reasons and text.
	var rel RelatedResult
	must(t, s.command("contextLs.relatedContext", map[string]any{"uri": s.uri("geo/shapes.go"), "position": position(t, shapes, "NewCircle", 1, 0)}, &rel))
	if rel.Symbol != "NewCircle" || string(rel.Selection.LSP.URI) != s.uri("geo/shapes.go") || rel.Selection.LSP.Range.Start.Line != 11 {
		t.Errorf("related selection %+v %q", rel.Selection, rel.Symbol)
	}
	kinds := map[string]RelatedItem{}
	for _, it := range rel.Items {
		kinds[it.Symbol] = it
	}
	if it, ok := kinds["main"]; !ok || !strings.Contains(it.Reason, "caller") || !strings.Contains(it.Text, "geo.NewCircle(2)") {
		t.Errorf("related items lack the caller main: %+v", rel.Items)
	}
	if it, ok := kinds["TestCircleArea"]; !ok || !strings.Contains(it.Reason, "test") {
		t.Errorf("related items lack the test: %+v", rel.Items)
	}
	var one RelatedResult
	must(t, s.command("contextLs.relatedContext", map[string]any{"symbol": "NewCircle", "k": 1}, &one))
	if len(one.Items) != 1 || one.Items[0].Symbol != rel.Items[0].Symbol {
		t.Errorf("k=1: %+v", one.Items)
	}

	// Pins: a definition by symbol and a whole document; packs include
	// them; unpin removes them.
	var pins PinsResult
	must(t, s.command("contextLs.pin", map[string]any{"symbol": "Backoff"}, &pins))
	must(t, s.command("contextLs.pin", map[string]any{"uri": s.uri("docs/guide.md")}, &pins))
	if len(pins.Pins) != 2 || pins.Pins[0].Path != "util/retry.py" || pins.Pins[0].Lines != "6-14" || pins.Pins[1].Lines != "" || pins.Pins[1].Tokens == 0 {
		t.Fatalf("pins %+v", pins)
	}
	must(t, s.command("contextLs.contextPack", map[string]any{"query": "area of a circle", "budget": 2000}, &pack))
	pinned := 0
	for _, it := range pack.Items {
		if it.IncludeMode == "manual" {
			pinned++
		}
	}
	if pinned != 2 {
		t.Errorf("pack holds %d pinned items: %+v", pinned, pack.Items)
	}
	must(t, s.command("contextLs.unpin", map[string]any{"symbol": "Backoff"}, &pins))
	if len(pins.Pins) != 1 || pins.Pins[0].Path != "docs/guide.md" {
		t.Errorf("after unpin %+v", pins)
	}
	// Lines of a file that is then deleted: listed with an error, and
	// unpinned by the range the client has.
	lines := map[string]any{"uri": s.uri("geo/rect.go"), "range": map[string]any{
		"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 5, "character": 0}}}
	must(t, s.command("contextLs.pin", lines, &pins))
	must(t, os.Remove(s.path("geo/rect.go")))
	must(t, s.command("contextLs.pins", nil, &pins))
	if len(pins.Pins) != 2 || pins.Pins[1].Error == "" {
		t.Fatalf("pins after the file was deleted: %+v", pins)
	}
	must(t, s.command("contextLs.unpin", lines, &pins))
	if len(pins.Pins) != 1 || pins.Pins[0].Path != "docs/guide.md" {
		t.Errorf("after unpinning the lines of a deleted file: %+v", pins)
	}

	// Stats average the packs built.
	var st StatsResult
	must(t, s.command("contextLs.stats", nil, &st))
	if v := st.Folders[0].Packs.AvgTokens; v == nil || *v <= 0 || *v > 2000 {
		t.Errorf("average pack tokens %+v", st.Folders[0].Packs)
	}
}

// TestSymlinkedFolder: a folder the client opens through a symbolic link
// is answered under the link — definitions, search hits, references —,
// as the client names its files, though the index holds the real paths.
func TestSymlinkedFolder(t *testing.T) {
	b := session.New(session.Options{DBPath: t.TempDir(), Workers: 2})
	h := startServer(t, Options{Backend: b})
	real := filepath.Join(h.root, "real")
	copyFixture(t, real)
	link := filepath.Join(h.root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	s := newSession(t, h.c, link)
	s.initialize(map[string]any{"embeddings": false})
	s.awaitIndexed()
	mainText := s.fileText("cmd/app/main.go")
	defs := s.definition("cmd/app/main.go", position(t, mainText, "NewCircle", 0, 3))
	if len(defs) != 1 || string(defs[0].URI) != s.uri("geo/shapes.go") {
		t.Errorf("definition through the link: %+v, want %s", defs, s.uri("geo/shapes.go"))
	}
	res := s.search("area of a circle", 3)
	for _, h := range res.Hits {
		if !strings.HasPrefix(h.URI, workspace.PathToURI(link)+"/") || string(h.Location.URI) != h.URI {
			t.Errorf("hit %s (%s) is not under the link %s", h.URI, h.Location.URI, link)
		}
	}
	if len(res.Hits) == 0 {
		t.Error("no hits through the link")
	}
}

// TestImplementation answers textDocument/implementation from the code
// graph: the methods implementing an interface method, the types
// implementing an interface, at their names; nothing on a plain line.
func TestImplementation(t *testing.T) {
	_, s, _ := startBackend(t, nil)
	rect, shapes := s.fileText("geo/rect.go"), s.fileText("geo/shapes.go")
	impl := func(pos protocol.Position) []string {
		var locs []protocol.Location
		must(t, s.c.Call(testCtx(t), "textDocument/implementation", map[string]any{
			"textDocument": map[string]any{"uri": s.uri("geo/rect.go")}, "position": pos,
		}, &locs))
		var out []string
		for _, l := range locs {
			out = append(out, fmt.Sprintf("%s:%d:%d", strings.TrimPrefix(string(l.URI), s.uri("")+"/"), l.Range.Start.Line+1, l.Range.Start.Character+1))
		}
		slices.Sort(out)
		return out
	}
	rectArea := position(t, rect, "Area() float64 {", 0, 0)
	circleArea := position(t, shapes, "Area() float64 {", 0, 0)
	want := []string{
		fmt.Sprintf("geo/rect.go:%d:%d", rectArea.Line+1, rectArea.Character+1),
		fmt.Sprintf("geo/shapes.go:%d:%d", circleArea.Line+1, circleArea.Character+1),
	}
	if got := impl(position(t, rect, "Area() float64\n", 0, 0)); !slices.Equal(got, want) {
		t.Errorf("implementations of Shape.Area: %q, want %q", got, want)
	}
	rectType := position(t, rect, "Rect struct", 0, 0)
	circleType := position(t, shapes, "Circle struct", 0, 0)
	want = []string{
		fmt.Sprintf("geo/rect.go:%d:%d", rectType.Line+1, rectType.Character+1),
		fmt.Sprintf("geo/shapes.go:%d:%d", circleType.Line+1, circleType.Character+1),
	}
	if got := impl(position(t, rect, "Shape interface", 0, 0)); !slices.Equal(got, want) {
		t.Errorf("implementations of Shape: %q, want %q", got, want)
	}
	if got := impl(position(t, rect, "\n\n", 0, 1)); len(got) != 0 {
		t.Errorf("implementations on an empty line: %q", got)
	}
}
