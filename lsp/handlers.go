package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
	"go.lsp.dev/protocol"
)

// The navigation handlers: definition, hover, document and workspace
// symbols, the call hierarchy. Each finds the document's folder, asks its
// service and converts the answer to protocol types; UTF-16 positions are
// converted here, at the edge.

// positionParams is TextDocumentPositionParams (the work-done and partial
// result tokens are not used and so not decoded).
type positionParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Position     protocol.Position               `json:"position"`
}

func (p *positionParams) Validate() error {
	if p.TextDocument.URI == "" {
		return errors.New("textDocument.uri: required")
	}
	return nil
}

// docPath converts a request's document URI, as InvalidParams on failure.
func docPath(field, uri string) (string, error) {
	path, err := workspace.URIToPath(uri)
	if err != nil {
		return "", jsonrpc.InvalidParams("%s: %v", field, err)
	}
	return path, nil
}

// doc is a request's document: its folder and that folder's service, to
// be released when done.
type doc struct {
	path    string
	f       *folder
	svc     *service.Service
	release func()
	rel     string
}

// document resolves a request's document.
func (s *server) document(field, uri string) (*doc, error) {
	path, err := docPath(field, uri)
	if err != nil {
		return nil, err
	}
	return s.documentAt(path)
}

// documentAt resolves an absolute path to its folder's service.
func (s *server) documentAt(path string) (*doc, error) {
	f, err := s.folderFor(path)
	if err != nil {
		return nil, err
	}
	svc, release, err := s.backend.Service(f.root)
	if err != nil {
		return nil, err
	}
	rel, err := svc.Rel(path)
	if err != nil {
		release()
		return nil, rpcError(err)
	}
	return &doc{path: path, f: f, svc: svc, release: release, rel: rel}, nil
}

// charPosition converts an LSP position in path to the service's 1-based
// line and character column; field names the document's URI in errors.
func (s *server) charPosition(field, path string, p protocol.Position) (line, col int, err error) {
	m, err := s.mapperFor(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, 0, jsonrpc.InvalidParams("%s: %s does not exist (and is not open)", field, path)
	case errors.Is(err, errFileTooLarge):
		return 0, 0, jsonrpc.InvalidParams("%s: %s: %v", field, path, err)
	case err != nil:
		return 0, 0, fmt.Errorf("mapping the position: %w", err)
	}
	off := m.PositionOffset(p)
	pt := m.OffsetPoint(off)
	start := off - pt.Column
	return pt.Line + 1, utf8.RuneCount(m.Text()[start:off]) + 1, nil
}

// positionRequest converts a position request for the service, after the
// document's open buffer has reached the index (as far as need says).
func (s *server) positionRequest(ctx context.Context, d *doc, p protocol.Position, need session.Need) (service.PositionRequest, error) {
	if err := s.backend.Sync(ctx, d.path, need); err != nil {
		return service.PositionRequest{}, err
	}
	line, col, err := s.charPosition("textDocument.uri", d.path, p)
	if err != nil {
		return service.PositionRequest{}, err
	}
	return service.PositionRequest{File: d.rel, Line: line, Column: col}, nil
}

// abs is the absolute path of a folder-relative path, in the client's
// terms (the folder's root as the client named it).
func (f *folder) abs(rel string) string { return filepath.Join(f.root, filepath.FromSlash(rel)) }

// fileURI is the file URI of a folder-relative path.
func (f *folder) fileURI(rel string) protocol.DocumentURI {
	return protocol.DocumentURI(workspace.PathToURI(f.abs(rel)))
}

// definitionAt answers the service's definition of the identifier at a
// document position; release ends the use of the document.
func (s *server) definitionAt(ctx context.Context, p positionParams) (d *doc, res *service.DefinitionResult, err error) {
	d, err = s.document("textDocument.uri", string(p.TextDocument.URI))
	if err != nil {
		return nil, nil, err
	}
	req, err := s.positionRequest(ctx, d, p.Position, session.NeedStore)
	if err == nil {
		if res, err = d.svc.Definition(ctx, req); err != nil {
			err = rpcError(err)
		}
	}
	if err != nil {
		d.release()
		return nil, nil, err
	}
	return d, res, nil
}

