package graph_test

import (
	"context"
	"reflect"
	"sort"
	"testing"

	. "github.com/context-ls/context-ls/graph" // the tests of graph, outside it to share graphtest
	"github.com/context-ls/context-ls/graph/graphtest"
)

func TestCallersGo(t *testing.T) {
	ix := graphtest.Build(t, "testdata/go")
	graphtest.ExpectCallers(t, ix, []graphtest.Case{
		{"constructor result type", "shop/cart.go:Cart.Add", []string{
			"shop/cart.go:Cart.validate exact", "shop/cart_test.go:BenchmarkAdd exact", "shop/cart_test.go:TestAdd exact"}},
		{"promoted through embedded field", "shop/cart.go:Store.Open", []string{"shop/cart.go:NewCart exact"}},
		{"interface dispatch and method value", "shop/cart.go:Cart.Len", []string{"shop/cart.go:Cart.validate exact"}},
		{"shadowing by a local closure", "shop/cart.go:helper", []string{"shop/cart.go:Cart.validate exact", "shop/cart.go:Checkout exact"}},
		{"aliased import path", "shop/internal/money/money.go:Sum", []string{"shop/cart.go:Cart.Add exact"}},
		{"field chain, range element, index of a result; a method's result is unknown", "shop/internal/money/money.go:Amount.Zero", []string{
			"shop/cart.go:Cart.Add exact", "shop/cart.go:Cart.validate exact"}},
		{"field and package-level variable", "shop/cart.go:Logger.Printf", []string{
			"shop/cart.go:Cart.Add exact", "shop/cart.go:Cart.validate exact"}},
		{"same package bare call, dot import", "shop/cart.go:Checkout", []string{"shop/cart_test.go:TestCheckout exact", "shop/dot/dot_test.go:TestDot exact"}},
		{"through an aliased interface, Close promoted; second result of a method", "shop/iter.go:listIter.Next", []string{
			"shop/iter.go:drain likely", "shop/iter.go:use exact"}},
		{"same method name, other signature", "shop/iter.go:otherIter.Next", []string{}},
		{"embedded type alone is no implementation", "shop/iter.go:base.Close", []string{}},
		{"the interface method itself; first result of a function", "shop/iter.go:Iterator.Next", []string{
			"shop/iter.go:drain exact", "shop/iter.go:use exact"}},
	})
}

func TestCallersPython(t *testing.T) {
	ix := graphtest.Build(t, "testdata/python")
	graphtest.ExpectCallers(t, ix, []graphtest.Case{
		{"instance, annotation and result annotation", "app/store/db.py:Database.get", []string{
			"app/store/db.py:open_db exact", "tests/test_db.py:TestDatabase.test_get exact", "tests/test_db.py:test_open exact"}},
		{"relative import, submodule import, shadowing nested def", "app/util.py:slugify", []string{
			"app/store/db.py:Database.get exact", "tests/test_db.py:TestDatabase.helper exact"}},
		{"class attribute annotation", "app/util.py:Clock.tick", []string{"app/store/db.py:Database._load exact"}},
		{"inherited method", "app/store/db.py:Base.close", []string{
			"app/store/db.py:Database.get likely", "tests/test_db.py:DatabaseCase.test_close likely"}},
		{"module imported with from . import", "app/store/cache.py:fetch", []string{"app/store/db.py:Database._load exact"}},
		{"same method name on different classes", "app/store/cache.py:LRU.get", []string{
			"app/store/cache.py:fetch exact", "app/store/db.py:Database.get exact"}},
		{"constructor", "app/store/db.py:Database.__init__", []string{
			"app/store/db.py:open_db exact", "tests/test_db.py:DatabaseCase.test_close exact", "tests/test_db.py:database exact"}},
	})
}

