package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
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

// callFolders runs an operation across the open folders
// (service.CallFolders); a folder that fails while others answer is
// logged.
func (s *server) callFolders(ctx context.Context, op string, req json.RawMessage) (json.RawMessage, error) {
	open := s.openFolders()
	if len(open) == 0 {
		return nil, fmt.Errorf("no workspace folder is open: %w", session.ErrFolderUnavailable)
	}
	folders := make([]service.Folder, 0, len(open))
	var errs []error
	for _, f := range open {
		b, release, err := s.backend.Backend(f.root)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.root, err))
			continue
		}
		defer release()
		folders = append(folders, service.Folder{URI: f.uri, Root: f.root, Backend: b})
	}
	if len(folders) == 0 {
		return nil, errors.Join(errs...)
	}
	for _, err := range errs {
		s.log.Warn(op+": a folder failed", "error", err)
	}
	res, err := service.CallFolders(ctx, folders, op, req, func(err error) { s.log.Warn(op+": a folder failed", "error", err) })
	if err != nil {
		return nil, err
	}
	return clientURIs(res, open)
}

// clientURIs rewrites the file URIs of a result under a folder the client
// named through a symbolic link: the service names files under the real
// root, the client under the root it opened.
func clientURIs(raw json.RawMessage, folders []*folder) (json.RawMessage, error) {
	type prefix struct{ real, client string }
	var rewrite []prefix
	for _, f := range folders {
		if real, err := filepath.EvalSymlinks(f.root); err == nil && real != f.root {
			rewrite = append(rewrite, prefix{workspace.PathToURI(real) + "/", workspace.PathToURI(f.root) + "/"})
		}
	}
	if len(rewrite) == 0 {
		return raw, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("reading a result: %w", err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, it := range x {
				walk(it)
			}
		case map[string]any:
			for k, it := range x {
				if s, ok := it.(string); ok && (k == "uri" || k == "folder") {
					for _, p := range rewrite {
						if rest, ok := strings.CutPrefix(s, p.real); ok {
							x[k] = p.client + rest
						}
					}
					continue
				}
				walk(it)
			}
		}
	}
	walk(v)
	return json.Marshal(v)
}

