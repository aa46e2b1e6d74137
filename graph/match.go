package graph

import (
	"strconv"
	"strings"

	"github.com/context-ls/context-ls/symbols"
)

// isMember reports definitions reached through a receiver: methods,
// constructors and fields.
func isMember(d Def) bool {
	switch d.Kind {
	case symbols.KindMethod, symbols.KindConstructor, symbols.KindField:
		return d.Container != ""
	}
	return false
}

// isNested reports functions defined inside another function (not in a
// namespace or module).
func (r *Resolver) isNested(d Def) bool {
	if d.Container == "" || isMember(d) || isTypeKind(d.Kind) || d.Parent < 0 {
		return false
	}
	p, err := r.symbol(d.Path, d.Parent)
	return err == nil && symbols.IsFunctionKind(p.Kind)
}

// match decides whether call site s refers to definition d and how sure
// that is. reason says what decided it.
func (r *Resolver) match(s *Site, d Def) (Confidence, string, bool, error) {
	c := &s.Call
	if family(s.Lang) != family(d.Lang) {
		return 0, "", false, nil
	}
	if c.Name != d.Name && !c.DefaultImport {
		return 0, "", false, nil
	}
	dg, err := r.graph(d.Path)
	if err != nil || dg == nil {
		return 0, "", false, err
	}
	if c.Access() || c.Ref && isAccessor(dg, d) {
		return r.matchAccess(s, d, dg)
	}
	rules := rulesOf(d.Lang)
	if rules.match != nil {
		return rules.match(r, s, d, dg)
	}
	if rules.private != nil && rules.private(d.Name) && !sameModule(s, d, dg) {
		return 0, "", false, nil // visible in its package only
	}
	switch c.Recv.Kind {
	case RecvLocal:
		return 0, "", false, nil
	case RecvNone:
		return r.matchBare(s, d, dg)
	case RecvImport:
		if isMember(d) {
			if r.memberOfModule(c.Recv.Module, d, dg) {
				return Exact, "qualified by imported " + c.Recv.Module, true, nil
			}
			return 0, "", false, nil
		}
		if r.isNested(d) {
			return 0, "", false, nil
		}
		if r.ModuleMatch(c.Recv.Module, d, dg) {
			return Exact, "qualified by import " + c.Recv.Module, true, nil
		}
		return 0, "", false, nil
	case RecvSuper:
		return r.matchSuper(s, d, dg)
	case RecvExpr:
		return r.matchUnknown(s, d)
	}
	// RecvSelf, RecvVar, RecvFree
	t, conf, ok, err := r.recvType(s)
	if err == nil && ok && isMember(d) {
		res, err := r.matchTypedOnce(s, d, dg, t)
		if err != nil || !res.ok {
			return 0, "", false, err
		}
		return min(res.conf, conf), res.reason, true, nil
	}
	if err != nil {
		return 0, "", false, err
	}
	if !ok {
		if !isMember(d) && c.Recv.Kind == RecvVar && c.Recv.Type.Module != "" && len(c.Recv.Fields) == 0 && !c.Recv.Type.Call {
			// from pkg import mod; mod.func(): the "type" is a submodule.
			if r.ModuleMatch(c.Recv.Type.Module+"."+c.Recv.Type.Name, d, dg) {
				return Exact, "qualified by module " + c.Recv.Type.Module + "." + c.Recv.Type.Name, true, nil
			}
			return 0, "", false, nil
		}
		if c.Recv.Kind == RecvSelf && len(c.Recv.Fields) == 0 && isMember(d) && typeName(d) == c.Self && sameModule(s, d, dg) {
			return Exact, "self call in " + c.Self, true, nil
		}
		if c.Recv.Kind == RecvFree && !isMember(d) && len(c.Recv.Fields) == 0 && d.Container != "" && LastComponent(d.Container) == c.Recv.Root {
			return Likely, "qualified by namespace " + c.Recv.Root, true, nil
		}
		mod := c.Recv.Module
		if c.Recv.Kind == RecvVar {
			mod = c.Recv.Type.Module
		}
		if out, err := r.outside(mod, s.Lang); err != nil || out {
			return 0, "", false, err // a value of a module outside the workspace
		}
		return r.matchUnknown(s, d)
	}
	if !isMember(d) {
		if isTypeKind(d.Kind) || d.Kind == symbols.KindFunction {
			// A static nested type, or a module used like a type.
			if c.Recv.Kind != RecvSelf && t.module != "" && r.ModuleMatch(t.module+"."+t.name, d, dg) {
				return Exact, "qualified by module " + t.module + "." + t.name, true, nil
			}
		}
		return 0, "", false, nil
	}
	return r.matchTyped(s, d, dg, t, conf)
}

