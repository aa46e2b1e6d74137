package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/vectors"
)

// startBackend serves the fixture workspace in-process with a Backend and
// waits for the bootstrap index.
func startBackend(t *testing.T, initOptions map[string]any) (*harness, *session, *Backend) {
	t.Helper()
	b := NewBackend(BackendOptions{DBPath: t.TempDir(), Workers: 2})
	h := startServer(t, Options{Features: b.Features()})
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
	// Settings that do not touch the workspace rules keep the engine.
	f := b.openFolders()[0]
	f.mu.RLock()
	fe := f.fe
	f.mu.RUnlock()
	must(t, s.c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"contextLs": map[string]any{"ignore": []string{"util/"}, "dbPath": newDB, "budgetTokens": 9000, "embeddings": false}}}))
	s.workspaceSymbols("x") // an ordered barrier: the notification has been handled
	f.mu.RLock()
	same, settings := f.fe == fe, f.settings
	f.mu.RUnlock()
	if !same || settings.BudgetTokens != 9000 || settings.Embeddings {
		t.Errorf("engine replaced (%v) or settings not stored: %+v", !same, settings)
	}
	var st StatsResult
	must(t, s.command("contextLs.stats", nil, &st))
	if st.Folders[0].Embeddings != "off" {
		t.Errorf("embeddings %q after turning them off", st.Folders[0].Embeddings)
	}
}

