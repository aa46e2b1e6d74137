package store

import (
	"encoding/binary"
	"fmt"

	"github.com/context-ls/context-ls/symbols"
)

// Symbols (s/), chunk metadata (c/) and chunk text (x/) are stored in the
// binary form below instead of JSON. JSON repeated every field name in every
// record — "startByte", "nameSpan", … made up most of the Linux kernel's
// 1.3 GB of symbol records — escaped every newline and tab of chunk text
// into two bytes, and decoding it was a fifth of a search's CPU (the symbol
// leg reads the metadata of every name hit). Integers are varints (zigzag:
// a malformed negative value still round-trips), strings a uvarint length
// and bytes, each record starts with its format byte.
//
//	s/<path>\x00<ord:4>
//	byte    format (codecFormat)
//	strings Name, Kind, Container, Signature, Doc
//	spans   Span, DocSpan, NameSpan: StartByte, EndByte−StartByte,
//	        Start.Line, Start.Column, End.Line−Start.Line, End.Column
//	byte    Exported (0 or 1)
//	varint  Parent
//
//	c/<id:8>  (the id is the key's; Text and Summary are under x/)
//	byte    format
//	strings Path, Language, Kind, Label, Parent, Context
//	varints Part, Parts, StartLine, EndLine−StartLine, StartByte,
//	        EndByte−StartByte, Tokens
//	list    Symbols: uvarint count, then strings
//	16      Recipe
//
//	x/<id:8>
//	byte    format
//	strings Text, Summary
const codecFormat = 1

// recordWriter appends the fields of a record in order.
type recordWriter []byte

func (w *recordWriter) str(s string) { *w = appendString(*w, s) }
func (w *recordWriter) int(v int)    { *w = binary.AppendVarint(*w, int64(v)) }

func (w *recordWriter) span(s symbols.Span) {
	w.int(s.StartByte)
	w.int(s.EndByte - s.StartByte)
	w.int(s.Start.Line)
	w.int(s.Start.Column)
	w.int(s.End.Line - s.Start.Line)
	w.int(s.End.Column)
}

func (r *recordReader) int() int { return int(r.varint()) }

func (r *recordReader) bool() bool {
	switch b := r.byte(); b {
	case 0, 1:
		return b == 1
	default:
		if r.err == nil {
			r.err = fmt.Errorf("boolean byte %d", b)
		}
		return false
	}
}

func (r *recordReader) span() symbols.Span {
	var s symbols.Span
	s.StartByte = r.int()
	s.EndByte = s.StartByte + r.int()
	s.Start.Line = r.int()
	s.Start.Column = r.int()
	s.End.Line = s.Start.Line + r.int()
	s.End.Column = r.int()
	return s
}

// begin checks a record's format byte and returns a reader of the rest.
func beginRecord(b []byte, what string) recordReader {
	if len(b) == 0 || b[0] != codecFormat {
		return recordReader{err: fmt.Errorf("%s format %v: not %d", what, firstByte(b), codecFormat)}
	}
	return recordReader{b: b[1:]}
}

// end reports an error of r or bytes left over after a record.
func (r *recordReader) end(what string) error {
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d bytes after the %s", len(r.b), what)
	}
	return r.err
}

func encodeSymbol(s *symbols.Symbol) []byte {
	w := recordWriter(make([]byte, 0, 40+len(s.Name)+len(s.Container)+len(s.Signature)+len(s.Doc)))
	w = append(w, codecFormat)
	for _, f := range []string{s.Name, string(s.Kind), s.Container, s.Signature, s.Doc} {
		w.str(f)
	}
	w.span(s.Span)
	w.span(s.DocSpan)
	w.span(s.NameSpan)
	w = append(w, boolByte(s.Exported))
	w.int(s.Parent)
	return w
}

func decodeSymbol(b []byte, s *symbols.Symbol) error {
	r := beginRecord(b, "symbol")
	s.Name = r.string()
	s.Kind = symbols.Kind(r.string())
	s.Container = r.string()
	s.Signature = r.string()
	s.Doc = r.string()
	s.Span = r.span()
	s.DocSpan = r.span()
	s.NameSpan = r.span()
	s.Exported = r.bool()
	s.Parent = r.int()
	return r.end("symbol")
}

// encodeChunkMeta encodes c without its ID (the key's), Text and Summary.
func encodeChunkMeta(c *ChunkRecord) []byte {
	n := 48 + len(c.Path) + len(c.Language) + len(c.Kind) + len(c.Label) + len(c.Parent) + len(c.Context) + len(c.Recipe)
	for _, s := range c.Symbols {
		n += len(s) + 1
	}
	w := recordWriter(make([]byte, 0, n))
	w = append(w, codecFormat)
	for _, f := range []string{c.Path, c.Language, c.Kind, c.Label, c.Parent, c.Context} {
		w.str(f)
	}
	for _, v := range []int{c.Part, c.Parts, c.StartLine, c.EndLine - c.StartLine, c.StartByte, c.EndByte - c.StartByte, c.Tokens} {
		w.int(v)
	}
	w = appendStrings(w, c.Symbols)
	return append(w, c.Recipe[:]...)
}

func decodeChunkMeta(b []byte, id ChunkID, c *ChunkRecord) error {
	r := beginRecord(b, "chunk")
	c.ID = id
	c.Path = r.string()
	c.Language = r.string()
	c.Kind = r.string()
	c.Label = r.string()
	c.Parent = r.string()
	c.Context = r.string()
	c.Part = r.int()
	c.Parts = r.int()
	c.StartLine = r.int()
	c.EndLine = c.StartLine + r.int()
	c.StartByte = r.int()
	c.EndByte = c.StartByte + r.int()
	c.Tokens = r.int()
	c.Symbols = r.strings()
	copy(c.Recipe[:], r.fixed(len(c.Recipe)))
	return r.end("chunk")
}

func encodeChunkText(text, summary string) []byte {
	w := recordWriter(make([]byte, 0, 12+len(text)+len(summary)))
	w = append(w, codecFormat)
	w.str(text)
	w.str(summary)
	return w
}

func decodeChunkText(b []byte) (text, summary string, err error) {
	r := beginRecord(b, "chunk text")
	text = r.string()
	summary = r.string()
	return text, summary, r.end("chunk text")
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}
