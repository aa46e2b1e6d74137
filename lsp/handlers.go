package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"go.lsp.dev/protocol"
)

// positionParams is TextDocumentPositionParams (the work-done and partial
// result tokens are not used and so not decoded).
type positionParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Position     protocol.Position               `json:"position"`
}

func (p *positionParams) validate() error {
	if p.TextDocument.URI == "" {
		return errors.New("textDocument.uri: required")
	}
	return nil
}

// needHook answers a request whose backend hook is missing.
func needHook(ok bool, feature string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%s: %w (the backend provides no %s hook)", feature, ErrNotSupported, feature)
}

// docPath converts a request's document URI, as InvalidParams on failure.
func docPath(field, uri string) (string, error) {
	path, err := URIToPath(uri)
	if err != nil {
		return "", invalidParams("%s: %v", field, err)
	}
	return path, nil
}

// place resolves a document position to an engine Place and its folder.
func (s *server) place(uri string, pos protocol.Position) (Place, FolderHandle, error) {
	path, err := docPath("textDocument.uri", uri)
	if err != nil {
		return Place{}, nil, err
	}
	_, h, err := s.folderFor(path)
	if err != nil {
		return Place{}, nil, err
	}
	m, err := s.mapperFor(path)
	if err != nil {
		return Place{}, nil, fmt.Errorf("mapping the position: %w", err)
	}
	return Place{Path: path, Point: m.PositionPoint(pos)}, h, nil
}

// locator converts engine locations to protocol ones, reading each file's
// text (the open document, else the file on disk) once per request.
type locator struct {
	s     *server
	cache map[string]*Mapper
}

func (s *server) newLocator() *locator { return &locator{s: s, cache: make(map[string]*Mapper)} }

// mapper returns path's mapper, or nil when the file cannot be read.
func (l *locator) mapper(path string) *Mapper {
	if m, ok := l.cache[path]; ok {
		return m
	}
	m, err := l.s.mapperFor(path)
	if err != nil {
		l.s.log.debug("cannot read a result's file; its columns are byte columns", "path", path, "error", err)
		m = nil
	}
	l.cache[path] = m
	return m
}

// protoRange converts a range in path. When the file cannot be read the
// line numbers are kept and byte columns are sent as they are (exact for
// ASCII lines).
func (l *locator) protoRange(path string, r Range) protocol.Range {
	if m := l.mapper(path); m != nil {
		return m.RangeToProtocol(r)
	}
	clamp := func(n int) uint32 {
		if n < 0 {
			return 0
		}
		return uint32(n)
	}
	return protocol.Range{
		Start: protocol.Position{Line: clamp(r.Start.Line), Character: clamp(r.Start.Column)},
		End:   protocol.Position{Line: clamp(r.End.Line), Character: clamp(r.End.Column)},
	}
}

// engineRange converts a protocol range in path to an engine range.
func (l *locator) engineRange(path string, r protocol.Range) Range {
	if m := l.mapper(path); m != nil {
		return m.RangeFromProtocol(r)
	}
	return Range{
		Start: Point{Line: int(r.Start.Line), Column: int(r.Start.Character)},
		End:   Point{Line: int(r.End.Line), Column: int(r.End.Character)},
	}
}

func (l *locator) location(loc Location) protocol.Location {
	return protocol.Location{URI: protocol.DocumentURI(PathToURI(loc.Path)), Range: l.protoRange(loc.Path, loc.Range)}
}

func (s *server) definition(ctx context.Context, p positionParams) ([]protocol.Location, error) {
	return placeList(ctx, s, p, "definition", s.opts.Features.Definition, (*locator).location)
}

// placeList answers a request about a place with a list: it resolves the
// place, calls the feature hook (refusing when the feature is missing) and
// converts each result at the edge.
func placeList[T, R any](ctx context.Context, s *server, p positionParams, feature string,
	hook func(context.Context, FolderHandle, Place) ([]T, error), convert func(*locator, T) R) ([]R, error) {
	if err := needHook(hook != nil, feature); err != nil {
		return nil, err
	}
	at, h, err := s.place(string(p.TextDocument.URI), p.Position)
	if err != nil {
		return nil, err
	}
	items, err := hook(ctx, h, at)
	if err != nil {
		return nil, err
	}
	l := s.newLocator()
	out := make([]R, 0, len(items))
	for _, it := range items {
		out = append(out, convert(l, it))
	}
	return out, nil
}

