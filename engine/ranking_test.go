package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
)

// Golden ranking tests: the fixture repository in testdata/ranking/repo (an
// order fulfilment service in Go, Python and TypeScript, with tests, docs, a
// changelog, an example and a vendored library, written for these tests)
// plus a few hundred generated CRUD modules around it (rankingBulk), and one
// file per query in testdata/ranking/queries:
//
//	# what the query checks
//	want internal/retry/backoff.go 1     (this file within the first 1 files)
//	want none                            (no hits at all)
//	-- query --
//	retry with exponential backoff
//	-- ranking --
//	internal/retry/backoff.go Policy.Backoff
//	…                                    (today's first hits: path symbol)
//
// A query fails when a wanted file ranks below its bound, and when its
// ranking differs from the recorded one: a change of ranking is reviewed,
// then accepted with go test ./engine -run TestRankingGolden -update.

// rankingHits is how many hits a query's recorded ranking holds.
const rankingHits = 6

func TestRankingGolden(t *testing.T) {
	root := t.TempDir()
	if err := copyTree(filepath.Join("testdata", "ranking", "repo"), root); err != nil {
		t.Fatal(err)
	}
	for rel, content := range rankingBulk() {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	res, err := e.Index(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files < 250 {
		t.Fatalf("fixture has %d files, want a few hundred", res.Files)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "ranking", "queries", "*.txt"))
	if err != nil || len(files) < 20 {
		t.Fatalf("queries: %d files, %v", len(files), err)
	}
	s := e.Snapshot()
	defer s.Release()
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			g, err := readGolden(file)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Search(context.Background(), SearchRequest{Query: g.query, K: 20, Lexical: true})
			if err != nil {
				t.Fatal(err)
			}
			var ranking []string
			var files []string
			seen := map[string]bool{}
			for i, h := range res.Hits {
				if i < rankingHits {
					ranking = append(ranking, h.Path+" "+h.Symbol)
				}
				if !seen[h.Path] {
					seen[h.Path] = true
					files = append(files, h.Path)
				}
			}
			for _, w := range g.wants {
				switch {
				case w.path == "none":
					if len(res.Hits) != 0 {
						t.Errorf("want no hits, got %v", ranking)
					}
				case rankOf(files, w.path) == 0 || rankOf(files, w.path) > w.within:
					t.Errorf("%s ranks %d among files, want ≤ %d: %v", w.path, rankOf(files, w.path), w.within, files[:min(8, len(files))])
				}
			}
			if *testutil.Update {
				g.ranking = ranking
				if err := os.WriteFile(file, []byte(g.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got, want := strings.Join(ranking, "\n"), strings.Join(g.ranking, "\n"); got != want {
				t.Errorf("ranking changed (review, then accept with -update):\n--- recorded\n%s\n--- now\n%s", want, got)
			}
		})
	}
}

func rankOf(files []string, p string) int {
	for i, f := range files {
		if f == p {
			return i + 1
		}
	}
	return 0
}

type golden struct {
	comments []string
	wants    []want
	query    string
	ranking  []string
}

type want struct {
	path   string
	within int
}

// readGolden parses a query file (format: see TestRankingGolden).
func readGolden(file string) (golden, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return golden{}, err
	}
	var g golden
	head, rest, ok := strings.Cut(string(b), "-- query --\n")
	if !ok {
		return g, fmt.Errorf("%s: no -- query -- section", file)
	}
	query, ranking, ok := strings.Cut(rest, "-- ranking --\n")
	if !ok {
		return g, fmt.Errorf("%s: no -- ranking -- section", file)
	}
	for _, l := range strings.Split(strings.TrimSpace(head), "\n") {
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "#"):
			g.comments = append(g.comments, l)
		case len(f) == 2 && f[0] == "want" && f[1] == "none":
			g.wants = append(g.wants, want{path: "none"})
		case len(f) == 3 && f[0] == "want":
			n, err := strconv.Atoi(f[2])
			if err != nil {
				return g, fmt.Errorf("%s: %q: %w", file, l, err)
			}
			g.wants = append(g.wants, want{f[1], n})
		case l != "":
			return g, fmt.Errorf("%s: unknown line %q", file, l)
		}
	}
	if len(g.wants) == 0 {
		return g, fmt.Errorf("%s: no want line", file)
	}
	g.query = strings.TrimSuffix(query, "\n")
	if r := strings.TrimSpace(ranking); r != "" {
		g.ranking = strings.Split(r, "\n")
	}
	return g, nil
}

