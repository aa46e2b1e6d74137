package packing

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/testutil"

	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/workspace"
)

var packFixture = map[string]string{
	"ledger/ledger.go": `package ledger

import "errors"

// ErrOverdraft is returned when a transfer would overdraw an account.
var ErrOverdraft = errors.New("ledger: overdraft")

// Account holds a balance in cents.
type Account struct {
	ID      string
	Balance int64
}

// Transfer moves amount between two accounts and refuses to overdraw.
func Transfer(from, to *Account, amount int64) error {
	if from.Balance < amount {
		return ErrOverdraft
	}
	from.Balance -= amount
	to.Balance += amount
	return nil
}
`,
	"ledger/report.go": `package ledger

import "fmt"

// Settle empties one account into another.
func Settle(from, to *Account) error {
	if err := Transfer(from, to, from.Balance); err != nil {
		return fmt.Errorf("settle %s: %w", from.ID, err)
	}
	return nil
}
`,
	"ledger/ledger_test.go": `package ledger

import "testing"

func TestTransfer(t *testing.T) {
	a, b := &Account{Balance: 5}, &Account{}
	if err := Transfer(a, b, 3); err != nil || b.Balance != 3 {
		t.Fatal(err)
	}
}
`,
	"docs/ledger.md":             "# Ledger\n\n## Settling accounts\n\nSettle moves the whole balance with one Transfer.\n",
	"config/app.env":             "LEDGER_DB=postgres://ledger:s3cret-Pa55@db:5432/ledger\n",
	".context-ls/rules/style.md": "Money is int64 cents.\n",
}

