package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/context-ls/context-ls/symbols"
)

// FormatVersion is the version of the binary encoding written by Encode and
// ReverseEntries. Decoders refuse other versions with ErrVersion; the store
// re-indexes when it changes (store.SchemaVersion).
const FormatVersion = 4

// ExtractVersion changes whenever Extract produces different data for the
// same input in the same encoding; the engine re-indexes files extracted
// by another version.
const ExtractVersion = 14

// Errors returned by the decoders; check them with errors.Is.
var (
	// ErrCorrupt is returned for bytes that are not a valid encoding.
	ErrCorrupt = errors.New("graph: corrupt encoding")
	// ErrVersion is returned for an encoding of another FormatVersion.
	ErrVersion = errors.New("graph: unsupported encoding version")
)

var fileMagic = [3]byte{'C', 'G', 'F'}

const siteMagic = 'S'

// maxCount bounds every decoded count so malformed input cannot make the
// decoder allocate more than the input could describe.
const maxCount = 1 << 24

// encoder writes varints and strings; with a string table, strings are
// written as indexes into it.
type encoder struct {
	buf   []byte
	table map[string]int
	list  []string
}

func (e *encoder) uvarint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) int(v int)        { e.buf = binary.AppendVarint(e.buf, int64(v)) }
func (e *encoder) uint(v int) {
	if v < 0 {
		v = 0
	}
	e.uvarint(uint64(v))
}

func (e *encoder) str(s string) {
	if e.table == nil {
		e.uvarint(uint64(len(s)))
		e.buf = append(e.buf, s...)
		return
	}
	i, ok := e.table[s]
	if !ok {
		i = len(e.list)
		e.table[s] = i
		e.list = append(e.list, s)
	}
	e.uvarint(uint64(i))
}

func (e *encoder) flags(bits ...bool) {
	var b byte
	for i, v := range bits {
		if v {
			b |= 1 << i
		}
	}
	e.buf = append(e.buf, b)
}

func (e *encoder) span(s symbols.Span) {
	e.uint(s.StartByte)
	e.uint(s.EndByte - s.StartByte)
	e.uint(s.Start.Line)
	e.uint(s.Start.Column)
	e.uint(s.End.Line - s.Start.Line)
	e.uint(s.End.Column)
}

func (e *encoder) typeExpr(t TypeExpr) {
	e.str(t.Name)
	e.str(t.Module)
	e.flags(t.Call, t.Elem)
	if t.Call {
		e.uint(t.Result)
	}
}

// call encodes a call; reverse entries leave out the qualifier text and
// put the name and receiver kind first (head false here).
func (e *encoder) call(c *Call, withText, head bool) {
	e.int(c.Caller)
	e.int(c.Test)
	if head {
		e.str(c.Name)
	}
	if withText {
		e.str(c.Text)
	}
	if head {
		e.buf = append(e.buf, byte(c.Recv.Kind))
	}
	e.str(c.Recv.Module)
	e.typeExpr(c.Recv.Type)
	e.str(c.Recv.Root)
	e.uint(len(c.Recv.Fields))
	for _, f := range c.Recv.Fields {
		e.str(f)
	}
	e.str(c.Self)
	e.flags(c.New, c.DefaultImport, c.Ref, c.Read, c.Write)
	e.span(c.Site)
}

