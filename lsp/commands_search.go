package lsp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"go.lsp.dev/protocol"
)

// contextLs.search, contextLs.similar and contextLs.definition: the
// service's answers per folder, merged, each hit with its LSP location.

// SearchArgs are the arguments of contextLs.search: the service's search
// request.
type SearchArgs = service.SearchRequest

// SearchResult is the result of contextLs.search and contextLs.similar.
type SearchResult struct {
	Query string      `json:"query" desc:"the query (similar: the snippet)"`
	Hits  []SearchHit `json:"hits" desc:"best first, across every workspace folder"`
	Notes []string    `json:"notes,omitempty" desc:"what the answer could not use (embeddings still loading, …)"`
}

// SearchHit is one located snippet.
type SearchHit struct {
	service.Hit
	Location LocationResult `json:"location" desc:"where the snippet is: its exact span in the file"`
	Folder   string         `json:"folder" desc:"URI of the workspace folder holding it"`
}

// folderHit is a hit and its folder.
type folderHit struct {
	f *folder
	h service.Hit
}

// hitsResult merges the hits of several folders by score, keeps the best
// k and locates them.
func hitsResult(env *CommandEnv, query string, all []folderHit, k int, notes []string) SearchResult {
	sort.SliceStable(all, func(i, j int) bool { return all[i].h.Score > all[j].h.Score })
	if len(all) > k {
		all = all[:k]
	}
	out := SearchResult{Query: query, Hits: []SearchHit{}, Notes: notes}
	for _, fh := range all {
		out.Hits = append(out.Hits, SearchHit{Hit: fh.h, Location: env.location(fh.f, fh.h.Location), Folder: fh.f.uri})
	}
	return out
}

func runSearch(ctx context.Context, env *CommandEnv, a SearchArgs) (SearchResult, error) {
	var all []folderHit
	var notes []string
	err := env.s.eachFolder(ctx, "contextLs.search", session.NeedText, func(f *folder, svc *service.Service) error {
		res, err := svc.Search(ctx, a)
		if err != nil {
			return argError(err)
		}
		notes = append(notes, res.Notes...)
		for _, h := range res.Hits {
			all = append(all, folderHit{f, h})
		}
		return nil
	})
	if err != nil {
		return SearchResult{}, err
	}
	k := a.K
	if k == 0 {
		k = 10
	}
	return hitsResult(env, a.Query, all, k, notes), nil
}

// SimilarArgs are the arguments of contextLs.similar: a text, or a place
// (a selection, the definition at a position, or a symbol's definition).
type SimilarArgs struct {
	PlaceArgs
	Text string `json:"text,omitempty" desc:"code or prose to find neighbours of, instead of a place"`
	K    int    `json:"k,omitempty" desc:"number of hits, 1 to 100 (default 10)"`
}

func runSimilar(ctx context.Context, env *CommandEnv, a SimilarArgs) (SearchResult, error) {
	req := service.SimilarRequest{Snippet: a.Text, K: a.K}
	var p place
	if strings.TrimSpace(a.Text) == "" || a.PlaceArgs != (PlaceArgs{}) {
		var err error
		if p, err = env.resolvePlace(ctx, a.PlaceArgs); err != nil {
			return SearchResult{}, err
		}
		defer p.release()
		req.Selection = p.sel
	}
	var all []folderHit
	query := a.Text
	var unavailable []error
	err := env.services(ctx, p, false, func(f *folder, svc *service.Service) error {
		res, err := svc.Similar(ctx, req)
		if errors.Is(err, service.ErrUnavailable) {
			unavailable = append(unavailable, fmt.Errorf("%s: %w", f.root, err))
			return nil
		}
		if err != nil {
			return err
		}
		query = res.Query
		for _, h := range res.Hits {
			all = append(all, folderHit{f, h})
		}
		return nil
	})
	if err != nil {
		return SearchResult{}, argError(err)
	}
	if len(all) == 0 && len(unavailable) > 0 {
		return SearchResult{}, errors.Join(unavailable...)
	}
	k := a.K
	if k == 0 {
		k = 10
	}
	return hitsResult(env, query, all, k, nil), nil
}

// SnippetDefinitionArgs are the arguments of contextLs.definition.
type SnippetDefinitionArgs struct {
	Location *LocationResult `json:"location" desc:"the snippet's location, as a command returned it"`
	Position *PositionArg    `json:"position" desc:"a position inside the snippet text: line counted from the snippet's first line (0), character in UTF-16 units from the start of that line of the snippet"`
}

func (a *SnippetDefinitionArgs) Validate() error {
	switch {
	case a.Location == nil || a.Location.URI == "":
		return errors.New("location.uri: required")
	case a.Position == nil:
		return errors.New("position: required")
	case a.Location.Range.End.Line < a.Location.Range.Start.Line:
		return errors.New("location.range: end before start")
	case a.Position.Line > a.Location.Range.End.Line-a.Location.Range.Start.Line:
		return fmt.Errorf("position.line: %d is past the snippet's last line %d", a.Position.Line, a.Location.Range.End.Line-a.Location.Range.Start.Line)
	}
	return nil
}

func runSnippetDefinition(ctx context.Context, env *CommandEnv, a SnippetDefinitionArgs) ([]LocationResult, error) {
	pos := protocol.Position{Line: a.Location.Range.Start.Line + a.Position.Line, Character: a.Position.Character}
	if a.Position.Line == 0 {
		pos.Character += a.Location.Range.Start.Character
	}
	locs, err := env.s.definition(ctx, positionParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(a.Location.URI)}, Position: pos})
	if err != nil {
		var re *jsonrpc.ResponseError
		if errors.As(err, &re) {
			return nil, jsonrpc.InvalidParams("arguments[0].location: %s", re.Message)
		}
		return nil, err
	}
	out := make([]LocationResult, 0, len(locs))
	for _, l := range locs {
		out = append(out, LocationResult{URI: string(l.URI), Range: RangeArg{
			Start: PositionArg(l.Range.Start), End: PositionArg(l.Range.End),
		}})
	}
	return out, nil
}
