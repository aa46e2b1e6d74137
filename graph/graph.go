package graph

import (
	"strconv"
	"strings"

	"github.com/context-ls/context-ls/symbols"
)

// FileGraph is the graph data of one file version: what the file declares
// about its package, what it imports, the calls it makes, the member types
// of the types it declares and the tests it defines.
type FileGraph struct {
	// Path is the slash-separated path relative to the workspace root.
	Path string
	// Lang is the symbols language name ("go", "python", …).
	Lang string
	// Package is the file's own package or namespace as declared (Go package
	// name, Java/Kotlin package, C# namespace, PHP namespace); empty when the
	// language has none or the file declares none. See Module for the
	// path-derived identity.
	Package string
	// Module is the file's module identity for resolution: the directory for
	// Go, the dotted module for Python ("pkg.sub.mod"), the path without
	// extension for JS/TS ("src/util"), the Rust module path ("net::tcp"),
	// the package for Java/Kotlin/C#/PHP, the path for C/C++/Ruby/Bash,
	// the path without ".lua" and "/init" for Lua ("a/b" for a/b/init.lua).
	Module string
	// DefaultExport names the definition a JS/TS file exports as default,
	// or the table a Lua file returns (return M); "" when none or anonymous.
	DefaultExport string
	Imports       []Import
	Calls         []Call
	// Types lists declared types with their base types (Go embedded
	// fields, superclasses, implemented interfaces, mixins).
	Types []TypeDecl
	// Fields lists member and package-level variable types: struct fields,
	// class attributes assigned in methods, typed module variables.
	Fields []Field
	// TypeRefs are cheap type references: which definition mentions which
	// type name, deduplicated per definition.
	TypeRefs []TypeRef
	// Tests are the test definitions of the file.
	Tests []Test
	// Accessors are the methods called by reading or assigning a member
	// (Python properties' getters and setters).
	Accessors []Accessor

	// memberAt holds where each field and type declaration that fed Types
	// and Fields starts (they carry no position of their own): a spliced
	// extraction must not carry Types and Fields over a splice that held
	// one (ExtractSpliced).
	memberAt []int
}

// Import is one imported module, package or name.
type Import struct {
	// Path is the import as written ("fmt", "os.path", "./util", "a::b").
	Path string
	// Module is the resolved module identity in the form FileGraph.Module
	// uses (relative imports made absolute); equal to Path when nothing is
	// known to resolve.
	Module string
	// Alias is the local name the import binds ("f" in import f "fmt",
	// "np" in import numpy as np); empty when the default applies.
	Alias string
	// Names lists imported names (from m import a as b; import {a as b}
	// from "m"; use a::{b, c}). Name "default" is a JS default import, "*"
	// a wildcard.
	Names []ImportName
	// Level is the number of leading dots of a Python relative import.
	Level int
	// Line is the 0-based line of the import.
	Line int
}

// ImportName is one name imported from a module.
type ImportName struct {
	Name  string
	Alias string // local name when renamed, else ""
}

// Local returns the name the import binds in the file.
func (n ImportName) Local() string {
	if n.Alias != "" {
		return n.Alias
	}
	return n.Name
}

// RecvKind says what the qualifier of a call is.
type RecvKind uint8

const (
	// RecvNone: a bare call, foo().
	RecvNone RecvKind = iota
	// RecvLocal: a bare call of a name bound locally (a closure variable or
	// parameter), or a member of a literal value (", ".join(x)): it calls
	// no definition.
	RecvLocal
	// RecvImport: the qualifier is an imported package or module
	// (pkg.Func, module.func); Recv.Module holds its identity.
	RecvImport
	// RecvSelf: self/this/the Go receiver; Recv.Type is the enclosing type.
	RecvSelf
	// RecvSuper: super()/super; Recv.Type is the enclosing type.
	RecvSuper
	// RecvVar: a variable, parameter or expression with a known type, then
	// Recv.Fields.
	RecvVar
	// RecvFree: an identifier the file does not bind (a package-level
	// variable, a type name, an implicit field), then Recv.Fields.
	RecvFree
	// RecvExpr: an expression of unknown type.
	RecvExpr
)

var recvNames = [...]string{"none", "local", "import", "self", "super", "var", "free", "expr"}

// String returns a short name for the kind.
func (k RecvKind) String() string {
	if int(k) < len(recvNames) {
		return recvNames[k]
	}
	return "invalid"
}

