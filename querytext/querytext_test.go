package querytext

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A bug report as agents paste them: a title, prose, a reproduction, a
// traceback, pasted dependency and environment dumps. Written for this test.
const report = "Serializer.dump crashes on nested `OrderedDict` when `sort_keys=True`\n" +
	"\n" +
	"When I call `tinyser.dump()` on a nested mapping with sort_keys enabled, it fails with\n" +
	"\"cannot compare str and int\" instead of sorting the keys. The docs for the `--strict-keys` option say it should work.\n" +
	"\n" +
	"```python\n" +
	"from tinyser.encoder import Serializer, dump\n" +
	"data = OrderedDict(a={1: 'x', 'b': 2})\n" +
	"print(dump(data, sort_keys=True))\n" +
	"```\n" +
	"\n" +
	"```\n" +
	"Traceback (most recent call last):\n" +
	"  File \"/home/me/repro.py\", line 3, in <module>\n" +
	"    print(dump(data, sort_keys=True))\n" +
	"  File \"/home/me/.venv/lib/python3.11/site-packages/tinyser/encoder.py\", line 88, in dump\n" +
	"    return Serializer(**opts).encode(obj)\n" +
	"  File \"/home/me/.venv/lib/python3.11/site-packages/tinyser/_sorting.py\", line 12, in sorted_items\n" +
	"    return sorted(mapping.items())\n" +
	"TypeError: '<' not supported between instances of 'int' and 'str'\n" +
	"```\n" +
	"\n" +
	"pip freeze:\n" +
	"```\n" +
	"attrs==23.1.0\n" +
	"packaging==23.2\n" +
	"pluggy==1.3.0\n" +
	"requests==2.31.0\n" +
	"urllib3==2.0.7\n" +
	"```\n" +
	"\n" +
	"Environment:\n" +
	"- OS: Ubuntu 22.04\n" +
	"- Python version: 3.11.4\n" +
	"- tinyser version: 0.9.1\n"

func TestAnalyseReport(t *testing.T) {
	ev := Analyse(report)
	if !ev.Long || !strings.HasPrefix(ev.Title, "Serializer.dump crashes") {
		t.Fatalf("long %v, title %q", ev.Long, ev.Title)
	}
	kinds := map[BlockKind]int{}
	for _, b := range ev.Blocks {
		kinds[b.Kind]++
	}
	if kinds[Code] != 1 || kinds[Traceback] != 1 || kinds[Output] < 2 {
		t.Errorf("blocks: %v", blockSummary(ev.Blocks))
	}
	// The dumps and the code never reach the prose.
	for _, noise := range []string{"urllib3", "packaging", "Ubuntu", "OrderedDict(a="} {
		if strings.Contains(ev.Prose, noise) {
			t.Errorf("prose holds %q:\n%s", noise, ev.Prose)
		}
	}
	if !strings.Contains(ev.Prose, "instead of sorting the keys") {
		t.Errorf("prose lost a sentence:\n%s", ev.Prose)
	}
	names := nameWeights(ev.Names)
	for name, min := range map[string]float64{
		"Serializer.dump": weightQualified, // in the title
		"OrderedDict":     weightSpan,
		"sort_keys":       weightSpan,
		"tinyser.dump":    weightSpan,
		"TypeError":       weightException,
		"sorted_items":    0.9 * weightFrame, // the innermost frame
		"tinyser.encoder": weightImport,
		"Serializer":      weightImport,
	} {
		if names[name] < min {
			t.Errorf("name %s: weight %.2f, want ≥ %.2f (names %v)", name, names[name], min, ev.Names)
		}
	}
	for _, noise := range []string{"print", "data", "attrs", "requests", "Ubuntu"} {
		if _, ok := names[noise]; ok {
			t.Errorf("%q read as a name: %v", noise, ev.Names)
		}
	}
	if ev.Names[0].Weight < ev.Names[len(ev.Names)-1].Weight {
		t.Errorf("names not by weight: %v", ev.Names)
	}
	// Frames: innermost first by depth, wherever the traceback prints it.
	depth := map[string]int{}
	for _, p := range ev.Paths {
		depth[p.Path] = p.Frame
	}
	if depth["/home/me/.venv/lib/python3.11/site-packages/tinyser/_sorting.py"] != 0 ||
		depth["/home/me/.venv/lib/python3.11/site-packages/tinyser/encoder.py"] != 1 ||
		depth["/home/me/repro.py"] != 2 {
		t.Errorf("frames: %+v", ev.Paths)
	}
	lits := strings.Join(ev.Literals, "|")
	for _, want := range []string{"cannot compare str and int", "--strict-keys"} {
		if !strings.Contains(lits, want) {
			t.Errorf("literal %q missing: %q", want, ev.Literals)
		}
	}
	if want := "'<' not supported between instances of 'int' and 'str'"; !slices.Contains(ev.Messages, want) {
		t.Errorf("message %q missing: %q", want, ev.Messages)
	}
	if !strings.Contains(ev.Code, "sorted_items") || !strings.Contains(ev.Code, "Serializer") {
		t.Errorf("code words: %q", ev.Code)
	}
}

