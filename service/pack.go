package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/engine/packing"
	"github.com/context-ls/context-ls/packs"
)

// Pack builds a token-budgeted context pack for a query and/or a
// selection. The text is what to paste, in the requested format (the
// budget counts that rendering; for json, the items as markdown renders
// them, so json carries what markdown does); with format json the items
// also carry their text, for clients that take the pack apart.
func (s *Service) Pack(ctx context.Context, req PackRequest) (*PackResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Query) == "" && !req.Selection.Given() {
		return nil, invalid("query", "required without a selection (give query, or file with optional lines, or symbol, or both)")
	}
	exclude, err := s.excludes(req.Exclude)
	if err != nil {
		return nil, err
	}
	vnotes := s.awaitVectors(ctx)
	return withSnapshot(s, func(snap *engine.Snapshot) (*PackResult, error) {
		ereq := packing.Request{Query: req.Query, Budget: req.Budget, Format: req.Format, Task: req.Task, Exclude: exclude}
		if req.Selection.Given() {
			sps, err := s.resolveSelections(snap, s.texts(snap), req.Selection, spanLine)
			if err != nil {
				return nil, err
			}
			for _, sp := range sps {
				ereq.Selections = append(ereq.Selections, *s.packSelection(sp))
			}
		}
		p, err := packing.Pack(ctx, snap, ereq)
		if err != nil {
			if errors.Is(err, packing.ErrNothingToPack) {
				return nil, invalid("query", "%v", err)
			}
			return nil, classify("file", req.File, err)
		}
		s.packs.Add(1)
		s.packTokens.Add(int64(p.Tokens))
		json := p.Format == packs.FormatJSON
		out := &PackResult{Format: p.Format, Tokens: p.Tokens, Budget: p.Budget, Dropped: p.Dropped, Excluded: p.Excluded,
			Items: make([]PackItem, 0, len(p.Items)), Notes: append(vnotes, p.Notes...), LatencyMs: p.LatencyMs}
		out.Text = p.Text // scrubbed by the pack builder before it was counted
		for _, it := range p.Items {
			item := PackItem{
				Location: s.location(it.Path, lines(it.StartLine, it.EndLine)), Symbol: it.Symbol, Kind: it.Kind,
				Language: it.Language, Source: it.Source, Reason: it.Reason, IncludeMode: it.IncludeMode,
				Score: it.Score, Tokens: it.Tokens, Shortened: it.Shortened,
			}
			if json {
				item.Text = it.Text
			}
			out.Items = append(out.Items, item)
		}
		return out, nil
	})
}

// excludes parses PATH or PATH:A-B exclusions.
func (s *Service) excludes(list []string) ([]packing.Selection, error) {
	var out []packing.Selection
	for i, x := range list {
		field := fmt.Sprintf("exclude[%d]", i)
		p, lines := x, ""
		if j := strings.LastIndexByte(x, ':'); j > 0 && x[j+1:] != "" && (strings.Trim(x[j+1:], "0123456789- ") == "" || s.isFile(x[:j]) && !s.isFile(x)) {
			p, lines = x[:j], x[j+1:] // PATH:A-B; a bad range of an existing file is an error, not a path
		}
		rel, err := s.fileRel(field, p)
		if err != nil {
			return nil, err
		}
		start, end, err := ParseLines(field, lines)
		if err != nil {
			return nil, err
		}
		out = append(out, packing.Selection{Path: rel, StartLine: start, EndLine: end})
	}
	return out, nil
}

// isFile reports whether a path argument names an existing file of the
// workspace.
func (s *Service) isFile(p string) bool {
	st, ok := s.stat(p)
	return ok && st.Mode().IsRegular()
}

// isDir reports whether a path argument names a directory of the
// workspace.
func (s *Service) isDir(p string) bool {
	st, ok := s.stat(p)
	return ok && st.IsDir()
}

// stat stats a path argument inside the workspace.
func (s *Service) stat(p string) (os.FileInfo, bool) {
	rel, err := s.rel("", p)
	if err != nil {
		return nil, false
	}
	abs, err := s.e.Workspace().Abs(rel)
	if err != nil {
		return nil, false
	}
	st, err := os.Stat(abs)
	return st, err == nil
}

// Related answers what bears on a selection — the definitions it uses,
// the callers, callees and tests of what it touches, similar code, docs
// mentioning it and files changed with it — best first, without a budget
// unless one is given.
func (s *Service) Related(ctx context.Context, req RelatedRequest) (*RelatedResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	if !req.Selection.Given() {
		return nil, invalid("file", "required: name the code by file (with lines or line) or by symbol")
	}
	return withSnapshot(s, func(snap *engine.Snapshot) (*RelatedResult, error) {
		sps, err := s.resolveSelections(snap, s.texts(snap), req.Selection, spanLine)
		if err != nil {
			return nil, err
		}
		var sels []packing.Selection
		for _, sp := range sps {
			sels = append(sels, *s.packSelection(sp))
		}
		sp := sps[0]
		r, err := packing.Related(ctx, snap, sels...)
		if err != nil {
			return nil, classify("file", req.File, err)
		}
		out := &RelatedResult{
			Selection: s.location(sp.rel, lines(r.Selection.StartLine, r.Selection.EndLine)), Symbol: sp.symbol,
			Items: []RelatedItem{}, Notes: r.Notes,
		}
		used := 0
		for _, it := range r.Items {
			text := s.scrub.Scrub(it.Text)
			tokens := packs.CountTokens(text)
			if len(out.Items) == req.K || (req.Budget > 0 && used+tokens > req.Budget) {
				out.More++ // a smaller item further down may still fit
				continue
			}
			used += tokens
			out.Items = append(out.Items, RelatedItem{
				Location: s.location(it.Path, lines(it.StartLine, it.EndLine)), Symbol: it.Symbol, Kind: it.Kind,
				Language: it.Language, Source: it.Source, Reason: it.Reason, Score: it.Score, Tokens: tokens, Text: text,
			})
		}
		if out.More > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%d more item(s) left out by k (%d) or the budget", out.More, req.K))
		}
		return out, nil
	})
}