// Encode serialises g. The encoding is compact (varints and string
// tables) and versioned with FormatVersion. It has two sections, each with
// its own string table: the header (identity, imports, types, fields,
// tests), which resolution reads for many files, and the calls and type
// references, which DecodeHeader skips.
func Encode(g *FileGraph) []byte {
	head := &encoder{table: map[string]int{}}
	head.str(g.Path)
	head.str(g.Lang)
	head.str(g.Package)
	head.str(g.Module)
	head.str(g.DefaultExport)
	head.uint(len(g.Imports))
	for _, im := range g.Imports {
		head.str(im.Path)
		head.str(im.Module)
		head.str(im.Alias)
		head.uint(im.Level)
		head.uint(im.Line)
		head.uint(len(im.Names))
		for _, n := range im.Names {
			head.str(n.Name)
			head.str(n.Alias)
		}
	}
	head.uint(len(g.Types))
	for _, t := range g.Types {
		head.str(t.Name)
		head.str(t.Container)
		head.flags(t.Interface, t.Alias)
		head.uint(len(t.Bases))
		for _, b := range t.Bases {
			head.typeExpr(b)
		}
		head.uint(len(t.Calls))
		for _, c := range t.Calls {
			head.str(c)
		}
	}
	head.uint(len(g.Fields))
	for _, f := range g.Fields {
		head.str(f.Owner)
		head.str(f.Name)
		head.typeExpr(f.Type)
		head.flags(f.Embedded)
	}
	head.uint(len(g.Tests))
	for _, t := range g.Tests {
		head.int(t.Ord)
		head.str(t.Name)
		head.str(string(t.Kind))
		head.span(t.Span)
	}
	head.uint(len(g.Accessors))
	for _, a := range g.Accessors {
		head.int(a.Ord)
		head.flags(a.Set)
	}
	body := &encoder{table: map[string]int{}}
	body.uint(len(g.Calls))
	for i := range g.Calls {
		body.call(&g.Calls[i], true, true)
	}
	body.uint(len(g.TypeRefs))
	for _, r := range g.TypeRefs {
		body.int(r.Caller)
		body.str(r.Name)
		body.str(r.Module)
		body.uint(r.Line)
	}
	headBytes := head.section()
	out := &encoder{buf: make([]byte, 0, len(headBytes)+len(body.buf)+16*len(body.list)+16)}
	out.buf = append(out.buf, fileMagic[:]...)
	out.uvarint(FormatVersion)
	out.uint(len(headBytes))
	out.buf = append(out.buf, headBytes...)
	out.buf = append(out.buf, body.section()...)
	return out.buf
}

// section returns the string table followed by the encoded values.
func (e *encoder) section() []byte {
	out := &encoder{buf: make([]byte, 0, len(e.buf)+16*len(e.list)+4)}
	out.uint(len(e.list))
	for _, s := range e.list {
		out.str(s)
	}
	return append(out.buf, e.buf...)
}

// decoder reads what encoder wrote; the first error sticks.
type decoder struct {
	b     []byte
	table []string
	err   error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorrupt, what)
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 || v < -1<<31 || v > 1<<31 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) uint() int {
	v := d.uvarint()
	if v > 1<<31 {
		d.fail("value out of range")
		return 0
	}
	return int(v)
}

