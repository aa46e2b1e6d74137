package lsp

import (
	"context"
	"strings"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
)

// contextLs.contextPack, contextLs.relatedContext, contextLs.pin,
// contextLs.unpin and contextLs.pins: the service's answers, each item
// with its LSP location.

// ContextPackArgs are the arguments of contextLs.contextPack.
type ContextPackArgs struct {
	PlaceArgs
	Query        string   `json:"query,omitempty" desc:"what the pack is for; required without a place"`
	BudgetTokens int      `json:"budgetTokens,omitempty" desc:"token budget, 100 to 1000000 (default: the budgetTokens setting)"`
	Format       string   `json:"format,omitempty" desc:"markdown, xml, json or plain (default: the workspace's pack.format); with json the items also carry their text"`
	Task         string   `json:"task,omitempty" desc:"analysis, implementation, review, testing, documentation or bugfix: how the budget is split across sources (default analysis)"`
	Exclude      []string `json:"exclude,omitempty" desc:"items to leave out: PATH (a whole file) or PATH:A-B, paths relative to the folder, as earlier items name them"`
	Folder       string   `json:"folder,omitempty" desc:"URI of the workspace folder to pack from when no place is given (default: the first)"`
}

// ContextPackResult is the result of contextLs.contextPack.
type ContextPackResult struct {
	Text      string     `json:"text" desc:"the rendered pack: what to copy (with format json, a JSON array of the items with their text)"`
	Format    string     `json:"format" desc:"markdown, xml, json or plain"`
	Tokens    int        `json:"tokens" desc:"tokens used, never more than budget"`
	Budget    int        `json:"budget" desc:"the budget it was built for"`
	Dropped   int        `json:"dropped" desc:"candidates left out for lack of budget"`
	Excluded  int        `json:"excluded" desc:"candidates left out because exclude named them"`
	Items     []PackItem `json:"items" desc:"what the pack holds, in rendering order"`
	Notes     []string   `json:"notes" desc:"sources that were skipped, items over budget"`
	LatencyMs float64    `json:"latencyMs" desc:"time taken to build it"`
	Folder    string     `json:"folder" desc:"URI of the folder the pack comes from"`
}

// PackItem is one item of a context pack.
type PackItem struct {
	service.PackItem
	Location LocationResult `json:"location" desc:"the item's lines"`
}