func (s *server) hover(ctx context.Context, p positionParams) (*protocol.Hover, error) {
	hook := s.opts.Features.Hover
	if err := needHook(hook != nil, "hover"); err != nil {
		return nil, err
	}
	at, h, err := s.place(string(p.TextDocument.URI), p.Position)
	if err != nil {
		return nil, err
	}
	res, err := hook(ctx, h, at)
	if err != nil || res == nil {
		return nil, err
	}
	out := &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: res.Markdown}}
	if res.Range != nil {
		r := s.newLocator().protoRange(at.Path, *res.Range)
		out.Range = &r
	}
	return out, nil
}

type documentSymbolParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
}

func (p *documentSymbolParams) validate() error {
	if p.TextDocument.URI == "" {
		return errors.New("textDocument.uri: required")
	}
	return nil
}

// documentSymbol answers with DocumentSymbol trees, or with flat
// SymbolInformation when the client lacks hierarchical support.
func (s *server) documentSymbol(ctx context.Context, p documentSymbolParams) (any, error) {
	hook := s.opts.Features.DocumentSymbols
	if err := needHook(hook != nil, "documentSymbol"); err != nil {
		return nil, err
	}
	path, err := docPath("textDocument.uri", string(p.TextDocument.URI))
	if err != nil {
		return nil, err
	}
	_, h, err := s.folderFor(path)
	if err != nil {
		return nil, err
	}
	syms, err := hook(ctx, h, path)
	if err != nil {
		return nil, err
	}
	l := s.newLocator()
	s.mu.RLock()
	hierarchical := s.caps.TextDocument.DocumentSymbol.HierarchicalDocumentSymbolSupport
	s.mu.RUnlock()
	if hierarchical {
		return convertDocumentSymbols(l, path, syms), nil
	}
	flat := []protocol.SymbolInformation{}
	var walk func(list []DocumentSymbol, container string)
	walk = func(list []DocumentSymbol, container string) {
		for _, d := range list {
			flat = append(flat, protocol.SymbolInformation{
				Name: d.Name, Kind: protocolSymbolKind(d.Kind), ContainerName: container,
				Location: protocol.Location{URI: protocol.DocumentURI(PathToURI(path)), Range: l.protoRange(path, d.Range)},
			})
			walk(d.Children, d.Name)
		}
	}
	walk(syms, "")
	return flat, nil
}

func convertDocumentSymbols(l *locator, path string, syms []DocumentSymbol) []protocol.DocumentSymbol {
	out := make([]protocol.DocumentSymbol, 0, len(syms))
	for _, d := range syms {
		ds := protocol.DocumentSymbol{
			Name: d.Name, Detail: d.Detail, Kind: protocolSymbolKind(d.Kind),
			Range: l.protoRange(path, d.Range), SelectionRange: l.protoRange(path, d.SelectionRange),
		}
		if len(d.Children) > 0 {
			ds.Children = convertDocumentSymbols(l, path, d.Children)
		}
		out = append(out, ds)
	}
	return out
}

type workspaceSymbolParams struct {
	Query string `json:"query"`
}