// A Go panic, a log excerpt and a diff, unfenced, as commit messages and
// terse reports carry them.
func TestAnalyseGoPanicLogAndDiff(t *testing.T) {
	q := "router: nil map write when a route has no handler\n" +
		"Registering a route without a handler panics at startup:\n" +
		"panic: assignment to entry in nil map\n" +
		"goroutine 1 [running]:\n" +
		"example.com/web/router.(*Table).Add(0xc000010000, {0x5f1e2a, 0x4})\n" +
		"\t/src/web/router/table.go:41 +0x5d\n" +
		"main.main()\n" +
		"\t/src/web/cmd/serve/main.go:17 +0x2a\n" +
		"2024-05-01T10:00:00Z ERROR server: \"route /health has no handler\" code=500\n" +
		"The fix initialises Table.routes in NewTable.\n" +
		"--- a/router/table.go\n" +
		"+++ b/router/table.go\n"
	ev := Analyse(q)
	var got []string
	for _, p := range ev.Paths {
		got = append(got, p.Path)
	}
	joined := strings.Join(got, " ")
	for _, want := range []string{"/src/web/router/table.go", "/src/web/cmd/serve/main.go", "router/table.go"} {
		if !strings.Contains(joined, want) {
			t.Errorf("path %s missing: %v", want, got)
		}
	}
	for _, p := range ev.Paths {
		if p.Path == "/src/web/router/table.go" && (p.Frame != 0 || p.Func != "Table.Add" || p.Line != 41) {
			t.Errorf("innermost frame: %+v", p)
		}
	}
	names := nameWeights(ev.Names)
	if names["Table.Add"] < weightFrame*0.9 || names["Table.routes"] < weightQualified || names["NewTable"] < weightProse {
		t.Errorf("names: %v", ev.Names)
	}
	if !slices.Contains(ev.Messages, "assignment to entry in nil map") || !slices.Contains(ev.Messages, "route /health has no handler") {
		t.Errorf("messages: %q, literals: %q", ev.Messages, ev.Literals)
	}
	if strings.Contains(ev.Prose, "goroutine") || strings.Contains(ev.Prose, "+0x5d") || strings.Contains(ev.Prose, "code=500") {
		t.Errorf("prose holds the dump:\n%s", ev.Prose)
	}
	if !strings.Contains(ev.Prose, "initialises Table.routes") {
		t.Errorf("prose lost the last sentence:\n%s", ev.Prose)
	}
}

func TestAnalyseShortQueries(t *testing.T) {
	for _, tc := range []struct {
		q     string
		names []string
	}{
		{"read an entire file into a byte slice", nil},
		{"Fix Context.Value lookup across flag sets", []string{"Context.Value"}},
		{"where is retry_upload called", []string{"retry_upload"}},
		{"zzqxv_nomatch_qq", []string{"zzqxv_nomatch_qq"}},
	} {
		ev := Analyse(tc.q)
		if ev.Long || ev.Title != "" || ev.Prose != tc.q {
			t.Errorf("%q: long %v title %q prose %q", tc.q, ev.Long, ev.Title, ev.Prose)
		}
		var got []string
		for _, n := range ev.Names {
			if !n.Type { // capitalised words are type candidates (TestTypeWords)
				got = append(got, n.Text)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.names, ",") {
			t.Errorf("%q: names %v, want %v", tc.q, got, tc.names)
		}
	}
	if ev := Analyse(strings.Repeat("the parser accepts keyword arguments after positional ones ", 4)); !ev.Long {
		t.Error("a 32-word sentence is issue-like text")
	}
	// The cut between a question and a one-line description.
	if ev := Analyse("where does the scheduler decide which worker takes the next job"); ev.Long {
		t.Error("an 11-word question is short")
	}
	if ev := Analyse("Stopped the upload retry loop from sleeping after the last failed attempt."); !ev.Long || ev.Title != "" {
		t.Errorf("a 12-word sentence is issue-like text without a title: long %v title %q", ev.Long, ev.Title)
	}
	// A change's title however short: a pull request's number, a
	// conventional commit's type.
	for _, q := range []string{"Fix INI saving panics (#1075)", "perf(tree): use strings.Count", "fix: close the body"} {
		if ev := Analyse(q); !ev.Long {
			t.Errorf("%q is a change's title: issue-like", q)
		}
	}
	for _, q := range []string{"what does fix(x) return", "issue #12 in the tracker"} {
		if ev := Analyse(q); ev.Long {
			t.Errorf("%q is a question: short", q)
		}
	}
}

func TestNamesAndLiteralsInProse(t *testing.T) {
	ev := Analyse("Restore option_name to BadOptionUsage\n" +
		"Revert ``BadOptionUsage.__init__``, e.g. for jinja2.runtime.Context.call, as 'No such option: --foo' says.\n" +
		"Version 3.0.1 of http://example.com/a.b broke it, i.e. twice.")
	names := nameWeights(ev.Names)
	for _, want := range []string{"option_name", "BadOptionUsage", "BadOptionUsage.__init__", "jinja2.runtime.Context.call"} {
		if _, ok := names[want]; !ok {
			t.Errorf("name %s missing: %v", want, ev.Names)
		}
	}
	for n := range names {
		if strings.Contains(n, "example") || n == "e.g" || n == "i.e" || strings.HasPrefix(n, "3") {
			t.Errorf("noise name %q: %v", n, ev.Names)
		}
	}
	if !strings.Contains(strings.Join(ev.Literals, "|"), "No such option: --foo") {
		t.Errorf("literals: %q", ev.Literals)
	}
}

// TestHashMembers: an instance member as JavaScript, Ruby and Java docs
// write it (Request#accepts, `Router#handle()`) is the qualified name; an
// issue number, a line anchor or a section of a link is no name.
func TestHashMembers(t *testing.T) {
	ev := Analyse("Request#accepts() fixed, and calling `Router#handle()` twice drops params\n" +
		"See issue#12, #34 and docs/api.md#configuration.")
	names := nameWeights(ev.Names)
	for _, want := range []string{"Request.accepts", "Router.handle"} {
		if _, ok := names[want]; !ok {
			t.Errorf("name %s missing: %v", want, ev.Names)
		}
	}
	for n := range names {
		if strings.Contains(n, "issue") || strings.Contains(n, "configuration") || n == "handle" {
			t.Errorf("noise name %q: %v", n, ev.Names)
		}
	}
}

func TestClassifyFencedBlocks(t *testing.T) {
	for _, tc := range []struct {
		lang string
		body []string
		want BlockKind
	}{
		{"", []string{"$ pip list", "Package    Version", "---------- -------", "click      8.1.7", "jinja2     3.1.2"}, Output},
		{"", []string{"def handler(event):", "    return event['x']"}, Code},
		{"console", []string{"INFO 12:00:01 started", "ERROR 12:00:02 \"bad gateway\""}, Log},
		{"", []string{"module example.com/app", "", "require (", "\tgithub.com/spf13/cobra v1.8.0", "\tgolang.org/x/sys v0.15.0 // indirect", ")"}, Output},
		{"", []string{"goroutine 7 [running]:", "main.run()", "\t/app/main.go:12 +0x1f"}, Traceback},
	} {
		if got := classifyFenced(tc.body, tc.lang); got != tc.want {
			t.Errorf("%q %q: %s, want %s", tc.lang, tc.body, got, tc.want)
		}
	}
}

func nameWeights(ns []Name) map[string]float64 {
	m := map[string]float64{}
	for _, n := range ns {
		m[n.Text] = n.Weight
	}
	return m
}

func blockSummary(bs []Block) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Kind.String()+":"+strings.Join(b.Lines, "⏎"))
	}
	return out
}

