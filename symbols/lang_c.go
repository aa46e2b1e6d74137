package symbols

import (
	"bytes"
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// cDeclLevel are the node types whose declarations are file-, namespace-
// or class-level (not locals in a function body).
var cDeclLevel = map[string]bool{
	"translation_unit": true, "declaration_list": true, "preproc_if": true, "preproc_ifdef": true,
	"preproc_else": true, "preproc_elif": true, "field_declaration_list": true, "template_declaration": true,
}

// cQuery builds the C-family query: definitions common to C and C++ plus
// the extra patterns.
func cQuery(extra string) string {
	var b strings.Builder
	b.WriteString(`
(function_definition declarator: (_) @name) @function
(struct_specifier name: (_) @name body: (_)) @struct
(union_specifier name: (_) @name body: (_)) @struct
(enum_specifier name: (_) @name body: (_)) @enum
(type_definition declarator: (_) @name) @type
(preproc_def name: (identifier) @name) @macro
(preproc_function_def name: (identifier) @name) @macro
`)
	b.WriteString("(declaration declarator: (_) @name) @var\n")
	b.WriteString(extra)
	return b.String()
}

var cSpec = &langSpec{
	scopes:  map[string]bool{"translation_unit": true, "preproc_if": true, "preproc_ifdef": true, "preproc_else": true, "preproc_elif": true, "linkage_specification": true, "declaration_list": true, "declaration": true},
	prune:   map[string]string{"function_definition": "", "init_declarator": "value"},
	query:   cQuery(""),
	names:   cNames,
	prepare: prepareC,
	post:    dropDefinedPrototypes,
	finish:  finishC,
	sigEnd:  cSigEnd,
	sigText: cTypedefSig,
	doc:     cDocRules,
}

var cppSpec = &langSpec{
	scopes: map[string]bool{"translation_unit": true, "preproc_if": true, "preproc_ifdef": true, "preproc_else": true, "preproc_elif": true, "linkage_specification": true, "declaration_list": true, "declaration": true, "namespace_definition": true, "template_declaration": true, "class_specifier": true, "struct_specifier": true, "union_specifier": true, "field_declaration_list": true},
	prune:  map[string]string{"function_definition": "", "init_declarator": "value"},
	query: cQuery(`
(class_specifier name: (_) @name body: (_)) @class
(namespace_definition name: (_) @name) @module
(alias_declaration name: (_) @name) @type
(field_declaration declarator: (_) @name) @method
`),
	names:   cNames,
	prepare: prepareC,
	post:    dropDefinedPrototypes,
	finish:  finishC,
	sigEnd:  cSigEnd,
	sigText: cTypedefSig,
	doc:     cDocRules,
}

var cDocRules = docRules{
	line:     []string{"//"},
	block:    []string{"/*"},
	comments: map[string]bool{"comment": true},
}

// cNames returns one name per declarator of a declaration or typedef
// ("int a, *b;").
func cNames(x *extractor, d *def) []*sitter.Node {
	switch d.node.Type() {
	case "declaration", "type_definition", "field_declaration":
		return FieldChildren(d.node, "declarator")
	}
	return nil
}

// cDeclaratorName follows a declarator chain (pointer, reference, array,
// init, function declarators) to the declared name. It reports whether a
// function declarator was on the way.
func cDeclaratorName(n *sitter.Node) (name *sitter.Node, isFunc bool) {
	for i := 0; n != nil && i < 32; i++ {
		switch n.Type() {
		case "function_declarator":
			isFunc = true
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier",
			"destructor_name", "operator_name", "template_function", "primitive_type":
			return n, isFunc
		case "parenthesized_declarator":
			n = firstNamedChild(n)
			continue
		}
		next := n.ChildByFieldName("declarator")
		if next == nil {
			return nil, isFunc
		}
		n = next
	}
	return nil, isFunc
}

func firstNamedChild(n *sitter.Node) *sitter.Node {
	if n.NamedChildCount() == 0 {
		return nil
	}
	return n.NamedChild(0)
}

func prepareC(x *extractor, d *def) bool {
	n := d.node
	switch n.Type() {
	case "function_definition", "declaration", "field_declaration", "type_definition":
		name, isFunc := cDeclaratorName(d.nameNode)
		if name == nil {
			return false
		}
		switch n.Type() {
		case "declaration":
			if !cDeclLevel[x.parentType(n)] {
				return false // locals
			}
			if isFunc {
				d.kind = KindFunction
			} else if cIsConst(x, n) {
				d.kind = KindConst
			}
		case "field_declaration":
			if !isFunc || x.parentType(n) != "field_declaration_list" {
				return false // data members are not listed
			}
		case "function_definition":
			if !isFunc {
				return false // K&R oddities or macros the grammar misread
			}
		}
		cSetQualifiedName(x, d, name)
	}
	if p := n.Parent(); p != nil && p.Type() == "template_declaration" {
		d.outer, d.sigNode = p, p
	}
	return true
}

// cSetQualifiedName names d after a (possibly qualified) identifier:
// "ns::Foo::bar" becomes name "bar" with container override "ns.Foo".
func cSetQualifiedName(x *extractor, d *def, name *sitter.Node) {
	var scopes []string
	for i := 0; name.Type() == "qualified_identifier" && i < 16; i++ {
		if s := name.ChildByFieldName("scope"); s != nil {
			scope := x.text(s)
			if t := s.ChildByFieldName("name"); s.Type() == "template_type" && t != nil {
				scope = x.text(t) // Foo<int>::bar → Foo
			}
			scopes = append(scopes, scope)
		}
		next := name.ChildByFieldName("name")
		if next == nil {
			break
		}
		name = next
	}
	if t := name.ChildByFieldName("name"); name.Type() == "template_function" && t != nil {
		name = t
	}
	d.nameNode = name
	d.name = x.text(name)
	if len(scopes) > 0 {
		d.hasOverride = true
		d.containerOverride = strings.Join(scopes, ".")
		if d.kind == KindFunction {
			d.kind = KindMethod
		}
	}
}

// cIsConst reports a const or constexpr qualified declaration.
func cIsConst(x *extractor, n *sitter.Node) bool {
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		c := n.Child(i)
		if t := c.Type(); t == "type_qualifier" || t == "constexpr" {
			if s := x.text(c); s == "const" || s == "constexpr" {
				return true
			}
		}
	}
	return false
}

