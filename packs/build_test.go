package packs

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// fixtureCandidates reads testdata/repo-candidates.json and fills each
// candidate's text from the fixture repository.
func fixtureCandidates(t testing.TB) []Candidate {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "repo-candidates.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		Path, Lines, Symbol, Kind, Source, Reason, IncludeMode string
		Score                                                  float64
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	var out []Candidate
	for _, r := range raw {
		a, b, _ := strings.Cut(r.Lines, "-")
		start, _ := strconv.Atoi(a)
		end, _ := strconv.Atoi(b)
		src, err := os.ReadFile(filepath.Join("testdata", "repo", filepath.FromSlash(r.Path)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(src), "\n")
		if start < 1 || end > len(lines) || start > end {
			t.Fatalf("%s: lines %s outside the file (%d lines)", r.Path, r.Lines, len(lines))
		}
		out = append(out, Candidate{
			Path: r.Path, StartLine: start, EndLine: end, Symbol: r.Symbol, Kind: r.Kind,
			Text: strings.Join(lines[start-1:end], ""), Score: r.Score, Source: r.Source,
			Reason: r.Reason, IncludeMode: r.IncludeMode,
		})
	}
	return out
}

var formatExt = map[string]string{FormatMarkdown: "md", FormatXML: "xml", FormatJSON: "json", FormatPlain: "txt"}

func TestGoldenPacks(t *testing.T) {
	cands := fixtureCandidates(t)
	secrets := []string{"l3dger-Pa55", "ghp_Zq8rT4mN2pLx7Vb9Kc3Hs6Jd1Fw5Ga0Ey2Uq"}
	for _, sc := range []struct {
		name   string
		budget int
		task   string
	}{
		{"review-900", 900, TaskReview},
		{"testing-900", 900, TaskTesting},
		{"review-300", 300, TaskReview},
	} {
		for _, format := range Formats {
			t.Run(sc.name+"/"+format, func(t *testing.T) {
				p, err := Build(Request{Budget: sc.budget, Format: format, Task: sc.task}, cands)
				if err != nil {
					t.Fatal(err)
				}
				if n := tokensOf(format, p.Text, p.Items); n != p.Tokens || n > sc.budget {
					t.Errorf("text has %d tokens, pack says %d, budget %d", n, p.Tokens, sc.budget)
				}
				for _, s := range secrets {
					if strings.Contains(p.Text, s) {
						t.Errorf("secret %q in the pack", s)
					}
				}
				checkRoundTrip(t, format, p)
				checkGolden(t, filepath.Join("golden", sc.name+"."+formatExt[format]), p.Text)
				if format == FormatJSON {
					p.LatencyMs = 0
					js, err := json.MarshalIndent(p, "", "  ")
					if err != nil {
						t.Fatal(err)
					}
					checkGolden(t, filepath.Join("golden", sc.name+".pack.json"), string(js)+"\n")
				}
			})
		}
	}
}

// checkRoundTrip parses the rendered text back (xml, json) and compares the
// snippets with the pack's items.
func checkRoundTrip(t *testing.T, format string, p Pack) {
	t.Helper()
	switch format {
	case FormatJSON:
		if p.Text == "" {
			return
		}
		var items []Item
		if err := json.Unmarshal([]byte(p.Text), &items); err != nil {
			t.Fatalf("json text does not parse: %v\n%s", err, p.Text)
		}
		want := make([]Item, len(p.Items))
		for i, it := range p.Items {
			it.Language, it.Source, it.Shortened = "", "", false
			want[i] = it
		}
		if !reflect.DeepEqual(items, want) {
			t.Errorf("json text items differ from pack items")
		}
	case FormatXML:
		if p.Text == "" {
			return
		}
		dec := xml.NewDecoder(strings.NewReader(p.Text))
		var texts []string
		var attrs []map[string]string
		var cur *strings.Builder
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("xml does not parse: %v\n%s", err, p.Text)
			}
			switch x := tok.(type) {
			case xml.StartElement:
				if x.Name.Local == "snippet" {
					cur = &strings.Builder{}
					m := map[string]string{}
					for _, a := range x.Attr {
						m[a.Name.Local] = a.Value
					}
					attrs = append(attrs, m)
				}
			case xml.CharData:
				if cur != nil {
					cur.Write(x)
				}
			case xml.EndElement:
				if x.Name.Local == "snippet" {
					texts = append(texts, strings.TrimPrefix(cur.String(), "\n"))
					cur = nil
				}
			}
		}
		if len(texts) != len(p.Items) {
			t.Fatalf("%d snippets for %d items", len(texts), len(p.Items))
		}
		for i, it := range p.Items {
			if texts[i] != xmlChars(it.Text) {
				t.Errorf("snippet %d text differs:\n%.300q\n%.300q", i, texts[i], it.Text)
			}
			if attrs[i]["path"] != it.Path || attrs[i]["label"] != label(it) || attrs[i]["reason"] != it.Reason {
				t.Errorf("snippet %d attributes %v differ from item %+v", i, attrs[i], it)
			}
		}
	}
}

