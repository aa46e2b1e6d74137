package symbols

import (
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// The extension point of a language kept in its own package (lang/<name>):
// Register adds it to the registry from the package's init, and the hooks
// of its Spec see one extraction run through Extractor and Def. This is the
// whole surface a language package may use; the languages listed in
// registry.go use the same machinery through the unexported fields.

// Code is what a language package supplies for a code language besides
// the detection fields of Language: its grammar and its extraction rules.
type Code struct {
	// Grammar returns the tree-sitter language (go-tree-sitter's
	// GetLanguage).
	Grammar func() *sitter.Language
	// Spec is the definitions query and its hooks.
	Spec *Spec
	// Header, when set, tells whether a top-level node belongs to the
	// file's header, for a language whose imports are not told by their
	// node types (Lua's are calls). See Language.HeaderNode.
	Header func(n *sitter.Node, src []byte) bool
	// SerialParse serialises the language's parses across every Parser,
	// for a grammar whose external scanner keeps its state in C globals
	// instead of its per-parser payload.
	SerialParse bool
}

// Spec is a language's part of extraction: the definitions query and the
// hooks for what a query cannot express. The query captures each
// definition node as @<kind> ("function", "class", "var" … the Kind
// values) with its identifier as @name; other captures reach the hooks as
// aux nodes (Def.Aux, and Mark for matches without a definition).
type Spec struct {
	Query string
	// Scopes are the node types walked from the root (file-level
	// wrappers); Prune maps node types whose part named by the field (""
	// for the body) is left out of the query's range, so definitions
	// nested in function bodies are not listed. See Extractor.AtFileLevel.
	Scopes map[string]bool
	Prune  map[string]string
	// BodyTypes lists body node types for grammars without a "body"
	// field: the default signature ends where the first one starts.
	BodyTypes map[string]bool
	// Prepare adjusts a freshly captured definition (name, kind,
	// container); returning false drops it.
	Prepare func(x *Extractor, d *Def) bool
	// Names returns every name node a definition declares when there can
	// be several; nil means just the @name capture.
	Names func(x *Extractor, d *Def) []*sitter.Node
	// Mark receives the captures of a match without a definition and may
	// record names with Extractor.Mark.
	Mark func(x *Extractor, aux map[string]*sitter.Node)
	// Post may adjust the collected definitions before they are nested.
	Post func(x *Extractor)
	// Finish runs once parents are known and must set Def.SetExported.
	Finish func(x *Extractor, d *Def)
	// Signature, when set, may replace the whole signature (false keeps
	// the default).
	Signature func(x *Extractor, d *Def) (string, bool)
	// FoldsTrivia marks grammars whose nodes start with the trivia before
	// them (white space, and the doc comment above a definition as its
	// child): spans then start after them and names skip white space.
	FoldsTrivia bool
	// DocLine lists the line comment markers of doc comments, NotDocLine
	// the lines that start with one yet are no doc (--[[), and Comments
	// the grammar's comment node types.
	DocLine, NotDocLine []string
	Comments            map[string]bool
}

// Extractor is one extraction run, as a Spec's hooks see it.
type Extractor extractor

// Def is a definition under construction, as a Spec's hooks see it.
type Def def

// Register adds code language l, parsed and extracted by c, to the
// registry. A language package calls it from its init; it panics on a
// duplicate name, extension, file name or alias, a programming error every test
// run catches. c.Grammar and c.Spec are required; l must not be changed
// afterwards.
func Register(l *Language, c Code) {
	s := c.Spec
	l.grammar, l.header = c.Grammar, c.Header
	if c.SerialParse {
		l.parseMu = new(sync.Mutex)
	}
	l.spec = &langSpec{
		query: s.Query, scopes: s.Scopes, prune: s.Prune, bodyTypes: s.BodyTypes, foldsTrivia: s.FoldsTrivia,
		doc: docRules{line: s.DocLine, notLine: s.NotDocLine, comments: s.Comments},
	}
	if f := s.Prepare; f != nil {
		l.spec.prepare = func(x *extractor, d *def) bool { return f((*Extractor)(x), (*Def)(d)) }
	}
	if f := s.Names; f != nil {
		l.spec.names = func(x *extractor, d *def) []*sitter.Node { return f((*Extractor)(x), (*Def)(d)) }
	}
	if f := s.Mark; f != nil {
		l.spec.mark = func(x *extractor, aux map[string]*sitter.Node) { f((*Extractor)(x), aux) }
	}
	if f := s.Post; f != nil {
		l.spec.post = func(x *extractor) { f((*Extractor)(x)) }
	}
	if f := s.Finish; f != nil {
		l.spec.finish = func(x *extractor, d *def) { f((*Extractor)(x), (*Def)(d)) }
	}
	if f := s.Signature; f != nil {
		l.spec.sigText = func(x *extractor, d *def) (string, bool) { return f((*Extractor)(x), (*Def)(d)) }
	}
	register(l)
}

// Source returns the file's text.
func (x *Extractor) Source() []byte { return x.src }

// Text returns the source text of n.
func (x *Extractor) Text(n *sitter.Node) string { return (*extractor)(x).text(n) }

// Mark records name for later hooks (Marked); languages prefix the names
// they record by what they mean.
func (x *Extractor) Mark(name string) { (*extractor)(x).mark(name) }

// Marked reports whether name was recorded with Mark.
func (x *Extractor) Marked(name string) bool { return (*extractor)(x).marked(name) }

// AtFileLevel reports whether n is a direct child of the root, possibly
// through ERROR nodes and the given wrapper node types (Spec.Scopes must
// list them).
func (x *Extractor) AtFileLevel(n *sitter.Node, wrappers ...string) bool {
	return (*extractor)(x).atFileLevel(n, wrappers...)
}

// FirstNamed returns n's first named child that is not a comment, or nil.
func (x *Extractor) FirstNamed(n *sitter.Node) *sitter.Node { return (*extractor)(x).firstNamed(n) }

// FirstAtTop reports whether name is the first file-level definition of
// that (qualified) name, and records it: a rebinding yields one symbol.
func (x *Extractor) FirstAtTop(name string) bool {
	return (*extractor)(x).firstAtTop(&def{name: name})
}

// Defs returns the definitions collected so far (in Post: all of them).
func (x *Extractor) Defs() []*Def {
	out := make([]*Def, len(x.defs))
	for i, d := range x.defs {
		out[i] = (*Def)(d)
	}
	return out
}

// Parent returns the definition d is nested in (known in Finish), or nil.
func (x *Extractor) Parent(d *Def) *Def { return (*Def)((*extractor)(x).parentDef((*def)(d))) }

// Node is the captured definition node.
func (d *Def) Node() *sitter.Node { return d.node }

// NameNode is the node of the definition's name (@name).
func (d *Def) NameNode() *sitter.Node { return d.nameNode }

// Name is the definition's name.
func (d *Def) Name() string { return d.name }

// SetName sets the name and the node it is read from (nil keeps the node).
func (d *Def) SetName(name string, n *sitter.Node) {
	d.name = name
	if n != nil {
		d.nameNode = n
	}
}

// Kind is the definition's kind (its capture name until changed).
func (d *Def) Kind() Kind { return d.kind }

// SetKind changes the definition's kind.
func (d *Def) SetKind(k Kind) { d.kind = k }

// Container is the container set with SetContainer (a table path, a
// receiver type); ok is false when the syntactic nesting decides.
func (d *Def) Container() (container string, ok bool) { return d.containerOverride, d.hasOverride }

// SetContainer names the definition's container regardless of nesting.
func (d *Def) SetContainer(c string) { d.containerOverride, d.hasOverride = c, true }

// Aux returns the aux capture or node recorded under name, or nil.
func (d *Def) Aux(name string) *sitter.Node { return d.aux[name] }

// SetAux records node n under name for later hooks.
func (d *Def) SetAux(name string, n *sitter.Node) {
	if d.aux == nil {
		d.aux = map[string]*sitter.Node{}
	}
	d.aux[name] = n
}

// Exported reports what Finish decided for d.
func (d *Def) Exported() bool { return d.exported }

// SetExported says whether d is reachable from other files.
func (d *Def) SetExported(e bool) { d.exported = e }

// Span is the definition's range (known from Finish on; in Signature).
func (d *Def) Span() Span { return d.span }