// dropDefinedPrototypes removes function prototypes of functions the same
// file defines, and out-of-line definitions' qualified names that refer to
// namespaces rather than classes are turned back into functions.
func dropDefinedPrototypes(x *extractor) {
	defined := map[string]bool{}
	namespaces := map[string]bool{}
	for _, d := range x.defs {
		switch d.node.Type() {
		case "function_definition":
			defined[d.containerOverride+"."+d.name] = true
		case "namespace_definition":
			namespaces[d.name] = true
		}
	}
	out := x.defs[:0]
	for _, d := range x.defs {
		if d.node.Type() == "declaration" && d.kind == KindFunction && defined[d.containerOverride+"."+d.name] {
			continue
		}
		if d.hasOverride && d.kind == KindMethod {
			last := d.containerOverride[strings.LastIndexByte(d.containerOverride, '.')+1:]
			if namespaces[last] {
				d.kind = KindFunction
			}
		}
		out = append(out, d)
	}
	x.defs = out
}

func finishC(x *extractor, d *def) {
	p := x.parentDef(d)
	if d.kind == KindFunction && p != nil && (p.kind == KindClass || p.kind == KindStruct) {
		d.kind = KindMethod
	}
	if d.kind == KindMethod {
		owner := d.containerOverride
		if !d.hasOverride && p != nil {
			owner = p.name
		}
		owner = owner[strings.LastIndexByte(owner, '.')+1:]
		if d.name == owner {
			d.kind = KindConstructor
		}
	}
	switch {
	case d.kind == KindMacro:
		d.exported = true
	case p != nil && (p.kind == KindClass || p.kind == KindStruct):
		d.exported = p.exported && x.cppAccess(d, p) == "public"
	default:
		d.exported = !modifierSetTypes(x, d.node, "storage_class_specifier")["static"] &&
			(p == nil || p.exported || p.kind == KindModule)
	}
}

