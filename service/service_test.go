package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/workspace"
)

// newService indexes a copy of the fixture (embeddings off) and returns
// its service.
func newService(t *testing.T, files map[string]string) *Service {
	t.Helper()
	root := testutil.WriteTree(t, files)
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	ctx := context.Background()
	e, err := engine.Open(ctx, root, engine.Options{DBDir: t.TempDir(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// call runs op through Call with a JSON request, as the socket and the
// MCP server do, and decodes its result.
func call[Res any](t *testing.T, s *Service, op, req string) (*Res, error) {
	t.Helper()
	raw, err := s.Call(context.Background(), op, json.RawMessage(req))
	if err != nil {
		return nil, err
	}
	var res Res
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s: result %s: %v", op, raw, err)
	}
	return &res, nil
}

func mustCall[Res any](t *testing.T, s *Service, op, req string) *Res {
	t.Helper()
	res, err := call[Res](t, s, op, req)
	if err != nil {
		t.Fatalf("%s %s: %v", op, req, err)
	}
	return res
}

// TestArguments checks the rules every front end gets: each bad request
// is a CodeInvalid error naming the argument, with a message a person can
// act on.
func TestArguments(t *testing.T) {
	s := newService(t, testutil.Billing)
	for _, tc := range []struct {
		op, req, field, msg string
	}{
		{"search", `{}`, "query", "required"},
		{"search", `{"query":"x","k":0}`, "k", "between 1 and 100, got 0"},
		{"search", `{"query":"x","k":101}`, "k", "between 1 and 100, got 101"},
		{"search", `{"query":"x","k":2.5}`, "k", "must be an integer"},
		{"search", `{"query":"x","k":"3"}`, "k", "must be an integer, got a string"},
		{"search", `{"query":"x","kk":3}`, "kk", "unknown argument; the arguments are: query, k, paths"},
		{"search", `{"query":"x","paths":["a",7]}`, "paths[1]", "must be a string"},
		{"search", `[1]`, "arguments", "must be an object"},
		{"stats", `{"x":1}`, "x", "this operation takes no arguments"},
		{"pack", `{"query":"x","format":"yaml"}`, "format", "markdown, xml, json, plain"},
		{"pack", `{"query":"x","budget":5}`, "budget", "between 100 and 1000000, got 5"},
		{"search", `{"query":"` + strings.Repeat("x", 100001) + `"}`, "query", "longer than"},
		{"callers", `{"file":"billing/invoice.go","line":99999999999999999999}`, "line", "must be an integer"},
		{"callers", `{"file":"../outside.go","line":1}`, "file", "outside the workspace"},
		{"callers", `{}`, "", "symbol"},
		{"hover", `{"file":"billing/invoice.go","line":1}`, "column", "required"},
		{"pack", `{"file":"billing/invoice.go","lines":"9-x"}`, "lines", "A-B"},
		{"pack", `{"file":"billing/invoice.go","lines":"9-3"}`, "lines", "9-3"},
		{"reindex", `{}`, "confirm", "must be true"},
		{"job", `{"jobId":"reindex-0-0"}`, "jobId", "no reindex job"},
		{"refresh", fmt.Sprintf(`{"paths":[%s"x"]}`, strings.Repeat(`"x",`, 10000)), "paths", "more than 10000 items"},
	} {
		_, err := s.Call(context.Background(), tc.op, json.RawMessage(tc.req))
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%s %.80s: error %v, want a *service.Error", tc.op, tc.req, err)
			continue
		}
		if se.Code != CodeInvalid && !(tc.field == "jobId" && se.Code == CodeNotFound) {
			t.Errorf("%s %.80s: code %s, want %s (%v)", tc.op, tc.req, se.Code, CodeInvalid, err)
		}
		if tc.field != "" && se.Field != tc.field {
			t.Errorf("%s %.80s: field %q, want %q (%v)", tc.op, tc.req, se.Field, tc.field, err)
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %.80s: %q does not say %q", tc.op, tc.req, err, tc.msg)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %.80s: message of several lines: %q", tc.op, tc.req, err)
		}
	}
	if _, err := s.Call(context.Background(), "nope", nil); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "search") {
		t.Errorf("unknown operation: %v, want ErrInvalid listing the operations", err)
	}
}

