package packing

// Items that come whatever the query: pins and always-included files
// (.context-ls/rules/ and the workspace's pack.always).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

// fixed adds the pinned items and the always-included files, whether or
// not they overlap the selection.
func (g *gatherer) fixed() error {
	pins, err := g.s.Pins()
	if err != nil {
		return err
	}
	for _, p := range pins {
		a, b := p.StartLine, p.EndLine
		if a == 0 {
			a, b = 1, int(^uint(0)>>1)
		}
		text, a, b, err := g.text(p.Path, a, b)
		if err != nil {
			g.notes = append(g.notes, fmt.Sprintf("pin %s skipped: %v", p, err))
			continue
		}
		if text == "" {
			continue
		}
		sym := ""
		if p.StartLine != 0 {
			sym = definitionAround(g.s, p.Path, a, b)
		}
		g.cands = append(g.cands, packs.Candidate{Path: p.Path, StartLine: a, EndLine: b, Symbol: sym, Kind: "pinned", Language: g.language(p.Path),
			Text: text, Score: 1, Source: packs.SourcePinned, Reason: "pinned", IncludeMode: packs.ModeManual})
	}
	always, err := alwaysPaths(g.s)
	if err != nil {
		return err
	}
	for _, rel := range always {
		text, a, b, err := g.text(rel, 1, int(^uint(0)>>1))
		if err != nil {
			g.notes = append(g.notes, fmt.Sprintf("always-included %s skipped: %v", rel, err))
			continue
		}
		if text == "" {
			continue
		}
		reason := "always included"
		if strings.HasPrefix(rel, rulesDir+"/") {
			reason = "rule"
		}
		g.cands = append(g.cands, packs.Candidate{Path: rel, StartLine: a, EndLine: b, Kind: "file", Language: g.language(rel),
			Text: text, Score: 1, Source: packs.SourceAlways, Reason: reason, IncludeMode: packs.ModeAlways})
	}
	return nil
}

// alwaysPaths lists the files under .context-ls/rules/ (sorted) and then
// the workspace's Pack.Always paths.
func alwaysPaths(s *engine.Snapshot) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	entries, err := os.ReadDir(filepath.Join(s.Root(), filepath.FromSlash(rulesDir)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("rules: %w", err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			rel := rulesDir + "/" + e.Name()
			seen[rel] = true
			out = append(out, rel)
		}
	}
	for _, p := range s.Config().Pack.Always {
		rel, err := s.Workspace().Resolve(p)
		if err != nil || seen[rel] {
			continue
		}
		seen[rel] = true
		out = append(out, rel)
	}
	return out, nil
}

// definitionAround names the smallest definition of rel whose lines (doc
// comment included) hold lines a-b (1-based), or "" when none does: a pinned range is shown by
// the definition it pins or lies in.
func definitionAround(s *engine.Snapshot, rel string, a, b int) string {
	syms, err := s.DocumentSymbols(rel)
	if err != nil {
		return ""
	}
	best, size := "", -1
	for _, si := range syms {
		start, end := si.Span.Start.Line+1, si.Span.End.Line+1
		if !si.DocSpan.Empty() {
			start = min(start, si.DocSpan.Start.Line+1) // its doc comment is part of it
		}
		if start <= a && b <= end && (size < 0 || end-start < size) {
			best, size = si.Qualified(), end-start
		}
	}
	return best
}
