package graph_test

import (
	"reflect"
	"testing"

	"github.com/context-ls/context-ls/graph/graphtest"

	"github.com/context-ls/context-ls/symbols"
)

// TestCallersLanguages checks the tricky resolution cases of every other
// language on its fixture: imports and aliases, self/this, fields,
// declared and inferred variable types, inheritance, default exports.
func TestCallersLanguages(t *testing.T) {
	tests := []struct {
		lang, name, target string
		want               []string
	}{
		{"typescript", "default export", "src/lib/repo.ts:openRepo", []string{"src/cart.ts:Cart.constructor exact"}},
		{"typescript", "field type through this", "src/lib/repo.ts:Repo.save", []string{"src/cart.ts:Cart.add exact"}},
		{"typescript", "aliased named import and new", "src/lib/repo.ts:Repo.load", []string{"src/cart.ts:Cart.add exact"}},
		{"typescript", "namespace import, shadowed local", "src/util.ts:slug", []string{"src/cart.ts:Cart.add exact"}},
		{"typescript", "test blocks", "src/cart.ts:Cart.add", []string{
			"src/__tests__/cart.test.ts:Cart > adds items exact", "src/cart.ts:checkout exact"}},
		{"javascript", "require and module.exports", "app.js:App.run", []string{"app.spec.js:App > runs exact"}},
		{"javascript", "destructured require", "util.js:slug", []string{"app.js:App.run exact"}},
		{"javascript", "field assigned in constructor", "store.js:Store.put", []string{"app.js:App.run exact"}},
		{"java", "static method via import", "src/main/java/com/acme/util/Strings.java:Strings.trim", []string{
			"src/main/java/com/acme/shop/Cart.java:Cart.add exact"}},
		{"java", "static import", "src/main/java/com/acme/util/Strings.java:Strings.pad", []string{
			"src/main/java/com/acme/shop/Cart.java:Cart.add exact"}},
		{"java", "implicit and explicit this field", "src/main/java/com/acme/shop/Repo.java:Repo.save", []string{
			"src/main/java/com/acme/shop/Cart.java:Cart.add exact"}},
		{"java", "implicit this method", "src/main/java/com/acme/shop/Cart.java:Cart.validate", []string{
			"src/main/java/com/acme/shop/Cart.java:Cart.add exact"}},
		{"java", "super", "src/main/java/com/acme/shop/Base.java:Base.close", []string{
			"src/main/java/com/acme/shop/Cart.java:Cart.add likely"}},
		{"kotlin", "top-level function import", "Util.kt:slug", []string{"Cart.kt:Cart.add exact"}},
		{"kotlin", "aliased object import", "Util.kt:Strings.trim", []string{"Cart.kt:Cart.add exact"}},
		{"kotlin", "constructor parameter property and instance", "Cart.kt:Repo.save", []string{"Cart.kt:Cart.add exact"}},
		{"csharp", "using namespace and alias", "Strings.cs:Acme.Util.Strings.Trim", []string{"Cart.cs:Acme.Shop.Cart.Add exact"}},
		{"csharp", "using alias of a class", "Strings.cs:Acme.Util.Strings.Pad", []string{"Cart.cs:Acme.Shop.Cart.Add exact"}},
		{"csharp", "base call", "Cart.cs:Acme.Shop.Base.Close", []string{"Cart.cs:Acme.Shop.Cart.Add likely"}},
		{"rust", "use with alias", "src/util.rs:slug", []string{"src/lib.rs:Cart.add exact"}},
		{"rust", "module path call", "src/util.rs:trim", []string{"src/lib.rs:Cart.add exact"}},
		{"rust", "associated function and let type", "src/store/mod.rs:Db.open", []string{"src/lib.rs:Cart.add exact", "src/lib.rs:Cart.new exact"}},
		{"rust", "Type::new result", "src/lib.rs:Cart.add", []string{"src/lib.rs:tests.adds exact"}},
		{"c", "static function shadows the header's", "db.c:grow", []string{"db.c:db_open exact", "db.c:db_put exact"}},
		{"c", "declared in included header", "db.c:db_open", []string{"main.c:main likely"}},
		{"cpp", "member variable, pointer and new", "cart.cpp:shop.Repo.save", []string{"cart.cpp:shop.Cart.add exact"}},
		{"ruby", "instance variable and Foo.new", "lib/repo.rb:Repo.save", []string{"lib/cart.rb:Cart.add exact"}},
		{"ruby", "spec block", "lib/cart.rb:Cart.add", []string{"spec/cart_spec.rb:Cart > adds exact"}},
		{"php", "use of a class, alias and $this", "Cart.php:Acme\\Shop.Cart.validate", []string{"Cart.php:Acme\\Shop.Cart.add exact"}},
		{"php", "typed property", "Cart.php:Acme\\Shop.Cart.add", []string{"CartTest.php:Acme\\Shop.CartTest.testAdd exact"}},
	}
	indexes := map[string]*graphtest.Index{}
	for _, tt := range tests {
		t.Run(tt.lang+"/"+tt.name, func(t *testing.T) {
			if l := symbols.ByName(tt.lang); l == nil || !l.HasGrammar() {
				t.Skipf("symbols does not parse %s yet", tt.lang)
			}
			ix := indexes[tt.lang]
			if ix == nil {
				ix = graphtest.Build(t, "testdata/"+tt.lang)
				indexes[tt.lang] = ix
			}
			if got := graphtest.Callers(t, ix, tt.target); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("callers of %s:\n got %q\nwant %q", tt.target, got, tt.want)
			}
		})
	}
}