// call runs an operation across the folders with a typed request and
// result; errors are the service's.
func call[Res any](ctx context.Context, s *server, o *service.Op, req any) (*Res, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out, err := s.callFolders(ctx, o.Name, raw)
	if err != nil {
		return nil, err
	}
	res := new(Res)
	if err := json.Unmarshal(out, res); err != nil {
		return nil, fmt.Errorf("%s: malformed result: %w", o.Name, err)
	}
	return res, nil
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

// indexedDocument is the path of a request's document, which an open folder
// with an index must hold.
func (s *server) indexedDocument(field, uri string) (string, error) {
	path, err := docPath(field, uri)
	if err != nil {
		return "", err
	}
	f, err := s.folderFor(path)
	if err != nil {
		return "", err
	}
	_, release, err := s.backend.Backend(f.root)
	if err != nil {
		return "", err
	}
	release()
	return path, nil
}

// positionRequest converts a request's document position for the
// service, after the document's open buffer has reached the index (as far
// as need says).
func (s *server) positionRequest(ctx context.Context, field string, p positionParams, need session.Need) (service.PositionRequest, error) {
	path, err := s.indexedDocument(field, string(p.TextDocument.URI))
	if err != nil {
		return service.PositionRequest{}, err
	}
	if err := s.backend.Sync(ctx, path, need); err != nil {
		return service.PositionRequest{}, err
	}
	line, col, err := s.charPosition(field, path, p.Position)
	if err != nil {
		return service.PositionRequest{}, err
	}
	return service.PositionRequest{File: path, Line: line, Column: col}, nil
}

// definitionAt answers the service's definitions of the identifier at a
// document position (found in other folders when its own defines it
// nowhere).
func (s *server) definitionAt(ctx context.Context, p positionParams) (*service.DefinitionResult, error) {
	req, err := s.positionRequest(ctx, "textDocument.uri", p, session.NeedStore)
	if err != nil {
		return nil, err
	}
	res, err := call[service.DefinitionResult](ctx, s, service.OpDefinition, req)
	if err != nil {
		return nil, rpcError(err)
	}
	return res, nil
}

func (s *server) definition(ctx context.Context, p positionParams) ([]protocol.Location, error) {
	res, err := s.definitionAt(ctx, p)
	if err != nil {
		return nil, err
	}
	l := s.newLocator()
	out := []protocol.Location{}
	for _, def := range res.Definitions {
		out = append(out, l.location(def.URI, def.NameRange))
	}
	return out, nil
}

// referenceParams is ReferenceParams.
type referenceParams struct {
	positionParams
	Context struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

// references answers textDocument/references: the places the code graph
// resolves to the definition at the position (or the definition a call
// there resolves to), every definition of it when several.
func (s *server) references(ctx context.Context, p referenceParams) ([]protocol.Location, error) {
	pos, err := s.positionRequest(ctx, "textDocument.uri", p.positionParams, session.NeedStore)
	if err != nil {
		return nil, err
	}
	req := service.ReferencesRequest{Target: service.Target{File: pos.File, Line: pos.Line, Column: pos.Column},
		Declaration: p.Context.IncludeDeclaration}
	res, err := call[service.ReferencesResult](ctx, s, service.OpReferences, req)
	if errors.Is(err, service.ErrNotFound) {
		return []protocol.Location{}, nil // nothing to refer to at the position
	}
	if err != nil {
		return nil, rpcError(err)
	}
	l := s.newLocator()
	out := []protocol.Location{}
	for _, r := range res.Results {
		for _, ref := range r.References {
			out = append(out, l.location(ref.URI, ref.Range))
		}
	}
	return out, nil
}

// implementation answers textDocument/implementation: the definitions the
// code graph knows to implement or override the definition at the position
// (or the one a call there resolves to), at their names.
func (s *server) implementation(ctx context.Context, p positionParams) ([]protocol.Location, error) {
	pos, err := s.positionRequest(ctx, "textDocument.uri", p, session.NeedStore)
	if err != nil {
		return nil, err
	}
	req := service.GraphRequest{Target: service.Target{File: pos.File, Line: pos.Line, Column: pos.Column}, Limit: 1000}
	res, err := call[service.GraphResult](ctx, s, service.OpImplementations, req)
	if errors.Is(err, service.ErrNotFound) {
		return []protocol.Location{}, nil // nothing to implement at the position
	}
	if err != nil {
		return nil, rpcError(err)
	}
	l := s.newLocator()
	out := []protocol.Location{}
	for _, r := range res.Results {
		for _, it := range r.Items {
			out = append(out, l.location(it.URI, it.NameRange))
		}
	}
	return out, nil
}

func (s *server) hover(ctx context.Context, p positionParams) (*protocol.Hover, error) {
	// Hover lists related definitions found by a text search.
	req, err := s.positionRequest(ctx, "textDocument.uri", p, session.NeedText)
	if err != nil {
		return nil, err
	}
	res, err := call[service.HoverResult](ctx, s, service.OpHover, req)
	if err != nil {
		return nil, rpcError(err)
	}
	if res.Definition == nil {
		return nil, nil
	}
	r := s.newLocator().serviceRange(req.File, res.Range)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: hoverMarkdown(res)}, Range: &r}, nil
}

// hoverMarkdown renders a hover: the signature in a fence, the doc
// comment, where it is defined, then the Related section.
func hoverMarkdown(h *service.HoverResult) string {
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
	fmt.Fprintf(&md, "\nDefined in [%s:%d](%s#L%d)", def.Path, line, def.URI, line)
	if h.More > 0 {
		fmt.Fprintf(&md, " (%d more definitions of %s)", h.More, def.Name)
	}
	md.WriteString("\n\n**Related**\n\n")
	writeCount(&md, "callers", h.Callers, false)
	if h.Tests != nil {
		writeCount(&md, "tests", h.Tests, true)
	} else {
		md.WriteString("- tests: unknown (the code graph has no answer here)\n")
	}
	for _, r := range h.Related {
		fmt.Fprintf(&md, "- `%s` (%s) [%s:%d](%s#L%d)\n", r.Symbol, r.Kind, r.Path, r.StartLine, r.URI, r.StartLine)
	}
	if len(h.Related) == 0 {
		md.WriteString("- no related definitions found\n")
	}
	return md.String()
}

// writeCount is a hover's line about callers or tests: how many the graph
// can justify and the first few with their locations.
func writeCount(md *strings.Builder, what string, c *service.Count, reasons bool) {
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
		fmt.Fprintf(md, "%s[`%s`](%s#L%d)", sep, it.Symbol, it.URI, it.StartLine)
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
	path, err := s.indexedDocument("textDocument.uri", string(p.TextDocument.URI))
	if err != nil {
		return nil, err
	}
	if err := s.backend.Sync(ctx, path, session.NeedStore); err != nil {
		return nil, err
	}
	res, err := call[service.SymbolsResult](ctx, s, service.OpSymbols, service.SymbolsRequest{File: path})
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
				Location: protocol.Location{URI: p.TextDocument.URI, Range: l.serviceRange(path, sym.Range)},
			})
		}
		return flat, nil
	}
	return symbolTree(l, path, res.Symbols), nil
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

