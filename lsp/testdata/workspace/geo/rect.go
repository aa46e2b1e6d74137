package geo

// Rect is an axis-aligned rectangle.
type Rect struct {
	W, H float64
}

// Area returns the area of the rectangle.
func (r Rect) Area() float64 {
	return r.W * r.H
}

// Shape is anything with an area.
type Shape interface {
	Area() float64
}

// TotalArea sums the areas of shapes.
func TotalArea(shapes ...Shape) float64 {
	total := 0.0
	for _, s := range shapes {
		total += s.Area()
	}
	return total
}
