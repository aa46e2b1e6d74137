package lua_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/graph/graphtest"
	"github.com/context-ls/context-ls/lang/lua"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/symbols/symbolstest"
)

func TestDetect(t *testing.T) {
	for _, p := range []string{"init.lua", "lua/plugin/config.LUA", "pkg-1.0-1.rockspec", ".luacheckrc", "spec/.busted"} {
		if got := symbols.ForPath(p); got != lua.Language {
			t.Errorf("ForPath(%q) = %v, want lua", p, got)
		}
	}
	for _, head := range []string{"#!/usr/bin/env lua5.4\n", "#!/usr/bin/luajit\n"} {
		if got := symbols.ForContent("bin/tool", []byte(head)); got != lua.Language {
			t.Errorf("ForContent(bin/tool, %q) = %v, want lua", head, got)
		}
	}
	if l := symbols.ByName("lua"); l != lua.Language || !l.HasGrammar() || l.Grammar() == nil {
		t.Fatalf("ByName(lua) = %v, want the registered grammar", l)
	}
	all := symbols.All()
	for i := 1; i < len(all); i++ {
		if all[i-1].Name >= all[i].Name {
			t.Fatalf("All() not sorted after Register: %s before %s", all[i-1].Name, all[i].Name)
		}
	}
	if !graph.Supported("lua") {
		t.Error("graph does not support lua")
	}
}

func TestTestFiles(t *testing.T) {
	for base, want := range map[string]bool{
		"cart_spec.lua": true, "cart_test.lua": true, "cart.lua": false, "spectrum.lua": false, "test_cart.lua": false,
	} {
		if got := lua.Language.IsTestFile(base); got != want {
			t.Errorf("IsTestFile(%q) = %v, want %v", base, got, want)
		}
	}
	got := graph.ConventionalTestFiles("lua/shop/pricing/init.lua")
	want := []string{"lua/shop/pricing_spec.lua", "lua/shop/pricing_test.lua", "spec/shop/pricing_spec.lua", "spec/pricing_spec.lua",
		"test/shop/pricing_spec.lua", "test/pricing_spec.lua", "tests/shop/pricing_spec.lua", "tests/pricing_spec.lua"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ConventionalTestFiles:\n got %q\nwant %q", got, want)
	}
}

func TestSymbolsGolden(t *testing.T) {
	symbolstest.Golden(t, filepath.Join("testdata", "symbols"), "lua")
}

// FuzzParse feeds arbitrary bytes to the Lua grammar; seeds are the
// symbols fixtures.
//
//	go test ./lang/lua -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	symbolstest.FuzzFixtures(f, lua.Language, filepath.Join("testdata", "symbols"))
}

func TestGraphGolden(t *testing.T) {
	graphtest.Golden(t, filepath.Join("testdata", "graph"))
}

// TestCallers checks the tricky resolution cases on the fixture: required
// modules and the tables they return, self calls, locals, globals.
func TestCallers(t *testing.T) {
	ix := graphtest.Build(t, filepath.Join("testdata", "graph"))
	graphtest.ExpectCallers(t, ix, []graphtest.Case{
		{"required module's table, not another M; a local given its value after it is declared", "lua/shop/util.lua:M.slug", []string{"lua/forward.lua:label exact", "lua/shop/cart.lua:Cart.add exact"}},
		{"same-file table", "lua/other.lua:M.slug", []string{"lua/other.lua:M.use exact"}},
		{"table path in the same module", "lua/shop/util.lua:M.trim", []string{"lua/shop/util.lua:M.slug exact"}},
		{"self call with a colon, method on a constructor's result", "lua/shop/cart.lua:Cart.validate", []string{
			"lua/shop/cart.lua:Cart.add exact", "spec/shop/cart_spec.lua:validate > rejects empty names likely"}},
		{"file-level local function", "lua/shop/cart.lua:subtotal", []string{"lua/shop/cart.lua:Cart.total exact"}},
		{"require of a directory's init.lua, anonymous table", "lua/shop/pricing/init.lua:price", []string{"lua/shop/cart.lua:subtotal likely"}},
		{"the only global function", "lua/log.lua:log", []string{"lua/other.lua:<file> likely", "lua/shop/cart.lua:Cart.add likely"}},
		{"a local function is not seen by other files", "lua/log.lua:slug", []string{}},
		{"busted blocks through the required class", "lua/shop/cart.lua:Cart.new", []string{
			"spec/shop/cart_spec.lua:Cart > adds items exact", "spec/shop/cart_spec.lua:Cart > totals exact", "spec/shop/cart_spec.lua:Cart exact",
			"spec/shop/cart_spec.lua:validate > rejects empty names exact"}},
		{"method on an instance from a constructor", "lua/shop/cart.lua:Cart.add", []string{"spec/shop/cart_spec.lua:Cart > adds items likely"}},
		{"method on a constructor's result", "lua/shop/cart.lua:Cart.total", []string{"spec/shop/cart_spec.lua:Cart > totals likely"}},
	})
}