// cppAccess returns the access level of member d of class or struct p:
// the last access specifier before d in the body, else the default.
func (x *extractor) cppAccess(d, p *def) string {
	access := "public"
	if p.node.Type() == "class_specifier" {
		access = "private"
	}
	body := p.node.ChildByFieldName("body")
	if body == nil {
		return access
	}
	if x.access == nil {
		x.access = make(map[uint32][]accessMark)
	}
	key := body.StartByte()
	marks, ok := x.access[key]
	if !ok {
		// One pass with a cursor: indexing children is linear per call.
		c := sitter.NewTreeCursor(body)
		for more := c.GoToFirstChild(); more; more = c.GoToNextSibling() {
			if n := c.CurrentNode(); n.Type() == "access_specifier" {
				marks = append(marks, accessMark{at: n.StartByte(), level: strings.TrimSpace(strings.TrimSuffix(x.text(n), ":"))})
			}
		}
		c.Close()
		x.access[key] = marks
	}
	start := d.node.StartByte()
	for _, m := range marks {
		if m.at >= start {
			break
		}
		access = m.level
	}
	return access
}

// accessMark is a C++ access specifier in a class body.
type accessMark struct {
	at    uint32
	level string
}

// modifierSetTypes returns the texts of n's direct children of type t.
func modifierSetTypes(x *extractor, n *sitter.Node, t string) map[string]bool {
	set := map[string]bool{}
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		if c := n.Child(i); c.Type() == t {
			set[x.text(c)] = true
		}
	}
	return set
}

// cTypedefSig shortens a long typedef of a struct, union or enum with a
// body to "typedef struct s {…} name".
func cTypedefSig(x *extractor, d *def) (string, bool) {
	if d.node.Type() != "type_definition" || d.node.EndByte()-d.node.StartByte() <= 120 {
		return "", false
	}
	t := d.node.ChildByFieldName("type")
	if t == nil {
		return "", false
	}
	body := t.ChildByFieldName("body")
	if body == nil {
		return "", false
	}
	head := CollapseSpace(x.src[d.node.StartByte():body.StartByte()])
	tail := CollapseSpace(x.src[body.EndByte():d.node.EndByte()])
	return strings.TrimRight(head+" {…} "+strings.TrimLeft(tail, " "), " ;"), true
}

// cSigEnd keeps macro signatures to their first line of definition and
// typedef signatures to the declaration header.
func cSigEnd(x *extractor, d *def) int {
	switch d.node.Type() {
	case "preproc_function_def", "preproc_def":
		if v := d.node.ChildByFieldName("value"); v != nil {
			return int(v.EndByte())
		}
	case "namespace_definition":
		if b := d.node.ChildByFieldName("body"); b != nil {
			return int(b.StartByte())
		}
	}
	return -1
}

// cppHeader names C++ for a ".h" header that uses C++ constructs (class,
// namespace, template, access specifiers), which the C grammar would
// misread.
func cppHeader(p string, head []byte) *Language {
	if strings.EqualFold(path.Ext(p), ".h") && looksLikeCpp(head) {
		return byName["cpp"]
	}
	return nil
}

// cppMarkers are byte strings that, at the start of a line of a ".h" file,
// show it is C++ rather than C.
var cppMarkers = [][]byte{
	[]byte("class "), []byte("namespace "), []byte("template<"), []byte("template <"),
	[]byte("public:"), []byte("private:"), []byte("protected:"), []byte("using namespace"),
	[]byte("#include <iostream>"), []byte("#include <string>"), []byte("#include <vector>"), []byte("#include <memory>"),
}

func looksLikeCpp(head []byte) bool {
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimLeft(line, " \t")
		for _, m := range cppMarkers {
			if bytes.HasPrefix(line, m) {
				return true
			}
		}
	}
	return false
}
