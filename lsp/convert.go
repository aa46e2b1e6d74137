package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/workspace"
	"go.lsp.dev/protocol"
)

// Conversions at the protocol edge: service ranges (1-based lines,
// character columns) to LSP ranges (0-based lines, UTF-16 units), service
// errors to JSON-RPC errors, kind names to LSP symbol kinds.

// locator converts service ranges to protocol ones, reading each file's
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
		l.s.log.Debug("cannot read a result's file; its columns are character columns", "path", path, "error", err)
		m = nil
	}
	l.cache[path] = m
	return m
}

// location converts a service range of the file uri to a protocol
// location.
func (l *locator) location(uri string, r service.Range) protocol.Location {
	path, _ := workspace.URIToPath(uri)
	return protocol.Location{URI: protocol.DocumentURI(uri), Range: l.serviceRange(path, r)}
}

// serviceRange converts a service range of path (1-based lines,
// character columns, 0 for whole lines) to a protocol range. When the
// file cannot be read the columns are sent as they are (exact for ASCII
// lines).
func (l *locator) serviceRange(path string, r service.Range) protocol.Range {
	if m := l.mapper(path); m != nil {
		return protocol.Range{Start: m.CharPosition(r.StartLine-1, r.StartColumn, false), End: m.CharPosition(r.EndLine-1, r.EndColumn, true)}
	}
	clamp := func(n int) uint32 { return uint32(max(n, 0)) }
	end := clamp(r.EndColumn - 1)
	if r.EndColumn == 0 {
		end = 1 << 30
	}
	return protocol.Range{
		Start: protocol.Position{Line: clamp(r.StartLine - 1), Character: clamp(r.StartColumn - 1)},
		End:   protocol.Position{Line: clamp(r.EndLine - 1), Character: end},
	}
}

// locate adds to every location of a service result (an object with a
// file uri and a startLine) its LSP form: "location": {uri, range}, the
// range in 0-based lines and UTF-16 units of the file's current text; and
// to a definition's nameRange its own, "nameLocation".
func (l *locator) locate(raw json.RawMessage) (json.RawMessage, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("reading a result: %w", err)
	}
	l.walk(v)
	return json.Marshal(v)
}

func (l *locator) walk(v any) {
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			l.walk(it)
		}
	case map[string]any:
		for _, it := range x {
			l.walk(it)
		}
		uri, _ := x["uri"].(string)
		if _, ok := x["startLine"]; !ok || uri == "" {
			return
		}
		x["location"] = l.location(uri, rangeOf(x))
		if name, ok := x["nameRange"].(map[string]any); ok {
			x["nameLocation"] = l.location(uri, rangeOf(name))
		}
	}
}

// rangeOf reads a service range from a decoded JSON object.
func rangeOf(x map[string]any) service.Range {
	num := func(k string) int {
		v, _ := x[k].(json.Number)
		n, _ := v.Int64()
		return int(n)
	}
	return service.Range{StartLine: num("startLine"), StartColumn: num("startColumn"), EndLine: num("endLine"), EndColumn: num("endColumn")}
}

// rpcError maps a service error to the error the client sees: a bad or
// missing argument is InvalidParams, a cancelled request
// RequestCancelled; other errors pass (answered as RequestFailed).
func rpcError(err error) error {
	var se *service.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code {
	case service.CodeInvalid, service.CodeNotFound:
		return jsonrpc.InvalidParams("%s", se.Error())
	case service.CodeCancelled:
		return context.Canceled
	}
	return err
}

// symbolKinds maps kind names to LSP symbol kinds.
var symbolKinds = map[string]protocol.SymbolKind{
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
	"test":        protocol.SymbolKindFunction,
}

// protocolSymbolKind maps a kind name; unknown names become Object.
func protocolSymbolKind(k string) protocol.SymbolKind {
	if pk, ok := symbolKinds[k]; ok {
		return pk
	}
	return protocol.SymbolKindObject
}