// sized returns a Go function of about n tokens whose body is distinct for
// each id, so candidates built from it are never near duplicates.
func sized(id string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func %s() {\n", id)
	for i := 0; CountTokens(b.String()) < n-2; i++ {
		fmt.Fprintf(&b, "\tstep_%s_%d(%d)\n", id, i, i*7+len(id))
	}
	b.WriteString("}\n")
	return b.String()
}

func mkCand(path string, start int, id string, tokens int, score float64, source, mode string) Candidate {
	text := sized(id, tokens)
	return Candidate{Path: path, StartLine: start, EndLine: start + strings.Count(text, "\n") - 1, Symbol: id,
		Kind: "function", Text: text, Score: score, Source: source, IncludeMode: mode, Reason: source + " " + id}
}

// buildSteps builds a pack of Go candidates (mkCand's) whose every body
// line bears on the request, as the engine's weights make the lines of a
// hit do: a shortened item keeps lines, not a summary.
func buildSteps(t *testing.T, req Request, cs []Candidate) Pack {
	t.Helper()
	for i := range cs {
		cs[i].Language = "go"
	}
	req.IncludeScore = 0.99
	req.LineWeight = func(line string) float64 {
		if strings.Contains(line, "step_") {
			return 1
		}
		return 0
	}
	p, err := Build(req, cs)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// shownTokens maps each item's symbol to the tokens it shows.
func shownTokens(p Pack) map[string]int {
	m := map[string]int{}
	for _, it := range p.Items {
		m[it.Symbol] = it.Tokens
	}
	return m
}

func symbolsOf(p Pack) []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, it.Symbol)
	}
	return out
}

func has(p Pack, sym string) bool {
	for _, it := range p.Items {
		if it.Symbol == sym {
			return true
		}
	}
	return false
}