// A capitalised word inside a sentence may be a type's name (and is marked
// so: only a type of that name counts); one opening a sentence, a line or a
// list item too, less surely; an acronym is not read; a name also written
// as code is a plain name; a private _name is a name.
func TestTypeWords(t *testing.T) {
	ev := Analyse("Dereference Flags if they are pointers\n" +
		"When checking that a Path has an executable bit, the ENV value of the Command\n" +
		"Context is read. Fetch goes through _fetch.\n" +
		"- Choice options complete, and `Command.Run` is called.")
	got := map[string]Name{}
	for _, n := range ev.Names {
		got[n.Text] = n
	}
	for _, want := range []string{"Flags", "Path", "Command"} {
		if n, ok := got[want]; !ok || !n.Type || n.Weight != weightType {
			t.Errorf("%s: %+v (found %v), want a type name of weight %v", want, n, ok, weightType)
		}
	}
	for _, start := range []string{"Dereference", "When", "Context", "Fetch", "Choice"} {
		if n, ok := got[start]; !ok || !n.Type || n.Weight != weightTypeStart {
			t.Errorf("%s: %+v (found %v), want a type name of weight %v", start, n, ok, weightTypeStart)
		}
	}
	if n, ok := got["ENV"]; ok {
		t.Errorf("ENV read as a name: %+v", n)
	}
	if n, ok := got["_fetch"]; !ok || n.Type {
		t.Errorf("_fetch: %+v (found %v), want a plain name", n, ok)
	}
	if n := got["Command.Run"]; n.Type || n.Weight != weightSpan {
		t.Errorf("Command.Run: %+v, want a plain span name", n)
	}
	plain := Analyse("the Flag type is wrong\nsee `Flag` and the Flag docs")
	for _, n := range plain.Names {
		if n.Text == "Flag" && (n.Type || n.Weight != weightSpan) {
			t.Errorf("Flag written as code too: %+v, want a plain name of the span's weight", n)
		}
	}
}

// An exception line pasted on its own carries its message as a traceback's
// last line does: the program printed it, the code raises it.
func TestAnalyseLoneExceptionLine(t *testing.T) {
	ev := Analyse("RuntimeError: Working outside of application context.")
	if len(ev.Messages) != 1 || ev.Messages[0] != "Working outside of application context." {
		t.Errorf("messages: %q", ev.Messages)
	}
	if names := nameWeights(ev.Names); names["RuntimeError"] != weightException {
		t.Errorf("names: %v", ev.Names)
	}
	if ev := Analyse("the handler fails: it never retries"); len(ev.Messages) != 0 {
		t.Errorf("a sentence with a colon read as an exception line: %q", ev.Messages)
	}
}

// A frame in a special method names its definition by file and line; the
// name itself ("__init__") is every class's and is not a name to look for.
func TestFrameInSpecialMethod(t *testing.T) {
	ev := Analyse("Traceback (most recent call last):\n" +
		"  File \"/srv/app/shipyard/http_client.py\", line 33, in _request\n" +
		"    raise RateLimited(delay)\n" +
		"  File \"/srv/app/shipyard/errors.py\", line 12, in __init__\n" +
		"    super().__init__(\"retry after %.1fs\" % delay)\n" +
		"TypeError: must be real number, not str\n")
	names := nameWeights(ev.Names)
	if _, ok := names["__init__"]; ok {
		t.Errorf("a special method read as a name: %v", ev.Names)
	}
	if _, ok := names["_request"]; !ok {
		t.Errorf("the other frame's function is missing from the names: %v", ev.Names)
	}
	i := slices.IndexFunc(ev.Paths, func(p Path) bool { return strings.HasSuffix(p.Path, "errors.py") })
	if i < 0 || ev.Paths[i].Line != 12 || ev.Paths[i].Func != "__init__" || ev.Paths[i].Frame != 0 {
		t.Errorf("the innermost frame: %+v", ev.Paths)
	}
}

// pytest's long report gives its frames as "path:N: in func", innermost
// last like Python's, and marks the exception's line with "E   ": the
// frames are read in that order with their functions, and the marked line
// is the exception and its message whatever the class is called.
func TestPytestReport(t *testing.T) {
	ev := Analyse("the client crashes on 429\n\n" +
		"    def test_gives_up():\n" +
		">       client.get_json(\"/orders\")\n\n" +
		"tests/test_http_client.py:24: \n" +
		"_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n" +
		"/venv/lib/python3.11/site-packages/shipyard_cli/http_client.py:14: in get_json\n" +
		"    return self._request(path)\n" +
		"_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n" +
		"/venv/lib/python3.11/site-packages/shipyard_cli/http_client.py:27: in _request\n" +
		"    raise RateLimited(delay)\n" +
		"E   shipyard_cli.errors.RateLimited: rate limited, retry after 1.0s\n")
	frames := framesIn(ev, "http_client.py")
	if want := []string{"1 get_json:14", "0 _request:27"}; !slices.Equal(frames, want) {
		t.Errorf("frames %q, want %q", frames, want)
	}
	if names := nameWeights(ev.Names); names["shipyard_cli.errors.RateLimited"] != weightException {
		t.Errorf("the marked exception is not read as one: %v", ev.Names)
	}
	if len(ev.Messages) != 1 || ev.Messages[0] != "rate limited, retry after 1.0s" {
		t.Errorf("messages: %q", ev.Messages)
	}
}