func (s *server) definition(ctx context.Context, p positionParams) ([]protocol.Location, error) {
	d, res, err := s.definitionAt(ctx, p)
	if err != nil {
		return nil, err
	}
	defer d.release()
	l := s.newLocator()
	out := []protocol.Location{}
	for _, def := range res.Definitions {
		out = append(out, protocol.Location{URI: d.f.fileURI(def.Path), Range: l.serviceRange(d.f.abs(def.Path), def.NameRange)})
	}
	if len(out) == 0 && res.Identifier != "" {
		out = s.definitionsElsewhere(ctx, d.f, res.Identifier, l)
	}
	return out, nil
}

// definitionsElsewhere looks a name up in the other open folders, when
// the document's own folder has no definition of it.
func (s *server) definitionsElsewhere(ctx context.Context, skip *folder, name string, l *locator) []protocol.Location {
	out := []protocol.Location{}
	for _, f := range s.openFolders() {
		if f == skip || ctx.Err() != nil {
			continue
		}
		svc, release, err := s.backend.Service(f.root)
		if err != nil {
			continue
		}
		res, err := svc.Symbols(ctx, service.SymbolsRequest{Name: name, Limit: 10})
		release()
		if err != nil || res.Fuzzy {
			continue
		}
		for _, sym := range res.Symbols {
			out = append(out, protocol.Location{URI: f.fileURI(sym.Path), Range: l.serviceRange(f.abs(sym.Path), sym.NameRange)})
		}
	}
	return out
}

func (s *server) hover(ctx context.Context, p positionParams) (*protocol.Hover, error) {
	d, err := s.document("textDocument.uri", string(p.TextDocument.URI))
	if err != nil {
		return nil, err
	}
	defer d.release()
	// Hover lists related definitions found by a text search.
	req, err := s.positionRequest(ctx, d, p.Position, session.NeedText)
	if err != nil {
		return nil, err
	}
	res, err := d.svc.Hover(ctx, req)
	if err != nil {
		return nil, rpcError(err)
	}
	if res.Definition == nil {
		return nil, nil
	}
	r := s.newLocator().serviceRange(d.path, res.Range)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: hoverMarkdown(d.f, res)}, Range: &r}, nil
}

// hoverMarkdown renders a hover: the signature in a fence, the doc
// comment, where it is defined, then the Related section.
func hoverMarkdown(f *folder, h *service.HoverResult) string {
	def := h.Definition
	var md strings.Builder
	sig := def.Signature
	if sig == "" {
		sig = def.Name
	}
	fmt.Fprintf(&md, "```%s\n%s\n```\n", fenceLanguage(def.Language), sig)
	if doc := strings.TrimSpace(def.Doc); doc != "" {
		md.WriteString("\n" + doc + "\n")
	}
	line := def.NameRange.StartLine
	fmt.Fprintf(&md, "\nDefined in [%s:%d](%s#L%d)", def.Path, line, f.fileURI(def.Path), line)
	if h.More > 0 {
		fmt.Fprintf(&md, " (%d more definitions of %s)", h.More, def.Name)
	}
	md.WriteString("\n\n**Related**\n\n")
	writeCount(&md, f, "callers", h.Callers, false)
	if h.Tests != nil {
		writeCount(&md, f, "tests", h.Tests, true)
	} else {
		md.WriteString("- tests: unknown (the code graph has no answer here)\n")
	}
	for _, r := range h.Related {
		fmt.Fprintf(&md, "- `%s` (%s) [%s:%d](%s#L%d)\n", r.Symbol, r.Kind, r.Path, r.StartLine, f.fileURI(r.Path), r.StartLine)
	}
	if len(h.Related) == 0 {
		md.WriteString("- no related definitions found\n")
	}
	return md.String()
}