func runContextPack(ctx context.Context, env *CommandEnv, a ContextPackArgs) (ContextPackResult, error) {
	req := service.PackRequest{Query: a.Query, Budget: a.BudgetTokens, Format: a.Format, Task: a.Task, Exclude: a.Exclude}
	// A pack draws on the whole workspace: it reads the edits sent before it.
	if err := env.s.syncAll(ctx, session.NeedText); err != nil {
		return ContextPackResult{}, err
	}
	var p place
	if a.PlaceArgs != (PlaceArgs{}) {
		var err error
		if p, err = env.resolvePlace(ctx, a.PlaceArgs); err != nil {
			return ContextPackResult{}, err
		}
		defer p.release()
		req.Selection = p.sel
	} else if strings.TrimSpace(a.Query) == "" {
		return ContextPackResult{}, jsonrpc.InvalidParams("arguments[0].query: required without a place")
	}
	if req.Budget == 0 {
		req.Budget = env.s.budgetSetting()
	}
	if p.doc == nil && a.Folder != "" {
		d, err := env.folderDoc(a.Folder)
		if err != nil {
			return ContextPackResult{}, err
		}
		defer d.release()
		p.doc = d
	} else if p.doc == nil && req.Symbol == "" {
		d, err := env.folderDoc("")
		if err != nil {
			return ContextPackResult{}, err
		}
		defer d.release()
		p.doc = d
	}
	var out ContextPackResult
	err := env.services(ctx, p, false, func(f *folder, svc *service.Service) error {
		res, err := svc.Pack(ctx, req)
		if err != nil {
			return err
		}
		out = ContextPackResult{Text: res.Text, Format: res.Format, Tokens: res.Tokens, Budget: res.Budget,
			Dropped: res.Dropped, Excluded: res.Excluded, Items: []PackItem{}, Notes: res.Notes,
			LatencyMs: res.LatencyMs, Folder: f.uri}
		for _, it := range res.Items {
			out.Items = append(out.Items, PackItem{PackItem: it, Location: env.location(f, it.Location)})
		}
		return nil
	})
	if err != nil {
		return ContextPackResult{}, argError(err)
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	return out, nil
}

// folderDoc is the service of a folder named by URI ("" for the first
// open folder), for commands without a document.
func (e *CommandEnv) folderDoc(uri string) (*doc, error) {
	folders := e.s.openFolders()
	if len(folders) == 0 {
		return nil, jsonrpc.InvalidParams("no workspace folder is open")
	}
	f := folders[0]
	if uri != "" {
		root, err := workspace.URIToPath(uri)
		if err != nil {
			return nil, jsonrpc.InvalidParams("arguments[0].folder: %v", err)
		}
		f = nil
		for _, g := range folders {
			if g.root == root {
				f = g
			}
		}
		if f == nil {
			return nil, jsonrpc.InvalidParams("arguments[0].folder: %s is not an open workspace folder", uri)
		}
	}
	svc, release, err := e.s.backend.Service(f.root)
	if err != nil {
		return nil, err
	}
	return &doc{path: f.root, f: f, svc: svc, release: release}, nil
}

// budgetSetting is the budgetTokens setting when the client set one, else
// 0 (the workspace configuration's).
func (s *server) budgetSetting() int {
	st := s.currentSettings()
	if st.IsSet("budgetTokens") {
		return st.BudgetTokens
	}
	return 0
}

// RelatedArgs are the arguments of contextLs.relatedContext.
type RelatedArgs struct {
	PlaceArgs
	K            int `json:"k,omitempty" desc:"most items, 1 to 100 (default 20)"`
	BudgetTokens int `json:"budgetTokens,omitempty" desc:"stop adding items once their tokens would pass this (0: no budget)"`
}

// RelatedResult is the result of contextLs.relatedContext.
type RelatedResult struct {
	Selection LocationResult `json:"selection" desc:"the lines the items relate to"`
	Symbol    string         `json:"symbol,omitempty" desc:"the definition at the place, when the place is one"`
	Items     []RelatedItem  `json:"items" desc:"definitions it uses, callers, callees, tests, similar code, docs and co-changed files, best first"`
	Notes     []string       `json:"notes" desc:"sources that were skipped"`
}

// RelatedItem is one piece of related context.
type RelatedItem struct {
	service.RelatedItem
	Location LocationResult `json:"location" desc:"the item's lines"`
}

func runRelated(ctx context.Context, env *CommandEnv, a RelatedArgs) (RelatedResult, error) {
	p, err := env.resolvePlace(ctx, a.PlaceArgs)
	if err != nil {
		return RelatedResult{}, err
	}
	defer p.release()
	var out RelatedResult
	err = env.services(ctx, p, false, func(f *folder, svc *service.Service) error {
		res, err := svc.Related(ctx, service.RelatedRequest{Selection: p.sel, K: a.K, BudgetTokens: a.BudgetTokens})
		if err != nil {
			return err
		}
		out = RelatedResult{Selection: env.location(f, res.Selection), Symbol: res.Symbol, Items: []RelatedItem{}, Notes: res.Notes}
		for _, it := range res.Items {
			out.Items = append(out.Items, RelatedItem{RelatedItem: it, Location: env.location(f, it.Location)})
		}
		return nil
	})
	if err != nil {
		return RelatedResult{}, argError(err)
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	return out, nil
}

// PinArgs are the arguments of contextLs.pin and contextLs.unpin: a
// selection (its lines), a document alone (the whole file), the definition
// at a position, or a symbol's definition; unpin takes all instead.
type PinArgs struct {
	PlaceArgs
	All    bool   `json:"all,omitempty" desc:"unpin only: remove every pin of the folder (give folder, or nothing for the first folder)"`
	Folder string `json:"folder,omitempty" desc:"with all: URI of the folder whose pins to remove"`
}

// PinsArgs are the arguments of contextLs.pins.
type PinsArgs struct {
	Folder string `json:"folder,omitempty" desc:"URI of the folder whose pins to list (default: the first)"`
}

// PinsResult is the result of contextLs.pin, contextLs.unpin and
// contextLs.pins.
type PinsResult struct {
	Folder string     `json:"folder" desc:"URI of the folder whose pins these are"`
	Pins   []PinEntry `json:"pins" desc:"every pin of the folder, in pinning order"`
	Tokens int        `json:"tokens" desc:"tokens the pins add to every pack together"`
}

// PinEntry is one pinned file or line range.
type PinEntry struct {
	service.Pin
	Location LocationResult `json:"location" desc:"the pinned lines"`
}

func runPin(ctx context.Context, env *CommandEnv, a PinArgs) (PinsResult, error) {
	if a.All || a.Folder != "" {
		return PinsResult{}, jsonrpc.InvalidParams("arguments[0].all: only with contextLs.unpin")
	}
	return changePin(ctx, env, a, (*service.Service).Pin)
}

func runUnpin(ctx context.Context, env *CommandEnv, a PinArgs) (PinsResult, error) {
	return changePin(ctx, env, a, (*service.Service).Unpin)
}

func runPins(ctx context.Context, env *CommandEnv, a PinsArgs) (PinsResult, error) {
	d, err := env.folderDoc(a.Folder)
	if err != nil {
		return PinsResult{}, err
	}
	defer d.release()
	res, err := d.svc.Pins(ctx, service.PinsRequest{})
	if err != nil {
		return PinsResult{}, argError(err)
	}
	return pinsResult(env, d.f, res), nil
}

// changePin adds or removes the pin the arguments name and lists the
// folder's pins.
func changePin(ctx context.Context, env *CommandEnv, a PinArgs,
	op func(*service.Service, context.Context, service.PinRequest) (*service.PinsResult, error)) (PinsResult, error) {
	var p place
	if a.All {
		if a.PlaceArgs != (PlaceArgs{}) {
			return PinsResult{}, jsonrpc.InvalidParams("arguments[0].all: give all alone (with folder), not with a place")
		}
		d, err := env.folderDoc(a.Folder)
		if err != nil {
			return PinsResult{}, err
		}
		p.doc = d
	} else {
		var err error
		if p, err = env.resolvePlace(ctx, a.PlaceArgs); err != nil {
			return PinsResult{}, err
		}
	}
	defer p.release()
	var out PinsResult
	err := env.services(ctx, p, false, func(f *folder, svc *service.Service) error {
		res, err := op(svc, ctx, service.PinRequest{Selection: p.sel, All: a.All})
		if err != nil {
			return err
		}
		out = pinsResult(env, f, res)
		return nil
	})
	if err != nil {
		return PinsResult{}, argError(err)
	}
	return out, nil
}

func pinsResult(env *CommandEnv, f *folder, res *service.PinsResult) PinsResult {
	out := PinsResult{Folder: f.uri, Pins: []PinEntry{}, Tokens: res.Tokens}
	for _, p := range res.Pins {
		out.Pins = append(out.Pins, PinEntry{Pin: p, Location: env.location(f, p.Location)})
	}
	return out
}