// matchAccess decides a member read or assignment (Call.Access), or a
// reference to an accessor (f(x.p) reads x.p): it calls d when d is that
// member's getter or setter and the receiver's type reaches d as it would
// for a call; a receiver of unknown type calls nothing, not even as a
// guess (a member's name alone is far too common).
func (r *Resolver) matchAccess(s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	c := &s.Call
	read := c.Read || c.Ref
	if a, ok := accessorOf(dg, d); !ok || !isMember(d) || !(a.Set && c.Write || !a.Set && read) {
		return 0, "", false, nil
	}
	if c.Recv.Kind == RecvSuper {
		return r.matchSuper(s, d, dg)
	}
	t, conf, ok, err := r.recvType(s)
	if err != nil || !ok {
		return 0, "", false, err
	}
	res, err := r.matchTypedOnce(s, d, dg, t)
	if err != nil || !res.ok {
		return 0, "", false, err
	}
	return min(res.conf, conf), res.reason, true, nil
}

// matchSuper decides a call through super() to member d: a member of a
// base of the enclosing type that no type between them overrides.
func (r *Resolver) matchSuper(s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	if !isMember(d) {
		return 0, "", false, nil
	}
	self := typeRef{name: s.Call.Self, module: s.Module, lang: s.Lang, from: s.Path}
	ok, err := r.inherits(self, d, dg, 0)
	if err != nil || !ok {
		return 0, "", false, err
	}
	if over, err := r.superOverridden(self, d); err != nil || over {
		return 0, "", false, err
	}
	return Likely, "super call from " + s.Call.Self, true, nil
}

// typedMatch is matchTyped's answer.
type typedMatch struct {
	conf   Confidence
	reason string
	ok     bool
}

// matchTypedOnce is matchTyped at exact confidence, decided once per
// receiver type and member: many sites share a receiver type.
func (r *Resolver) matchTypedOnce(s *Site, d Def, dg *FileGraph, t typeRef) (typedMatch, error) {
	// The answer depends on the site only through these two facts.
	self, local := "", ""
	if s.Call.Recv.Kind == RecvSelf {
		self = "self"
	}
	if sameModule(s, d, dg) {
		local = "local"
	}
	key := memoKey("typed", t.key(), d.Path, strconv.Itoa(d.Ord), self, local)
	return memoized(r, key, func() (typedMatch, error) {
		conf, reason, ok, err := r.matchTyped(s, d, dg, t, Exact)
		return typedMatch{conf, reason, ok}, err
	})
}

// matchTyped decides a call on a receiver of known type t to member d.
func (r *Resolver) matchTyped(s *Site, d Def, dg *FileGraph, t typeRef, conf Confidence) (Confidence, string, bool, error) {
	if mt := rulesOf(d.Lang).matchTyped; mt != nil {
		return mt(r, s, d, dg, t, conf)
	}
	c := &s.Call
	what := "receiver type " + t.name
	if c.Recv.Kind == RecvSelf {
		what = "self call in " + t.name
	}
	if r.typeMatches(t, d, dg) {
		return conf, what, true, nil
	}
	decls, err := r.findTypes(t)
	if err != nil {
		return 0, "", false, err
	}
	if len(decls) == 0 {
		return 0, "", false, nil // a type outside the workspace, not d's
	}
	for _, td := range decls {
		if td.def.Name == typeName(d) && td.g.Module == dg.Module {
			return conf, what + " (an alias of " + td.def.Name + ")", true, nil
		}
	}
	if ok, err := r.inherits(t, d, dg, 0); err != nil || ok {
		if over, err := r.overridden(t, d); err != nil || over {
			return 0, "", false, err // the call reaches an override
		}
		if rulesOf(d.Lang).embedding {
			return conf, what + " embeds " + typeName(d), ok, err
		}
		return Likely, what + " inherits from " + typeName(d), ok, err
	}
	for _, td := range decls {
		if !r.isInterface(td) {
			continue
		}
		ok, err := r.implements(td, d, dg)
		if err != nil {
			return 0, "", false, err
		}
		if ok {
			return Likely, "through interface " + t.name, true, nil
		}
	}
	return 0, "", false, nil
}