func (g golden) String() string {
	var b strings.Builder
	for _, c := range g.comments {
		b.WriteString(c + "\n")
	}
	for _, w := range g.wants {
		if w.path == "none" {
			b.WriteString("want none\n")
		} else {
			fmt.Fprintf(&b, "want %s %d\n", w.path, w.within)
		}
	}
	b.WriteString("-- query --\n" + g.query + "\n-- ranking --\n")
	for _, r := range g.ranking {
		b.WriteString(r + "\n")
	}
	return b.String()
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
}

// rankingEntities are the generated resources of the fixture: each gets a
// Go model, store, HTTP handler and store test, a Python resource module and
// a TypeScript API module — the bulk of ordinary code every query must see
// past.
var rankingEntities = []string{
	"carrier", "warehouse", "parcel", "invoice", "customer", "product", "supplier", "coupon",
	"refund", "payment", "shipment", "address", "stock_item", "price_list", "tax_rate",
	"return_request", "gift_card", "review", "category", "bundle", "subscription",
	"loyalty_account", "pick_list", "packing_slip", "courier_pickup", "delivery_window",
	"customs_form", "label", "manifest", "pallet", "bin_location", "cycle_count",
	"purchase_order", "receipt", "vendor_credit", "store_credit", "wishlist", "cart",
	"checkout_session", "notification",
}

var rankingFields = []struct{ name, goType, doc string }{
	{"name", "string", "display name"},
	{"code", "string", "short code used by operators"},
	{"email", "string", "contact e-mail address"},
	{"status", "string", "lifecycle status"},
	{"notes", "string", "free-form notes"},
	{"weight_grams", "int", "weight in grams"},
	{"country", "string", "ISO country code"},
	{"postal_code", "string", "postal code"},
	{"reference", "string", "external reference"},
	{"amount_cents", "int64", "amount in cents"},
	{"quantity", "int", "number of units"},
	{"sku", "string", "stock keeping unit"},
	{"priority", "int", "handling priority, 1 is highest"},
	{"due_date", "string", "date it is due, YYYY-MM-DD"},
}