// count reads a slice length, bounded by the bytes left.
func (d *decoder) count() int {
	n := d.uint()
	if n > len(d.b) || n > maxCount {
		d.fail("count exceeds input")
		return 0
	}
	return n
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) str() string {
	if d.table != nil {
		i := d.uint()
		if d.err != nil {
			return ""
		}
		if i >= len(d.table) {
			d.fail("string index out of range")
			return ""
		}
		return d.table[i]
	}
	n := d.uint()
	if d.err != nil {
		return ""
	}
	if n > len(d.b) {
		d.fail("string exceeds input")
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// raw reads an inline string without copying it.
func (d *decoder) raw() []byte {
	n := d.uint()
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail("string exceeds input")
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) span() symbols.Span {
	var s symbols.Span
	s.StartByte = d.uint()
	s.EndByte = s.StartByte + d.uint()
	s.Start.Line = d.uint()
	s.Start.Column = d.uint()
	s.End.Line = s.Start.Line + d.uint()
	s.End.Column = d.uint()
	return s
}

func (d *decoder) typeExpr() TypeExpr {
	t := TypeExpr{Name: d.str(), Module: d.str()}
	f := d.byte()
	t.Call, t.Elem = f&1 != 0, f&2 != 0
	if t.Call {
		t.Result = d.uint()
	}
	return t
}

func (d *decoder) call(c *Call, withText, head bool) {
	c.Caller = d.int()
	c.Test = d.int()
	if head {
		c.Name = d.str()
	}
	if withText {
		c.Text = d.str()
	}
	if head {
		c.Recv.Kind = RecvKind(d.byte())
	}
	if c.Recv.Kind > RecvExpr {
		d.fail("bad receiver kind")
	}
	c.Recv.Module = d.str()
	c.Recv.Type = d.typeExpr()
	c.Recv.Root = d.str()
	if n := d.count(); n > 0 {
		c.Recv.Fields = make([]string, n)
		for i := range c.Recv.Fields {
			c.Recv.Fields[i] = d.str()
		}
	}
	c.Self = d.str()
	f := d.byte()
	c.New, c.DefaultImport, c.Ref, c.Read, c.Write = f&1 != 0, f&2 != 0, f&4 != 0, f&8 != 0, f&16 != 0
	c.Site = d.span()
}

// Decode parses what Encode wrote. It fails with ErrVersion for another
// format version and ErrCorrupt for anything malformed; it never panics.
func Decode(b []byte) (*FileGraph, error) { return decode(b, true) }

// DecodeHeader is Decode without the calls and type references: what
// resolution needs to know about a file, at a fraction of the cost.
func DecodeHeader(b []byte) (*FileGraph, error) { return decode(b, false) }

func decode(b []byte, full bool) (*FileGraph, error) {
	if len(b) < len(fileMagic)+1 || string(b[:3]) != string(fileMagic[:]) {
		return nil, fmt.Errorf("%w: not a graph encoding", ErrCorrupt)
	}
	d := &decoder{b: b[3:]}
	if v := d.uvarint(); d.err == nil && v != FormatVersion {
		return nil, fmt.Errorf("version %d, want %d: %w", v, FormatVersion, ErrVersion)
	}
	n := d.uint()
	if d.err != nil || n > len(d.b) {
		return nil, fmt.Errorf("%w: header exceeds input", ErrCorrupt)
	}
	rest := d.b[n:]
	d.b = d.b[:n]
	d.readTable()
	g := &FileGraph{}
	g.Path = d.str()
	g.Lang = d.str()
	g.Package = d.str()
	g.Module = d.str()
	g.DefaultExport = d.str()
	if n := d.count(); n > 0 {
		g.Imports = make([]Import, n)
		for i := range g.Imports {
			im := &g.Imports[i]
			im.Path, im.Module, im.Alias = d.str(), d.str(), d.str()
			im.Level, im.Line = d.uint(), d.uint()
			if k := d.count(); k > 0 {
				im.Names = make([]ImportName, k)
				for j := range im.Names {
					im.Names[j] = ImportName{Name: d.str(), Alias: d.str()}
				}
			}
		}
	}
	if n := d.count(); n > 0 {
		g.Types = make([]TypeDecl, n)
		for i := range g.Types {
			t := &g.Types[i]
			t.Name, t.Container = d.str(), d.str()
			f := d.byte()
			t.Interface, t.Alias = f&1 != 0, f&2 != 0
			if k := d.count(); k > 0 {
				t.Bases = make([]TypeExpr, k)
				for j := range t.Bases {
					t.Bases[j] = d.typeExpr()
				}
			}
			if k := d.count(); k > 0 {
				t.Calls = make([]string, k)
				for j := range t.Calls {
					t.Calls[j] = d.str()
				}
			}
		}
	}
	if n := d.count(); n > 0 {
		g.Fields = make([]Field, n)
		for i := range g.Fields {
			f := &g.Fields[i]
			f.Owner, f.Name = d.str(), d.str()
			f.Type = d.typeExpr()
			f.Embedded = d.byte()&1 != 0
		}
	}
	if n := d.count(); n > 0 {
		g.Tests = make([]Test, n)
		for i := range g.Tests {
			t := &g.Tests[i]
			t.Ord = d.int()
			t.Name = d.str()
			t.Kind = TestKind(d.str())
			t.Span = d.span()
		}
	}
	if n := d.count(); n > 0 {
		g.Accessors = make([]Accessor, n)
		for i := range g.Accessors {
			a := &g.Accessors[i]
			a.Ord = d.int()
			a.Set = d.byte()&1 != 0
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes in header")
	}
	if d.err != nil {
		return nil, d.err
	}
	if !full {
		return g, nil
	}
	d.b = rest
	d.readTable()
	if n := d.count(); n > 0 {
		g.Calls = make([]Call, n)
		for i := range g.Calls {
			d.call(&g.Calls[i], true, true)
		}
	}
	if n := d.count(); n > 0 {
		g.TypeRefs = make([]TypeRef, n)
		for i := range g.TypeRefs {
			r := &g.TypeRefs[i]
			r.Caller = d.int()
			r.Name, r.Module = d.str(), d.str()
			r.Line = d.uint()
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	return g, nil
}

// readTable reads a section's string table.
func (d *decoder) readTable() {
	d.table = nil
	n := d.count()
	table := make([]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		table = append(table, d.str())
	}
	d.table = table
}

// Site is one decoded reverse entry: a call site with what resolution
// needs to know about the calling file, so callers are found without
// reading every calling file's graph. Reverse entries do not keep
// Call.Text (the qualifier as written), and Module is derived from the
// path, language and package.
type Site struct {
	// Path is the calling file (from the index key, not the value).
	Path    string
	Lang    string
	Package string
	Module  string
	Call    Call
	// CallerTest describes the test the call is made from, if any.
	CallerTest *Test
}

// Reverse is one reverse-index entry to store with the file.
type Reverse struct {
	// Key is the lower-cased lookup key: CalleeKey, TestCalleeKey,
	// AccessKey, TestAccessKey or DefaultExportKey.
	Key   string
	Value []byte
}

// DefaultExportKey is the reverse key of calls of JS/TS default imports,
// whose callee name is not known until the imported module is read.
const DefaultExportKey = "\x01default"

// CalleeKey is the reverse key of calls of name made outside tests.
func CalleeKey(name string) string { return strings.ToLower(name) }

// TestCalleeKey is the reverse key of calls of name made from tests; a
// separate key lets Tests look two hops up without scanning every caller.
func TestCalleeKey(name string) string { return "\x01t:" + strings.ToLower(name) }

// AccessKey is the reverse key of member reads and assignments of name
// made outside tests (Call.Access): kept apart, they are read only for the
// callers of an accessor.
func AccessKey(name string) string { return "\x01a:" + strings.ToLower(name) }

// TestAccessKey is AccessKey for reads and assignments made from tests.
func TestAccessKey(name string) string { return "\x01at:" + strings.ToLower(name) }

// EmbedKey is the reverse key of the Go interfaces that embed standard
// library interface std ("io.Closer"; ".error" for error), so resolution
// can tell which workspace interfaces carry its methods.
func EmbedKey(std string) string { return "\x01e:" + strings.ToLower(std) }

const embedMagic = 'E'

// embedEntries returns a reverse entry per standard library interface an
// interface of g embeds; the value is the embedding interface's name.
func embedEntries(g *FileGraph) []Reverse {
	var out []Reverse
	for _, t := range g.Types {
		if !t.Interface {
			continue
		}
		for _, b := range t.Bases {
			key := b.Module + "." + b.Name
			if b.Name == "error" && b.Module == "" {
				key = ".error"
			}
			if st, ok := stdTypes[key]; !ok || st.concrete || !rulesOf(g.Lang).stdTypes {
				continue
			}
			e := &encoder{buf: make([]byte, 0, 16)}
			e.buf = append(e.buf, embedMagic)
			e.uvarint(FormatVersion)
			e.str(t.Name)
			out = append(out, Reverse{Key: EmbedKey(key), Value: e.buf})
		}
	}
	return out
}

// DecodeEmbed parses a reverse entry stored under an EmbedKey: the name
// of the embedding interface.
func DecodeEmbed(b []byte) (string, error) {
	if len(b) < 2 || b[0] != embedMagic {
		return "", fmt.Errorf("%w: not an embedding", ErrCorrupt)
	}
	d := &decoder{b: b[1:]}
	if v := d.uvarint(); d.err == nil && v != FormatVersion {
		return "", fmt.Errorf("version %d, want %d: %w", v, FormatVersion, ErrVersion)
	}
	name := d.str()
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	return name, d.err
}

// ReverseEntries returns one reverse entry per call site of g, and one per
// standard library interface a Go interface of g embeds (EmbedKey).
func ReverseEntries(g *FileGraph) []Reverse {
	embeds := embedEntries(g)
	if len(g.Calls) == 0 {
		return embeds
	}
	tests := map[int]int{} // symbol ord → index in g.Tests
	for i, t := range g.Tests {
		if t.Ord >= 0 {
			tests[t.Ord] = i
		}
	}
	out := make([]Reverse, 0, len(g.Calls))
	for i := range g.Calls {
		c := &g.Calls[i]
		ti := c.Test
		if ti < 0 || ti >= len(g.Tests) {
			ti = -1
			if j, ok := tests[c.Caller]; ok {
				ti = j
			}
		}
		e := &encoder{buf: make([]byte, 0, 64)}
		e.buf = append(e.buf, siteMagic)
		e.uvarint(FormatVersion)
		e.str(c.Name)
		e.buf = append(e.buf, byte(c.Recv.Kind))
		e.str(g.Lang)
		e.str(g.Package)
		if ti >= 0 {
			t := g.Tests[ti]
			e.flags(true)
			e.int(t.Ord)
			e.str(t.Name)
			e.str(string(t.Kind))
			e.span(t.Span)
		} else {
			e.flags(false)
		}
		e.call(c, false, false)
		key := CalleeKey(c.Name)
		switch {
		case c.DefaultImport:
			key = DefaultExportKey
		case c.Access() && ti >= 0:
			key = TestAccessKey(c.Name)
		case c.Access():
			key = AccessKey(c.Name)
		case ti >= 0:
			key = TestCalleeKey(c.Name)
		}
		out = append(out, Reverse{Key: key, Value: e.buf})
	}
	return append(out, embeds...)
}

// PeekSite reads the callee name, receiver kind and language at the front
// of a reverse entry without decoding (or allocating) the rest, so callers
// can skip entries that cannot match. The slices alias b.
func PeekSite(b []byte) (name []byte, kind RecvKind, lang []byte, err error) {
	if len(b) < 2 || b[0] != siteMagic {
		return nil, 0, nil, fmt.Errorf("%w: not a call site", ErrCorrupt)
	}
	d := &decoder{b: b[1:]}
	if v := d.uvarint(); d.err == nil && v != FormatVersion {
		return nil, 0, nil, fmt.Errorf("version %d, want %d: %w", v, FormatVersion, ErrVersion)
	}
	name = d.raw()
	kind = RecvKind(d.byte())
	lang = d.raw()
	if d.err == nil && kind > RecvExpr {
		d.fail("bad receiver kind")
	}
	return name, kind, lang, d.err
}

// DecodeSite parses a reverse entry value written by ReverseEntries; path
// is the calling file from the entry's key.
func DecodeSite(path string, b []byte) (Site, error) {
	if len(b) < 2 || b[0] != siteMagic {
		return Site{}, fmt.Errorf("%w: not a call site", ErrCorrupt)
	}
	d := &decoder{b: b[1:]}
	if v := d.uvarint(); d.err == nil && v != FormatVersion {
		return Site{}, fmt.Errorf("version %d, want %d: %w", v, FormatVersion, ErrVersion)
	}
	s := Site{Path: path}
	s.Call.Name = d.str()
	s.Call.Recv.Kind = RecvKind(d.byte())
	s.Lang, s.Package = d.str(), d.str()
	s.Module = ModuleOf(s.Lang, path, s.Package)
	if d.byte()&1 != 0 {
		t := &Test{}
		t.Ord = d.int()
		t.Name = d.str()
		t.Kind = TestKind(d.str())
		t.Span = d.span()
		s.CallerTest = t
	}
	d.call(&s.Call, false, false)
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return Site{}, d.err
	}
	return s, nil
}