// matchBare decides a bare call foo().
func (r *Resolver) matchBare(s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	c := &s.Call
	switch {
	case c.DefaultImport:
		if dg.DefaultExport == d.Name && r.ModuleMatch(c.Recv.Module, d, dg) {
			return Exact, "default import of " + c.Recv.Module, true, nil
		}
		return 0, "", false, nil
	case c.Recv.Module != "":
		if isMember(d) {
			// Java static import, C# using static: the module is a class.
			if r.memberOfModule(c.Recv.Module, d, dg) {
				return Exact, "statically imported from " + c.Recv.Module, true, nil
			}
			return 0, "", false, nil
		}
		if r.isNested(d) {
			return 0, "", false, nil
		}
		if r.ModuleMatch(c.Recv.Module, d, dg) {
			return Exact, "imported from " + c.Recv.Module, true, nil
		}
		return 0, "", false, nil
	}
	if isMember(d) {
		spec := specs[s.Lang]
		if spec == nil || !spec.implicitThis || c.Self == "" {
			return 0, "", false, nil
		}
		if typeName(d) == c.Self && sameModule(s, d, dg) {
			return Exact, "method of enclosing " + c.Self, true, nil
		}
		self := typeRef{name: c.Self, module: s.Module, lang: s.Lang, from: s.Path}
		ok, err := r.inherits(self, d, dg, 0)
		if err != nil || !ok {
			return 0, "", false, err
		}
		if over, err := r.overridden(self, d); err != nil || over {
			return 0, "", false, err
		}
		return Likely, "inherited by " + c.Self, true, nil
	}
	if r.isNested(d) {
		if d.Path != s.Path {
			return 0, "", false, nil
		}
		if d.Parent < 0 {
			return 0, "", false, nil
		}
		parent, err := r.symbol(d.Path, d.Parent)
		if err != nil {
			return 0, "", false, err
		}
		if parent.Span.Contains(c.Site.StartByte) {
			return Exact, "nested in " + parent.Name, true, nil
		}
		return 0, "", false, nil
	}
	if d.Path == s.Path {
		return Exact, "same file", true, nil
	}
	// A definition of the name in the calling file itself wins.
	if own, err := r.DefinesTopLevel(s.Path, c.Name); err != nil || own {
		return 0, "", false, err
	}
	rules := rulesOf(d.Lang)
	if sameModule(s, d, dg) {
		if rules.globalFunctions {
			return r.matchGlobal(s, d, dg)
		}
		return Exact, "same package", true, nil
	}
	if rules.unqualified != nil {
		return rules.unqualified(r, s, d, dg)
	}
	if rules.globalFunctions {
		return r.matchGlobal(s, d, dg)
	}
	return 0, "", false, nil
}

// memberOfModule reports whether module reference mod names the type that
// declares member d (a class imported as a module: Java static imports, C#
// using aliases, PHP use of a class).
func (r *Resolver) memberOfModule(mod string, d Def, dg *FileGraph) bool {
	i := strings.LastIndexAny(mod, ".:\\")
	if i <= 0 || mod[i+1:] != typeName(d) {
		return false
	}
	pkg := strings.TrimRight(mod[:i], ".:\\")
	return pkg == dg.Package || pkg == dg.Module || r.ModuleMatch(pkg, d, dg)
}

// DefinesTopLevel reports whether file p defines a top-level (not member,
// not nested) function or type called name.
func (r *Resolver) DefinesTopLevel(p, name string) (bool, error) {
	return r.definesAtFileLevel(p, name, func(d Def) bool { return symbols.IsFunctionKind(d.Kind) || isTypeKind(d.Kind) })
}

// DefinesTopLevelName reports whether file p has a file-level definition
// (of any kind) called name.
func (r *Resolver) DefinesTopLevelName(p, name string) (bool, error) {
	return r.definesAtFileLevel(p, name, func(Def) bool { return true })
}

// definesAtFileLevel reports whether file p has a definition called name
// outside every container that keep accepts.
func (r *Resolver) definesAtFileLevel(p, name string, keep func(Def) bool) (bool, error) {
	defs, err := r.definitionsWhere(name, func(ref DefRef) bool { return ref.Path == p })
	if err != nil {
		return false, err
	}
	for _, d := range defs {
		if d.Container == "" && keep(d) {
			return true, nil
		}
	}
	return false, nil
}

