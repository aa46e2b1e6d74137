// Package graph extracts and queries the code graph of a workspace: call
// sites, imports, struct and class member types, cheap type references and
// test definitions, for every language the symbols package parses.
//
// Extraction (Extract) works on one parsed file at a time with per-language
// tree-sitter queries. It resolves what the file alone can tell: the
// qualifier of each call (an import, self/this, a local variable or
// parameter with a declared type, a field chain, a free identifier), the
// enclosing definition (the caller) and aliased imported names. The result,
// a FileGraph, is stored with the file (Encode / Decode) together with one
// self-contained reverse entry per call site (ReverseEntries), keyed by the
// lower-cased callee name: the callers index.
//
// Resolution happens at query time against an Index (implemented by the
// engine over a store snapshot), so edges never point at stale definitions:
// a Resolver decides whether a call site refers to a definition and with
// which Confidence — exact, likely or name-only — using imports and
// package/module identity, receiver and variable types, field types, base
// types and same-package preference. Name-only matches of common names are
// ranked last and capped.
//
// Queries: Resolver.Callers, Resolver.Callees and Resolver.Tests (direct
// calls, two hops through non-test code, or the naming convention). All
// positions are 0-based lines with byte columns, as in package symbols.
package graph