// writeCount is a hover's line about callers or tests: how many the graph
// can justify and the first few with their locations.
func writeCount(md *strings.Builder, f *folder, what string, c *service.Count, reasons bool) {
	if c == nil {
		return
	}
	n := fmt.Sprint(c.Count)
	if c.More {
		n += "+"
	}
	fmt.Fprintf(md, "- %s: %s", what, n)
	for i, it := range c.First {
		sep := ", "
		if i == 0 {
			sep = " — "
		}
		fmt.Fprintf(md, "%s[`%s`](%s#L%d)", sep, it.Symbol, f.fileURI(it.Path), it.StartLine)
		if reasons && it.Reason != "" {
			fmt.Fprintf(md, " (%s)", it.Reason)
		}
	}
	if c.Count > len(c.First) {
		md.WriteString(", …")
	}
	md.WriteString("\n")
}

// fenceLanguage names a Markdown code fence's language.
func fenceLanguage(lang string) string {
	switch lang {
	case "", "text", "markdown":
		return ""
	}
	return lang
}

type documentSymbolParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
}

func (p *documentSymbolParams) Validate() error {
	if p.TextDocument.URI == "" {
		return errors.New("textDocument.uri: required")
	}
	return nil
}

// documentSymbol answers with DocumentSymbol trees, or with flat
// SymbolInformation when the client lacks hierarchical support, from the
// document's current text.
func (s *server) documentSymbol(ctx context.Context, p documentSymbolParams) (any, error) {
	d, err := s.document("textDocument.uri", string(p.TextDocument.URI))
	if err != nil {
		return nil, err
	}
	defer d.release()
	if err := s.backend.Sync(ctx, d.path, session.NeedStore); err != nil {
		return nil, err
	}
	res, err := d.svc.Symbols(ctx, service.SymbolsRequest{File: d.rel})
	if err != nil {
		return nil, rpcError(err)
	}
	l := s.newLocator()
	s.mu.RLock()
	hierarchical := s.caps.TextDocument.DocumentSymbol.HierarchicalDocumentSymbolSupport
	s.mu.RUnlock()
	if !hierarchical {
		flat := []protocol.SymbolInformation{}
		for _, sym := range res.Symbols {
			container := ""
			if sym.Parent >= 0 && sym.Parent < len(res.Symbols) {
				container = res.Symbols[sym.Parent].Name
			}
			flat = append(flat, protocol.SymbolInformation{
				Name: sym.Name, Kind: protocolSymbolKind(sym.Kind), ContainerName: container,
				Location: protocol.Location{URI: d.f.fileURI(sym.Path), Range: l.serviceRange(d.path, sym.Range)},
			})
		}
		return flat, nil
	}
	return symbolTree(l, d.path, res.Symbols), nil
}

// symbolTree nests a file's definitions by their Parent indexes (an index
// that does not point to an earlier definition makes a root).
func symbolTree(l *locator, path string, syms []service.Symbol) []protocol.DocumentSymbol {
	children := make([][]int, len(syms))
	var roots []int
	for i, sym := range syms {
		if sym.Parent >= 0 && sym.Parent < i {
			children[sym.Parent] = append(children[sym.Parent], i)
		} else {
			roots = append(roots, i)
		}
	}
	var build func(i int) protocol.DocumentSymbol
	build = func(i int) protocol.DocumentSymbol {
		sym := syms[i]
		full := l.serviceRange(path, sym.Range)
		sel := l.serviceRange(path, sym.NameRange)
		if !rangeWithin(full, sel) {
			sel = protocol.Range{Start: full.Start, End: full.Start}
		}
		ds := protocol.DocumentSymbol{Name: sym.Name, Detail: sym.Signature, Kind: protocolSymbolKind(sym.Kind), Range: full, SelectionRange: sel}
		for _, c := range children[i] {
			ds.Children = append(ds.Children, build(c))
		}
		return ds
	}
	out := make([]protocol.DocumentSymbol, 0, len(roots))
	for _, i := range roots {
		out = append(out, build(i))
	}
	return out
}