// TypeExpr names a type as far as one file can tell.
type TypeExpr struct {
	// Name is the base type name without pointers, generics or package
	// qualifier; when Call is set it is the function whose result is the
	// type.
	Name string
	// Module is the identity of the package/module the name comes from
	// (an import resolved by the file); empty means the file's own
	// package/module or unknown.
	Module string
	// Call marks a type that is the result of calling Name (x := NewT()).
	Call bool
	// Result is which result of the call (a, b := f(): 1 for b).
	Result int
	// Elem marks a container ([]T, [n]T, map[K]T, chan T) whose element
	// type is Name: indexing or ranging over it yields a Name.
	Elem bool
}

// Known reports whether the expression names anything.
func (t TypeExpr) Known() bool { return t.Name != "" }

// Recv describes the qualifier of a call after file-local resolution.
type Recv struct {
	Kind RecvKind
	// Module identifies the imported module of RecvImport and of bare calls
	// of imported names.
	Module string
	// Type is the type of the root for RecvSelf, RecvSuper and RecvVar.
	Type TypeExpr
	// Root is the unbound identifier of RecvFree.
	Root string
	// Fields are the member names selected after the root (x.a.b.M():
	// [a b]); ElemStep ("[]") stands for indexing or ranging.
	Fields []string
}

// ElemStep is the Recv.Fields step for indexing a container (x[i]) or
// ranging over it.
const ElemStep = "[]"

// CallStep is the Recv.Fields step for calling method m and taking its
// k-th result: "m()" for the first, "m()1" for the second.
func CallStep(m string, k int) string {
	if k <= 0 {
		return m + "()"
	}
	return m + "()" + strconv.Itoa(k)
}

// ParseCallStep reverses CallStep; ok is false for other steps. An empty m
// is a call of the value itself (f() of a local f of a function type).
func ParseCallStep(step string) (m string, k int, ok bool) {
	i := strings.Index(step, "()")
	if i < 0 {
		return "", 0, false
	}
	m, rest := step[:i], step[i+2:]
	if rest == "" {
		return m, 0, true
	}
	k, err := strconv.Atoi(rest)
	if err != nil || k < 0 {
		return "", 0, false
	}
	return m, k, true
}

// ParamStep is the Recv.Fields step for the type of parameter k of a
// function passed where a function of the current type is expected (a
// callback of a declared type alias: const h: Handler = (c) => …).
// ArgStep(m, a, k) is the same for the function passed as argument a of
// method m of the current type (app.route("/", (c) => …)); an empty m is
// argument a of the current value, a function (define((c) => …)). Neither
// can be written as a member name.
func ParamStep(k int) string { return "(" + strconv.Itoa(k) + ")" }

// ArgStep: see ParamStep.
func ArgStep(m string, a, k int) string {
	return m + "(" + strconv.Itoa(a) + ")" + ParamStep(k)
}

// ParseParamStep reverses ParamStep (a < 0) and ArgStep; ok is false for
// other steps.
func ParseParamStep(step string) (m string, a, k int, ok bool) {
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0
	}
	if !strings.HasSuffix(step, ")") {
		return "", 0, 0, false
	}
	i := strings.LastIndexByte(step, '(')
	if i < 0 {
		return "", 0, 0, false
	}
	if k, ok = num(step[i+1 : len(step)-1]); !ok {
		return "", 0, 0, false
	}
	head := step[:i]
	if head == "" {
		return "", -1, k, true
	}
	j := strings.LastIndexByte(head, '(')
	if j < 0 || !strings.HasSuffix(head, ")") {
		return "", 0, 0, false
	}
	if a, ok = num(head[j+1 : len(head)-1]); !ok {
		return "", 0, 0, false
	}
	return head[:j], a, k, true
}

// Call is one call site (or a reference to a function or constructor).
type Call struct {
	// Caller is the index in the file's symbols of the innermost enclosing
	// function-like definition (else the innermost enclosing definition),
	// or -1 at file level.
	Caller int
	// Test is the index in FileGraph.Tests of an enclosing test block that
	// is not a symbol (Jest/Mocha it/test), or -1.
	Test int
	// Name is the callee name; for an aliased import it is the original
	// name (from m import a as b; b() → "a").
	Name string
	// Text is the qualifier as written ("f", "self.x", ""), cut to 80 bytes.
	Text string
	Recv Recv
	// Self is the type enclosing the caller (class, Go receiver type), used
	// for implicit-this calls and self calls.
	Self string
	// New marks a constructor call (new Foo(), Foo{} is not a call).
	New bool
	// DefaultImport marks a bare call of a JS/TS default import: Name is
	// the local binding and Recv.Module the module, the definition is
	// whatever that module exports as default.
	DefaultImport bool
	// Ref marks a reference to a function value rather than a call
	// (sort.Slice(x, less), d.onEvent passed as a callback).
	Ref bool
	// Read marks a member read that is not a call (x.p), Write an
	// assignment to a member (x.p = v; both for x.p += v): they call the
	// getter or setter of an accessor (FileGraph.Accessors) and nothing
	// else, and only through a receiver the graph resolves, never by name
	// alone. Their reverse entries are kept apart (AccessKey).
	Read, Write bool
	// Site is the range of the callee name at the call site.
	Site symbols.Span
}

