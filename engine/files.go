package engine

import (
	"context"

	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/workspace"
)

// ListFiles calls fn for every file Index would index, with its language,
// without opening the index.
func ListFiles(ctx context.Context, root string, cfg workspace.Config, fn func(rel, lang string)) error {
	ws, err := workspace.Open(root, cfg)
	if err != nil {
		return err
	}
	e := &Engine{ws: ws, cfg: cfg}
	return ws.Walk(ctx, func(fi workspace.FileInfo) error {
		if lang := e.languageOf(fi.Rel, nil); lang != nil {
			fn(fi.Rel, lang.Name)
		}
		return nil
	})
}

// ExplainFile says whether path would be indexed and which rule decided:
// the workspace's ignore rules first, then the language filter.
func ExplainFile(root string, cfg workspace.Config, path string) (workspace.Decision, error) {
	ws, err := workspace.Open(root, cfg)
	if err != nil {
		return workspace.Decision{}, err
	}
	d := ws.Explain(path)
	if !d.Included {
		return d, nil
	}
	e := &Engine{ws: ws, cfg: cfg}
	if lang := e.languageOf(d.Rel, nil); lang == nil {
		d.Included = false
		d.Source = "language"
		d.Rule = "not a recognised source or text type"
		if l := symbols.ForPath(d.Rel); l != nil {
			d.Rule = l.Name + " is not in the config's languages list"
		}
	}
	return d, nil
}

// AllSymbols returns every definition in the index, by path then position.
func (s *Snapshot) AllSymbols() ([]SymbolInfo, error) {
	var out []SymbolInfo
	var ferr error
	err := s.st.FileHeads(func(rec store.FileRecord, _ int) bool {
		syms, err := s.st.Symbols(rec.Path)
		if err != nil {
			ferr = err
			return false
		}
		for _, sym := range syms {
			out = append(out, SymbolInfo{Path: rec.Path, Language: rec.Language, Symbol: sym})
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	return out, err
}