// TestDefaultsMeetTheSameRules: a request built in Go (flags, LSP
// arguments) gets the defaults and the checks decoded JSON gets.
func TestDefaultsMeetTheSameRules(t *testing.T) {
	req := SearchRequest{Query: "x"}
	if err := check(&req); err != nil || req.K != 10 {
		t.Fatalf("check: %v, k %d; want k 10 by default", err, req.K)
	}
	req = SearchRequest{Query: "x", K: 500}
	if err := check(&req); err == nil || !strings.Contains(err.Error(), "k") {
		t.Fatalf("k 500 from Go: %v, want an error naming k", err)
	}
	r := RefreshRequest{}
	if err := check(&r); err != nil || r.Sync == nil || !*r.Sync {
		t.Fatalf("refresh: %v, sync %v; want sync true by default", err, r.Sync)
	}
}

func TestErrorsRoundTrip(t *testing.T) {
	for _, err := range []error{
		invalid("k", "at most 100"),
		notFound("symbol", "no definition named %q", "Nope"),
		unavailable(errors.New("disk full"), "the index cannot be written"),
		fmt.Errorf("wrapped: %w", context.Canceled),
		errors.New("plain failure"),
	} {
		back := DecodeError(EncodeError(err))
		var a, b *Error
		errors.As(classify("", "", err), &a)
		if !errors.As(back, &b) {
			t.Fatalf("%v came back as %T", err, back)
		}
		if back.Error() != err.Error() {
			t.Errorf("message %q came back as %q", err, back)
		}
		if a != nil && (a.Code != b.Code || a.Field != b.Field) {
			t.Errorf("%v: code/field %s/%s came back as %s/%s", err, a.Code, a.Field, b.Code, b.Field)
		}
	}
	if back := DecodeError(EncodeError(invalid("k", "x"))); !errors.Is(back, ErrInvalid) {
		t.Errorf("an invalid error is not ErrInvalid after the round trip: %v", back)
	}
	if back := DecodeError(EncodeError(context.Canceled)); !errors.Is(back, ErrCancelled) {
		t.Errorf("cancellation is not ErrCancelled after the round trip: %v", back)
	}
}