// rangeWithin reports whether inner lies within outer.
func rangeWithin(outer, inner protocol.Range) bool {
	before := func(a, b protocol.Position) bool {
		return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
	}
	return !before(inner.Start, outer.Start) && !before(outer.End, inner.End)
}

type workspaceSymbolParams struct {
	Query string `json:"query"`
}

// workspaceSymbol queries every open folder and merges the results by
// score (stable: equal scores keep folder order). A folder that fails is
// logged and skipped unless every folder fails.
func (s *server) workspaceSymbol(ctx context.Context, p workspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	type found struct {
		f   *folder
		sym service.Symbol
	}
	var all []found
	err := s.eachFolder(ctx, "workspace/symbol", session.NeedStore, func(f *folder, svc *service.Service) error {
		res, err := svc.Symbols(ctx, service.SymbolsRequest{Query: p.Query})
		if err != nil {
			return err
		}
		for _, sym := range res.Symbols {
			all = append(all, found{f, sym})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].sym.Score > all[j].sym.Score })
	l := s.newLocator()
	out := make([]protocol.SymbolInformation, 0, len(all))
	for _, a := range all {
		out = append(out, protocol.SymbolInformation{
			Name: a.sym.Name, Kind: protocolSymbolKind(a.sym.Kind), ContainerName: a.sym.Container,
			Location: protocol.Location{URI: a.f.fileURI(a.sym.Path), Range: l.serviceRange(a.f.abs(a.sym.Path), a.sym.NameRange)},
		})
	}
	return out, nil
}

// syncBound is the longest a workspace-wide query waits for the editor's
// pending buffers to reach the index before it answers from what the
// index holds (a huge buffer being parsed must not hold every query up).
const syncBound = 2 * time.Second

// syncAll waits (at most syncBound) until every pending editor buffer is
// indexed (in the store alone for session.NeedStore): a workspace-wide
// query sees the edits sent before it.
func (s *server) syncAll(ctx context.Context, need session.Need) error {
	sctx, cancel := context.WithTimeout(ctx, syncBound)
	defer cancel()
	err := s.backend.SyncAll(sctx, need)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		s.log.Debug("answering before every editor buffer is indexed", "error", err)
	}
	return nil
}

// eachFolder calls fn with the service of every open folder, in order,
// once the pending editor buffers are indexed (as far as need says). A
// folder that fails is logged and skipped unless every folder fails.
func (s *server) eachFolder(ctx context.Context, what string, need session.Need, fn func(f *folder, svc *service.Service) error) error {
	folders := s.openFolders()
	if len(folders) == 0 {
		return fmt.Errorf("no workspace folder is open: %w", session.ErrFolderUnavailable)
	}
	if err := s.syncAll(ctx, need); err != nil {
		return err
	}
	var errs []error
	for _, f := range folders {
		svc, release, err := s.backend.Service(f.root)
		if err == nil {
			err = fn(f, svc)
			release()
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, fmt.Errorf("%s: %w", f.root, err))
		}
	}
	if len(errs) == len(folders) {
		return rpcError(errors.Join(errs...))
	}
	for _, err := range errs {
		s.log.Warn(what+": a folder failed", "error", err)
	}
	return nil
}

// callData is what a call hierarchy item carries to identify its
// definition when the client sends it back.
type callData struct {
	Path   string `json:"path"`   // relative to the folder
	Line   int    `json:"line"`   // 1-based line of the name
	Column int    `json:"column"` // 1-based character column of the name
}

// callItem builds a call hierarchy item.
func (l *locator) callItem(f *folder, loc service.Location, name service.Range, label, kind, detail string) protocol.CallHierarchyItem {
	data, _ := json.Marshal(callData{Path: loc.Path, Line: name.StartLine, Column: max(name.StartColumn, 1)})
	abs := f.abs(loc.Path)
	return protocol.CallHierarchyItem{
		Name: label, Kind: protocolSymbolKind(kind), Detail: detail, URI: f.fileURI(loc.Path),
		Range: l.serviceRange(abs, loc.Range), SelectionRange: l.serviceRange(abs, name), Data: json.RawMessage(data),
	}
}

