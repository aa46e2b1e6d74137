package shop

import "testing"

func TestAdd(t *testing.T) {
	c := NewCart()
	if err := c.Add(Item{}); err != nil {
		t.Fatal(err)
	}
}

func TestCheckout(t *testing.T) { Checkout(nil) }

func BenchmarkAdd(b *testing.B) {
	for i := 0; i < b.N; i++ {
		NewCart().Add(Item{})
	}
}

func ExampleNewCart() { NewCart() }

func Testhelper(t *testing.T) {}

func fixture() *Cart { return NewCart() }

func TestValidate(t *testing.T) { t.Skip("named after Cart.validate, calls nothing") }