// framesIn lists the frames in files named file as "depth func:line".
func framesIn(ev Evidence, file string) []string {
	var out []string
	for _, p := range ev.Paths {
		if strings.HasSuffix(p.Path, file) {
			out = append(out, fmt.Sprintf("%d %s:%d", p.Frame, p.Func, p.Line))
		}
	}
	return out
}

// IPython and Jupyter print a traceback as "File path:N, in func(args)"
// frames under a header that begins with the exception's class, innermost
// last: read in that order, with their functions.
func TestIPythonTraceback(t *testing.T) {
	ev := Analyse("get_json fails in a notebook\n\n" +
		"---------------------------------------------------------------------------\n" +
		"RateLimited                               Traceback (most recent call last)\n" +
		"Cell In[3], line 1\n" +
		"----> 1 client.get_json(\"/orders\")\n\n" +
		"File ~/venv/lib/python3.11/site-packages/shipyard_cli/http_client.py:23, in ApiClient.get_json(self, path)\n" +
		"     22     try:\n" +
		"---> 23         return self._request(path)\n\n" +
		"File ~/venv/lib/python3.11/site-packages/shipyard_cli/http_client.py:33, in ApiClient._request(self, path)\n" +
		"     32     if resp.status == 429:\n" +
		"---> 33         raise RateLimited(float(resp.headers.get(\"Retry-After\", \"1\")))\n\n" +
		"RateLimited: rate limited, retry after 1.0s\n")
	frames := framesIn(ev, "http_client.py")
	if want := []string{"1 ApiClient.get_json:23", "0 ApiClient._request:33"}; !slices.Equal(frames, want) {
		t.Errorf("frames %q, want %q", frames, want)
	}
}

// Python prints the exception unindented after the frames: that line is
// the exception whatever its class is called, and ends the traceback.
func TestExceptionLineByPlace(t *testing.T) {
	ev := Analyse("rendering the page fails\n\n" +
		"Traceback (most recent call last):\n" +
		"  File \"/srv/app/views.py\", line 12, in index\n" +
		"    return render_template(\"index.html\")\n" +
		"jinja2.exceptions.TemplateNotFound: index.html was not found in the search path\n" +
		"FAIL\n")
	names := nameWeights(ev.Names)
	if names["jinja2.exceptions.TemplateNotFound"] != weightException {
		t.Errorf("the exception is not read as one: %v", ev.Names)
	}
	if _, ok := names["FAIL"]; ok {
		t.Errorf("a line after the exception read as another: %v", ev.Names)
	}
	if len(ev.Messages) != 1 || ev.Messages[0] != "index.html was not found in the search path" {
		t.Errorf("messages: %q", ev.Messages)
	}
	// Without frames before it, a class not named like an exception is not one.
	if ev := Analyse("Status: works for me"); len(ev.Messages) != 0 {
		t.Errorf("a line with a colon read as an exception: %q", ev.Messages)
	}
}

// A Go panic's frames are a function line ("main.main()", which alone reads
// like a fragment of prose; "created by f in goroutine 1", which reads like
// a sentence) over its file line: the traceback goes on through them. A function given only by frames carries their files
// (Name.Frames), so the engine can tell the user's program from the
// workspace's code; one also written elsewhere in the text carries none.
func TestGoPanicFrames(t *testing.T) {
	ev := Analyse("config.Load panics\n\n" +
		"panic: runtime error: index out of range [1] with length 1\n\n" +
		"goroutine 1 [running]:\n" +
		"example.com/shipyard/internal/config.Load({0x4c1b2e, 0xd})\n" +
		"\t/home/me/go/pkg/mod/example.com/shipyard@v0.4.0/internal/config/load.go:38 +0x2c5\n" +
		"main.main()\n" +
		"\t/home/me/tools/nightly/main.go:14 +0x3a\n" +
		"created by example.com/shipyard/internal/retry.(*Policy).Start in goroutine 1\n" +
		"\t/home/me/go/pkg/mod/example.com/shipyard@v0.4.0/internal/retry/backoff.go:60 +0x25\n" +
		"exit status 2\n")
	if got, want := framesIn(ev, ".go"), []string{"0 config.Load:38", "1 main.main:14", "2 Policy.Start:60"}; !slices.Equal(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}
	got := map[string][]string{}
	for _, n := range ev.Names {
		got[n.Text] = n.Frames
	}
	if f, ok := got["main.main"]; !ok || !slices.Equal(f, []string{"/home/me/tools/nightly/main.go"}) {
		t.Errorf("main.main, read from its frame alone: frames %q (found %v)", f, ok)
	}
	if f, ok := got["config.Load"]; !ok || f != nil {
		t.Errorf("config.Load, in the title too: frames %q (found %v)", f, ok)
	}
}

// Fenced, a pytest report or an IPython traceback is still a traceback:
// its frames are read, innermost last.
func TestFencedPythonTracebacks(t *testing.T) {
	for name, body := range map[string]string{
		"pytest": "    def test_gives_up():\n>       client.get_json(\"/orders\")\n\ntests/test_http_client.py:24: \n" +
			"_ _ _ _ _ _ _ _ _ _\n/venv/shipyard_cli/http_client.py:14: in get_json\n    return self._request(path)\n" +
			"    x = 1\n    y = 2\n_ _ _ _ _ _ _ _ _ _\n/venv/shipyard_cli/http_client.py:27: in _request\n" +
			"    raise RateLimited(delay)\nE   shipyard_cli.errors.RateLimited: rate limited\n",
		"ipython": "---------------------------------------------------------------------------\n" +
			"RateLimited                               Traceback (most recent call last)\n" +
			"Cell In[3], line 1\n----> 1 client.get_json(\"/orders\")\n\n" +
			"File ~/venv/shipyard_cli/http_client.py:14, in ApiClient.get_json(self, path)\n" +
			"     12 x = 1\n     13 y = 2\n---> 14 return self._request(path)\n\n" +
			"File ~/venv/shipyard_cli/http_client.py:27, in ApiClient._request(self, path)\n" +
			"---> 27 raise RateLimited(delay)\n\nRateLimited: rate limited\n",
	} {
		ev := Analyse("the client fails\n\n```\n" + body + "```\n")
		if got := framesIn(ev, "shipyard_cli/http_client.py"); len(got) != 2 || !strings.HasPrefix(got[0], "1 ") || !strings.HasPrefix(got[1], "0 ") {
			t.Errorf("%s: frames %q, want two, innermost last", name, got)
		}
	}
}