// rankingBulk generates the fixture's ordinary modules, deterministically.
func rankingBulk() map[string]string {
	out := map[string]string{}
	for i, ent := range rankingEntities {
		typ := camel(ent)
		var fields []struct{ name, goType, doc string }
		for j := range 4 {
			fields = append(fields, rankingFields[(i*3+j*5)%len(rankingFields)])
		}
		var model, validate, py, ts strings.Builder
		for _, f := range fields {
			fmt.Fprintf(&model, "\t// %s is the %s's %s.\n\t%s %s `json:\"%s\"`\n", camel(f.name), strings.ReplaceAll(ent, "_", " "), f.doc, camel(f.name), f.goType, f.name)
			if f.goType == "string" {
				fmt.Fprintf(&validate, "\tif x.%s == \"\" {\n\t\treturn fmt.Errorf(\"%s: %s is required\")\n\t}\n", camel(f.name), ent, f.name)
			}
			fmt.Fprintf(&py, "        %q: row.get(%q),\n", f.name, f.name)
			fmt.Fprintf(&ts, "  %s: %s;\n", lowerCamel(f.name), map[string]string{"string": "string", "int": "number", "int64": "number"}[f.goType])
		}
		pkg := strings.ReplaceAll(ent, "_", "")
		dir := "internal/" + pkg + "/"
		out[dir+"model.go"] = fmt.Sprintf("// Package %s manages %ss.\npackage %s\n\nimport \"fmt\"\n\n// %s is one %s.\ntype %s struct {\n\tID string `json:\"id\"`\n%s}\n\n// Validate reports the first missing required field.\nfunc (x %s) Validate() error {\n%s\treturn nil\n}\n",
			pkg, strings.ReplaceAll(ent, "_", " "), pkg, typ, strings.ReplaceAll(ent, "_", " "), typ, model.String(), typ, validate.String())
		out[dir+"store.go"] = fmt.Sprintf(`package %[1]s

import (
	"fmt"
	"sort"
	"sync"
)

// Store keeps %[2]ss in memory, keyed by ID.
type Store struct {
	mu   sync.RWMutex
	rows map[string]%[2]s
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{rows: map[string]%[2]s{}} }

// Get returns the %[3]s with the given ID.
func (s *Store) Get(id string) (%[2]s, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	x, ok := s.rows[id]
	if !ok {
		return x, fmt.Errorf("%[3]s %%s not found", id)
	}
	return x, nil
}

// Put validates and saves a %[3]s.
func (s *Store) Put(x %[2]s) error {
	if err := x.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows[x.ID] = x
	return nil
}

// List returns every %[3]s ordered by ID.
func (s *Store) List() []%[2]s {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]%[2]s, 0, len(s.rows))
	for _, x := range s.rows {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Delete removes a %[3]s; deleting a missing one is not an error.
func (s *Store) Delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.rows, id)
}
`, pkg, typ, strings.ReplaceAll(ent, "_", " "))
		out[dir+"handler.go"] = fmt.Sprintf(`package %[1]s

import (
	"encoding/json"
	"net/http"
)

// Handler serves /%[3]ss over HTTP: GET lists or fetches, POST creates.
type Handler struct{ Store *Store }

func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		if id := r.URL.Query().Get("id"); id != "" {
			x, err := h.Store.Get(id)
			if err != nil {
				http.Error(w, err.Error(), http.StatusNotFound)
				return
			}
			json.NewEncoder(w).Encode(x)
			return
		}
		json.NewEncoder(w).Encode(h.Store.List())
	case http.MethodPost:
		var x %[2]s
		if err := json.NewDecoder(r.Body).Decode(&x); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := h.Store.Put(x); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		w.WriteHeader(http.StatusCreated)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}
`, pkg, typ, ent)
		out[dir+"store_test.go"] = fmt.Sprintf(`package %[1]s

import "testing"

func TestStorePutGetDelete(t *testing.T) {
	s := NewStore()
	if err := s.Put(%[2]s{ID: "a"}); err == nil {
		t.Fatal("an empty %[3]s must not validate")
	}
	if _, err := s.Get("missing"); err == nil {
		t.Fatal("missing %[3]s found")
	}
	s.Delete("missing")
	if len(s.List()) != 0 {
		t.Fatal("store not empty")
	}
}
`, pkg, typ, strings.ReplaceAll(ent, "_", " "))
		out["tools/shipyard_cli/resources/"+ent+".py"] = fmt.Sprintf(`"""Operator commands for %[1]ss."""


def list_%[2]ss(client):
    """Every %[1]s, as dictionaries."""
    return [format_%[2]s(row) for row in client.get_json("/%[2]ss")]


def get_%[2]s(client, item_id):
    """One %[1]s by id."""
    return format_%[2]s(client.get_json("/%[2]ss?id=%%s" %% item_id))


def format_%[2]s(row):
    """Keep the fields operators look at."""
    return {
        "id": row["id"],
%[3]s    }
`, strings.ReplaceAll(ent, "_", " "), ent, py.String())
		out["web/src/api/"+lowerCamel(ent)+".ts"] = fmt.Sprintf(`import { request } from "./client";

export interface %[1]s {
  id: string;
%[3]s}

// list%[1]ss fetches every %[2]s.
export function list%[1]ss(token: string): Promise<%[1]s[]> {
  return request<%[1]s[]>("/%[4]ss", token);
}

// create%[1]s stores a new %[2]s.
export function create%[1]s(token: string, x: %[1]s): Promise<void> {
  return request<void>("/%[4]ss", token, { method: "POST", body: JSON.stringify(x) });
}
`, typ, strings.ReplaceAll(ent, "_", " "), ts.String(), ent)
	}
	return out
}

func camel(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(s, "_") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

func lowerCamel(s string) string {
	c := camel(s)
	return strings.ToLower(c[:1]) + c[1:]
}