func (s *server) prepareCallHierarchy(ctx context.Context, p positionParams) ([]protocol.CallHierarchyItem, error) {
	d, res, err := s.definitionAt(ctx, p)
	if err != nil {
		return nil, err
	}
	defer d.release()
	l := s.newLocator()
	out := []protocol.CallHierarchyItem{}
	for _, def := range res.Definitions {
		detail := def.Signature
		if detail == "" {
			detail = def.Container
		}
		out = append(out, l.callItem(d.f, def.Location, def.NameRange, def.Name, def.Kind, detail))
	}
	return out, nil
}

type callHierarchyParams struct {
	Item protocol.CallHierarchyItem `json:"item"`
}

func (p *callHierarchyParams) Validate() error {
	if p.Item.URI == "" {
		return errors.New("item.uri: required")
	}
	return nil
}

func (s *server) incomingCalls(ctx context.Context, p callHierarchyParams) ([]protocol.CallHierarchyIncomingCall, error) {
	out := []protocol.CallHierarchyIncomingCall{}
	err := s.calls(ctx, p, (*service.Service).Callers, false, func(item protocol.CallHierarchyItem, sites []protocol.Range) {
		out = append(out, protocol.CallHierarchyIncomingCall{From: item, FromRanges: sites})
	})
	return out, err
}

func (s *server) outgoingCalls(ctx context.Context, p callHierarchyParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	out := []protocol.CallHierarchyOutgoingCall{}
	err := s.calls(ctx, p, (*service.Service).Callees, true, func(item protocol.CallHierarchyItem, sites []protocol.Range) {
		out = append(out, protocol.CallHierarchyOutgoingCall{To: item, FromRanges: sites})
	})
	return out, err
}

// calls answers incoming or outgoing calls of an item: the item's
// definition is named by its data (or its selection range), the graph
// query runs on its folder's service, and each call's item and call sites
// are converted (callers' sites lie in the caller's file, callees' in the
// item's).
func (s *server) calls(ctx context.Context, p callHierarchyParams,
	q func(*service.Service, context.Context, service.GraphRequest) (*service.GraphResult, error), sitesInTarget bool,
	add func(item protocol.CallHierarchyItem, sites []protocol.Range)) error {
	d, err := s.document("item.uri", string(p.Item.URI))
	if err != nil {
		return err
	}
	defer d.release()
	t := service.Target{File: d.rel}
	var cd callData
	if raw, err := json.Marshal(p.Item.Data); err == nil && json.Unmarshal(raw, &cd) == nil && cd.Path != "" && cd.Line > 0 {
		t.File, t.Line, t.Column = cd.Path, cd.Line, cd.Column
	} else if t.Line, t.Column, err = s.charPosition("item.uri", d.path, p.Item.SelectionRange.Start); err != nil {
		return err
	}
	res, err := q(d.svc, ctx, service.GraphRequest{Target: t})
	if err != nil {
		return rpcError(err)
	}
	l := s.newLocator()
	for _, r := range res.Results {
		for _, it := range r.Items {
			name := it.Symbol
			if i := strings.LastIndexByte(name, '.'); i >= 0 && it.Kind != "file" {
				name = name[i+1:]
			}
			item := l.callItem(d.f, it.Location, it.NameRange, name, it.Kind, it.Symbol)
			sitePath := d.f.abs(it.Path)
			if sitesInTarget {
				sitePath = d.f.abs(r.Definition.Path)
			}
			sites := make([]protocol.Range, 0, len(it.Sites))
			for _, site := range it.Sites {
				sites = append(sites, l.serviceRange(sitePath, site))
			}
			add(item, sites)
		}
	}
	return nil
}