func TestIncludeModes(t *testing.T) {
	t.Run("always then manual then agent", func(t *testing.T) {
		cs := []Candidate{
			mkCand("a.go", 1, "agentTop", 60, 1, SourceQuery, ""),
			mkCand("b.go", 1, "pinnedLow", 60, 0.1, SourcePinned, ModeManual),
			mkCand("c.go", 1, "ruleLow", 60, 0.1, SourceAlways, ModeAlways),
		}
		p, err := Build(Request{Budget: 160}, cs)
		if err != nil {
			t.Fatal(err)
		}
		if got := symbolsOf(p); !reflect.DeepEqual(got, []string{"ruleLow", "pinnedLow"}) {
			t.Errorf("items %v, want the rule then the pin and no room for the agent item", got)
		}
		if p.Items[0].IncludeMode != ModeAlways || p.Items[1].IncludeMode != ModeManual {
			t.Errorf("include modes %q %q", p.Items[0].IncludeMode, p.Items[1].IncludeMode)
		}
		if p.Dropped != 1 {
			t.Errorf("dropped %d, want 1", p.Dropped)
		}
	})
	t.Run("always items over budget", func(t *testing.T) {
		cs := []Candidate{
			mkCand("r1.md", 1, "rule1", 70, 1, SourceAlways, ModeAlways),
			mkCand("r2.md", 1, "rule2", 70, 0.9, SourceAlways, ModeAlways),
			mkCand("r3.md", 1, "rule3", 70, 0.8, SourceAlways, ModeAlways),
			mkCand("a.go", 1, "agent", 10, 1, SourceQuery, ""),
		}
		p, err := Build(Request{Budget: 180, Format: FormatPlain}, cs)
		if err != nil {
			t.Fatal(err)
		}
		if has(p, "agent") {
			t.Error("an agent item got in although the always items exceed the budget")
		}
		if !has(p, "rule1") || !has(p, "rule2") {
			t.Errorf("items %v, want rule1 and rule2 in full or shortened", symbolsOf(p))
		}
		if p.Dropped < 1 || len(p.Notes) == 0 || !strings.Contains(strings.Join(p.Notes, "\n"), "always item") {
			t.Errorf("dropped %d, notes %q: want the over-budget always item reported", p.Dropped, p.Notes)
		}
		if p.Tokens > 180 {
			t.Errorf("%d tokens > budget", p.Tokens)
		}
	})
	t.Run("includeScore and topN", func(t *testing.T) {
		var cs []Candidate
		for i := 0; i < 3; i++ {
			cs = append(cs, mkCand(fmt.Sprintf("h%d.go", i), 1, fmt.Sprintf("high%d", i), 30, 0.9, SourceQuery, ""))
			cs = append(cs, mkCand(fmt.Sprintf("l%d.go", i), 1, fmt.Sprintf("low%d", i), 30, 0.5, SourceQuery, ""))
		}
		for _, c := range []struct {
			topN       int
			high, lows int
		}{{1, 3, 0}, {4, 3, 1}, {20, 3, 3}} {
			p, err := Build(Request{Budget: 2000, TopN: c.topN}, cs)
			if err != nil {
				t.Fatal(err)
			}
			high, lows := 0, 0
			for _, it := range p.Items {
				if strings.HasPrefix(it.Symbol, "high") {
					high++
				} else {
					lows++
				}
			}
			if high != c.high || lows != c.lows {
				t.Errorf("topN %d: %d high and %d low items, want %d and %d", c.topN, high, lows, c.high, c.lows)
			}
		}
	})
}