// Pin adds a pin: a selection's lines, the definition named by symbol or
// at a line, or a whole file; every pack of the workspace then includes
// it. It answers every pin.
func (s *Service) Pin(ctx context.Context, req PinRequest) (*PinsResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	if req.All {
		return nil, invalid("all", "only with unpin")
	}
	pin, err := s.pinOf(req.Selection)
	if err != nil {
		return nil, err
	}
	if err := s.e.Pin(pin); err != nil {
		return nil, pinError(err)
	}
	return s.Pins(ctx, PinsRequest{})
}

// Unpin removes a pin named as Pin names it, or every pin with all.
func (s *Service) Unpin(ctx context.Context, req PinRequest) (*PinsResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	if req.All {
		if req.Selection.Given() {
			return nil, invalid("all", "give all alone, or a selection to unpin, not both")
		}
		if err := s.e.UnpinAll(); err != nil {
			return nil, err
		}
		return s.Pins(ctx, PinsRequest{})
	}
	pin, err := s.unpinOf(req.Selection)
	if err != nil {
		return nil, err
	}
	if err := s.e.Unpin(pin); err != nil {
		return nil, pinError(err)
	}
	return s.Pins(ctx, PinsRequest{})
}

func pinError(err error) error {
	switch {
	case errors.Is(err, engine.ErrNotPinned):
		return &Error{Code: CodeNotFound, Message: strings.TrimPrefix(err.Error(), "pin: ") + " (pins lists what is pinned)", err: err}
	case errors.Is(err, engine.ErrBadSelection):
		return &Error{Code: CodeInvalid, Field: "lines", Message: err.Error(), err: err}
	}
	return err
}

// pinOf resolves the selection a pin request names.
func (s *Service) pinOf(sel Selection) (engine.Pin, error) {
	if !sel.Given() {
		return engine.Pin{}, invalid("file", "required: name what to pin by file (with lines or line) or by symbol")
	}
	return withSnapshot(s, func(snap *engine.Snapshot) (engine.Pin, error) {
		sp, err := s.resolveSelection(snap, s.texts(snap), sel, spanDefinition)
		if err != nil {
			return engine.Pin{}, err
		}
		p := engine.Pin{Path: sp.rel}
		if !sp.whole {
			p.StartLine, p.EndLine = sp.start, sp.end
		}
		return p, nil
	})
}

// unpinOf resolves the pin an unpin request names. A file with lines (or
// alone: a whole-file pin) names a pin as Pins lists it, without reading
// the file, which may be gone; a symbol or a line is resolved as Pin
// resolves it.
func (s *Service) unpinOf(sel Selection) (engine.Pin, error) {
	if sel.Symbol != "" || sel.Line != 0 || sel.File == "" {
		return s.pinOf(sel)
	}
	rel, err := s.fileRel("file", sel.File)
	if err != nil {
		return engine.Pin{}, err
	}
	start, end, err := ParseLines("lines", sel.Lines)
	if err != nil {
		return engine.Pin{}, err
	}
	return engine.Pin{Path: rel, StartLine: start, EndLine: end}, nil
}

// Pins lists the pins with what each adds to every pack.
func (s *Service) Pins(_ context.Context, req PinsRequest) (*PinsResult, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	pins, err := s.e.Pins()
	if err != nil {
		return nil, err
	}
	return withSnapshot(s, func(snap *engine.Snapshot) (*PinsResult, error) {
		tx := s.texts(snap)
		out := &PinsResult{Pins: []Pin{}}
		for _, p := range pins {
			pin := Pin{Location: s.location(p.Path, lines(p.StartLine, p.EndLine))}
			if p.StartLine > 0 {
				pin.Lines = fmt.Sprintf("%d-%d", p.StartLine, p.EndLine)
			}
			ft, err := tx.get(p.Path)
			if err != nil {
				pin.Error = OneLine(classify("file", p.Path, err))
			} else {
				start, end := p.StartLine, p.EndLine
				if start == 0 {
					start, end = 1, max(ft.lineCount(), 1)
					pin.Range = lines(start, end)
				}
				pin.Tokens = packs.CountTokens(s.scrub.Scrub(ft.text(start, end)))
			}
			out.Tokens += pin.Tokens
			out.Pins = append(out.Pins, pin)
		}
		return out, nil
	})
}