// Node prints "at async fn (…)" and "at new Class (…)": the frame's
// function is fn, Class.
func TestNodeAsyncFrames(t *testing.T) {
	ev := Analyse("the export crashes\n\n" +
		"TypeError: Cannot read properties of undefined (reading 'id')\n" +
		"    at new OrderRow (/app/web/src/components/OrderRow.ts:12:18)\n" +
		"    at async exportOrders (/app/web/src/api/export.ts:31:40)\n")
	if got, want := framesIn(ev, ".ts"), []string{"0 OrderRow:12", "1 exportOrders:31"}; !slices.Equal(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}
}

// A Rust panic with its backtrace: the panic's location, then numbered
// frames whose function is on the line above their location, innermost
// first; the standard library's frames are frames too (the engine weighs
// the workspace's).
func TestRustBacktrace(t *testing.T) {
	ev := Analyse("parser panics on an empty input\n\n" +
		"thread 'main' panicked at src/parser.rs:42:13:\n" +
		"index out of bounds: the len is 0 but the index is 0\n" +
		"stack backtrace:\n" +
		"   0: rust_begin_unwind\n" +
		"             at /rustc/82e1608df/library/std/src/panicking.rs:645:5\n" +
		"   1: core::panicking::panic_bounds_check\n" +
		"             at /rustc/82e1608df/library/core/src/panicking.rs:208:5\n" +
		"   2: mycrate::parser::Parser::parse_expr\n" +
		"             at ./src/parser.rs:42:13\n" +
		"   3: mycrate::main::h1a2b3c4d5e6f7a8b\n" +
		"             at ./src/main.rs:10:5\n")
	if got, want := framesIn(ev, ".rs"), []string{"0 :42", "1 :645", "2 panicking.panic_bounds_check:208", "3 Parser.parse_expr:42", "4 mycrate.main:10"}; !slices.Equal(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}
	if !slices.Contains(ev.Messages, "index out of bounds: the len is 0 but the index is 0") {
		t.Errorf("the panic's message: %q", ev.Messages)
	}
}

// Ruby, PHP and .NET give a frame's file, line and function on one line,
// innermost first: read with the function as Type.method.
func TestOneLineFrames(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		want []string
	}{
		"ruby": {"NoMethodError: undefined method `price' for nil\n" +
			"app/models/order.rb:42:in `block in Order#total'\n" +
			"\tfrom app/models/order.rb:40:in `each'\n" +
			"\tfrom app/controllers/orders_controller.rb:12:in `show'\n",
			[]string{"0 Order.total:42", "1 each:40", "2 show:12"}},
		"php": {"PHP Fatal error:  Uncaught TypeError: Cart::total(): Return value must be of type int\n" +
			"Stack trace:\n" +
			"#0 /srv/app/src/Checkout.php(31): App\\Shop\\Cart->total()\n" +
			"#1 /srv/app/public/index.php(12): App\\Shop\\Checkout::run()\n",
			[]string{"0 Cart.total:31", "1 Checkout.run:12"}},
		".net": {"System.NullReferenceException: Object reference not set to an instance of an object.\n" +
			"   at Shop.Billing.Cart.Total() in C:\\src\\Shop\\Billing\\Cart.cs:line 42\n" +
			"   at Shop.Web.OrdersController.Show(Int32 id) in C:\\src\\Shop\\Web\\OrdersController.cs:line 17\n",
			[]string{"0 Cart.Total:42", "1 OrdersController.Show:17"}},
	} {
		ev := Analyse("it crashes\n\n" + tc.text)
		var got []string
		for _, p := range ev.Paths {
			if p.Frame >= 0 {
				got = append(got, fmt.Sprintf("%d %s:%d", p.Frame, p.Func, p.Line))
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: frames %q, want %q", name, got, tc.want)
		}
	}
}

// TestLabels: a code span holding a printed heading is a literal, colon
// included; a name followed by a colon outside a span, or a lower-case key,
// is not one.
func TestLabels(t *testing.T) {
	ev := Analyse("Hidden flags still print the `Flags: ` heading, and `Global Flags:` too; `HTTP:` says `config:` is set.")
	for _, want := range []string{"Flags:", "Global Flags:", "HTTP:"} {
		if !slices.Contains(ev.Labels, want) {
			t.Errorf("label %q missing: %q", want, ev.Labels)
		}
	}
	if slices.Contains(ev.Labels, "config:") {
		t.Errorf("a lower-case key read as a label: %q", ev.Labels)
	}
	// The headings of pasted help output.
	ev = Analyse("hidden commands are listed\n\n```\nUsage: app [command]\n\nAvailable Commands:\n  serve  Serve it.\n\nGLOBAL OPTIONS:\n  --help  Show help.\nnote: it is hidden\n```\n")
	if !slices.Equal(ev.Labels, []string{"Available Commands:", "GLOBAL OPTIONS:"}) {
		t.Errorf("labels of help output: %q", ev.Labels)
	}
	// Case is kept: a label is matched as printed.
	if ev := Analyse("`Flags:` and `FLAGS:` differ"); !slices.Equal(ev.Labels, []string{"Flags:", "FLAGS:"}) {
		t.Errorf("labels differing in case: %q", ev.Labels)
	}
	for _, s := range []string{"Flags", "Flags: x", "Usage: app [flags]", "a:", ":", "One Two Three Four:",
		"Error:", "Expected:", "Returns:", "TODO:", "設定:", "Über:"} {
		if isLabel(s) {
			t.Errorf("isLabel(%q)", s)
		}
	}
}