func TestTests(t *testing.T) {
	ix := graphtest.Build(t, filepath.Join("testdata", "graph"))
	graphtest.ExpectTests(t, ix, []graphtest.Case{
		{"lua busted blocks", "lua/shop/cart.lua:Cart.new", []string{
			"spec/shop/cart_spec.lua:Cart > adds items direct", "spec/shop/cart_spec.lua:Cart > totals direct", "spec/shop/cart_spec.lua:Cart direct",
			"spec/shop/cart_spec.lua:validate > rejects empty names direct"}},
		{"lua direct, two hops through a method, naming (spec/ mirrors lua/)", "lua/shop/cart.lua:Cart.validate", []string{
			"spec/shop/cart_spec.lua:Cart > adds items two-hops via Cart.add", "spec/shop/cart_spec.lua:validate > rejects empty names direct",
			"spec/shop/cart_spec.lua:validate naming"}},
	})
}

// TestResolveAt: the grammar starts a file-level statement with the white
// space before it; the site is the name alone.
func TestResolveAt(t *testing.T) {
	r := graph.NewResolver(graphtest.Build(t, filepath.Join("testdata", "graph")), graph.Options{})
	tests := []struct {
		path      string
		line, col int // 1-based line, 0-based byte column
		want      []string
		found     bool
	}{
		{"lua/shop/cart.lua", 20, 29, []string{"lua/shop/util.lua:M.slug exact"}, true}, // util.slug(name)
		{"lua/shop/cart.lua", 22, 2, []string{"lua/log.lua:log likely"}, true},          // a global function
		{"lua/shop/cart.lua", 40, 10, nil, true},                                        // round: a nested local function
		{"lua/other.lua", 10, 2, []string{"lua/other.lua:M.use exact"}, true},           // M.use() at file level
		{"lua/other.lua", 11, 0, []string{"lua/log.lua:log likely"}, true},              // log(…) at file level
		{"lua/other.lua", 10, 7, nil, false},                                            // the end of the line before
	}
	for _, tt := range tests {
		got, found := graphtest.ResolveAt(t, r, tt.path, tt.line-1, tt.col)
		if found != tt.found || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: ResolveAt(%d:%d) = %q, %v; want %q, %v", tt.path, tt.line, tt.col, got, found, tt.want, tt.found)
		}
	}
}

// TestBustedFiles: busted blocks are read from every file Lua's naming
// calls a test file, beside the code as well as under spec/ (the graph
// used to keep them only under a test directory, by the JavaScript rule).
func TestBustedFiles(t *testing.T) {
	src := []byte("local Cart = require('shop.cart')\ndescribe('Cart', function()\n  it('adds', function() Cart.new() end)\nend)\n")
	for p, want := range map[string]int{
		"lua/shop/cart_spec.lua": 2, "cart_test.lua": 2, "lua/test_cart.lua": 2, "spec/cart_spec.lua": 2, "lua/shop/cart.lua": 0,
	} {
		_, g := graphtest.Parse(t, p, src)
		var names []string
		for _, tt := range g.Tests {
			names = append(names, tt.Name)
		}
		if len(names) != want || (want == 2 && names[1] != "Cart > adds") {
			t.Errorf("%s: tests %q, want %d nested", p, names, want)
		}
	}
}