func TestTests(t *testing.T) {
	goIx := graphtest.Build(t, "testdata/go")
	pyIx := graphtest.Build(t, "testdata/python")
	pyIdioms := graphtest.Build(t, "testdata/pyidioms")
	tests := []struct {
		name   string
		ix     *graphtest.Index
		target string
		want   []string
	}{
		{"direct", goIx, "shop/cart.go:Cart.Add", []string{
			"shop/cart_test.go:BenchmarkAdd direct", "shop/cart_test.go:TestAdd direct"}},
		{"two hops through a constructor", goIx, "shop/cart.go:Store.Open", []string{
			"shop/cart_test.go:BenchmarkAdd two-hops via NewCart", "shop/cart_test.go:ExampleNewCart two-hops via NewCart",
			"shop/cart_test.go:TestAdd two-hops via NewCart"}},
		{"two hops, shadowed call not counted", goIx, "shop/cart.go:helper", []string{
			"shop/cart_test.go:TestCheckout two-hops via Checkout", "shop/dot/dot_test.go:TestDot two-hops via Checkout"}},
		{"two hops and naming convention", goIx, "shop/cart.go:Cart.validate", []string{
			"shop/cart_test.go:BenchmarkAdd two-hops via Cart.Add", "shop/cart_test.go:TestAdd two-hops via Cart.Add",
			"shop/cart_test.go:TestValidate naming"}},
		{"python direct", pyIx, "app/store/db.py:open_db", []string{"tests/test_db.py:test_open direct"}},
		{"python two hops through a method", pyIx, "app/util.py:slugify", []string{
			"tests/test_db.py:TestDatabase.test_get two-hops via Database.get", "tests/test_db.py:test_open two-hops via Database.get"}},
		{"python: a test reading a property whose body calls the function", pyIdioms, "shelf/wrappers.py:failed", []string{
			"tests/test_wrappers.py:test_error two-hops via Response.is_error"}},
		{"python: a test assigning a property whose setter calls the function", pyIdioms, "shelf/wrappers.py:build_auth", []string{
			"tests/test_wrappers.py:test_auth two-hops via Response.auth"}},
		{"python unittest through inheritance", pyIx, "app/store/db.py:Base.close", []string{
			"tests/test_db.py:DatabaseCase.test_close direct", "tests/test_db.py:TestDatabase.test_get two-hops via Database.get",
			"tests/test_db.py:test_open two-hops via Database.get"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := graphtest.Tests(t, tt.ix, tt.target); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tests of %s:\n got %q\nwant %q", tt.target, got, tt.want)
			}
		})
	}
}

func TestCallees(t *testing.T) {
	got, res := calleesOf(t, "shop/cart.go:Cart.Add")
	want := []string{"shop/cart.go:Cart.validate exact", "shop/cart.go:Logger.Printf exact",
		"shop/internal/money/money.go:Amount.Zero exact", "shop/internal/money/money.go:Sum exact"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("callees:\n got %q\nwant %q", got, want)
	}
	if wantU := []string{"errors.New", "str.ToUpper"}; !reflect.DeepEqual(res.Unresolved, wantU) {
		t.Errorf("unresolved = %q, want %q", res.Unresolved, wantU)
	}
}

func TestResolveAt(t *testing.T) {
	goR := NewResolver(graphtest.Build(t, "testdata/go"), Options{})
	tests := []struct {
		r         *Resolver
		path      string
		line, col int // 1-based line, 0-based byte column
		want      []string
		found     bool
	}{
		{goR, "shop/cart.go", 57, 17, []string{"shop/internal/money/money.go:Sum exact"}, true}, // money.Sum in Cart.Add
		{goR, "shop/cart.go", 57, 20, []string{"shop/internal/money/money.go:Sum exact"}, true}, // just after the name
		{goR, "shop/cart.go", 67, 3, []string{"shop/cart.go:Sizer.Len exact"}, true},            // s.Len(): the interface method
		{goR, "shop/cart.go", 90, 2, nil, true},                                                 // a local closure shadows helper
		{goR, "shop/cart.go", 10, 0, nil, false},                                                // not a call site
	}
	for _, tt := range tests {
		got, found := graphtest.ResolveAt(t, tt.r, tt.path, tt.line-1, tt.col)
		if found != tt.found || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: ResolveAt(%d:%d) = %q, %v; want %q, %v", tt.path, tt.line, tt.col, got, found, tt.want, tt.found)
		}
	}
}

// A value the code mentions (NewCart stores defaultLogger, a variable) is
// not something it calls: only callable definitions are callees of a
// reference.
func TestCalleesSkipValues(t *testing.T) {
	got, _ := calleesOf(t, "shop/cart.go:NewCart")
	if want := []string{"shop/cart.go:Store.Open exact"}; !reflect.DeepEqual(got, want) {
		t.Errorf("callees of NewCart:\n got %q\nwant %q", got, want)
	}
}

// calleesOf resolves the callees of the definition named by key in the Go
// fixture and describes them, sorted.
func calleesOf(t *testing.T, key string) ([]string, Result) {
	t.Helper()
	ix := graphtest.Build(t, "testdata/go")
	res, err := NewResolver(ix, Options{}).Callees(context.Background(), ix.Def(t, key))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Edges {
		got = append(got, graphtest.Describe(e))
	}
	sort.Strings(got)
	return got, res
}