// TestErrorOutputLines: the error a program printed, pasted with its output
// (click's and cobra's "Error: …", urfave/cli's "Incorrect Usage: …", git's
// "fatal: …", an exception's line), is a message to find where the code
// prints it; the rest of the output is the user's.
func TestErrorOutputLines(t *testing.T) {
	ev := Analyse("Option with type=int shows a confusing error\n\n```\n$ cli --count x\nUsage: cli [OPTIONS]\n" +
		"Try 'cli --help' for help.\n\nError: Invalid value for '--count': 'x' is not a valid integer.\n" +
		"Incorrect Usage: flag provided but not defined: -verbose\nfatal: not a git repository (or any parent)\n" +
		"ValueError: the count must be positive\nSync the files of the project.\nStatus: works for me\n" +
		"/venv/lib/python3.12/site-packages/click/core.py:1085: DeprecationWarning: The 'autocompletion' parameter is deprecated.\n" +
		"ERROR:shipyard.sync:could not sync the orders of today\n```\n")
	want := []string{"Invalid value for '--count': 'x' is not a valid integer.", "flag provided but not defined: -verbose",
		"not a git repository (or any parent)", "the count must be positive", "The 'autocompletion' parameter is deprecated.",
		"could not sync the orders of today"}
	if !slices.Equal(ev.Messages, want) {
		t.Errorf("messages:\n got %q\nwant %q", ev.Messages, want)
	}
	// Log lines at an error level, past their time, level and logger.
	ev = Analyse("sync stops\n\n```\n2024-01-02 12:00:00,123 INFO [sync] starting the sync of 3 accounts\n" +
		"2024-01-02 12:00:01,004 ERROR [sync] failed to refresh the token of account 42\n" +
		"[12:00:02] FATAL db: connection refused by the primary\n" +
		"time=2024-01-02T12:00:03Z level=error msg=\"could not write the ledger entry\" id=7\n```\n")
	want = []string{"failed to refresh the token of account 42", "connection refused by the primary", "could not write the ledger entry"}
	if !slices.Equal(ev.Messages, want) {
		t.Errorf("log errors:\n got %q\nwant %q", ev.Messages, want)
	}
	// More log formats; a level word opening a sentence is no log line.
	for line, want := range map[string]string{
		"ERROR    sync:sync.py:42 failed to refresh the token":                                      "failed to refresh the token",
		"2024-01-02 12:00:00.000 ERROR 1234 --- [main] o.s.b.Cart : could not price the cart":       "could not price the cart",
		"2024-01-02 12:00:00,000 [main] ERROR com.shop.Cart - could not price the cart":             "could not price the cart",
		"[ERROR] could not price the cart":                                                          "could not price the cart",
		`time=2024-01-02T12:00:03Z level=error msg="failed to \"open\" the ledger file" id=7`:       `failed to "open" the ledger file`,
		"PHP Fatal error:  Uncaught Error: Call to a member function total() on null in /app/x.php": "Call to a member function total() on null in /app/x.php",
	} {
		if got, ok := errorOutput(line); !ok || got != want {
			t.Errorf("errorOutput(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
	for _, line := range []string{"ERROR handling is broken in the sync command", "FATAL flaw in the retry logic", "PANIC when calling the router"} {
		if got, ok := errorOutput(line); ok {
			t.Errorf("errorOutput(%q) = %q: a sentence read as a log line", line, got)
		}
	}
	// A sentence after "Error:" in prose is the user's.
	ev = Analyse("Saving fails\nError: when I click save nothing happens and the dialog stays open.")
	if len(ev.Messages) != 0 {
		t.Errorf("a user's sentence read as a message: %q", ev.Messages)
	}
	// In a code span of the prose too; not a span of code.
	ev = Analyse("it says `Error: No such option: --foo` and exits, and `Error: errors.New(\"bad input value\")` is wrong")
	if !slices.Equal(ev.Messages, []string{"No such option: --foo"}) {
		t.Errorf("messages of a code span: %q", ev.Messages)
	}
	// A log line's error is one message: its quotes are part of it.
	ev = Analyse("retries forever\n\n```\nERROR: \"connection refused by upstream server\" retrying\n```\n")
	if !slices.Equal(ev.Messages, []string{"\"connection refused by upstream server\" retrying"}) || len(ev.Literals) != 0 {
		t.Errorf("a log line's error: messages %q, literals %q", ev.Messages, ev.Literals)
	}
}

// TestUncaughtExceptions: what a runtime prints before an exception it did
// not catch (Java's `Exception in thread "main"` and `Caused by:`,
// JavaScript's `Uncaught (in promise)`, .NET's `Unhandled exception.`)
// leaves the exception's class and message to read.
func TestUncaughtExceptions(t *testing.T) {
	for _, tc := range []struct{ q, name, msg string }{
		{"```\nException in thread \"main\" java.lang.IllegalStateException: Cart total is negative\n\tat com.shop.Cart.total(Cart.java:41)\n```\n",
			"java.lang.IllegalStateException", "Cart total is negative"},
		{"```\n\tat com.shop.Main.main(Main.java:12)\nCaused by: com.shop.RoundingError: rounding needed for the amount\n\tat com.shop.Money.round(Money.java:9)\n```\n",
			"com.shop.RoundingError", "rounding needed for the amount"},
		{"```\nUncaught (in promise) TypeError: Cannot read properties of undefined (reading 'total')\n    at Cart.total (/app/src/cart.js:41:12)\n```\n",
			"TypeError", "Cannot read properties of undefined (reading 'total')"},
		{"```\nUnhandled exception. System.InvalidOperationException: Sequence contains no elements\n   at Shop.Cart.Total() in /src/Cart.cs:line 41\n```\n",
			"System.InvalidOperationException", "Sequence contains no elements"},
	} {
		ev := Analyse("the shop crashes\n\n" + tc.q)
		if _, ok := nameWeights(ev.Names)[tc.name]; !ok || !slices.Contains(ev.Messages, tc.msg) {
			t.Errorf("%q: names %v, messages %q; want %s and %q", tc.q, ev.Names, ev.Messages, tc.name, tc.msg)
		}
	}
	// What follows "Caused by:" is an exception only when it is named like one.
	if ev := Analyse("the shop crashes\n\n```\nCaused by: Refactor: moved the retry loop out of the client\n```\n"); len(ev.Messages) != 0 {
		t.Errorf("a commit subject after Caused by: read as an exception: %q", ev.Messages)
	}
}

// TestRuntimeMessages: what a runtime prints names code no string of the
// codebase holds — the function whose parameters are wrong, the class an
// attribute is missing from, the types of a failed conversion — and never
// the runtime's own types or a bare special method.
func TestRuntimeMessages(t *testing.T) {
	for _, tc := range []struct {
		q          string
		want, none []string
	}{
		{"```\nTypeError: Option.__init__() got an unexpected keyword argument 'show_envvar'\n```\n",
			[]string{"Option.__init__"}, nil},
		{"```\nTypeError: __init__() got an unexpected keyword argument 'show_envvar'\n```\n",
			nil, []string{"__init__"}},
		{"```\nTypeError: render_page() missing 1 required positional argument: 'ctx'\n```\n",
			[]string{"render_page"}, nil},
		{"```\nTypeError: Cart.total() takes 1 positional argument but 2 were given\n```\n",
			[]string{"Cart.total"}, nil},
		{"AttributeError: 'Context' object has no attribute 'meta'\n",
			[]string{"Context", "Context.meta", "meta"}, nil},
		{"```\nAttributeError: 'NoneType' object has no attribute 'get_source'\n```\n",
			[]string{"get_source"}, []string{"NoneType", "NoneType.get_source"}},
		{"```\nAttributeError: module 'jinja2.ext' has no attribute 'autoescape'\n```\n",
			[]string{"jinja2.ext.autoescape"}, nil},
		{"```\nAttributeError: 'Formatter' object has no attribute '__call__'\n```\n",
			[]string{"Formatter"}, []string{"__call__", "Formatter.__call__"}},
		{"```\nTypeError: 'Group' object is not callable\n```\n", []string{"Group"}, nil},
		{"```\nTypeError: 'str' object is not callable\n```\n", nil, []string{"str"}},
		{"```\nNameError: name 'reload_templates' is not defined\n```\n", []string{"reload_templates"}, nil},
		{"```\npanic: interface conversion: interface {} is *cli.StringSlice, not []string\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n```\n",
			[]string{"StringSlice"}, []string{"string", "interface {}"}},
		{"```\npanic: interface conversion: main.plugin is not cli.Flag: missing method Apply\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n```\n",
			[]string{"plugin", "Flag", "Apply"}, nil},
		{"```\nUncaught TypeError: Cannot read properties of undefined (reading 'total')\n    at render (/app/src/view.js:4:9)\n```\n",
			[]string{"total"}, nil},
		{"```\nUncaught TypeError: cart.applyCoupon is not a function\n    at render (/app/src/view.js:4:9)\n```\n",
			[]string{"applyCoupon"}, nil},
		{"```\nImportError: cannot import name 'url_quote' from 'werkzeug.urls' (/venv/lib/python3.11/site-packages/werkzeug/urls.py)\n```\n",
			[]string{"werkzeug.urls.url_quote", "url_quote"}, nil},
		{"```\nModuleNotFoundError: No module named 'jinja2.contrib'\n```\n", []string{"jinja2.contrib"}, nil},
		// a compiler's, in pasted build output
		{"```\n./main.go:12:9: undefined: cli.NewApp\n```\n", []string{"NewApp"}, []string{"cli"}},
		{"```\n./main.go:20:5: c.GlobalString undefined (type *cli.Context has no field or method GlobalString)\n```\n",
			[]string{"Context.GlobalString", "Context", "GlobalString"}, nil},
		{"```\n./main.go:31:17: cannot use &myFlag{} (value of type *myFlag) as cli.Flag value in array or slice literal: *myFlag does not implement cli.Flag (missing method Names)\n```\n",
			[]string{"Flag", "Names"}, nil},
		{"```\nsrc/cart.ts(4,9): error TS2339: Property 'coupon' does not exist on type 'Cart'.\n```\n",
			[]string{"Cart.coupon", "Cart", "coupon"}, nil},
		{"```\nsrc/app.ts(1,10): error TS2305: Module '\"./cart\"' has no exported member 'applyCoupon'.\n```\n",
			[]string{"applyCoupon"}, nil},
		{"```\nsrc/cart.ts(4,9): error TS2339: Property 'trim' does not exist on type 'number'.\n```\n",
			[]string{"trim"}, []string{"number", "number.trim"}},
	} {
		ev := Analyse("the program fails\n\n" + tc.q)
		got := nameWeights(ev.Names)
		for _, n := range tc.want {
			if _, ok := got[n]; !ok {
				t.Errorf("%q: names %v; want %s", tc.q, ev.Names, n)
			}
		}
		for _, n := range tc.none {
			if _, ok := got[n]; ok {
				t.Errorf("%q: names %v; want no %s", tc.q, ev.Names, n)
			}
		}
	}
}

// TestLinks: a link to a repository's file names the file and the line it
// points at; a link is a word of its sentence, so a line holding one stays
// prose (not code, nor a "Key: value" line), and a link elsewhere names
// nothing.
func TestLinks(t *testing.T) {
	q := "Totals are off by a cent\n\n" +
		"The rounding is done here: https://github.com/acme/shop/blob/4e1f0c2/internal/money/round.go#L15-L22 and\n" +
		"also see [this line](https://gitlab.com/acme/shop/-/blob/main/src/shop/cart.py?ref_type=heads#L2150).\n" +
		"Compare https://codeberg.org/acme/shop/src/branch/main/web/format.ts#L7 and https://bitbucket.org/acme/shop/src/9a8b7c6/lib/tax.rb#lines-40\n" +
		"See https://github.com/acme/shop/issues/212 and <https://docs.example.com/v2.1/rounding>.\n" +
		"Docs: https://shop.example.com/en/2.1.x/money/ and https://github.com/acme/shop/tree/main/src\n"
	ev := Analyse(q)
	for _, b := range ev.Blocks {
		if b.Kind != Prose {
			t.Errorf("a line with a link read as %v: %q", b.Kind, b.Lines)
		}
	}
	want := []Path{
		{Path: "internal/money/round.go", Line: 15, Frame: -1},
		{Path: "src/shop/cart.py", Line: 2150, Frame: -1},
		{Path: "web/format.ts", Line: 7, Frame: -1},
		{Path: "lib/tax.rb", Line: 40, Frame: -1},
	}
	if !slices.Equal(ev.Paths, want) {
		t.Errorf("paths %+v, want %+v", ev.Paths, want)
	}
	for _, n := range ev.Names {
		if strings.Contains(n.Text, "github") || strings.Contains(n.Text, "example") {
			t.Errorf("a URL gave the name %q", n.Text)
		}
	}
	// A URL in pasted output is the server's path, no file of the workspace.
	ev = Analyse("the page breaks\n\n```\n2024-05-01 10:00:01 WARN GET https://shop.example.com/static/app.js 404\n```\n")
	if len(ev.Paths) != 0 {
		t.Errorf("paths %+v from a URL in a log", ev.Paths)
	}
}

// TestTemplateText: what an issue template leaves in every report — its
// HTML comments, its headings, an issue form's "_No response_" — is not the
// report's words; a comment inside a fence is code, "<!--" never closed is
// text, and a heading that says something stays.
func TestTemplateText(t *testing.T) {
	for _, tc := range []struct {
		q          string
		gone, kept []string
	}{
		{"Totals are off by a cent\n\n" +
			"<!--\nThis issue tracker is a tool to address bugs in Shop itself.\nInclude the full traceback if there was an exception.\n-->\n\n" +
			"The daily totals differ by one cent. <!-- Describe the expected behavior. --> Expected 10.05.\n",
			[]string{"tracker", "traceback", "expected behavior"},
			[]string{"The daily totals differ by one cent.  Expected 10.05."}},
		{"arrows break\n\nThe parser reads <!-- as the start of a comment and stops.", nil, []string{"stops"}},
		{"Totals are off by a cent\n\n### Describe the bug\n\nThe daily totals differ by one cent.\n\n" +
			"**Expected behavior**\n\nThey match the shop.\n\nSteps to reproduce:\n\n1. Export the day.\n\n" +
			"### Additional context\n\n_No response_\n\n### Rounding of refunds\n\nRefunds round up.\n\n" +
			"### What version of Shop are you using?\n\nv1.8.0\n\n### Why does `Refund.total` round up?\n",
			[]string{"Describe", "behavior", "reproduce", "Additional", "No response", "What version"},
			[]string{"differ by one cent", "They match the shop.", "Export the day.", "Rounding of refunds", "Refunds round up.", "Refund.total"}},
	} {
		ev := Analyse(tc.q)
		for _, w := range tc.gone {
			if strings.Contains(ev.Prose, w) {
				t.Errorf("prose holds the template's %q:\n%s", w, ev.Prose)
			}
		}
		for _, w := range tc.kept {
			if !strings.Contains(ev.Prose, w) {
				t.Errorf("prose lost %q:\n%s", w, ev.Prose)
			}
		}
	}
	ev := Analyse("Totals are off by a cent\n\n```html\n<!-- the discount banner -->\n<p>{{ total }}</p>\n```\n")
	if len(ev.Blocks) < 2 || !slices.Contains(ev.Blocks[1].Lines, "<!-- the discount banner -->") {
		t.Errorf("a comment inside a fence was dropped: %v", blockSummary(ev.Blocks))
	}
}

// TestCommandLineOptions: the --options of a command pasted with its
// prompt, in a console block or in pasted output, are found verbatim as a
// sentence's are; a URL in a code span is a link, not a name.
func TestCommandLineOptions(t *testing.T) {
	q := "The server starts without TLS\n\n```console\n$ export APP=shop\n$ shop run --cert=adhoc --port 8443\n * Running on http://127.0.0.1:8443\n```\n\n" +
		"```\nPS C:\\shop> shop export --since 2024-01-01\nError: No such option: --since\n```\n\nExpected `https://127.0.0.1:8443`.\n"
	ev := Analyse(q)
	for _, opt := range []string{"--cert", "--port", "--since"} {
		if !slices.Contains(ev.Literals, opt) {
			t.Errorf("literals %q, want %s", ev.Literals, opt)
		}
	}
	if _, ok := nameWeights(ev.Names)["https"]; ok {
		t.Errorf("a URL in a code span gave the name https: %v", ev.Names)
	}
}

// TestCommitTrailers: a commit message's trailers name people, not code;
// their lines are no evidence.
func TestCommitTrailers(t *testing.T) {
	ev := Analyse("fix: do not allow setting dependencies to nil values\n\n" +
		"Signed-off-by: Mark Sagi-Kazar <mark.sagikazar@gmail.com>\n" +
		"Co-authored-by: Jane Roe <jane@example.com>")
	if strings.Contains(ev.Prose, "Signed") || strings.Contains(ev.Prose, "Jane") {
		t.Errorf("prose holds the trailers: %q", ev.Prose)
	}
	for _, n := range ev.Names {
		if strings.Contains(n.Text, "Mark") || strings.Contains(n.Text, "Jane") || strings.Contains(n.Text, "gmail") {
			t.Errorf("name from a trailer: %v", ev.Names)
		}
	}
	for _, p := range ev.Paths {
		t.Errorf("path from a trailer: %v", p)
	}
}
