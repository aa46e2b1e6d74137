package cart

import "testing"

func TestCartTotal(t *testing.T) {
	c := New()
	c.Add(Item{SKU: "apple", Price: 150}, 4)
	if got := c.Total(); got != 600 {
		t.Errorf("Total() = %d, want 600", got)
	}
}
