// Package symbols detects a file's language and parses source code with
// tree-sitter into definitions (functions, methods, types, constants …) with
// their names, containers, signatures, doc comments and exact ranges.
//
// It is the lowest layer of the engine: it knows nothing of storage, search or
// LSP. Positions are byte based, as tree-sitter reports them; converting to
// UTF-16 columns is the job of the protocol edge.
//
// Use ForPath or ForContent to pick a Language, then one Parser per
// goroutine: Parser.Parse returns a File with the syntax tree (for further
// queries by other packages) and its Symbols. Close every File and Parser;
// tree-sitter memory is C memory that finalizers free too late.
// Parser.Reparse parses a new version of a File incrementally; when the
// edit is confined to self-contained top-level declarations (Go functions
// and methods) it extracts only theirs and says where in File.Splice, which
// the graph and chunking packages use to redo only that part too.
//
// What is extracted: functions, methods (with their receiver, class or impl
// type as Container), constructors, classes, structs, interfaces, traits,
// enums, type aliases, modules and namespaces, macros, and file-level
// constants and variables (class-level constants where the language has
// them). Definitions local to a function body (nested functions, local
// types and variables) are not listed, and fields are not listed. Files with
// syntax errors yield what tree-sitter recovers. Every Span, DocSpan and
// NameSpan lies within the source with Start ≤ End; Name, Signature, Doc and
// Container are valid UTF-8 (invalid bytes become U+FFFD).
//
// The languages are listed in registry.go with their rules in lang_*.go; a
// language kept in a package of its own (lang/bash, lang/lua) adds itself
// with Register through the extension point in langapi.go, and is known
// once that package is imported (lang/all imports every one).
package symbols

// Kind classifies a definition. The values are stable: they are stored in the
// index and appear in CLI and LSP output.
type Kind string

const (
	KindFunction    Kind = "function"
	KindMethod      Kind = "method"
	KindConstructor Kind = "constructor"
	KindClass       Kind = "class"
	KindStruct      Kind = "struct"
	KindInterface   Kind = "interface"
	KindTrait       Kind = "trait"
	KindEnum        Kind = "enum"
	KindType        Kind = "type" // type alias or other named type
	KindModule      Kind = "module"
	KindConst       Kind = "const"
	KindVar         Kind = "var"
	KindField       Kind = "field"
	KindMacro       Kind = "macro"
)

// Point is a position in a file: a 0-based line and a 0-based byte column.
type Point struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Span is a half-open byte range [StartByte, EndByte) with the matching points.
type Span struct {
	StartByte int   `json:"startByte"`
	EndByte   int   `json:"endByte"`
	Start     Point `json:"start"`
	End       Point `json:"end"`
}

// Empty reports whether the span covers nothing.
func (s Span) Empty() bool { return s.EndByte <= s.StartByte }

// Contains reports whether byte offset off lies inside the span.
func (s Span) Contains(off int) bool { return off >= s.StartByte && off < s.EndByte }

// Lines returns the 1-based first and last lines the span covers; a span
// that ends at the start of a later line (column 0) ends on the line
// before.
func (s Span) Lines() (first, last int) {
	if s.End.Column == 0 && s.End.Line > s.Start.Line {
		return s.Start.Line + 1, s.End.Line
	}
	return s.Start.Line + 1, s.End.Line + 1
}

// Symbol is one definition found in a file.
type Symbol struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Container is the enclosing type, class, receiver or namespace, dotted
	// when nested ("Outer.Inner"); empty for top-level definitions.
	Container string `json:"container,omitempty"`
	// Signature is the declaration header without its body, whitespace
	// collapsed to single spaces.
	Signature string `json:"signature,omitempty"`
	// Doc is the doc comment with comment markers removed.
	Doc string `json:"doc,omitempty"`
	// Span covers the definition node (decorators and annotations included,
	// the doc comment not).
	Span Span `json:"span"`
	// DocSpan covers the doc comment; empty when there is none.
	DocSpan Span `json:"docSpan"`
	// NameSpan covers the defining identifier.
	NameSpan Span `json:"nameSpan"`
	// Exported reports whether the language considers the symbol public.
	Exported bool `json:"exported,omitempty"`
	// Parent is the index in File.Symbols of the enclosing symbol, or -1.
	Parent int `json:"parent"`
}

// SkipSpace returns span s of src with its start moved past white space,
// never past its end. Some grammars start a node with the white space
// before it (Lua's folds it into the first token of a statement).
func SkipSpace(src []byte, s Span) Span {
	for s.StartByte < s.EndByte && s.StartByte < len(src) {
		switch src[s.StartByte] {
		case '\n':
			s.Start = Point{Line: s.Start.Line + 1}
		case ' ', '\t', '\r', '\f', '\v':
			s.Start.Column++
		default:
			return s
		}
		s.StartByte++
	}
	return s
}

// QualifiedName is Container.Name, or Name for top-level symbols.
func (s Symbol) QualifiedName() string {
	if s.Container == "" {
		return s.Name
	}
	return s.Container + "." + s.Name
}

// FullSpan covers the doc comment (if any) and the definition.
func (s Symbol) FullSpan() Span {
	if s.DocSpan.Empty() || s.DocSpan.StartByte >= s.Span.StartByte {
		return s.Span
	}
	return Span{StartByte: s.DocSpan.StartByte, EndByte: s.Span.EndByte, Start: s.DocSpan.Start, End: s.Span.End}
}
