package service

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/workspace"
)

// TestCallFolders: an operation across two folders answers by its scope
// — a search merges both folders' hits by score, a symbol's callers list
// every folder's definitions, a file is its folder's alone and names it,
// folder restricts to one, stats answer per folder — and a request wrong
// for every folder is an error naming the argument.
func TestCallFolders(t *testing.T) {
	one := newService(t, testutil.Billing)
	two := newService(t, map[string]string{
		"tax/tax.go": "package tax\n\n// Total adds the tax to an invoice total in cents.\nfunc Total(cents int) int { return cents + cents/5 }\n\nfunc apply() int { return Total(100) }\n",
	})
	folders := []Folder{
		{URI: workspace.PathToURI(one.Root()), Root: one.Root(), Backend: one},
		{URI: workspace.PathToURI(two.Root()), Root: two.Root(), Backend: two},
	}
	ask := func(op, req string, out any) error {
		t.Helper()
		raw, err := CallFolders(context.Background(), folders, op, json.RawMessage(req), func(err error) { t.Errorf("a folder failed: %v", err) })
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, out)
	}

	var search SearchResult
	must(t, ask("search", `{"query":"total of the invoice in cents","k":6}`, &search))
	roots := map[string]bool{}
	for i, h := range search.Hits {
		for _, f := range folders {
			if strings.HasPrefix(h.URI, f.URI+"/") {
				roots[f.Root] = true
			}
		}
		if i > 0 && h.Score > search.Hits[i-1].Score {
			t.Errorf("hits not merged by score: %v", search.Hits)
		}
	}
	if len(search.Hits) != 6 || len(roots) != 2 {
		t.Errorf("search: %d hits from %d folders, want the best 6 of both", len(search.Hits), len(roots))
	}

	var callers struct {
		GraphResult
		Folder string `json:"folder"`
	}
	must(t, ask("callers", `{"symbol":"Total"}`, &callers))
	var defs []string
	for _, r := range callers.Results {
		defs = append(defs, r.Definition.Path)
	}
	if strings.Join(defs, " ") != "billing/invoice.go tax/tax.go" || callers.Folder != "" {
		t.Errorf("callers of Total across folders: %v (folder %q), want both folders' definitions", defs, callers.Folder)
	}
	must(t, ask("callers", `{"symbol":"Total","folder":"`+folders[1].URI+`"}`, &callers))
	if len(callers.Results) != 1 || callers.Results[0].Definition.Path != "tax/tax.go" || callers.Folder != folders[1].URI {
		t.Errorf("callers of Total in the second folder: %+v", callers)
	}

	var syms struct {
		SymbolsResult
		Folder string `json:"folder"`
	}
	must(t, ask("symbols", `{"file":"`+filepath.Join(two.Root(), "tax", "tax.go")+`"}`, &syms))
	if len(syms.Symbols) != 2 || syms.Folder != folders[1].URI {
		t.Errorf("symbols of a file of the second folder: %+v", syms)
	}

	var stats struct {
		Folders []struct {
			Folder string `json:"folder"`
			Files  int    `json:"files"`
		} `json:"folders"`
	}
	must(t, ask("stats", `{}`, &stats))
	if len(stats.Folders) != 2 || stats.Folders[0].Folder != folders[0].URI || stats.Folders[0].Files != 4 || stats.Folders[1].Files != 1 {
		t.Errorf("stats per folder: %+v", stats)
	}

	for _, tc := range []struct{ op, req, field string }{
		{"search", `{"query":"x","k":0}`, "k"},
		{"callers", `{"symbol":"Total","folder":"file:///not/open"}`, "folder"},
		{"symbols", `{"file":"/not/open/a.go"}`, "file"},
		{"reindex", `{"dryRun":true,"paths":["/not/open"]}`, "paths[0]"},
	} {
		err := ask(tc.op, tc.req, &struct{}{})
		var se *Error
		if !errors.As(err, &se) || se.Code != CodeInvalid || se.Field != tc.field {
			t.Errorf("%s %s: %v, want an invalid %s", tc.op, tc.req, err, tc.field)
		}
	}
	var missing struct{}
	if err := ask("callers", `{"symbol":"NoSuchThing"}`, &missing); !errors.Is(err, ErrNotFound) {
		t.Errorf("a symbol no folder defines: %v, want not found", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