func TestBackendMultiRoot(t *testing.T) {
	b := NewBackend(BackendOptions{DBPath: t.TempDir(), Workers: 2})
	h := startServer(t, Options{Features: b.Features()})
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
	if len(syms) > 0 && string(syms[0].Location.URI) != PathToURI(filepath.Join(two, "lib/area.py")) {
		t.Errorf("total_area at %s", syms[0].Location.URI)
	}
	// search spans both folders and says which holds each hit.
	res := s.search("total area", 10)
	folders := map[string]bool{}
	for _, hit := range res.Hits {
		folders[hit.Folder] = true
		if !strings.HasPrefix(hit.Location.URI, hit.Folder+"/") {
			t.Errorf("hit %s outside its folder %s", hit.Location.URI, hit.Folder)
		}
	}
	if !folders[PathToURI(one)] || !folders[PathToURI(two)] {
		t.Errorf("search hits from %v, want both folders: %s", folders, hitSymbols(res))
	}
	var st StatsResult
	must(t, s.command("contextLs.stats", nil, &st))
	if len(st.Folders) != 2 || st.Folders[0].URI != PathToURI(one) || st.Folders[1].Files != 1 {
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
		{"outside every folder", PathToURI(outside), "outside the workspace folders"},
		{"symlink out of the folder", PathToURI(link), "path outside workspace"},
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
	if rpcCode(err) != int64(CodeInvalidParams) || !strings.Contains(rpcMessage(err), "outside every workspace folder") {
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
	var reindex, remove []string
	for _, it := range plan.Folders[0].Reindex {
		reindex = append(reindex, it.Path)
		if it.Location.URI != s.uri(it.Path) {
			t.Errorf("item %s at %s", it.Path, it.Location.URI)
		}
	}
	for _, it := range plan.Folders[0].Remove {
		remove = append(remove, it.Path)
	}
	if !plan.DryRun || plan.JobID != "" || !reflect.DeepEqual(reindex, []string{"geo/rect.go", "geo/shapes.go", "geo/shapes_test.go"}) || !reflect.DeepEqual(remove, []string{"docs/guide.md"}) {
		t.Errorf("dry run %+v: reindex %v remove %v", plan, reindex, remove)
	}
	if res := s.search("Fixture guide", 5); len(res.Hits) == 0 || res.Hits[0].Path != "docs/guide.md" {
		t.Errorf("the dry run changed the index: %s", hitSymbols(res))
	}

	// A second reindex of a folder is refused while one runs: hold the
	// engine's index lock so the first stays queued.
	f := b.openFolders()[0]
	f.mu.RLock()
	fe := f.fe
	f.mu.RUnlock()
	fe.indexMu.Lock()
	var first ReindexResult
	must(t, s.commandWithToken("contextLs.reindex", map[string]any{"confirm": true, "paths": []string{"docs"}}, "tok-1", &first))
	err := s.command("contextLs.reindex", map[string]any{"confirm": true}, nil)
	fe.indexMu.Unlock()
	if !strings.Contains(rpcMessage(err), first.JobID) || !strings.Contains(rpcMessage(err), "already running") {
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
	if ep.Value.Message != first.JobID+" done: 0 files re-indexed, 1 removed, 0 failed" {
		t.Errorf("progress end %q", ep.Value.Message)
	}
	if res := s.search("Fixture guide", 5); len(res.Hits) > 0 && res.Hits[0].Path == "docs/guide.md" {
		t.Errorf("the removed file is still found: %s", hitSymbols(res))
	}
	// Once finished, a new reindex is accepted.
	var again ReindexResult
	must(t, s.command("contextLs.reindex", map[string]any{"confirm": true, "paths": []string{s.uri("geo/rect.go")}}, &again))
	if again.JobID == first.JobID || again.JobID == "" {
		t.Errorf("second job %+v", again)
	}
}

func TestBackendServerWatcher(t *testing.T) {
	b := NewBackend(BackendOptions{DBPath: t.TempDir(), Workers: 2})
	h := startServer(t, Options{Features: b.Features()})
	copyFixture(t, h.root)
	s := newSession(t, h.c, h.root)
	// No dynamic registration: the server watches files itself.
	must(t, s.c.Call(testCtx(t), "initialize", map[string]any{
		"capabilities":          clientCaps{progress: true}.json(),
		"workspaceFolders":      []map[string]string{{"uri": PathToURI(h.root), "name": "ws"}},
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
	s.insert("util/retry.py", "\ndef too_big():\n    pass\n"+strings.Repeat("# padding line\n", DefaultMaxFileSize/15+10))
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
	// Editing a file of a language the engine does not index is fine.
	writeFile(t, h.root, "notes.txt", "plain notes\n")
	s.didOpen("notes.txt", "plaintext")
	s.insert("notes.txt", "more notes\n")
	s.didClose("notes.txt")
	if st := h.status(); len(st.Documents) != 3 {
		t.Errorf("documents %+v", st.Documents)
	}
}

func TestBackendQueriesDuringBootstrap(t *testing.T) {
	b := NewBackend(BackendOptions{DBPath: t.TempDir(), Workers: 1})
	h := startServer(t, Options{Features: b.Features()})
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
	err := s.command("contextLs.similar", map[string]any{"text": "sum areas"}, nil)
	if rpcCode(err) != int64(CodeRequestFailed) || !strings.Contains(rpcMessage(err), "embeddings are not available (off") {
		t.Errorf("similar without embeddings: %v", err)
	}
	// Argument errors come first.
	bad := []struct {
		command string
		args    map[string]any
		want    string
	}{
		{"contextLs.callers", map[string]any{}, "textDocument: required (with position), or symbol"},
		{"contextLs.tests", map[string]any{"symbol": "Area", "limit": 5000}, "limit: must be between 1 and 1000"},
		{"contextLs.contextPack", map[string]any{}, "query: required without a place"},
		{"contextLs.contextPack", map[string]any{"query": "x", "task": "golf"}, "task: \"golf\" is not one of"},
		{"contextLs.contextPack", map[string]any{"query": "x", "format": "yaml"}, "format: \"yaml\" is not"},
		{"contextLs.contextPack", map[string]any{"query": "x", "folder": "file:///not/open"}, "folder: file:///not/open is not an open workspace folder"},
		{"contextLs.relatedContext", map[string]any{"symbol": "Area", "k": 500}, "k: must be between 1 and 200"},
		{"contextLs.unpin", map[string]any{"symbol": "TotalArea"}, "not pinned"},
		{"contextLs.pin", map[string]any{"uri": s.uri("geo/rect.go"), "position": map[string]any{"line": 1, "character": 0}}, "no definition here"},
		{"contextLs.search", map[string]any{"query": " "}, "query: required"},
		{"contextLs.search", map[string]any{"query": "x", "k": 1000}, "k: must be between 1 and 100"},
		{"contextLs.search", map[string]any{"query": "x", "paths": []string{"[bad"}}, "paths"},
		{"contextLs.definition", map[string]any{"position": map[string]any{"line": 0, "character": 0}}, "location.uri: required"},
		{"contextLs.definition", map[string]any{"location": map[string]any{"uri": s.uri("geo/rect.go"), "range": map[string]any{"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 3, "character": 0}}}, "position": map[string]any{"line": 2, "character": 0}}, "position.line: 2 is past the snippet's last line 1"},
		{"contextLs.reindex", map[string]any{"confirm": true, "paths": []string{"no/such/file.go"}}, "not found in any"},
		{"contextLs.similar", map[string]any{"uri": s.uri("geo/rect.go"), "position": map[string]any{"line": 1, "character": 0}}, "no definition here"},
		{"contextLs.similar", map[string]any{"symbol": "NoSuchThing"}, "no definition named"},
		{"contextLs.similar", map[string]any{"text": "x", "k": -1}, "k: must be between"},
	}
	for _, tc := range bad {
		err := s.command(tc.command, tc.args, nil)
		if rpcCode(err) != int64(CodeInvalidParams) || !strings.Contains(rpcMessage(err), tc.want) {
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
	// s.Area() inside TotalArea: a name lookup cannot type s, so the
	// Area definitions of the same file answer (Rect.Area and the
	// interface method Shape.Area), not those further away.
	defs := s.definition("geo/rect.go", position(t, rect, "s.Area()", 0, 2))
	want := []protocol.Range{
		{Start: position(t, rect, "Area() float64 {", 0, 0), End: position(t, rect, "Area() float64 {", 0, 4)},
		{Start: position(t, rect, "Area() float64\n", 0, 0), End: position(t, rect, "Area() float64\n", 0, 4)},
	}
	if len(defs) != 2 || string(defs[0].URI) != s.uri("geo/rect.go") || defs[0].Range != want[0] || defs[1].Range != want[1] {
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

func TestSnippetRange(t *testing.T) {
	file := "package p\n\nclass A:\n    def m(self):\n        return 1\n\n😀 x = 1\n"
	m := NewMapper([]byte(file))
	tests := []struct {
		name string
		m    *Mapper
		line int
		text string
		want Range
	}{
		{"indented method", m, 3, "def m(self):\n        return 1", Range{Point{3, 4}, Point{4, 16}}},
		{"whole lines", m, 2, "class A:\n    def m(self):\n", Range{Point{2, 0}, Point{4, 0}}},
		{"after an emoji, in bytes", m, 6, "x = 1", Range{Point{6, 5}, Point{6, 10}}},
		{"text no longer matches", m, 0, "package q", Range{Point{0, 0}, Point{0, 9}}},
		{"unknown content", nil, 5, "a\nbc", Range{Point{5, 0}, Point{6, 2}}},
		{"line past the end", m, 40, "zz", Range{Point{40, 0}, Point{40, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := snippetRange(tc.m, tc.line, tc.text); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func FuzzSnippetRange(f *testing.F) {
	f.Add("a\n  b\nc", 1, "b\nc")
	f.Add("😀x\r\ny", 0, "x")
	f.Add("", 3, "")
	f.Fuzz(func(t *testing.T, file string, line int, text string) {
		if line < 0 || line > 1<<20 {
			return
		}
		r := snippetRange(NewMapper([]byte(file)), line, text)
		if r.Start.Line != line || pointLess(r.End, r.Start) || r.Start.Column < 0 {
			t.Fatalf("range %+v for line %d text %q", r, line, text)
		}
		if r.End.Line-r.Start.Line != strings.Count(text, "\n") {
			t.Fatalf("range %+v spans the wrong number of lines for %q", r, text)
		}
	})
}

func TestSymbolTree(t *testing.T) {
	span := func(l0, c0, l1, c1 int) symbols.Span {
		return symbols.Span{Start: symbols.Point{Line: l0, Column: c0}, End: symbols.Point{Line: l1, Column: c1}, StartByte: l0*100 + c0, EndByte: l1*100 + c1}
	}
	syms := []engine.SymbolInfo{
		{Symbol: symbols.Symbol{Name: "A", Kind: "class", Span: span(0, 0, 9, 0), NameSpan: span(0, 6, 0, 7), Parent: -1}},
		{Symbol: symbols.Symbol{Name: "m", Kind: "method", Signature: "def m(self)", Span: span(1, 4, 2, 0), NameSpan: span(1, 8, 1, 9), Parent: 0}},
		{Symbol: symbols.Symbol{Name: "inner", Kind: "function", Span: span(1, 10, 1, 20), NameSpan: span(1, 14, 1, 19), Parent: 1}},
		{Symbol: symbols.Symbol{Name: "f", Kind: "function", Span: span(10, 0, 11, 0), Parent: -1}},
		// A name outside the definition is clamped; a forward parent is a root.
		{Symbol: symbols.Symbol{Name: "odd", Kind: "var", Span: span(12, 0, 12, 5), NameSpan: span(13, 0, 13, 3), Parent: 7}},
	}
	got := symbolTree(syms)
	if len(got) != 3 || got[0].Name != "A" || got[1].Name != "f" || got[2].Name != "odd" {
		t.Fatalf("roots %+v", got)
	}
	m := got[0].Children
	if len(m) != 1 || m[0].Name != "m" || m[0].Detail != "def m(self)" || len(m[0].Children) != 1 || m[0].Children[0].Name != "inner" {
		t.Errorf("children %+v", m)
	}
	if got[1].SelectionRange != (Range{Point{10, 0}, Point{10, 0}}) {
		t.Errorf("selection without a name span %+v", got[1].SelectionRange)
	}
	if got[2].SelectionRange != (Range{Point{12, 0}, Point{12, 0}}) {
		t.Errorf("selection outside the range %+v", got[2].SelectionRange)
	}
}

func TestFolderConfig(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".context-ls.toml", "ignore = [\"vendor/\"]\nmaxFileSize = \"2MiB\"\nbogus = 1\n")
	tests := []struct {
		name      string
		settings  Settings
		env       string
		ignore    []string
		maxSize   int64
		embed     bool
		problemIn string
	}{
		{"defaults keep the file's values", DefaultSettings(), "", []string{"vendor/"}, 2 << 20, true, "bogus"},
		{"settings add patterns and override", func() Settings {
			s := DefaultSettings()
			s.Ignore, s.MaxFileSize, s.Embeddings = []string{"gen/"}, 4096, false
			return s
		}(), "", []string{"vendor/", "gen/"}, 4096, false, ""},
		{"environment turns embeddings off", DefaultSettings(), "off", []string{"vendor/"}, 2 << 20, false, ""},
		{"bad settings are reported", func() Settings {
			s := DefaultSettings()
			s.Ignore = []string{" "}
			return s
		}(), "", []string{"vendor/"}, 2 << 20, true, "settings: ignore"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONTEXT_LS_EMBEDDINGS", tc.env)
			cfg, problems, err := folderConfig(root, tc.settings)
			must(t, err)
			if !reflect.DeepEqual(cfg.Ignore, tc.ignore) || cfg.MaxFileSize != tc.maxSize || cfg.Embeddings != tc.embed {
				t.Errorf("config ignore %v size %d embeddings %v", cfg.Ignore, cfg.MaxFileSize, cfg.Embeddings)
			}
			if tc.problemIn != "" && !strings.Contains(strings.Join(problems, "\n"), tc.problemIn) {
				t.Errorf("problems %v lack %q", problems, tc.problemIn)
			}
		})
	}
	// An unreadable configuration is an error.
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, ".context-ls.toml"), 0o755))
	if _, _, err := folderConfig(dir, DefaultSettings()); err == nil {
		t.Error("a directory as configuration file was accepted")
	}
}

func TestDBDirFor(t *testing.T) {
	b := NewBackend(BackendOptions{DBPath: "/var/idx"})
	s := DefaultSettings()
	a1, a2 := b.dbDirFor("/w/a", s, ""), b.dbDirFor("/x/a", s, "")
	if !strings.HasPrefix(a1, "/var/idx/a-") || a1 == a2 || a1 != b.dbDirFor("/w/a", s, "") {
		t.Errorf("dirs %s %s", a1, a2)
	}
	s.DBPath = ".cache/idx"
	if got := b.dbDirFor("/w/a", s, ""); !strings.HasPrefix(got, "/w/a/.cache/idx/a-") {
		t.Errorf("relative dbPath: %s", got)
	}
	if got := NewBackend(BackendOptions{}).dbDirFor("/w/a", DefaultSettings(), ""); got != "" {
		t.Errorf("no dbPath: %q", got)
	}
	// The workspace file's dbPath comes last.
	if got := NewBackend(BackendOptions{}).dbDirFor("/w/a", DefaultSettings(), ".idx"); !strings.HasPrefix(got, "/w/a/.idx/a-") {
		t.Errorf(".context-ls.toml dbPath: %s", got)
	}
	if got := b.dbDirFor("/w/a", DefaultSettings(), ".idx"); !strings.HasPrefix(got, "/var/idx/a-") {
		t.Errorf("serve --db before the file's dbPath: %s", got)
	}
}

func TestHandleOf(t *testing.T) {
	if _, err := handleOf(&fakeFolder{}); !errors.Is(err, ErrNotEngineFolder) {
		t.Errorf("foreign handle: %v", err)
	}
	f := &backendFolder{root: "/r"}
	f.closed.Store(true)
	if _, err := handleOf(f); !errors.Is(err, ErrFolderUnavailable) {
		t.Errorf("closed folder: %v", err)
	}
}

func TestCommandsNeedTheBackend(t *testing.T) {
	h := startServer(t, Options{Features: (&fakeBackend{}).features()})
	h.initialize(clientCaps{}, nil)
	err := h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "contextLs.search", "arguments": []any{map[string]any{"query": "x"}}}, nil)
	if !strings.Contains(rpcMessage(err), ErrNotEngineFolder.Error()) {
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
		return st.Folders[0].Embeddings == "ready", st.Folders[0].Embeddings
	})
	fs := st.Folders[0]
	if fs.Vectors.Vectors < fs.Chunks || !strings.HasPrefix(fs.Vectors.Model, "use-lite@") || fs.CacheHit.Value == nil {
		t.Errorf("vector stats %+v, cache %+v, chunks %d", fs.Vectors, fs.CacheHit, fs.Chunks)
	}

	var res SearchResult
	must(t, s.command("contextLs.similar", map[string]any{"text": "try the upload again after it fails, waiting longer each time", "k": 3}, &res))
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
	root := PathToURI(s.root)
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
			out = append(out, it.Name)
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
					if len(it.CallSites) != 1 || it.CallSites[0].URI != s.uri("cmd/app/main.go") {
						t.Errorf("call sites of %s: %+v", it.Name, it.CallSites)
					}
				}
			}},
		{"tests of a symbol", "contextLs.tests", map[string]any{"symbol": "geo.NewCircle"},
			"NewCircle", []string{"TestCircleArea"}, func(t *testing.T, g GraphTarget) {
				if it := g.Items[0]; it.Reason != "direct" || it.Kind != "test" || it.Location.URI != s.uri("geo/shapes_test.go") {
					t.Errorf("test %+v", it)
				}
			}},
		{"callers in Python through a receiver", "contextLs.callers", map[string]any{"symbol": "Backoff.delay"},
			"Backoff.delay", []string{"retry_upload"}, nil},
		{"a limit leaves items out", "contextLs.callers", map[string]any{"symbol": "NewCircle", "limit": 1},
			"NewCircle", []string{"main"}, func(t *testing.T, g GraphTarget) {
				if g.Omitted != 1 {
					t.Errorf("omitted %d, want 1", g.Omitted)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res GraphAnswer
			must(t, s.command(tc.command, tc.args, &res))
			if len(res.Targets) != 1 || res.Targets[0].Symbol != tc.target || !reflect.DeepEqual(names(res.Targets[0]), tc.items) {
				t.Fatalf("got %+v, want %s with %v", res, tc.target, tc.items)
			}
			if tc.check != nil {
				tc.check(t, res.Targets[0])
			}
		})
	}
	err := s.command("contextLs.callers", map[string]any{"symbol": "NoSuchFunction"}, nil)
	if !strings.Contains(rpcMessage(err), `"NoSuchFunction": no such symbol`) {
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
		if !containsRange(Range{Start: Point{int(o.To.Range.Start.Line), int(o.To.Range.Start.Character)}, End: Point{int(o.To.Range.End.Line), int(o.To.Range.End.Character)}},
			Range{Start: Point{int(o.To.SelectionRange.Start.Line), int(o.To.SelectionRange.Start.Character)}, End: Point{int(o.To.SelectionRange.End.Line), int(o.To.SelectionRange.End.Character)}}) {
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
	must(t, s.command("contextLs.contextPack", map[string]any{"query": "area of a circle", "budgetTokens": 400}, &pack))
	if pack.Tokens > 400 || pack.Budget != 400 || len(pack.Items) == 0 || !strings.Contains(pack.Text, "func (c Circle) Area() float64") {
		t.Fatalf("pack %+v", pack)
	}
	for _, it := range pack.Items {
		if it.Location.URI != s.uri(it.Path) || it.Location.Range.End.Line < it.Location.Range.Start.Line {
			t.Errorf("item %+v", it)
		}
	}

	// Related context of a definition at a position: its caller and its
	// test, with reasons and text.
	var rel RelatedResult
	must(t, s.command("contextLs.relatedContext", map[string]any{"uri": s.uri("geo/shapes.go"), "position": position(t, shapes, "NewCircle", 1, 0)}, &rel))
	if rel.Symbol != "NewCircle" || rel.Selection.URI != s.uri("geo/shapes.go") || rel.Selection.Range.Start.Line != 11 {
		t.Errorf("related selection %+v %q", rel.Selection, rel.Symbol)
	}
	kinds := map[string]PackItem{}
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
	must(t, s.command("contextLs.contextPack", map[string]any{"query": "area of a circle", "budgetTokens": 2000}, &pack))
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

	// Stats average the packs built.
	var st StatsResult
	must(t, s.command("contextLs.stats", nil, &st))
	if v := st.Folders[0].PackTokens.Value; v == nil || *v <= 0 || *v > 2000 {
		t.Errorf("average pack tokens %+v", st.Folders[0].PackTokens)
	}
}
