// Command app prints the area of a few shapes.
package main

import (
	"fmt"

	"example.com/fixture/geo"
)

func main() {
	/* 😀 emoji before the call */ c := geo.NewCircle(2)
	fmt.Println(geo.TotalArea(c, geo.Rect{W: 2, H: 3}))
}