// workspaceSymbol queries every open folder and merges the results by
// score (stable: equal scores keep folder order). A folder that fails is logged and skipped unless every
// folder fails.
func (s *server) workspaceSymbol(ctx context.Context, p workspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	hook := s.opts.Features.WorkspaceSymbols
	if err := needHook(hook != nil, "workspaceSymbol"); err != nil {
		return nil, err
	}
	folders := s.openFolders()
	if len(folders) == 0 {
		return nil, fmt.Errorf("no workspace folder is open: %w", ErrFolderUnavailable)
	}
	l := s.newLocator()
	var all []SymbolInfo
	var errs []error
	for _, f := range folders {
		syms, err := hook(ctx, f.handle, p.Query)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			errs = append(errs, fmt.Errorf("%s: %w", f.root, err))
			continue
		}
		all = append(all, syms...)
	}
	if len(errs) == len(folders) {
		return nil, errors.Join(errs...)
	}
	for _, err := range errs {
		s.log.warn("workspace/symbol: a folder failed", "error", err)
	}
	// Folders merge by score; equal scores keep folder order.
	sort.SliceStable(all, func(i, j int) bool { return all[i].Score > all[j].Score })
	out := make([]protocol.SymbolInformation, 0, len(all))
	for _, si := range all {
		out = append(out, protocol.SymbolInformation{
			Name: si.Name, Kind: protocolSymbolKind(si.Kind), ContainerName: si.Container,
			Location: l.location(si.Location),
		})
	}
	return out, nil
}

func (l *locator) callItem(it CallItem) protocol.CallHierarchyItem {
	out := protocol.CallHierarchyItem{
		Name: it.Name, Kind: protocolSymbolKind(it.Kind), Detail: it.Detail,
		URI:            protocol.DocumentURI(PathToURI(it.Path)),
		Range:          l.protoRange(it.Path, it.Range),
		SelectionRange: l.protoRange(it.Path, it.SelectionRange),
	}
	if len(it.Data) > 0 {
		out.Data = it.Data
	}
	return out
}

func (s *server) prepareCallHierarchy(ctx context.Context, p positionParams) ([]protocol.CallHierarchyItem, error) {
	return placeList(ctx, s, p, "callHierarchy", s.opts.Features.PrepareCallHierarchy, (*locator).callItem)
}

type callHierarchyParams struct {
	Item protocol.CallHierarchyItem `json:"item"`
}

func (p *callHierarchyParams) validate() error {
	if p.Item.URI == "" {
		return errors.New("item.uri: required")
	}
	return nil
}

// engineCallItem converts the client's item back to engine terms.
func (s *server) engineCallItem(l *locator, it protocol.CallHierarchyItem) (CallItem, FolderHandle, error) {
	path, err := docPath("item.uri", string(it.URI))
	if err != nil {
		return CallItem{}, nil, err
	}
	_, h, err := s.folderFor(path)
	if err != nil {
		return CallItem{}, nil, err
	}
	out := CallItem{
		Name: it.Name, Kind: engineSymbolKind(it.Kind), Detail: it.Detail, Path: path,
		Range: l.engineRange(path, it.Range), SelectionRange: l.engineRange(path, it.SelectionRange),
	}
	if it.Data != nil {
		raw, err := json.Marshal(it.Data)
		if err != nil {
			return CallItem{}, nil, invalidParams("item.data: %v", err)
		}
		out.Data = raw
	}
	return out, h, nil
}

func (s *server) incomingCalls(ctx context.Context, p callHierarchyParams) ([]protocol.CallHierarchyIncomingCall, error) {
	// Call sites lie in the caller's file.
	items, ranges, err := s.calls(ctx, p, "incomingCalls", s.opts.Features.IncomingCalls,
		func(c Call, _ CallItem) string { return c.Item.Path })
	out := make([]protocol.CallHierarchyIncomingCall, len(items))
	for i := range items {
		out[i] = protocol.CallHierarchyIncomingCall{From: items[i], FromRanges: ranges[i]}
	}
	return out, err
}

func (s *server) outgoingCalls(ctx context.Context, p callHierarchyParams) ([]protocol.CallHierarchyOutgoingCall, error) {
	// Call sites lie in the file of the item asked about.
	items, ranges, err := s.calls(ctx, p, "outgoingCalls", s.opts.Features.OutgoingCalls,
		func(_ Call, item CallItem) string { return item.Path })
	out := make([]protocol.CallHierarchyOutgoingCall, len(items))
	for i := range items {
		out[i] = protocol.CallHierarchyOutgoingCall{To: items[i], FromRanges: ranges[i]}
	}
	return out, err
}

