// Package graph extracts and queries the code graph of a workspace: call
// sites, imports, struct and class member types, cheap type references and
// test definitions, for every language the symbols package parses (Go,
// Python, JavaScript, TypeScript/TSX, Java, Kotlin, C#, Rust, C, C++, Ruby,
// PHP, and Bash and Lua from their packages lang/bash and lang/lua).
//
// # Extraction
//
// Extract works on one parsed file with one tree-sitter query per language
// (ExtractSpliced, on a re-parsed version whose definitions were spliced,
// only on the declarations that changed and the file's imports, the rest
// carried over from the previous version) and resolves what the file alone
// can tell: the enclosing definition of
// each call (the caller), aliased imported names, and the qualifier of the
// call — an import, self/this, a local variable or parameter with a
// declared or inferred type (x := T{}, x = new T(), x: T, a, b := f()), a
// field chain (x.a.b), an element of a container (xs[i], range), a method
// or function result (x.m().n()), or an identifier the file does not bind.
// The result, a FileGraph, is stored with the file (Encode; DecodeHeader
// reads only what resolution needs) together with one self-contained
// reverse entry per call site (ReverseEntries), keyed by the lower-cased
// callee name: the callers index. Calls made from tests are keyed apart
// (TestCalleeKey) so two-hop test lookups stay cheap. Member reads and
// assignments that are no call (x.p, x.p = v) are sites too where the
// language has accessors (Python's properties, FileGraph.Accessors), keyed
// apart again (AccessKey, TestAccessKey): they call an accessor's getter
// or setter through a resolved receiver, and nothing else.
//
// # Resolution
//
// Resolution happens at query time against an Index (the engine implements
// it over one store snapshot), so no edge outlives the definition it points
// at. A Resolver decides whether a call site refers to a definition and with
// which Confidence — exact, likely or name-only — from imports and
// package/module identity (through Python packages' and JS indexes'
// re-exports), receiver, variable, field and result types, embedded fields
// and base types (the nearest override wins), interface satisfaction
// (method names and, for Go, signatures), aliases and same-package
// visibility.
//
// Where languages differ — which import names which file, where bare
// names are visible, how a result type is written, where tests live, what
// a module-qualified call may reach — each language's file (lang_*.go)
// sets its rules (rules.go) beside its extraction spec; the resolver holds
// no case on a language's name. A language kept in a package of its own
// (lang/bash, lang/lua) registers through the extension point in langapi.go: Lang,
// Register, Extractor and Chain, and the Resolver queries its Match hook
// may ask.
//
// Go calls are resolved the way the compiler finds methods (lang_go_types.go):
// the receiver's static type (through aliases, fields of anonymous
// structs, results of fields of function type and of local closures,
// variadic and ranged elements) gives one method object — the type's own
// method, else the shallowest promoted one, or on an interface the
// interface that declares it, standard library interfaces such as
// io.Closer and fmt.Stringer included — and a definition is a target when
// it is that object or corresponds to it through interface satisfaction
// as gopls's call hierarchy decides. Unexported names are never reached
// from another package.
//
// Exact and likely edges are what the graph can justify; name-only edges
// (the name matches, the qualifier's type is unknown) are kept apart as
// guesses (Result.Guesses, TestResult.Guesses), capped at
// Options.MaxNameOnly, never mixed with the edges.
//
// # Queries
//
// Resolver.Callers, Resolver.Callees, Resolver.Tests (a direct call, two
// hops through non-test code, or the naming convention: each hit says
// which), Resolver.Implementations (what implements or overrides a
// definition), Resolver.Member (a method a type declares or inherits),
// Resolver.ResolveAt (go to definition from a call site), and Uses
// with Resolver.ResolveUse (the definitions a range of code uses: calls,
// type names and values bound outside its functions, never locals or
// parameters). All positions are 0-based lines with byte columns, as in
// package symbols.
//
// # Versions
//
// FormatVersion covers the encodings, ExtractVersion what extraction
// produces for the same input; the engine re-indexes files written under
// other versions.
package graph