// TestCallersPythonIdioms holds the Python idioms of issue 27 on a small
// package of the kind the issue measured (re-exports in __init__, a class
// hierarchy with overrides, a module-level instance, a package module
// named like a standard one).
func TestCallersPythonIdioms(t *testing.T) {
	ix := graphtest.Build(t, "testdata/pyidioms")
	graphtest.ExpectCallers(t, ix, []graphtest.Case{
		{"a function re-exported by the package: import shelf; shelf.url_for()", "shelf/helpers.py:url_for", []string{
			"tests/test_app.py:index exact"}},
		{"a class re-exported by the package: req = shelf.Request(); req.prepare(); through a property's annotation", "shelf/models.py:Request.prepare", []string{
			"shelf/wrappers.py:fetch exact", "tests/test_app.py:test_prepare exact"}},
		{"self call reaches the override, super() the base", "shelf/scaffold.py:Scaffold.add_url_rule", []string{
			"shelf/app.py:App.add_url_rule likely", "shelf/scaffold.py:Scaffold.route exact"}},
		{"the override, through self and an instance of a subclass", "shelf/app.py:App.add_url_rule", []string{
			"shelf/app.py:App.setup exact", "tests/test_app.py:test_rules likely"}},
		{"import json is the standard library's, not the package's json", "shelf/json/__init__.py:loads", []string{
			"shelf/app.py:App.load_config exact"}},
		{"self.__dict__.get is no self call; @app.get on an instance of a subclass", "shelf/app.py:App.get", []string{"tests/test_app.py:index likely"}},
		{"a module-level instance imported from the package", "shelf/app.py:App.make_response", []string{
			"tests/test_app.py:test_current_app exact"}},
		{"a method of a standard library type is not the only workspace method of its name", "shelf/models.py:Request.read", []string{}},
		{"a string literal's method, even through a local or another of its methods, is no workspace method; a list's element may be", "shelf/helpers.py:UrlPath.join", []string{
			"shelf/helpers.py:bound_paths likely", "shelf/helpers.py:first_path likely", "shelf/helpers.py:typed exact"}},
		{"a property read on self, on a typed parameter, on a constructed instance; not on an unknown receiver", "shelf/wrappers.py:Response.is_error", []string{
			"shelf/wrappers.py:Response.raise_for_status exact", "shelf/wrappers.py:check exact", "tests/test_wrappers.py:test_error exact"}},
		{"a property read in a chain", "shelf/wrappers.py:Response.request", []string{"shelf/wrappers.py:fetch exact"}},
		{"functools.cached_property", "shelf/wrappers.py:Response.body", []string{
			"shelf/wrappers.py:fetch exact", "tests/test_wrappers.py:test_body exact"}},
		{"a property passed as an argument is read; an assignment calls no getter", "shelf/wrappers.py:Response.auth", []string{
			"shelf/wrappers.py:log_auth exact"}},
		{"a property's setter, assigned on self, on an instance, on an instance of a subclass", "shelf/wrappers.py:Response.auth#2", []string{
			"shelf/wrappers.py:Response.__init__ exact", "shelf/wrappers.py:fetch exact", "tests/test_wrappers.py:test_auth likely"}},
		{"a method named like a property is called, not read", "shelf/wrappers.py:Job.is_error", []string{"shelf/wrappers.py:check exact"}},
	})
	// zip_file.read() is not even a guess: its receiver is a type of a module outside the workspace.
	res, err := NewResolver(ix, Options{}).Callers(context.Background(), ix.Def(t, "shelf/models.py:Request.read"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Guesses) != 0 {
		t.Errorf("guesses of Request.read: %v, want none", res.Guesses)
	}
	// thing.is_error (thing of unknown type) is not even a guess.
	res, err = NewResolver(ix, Options{}).Callers(context.Background(), ix.Def(t, "shelf/wrappers.py:Response.is_error"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Guesses) != 0 {
		t.Errorf("guesses of Response.is_error: %v, want none", res.Guesses)
	}
}

// TestCallersTypeScriptIdioms holds the TypeScript idioms of issue 27:
// re-exports (renamed, star), #private members, receivers typed by a
// call or a chain, this in a plain function, getters' types, tests of
// ava, vitest and node:test.
func TestCallersTypeScriptIdioms(t *testing.T) {
	ix := graphtest.Build(t, "testdata/tsidioms")
	graphtest.ExpectCallers(t, ix, []graphtest.Case{
		{"re-exported through two indexes, renamed", "src/schema/number.ts:number", []string{
			"test/helpers.ts:namespace import through a star re-export exact", "test/number.ts:max chains exact"}},
		{"a call's result, a this-typed method's result", "src/schema/number.ts:NumberSchema.max", []string{
			"test/number.ts:max chains exact", "test/number.ts:renamed class exact"}},
		{"#private method", "src/schema/number.ts:NumberSchema.#add", []string{"src/schema/number.ts:NumberSchema.max exact"}},
		{"this inside a plain function is not the class's", "src/schema/number.ts:NumberSchema.parse", []string{
			"test/number.ts:max chains exact"}},
		{"a getter's declared type; callbacks typed by a declared variable, a declared result, a parameter (a union agreeing, a rest, a method's) but not by a union disagreeing nor by an untyped callee", "src/request.ts:Request.header", []string{
			"src/app/handlers.ts:annotated exact", "src/app/handlers.ts:arrow exact", "src/app/handlers.ts:called exact", "src/app/handlers.ts:commented exact", "src/app/handlers.ts:factory exact",
			"src/app/handlers.ts:namespaced exact", "src/app/handlers.ts:passed exact", "src/app/handlers.ts:routed exact",
			"src/app/handlers.ts:spread exact", "src/app/handlers.ts:written exact", "src/app/handlers.ts:ws exact", "src/cors.ts:cors exact"}},
		{"vitest blocks in a .spec file", "src/cors.ts:cors", []string{"src/cors.spec.ts:cors > reads the origin exact"}},
		{"a method of a base class its module exports renamed (export { App as AppBase }), on a subclass of the same name", "src/base/base.ts:App.basePath", []string{
			"src/base/use.ts:chained likely", "src/base/use.ts:local likely"}},
	})
	r := NewResolver(ix, Options{})
	res, err := r.Tests(context.Background(), ix.Def(t, "src/schema/number.ts:NumberSchema.#add"))
	if err != nil {
		t.Fatal(err)
	}
	got := graphtest.DescribeTests(res.Hits)
	sort.Strings(got)
	want := []string{"test/number.ts:max chains two-hops via NumberSchema.max", "test/number.ts:renamed class two-hops via NumberSchema.max"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tests of #add (ava in test/):\n got %q\nwant %q", got, want)
	}
}

// TestCallersGoIdioms holds the Go recall holes of issue 27: generic
// constructors and interfaces, parameter names in function types, named
// slices, type switches, values of named function types, test tables,
// copies and reassignments.
func TestCallersGoIdioms(t *testing.T) {
	ix := graphtest.Build(t, "testdata/goidioms")
	graphtest.ExpectCallers(t, ix, []graphtest.Case{
		{"generic constructor, test table, named function type's result, through a generic interface", "lru/lru.go:Cache.Add", []string{
			"lru/lru.go:build exact", "lru/lru.go:fill likely", "lru/lru_test.go:TestAdd exact", "lru/lru_test.go:TestTable exact"}},
		{"a generic interface's method: its calls and its implementations'", "lru/lru.go:Store.Add", []string{
			"lru/lru.go:build likely", "lru/lru.go:fill exact", "lru/lru_test.go:TestAdd likely", "lru/lru_test.go:TestTable likely"}},
		{"a method of an interface embedded with another type parameter", "lru/lru.go:Container.Values", []string{
			"lru/lru_test.go:TestValues exact"}},
		{"parameter names of a function type do not matter", "raft/raft.go:InmemTransport.SetHeartbeatHandler", []string{
			"raft/raft.go:Raft.Start likely"}},
		{"range over a named slice type, a type switch's case", "raft/raft.go:Peer.Ping", []string{
			"raft/raft.go:describe exact", "raft/raft.go:pingAll exact"}},
		{"a type switch's interface case", "raft/raft.go:Namer.Name", []string{"raft/raft.go:describe exact"}},
		{"a copy of a parameter", "raft/raft.go:Raft.Start", []string{"raft/raft.go:elect exact"}},
		{"a reassigned variable", "raft/raft.go:Raft.Leader", []string{"raft/raft.go:elect exact"}},
	})
}

// TestImplementations lists what implements or overrides a definition:
// methods of an interface's implementations (by method sets in Go, generic
// ones too), overrides of a base class's method, the types themselves.
func TestImplementations(t *testing.T) {
	goIx := graphtest.Build(t, "testdata/goidioms")
	pyIx := graphtest.Build(t, "testdata/pyidioms")
	tests := []struct {
		name   string
		ix     *graphtest.Index
		target string
		want   []string
	}{
		{"a generic interface's method", goIx, "lru/lru.go:Store.Add", []string{"lru/lru.go:Cache.Add exact"}},
		{"an interface method with a function-typed parameter", goIx, "raft/raft.go:Transport.SetHeartbeatHandler", []string{
			"raft/raft.go:InmemTransport.SetHeartbeatHandler exact"}},
		{"an interface", goIx, "raft/raft.go:Namer", []string{"raft/raft.go:Peer exact"}},
		{"a generic interface embedded with another type parameter", goIx, "lru/lru.go:Container", []string{"lru/lru.go:Cache exact"}},
		{"a concrete method implements nothing", goIx, "raft/raft.go:Peer.Ping", []string{}},
		{"a base class's method: its override", pyIx, "shelf/scaffold.py:Scaffold.add_url_rule", []string{"shelf/app.py:App.add_url_rule exact"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := NewResolver(tt.ix, Options{}).Implementations(context.Background(), tt.ix.Def(t, tt.target))
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, e := range res.Edges {
				got = append(got, graphtest.Describe(e))
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("implementations of %s:\n got %q\nwant %q", tt.target, got, tt.want)
			}
		})
	}
}
