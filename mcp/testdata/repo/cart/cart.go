// Package cart keeps the items a customer is about to buy.
package cart

// Item is one product line of a cart.
type Item struct {
	SKU   string
	Price Money
}

// Cart holds items and their quantities.
type Cart struct {
	items    []Item
	quantity map[string]int
}

// New returns an empty cart.
func New() *Cart {
	return &Cart{quantity: map[string]int{}}
}

// Add puts qty units of item into the cart.
func (c *Cart) Add(item Item, qty int) {
	if _, ok := c.quantity[item.SKU]; !ok {
		c.items = append(c.items, item)
	}
	c.quantity[item.SKU] += qty
}

// Total computes the amount due: every item's price times its quantity,
// with the bulk discount applied.
func (c *Cart) Total() Money {
	var sum Money
	for _, it := range c.items {
		sum += it.Price * Money(c.quantity[it.SKU])
	}
	return applyDiscount(sum)
}

// applyDiscount takes 10 percent off large orders.
func applyDiscount(m Money) Money {
	if m > 100000 {
		return m - m/10
	}
	return m
}
