package engine

import "testing"

// TestIsTestPath pins the test-file conventions that rank tests below the
// code they test.
func TestIsTestPath(t *testing.T) {
	cases := map[string]bool{
		"pkg/cart_test.go":              true,
		"tests/test_db.py":              true,
		"src/cart.test.ts":              true,
		"spec/cart_spec.rb":             true,
		"lua/shop/cart_spec.lua":        true,
		"lua/shop/cart_test.lua":        true,
		"editors/neovim/tests/unit.lua": true,
		"pkg/cart.go":                   false,
		"lua/shop/cart.lua":             false,
		"lua/spectrum.lua":              false,
		"testing/util.lua":              false,
	}
	for p, want := range cases {
		if got := isTestPath(p); got != want {
			t.Errorf("isTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}
