package graph

import (
	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// UseKind says what a name used in a range of a file refers to.
type UseKind uint8

const (
	// UseCall is a call or a function value (Use.Call is the call site as
	// the file's graph records it).
	UseCall UseKind = iota + 1
	// UseType is a type name in a type position (Use.Type).
	UseType
	// UseValue is a name bound outside the functions around it: a
	// package-level variable, constant, function or class used as a value,
	// bare or qualified by an import (Use.Call holds it as a reference).
	UseValue
)

// Use is one name a range of code uses that may refer to a definition.
type Use struct {
	Kind UseKind
	// Name is the name as used (a callee, type or value name).
	Name string
	// Call is the call site (UseCall) or the reference (UseValue).
	Call Call
	// Type is the type as the file's imports resolve it (UseType).
	Type TypeExpr
}

// maxUses bounds the uses one range yields.
const maxUses = 200

// Uses extracts the graph of a parsed file and lists, in source order and
// once each, the names used in bytes [start, end) that may refer to a
// definition: calls, type names and values bound outside the enclosing
// functions. Locals and parameters (of any function around or inside the
// range), names being declared, member names after a receiver that is not
// an import, keys of composite literals and keyword arguments, keywords and
// builtins are left out: they are definitions of nothing. Languages without graph
// support yield no uses.
func Uses(f *symbols.File, path string, start, end int) (*FileGraph, []Use) {
	x := newExtractor(f, path)
	if x == nil {
		return Extract(f, path), nil
	}
	x.run(MatchTree(f.Lang, f.Tree))
	calls := map[int]*Call{}
	for i := range x.g.Calls {
		if !x.g.Calls[i].Access() { // a member after a receiver, as any other
			calls[x.g.Calls[i].Site.StartByte] = &x.g.Calls[i]
		}
	}
	u := usesWalker{x: x, calls: calls, seen: map[string]bool{}, start: start, end: end}
	u.walk(x.tree.RootNode(), 0)
	return x.g, u.out
}

type usesWalker struct {
	x          *extractor
	calls      map[int]*Call
	seen       map[string]bool
	start, end int
	out        []Use
}

func (u *usesWalker) add(use Use) {
	key := string(rune('0'+use.Kind)) + use.Name + "\x00" + use.Type.Module + "\x00" + use.Call.Recv.Module + "\x00" + use.Call.Text
	if u.seen[key] || len(u.out) >= maxUses {
		return
	}
	u.seen[key] = true
	u.out = append(u.out, use)
}

func (u *usesWalker) walk(n *sitter.Node, depth int) {
	if n == nil || depth > 200 || int(n.EndByte()) <= u.start || int(n.StartByte()) >= u.end {
		return
	}
	if n.IsNamed() && int(n.StartByte()) >= u.start {
		if !u.visit(n) {
			return
		}
	}
	count := int(n.ChildCount())
	for i := 0; i < count; i++ {
		u.walk(n.Child(i), depth+1)
	}
}

// visit classifies node n; it returns false when n's children need no
// visit.
func (u *usesWalker) visit(n *sitter.Node) bool {
	x := u.x
	spec := x.spec
	t := n.Type()
	if c := u.calls[int(n.StartByte())]; c != nil && c.Site.EndByte == int(n.EndByte()) {
		if c.Recv.Kind != RecvLocal {
			u.add(Use{Kind: UseCall, Name: c.Name, Call: *c})
		}
		return false
	}
	// Type positions, where the grammar tells them from expressions.
	typeOnly := spec.types.names[t] && !spec.chain.ident[t]
	_, qualified := spec.types.qualified[t]
	if _, member := spec.chain.member[t]; member {
		qualified = false // Python's attribute is both: read it as an expression
	}
	if qualified || typeOnly {
		rt := x.rawTypeOf(n)
		if rt.known() && !(rt.qual == "" && spec.builtins[rt.name]) {
			u.add(Use{Kind: UseType, Name: rt.name, Type: x.resolveType(rt)})
		}
		return !qualified
	}
	if !spec.chain.ident[t] {
		return true
	}
	name := x.text(n)
	if spec.builtins[name] || spec.chain.self[name] || spec.chain.super[name] || !IsIdentifier(name) {
		return false
	}
	parent := n.Parent()
	if parent == nil {
		return false
	}
	pt := parent.Type()
	if f, ok := spec.chain.member[pt]; ok {
		if prop := parent.ChildByFieldName(f[1]); prop != nil && prop.StartByte() == n.StartByte() {
			return false // a member name: resolved with its receiver, if called
		}
		if b, ok := x.aliases[name]; ok && b.name == "" && !u.local(name, n) {
			// pkg.Name: a value of an imported package.
			if prop := parent.ChildByFieldName(f[1]); prop != nil && u.calls[int(prop.StartByte())] == nil && !u.isCallee(parent) {
				pc := pendingCall{name: x.text(prop), site: spanOf(prop), ch: chain{root: rootIdent, ident: name}, ref: true}
				u.value(pc)
			}
			return false
		}
	}
	if nm := parent.ChildByFieldName("name"); nm != nil && nm.StartByte() == n.StartByte() {
		return false // the name a declaration introduces
	}
	if u.isKey(n, parent) || u.local(name, n) {
		return false
	}
	u.value(pendingCall{name: name, site: spanOf(n), ref: true})
	return false
}

// value adds a reference to a name as a use, resolved as the extractor
// resolves calls.
func (u *usesWalker) value(pc pendingCall) {
	c := Call{Caller: u.x.enclosing(pc.site.StartByte, true), Test: -1, Name: clean(pc.name), Ref: true, Site: pc.site}
	if c.Caller >= 0 {
		c.Self = u.x.selfType(c.Caller)
	}
	u.x.resolveRecv(&c, pc)
	if c.Recv.Kind == RecvLocal || c.Recv.Kind == RecvExpr {
		return
	}
	u.add(Use{Kind: UseValue, Name: c.Name, Call: c})
}

// isCallee reports a member expression that is the function of a call
// (pkg.F(): recorded as a call site, or a builtin).
func (u *usesWalker) isCallee(member *sitter.Node) bool {
	p := member.Parent()
	if p == nil {
		return false
	}
	f, ok := u.x.spec.chain.call[p.Type()]
	if !ok {
		return false
	}
	fn := p.ChildByFieldName(f)
	return fn != nil && fn.StartByte() == member.StartByte() && fn.EndByte() == member.EndByte()
}

// local reports whether name is bound in a function scope containing n:
// a parameter or a local variable, wherever in the scope it is declared
// (so declarations themselves count).
func (u *usesWalker) local(name string, n *sitter.Node) bool {
	off := n.StartByte()
	for _, l := range u.x.locals[name] {
		if off >= l.scopeStart && off < l.scopeEnd {
			return true
		}
	}
	return false
}

// isKey reports the key of a composite literal element (Go T{Key: v}).
func (u *usesWalker) isKey(n, parent *sitter.Node) bool {
	switch parent.Type() {
	case "literal_element":
		kv := parent.Parent()
		return kv != nil && kv.Type() == "keyed_element" && kv.NamedChildCount() > 0 && kv.NamedChild(0).StartByte() == parent.StartByte()
	}
	return false
}

// ResolveUse returns the definitions a use in file g refers to that the
// graph can justify (exact or likely), best first: the callee of a call,
// the declaration of a type, the definition of a value. A use that only
// matches by name resolves to nothing.
func (r *Resolver) ResolveUse(g *FileGraph, u Use) ([]Match, error) {
	if u.Kind == UseType {
		decls, err := r.findDecls(qualify(u.Type, g))
		if err != nil {
			return nil, err
		}
		conf := Exact
		if len(decls) > 1 {
			conf = Likely
		}
		out := make([]Match, 0, len(decls))
		for _, td := range decls {
			out = append(out, Match{Def: td.def, Confidence: conf, Reason: "type " + u.Name})
		}
		return out, nil
	}
	s := Site{Path: g.Path, Lang: g.Lang, Package: g.Package, Module: g.Module, Call: u.Call}
	matches, err := r.resolveSite(&s)
	if err != nil {
		return nil, err
	}
	out := matches[:0]
	for _, m := range matches {
		if m.Confidence >= Likely {
			out = append(out, m)
		}
	}
	return out, nil
}