// workspaceSymbol queries every open folder; the service merges the
// answers by score (equal scores keep folder order).
func (s *server) workspaceSymbol(ctx context.Context, p workspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	if err := s.syncAll(ctx, session.NeedStore); err != nil {
		return nil, err
	}
	res, err := call[service.SymbolsResult](ctx, s, service.OpSymbols, service.SymbolsRequest{Query: p.Query})
	if err != nil {
		return nil, rpcError(err)
	}
	l := s.newLocator()
	out := make([]protocol.SymbolInformation, 0, len(res.Symbols))
	for _, sym := range res.Symbols {
		out = append(out, protocol.SymbolInformation{
			Name: sym.Name, Kind: protocolSymbolKind(sym.Kind), ContainerName: sym.Container,
			Location: l.location(sym.URI, sym.NameRange),
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

// callData is what a call hierarchy item carries to identify its
// definition when the client sends it back.
type callData struct {
	Path   string `json:"path"`   // relative to the folder (the item's uri names the file)
	Line   int    `json:"line"`   // 1-based line of the name
	Column int    `json:"column"` // 1-based character column of the name
}

// callItem builds a call hierarchy item.
func (l *locator) callItem(loc service.Location, name service.Range, label, kind, detail string) protocol.CallHierarchyItem {
	path, _ := workspace.URIToPath(loc.URI)
	data, _ := json.Marshal(callData{Path: loc.Path, Line: name.StartLine, Column: max(name.StartColumn, 1)})
	return protocol.CallHierarchyItem{
		Name: label, Kind: protocolSymbolKind(kind), Detail: detail, URI: protocol.DocumentURI(loc.URI),
		Range: l.serviceRange(path, loc.Range), SelectionRange: l.serviceRange(path, name), Data: json.RawMessage(data),
	}
}

func (s *server) prepareCallHierarchy(ctx context.Context, p positionParams) ([]protocol.CallHierarchyItem, error) {
	res, err := s.definitionAt(ctx, p)
	if err != nil {
		return nil, err
	}
	l := s.newLocator()
	out := []protocol.CallHierarchyItem{}
	for _, def := range res.Definitions {
		detail := def.Signature
		if detail == "" {
			detail = def.Container
		}
		out = append(out, l.callItem(def.Location, def.NameRange, def.Name, def.Kind, detail))
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
	err := s.calls(ctx, p, service.OpCallers, func(item protocol.CallHierarchyItem, sites []protocol.Range) {
		out = append(out, protocol.CallHierarchyIncomingCall{From: item, FromRanges: sites})
	})
	return out, err
}

func (s *server) outgoingCalls(ctx context.Context, p callHierarchyParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	out := []protocol.CallHierarchyOutgoingCall{}
	err := s.calls(ctx, p, service.OpCallees, func(item protocol.CallHierarchyItem, sites []protocol.Range) {
		out = append(out, protocol.CallHierarchyOutgoingCall{To: item, FromRanges: sites})
	})
	return out, err
}

// calls answers incoming or outgoing calls of an item: the item's
// definition is named by its data (or its selection range), the graph
// query runs on its folder's service, and each call's item and call sites
// are converted.
func (s *server) calls(ctx context.Context, p callHierarchyParams, o *service.Op, add func(item protocol.CallHierarchyItem, sites []protocol.Range)) error {
	path, err := s.indexedDocument("item.uri", string(p.Item.URI))
	if err != nil {
		return err
	}
	t := service.Target{File: path}
	var cd callData
	if raw, err := json.Marshal(p.Item.Data); err == nil && json.Unmarshal(raw, &cd) == nil && cd.Path != "" && cd.Line > 0 {
		t.Line, t.Column = cd.Line, cd.Column
	} else if t.Line, t.Column, err = s.charPosition("item.uri", path, p.Item.SelectionRange.Start); err != nil {
		return err
	}
	res, err := call[service.GraphResult](ctx, s, o, service.GraphRequest{Target: t})
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
			sites := make([]protocol.Range, 0, len(it.Sites))
			for _, site := range it.Sites {
				sites = append(sites, l.location(site.URI, site.Range).Range)
			}
			add(l.callItem(it.Location, it.NameRange, name, it.Kind, it.Symbol), sites)
		}
	}
	return nil
}