// calls resolves a call-hierarchy item, calls an incoming/outgoing hook and
// converts each call's item and its call-site ranges, which lie in the file
// sitePath names.
func (s *server) calls(ctx context.Context, p callHierarchyParams, feature string,
	hook func(context.Context, FolderHandle, CallItem) ([]Call, error),
	sitePath func(c Call, item CallItem) string) ([]protocol.CallHierarchyItem, [][]protocol.Range, error) {
	if err := needHook(hook != nil, feature); err != nil {
		return nil, nil, err
	}
	l := s.newLocator()
	item, h, err := s.engineCallItem(l, p.Item)
	if err != nil {
		return nil, nil, err
	}
	calls, err := hook(ctx, h, item)
	if err != nil {
		return nil, nil, err
	}
	items := make([]protocol.CallHierarchyItem, len(calls))
	ranges := make([][]protocol.Range, len(calls))
	for i, c := range calls {
		items[i] = l.callItem(c.Item)
		ranges[i] = make([]protocol.Range, 0, len(c.Ranges))
		for _, r := range c.Ranges {
			ranges[i] = append(ranges[i], l.protoRange(sitePath(c, item), r))
		}
	}
	return items, ranges, nil
}

// symbolKinds maps kind names to LSP symbol kinds.
var symbolKinds = map[SymbolKind]protocol.SymbolKind{
	"file":        protocol.SymbolKindFile,
	"module":      protocol.SymbolKindModule,
	"namespace":   protocol.SymbolKindNamespace,
	"package":     protocol.SymbolKindPackage,
	"class":       protocol.SymbolKindClass,
	"type":        protocol.SymbolKindClass,
	"method":      protocol.SymbolKindMethod,
	"property":    protocol.SymbolKindProperty,
	"field":       protocol.SymbolKindField,
	"constructor": protocol.SymbolKindConstructor,
	"enum":        protocol.SymbolKindEnum,
	"interface":   protocol.SymbolKindInterface,
	"trait":       protocol.SymbolKindInterface,
	"function":    protocol.SymbolKindFunction,
	"macro":       protocol.SymbolKindFunction,
	"var":         protocol.SymbolKindVariable,
	"variable":    protocol.SymbolKindVariable,
	"const":       protocol.SymbolKindConstant,
	"constant":    protocol.SymbolKindConstant,
	"string":      protocol.SymbolKindString,
	"key":         protocol.SymbolKindKey,
	"object":      protocol.SymbolKindObject,
	"enumMember":  protocol.SymbolKindEnumMember,
	"struct":      protocol.SymbolKindStruct,
}

// engineKinds maps LSP kinds back to the engine's names.
var engineKinds = map[protocol.SymbolKind]SymbolKind{
	protocol.SymbolKindFile: "file", protocol.SymbolKindModule: "module", protocol.SymbolKindNamespace: "namespace",
	protocol.SymbolKindPackage: "package", protocol.SymbolKindClass: "class", protocol.SymbolKindMethod: "method",
	protocol.SymbolKindProperty: "property", protocol.SymbolKindField: "field", protocol.SymbolKindConstructor: "constructor",
	protocol.SymbolKindEnum: "enum", protocol.SymbolKindInterface: "interface", protocol.SymbolKindFunction: "function",
	protocol.SymbolKindVariable: "var", protocol.SymbolKindConstant: "const", protocol.SymbolKindString: "string",
	protocol.SymbolKindKey: "key", protocol.SymbolKindObject: "object", protocol.SymbolKindEnumMember: "enumMember",
	protocol.SymbolKindStruct: "struct",
}

// protocolSymbolKind maps a kind name; unknown names become Object.
func protocolSymbolKind(k SymbolKind) protocol.SymbolKind {
	if pk, ok := symbolKinds[k]; ok {
		return pk
	}
	return protocol.SymbolKindObject
}

// engineSymbolKind maps an LSP kind back to a kind name ("" if unknown).
func engineSymbolKind(k protocol.SymbolKind) SymbolKind { return engineKinds[k] }