// matchGlobal decides bare calls in languages with one global function
// namespace (C, Ruby, Bash, PHP functions).
func (r *Resolver) matchGlobal(s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	cg, err := r.graph(s.Path)
	if err != nil {
		return 0, "", false, err
	}
	if cg != nil {
		for _, im := range cg.Imports {
			if r.ModuleMatch(im.Module, d, dg) {
				return Likely, "declared in included " + im.Path, true, nil
			}
		}
	}
	n, err := r.CountDefs(d, func(o Def) bool { return !isMember(o) && !r.isNested(o) })
	if err != nil {
		return 0, "", false, err
	}
	if n == 1 {
		return Likely, "the only definition of " + d.Name, true, nil
	}
	return NameOnly, "name only", true, nil
}

// matchUnknown decides a call whose receiver type is unknown: only methods
// qualify; a method name with one definition in the workspace is likely
// (except in Go), others are name-only.
func (r *Resolver) matchUnknown(s *Site, d Def) (Confidence, string, bool, error) {
	if !isMember(d) {
		return 0, "", false, nil
	}
	n, err := r.CountDefs(d, isMember)
	if err != nil {
		return 0, "", false, err
	}
	if n == 1 && !rulesOf(d.Lang).outsideMethods {
		// Go code calls methods of standard library and dependency types
		// that share workspace method names (a Duration's Truncate): the
		// only workspace method of a name justifies nothing there.
		return Likely, "the only method named " + d.Name, true, nil
	}
	return NameOnly, "name only: receiver type unknown", true, nil
}

// CountDefs counts definitions in d's language family named like d that
// pass keep, stopping at 2 (callers only distinguish one from several).
func (r *Resolver) CountDefs(d Def, keep func(Def) bool) (int, error) {
	refs, err := r.defRefs(d.Name)
	if err != nil {
		return 0, err
	}
	n := 0
	fam := family(d.Lang)
	for _, ref := range refs {
		if family(ref.Lang) != fam {
			continue
		}
		sym, err := r.symbol(ref.Path, ref.Ord)
		if err != nil {
			return 0, err
		}
		if sym.Name == d.Name && keep(Def{Path: ref.Path, Ord: ref.Ord, Lang: ref.Lang, Symbol: sym}) {
			n++
			if n >= 2 {
				break
			}
		}
	}
	return n, nil
}

// inherits reports whether type t embeds or derives from the type that
// declares d (up to four levels).
func (r *Resolver) inherits(t typeRef, d Def, dg *FileGraph, depth int) (bool, error) {
	return r.reachesBase(t, func(b typeRef) bool { return r.typeMatches(b, d, dg) }, depth)
}

// reachesBase reports whether one of type t's bases (embedded types,
// superclasses, implemented interfaces), up to four levels down, is one.
func (r *Resolver) reachesBase(t typeRef, is func(typeRef) bool, depth int) (bool, error) {
	if depth > 3 {
		return false, nil
	}
	decls, err := r.findTypes(t)
	if err != nil {
		return false, err
	}
	for _, td := range decls {
		for _, b := range r.basesOf(td) {
			if is(b) {
				return true, nil
			}
			// class Hono extends HonoBase, which its module exports
			// renamed (export { Hono as HonoBase }).
			if orig, ok, err := r.renamedExport(b); err != nil || ok && is(orig) {
				return err == nil, err
			}
			if ok, err := r.reachesBase(b, is, depth+1); err != nil || ok {
				return ok, err
			}
		}
	}
	return false, nil
}

// overridden reports whether a call of d's name on type t, which inherits
// d, reaches another method: t's own or a nearer base's (bases searched in
// order, depth first: Python's method resolution order for single
// inheritance and the usual mixins).
func (r *Resolver) overridden(t typeRef, d Def) (bool, error) {
	m, ok, err := r.findMethod(t, d.Name, 0)
	if err != nil || !ok {
		return false, err
	}
	return !sameMember(m, d), nil
}

// sameMember reports methods a type declares under one name: one
// definition, or several (a property's getter and setter, overloads).
func sameMember(a, b Def) bool {
	return a.Path == b.Path && a.Container == b.Container && a.Parent == b.Parent
}

// superOverridden is overridden for super().m() in type self: the search
// starts at self's bases.
func (r *Resolver) superOverridden(self typeRef, d Def) (bool, error) {
	decls, err := r.findTypes(self)
	if err != nil {
		return false, err
	}
	for _, td := range decls {
		for _, b := range r.basesOf(td) {
			m, ok, err := r.findMethod(b, d.Name, 0)
			if err != nil || ok {
				return ok && !sameMember(m, d), err
			}
		}
	}
	return false, nil
}

