package service

import (
	"context"
	"testing"
)

// TestHoverRelatedCarryNoText: a hover's related definitions are other
// definitions, located as a search locates them (same ranges), without
// their text.
func TestHoverRelatedCarryNoText(t *testing.T) {
	s := newService(t, map[string]string{
		"shop/cart.go": "package shop\n\n// Total sums the prices of the cart's items.\nfunc Total(prices []int) int {\n\tt := 0\n\tfor _, p := range prices {\n\t\tt += p\n\t}\n\treturn t\n}\n",
		"shop/tax.go":  "package shop\n\n// TotalWithTax sums the prices and adds the tax.\nfunc TotalWithTax(prices []int, rate int) int {\n\treturn Total(prices) * (100 + rate) / 100\n}\n",
		"shop/sum.go":  "package shop\n\n// SumPrices sums prices of items.\nfunc SumPrices(items []int) int { return Total(items) }\n",
	})
	ctx := context.Background()
	h, err := s.Hover(ctx, PositionRequest{File: "shop/cart.go", Line: 4, Column: 7})
	if err != nil {
		t.Fatal(err)
	}
	if h.Definition == nil || h.Definition.Name != "Total" {
		t.Fatalf("hover on Total: %+v", h)
	}
	if len(h.Related) == 0 {
		t.Fatal("no related definitions")
	}
	res, err := s.Search(ctx, SearchRequest{Query: "Total sums the prices of the cart's items.", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	located := map[string]Hit{}
	for _, hit := range res.Hits {
		located[hit.Symbol] = hit
	}
	compared := 0
	for _, r := range h.Related {
		if r.Text != "" {
			t.Errorf("related %s carries text %q", r.Symbol, r.Text)
		}
		if r.Path == "shop/cart.go" {
			t.Errorf("the definition itself is related: %+v", r)
		}
		if hit, ok := located[r.Symbol]; ok {
			compared++
			if hit.Location.Range != r.Location.Range || hit.Text == "" {
				t.Errorf("related %s at %+v, the search locates it at %+v (text %q)", r.Symbol, r.Location.Range, hit.Location.Range, hit.Text)
			}
		}
	}
	if compared == 0 {
		t.Fatalf("no related definition is among the search's hits: %+v", h.Related)
	}
}
