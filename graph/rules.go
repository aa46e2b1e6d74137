package graph

import (
	"path"
	"strings"
)

// A language's rules of resolution where they differ from the general
// ones. Each language sets them in its own file (lang_*.go), beside its
// extraction spec; the resolver reads them here and holds no case on a
// language's name.

// namespace says which definitions a bare name reaches without an import.
type namespace int

const (
	// nsModule: the file's own, and its module's (the general rule).
	nsModule namespace = iota
	// nsPackage: the declared package's (Java, Kotlin, C#, PHP).
	nsPackage
	// nsDirPackage: the package's, a package being one directory (Go).
	nsDirPackage
	// nsGlobal: every file's (C, Ruby, shell: one global namespace).
	nsGlobal
)

// langRules are a language's rules of resolution.
type langRules struct {
	// namespace: where bare names are visible without an import.
	namespace namespace
	// globalFunctions: a bare call may call a function declared in any
	// file (C, Ruby, shell, PHP): matchGlobal decides.
	globalFunctions bool
	// matchModule reports whether an import or module reference ref names
	// the definition file p, whose module identity is module and declared
	// package pkg; nil: ref is p's path, with or without its extension.
	matchModule func(r *Resolver, ref, p, module, pkg string) bool
	// match decides a call of d entirely (Lua, whose tables are modules
	// and classes); nil: the general rules.
	match func(r *Resolver, s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error)
	// private reports a name visible in its own package only (Go's
	// lower-case names).
	private func(name string) bool
	// matchTyped decides a call on a receiver of known type (Go's method
	// sets); nil: the general rules (the type's own, inherited and
	// interface members).
	matchTyped func(r *Resolver, s *Site, d Def, dg *FileGraph, t typeRef, conf Confidence) (Confidence, string, bool, error)
	// embedding: a type's embedded types' members are its own (Go):
	// reaching them is exact, not a likely inherited member.
	embedding bool
	// unqualified finds an import that brings d's name in unqualified (a
	// Go dot import, a Python or JS star import).
	unqualified func(r *Resolver, s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error)
	// outsideMethods: the workspace's code calls methods of types outside
	// it that share workspace method names (Go's standard library and
	// dependencies), so the only workspace method of a name justifies
	// nothing.
	outsideMethods bool
	// moduleFiles lists the files that may hold module mod, for modules
	// that re-export names (a Python package, a JS index); nil: none do.
	moduleFiles func(mod string) []string
	// sameSignature compares an interface method's signature with a
	// method's (Go); nil: equal.
	sameSignature func(a, b, name string) bool
	// structural: a type implements an interface by its method set alone,
	// without naming it (Go).
	structural bool
	// anonStructs: a type may be an anonymous struct, recorded under a
	// synthetic owner (Go's DB.mu).
	anonStructs bool
	// builtinTypes: builtins names the predeclared types (Go's error,
	// string, int …), which no workspace file declares.
	builtinTypes bool
	// stdTypes: the standard library's interfaces and commonly embedded
	// types are known (stdTypes, Go's).
	stdTypes bool
	// methodResult gives the type of result k of method m of t instead of
	// the declared signature's (Go's method sets).
	methodResult func(r *Resolver, t typeRef, m string, k int) (typeRef, Confidence, bool, error)
	// resultType reads the text of the k-th result type of function name
	// from its signature; nil: the type before the name (Java, C#, C).
	resultType func(sig, name string, k int) (string, bool)
	// defaultBinding is the name an import of module p binds without an
	// alias; nil: none.
	defaultBinding func(p string) string
	// moduleValues: a module is a value (JS: const Foo = require("./foo")
	// is the module's export, and calling it calls its default export).
	moduleValues bool
	// testFiles lists where the tests of file name (its extension ext) in
	// dir live by the language's naming convention; nil: nowhere.
	testFiles func(dir, name, ext string) []string
	// Callback parameters typed by their context (callbacks.go); nil: not
	// typed. paramList reads the parameter list of function name from its
	// signature; listParam the declared type of the parameter receiving
	// argument a from a list; fnParams the parameter types of a function
	// type's text (ok false when text is no function type); aliasOf the
	// text a type alias declaration's signature stands for.
	paramList func(sig, name string) (string, bool)
	listParam func(list string, a int) (string, bool)
	fnParams  func(text string) ([]string, bool)
	aliasOf   func(sig string) (string, bool)
}

// noRules are the general rules, for a language without a spec.
var noRules = &langRules{}

// rulesOf returns the rules of language lang.
func rulesOf(lang string) *langRules {
	if s := specs[lang]; s != nil {
		return &s.rules
	}
	return noRules
}

// matchPathModule is the general module rule: ref names p's path, with
// or without its extension (Ruby requires, shell sources).
func matchPathModule(ref, p string) bool {
	ref = strings.TrimPrefix(ref, "./")
	return strings.TrimSuffix(p, path.Ext(p)) == strings.TrimSuffix(ref, path.Ext(ref)) ||
		strings.HasSuffix(strings.TrimSuffix(p, path.Ext(p)), "/"+strings.TrimSuffix(ref, path.Ext(ref)))
}

// arrowResult reads a result type written after "->" (Python, Rust).
func arrowResult(sig, _ string, k int) (string, bool) {
	if k > 0 {
		return "", false
	}
	i := strings.LastIndex(sig, "->")
	if i < 0 {
		return "", false
	}
	return strings.Trim(strings.TrimSpace(sig[i+2:]), `"' :`), true
}

// colonResult reads a result type written after the parameters' "):"
// (TypeScript, Kotlin).
func colonResult(sig, _ string, k int) (string, bool) {
	if k > 0 {
		return "", false
	}
	i := strings.LastIndex(sig, "):")
	if i < 0 {
		return "", false
	}
	return strings.TrimSpace(sig[i+2:]), true
}

// leadingResult reads a result type written before the function's name
// (Java, C#, C, C++), the general rule.
func leadingResult(sig, name string, k int) (string, bool) {
	if k > 0 {
		return "", false
	}
	i := strings.Index(sig, name+"(")
	if i <= 0 {
		return "", false
	}
	f := strings.Fields(sig[:i])
	if len(f) == 0 {
		return "", false
	}
	return f[len(f)-1], true
}

// starImports finds a star import (from m import *, export * from) of
// d's module in the calling file: its names are used unqualified.
func starImports(r *Resolver, s *Site, d Def, dg *FileGraph) (Confidence, string, bool, error) {
	cg, err := r.graph(s.Path)
	if err != nil || cg == nil {
		return 0, "", false, err
	}
	for _, im := range cg.Imports {
		for _, n := range im.Names {
			if n.Name == "*" && r.ModuleMatch(im.Module, d, dg) {
				return Likely, "star import of " + im.Module, true, nil
			}
		}
	}
	return 0, "", false, nil
}