// TypeDecl is a declared type with its base types.
type TypeDecl struct {
	Name string
	// Container is the dotted container of the declaration, like
	// symbols.Symbol.Container.
	Container string
	Bases     []TypeExpr
	// Interface marks interfaces, traits and protocols.
	Interface bool
	// Alias marks a type alias (Go type A = B): its only base is the
	// aliased type.
	Alias bool
	// Calls are the parameter lists of the type's call signatures, as
	// written without their parentheses (a TypeScript interface's
	// "(path: string, handler: H): App" gives "path: string, handler: H"):
	// a value of the type is a function.
	Calls []string
}

// Field is the declared type of a member or package-level variable.
type Field struct {
	// Owner is the type declaring the member; empty for a package- or
	// module-level variable.
	Owner string
	Name  string
	Type  TypeExpr
	// Embedded marks a Go embedded field (its methods are promoted).
	Embedded bool
}

// Access reports a member read or assignment (Read or Write).
func (c *Call) Access() bool { return c.Read || c.Write }

// Accessor is a method called by reading a member (a getter: Python's
// @property, @cached_property) or by assigning it (a setter:
// @p.setter).
type Accessor struct {
	// Ord is the index of the method's symbol.
	Ord int
	// Set marks a setter.
	Set bool
}

// TypeRef records that a definition mentions a type name.
type TypeRef struct {
	Caller int // symbol index, or -1 at file level
	Name   string
	Module string
	Line   int // first mention, 0-based
}

// TestKind says which convention recognised a test. A language kept in
// its own package declares its own (lang/lua's TestBusted).
type TestKind string

const (
	TestGo        TestKind = "go-test"      // func TestXxx(t *testing.T)
	TestGoBench   TestKind = "go-benchmark" // func BenchmarkXxx(b *testing.B)
	TestGoFuzz    TestKind = "go-fuzz"      // func FuzzXxx(f *testing.F)
	TestGoExample TestKind = "go-example"   // func ExampleXxx()
	TestPytest    TestKind = "pytest"       // test_* functions, Test* classes
	TestUnittest  TestKind = "unittest"     // test* methods of TestCase classes
	TestJS        TestKind = "js-test"      // describe/it/test blocks
	TestJUnit     TestKind = "junit"        // @Test methods (Java, Kotlin)
	TestRust      TestKind = "rust-test"    // #[test] functions
	TestCSharp    TestKind = "csharp-test"  // [Test]/[Fact]/[TestMethod] methods
	TestPHPUnit   TestKind = "phpunit"      // test* methods of *Test classes
	TestRuby      TestKind = "ruby-test"    // minitest test_* methods, RSpec it blocks
)

// Test is a test definition.
type Test struct {
	// Ord is the index of the test's symbol, or -1 for a test block that
	// is not a symbol (Jest it/test).
	Ord  int
	Name string
	Kind TestKind
	// Span covers the test (the whole call for a Jest block).
	Span symbols.Span
}

// Confidence grades a resolved edge.
type Confidence uint8

const (
	// NameOnly: only the name matches; the qualifier's type is unknown and
	// several definitions carry the name.
	NameOnly Confidence = iota + 1
	// Likely: the qualifier narrows it down but part of the chain is a
	// heuristic (a call result's type, a unique method name, a base type).
	Likely
	// Exact: imports, declared types or the enclosing scope determine the
	// target.
	Exact
)

// String returns "exact", "likely" or "name-only".
func (c Confidence) String() string {
	switch c {
	case Exact:
		return "exact"
	case Likely:
		return "likely"
	case NameOnly:
		return "name-only"
	}
	return "none"
}

// MarshalText renders the confidence as its String form in JSON.
func (c Confidence) MarshalText() ([]byte, error) { return []byte(c.String()), nil }