// indexedEngine indexes files in a new workspace; the caller closes the
// engine.
func indexedEngine(t *testing.T, files map[string]string) (*engine.Engine, string) {
	t.Helper()
	root := testutil.WriteTree(t, files)
	e, err := engine.Open(context.Background(), root, engine.Options{DBDir: filepath.Join(t.TempDir(), "db"), Config: workspace.DefaultConfig(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(context.Background(), nil); err != nil {
		e.Close()
		t.Fatal(err)
	}
	return e, root
}

func buildPack(t *testing.T, e *engine.Engine, req Request) packs.Pack {
	t.Helper()
	s := e.Snapshot()
	defer s.Release()
	p, err := Pack(context.Background(), s, req)
	if err != nil {
		t.Fatal(err)
	}
	if n := packs.CountTokens(p.Text); n != p.Tokens || (req.Budget > 0 && n > req.Budget) {
		t.Fatalf("pack text has %d tokens, reports %d, budget %d", n, p.Tokens, req.Budget)
	}
	return p
}

func findItem(p packs.Pack, path, reason string) *packs.Item {
	for i := range p.Items {
		if p.Items[i].Path == path && strings.Contains(p.Items[i].Reason, reason) {
			return &p.Items[i]
		}
	}
	return nil
}

func TestPackQuery(t *testing.T) {
	e, _ := indexedEngine(t, packFixture)
	defer e.Close()
	p := buildPack(t, e, Request{Query: "transfer money between accounts without overdraft", Budget: 600})
	if findItem(p, "ledger/ledger.go", "query match") == nil {
		t.Errorf("no query match from ledger.go in:\n%s", p.Text)
	}
	rule := findItem(p, ".context-ls/rules/style.md", "rule")
	if rule == nil || rule.IncludeMode != packs.ModeAlways || p.Items[0].Path != rule.Path {
		t.Errorf("the rules file must come first as an always item:\n%s", p.Text)
	}
	if p.Format != packs.FormatMarkdown || p.LatencyMs <= 0 {
		t.Errorf("format %q, latency %v", p.Format, p.LatencyMs)
	}
}

func TestPackSelection(t *testing.T) {
	e, root := indexedEngine(t, packFixture)
	defer e.Close()
	// Settle's body (lines 6-11 of report.go).
	sel := &Selection{Path: "ledger/report.go", StartLine: 6, EndLine: 11}
	p := buildPack(t, e, Request{Selections: []Selection{*sel}, Budget: 800, Format: packs.FormatXML})
	def := findItem(p, "ledger/ledger.go", "definition of Transfer")
	if def == nil || !strings.Contains(def.Text, "func Transfer(") {
		t.Fatalf("no definition of Transfer in:\n%s", p.Text)
	}
	if findItem(p, "docs/ledger.md", "mentions Settle") == nil {
		t.Errorf("no doc section mentioning Settle in:\n%s", p.Text)
	}
	// The selection leads the pack (it is pasted where the code is not),
	// once: nothing else overlapping it comes back as context.
	selItem := findItem(p, "ledger/report.go", "the selection")
	if selItem == nil || selItem.IncludeMode != packs.ModeAlways || selItem.StartLine != 6 || selItem.EndLine != 11 ||
		!strings.Contains(selItem.Text, "func Settle(") {
		t.Fatalf("the selection is not in the pack as an always item:\n%s", p.Text)
	}
	for _, it := range p.Items {
		if it.Path == "ledger/report.go" && it.Reason != "the selection" && it.StartLine <= 11 && 6 <= it.EndLine {
			t.Errorf("context overlapping the selection: %+v", it)
		}
	}
	// Similar code comes from embeddings: either there are similar items
	// or the notes say why not.
	similar := false
	for _, it := range p.Items {
		similar = similar || it.Reason == "similar to selection"
	}
	if !similar && !strings.Contains(strings.Join(p.Notes, "\n"), "similar code skipped") {
		t.Errorf("notes %q: want similar items or the skipped source named", p.Notes)
	}
	// An absolute path in the workspace is the same selection.
	abs := *sel
	abs.Path = filepath.Join(root, "ledger", "report.go")
	s := e.Snapshot()
	defer s.Release()
	rel, err := Related(context.Background(), s, abs)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Selection.Path != "ledger/report.go" || len(rel.Items) < 2 || !strings.HasPrefix(rel.Items[0].Reason, "definition of Account") ||
		!strings.HasPrefix(rel.Items[1].Reason, "definition of Transfer") {
		t.Errorf("related: want the definitions of Account then Transfer (in order of use) first, got %+v", rel.Items)
	}
	for i := 1; i < len(rel.Items); i++ {
		if rel.Items[i].Score > rel.Items[i-1].Score {
			t.Errorf("related items not best first: %v after %v", rel.Items[i].Score, rel.Items[i-1].Score)
		}
	}
	// The editor's unsaved buffer is what the selection means.
	edited := strings.Replace(packFixture["ledger/report.go"], "Transfer(from, to, from.Balance)", "Transfer(from, to, Fee(from))", 1) +
		"\n// Fee is what settling costs.\nfunc Fee(a *Account) int64 { return 1 }\n"
	sel.Content = []byte(edited)
	if err := e.UpdateOverlay(context.Background(), "ledger/report.go", []byte(edited)); err != nil {
		t.Fatal(err)
	}
	p = buildPack(t, e, Request{Selections: []Selection{*sel}, Budget: 800})
	if findItem(p, "ledger/report.go", "definition of Fee") == nil {
		t.Errorf("no definition of Fee from the edited buffer in:\n%s", p.Text)
	}
	sel.Content = nil // the overlay is read back from the index
	p = buildPack(t, e, Request{Selections: []Selection{*sel}, Budget: 800})
	if findItem(p, "ledger/report.go", "definition of Fee") == nil {
		t.Errorf("no definition of Fee from the indexed overlay in:\n%s", p.Text)
	}
}

func TestPackGraph(t *testing.T) {
	e, _ := indexedEngine(t, packFixture)
	defer e.Close()
	s := e.Snapshot()
	defer s.Release()
	// Transfer's body: its caller Settle and its test come along.
	rel, err := Related(context.Background(), s, Selection{Path: "ledger/ledger.go", StartLine: 16, EndLine: 20})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ledger/report.go":      "caller of Transfer",
		"ledger/ledger_test.go": "test of Transfer",
	}
	for path, reason := range want {
		found := false
		for _, it := range rel.Items {
			if it.Path == path && strings.Contains(it.Reason, reason) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %q from %s in %+v", reason, path, rel.Items)
		}
	}
	// Settle's body: Transfer is both used (definition) and called (callee);
	// the pack shows it once.
	p := buildPack(t, e, Request{Selections: []Selection{{Path: "ledger/report.go", StartLine: 6, EndLine: 11}}, Budget: 2000})
	n := 0
	for _, it := range p.Items {
		if it.Path == "ledger/ledger.go" && strings.Contains(it.Text, "func Transfer(") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("Transfer appears %d times in:\n%s", n, p.Text)
	}
}

func TestPackCoChanged(t *testing.T) {
	e, root := indexedEngine(t, packFixture)
	defer e.Close()
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "ledger/ledger.go", "ledger/report.go"}, {"commit", "-q", "-m", "ledger"},
		{"add", "-A"}, {"commit", "-q", "-m", "rest"},
	} {
		testutil.Git(t, root, args...)
	}
	s := e.Snapshot()
	defer s.Release()
	rel, err := Related(context.Background(), s, Selection{Path: "ledger/report.go", StartLine: 6, EndLine: 11})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range rel.Items {
		if it.Path == "ledger/ledger.go" && it.Reason == "co-changed with ledger/report.go" {
			found = true
		}
	}
	if !found {
		t.Errorf("ledger.go not reported as co-changed: %+v", rel.Items)
	}
}