func (r *Resolver) isInterface(td typeDecl) bool {
	if td.def.Kind == symbols.KindInterface || td.def.Kind == symbols.KindTrait {
		return true
	}
	for _, t := range td.g.Types {
		if t.Name == td.def.Name && t.Interface {
			return true
		}
	}
	return false
}

// implements reports whether the type declaring d has every method the
// interface td declares (by name, counting embedded interfaces and methods
// promoted from embedded fields), with compatible signatures where both
// are known.
func (r *Resolver) implements(td typeDecl, d Def, dg *FileGraph) (bool, error) {
	methods, err := r.interfaceMethods(td, 0)
	if err != nil || len(methods) == 0 {
		return false, err
	}
	sig, ok := methods[d.Name]
	if !ok {
		return false, nil
	}
	if !sameSignature(d.Lang, sig, d.Signature, d.Name) {
		return false, nil
	}
	owner := typeRef{name: typeName(d), module: dg.Module, lang: d.Lang, from: d.Path}
	for m, msig := range methods {
		if m == d.Name {
			continue
		}
		ok, err := r.hasMethod(owner, m, msig, 0)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// hasMethod reports whether type t declares (or promotes from an embedded
// field) a method named m with a signature compatible with sig.
func (r *Resolver) hasMethod(t typeRef, m, sig string, depth int) (bool, error) {
	return memoized(r, memoKey("has", t.key(), m, sig, strconv.Itoa(depth)), func() (bool, error) {
		return r.hasMethodUncached(t, m, sig, depth)
	})
}

func (r *Resolver) hasMethodUncached(t typeRef, m, sig string, depth int) (bool, error) {
	if depth > 3 {
		return false, nil
	}
	defs, err := r.definitionsWhere(m, r.inModule(t.module, family(t.lang)))
	if err != nil {
		return false, err
	}
	for _, o := range defs {
		if typeName(o) != t.name || !isMember(o) || family(o.Lang) != family(t.lang) {
			continue
		}
		og, err := r.graph(o.Path)
		if err != nil {
			return false, err
		}
		if og != nil && (t.module == "" || og.Module == t.module || r.ModuleMatch(t.module, o, og)) && sameSignature(o.Lang, sig, o.Signature, m) {
			return true, nil
		}
	}
	decls, err := r.findTypes(t)
	if err != nil {
		return false, err
	}
	for _, td := range decls {
		for _, b := range r.basesOf(td) {
			if ok, err := r.hasMethod(b, m, sig, depth+1); err != nil || ok {
				return ok, err
			}
		}
	}
	return false, nil
}

// interfaceMethods maps the method names of an interface declaration
// (with embedded interfaces) to their signatures.
func (r *Resolver) interfaceMethods(td typeDecl, depth int) (map[string]string, error) {
	syms, err := r.SymbolsOf(td.def.Path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, s := range syms {
		if s.Kind == symbols.KindMethod && LastComponent(s.Container) == td.def.Name && td.def.Span.Contains(s.Span.StartByte) {
			out[s.Name] = s.Signature
		}
	}
	if depth > 3 {
		return out, nil
	}
	for _, b := range r.basesOf(td) {
		key, isStd, err := r.stdOf(b)
		if err != nil {
			return nil, err
		}
		if isStd && !stdTypes[key].concrete {
			for k, v := range stdMethodSet(key) {
				if _, dup := out[k]; !dup {
					out[k] = v
				}
			}
			continue
		}
		decls, err := r.findTypes(b)
		if err != nil {
			return nil, err
		}
		for _, bd := range decls {
			more, err := r.interfaceMethods(bd, depth+1)
			if err != nil {
				return nil, err
			}
			for k, v := range more {
				if _, dup := out[k]; !dup {
					out[k] = v
				}
			}
		}
	}
	return out, nil
}

// sameSignature compares an interface method's signature with a
// method's by the language's rule (Go: parameter and result types with
// package qualifiers and names removed); equal for languages without one.
func sameSignature(lang, a, b, name string) bool {
	same := rulesOf(lang).sameSignature
	return same == nil || same(a, b, name)
}

// unqualify drops package qualifiers from a type: "*pkg.T" → "*T",
// "map[pkg.K]pkg.V" → "map[K]V".
func unqualify(t string) string {
	var b strings.Builder
	word := 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '.' && i > word && !strings.HasPrefix(t[i:], "...") {
			// drop the identifier before the dot
			s := b.String()
			b.Reset()
			b.WriteString(s[:len(s)-(i-word)])
			word = i + 1
			continue
		}
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80) {
			word = i + 1
		}
		b.WriteByte(c)
	}
	return b.String()
}
