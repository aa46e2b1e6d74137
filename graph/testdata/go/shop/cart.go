// Package shop is a fixture for graph extraction.
package shop

import (
	"errors"
	str "strings"

	"example.com/shop/internal/money"
)

// Cart holds items.
type Cart struct {
	items []Item
	total money.Amount
	log   *Logger
	Store
}

// Store is embedded in Cart.
type Store struct{ name string }

// Logger logs.
type Logger struct{}

// Item is a line.
type Item struct{ Price money.Amount }

// Sizer is implemented by Cart.
type Sizer interface {
	Len() int
}

var defaultLogger = &Logger{}

// Printf logs a line.
func (l *Logger) Printf(format string, args ...any) {}

// Len counts items.
func (c *Cart) Len() int { return len(c.items) }

// Open opens the store.
func (s *Store) Open() error { return nil }

// NewCart makes a cart.
func NewCart() *Cart {
	c := &Cart{log: defaultLogger}
	c.Open()
	return c
}

// Add adds an item.
func (c *Cart) Add(it Item) error {
	if it.Price.Zero() {
		return errors.New("free item")
	}
	c.items = append(c.items, it)
	c.total = money.Sum(c.total, it.Price)
	c.log.Printf("added %s", str.ToUpper("x"))
	c.validate()
	return nil
}

func (c *Cart) validate() {
	validate := func() {}
	validate()
	var s Sizer = c
	s.Len()
	defaultLogger.Printf("ok")
	other := NewCart()
	other.Add(Item{})
	for _, it := range c.items {
		it.Price.Zero()
	}
	c.first().Price.Zero()
	lookup()[0].Price.Zero()
	helper(c.Len)
}

func (c *Cart) first() Item { return c.items[0] }

func lookup() []Item { return nil }

func helper(f func() int) int { return f() }

// Checkout uses a shadowed name.
func Checkout(items []Item) {
	helper(nil)
	if len(items) > 0 {
		helper := func(func() int) int { return 0 }
		helper(nil)
	}
	helper(nil)
}