// TestPackPins: pinned files and ranges come into every pack as manual
// items, scrubbed like the rest, a range named by the definition it pins.
func TestPackPins(t *testing.T) {
	e, root := indexedEngine(t, packFixture)
	defer e.Close()
	if err := e.Pin(engine.Pin{Path: "config/app.env"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Pin(engine.Pin{Path: filepath.Join(root, "ledger", "ledger.go"), StartLine: 5, EndLine: 6}); err != nil {
		t.Fatal(err)
	}
	p := buildPack(t, e, Request{Query: "settle", Budget: 1000})
	pinned := findItem(p, "config/app.env", "pinned")
	if pinned == nil || pinned.IncludeMode != packs.ModeManual {
		t.Fatalf("no pinned item in:\n%s", p.Text)
	}
	if strings.Contains(p.Text, "s3cret-Pa55") || !strings.Contains(pinned.Text, packs.Redacted) {
		t.Errorf("the pinned secret was not scrubbed:\n%s", pinned.Text)
	}
	if it := findItem(p, "ledger/ledger.go", "pinned"); it == nil || it.StartLine != 5 || it.EndLine != 6 || it.Symbol != "ErrOverdraft" {
		t.Errorf("pinned range missing, moved or not named by its definition: %+v", it)
	}
	if err := e.UnpinAll(); err != nil {
		t.Fatal(err)
	}
	if p := buildPack(t, e, Request{Query: "settle", Budget: 1000}); findItem(p, "config/app.env", "pinned") != nil {
		t.Errorf("an unpinned file is still in the pack:\n%s", p.Text)
	}
}

func TestPackErrors(t *testing.T) {
	e, _ := indexedEngine(t, packFixture)
	defer e.Close()
	s := e.Snapshot()
	defer s.Release()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		req  Request
		want error
	}{
		{"nothing", Request{}, ErrNothingToPack},
		{"blank query", Request{Query: "  "}, ErrNothingToPack},
		{"lines past the end", Request{Selections: []Selection{{Path: "ledger/report.go", StartLine: 500, EndLine: 501}}}, engine.ErrBadSelection},
		{"reversed lines", Request{Selections: []Selection{{Path: "ledger/report.go", StartLine: 5, EndLine: 2}}}, engine.ErrBadSelection},
		{"outside", Request{Selections: []Selection{{Path: "../x.go", StartLine: 1, EndLine: 1}}}, workspace.ErrOutsideWorkspace},
		{"format", Request{Query: "settle", Format: "html"}, packs.ErrFormat},
		{"task", Request{Query: "settle", Task: "dance"}, packs.ErrTask},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Pack(ctx, s, c.req); !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
}

// An import block is no pack item: it holds nothing to read or change.
func TestImportsOnly(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"if t.TYPE_CHECKING:  # pragma: no cover\n    from .testing import FlaskClient\n    from .testing import (\n        FlaskCliRunner,\n        Other as O,\n    )\n", true},
		{"import (\n\t\"fmt\"\n\tstr \"strings\"\n)\n", true},
		{"import {\n  a,\n  b,\n} from \"./x\";\nimport c from 'c';\n", true},
		{"// Package x does y.\npackage x\n\nimport \"os\"\n", true},
		{"import os\nDEBUG = os.environ.get(\"DEBUG\")\n", false},
		{"if TYPE_CHECKING:\n    pass\n", false},
		{"x = 1\n", false},
	} {
		if got := importsOnly(c.text); got != c.want {
			t.Errorf("importsOnly(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestReasonsOfQueryHits: a hit whose definition holds a stack frame's
// line says so; the others are query matches.
func TestReasonsOfQueryHits(t *testing.T) {
	e, _ := indexedEngine(t, readTxtar(t, filepath.Join("testdata", "packs", "composition.txtar")))
	defer e.Close()
	report := "checkout fails for a cart with a negative price\n\n" +
		"Traceback (most recent call last):\n" +
		"  File \"/srv/shop/app.py\", line 12, in checkout\n" +
		"    amount = cart.total()\n" +
		"  File \"/srv/venv/lib/python3.11/site-packages/shop/cart.py\", line 41, in total\n" +
		"    raise ValueError(\"negative total\")\n" +
		"ValueError: negative total\n"
	p := buildPack(t, e, Request{Query: report, Budget: 1500})
	if it := itemNamed(p, "Cart.total"); it == nil || it.Reason != "in the stack trace" {
		t.Errorf("Cart.total, the innermost frame's: %+v", it)
	}
	for _, it := range p.Items {
		if it.Symbol != "Cart.total" && it.Reason == "in the stack trace" {
			t.Errorf("%s holds no frame's line: %+v", it.Symbol, it)
		}
	}
	// The error alone, pasted with the program's output: the definition
	// raising it prints it.
	p = buildPack(t, e, Request{Query: "checkout fails for a cart\n\n```\n$ shop checkout cart.json\nValueError: negative total\n```\n", Budget: 1500})
	if it := itemNamed(p, "Cart.total"); it == nil || it.Reason != "prints the quoted text" {
		t.Errorf("Cart.total, which raises the error: %+v", it)
	}
}
