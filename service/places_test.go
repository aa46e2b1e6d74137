package service

import (
	"context"
	"strings"
	"testing"
)

// pyApp is a small Python package in flask's shape: a module-level helper
// and a method of the same name, a large class, a README that names the
// class but not the method.
var pyApp = map[string]string{
	"README.md": "# Shop\n\nShop is a tiny web framework. Create an `App` and register views.\n",
	"shop/helpers.py": "def url_for(endpoint):\n    \"\"\"Builds the URL of an endpoint of the current app.\"\"\"\n" +
		"    return current_app().url_for(endpoint)\n\n\ndef current_app():\n    \"\"\"The application handling the current request.\n\n" +
		"    It is the last App made in this process; a process serves one application,\n    and its views, configuration and URL map live on it.\n    \"\"\"\n    return App.instance\n",
	"shop/app.py": "from .helpers import url_for\n\n\nclass App:\n    \"\"\"The application: views, configuration.\"\"\"\n\n    instance = None\n\n" +
		"    def __init__(self):\n        self.views = {}\n        App.instance = self\n\n" +
		"    def dispatch_request(self, path):\n        view = self.views.get(path)\n        if view is None:\n            raise KeyError(path)\n        return self.finish(view())\n\n" +
		"    def finish(self, rv):\n        return str(rv)\n\n" +
		"    def url_for(self, endpoint):\n        return \"/\" + endpoint\n" +
		"\n    def filler(self):\n        return self.views\n",
}

// TestLineOfAMethodHeader: a line given without a column, or a column in
// its indentation, is the innermost definition holding the line — the
// method whose "def" line it is, not its class (issue 25, item 5).
func TestLineOfAMethodHeader(t *testing.T) {
	s := newService(t, pyApp)
	ctx := context.Background()
	rel, err := s.Related(ctx, RelatedRequest{Selection: Selection{Target: Target{File: "shop/app.py", Line: 13}}})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Symbol != "App.dispatch_request" || rel.Selection.Range.StartLine != 13 || rel.Selection.Range.EndLine != 17 {
		t.Errorf("related at line 13 (no column) is %q at %+v, want App.dispatch_request 13-17", rel.Symbol, rel.Selection.Range)
	}
	for _, col := range []int{1, 3} {
		h, err := s.Hover(ctx, PositionRequest{File: "shop/app.py", Line: 13, Column: col})
		if err != nil {
			t.Fatal(err)
		}
		if h.Definition == nil || h.Definition.Name != "dispatch_request" {
			t.Errorf("hover at 13:%d (the def line's indentation) = %+v, want dispatch_request", col, h.Definition)
		}
	}
	// Inside the method's body, a column on a word is that word.
	h, err := s.Hover(ctx, PositionRequest{File: "shop/app.py", Line: 17, Column: 21})
	if err != nil {
		t.Fatal(err)
	}
	if h.Definition == nil || h.Definition.Name != "finish" {
		t.Errorf("hover on self.finish = %+v, want finish", h.Definition)
	}
}

// TestBoundedAnswers: related honours its budget by skipping what does not
// fit (a smaller item further down still comes) and says what it left out;
// a list of every definition is bounded and says how many more there are
// (issue 25, item 5).
func TestBoundedAnswers(t *testing.T) {
	s := newService(t, pyApp)
	ctx := context.Background()
	sel := Selection{Target: Target{Symbol: "helpers.url_for"}}
	all, err := s.Related(ctx, RelatedRequest{Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Items) < 2 || all.More != 0 || all.Items[0].Tokens <= all.Items[1].Tokens {
		t.Fatalf("related without a budget: %+v, %d more (want a large item, then a smaller one)", all.Items, all.More)
	}
	// A budget the first item does not fit, the second does.
	budget := all.Items[1].Tokens
	small, err := s.Related(ctx, RelatedRequest{Selection: sel, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, it := range small.Items {
		used += it.Tokens
	}
	if len(small.Items) == 0 || used > budget || small.More == 0 || !strings.Contains(strings.Join(small.Notes, "\n"), "left out") {
		t.Errorf("related within %d tokens: %d items of %d tokens, %d more, notes %q", budget, len(small.Items), used, small.More, small.Notes)
	}
	syms, err := s.Symbols(ctx, SymbolsRequest{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(syms.Symbols) != 2 || syms.More == 0 {
		t.Errorf("symbols with limit 2: %d, %d more", len(syms.Symbols), syms.More)
	}
	file, err := s.Symbols(ctx, SymbolsRequest{File: "shop/app.py"})
	if err != nil {
		t.Fatal(err)
	}
	if file.More != 0 || len(file.Symbols) < 6 {
		t.Errorf("a file's definitions: %d, %d more", len(file.Symbols), file.More)
	}
}

// TestBareNameSelectsEveryDefinition: a pack for a bare name takes each of
// the definitions so named, as the symbol argument says (issue 25, item 5).
func TestBareNameSelectsEveryDefinition(t *testing.T) {
	s := newService(t, pyApp)
	p, err := s.Pack(context.Background(), PackRequest{Selection: Selection{Target: Target{Symbol: "url_for"}}, Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	selected := map[string]bool{}
	for _, it := range p.Items {
		if it.Kind == "selection" {
			selected[it.Symbol] = true
		}
	}
	if !selected["url_for"] || !selected["App.url_for"] {
		t.Errorf("selections of url_for: %v\n%s", selected, p.Text)
	}
}

// TestReasonsAreTrue: a document is included as mentioning a name only
// when it holds that name; the README names the class, not the method the
// selection is (issue 25, item 6).
func TestReasonsAreTrue(t *testing.T) {
	s := newService(t, pyApp)
	rel, err := s.Related(context.Background(), RelatedRequest{Selection: Selection{Target: Target{File: "shop/app.py", Line: 13}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range rel.Items {
		name, ok := strings.CutPrefix(it.Reason, "mentions ")
		if ok && !strings.Contains(it.Text, name) {
			t.Errorf("%s: %q, but its text does not hold %q", it.Path, it.Reason, name)
		}
		if it.Path == "README.md" {
			t.Errorf("README.md is related to App.dispatch_request: %q", it.Reason)
		}
	}
}