func TestParseLines(t *testing.T) {
	for _, tc := range []struct {
		in         string
		start, end int
		err        string
	}{
		{"12", 12, 12, ""},
		{"3-9", 3, 9, ""},
		{" 3 - 9 ", 3, 9, ""},
		{"9-3", 0, 0, "ends before it starts"},
		{"0-2", 0, 0, "lines start at 1"},
		{"a-b", 0, 0, "A-B"},
		{"1-99999999999999999999", 0, 0, "larger than any file's line count"},
		{"", 0, 0, ""},
	} {
		s, e, err := ParseLines("lines", tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseLines(%q) = %d, %d, %v; want an error saying %q", tc.in, s, e, err, tc.err)
			}
			continue
		}
		if err != nil || s != tc.start || e != tc.end {
			t.Errorf("ParseLines(%q) = %d, %d, %v; want %d, %d", tc.in, s, e, err, tc.start, tc.end)
		}
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Target
		err  string
	}{
		{"Total", Target{Symbol: "Total"}, ""},
		{"billing.Total", Target{Symbol: "billing.Total"}, ""},
		{"billing/invoice.go:10", Target{File: "billing/invoice.go", Line: 10}, ""},
		{"billing/invoice.go:10:7", Target{File: "billing/invoice.go", Line: 10, Column: 7}, ""},
		{"a:12:3.go:5", Target{File: "a:12:3.go", Line: 5}, ""},
		{`C:\src\a.go:5:2`, Target{File: `C:\src\a.go`, Line: 5, Column: 2}, ""},
		{"billing/invoice.go", Target{File: "billing/invoice.go"}, ""},
		{"names/new\nline.go:4", Target{File: "names/new\nline.go", Line: 4}, ""}, // issue 29
		{"names/new\nline.go:4:2", Target{File: "names/new\nline.go", Line: 4, Column: 2}, ""},
		{"billing/invoice.go:0", Target{}, "lines start at 1"},
		{"billing/invoice.go:99999999999999999999", Target{}, "larger than any file's line count"},
	} {
		got, err := ParseTarget(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseTarget(%q) = %+v, %v; want an error saying %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// TestNoSecretInAnyResult asks every read operation about the code that
// holds the planted secret: snippets, signatures, doc comments, pack text
// and pack items are all scrubbed by the service, whatever the front end.
func TestNoSecretInAnyResult(t *testing.T) {
	s := newService(t, testutil.Billing)
	reqs := []struct{ op, req string }{
		{"search", `{"query":"paymentToken payment API Charge"}`},
		{"related", `{"file":"billing/charge.go","line":10}`},
		{"pack", `{"query":"charge the customer payment token"}`},
		{"pack", `{"query":"charge the customer payment token","format":"json"}`},
		{"pack", `{"file":"billing/charge.go","lines":"1-12","format":"xml"}`},
		{"callees", `{"symbol":"Charge"}`},
		{"callers", `{"symbol":"Total"}`},
		{"hover", `{"file":"billing/charge.go","line":6,"column":8}`},
		{"definition", `{"file":"billing/charge.go","line":10,"column":20}`},
		{"symbols", `{"file":"billing/charge.go"}`},
		{"symbols", `{"query":"paymentToken"}`},
		{"symbols", `{}`},
	}
	for _, r := range reqs {
		raw, err := s.Call(context.Background(), r.op, json.RawMessage(r.req))
		if err != nil {
			t.Errorf("%s %s: %v", r.op, r.req, err)
			continue
		}
		if strings.Contains(string(raw), testutil.BillingSecret) || strings.Contains(string(raw), testutil.BillingSecret[4:20]) {
			t.Errorf("%s %s shows the planted secret:\n%s", r.op, r.req, raw)
		}
	}
	// The secret's definition is still found, only its value is hidden.
	res := mustCall[SymbolsResult](t, s, "symbols", `{"name":"paymentToken"}`)
	if len(res.Symbols) != 1 || res.Symbols[0].Path != "billing/charge.go" {
		t.Fatalf("paymentToken: %+v", res.Symbols)
	}
}

// TestColumnsCountCharacters: the call of Total sits after "é" on its
// line; columns are characters, not bytes, in every result.
func TestColumnsCountCharacters(t *testing.T) {
	s := newService(t, testutil.Billing)
	line := strings.Split(testutil.Billing["billing/charge.go"], "\n")[9]
	want := len([]rune(line[:strings.Index(line, "Total")])) + 1 // 1-based character column
	if want == strings.Index(line, "Total")+1 {
		t.Fatal("the fixture line must have a non-ASCII character before the call")
	}
	res := mustCall[GraphResult](t, s, "callers", `{"symbol":"Total"}`)
	var site *Location
	for _, tg := range res.Results {
		for _, it := range tg.Items {
			if it.Path == "billing/charge.go" && len(it.Sites) > 0 {
				site = &it.Sites[0]
			}
		}
	}
	if site == nil {
		t.Fatalf("no call site of Total in billing/charge.go: %+v", res)
	}
	if site.StartLine != 10 || site.StartColumn != want || site.EndColumn != want+len("Total") {
		t.Errorf("call site %+v, want line 10 columns %d-%d", *site, want, want+len("Total"))
	}
	// Definition at that character column finds Total.
	def := mustCall[DefinitionResult](t, s, "definition", fmt.Sprintf(`{"file":"billing/charge.go","line":10,"column":%d}`, want+1))
	if def.Identifier != "Total" || len(def.Definitions) == 0 || def.Definitions[0].Path != "billing/invoice.go" {
		t.Errorf("definition at 10:%d = %+v, want Total in billing/invoice.go", want+1, def)
	}
	if def.Range.StartColumn != want {
		t.Errorf("identifier range %+v, want start column %d", def.Range, want)
	}
}

// TestPackJSONAndExclude: format json renders the items as JSON and
// carries each item's text in the items too, and an item excluded by
// PATH:A-B does not come back.
func TestPackJSONAndExclude(t *testing.T) {
	s := newService(t, testutil.Billing)
	res := mustCall[PackResult](t, s, "pack", `{"query":"invoice total of the items","format":"json","budget":2000}`)
	if res.Format != "json" || len(res.Items) == 0 {
		t.Fatalf("json pack: format %q, %d items", res.Format, len(res.Items))
	}
	// The text is the pack to paste: the items as a JSON array.
	var rendered []struct {
		Path string `json:"path"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(res.Text), &rendered); err != nil || len(rendered) != len(res.Items) {
		t.Fatalf("json pack text is not the items as JSON (%v): %q", err, res.Text)
	}
	var total *PackItem
	for i, it := range res.Items {
		if it.Text == "" {
			t.Errorf("item %d (%s) has no text", i, it.Path)
		}
		if it.Symbol == "Total" || strings.HasSuffix(it.Symbol, ".Total") {
			total = &res.Items[i]
		}
	}
	if total == nil {
		t.Fatalf("no item for Total: %+v", res.Items)
	}
	ex := fmt.Sprintf("%s:%d-%d", total.Path, total.StartLine, total.EndLine)
	again := mustCall[PackResult](t, s, "pack", `{"query":"invoice total of the items","format":"json","budget":2000,"exclude":["`+ex+`"]}`)
	if again.Excluded == 0 {
		t.Errorf("exclude %s: excluded 0", ex)
	}
	for _, it := range again.Items {
		if it.Path == total.Path && it.StartLine <= total.EndLine && total.StartLine <= it.EndLine {
			t.Errorf("exclude %s: item %s:%d-%d came back", ex, it.Path, it.StartLine, it.EndLine)
		}
	}
	whole := mustCall[PackResult](t, s, "pack", `{"query":"invoice total of the items","format":"json","exclude":["billing/invoice.go"]}`)
	for _, it := range whole.Items {
		if it.Path == "billing/invoice.go" {
			t.Errorf("exclude billing/invoice.go: item %s:%d-%d came back", it.Path, it.StartLine, it.EndLine)
		}
	}
	if _, err := call[PackResult](t, s, "pack", `{"query":"x","exclude":["billing/invoice.go:x-y"]}`); !errors.Is(err, ErrInvalid) {
		t.Errorf("exclude with bad lines: %v, want ErrInvalid", err)
	}
}

func TestPins(t *testing.T) {
	s := newService(t, testutil.Billing)
	res := mustCall[PinsResult](t, s, "pin", `{"symbol":"Total"}`)
	if len(res.Pins) != 1 || res.Pins[0].Path != "billing/invoice.go" || res.Pins[0].Tokens == 0 || res.Tokens != res.Pins[0].Tokens {
		t.Fatalf("pin Total: %+v", res)
	}
	res = mustCall[PinsResult](t, s, "pin", `{"file":"README.md"}`)
	if len(res.Pins) != 2 || res.Pins[1].Lines != "" {
		t.Fatalf("pin README.md: %+v", res)
	}
	pack := mustCall[PackResult](t, s, "pack", `{"query":"unrelated words","format":"json"}`)
	pinned := 0
	for _, it := range pack.Items {
		if it.Source == "pinned" {
			pinned++
		}
	}
	if pinned != 2 {
		t.Errorf("pack holds %d pinned items, want 2: %+v", pinned, pack.Items)
	}
	if _, err := call[PinsResult](t, s, "unpin", `{"symbol":"Charge"}`); !errors.Is(err, ErrNotFound) {
		t.Errorf("unpin of what is not pinned: %v, want ErrNotFound", err)
	}
	if _, err := call[PinsResult](t, s, "unpin", `{"all":true,"file":"README.md"}`); !errors.Is(err, ErrInvalid) {
		t.Errorf("unpin all with a file: %v, want ErrInvalid", err)
	}
	// A pin whose file is gone is listed with an error and unpinned by its
	// path (and lines) as listed.
	if err := os.Remove(filepath.Join(s.Root(), "README.md")); err != nil {
		t.Fatal(err)
	}
	res = mustCall[PinsResult](t, s, "pins", `{}`)
	if len(res.Pins) != 2 || res.Pins[1].Error == "" {
		t.Fatalf("pins after README.md was deleted: %+v", res)
	}
	res = mustCall[PinsResult](t, s, "unpin", `{"file":"README.md"}`)
	if len(res.Pins) != 1 || res.Pins[0].Path != "billing/invoice.go" {
		t.Fatalf("unpin of a pin whose file is gone: %+v", res)
	}
	total := res.Pins[0]
	res = mustCall[PinsResult](t, s, "unpin", fmt.Sprintf(`{"file":"billing/invoice.go","lines":%q}`, total.Lines))
	if len(res.Pins) != 0 {
		t.Fatalf("unpin by the lines pins lists: %+v", res)
	}
	mustCall[PinsResult](t, s, "pin", `{"symbol":"Charge"}`)
	res = mustCall[PinsResult](t, s, "unpin", `{"all":true}`)
	if len(res.Pins) != 0 || res.Tokens != 0 {
		t.Errorf("unpin all: %+v", res)
	}
}

// TestReindexOneJobAtATime: while a job of the index is queued (a scan
// holds the index), a second reindex is refused with the first job's id;
// the first then runs to done.
func TestReindexOneJobAtATime(t *testing.T) {
	s := newService(t, testutil.Billing)
	unlock, err := s.Engine().LockScan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	first := mustCall[ReindexResult](t, s, "reindex", `{"confirm":true}`)
	if first.Status != "started" || first.JobID == "" {
		unlock()
		t.Fatalf("reindex: %+v", first)
	}
	_, err = call[ReindexResult](t, s, "reindex", `{"confirm":true,"paths":["billing"]}`)
	unlock()
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), first.JobID) {
		t.Fatalf("second reindex: %v, want ErrUnavailable naming %s", err, first.JobID)
	}
	testutil.Poll(t, "the reindex job to finish", time.Minute, func() (bool, string) {
		st := mustCall[JobStatus](t, s, "job", `{"jobId":"`+first.JobID+`"}`)
		return st.Status == "done", fmt.Sprintf("%+v", st)
	})
	st := mustCall[JobStatus](t, s, "job", `{"jobId":"`+first.JobID+`"}`)
	if st.Indexed != 4 || st.Failed != 0 {
		t.Errorf("job: %+v, want 4 files indexed", st)
	}
	dry := mustCall[ReindexResult](t, s, "reindex", `{"dryRun":true,"paths":["billing"]}`)
	if dry.Status != "planned" || dry.ReindexCount != 3 || len(dry.Reindex) != 3 {
		t.Errorf("dry run: %+v, want the 3 files of billing planned", dry)
	}
}

// TestRefreshOfManyMissingPaths: ten thousand paths that do not exist
// (a branch switch deleting a tree) are answered in one pass, each once.
func TestRefreshOfManyMissingPaths(t *testing.T) {
	s := newService(t, testutil.Billing)
	paths := make([]string, 0, 10000)
	for i := 0; i < 5000; i++ {
		p := fmt.Sprintf(`"gone/dir%d/f%d.go"`, i%50, i)
		paths = append(paths, p, p)
	}
	res := mustCall[RefreshResult](t, s, "refresh", `{"paths":[`+strings.Join(paths, ",")+`]}`)
	if len(res.Files) != 5000 {
		t.Fatalf("refresh of 5000 distinct missing paths answered %d", len(res.Files))
	}
	for _, f := range res.Files[:3] {
		if f.Outcome != "not found" {
			t.Errorf("%s: %s, want not found", f.Path, f.Outcome)
		}
	}
	// A file deleted on disk leaves the index on refresh.
	if err := os.Remove(filepath.Join(s.Root(), "README.md")); err != nil {
		t.Fatal(err)
	}
	res = mustCall[RefreshResult](t, s, "refresh", `{"paths":["README.md"]}`)
	if len(res.Files) != 1 || res.Files[0].Outcome != "removed" {
		t.Errorf("refresh of a deleted file: %+v", res.Files)
	}
}

// TestIndexBeside: a query run beside an update that writes nothing keeps
// its answer; one beside an update that writes (a file changed on disk)
// must run again, and then sees the change.
func TestIndexBeside(t *testing.T) {
	s := newService(t, map[string]string{"pkg/a.go": "package pkg\n\n// Alpha greets.\nfunc Alpha() string { return \"hi\" }\n"})
	ctx := context.Background()
	search := func() (*SearchResult, error) {
		return Do[SearchResult](ctx, s, OpSearch, SearchRequest{Query: "Bravo", K: 5})
	}
	var res *SearchResult
	query := func() (err error) {
		res, err = search()
		return err
	}
	current, err := s.IndexBeside(ctx, IndexRequest{}, query)
	if err != nil || !current {
		t.Fatalf("unchanged workspace: current = %v, %v; want true", current, err)
	}
	if len(res.Hits) != 0 {
		t.Fatalf("hits for Bravo before it exists: %+v", res.Hits)
	}
	testutil.WriteFiles(t, s.Root(), map[string]string{"pkg/b.go": "package pkg\n\n// Bravo answers.\nfunc Bravo() string { return \"yes\" }\n"})
	if current, err = s.IndexBeside(ctx, IndexRequest{}, query); err != nil || current {
		t.Fatalf("changed workspace: current = %v, %v; want false", current, err)
	}
	if err := query(); err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Location.Path != "pkg/b.go" {
		t.Fatalf("after the update, Bravo = %+v", res.Hits)
	}
	failing := func() error { return errors.New("query failed") }
	if current, err = s.IndexBeside(ctx, IndexRequest{}, failing); err != nil || current {
		t.Fatalf("failed query: current = %v, %v; want false (run it again)", current, err)
	}
}

// TestReferences: the references of Total are its two call sites (the
// charge, behind non-ASCII text, and the test), each located by character
// columns, grouped by the definition holding them; declaration adds its
// own name first; limit cuts them; a position on a call names the same
// definition as its symbol.
func TestReferences(t *testing.T) {
	s := newService(t, testutil.Billing)
	res := mustCall[ReferencesResult](t, s, "references", `{"symbol":"Total","declaration":true}`)
	if len(res.Results) != 1 {
		t.Fatalf("results: %+v", res.Results)
	}
	rt := res.Results[0]
	if rt.Definition.Symbol != "Total" || rt.Definition.Path != "billing/invoice.go" {
		t.Fatalf("definition %+v", rt.Definition)
	}
	line := strings.Split(testutil.Billing["billing/charge.go"], "\n")[9]
	col := len([]rune(line[:strings.Index(line, "Total")])) + 1
	var got []string
	for _, r := range rt.References {
		got = append(got, fmt.Sprintf("%s:%d:%d-%d %s %s", r.Path, r.StartLine, r.StartColumn, r.EndColumn, r.In, r.Kind))
		if !strings.HasPrefix(r.URI, "file://") {
			t.Errorf("reference without a URI: %+v", r)
		}
	}
	sort.Strings(got[1:])
	want := []string{
		"billing/invoice.go:10:6-11 Total declaration",
		fmt.Sprintf("billing/charge.go:10:%d-%d Charge function", col, col+len("Total")),
		"billing/invoice_test.go:6:5-10 TestTotal function",
	}
	sort.Strings(want[1:])
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("references:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	at := mustCall[ReferencesResult](t, s, "references", fmt.Sprintf(`{"file":"billing/charge.go","line":10,"column":%d}`, col))
	if len(at.Results) != 1 || len(at.Results[0].References) != 2 || at.Results[0].Definition.Symbol != "Total" {
		t.Errorf("references at the call: %+v", at.Results)
	}
	one := mustCall[ReferencesResult](t, s, "references", `{"symbol":"Total","limit":1}`)
	if len(one.Results[0].References) != 1 || one.Results[0].Truncated != 1 {
		t.Errorf("limit 1: %+v", one.Results[0])
	}
	if _, err := call[ReferencesResult](t, s, "references", `{"symbol":"NoSuchThing"}`); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown symbol: %v, want not found", err)
	}
}

// TestGuessesPage holds name-only guesses to the request's limit like the
// items (issue 27: they stopped at 20 whatever the limit, the rest only
// counted).
func TestGuessesPage(t *testing.T) {
	files := map[string]string{
		"shapes/a.py": "class A:\n    def frob(self):\n        pass\n",
		"shapes/b.py": "class B:\n    def frob(self):\n        pass\n",
	}
	for i := 0; i < 30; i++ {
		files[fmt.Sprintf("use/u%02d.py", i)] = fmt.Sprintf("def use%02d(x):\n    x.frob()\n", i)
	}
	s := newService(t, files)
	for _, tt := range []struct {
		req             string
		guesses, omited int
	}{
		{`{"symbol":"A.frob"}`, 0, 30},
		{`{"symbol":"A.frob","guesses":true,"limit":25}`, 25, 5},
		{`{"symbol":"A.frob","guesses":true,"limit":1000}`, 30, 0},
	} {
		res := mustCall[GraphResult](t, s, "callers", tt.req)
		if len(res.Results) != 1 {
			t.Fatalf("%s: %d results", tt.req, len(res.Results))
		}
		r := res.Results[0]
		if len(r.Items) != 0 || len(r.Guesses) != tt.guesses || r.Omitted != tt.omited {
			t.Errorf("%s: %d items, %d guesses, %d omitted; want 0, %d, %d", tt.req, len(r.Items), len(r.Guesses), r.Omitted, tt.guesses, tt.omited)
		}
	}
}

// TestInheritedTarget asks for a method by the name of a class that
// inherits it (issue 27: Flask.add_url_rule, inherited from App through
// Scaffold, could not be asked for).
func TestInheritedTarget(t *testing.T) {
	s := newService(t, map[string]string{
		"web/scaffold.py": "class Scaffold:\n    def add_url_rule(self, rule):\n        pass\n",
		"web/app.py":      "from .scaffold import Scaffold\n\n\nclass App(Scaffold):\n    def add_url_rule(self, rule):\n        super().add_url_rule(rule)\n",
		"web/flask.py":    "from .app import App\n\n\nclass Flask(App):\n    pass\n\n\ndef make():\n    f = Flask()\n    f.add_url_rule('/')\n",
	})
	res := mustCall[GraphResult](t, s, "callers", `{"symbol":"Flask.add_url_rule"}`)
	if len(res.Results) != 1 {
		t.Fatalf("results: %+v", res.Results)
	}
	r := res.Results[0]
	if r.Definition.Symbol != "App.add_url_rule" || r.Definition.Path != "web/app.py" {
		t.Errorf("definition %s in %s, want App.add_url_rule in web/app.py", r.Definition.Symbol, r.Definition.Path)
	}
	if len(r.Items) != 1 || r.Items[0].Symbol != "make" {
		t.Errorf("callers: %+v, want make", r.Items)
	}
}