func TestTaskPriorities(t *testing.T) {
	var cs []Candidate
	for i := 0; i < 8; i++ {
		cs = append(cs, mkCand(fmt.Sprintf("t%d_test.go", i), 1, fmt.Sprintf("Test%d", i), 40, 0.6, SourceTest, ""))
		cs = append(cs, mkCand(fmt.Sprintf("c%d.go", i), 1, fmt.Sprintf("caller%d", i), 40, 0.6, SourceCaller, ""))
	}
	count := func(p Pack, prefix string) int {
		n := 0
		for _, it := range p.Items {
			if strings.HasPrefix(it.Symbol, prefix) {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		task  string
		prios map[string]map[string]float64
		more  string // the prefix that must win
	}{
		{TaskTesting, nil, "Test"},
		{TaskReview, nil, "caller"},
		{"custom", map[string]map[string]float64{"custom": {SourceCaller: 1}}, "caller"},
	} {
		p, err := Build(Request{Budget: 420, Task: c.task, Priorities: c.prios}, cs)
		if err != nil {
			t.Fatal(err)
		}
		tests, callers := count(p, "Test"), count(p, "caller")
		if (c.more == "Test" && tests <= callers) || (c.more == "caller" && callers <= tests) {
			t.Errorf("task %s: %d tests and %d callers, want more %s items", c.task, tests, callers, c.more)
		}
	}
	// Unused share flows: with only tests present, tests fill the budget
	// whatever the task.
	var tests []Candidate
	for _, c := range cs {
		if c.Source == SourceTest {
			tests = append(tests, c)
		}
	}
	p, err := Build(Request{Budget: 420, Task: TaskDocumentation}, tests)
	if err != nil {
		t.Fatal(err)
	}
	if p.Tokens < 420*3/4 {
		t.Errorf("only %d of 420 tokens used: the shares of absent sources did not flow", p.Tokens)
	}
}

func TestDeduplication(t *testing.T) {
	base := sized("shared", 400)
	near := strings.Replace(base, "step_shared_3(", "step_shared_3x(", 1)
	other := sized("other", 400)
	cs := []Candidate{
		{Path: "a.go", StartLine: 1, EndLine: 10, Symbol: "a", Text: base, Score: 0.9},
		{Path: "b.go", StartLine: 1, EndLine: 10, Symbol: "b", Text: strings.ReplaceAll(base, "\n", "  \r\n"), Score: 0.8},
		{Path: "c.go", StartLine: 1, EndLine: 10, Symbol: "c", Text: near, Score: 0.85},
		{Path: "d.go", StartLine: 1, EndLine: 10, Symbol: "d", Text: other, Score: 0.5},
	}
	p, err := Build(Request{Budget: 4000}, cs)
	if err != nil {
		t.Fatal(err)
	}
	if got := symbolsOf(p); !reflect.DeepEqual(got, []string{"a", "d"}) {
		t.Errorf("items %v, want a (best of three copies) and d", got)
	}
	// The embedding hook decides similarity when both candidates have one.
	v := []float32{1, 2, 3}
	cs = []Candidate{
		{Path: "x.go", StartLine: 1, EndLine: 5, Symbol: "x", Text: sized("x", 50), Score: 0.9, Embedding: v},
		{Path: "y.go", StartLine: 1, EndLine: 5, Symbol: "y", Text: sized("y", 50), Score: 0.8, Embedding: []float32{2, 4, 6.01}},
		{Path: "z.go", StartLine: 1, EndLine: 5, Symbol: "z", Text: sized("z", 50), Score: 0.7, Embedding: []float32{3, -2, 0}},
	}
	p, err = Build(Request{Budget: 4000}, cs)
	if err != nil {
		t.Fatal(err)
	}
	if got := symbolsOf(p); !reflect.DeepEqual(got, []string{"x", "z"}) {
		t.Errorf("items %v, want x and z (y's embedding duplicates x's)", got)
	}
	// An item whose lines a selected item already shows is left out.
	full := mkCand("f.go", 1, "Full", 80, 0.9, SourceQuery, "")
	part := full
	part.Symbol, part.EndLine, part.Score, part.Source = "Part", 3, 0.8, SourceDefinition
	part.Text = strings.Join(strings.SplitAfter(full.Text, "\n")[:3], "")
	p, err = Build(Request{Budget: 4000}, []Candidate{part, full})
	if err != nil {
		t.Fatal(err)
	}
	if got := symbolsOf(p); !reflect.DeepEqual(got, []string{"Full"}) {
		t.Errorf("items %v, want only Full (it contains Part)", got)
	}
	if p.Dropped != 0 {
		t.Errorf("dropped %d: duplicates are not dropped for budget", p.Dropped)
	}
}

func TestMMRAcrossFiles(t *testing.T) {
	var cs []Candidate
	for i, s := range []float64{0.9, 0.88, 0.86} {
		cs = append(cs, mkCand("a.go", 1+i*20, fmt.Sprintf("a%d", i), 60, s, SourceQuery, ""))
	}
	for i, s := range []float64{0.8, 0.79, 0.78} {
		cs = append(cs, mkCand("b.go", 1+i*20, fmt.Sprintf("b%d", i), 60, s, SourceQuery, ""))
	}
	one, err := Build(Request{Budget: 1000}, cs[:1])
	if err != nil {
		t.Fatal(err)
	}
	budget := 3*one.Tokens + one.Tokens/2 // room for three items, not four
	files := func(lambda float64) map[string]int {
		// IncludeScore above every score: all six compete on value per token.
		p, err := Build(Request{Budget: budget, MMRLambda: lambda, IncludeScore: 0.99}, cs)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != 3 {
			t.Fatalf("λ=%v: %d items, want 3: %v", lambda, len(p.Items), symbolsOf(p))
		}
		m := map[string]int{}
		for _, it := range p.Items {
			m[it.Path]++
		}
		return m
	}
	if m := files(0.7); m["b.go"] == 0 {
		t.Errorf("λ=0.7: %v, want both files", m)
	}
	if m := files(1); m["a.go"] != 3 {
		t.Errorf("λ=1 (relevance only): %v, want the three best, all in a.go", m)
	}
}

// TestBudgetDownTheRanking pins the order in which the budget is spent:
// the MMR order chooses the items, and a definition of the best file comes
// after a weaker one of another file there; the better item keeps more of
// its lines, and the weaker one stays in, shortened.
func TestBudgetDownTheRanking(t *testing.T) {
	cs := []Candidate{
		mkCand("a.go", 1, "best", 80, 1, SourceQuery, ""),
		mkCand("a.go", 100, "second", 600, 0.9, SourceQuery, ""),
		mkCand("b.go", 1, "other", 600, 0.6, SourceQuery, ""),
	}
	p := buildSteps(t, Request{Budget: 900}, cs)
	tokens := shownTokens(p)
	if len(tokens) != 3 {
		t.Fatalf("items %v, want all three", symbolsOf(p))
	}
	if tokens["second"] <= tokens["other"] {
		t.Errorf("second (0.9) shows %d tokens, other (0.6) %d: the better item should keep more", tokens["second"], tokens["other"])
	}
	if tokens["other"] < minItemTokens {
		t.Errorf("other shows %d tokens, want at least %d", tokens["other"], minItemTokens)
	}
}

// TestRespendKeepsShares: taking the items again in score order moves
// budget between the items of one source, never from a source the task
// gives a share to (a testing pack keeps its test).
func TestRespendKeepsShares(t *testing.T) {
	cs := []Candidate{
		mkCand("a.go", 1, "q1", 600, 0.9, SourceQuery, ""),
		mkCand("a.go", 100, "q2", 600, 0.85, SourceQuery, ""),
		mkCand("b.go", 1, "q3", 600, 0.8, SourceQuery, ""),
		mkCand("a_test.go", 1, "TestA", 800, 0.3, SourceTest, ""),
	}
	p := buildSteps(t, Request{Budget: 2000, Task: TaskTesting}, cs)
	for _, it := range p.Items {
		if it.Symbol == "TestA" {
			if it.Shortened {
				t.Errorf("the test was shortened to %d tokens; its share holds all of it", it.Tokens)
			}
			return
		}
	}
	t.Fatalf("no test in %v", symbolsOf(p))
}

func TestShortenedItem(t *testing.T) {
	long := mkCand("big.go", 10, "Big", 900, 1, SourceQuery, "")
	long.Text = "// Big does a lot.\n" + long.Text
	long.EndLine++
	long.Language = "go"
	p, err := Build(Request{Budget: 300}, []Candidate{long})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 1 {
		t.Fatalf("items %v, want the shortened function", symbolsOf(p))
	}
	it := p.Items[0]
	if !strings.Contains(it.Text, "lines elided") || !strings.HasPrefix(it.Text, "// Big does a lot.\nfunc Big() {\n") {
		t.Errorf("want signature and doc with the body elided, got:\n%s", it.Text)
	}
	if it.StartLine != 10 || it.EndLine != long.EndLine {
		t.Errorf("location %d-%d, want the original %d-%d", it.StartLine, it.EndLine, 10, long.EndLine)
	}
}

func TestScrubbedPack(t *testing.T) {
	c := Candidate{Path: "cfg.py", StartLine: 1, EndLine: 2, Symbol: "cfg", Score: 0.9,
		Text: "DB_PASSWORD = \"tiger-Pa55\"\nTICKET = \"T-123456\"\n"}
	p, err := Build(Request{Budget: 500, ScrubPatterns: []string{`T-[0-9]{6}`}}, []Candidate{c})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"tiger-Pa55", "T-123456"} {
		if strings.Contains(p.Text, s) || strings.Contains(p.Items[0].Text, s) {
			t.Errorf("%q survived scrubbing:\n%s", s, p.Text)
		}
	}
	if strings.Count(p.Text, Redacted) != 2 {
		t.Errorf("want two redactions:\n%s", p.Text)
	}
}

func TestBuildErrors(t *testing.T) {
	ok := Candidate{Path: "a.go", StartLine: 1, EndLine: 1, Text: "x := 1\n", Score: 0.5}
	for _, c := range []struct {
		name  string
		req   Request
		cands []Candidate
		want  error
	}{
		{"zero budget", Request{}, nil, ErrBudget},
		{"negative budget", Request{Budget: -5}, nil, ErrBudget},
		{"format", Request{Budget: 10, Format: "html"}, nil, ErrFormat},
		{"task", Request{Budget: 10, Task: "dance"}, nil, ErrTask},
		{"unknown source in priorities", Request{Budget: 10, Priorities: map[string]map[string]float64{"x": {"nope": 1}}}, nil, ErrRequest},
		{"negative share", Request{Budget: 10, Priorities: map[string]map[string]float64{TaskReview: {SourceQuery: -1}}}, nil, ErrRequest},
		{"lambda", Request{Budget: 10, MMRLambda: 2}, nil, ErrRequest},
		{"topN", Request{Budget: 10, TopN: -1}, nil, ErrRequest},
		{"includeScore NaN", Request{Budget: 10, IncludeScore: math.NaN()}, nil, ErrRequest},
		{"empty path", Request{Budget: 10}, []Candidate{{StartLine: 1, EndLine: 1, Text: "x"}}, ErrCandidate},
		{"line range", Request{Budget: 10}, []Candidate{{Path: "a", StartLine: 3, EndLine: 2, Text: "x"}}, ErrCandidate},
		{"zero line", Request{Budget: 10}, []Candidate{{Path: "a", StartLine: 0, EndLine: 2, Text: "x"}}, ErrCandidate},
		{"source", Request{Budget: 10}, []Candidate{{Path: "a", StartLine: 1, EndLine: 1, Text: "x", Source: "gossip"}}, ErrCandidate},
		{"mode", Request{Budget: 10}, []Candidate{{Path: "a", StartLine: 1, EndLine: 1, Text: "x", IncludeMode: "sometimes"}}, ErrCandidate},
		{"NaN score", Request{Budget: 10}, []Candidate{{Path: "a", StartLine: 1, EndLine: 1, Text: "x", Score: math.NaN()}}, ErrCandidate},
		{"path bytes", Request{Budget: 10}, []Candidate{{Path: "a\xff", StartLine: 1, EndLine: 1, Text: "x"}}, ErrCandidate},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Build(c.req, append(c.cands, ok))
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
	if _, err := Build(Request{Budget: 10, ScrubPatterns: []string{"("}}, nil); err == nil {
		t.Error("invalid scrub pattern accepted")
	}
	// Bad text is repaired or skipped, never an error.
	p, err := Build(Request{Budget: 200}, []Candidate{
		{Path: "bin.dat", StartLine: 1, EndLine: 1, Text: "\x00\x01ELF", Score: 1},
		{Path: "latin1.txt", StartLine: 1, EndLine: 1, Text: "caf\xe9\n", Score: 0.5},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 1 || p.Items[0].Text != "caf\uFFFD\n" {
		t.Errorf("items %+v, want only the repaired text", p.Items)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "binary") {
		t.Errorf("notes %q, want the skipped binary candidate", p.Notes)
	}
}

// randomCandidates draws a candidate set mixing fixture snippets with
// generated text full of rendering hazards.
func randomCandidates(r *rand.Rand, fixtures []Candidate) []Candidate {
	hazards := []string{"```", "]]>", "<snippet>", "\"quoted\"", "&amp;", "\t", "é漢字", "\r\n", "password = \"hunter22\"",
		"\x01", "`", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1TWDtkwtDDb\n-----END RSA PRIVATE KEY-----"}
	modes := []string{ModeAgent, ModeAgent, ModeAgent, ModeManual, ModeAlways}
	n := r.IntN(30)
	var out []Candidate
	for i := 0; i < n; i++ {
		var c Candidate
		if len(fixtures) > 0 && r.IntN(2) == 0 {
			c = fixtures[r.IntN(len(fixtures))]
			c.IncludeMode = ""
		} else {
			var b strings.Builder
			lines := 1 + r.IntN(40)
			for l := 0; l < lines; l++ {
				for w := r.IntN(12); w > 0; w-- {
					if r.IntN(8) == 0 {
						b.WriteString(hazards[r.IntN(len(hazards))])
					} else {
						fmt.Fprintf(&b, "w%d_%d", i, r.IntN(1000))
					}
					b.WriteByte(' ')
				}
				b.WriteByte('\n')
			}
			// Generated text is prose: tree-sitter's error recovery on
			// random bytes is slow, and FuzzShorten covers it.
			c = Candidate{Path: fmt.Sprintf("dir%d/file%d.txt", r.IntN(4), r.IntN(6)), StartLine: 1 + r.IntN(100),
				Symbol: fmt.Sprintf("sym%d", i), Kind: "text", Text: b.String(), Language: []string{"", "markdown"}[r.IntN(2)]}
			c.EndLine = c.StartLine + lines - 1
		}
		c.Score = r.Float64()
		c.Source = Sources[r.IntN(8)]
		c.IncludeMode = modes[r.IntN(len(modes))]
		out = append(out, c)
	}
	return out
}

// TestBudgetNeverExceeded is the property test: for random budgets, formats,
// tasks and candidate sets the rendered pack never has more tokens than the
// budget, reports its size exactly, and keeps every item's location.
func TestBudgetNeverExceeded(t *testing.T) {
	fixtures := fixtureCandidates(t)
	r := rand.New(rand.NewPCG(1, 2))
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	for i := 0; i < rounds; i++ {
		cands := randomCandidates(r, fixtures)
		req := Request{
			Budget: 1 + r.IntN(1500), Format: Formats[r.IntN(len(Formats))], Task: Tasks[r.IntN(len(Tasks))],
			TopN: r.IntN(25), MMRLambda: r.Float64(),
		}
		p, err := Build(req, cands)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if n := tokensOf(req.Format, p.Text, p.Items); n > req.Budget || n != p.Tokens {
			t.Fatalf("round %d (%s, budget %d): text has %d tokens, pack says %d", i, req.Format, req.Budget, n, p.Tokens)
		}
		for _, it := range p.Items {
			if it.StartLine < 1 || it.EndLine < it.StartLine || it.Path == "" {
				t.Fatalf("round %d: item without a location: %+v", i, it)
			}
			if strings.Contains(it.Text, "hunter22") || strings.Contains(it.Text, "MIIEpAIBAAKCAQEA1TWDtkwtDDb") {
				t.Fatalf("round %d: secret in item %s", i, it.Path)
			}
		}
		checkRoundTrip(t, req.Format, p)
	}
}

func FuzzBuild(f *testing.F) {
	f.Add(100, "func f() {\n\treturn\n}\n", "password = \"x\"\n```\n]]>", uint8(0))
	f.Add(5, "a", "b", uint8(3))
	f.Fuzz(func(t *testing.T, budget int, a, b string, flags uint8) {
		if budget <= 0 || budget > 5000 || len(a)+len(b) > 8192 {
			return
		}
		format := Formats[int(flags)%len(Formats)]
		cands := []Candidate{
			{Path: "a.go", StartLine: 1, EndLine: 1 + strings.Count(a, "\n"), Text: a, Score: 0.9, Language: "go"},
			{Path: "b.py", StartLine: 1, EndLine: 1 + strings.Count(b, "\n"), Text: b, Score: 0.5, IncludeMode: []string{ModeAgent, ModeManual}[int(flags>>4)%2]},
		}
		p, err := Build(Request{Budget: budget, Format: format}, cands)
		if err != nil {
			t.Fatal(err)
		}
		if n := tokensOf(format, p.Text, p.Items); n > budget || n != p.Tokens {
			t.Fatalf("%d tokens, budget %d, reported %d", n, budget, p.Tokens)
		}
		checkRoundTrip(t, format, p)
	})
}

// TestNoSummaryAboveABody: a definition is not shown as its signature
// while a weaker one of its source keeps its body. Here the better item
// comes last in MMR order (it shares the best item's file), finds too
// little left for a shortened copy, and respend keeps back what the small
// weaker items cost: the weakest gives way to its summary, and the better
// item shows its lines.
func TestNoSummaryAboveABody(t *testing.T) {
	cs := []Candidate{
		mkCand("a.go", 1, "best", 80, 1, SourceQuery, ""),
		mkCand("a.go", 100, "better", 700, 0.6, SourceQuery, ""),
		mkCand("b.go", 1, "weakerB", 170, 0.5, SourceQuery, ""),
		mkCand("c.go", 1, "weakerC", 170, 0.45, SourceQuery, ""),
		mkCand("d.go", 1, "weakerD", 170, 0.4, SourceQuery, ""),
	}
	p := buildSteps(t, Request{Budget: 700}, cs)
	items := map[string]Item{}
	for _, it := range p.Items {
		items[it.Symbol] = it
	}
	if len(items) != 5 {
		t.Fatalf("items %v, want all five", symbolsOf(p))
	}
	better := items["better"]
	if strings.Count(better.Text, "step_") < 5 {
		t.Errorf("better (0.6) shows %d tokens:\n%s\nwant its lines, the weaker items giving way", better.Tokens, better.Text)
	}
	for _, weaker := range []string{"weakerB", "weakerC", "weakerD"} {
		if it := items[weaker]; strings.Count(it.Text, "step_") > strings.Count(better.Text, "step_") {
			t.Errorf("%s (weaker) shows more lines than better: %d tokens against %d", weaker, it.Tokens, better.Tokens)
		}
	}
}

// TestLongItemAfterSmallOnes: a long definition ranked after small better
// ones may take what they left of the first item's share, up to half of
// itself — not only maxItemShare, which shows too little of it to read.
func TestLongItemAfterSmallOnes(t *testing.T) {
	cs := []Candidate{
		mkCand("a.go", 1, "tiny1", 90, 1, SourceQuery, ""),
		mkCand("a.go", 20, "tiny2", 90, 0.9, SourceQuery, ""),
		mkCand("a.go", 40, "long", 2400, 0.8, SourceQuery, ""),
		mkCand("b.go", 1, "other", 300, 0.5, SourceQuery, ""),
	}
	p := buildSteps(t, Request{Budget: 2000}, cs)
	for _, it := range p.Items {
		if it.Symbol == "long" {
			if it.Tokens < 2400*45/100 { // about half: shortening lands under its target
				t.Errorf("long shows %d of its 2400 tokens, want about half", it.Tokens)
			}
			return
		}
	}
	t.Errorf("long is not in the pack: %v", symbolsOf(p))
}

// When the evidence points at one file, its next definition is worth more
// than a weak one of another file; when files are close, the pack still
// spreads over them.
func TestDominantFileSpreadsLess(t *testing.T) {
	dominant := []Candidate{
		mkCand("a.go", 1, "best", 200, 1, SourceQuery, ""),
		mkCand("a.go", 40, "second", 300, 0.3, SourceQuery, ""),
		mkCand("b.go", 1, "weak", 300, 0.04, SourceQuery, ""),
	}
	p := buildSteps(t, Request{Budget: 600}, dominant)
	shown := shownTokens(p)
	if shown["second"] < 150 || shown["second"] <= shown["weak"] {
		t.Errorf("one file dominates: pack %v, want second shown at least half (300 tokens) and more than weak", shown)
	}
	close := []Candidate{
		mkCand("a.go", 1, "best", 200, 1, SourceQuery, ""),
		mkCand("a.go", 40, "second", 300, 0.6, SourceQuery, ""),
		mkCand("b.go", 1, "other", 300, 0.5, SourceQuery, ""),
	}
	p = buildSteps(t, Request{Budget: 600}, close)
	shown = shownTokens(p)
	if shown["other"] <= shown["second"] {
		t.Errorf("two files are close: pack %v, want other shown more than second", shown)
	}
}

// An item the selection cut short while weaker items of its file keep
// their bodies is shown whole once those give way: the budget is spent
// down the ranking. Here better is chosen shortened to the query's share
// of the budget, and the weak items after it.
func TestWeakerItemsOfAFileGiveWay(t *testing.T) {
	cs := []Candidate{
		mkCand("a.go", 1, "best", 666, 1, SourceQuery, ""),
		mkCand("a.go", 100, "better", 950, 0.5, SourceQuery, ""),
		mkCand("c.go", 1, "callee", 100, 0.1, SourceCallee, ""),
	}
	for i := range 5 {
		cs = append(cs, mkCand("a.go", 300+20*i, fmt.Sprintf("weak%d", i+1), 250, 0.3-0.01*float64(i), SourceQuery, ""))
	}
	p := buildSteps(t, Request{Budget: 2000}, cs)
	for _, it := range p.Items {
		if it.Symbol == "better" {
			if it.Shortened {
				t.Errorf("better is shortened to %d tokens beside weaker items of its file: %v", it.Tokens, symbolsOf(p))
			}
			return
		}
	}
	t.Errorf("better is not in the pack: %v", symbolsOf(p))
}
