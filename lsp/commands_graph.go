package lsp

import (
	"context"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/service"
)

// contextLs.callers, contextLs.callees and contextLs.tests: the service's
// graph answers with LSP locations.

// GraphArgs are the arguments of contextLs.callers, contextLs.callees and
// contextLs.tests: a place (the definition whose name is there, a call
// site there resolved to its callee, else the function around it) or a
// symbol name.
type GraphArgs struct {
	PlaceArgs
	Limit   int  `json:"limit,omitempty" desc:"most items per definition, 1 to 1000 (default 50)"`
	Guesses bool `json:"guesses,omitempty" desc:"also list name-only guesses (calls of the same name the graph cannot tie to the definition), apart from the items"`
}

// GraphAnswer is the result of contextLs.callers, contextLs.callees and
// contextLs.tests.
type GraphAnswer struct {
	Targets []GraphTarget `json:"targets" desc:"one entry per definition the place or symbol names (a bare name may name several)"`
}

// GraphTarget is one definition asked about and what the graph knows.
type GraphTarget struct {
	Location   LocationResult `json:"location" desc:"the definition's name"`
	Definition service.Symbol `json:"definition" desc:"the definition"`
	Symbol     string         `json:"symbol" desc:"its qualified name"`
	Kind       string         `json:"kind" desc:"function, method, …"`
	Items      []GraphEntry   `json:"items" desc:"callers, callees or tests the graph can justify (exact and likely), best first"`
	Guesses    []GraphEntry   `json:"guesses,omitempty" desc:"with guesses: name-only matches, never among the items"`
	Omitted    int            `json:"omitted" desc:"name-only matches left out (ask with guesses to see them)"`
	Truncated  int            `json:"truncated,omitempty" desc:"items beyond limit left out"`
	Unresolved []string       `json:"unresolved,omitempty" desc:"callees only: calls that match no workspace definition (\"fmt.Println\")"`
}

// GraphEntry is one caller, callee or test.
type GraphEntry struct {
	service.GraphItem
	Location  LocationResult   `json:"location" desc:"its whole definition"`
	Name      string           `json:"name" desc:"qualified name (a file name for top-level code)"`
	CallSites []LocationResult `json:"callSites" desc:"the calls: in its file for callers and tests, in the target's file for callees"`
}

func runCallers(ctx context.Context, env *CommandEnv, a GraphArgs) (GraphAnswer, error) {
	return graphCommand(ctx, env, a, (*service.Service).Callers, false)
}

func runCallees(ctx context.Context, env *CommandEnv, a GraphArgs) (GraphAnswer, error) {
	return graphCommand(ctx, env, a, (*service.Service).Callees, true)
}

func runTests(ctx context.Context, env *CommandEnv, a GraphArgs) (GraphAnswer, error) {
	return graphCommand(ctx, env, a, (*service.Service).Tests, false)
}

// graphCommand asks the folder holding the place (every folder for a
// symbol) and converts the answers; sitesInTarget: call sites lie in the
// definition's file (callees), else in each item's.
func graphCommand(ctx context.Context, env *CommandEnv, a GraphArgs,
	q func(*service.Service, context.Context, service.GraphRequest) (*service.GraphResult, error), sitesInTarget bool) (GraphAnswer, error) {
	p, err := env.resolvePlace(ctx, a.PlaceArgs)
	if err != nil {
		return GraphAnswer{}, err
	}
	defer p.release()
	if p.sel.Lines != "" {
		// A selection stands for the definition (or call) at its start.
		p.sel = service.Selection{Target: p.start}
	}
	if p.doc != nil && p.sel.Line == 0 {
		return GraphAnswer{}, jsonrpc.InvalidParams("arguments[0].position: required with a document")
	}
	out := GraphAnswer{Targets: []GraphTarget{}}
	err = env.services(ctx, p, true, func(f *folder, svc *service.Service) error {
		res, err := q(svc, ctx, service.GraphRequest{Target: p.sel.Target, Limit: a.Limit, Guesses: a.Guesses})
		if err != nil {
			return err
		}
		for _, r := range res.Results {
			sitePath := ""
			if sitesInTarget {
				sitePath = r.Definition.Path
			}
			d := r.Definition
			out.Targets = append(out.Targets, GraphTarget{
				Location:   env.location(f, service.Location{Path: d.Path, Range: d.NameRange}),
				Definition: d, Symbol: d.Symbol, Kind: d.Kind,
				Items: graphEntries(env, f, r.Items, sitePath), Guesses: graphEntries(env, f, r.Guesses, sitePath),
				Omitted: r.Omitted, Truncated: r.Truncated, Unresolved: r.Unresolved,
			})
		}
		return nil
	})
	if err != nil {
		return GraphAnswer{}, argError(err)
	}
	return out, nil
}

// graphEntries locates graph items; sitePath is the file of their call
// sites ("" for each item's own).
func graphEntries(env *CommandEnv, f *folder, items []service.GraphItem, sitePath string) []GraphEntry {
	if items == nil {
		return nil
	}
	out := make([]GraphEntry, 0, len(items))
	for _, it := range items {
		site := sitePath
		if site == "" {
			site = it.Path
		}
		e := GraphEntry{GraphItem: it, Location: env.location(f, it.Location), Name: it.Symbol, CallSites: []LocationResult{}}
		for _, r := range it.Sites {
			e.CallSites = append(e.CallSites, env.location(f, service.Location{Path: site, Range: r}))
		}
		out = append(out, e)
	}
	return out
}
