// Command shop prints the total of a sample cart.
package main

import (
	"fmt"

	"example.com/shop/cart"
)

func main() {
	c := cart.New()
	c.Add(cart.Item{SKU: "pear", Price: 250}, 3)
	fmt.Println(cart.FormatMoney(c.Total()))
}
