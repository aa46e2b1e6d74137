package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// TestNoMatchNoHits: a query none of whose words occur in the workspace gets
// no hits (not the least bad ones), even though parts of it ("qq") could be
// matched; short legitimate queries, with words the workspace lacks, still
// answer.
func TestNoMatchNoHits(t *testing.T) {
	files := map[string]string{"util/match.py": "def nomatch(qq):\n    \"\"\"True when the pattern qq finds nothing.\"\"\"\n    return not qq\n"}
	for p, c := range testutil.Fixture {
		files[p] = c
	}
	e := openTest(t, testutil.WriteTree(t, files), t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	// "nomatch" and "qq" occur (util/match.py), "zzqxv" does not.
	for _, q := range []string{"zzqxv_nomatch_qq", "zzqxv", "frobnicate quux"} {
		if hits := query(t, e, q); len(hits) != 0 {
			t.Errorf("%q: %d hits, want none: %v", q, len(hits), hitPaths(hits))
		}
	}
	for q, want := range map[string]string{
		"area":                            "geo/shapes.go",
		"retry_upload":                    "util/retry.py",
		"retry a flaky upload eventually": "util/retry.py",
		"Circle.Perimeter":                "geo/shapes.go",
	} {
		hits := query(t, e, q)
		if len(hits) == 0 || hits[0].Path != want {
			t.Errorf("%q: %v, want %s first", q, hitPaths(hits), want)
		}
	}
}

// TestSimilarityThreshold: a measure's near-duplicate threshold is the
// simQuantile of its similarities over ordinary pairs (floored at
// simFloor), and MMR counts only what lies above it.
func TestSimilarityThreshold(t *testing.T) {
	// 100 items whose pairwise similarity is 0.99 for 4 of the 4950 pairs
	// and 0.6 otherwise: an anisotropic embedding, where ordinary pairs sit
	// high.
	sim := func(i, j int) float64 {
		if i == 0 && j < 5 {
			return 0.99
		}
		return 0.6
	}
	thr := threshold(100, sim)
	if thr != 0.6 {
		t.Fatalf("threshold %v, want 0.6 (4 of 4950 pairs are above it: under 0.1 %%)", thr)
	}
	if rescale(0.6, thr) != 0 || rescale(0.55, thr) != 0 || math.Abs(rescale(0.8, thr)-0.5) > 1e-12 || rescale(1, thr) != 1 {
		t.Fatal("rescale")
	}
	if got := threshold(100, func(i, j int) float64 { return 0.1 }); got != simFloor {
		t.Fatalf("floor: %v", got)
	}
	if got := threshold(1, sim); got != simFloor {
		t.Fatalf("no pairs: %v", got)
	}
}

// TestSearchFiles: the result ranks files too, distinct, best first, at
// most K, each saying what found it.
func TestSearchFiles(t *testing.T) {
	e := openTest(t, testutil.WriteTree(t, testutil.Fixture), t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s := e.Snapshot()
	defer s.Release()
	res, err := s.Search(context.Background(), SearchRequest{Query: "retry a failed upload with backoff", K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) == 0 || len(res.Files) > 2 || res.Files[0].Path != "util/retry.py" || len(res.Files[0].Sources) == 0 || res.Files[0].Score != 1 {
		t.Fatalf("files: %+v", res.Files)
	}
	if len(res.Files) == 2 && (res.Files[1].Path == res.Files[0].Path || res.Files[1].Score > res.Files[0].Score) {
		t.Fatalf("files: %+v", res.Files)
	}
}

// TestModuleNames: a dotted name credits its longest prefix that is a
// module (pkg.sub.mod.Thing → pkg/sub/mod.py), not the packages above it.
func TestModuleNames(t *testing.T) {
	e := openTest(t, testutil.WriteTree(t, map[string]string{
		"pkg/__init__.py":     "from .sub import mod\n",
		"pkg/sub/__init__.py": "from . import mod\n",
		"pkg/sub/mod.py":      "class Thing:\n    def run(self):\n        return 1\n",
		"pkg/other.py":        "def helper():\n    return 2\n",
	}), t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s := e.Snapshot()
	defer s.Release()
	res, err := s.Search(context.Background(), SearchRequest{Query: "Crash in pkg.sub.mod.Thing.run\nCalling it twice returns a stale value.", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		hasPath := contains(f.Sources, "path")
		if hasPath != (f.Path == "pkg/sub/mod.py") {
			t.Errorf("%s: sources %v", f.Path, f.Sources)
		}
	}
	if len(res.Files) == 0 || res.Files[0].Path != "pkg/sub/mod.py" {
		t.Fatalf("files %+v", res.Files)
	}
}

// TestCosineCalibratedOnce: in a workspace smaller than the sample, the
// cosine threshold is measured once and kept (it was measured again on
// every comparison: seconds per query).
func TestCosineCalibratedOnce(t *testing.T) {
	dir := modelDir(t, "use-lite")
	ctx := context.Background()
	e, err := Open(ctx, testutil.WriteTree(t, semanticFixture), Options{DBDir: t.TempDir(), Config: embedConfig("use-lite", dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	waitEmbeddings(t, e, EmbedReady)
	s := e.Snapshot()
	defer s.Release()
	model := e.emb.modelID()
	thr := e.simCal.cosineThreshold(s, model)
	if got, ok := e.simCal.cosine[model]; !ok || got != thr || thr < simFloor {
		t.Fatalf("threshold %v not kept: %v", thr, e.simCal.cosine)
	}
}

// fileSearch indexes files and returns a function listing the files a
// search request ranks, best first (the engine closes with the test).
func fileSearch(t *testing.T, files map[string]string) func(SearchRequest) []FileHit {
	t.Helper()
	e, _ := indexedEngine(t, files)
	t.Cleanup(func() { e.Close() })
	return func(req SearchRequest) []FileHit {
		t.Helper()
		s := e.Snapshot()
		defer s.Release()
		res, err := s.Search(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Files
	}
}

// onlySource checks that searching query over files credits evidence of
// kind source to the file want and to no other.
func onlySource(t *testing.T, files map[string]string, query, source, want string) {
	t.Helper()
	found := false
	ranked := fileSearch(t, files)(SearchRequest{Query: query, K: 10})
	for _, f := range ranked {
		has := contains(f.Sources, source)
		if has != (f.Path == want) {
			t.Errorf("%s: sources %v", f.Path, f.Sources)
		}
		found = found || has
	}
	if !found {
		t.Fatalf("no %s evidence: %+v", source, ranked)
	}
}

// TestKinEvidence: a compound name nothing defines credits the files that
// define names beginning with its first word — where a new option is
// declared — and no file for the name itself or for unrelated names.
func TestKinEvidence(t *testing.T) {
	onlySource(t, map[string]string{
		"options.go": "package cli\n\n// Global switches.\nvar EnablePrefixMatching = false\n\nvar EnableCommandSorting = true\n",
		"command.go": "package cli\n\n// Command is a command.\ntype Command struct{ Name string }\n\nfunc (c *Command) Run() error { return nil }\n",
		"names.go":   "package cli\n\n// enabled reports whether a name is enabled.\nfunc enabled(name string) bool { return name != \"\" }\n",
	}, "Support case-insensitive command names\nAdd a global `EnableCaseInsensitive` variable to allow\ncase-insensitive command names.", "kin", "options.go")
}

// TestNewMemberNamesItsType: a qualified name whose member nothing
// defines (a field or method the change adds) names the type it is
// qualified by, if that is a type; a qualifier that is no type's name (a
// variable) names nothing.
func TestNewMemberNamesItsType(t *testing.T) {
	files := map[string]string{
		"command.go": "package cli\n\n// Command is a command.\ntype Command struct{ Name string }\n\nfunc (c *Command) Run() error { return nil }\n",
		"hooks.go":   "package cli\n\n// BeforeFunc runs before the action of a command.\ntype BeforeFunc func() error\n\nfunc command() {}\n",
	}
	onlySource(t, files, "Add Command.ArgValidator\nAn optional hook that validates the arguments before Before and Action run.", "name", "command.go")
	for _, f := range fileSearch(t, files)(SearchRequest{Query: "Add cmd.ArgValidator\nAn optional hook that validates the arguments.", K: 10}) {
		if contains(f.Sources, "name") {
			t.Errorf("cmd.ArgValidator: %s has name evidence", f.Path)
		}
	}
}

// TestCallerEvidence: a compound name of the text that is defined credits
// the files that call it, not the file defining it nor unrelated files.
func TestCallerEvidence(t *testing.T) {
	onlySource(t, map[string]string{
		"flag.go":  "package cli\n\n// Flag is a flag.\ntype Flag struct{ set bool }\n\n// PostParse finishes parsing.\nfunc (f *Flag) PostParse() error { f.set = true; return nil }\n",
		"run.go":   "package cli\n\nfunc runFlags(fs []*Flag) error {\n\tfor _, f := range fs {\n\t\tif err := f.PostParse(); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n\treturn nil\n}\n",
		"other.go": "package cli\n\n// envVars reads flags set via env vars.\nfunc envVars() []string { return nil }\n",
	}, "Add flag to setFlags if set by PostParse\nEnsures flag actions are called when flags are set via env vars.", "caller", "run.go")
}

// TestFileNameRoot: a query word that shares its root with a word of a
// file's name (server, serving.py: the stem serv) names the file at a
// share; a word the stemmer keeps whole (form) is no root of a longer
// query word (formula).
func TestFileNameRoot(t *testing.T) {
	search := fileSearch(t, map[string]string{
		"pkg/serving.py": "def run(environ):\n    \"\"\"Rewrite the header fields of the environ.\"\"\"\n    return environ\n",
		"pkg/form.py":    "def check(cell):\n    \"\"\"Guard a header cell against injection.\"\"\"\n    return cell\n",
		"pkg/other.py":   "def helper():\n    \"\"\"Header fields and injection, for the record.\"\"\"\n    return 1\n",
	})
	named := func(q string) map[string]bool {
		out := map[string]bool{}
		for _, f := range search(SearchRequest{Query: q, K: 10}) {
			out[f.Path] = contains(f.Sources, "filename")
		}
		return out
	}
	if got := named("the server rewrites header fields"); !got["pkg/serving.py"] || got["pkg/other.py"] {
		t.Errorf("server: filename evidence %v", got)
	}
	if got := named("formula injection in a header cell"); got["pkg/form.py"] {
		t.Errorf("formula: filename evidence %v", got)
	}
}

// TestOneLineDescription: a description of one sentence (issue-like text:
// querytext.longWords) is regrouped like a question — a file's further
// matching chunks add half of the one before, not 0.8 as for a description
// of several lines — so a module matching the sentence's words in many
// places does not pass the file that matches them best.
func TestOneLineDescription(t *testing.T) {
	// big.py: six functions over chunking's merge size, a chunk each, all
	// saying what small.py's one short function says
	def := func(b *strings.Builder, name, doc string, lines int) {
		fmt.Fprintf(b, "def %s(job):\n    \"\"\"%s\"\"\"\n", name, doc)
		for i := range lines {
			fmt.Fprintf(b, "    job.size%d = job.size + %d\n", i, i)
		}
		b.WriteString("    return job\n\n\n")
	}
	var big, small strings.Builder
	for _, name := range []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"} {
		def(&big, name, "Retry the upload of a job after a failed attempt.", 40)
	}
	def(&small, "again", "Retry the upload of a job after a failed attempt.", 4)
	search := fileSearch(t, map[string]string{
		"pkg/big.py":   big.String(),
		"pkg/small.py": small.String(),
		"pkg/other.py": "def unrelated():\n    \"\"\"Nothing to see here.\"\"\"\n    return 1\n",
	})
	scores := func(q string) map[string]float64 {
		out := map[string]float64{}
		for _, f := range search(SearchRequest{Query: q, K: 10, Lexical: true}) {
			out[f.Path] = f.Score
		}
		return out
	}
	const sentence = "Stopped the upload retry loop from sleeping after the last failed attempt of a job."
	one := scores(sentence)
	two := scores("Notes\n" + sentence)
	if one["pkg/small.py"] <= one["pkg/big.py"] {
		t.Errorf("one line: the module matching in six places passes the file the sentence is about: %v", one)
	}
	if two["pkg/big.py"] <= two["pkg/small.py"] {
		t.Errorf("several lines: a description touching several parts of a module should favour it: %v", two)
	}
}

// TestFrameBeatsItsNamesakes: a traceback's innermost frame names one of
// several methods of the same name in a file, by its line; its function's
// name names no other. When the line lies in none of them (a trace of
// another version), it names the one nearest to the line.
func TestFrameBeatsItsNamesakes(t *testing.T) {
	var src strings.Builder
	src.WriteString("\"\"\"Loaders find templates by name.\"\"\"\n\n")
	for _, c := range [][2]string{{"DictLoader", "from a dict"}, {"FileLoader", "from files in a folder"},
		{"PackageLoader", "from a Python package"}, {"ChoiceLoader", "from the first loader that has it"}} {
		fmt.Fprintf(&src, "\nclass %s:\n    \"\"\"Loads templates %s.\"\"\"\n\n    def get_source(self, name):\n", c[0], c[1])
		fmt.Fprintf(&src, "        \"\"\"Return the source of template name.\"\"\"\n        source = self.lookup(name)\n        if source is None:\n            raise TemplateNotFound(name)\n        return source\n\n")
		fmt.Fprintf(&src, "    def lookup(self, name):\n        return None\n")
	}
	files := map[string]string{"tpl/loaders.py": src.String(),
		"tpl/errors.py": "class TemplateNotFound(Exception):\n    \"\"\"No loader found the template.\"\"\"\n"}
	e := openTest(t, testutil.WriteTree(t, files), t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var raises []int // the line of each class's raise
	for i, l := range strings.Split(src.String(), "\n") {
		if strings.Contains(l, "raise TemplateNotFound") {
			raises = append(raises, i+1)
		}
	}
	report := fmt.Sprintf("template not found\n\nTraceback (most recent call last):\n"+
		"  File \"/srv/app/views.py\", line 8, in index\n    return render(\"a.html\")\n"+
		"  File \"/venv/lib/python3.11/site-packages/tpl/loaders.py\", line %d, in get_source\n"+
		"    raise TemplateNotFound(name)\ntpl.errors.TemplateNotFound: a.html\n", raises[1])
	hits := query(t, e, report)
	if len(hits) == 0 || hits[0].Symbol != "FileLoader.get_source" {
		t.Fatalf("frame in FileLoader.get_source: %v first", hitSymbols(hits))
	}
	// The frame's function names no other get_source: they rank by their
	// own evidence, below the frame's.
	for _, h := range hits[1:] {
		if strings.HasSuffix(h.Symbol, ".get_source") && h.Score >= hits[0].Score {
			t.Errorf("%s scores %.3f, as the frame's own method does", h.Symbol, h.Score)
		}
	}
	// A frame of another version: its line lies in PackageLoader.lookup,
	// which no get_source is; the get_source nearest to it is named.
	report = fmt.Sprintf("template not found\n\nTraceback (most recent call last):\n"+
		"  File \"/venv/lib/python3.11/site-packages/tpl/loaders.py\", line %d, in get_source\n"+
		"    raise TemplateNotFound(name)\ntpl.errors.TemplateNotFound: a.html\n", raises[2]+4)
	hits = query(t, e, report)
	if len(hits) == 0 || hits[0].Symbol != "PackageLoader.get_source" {
		t.Errorf("a frame's line in PackageLoader.lookup: %v first", hitSymbols(hits))
	}
}

// TestFrameInItsClass: a drifted frame's line lies in a class: the method
// of the frame's name in that class is the frame's, not a nearer one of
// another class.
func TestFrameInItsClass(t *testing.T) {
	var src strings.Builder
	src.WriteString("class StringType:\n    def convert(self, value):\n        return str(value)\n\n\n")
	src.WriteString("class Choice:\n    def __init__(self, choices):\n")
	for i := range 20 {
		fmt.Fprintf(&src, "        self.c%d = choices[%d]\n", i, i)
	}
	src.WriteString("\n    def convert(self, value):\n        if value not in self.choices:\n            self.fail(value)\n        return value\n")
	e := openTest(t, testutil.WriteTree(t, map[string]string{"pkg/types.py": src.String()}), t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	// Line 8 is Choice.__init__'s first: the frame says convert.
	hits := query(t, e, "choice fails\n\nTraceback (most recent call last):\n"+
		"  File \"/venv/lib/python3.11/site-packages/pkg/types.py\", line 8, in convert\n"+
		"    self.fail(value)\npkg.errors.BadParameter: nope\n")
	if len(hits) == 0 || hits[0].Symbol != "Choice.convert" {
		t.Errorf("a frame in class Choice: %v first", hitSymbols(hits))
	}
}

// TestFrameOfItsClass: a frame whose name gives its class (Java's
// com.shop.Cart.total) names that class's method, though its drifted line
// lies in another class defining one of the same name; a line in a nested
// class finds the method of the class around it.
func TestFrameOfItsClass(t *testing.T) {
	java := "package com.shop;\n\npublic class Cart {\n    int total() {\n        return 0;\n    }\n\n" +
		"    static class Item {\n        int price;\n        int quantity;\n\n        int total() {\n" +
		"            return price * quantity;\n        }\n    }\n}\n"
	py := "class Choice:\n    def convert(self, value):\n        return value\n\n    class Meta:\n" +
		"        name = 'choice'\n        ordering = 1\n\n\ndef convert(value):\n    return value\n"
	e := openTest(t, testutil.WriteTree(t, map[string]string{"src/com/shop/Cart.java": java, "pkg/types.py": py}), t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	// Line 9 lies in Cart.Item (its field price).
	hits := query(t, e, "total crashes\n\nException in thread \"main\" java.lang.IllegalStateException: negative\n"+
		"\tat com.shop.Cart.total(Cart.java:9)\n\tat com.shop.Main.main(Main.java:5)\n")
	if len(hits) == 0 || hits[0].Symbol != "Cart.total" {
		t.Errorf("a frame of Cart.total drifted into Cart.Item: %v first", hitSymbols(hits))
	}
	// Line 7 lies in Choice.Meta, nested in Choice; the top-level convert
	// is nearer.
	hits = query(t, e, "choice fails\n\nTraceback (most recent call last):\n"+
		"  File \"/venv/lib/python3.11/site-packages/pkg/types.py\", line 7, in convert\n"+
		"    return value\nValueError: nope\n")
	if len(hits) == 0 || hits[0].Symbol != "Choice.convert" {
		t.Errorf("a frame in Choice.Meta: %v first", hitSymbols(hits))
	}
}

func hitSymbols(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Symbol)
	}
	return out
}

// TestPrintedLabel: a heading quoted as the program prints it ("Flags:")
// is found verbatim, colon included, in the code that prints it; the
// definitions named like its word do not take its place.
func TestPrintedLabel(t *testing.T) {
	files := map[string]string{"cli/help.go": `package cli

// Flags returns the command's flags, hidden ones included.
func (c *Command) Flags() []*Flag { return c.flags }

// VisibleFlags returns the flags that are not hidden.
func (c *Command) VisibleFlags() []*Flag {
	var out []*Flag
	for _, f := range c.flags {
		if !f.Hidden {
			out = append(out, f)
		}
	}
	return out
}

// HasFlags reports whether the command has flags.
func (c *Command) HasFlags() bool { return len(c.flags) > 0 }

// usageTemplate is the text help prints.
func usageTemplate() string {
	return ` + "`" + `Usage:
  {{.Name}} [command]
{{if .HasFlags}}
Flags:
{{range .Flags}}  {{.Usage}}
{{end}}{{end}}` + "`" + `
}
`, "cli/flag.go": `package cli

// Flag is an option of a command.
type Flag struct {
	Name, Usage string
	Hidden      bool
}

func newRoot() *Command { return &Command{Name: "root", Flags: defaults} }
`}
	e := openTest(t, testutil.WriteTree(t, files), t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"Hidden flags still print the `Flags: ` heading\nA command whose every flag is hidden shows an empty section.",
		// The heading in pasted help output.
		"Empty section when every flag is hidden\n\n```\n$ app --help\nUsage:\n  app [command]\n\nFlags:\n\n```\n",
	} {
		hits := query(t, e, q)
		if len(hits) == 0 || hits[0].Symbol != "usageTemplate" || !hits[0].Printed {
			t.Errorf("the template printing Flags: should be first: %v\n%s", hitSymbols(hits), q)
		}
		for _, h := range hits[1:] {
			if h.Printed {
				t.Errorf("%s prints no heading Flags:", h.Symbol)
			}
		}
	}
	for _, tc := range []struct {
		text string
		at   int
	}{
		{"return `Usage:\nFlags:\n`", 15},
		{"\"Usage:{{.Name}}\"", 1},
		{"s := \"Flags:\\n\"", 6},
		{"Flags: []*Flag{}", -1},     // a key and its value
		{"VisibleFlags:\n", -1},      // a longer word
		{"x := VisibleFlags: 1", -1}, // both
	} {
		label := "Flags:"
		if strings.Contains(tc.text, "Usage:{{") {
			label = "Usage:"
		}
		if got := labelAt(tc.text, label); got != tc.at {
			t.Errorf("labelAt(%q, %q) = %d, want %d", tc.text, label, got, tc.at)
		}
	}
}

// TestPrintedMessageTemplate: an error pasted from a program's output holds
// the values of the run ('--count', 'x'); the code holds its template, so
// the runs of words between the quoted values are what is found verbatim —
// in the code that formats it, not only in the tests that quote it whole.
func TestPrintedMessageTemplate(t *testing.T) {
	files := map[string]string{
		"pkg/types.py": `"""Parameter types convert the text of the command line."""


class IntType:
    name = "integer"

    def convert(self, value):
        try:
            return int(value)
        except ValueError:
            raise BadValue(f"{value!r} is not a valid {self.name}.")


class TextType:
    def convert(self, value):
        return str(value)
`,
		"pkg/errors.py": `class BadValue(Exception):
    def format_message(self, hint):
        return f"Invalid value for {hint}: {self.message}"
`,
		"pkg/options.py": `"""Options of a command line: names, counts, defaults."""


class Option:
    """An option of the command line, with its type and count."""

    def __init__(self, name, type=None, count=False, default=None):
        self.name = name
        self.type = type
        self.count = count
        self.default = default

    def get_usage(self):
        """The usage of the option as help shows it."""
        return "--%s" % self.name
`,
	}
	// Modules the report's words fit better than the two that print it.
	for _, m := range []string{"core", "formatting", "decorators", "parser"} {
		files["pkg/"+m+".py"] = fmt.Sprintf(`"""The %[1]s of the command line interface: options, usage, help."""


def %[1]s_usage(cli, options):
    """Show the usage of the cli and its options; try --help for help."""
    return "Usage: %%s [OPTIONS]" %% cli


def %[1]s_error(cli, option, count):
    """An error of an option of the cli: its type, its count, its value."""
    return "%%s: option %%s given %%d times" %% (cli, option, count)
`, m)
	}
	// More tests quoting the message whole than BM25's first candidates.
	for i := range 48 {
		files[fmt.Sprintf("tests/test_options_%d.py", i)] = fmt.Sprintf(`def test_count_%d(runner):
    result = runner.invoke(cli, ["--count", "x"])
    assert "Invalid value for '--count': 'x' is not a valid integer." in result.output
`, i)
	}
	e := openTest(t, testutil.WriteTree(t, files), t.TempDir())
	defer e.Close()
	if _, err := e.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	both := []string{"pkg/types.py", "pkg/errors.py"}
	for _, tc := range []struct {
		q    string
		want []string // the files formatting it
	}{
		{"Option with type=int shows a confusing error\n\n```\n$ cli --count x\nUsage: cli [OPTIONS]\n" +
			"Try 'cli --help' for help.\n\nError: Invalid value for '--count': 'x' is not a valid integer.\n```\n", both},
		// One run of the template.
		{"Option with type=int shows a confusing error\n\n```\nError: 'x' is not a valid integer.\n```\n", both[:1]},
		// Quoted in the prose.
		{"Option with type=int shows a confusing error\n" +
			"It says \"Invalid value for '--count': 'x' is not a valid integer.\" where the count is meant.", both},
	} {
		hits := query(t, e, tc.q)
		var ranked []string
		byMessage := map[string]bool{}
		for _, h := range hits {
			if !slices.Contains(ranked, h.Path) {
				ranked = append(ranked, h.Path)
			}
			byMessage[h.Path] = byMessage[h.Path] || slices.Contains(h.Sources, "literal")
		}
		for _, want := range tc.want {
			if rank := slices.Index(ranked, want); rank < 0 || rank > 2 || !byMessage[want] {
				t.Errorf("%s, which formats the message, should be among the first three files, found by it: %v, found by the message: %v\n%s", want, ranked, byMessage, tc.q)
			}
		}
	}
	// A message the program printed names the definitions formatting it.
	syms := hitSymbols(query(t, e, "Option with type=int shows a confusing error\n\n```\n"+
		"Error: Invalid value for '--count': 'x' is not a valid integer.\n```\n"))
	for _, want := range []string{"IntType.convert", "BadValue.format_message"} {
		if i := slices.Index(syms, want); i < 0 || i > 2 {
			t.Errorf("%s formats the message: it should be among the first three hits: %v", want, syms)
		}
	}
	if got := templateParts("Invalid value for '--count': 'x' is not a valid integer."); !slices.Equal(got, []string{"Invalid value for", "is not a valid integer."}) {
		t.Errorf("templateParts: %q", got)
	}
	for msg, want := range map[string][]string{
		"index.html was not found":                     {"index.html was not found"},
		"Can't open 'config': the file doesn't exist":  {"Can't open", ": the file doesn't exist"},
		"'x' is not a valid integer value":             {"is not a valid integer value"},
		"No such command \"sync\".":                    {"No such command"},
		"rate limited, retry after 30.0s":              {"rate limited, retry after"},
		"unsupported protocol HTTP/2 on this listener": {"unsupported protocol HTTP/2 on this listener"},
		"illegal base64 data at input byte 4":          {"illegal base64 data at input byte"},
		"\"a\" \"b\"":                                  {"\"a\" \"b\""},
		"Ünïcode wörds before 'é' and «after» it":      {"Ünïcode wörds before", "and «after» it"},
	} {
		if got := templateParts(msg); !slices.Equal(got, want) {
			t.Errorf("templateParts(%q) = %q, want %q", msg, got, want)
		}
	}
	// The line where the run starts.
	if run, line := runIn(words("is not a valid integer"), "def f():\n    x = 1\n    raise E(\n        f\"{v} is not\n a valid {n}\")\n"); run != 4 || line != 3 {
		t.Errorf("runIn: run %d at line %d, want 4 at line 3", run, line)
	}
}

// TestPerFileCap: a long result list holds at most the workspace's bound
// of one file's hits (10 by default), so it reaches further files; a
// negative bound (packs: they spread over files themselves) lifts it.
func TestPerFileCap(t *testing.T) {
	var big strings.Builder
	big.WriteString("package shop\n")
	for i := range 14 {
		fmt.Fprintf(&big, "\n// refund%d computes a refund.\nfunc refund%d(cents int) int { return -cents * %d }\n", i, i, i+1)
	}
	e, _ := indexedEngine(t, map[string]string{
		"big.go":   big.String(),
		"small.go": "package shop\n\n// Refundable reports whether an order can get a refund.\nfunc Refundable(state int) bool { return state < 3 }\n",
	})
	defer e.Close()
	count := func(capN int) map[string]int {
		s := e.Snapshot()
		defer s.Release()
		res, err := s.Search(context.Background(), SearchRequest{Query: "refund", K: 20, PerFileCap: capN})
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, h := range res.Hits {
			n[h.Path]++
		}
		return n
	}
	if n := count(0); n["big.go"] != 10 || n["small.go"] != 1 {
		t.Errorf("default bound: hits per file %v, want big.go 10 and small.go 1", n)
	}
	if n := count(-1); n["big.go"] != 14 {
		t.Errorf("no bound: hits per file %v, want all 14 of big.go", n)
	}
}
