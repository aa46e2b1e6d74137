// Package geo computes areas and perimeters of plane shapes.
package geo

import "math"

// Circle is a round shape with radius R.
type Circle struct {
	R float64
}

// NewCircle returns a circle of radius r.
func NewCircle(r float64) Circle {
	return Circle{R: r}
}

// Area returns the area of the circle.
func (c Circle) Area() float64 {
	return math.Pi * c.R * c.R
}

// Perimeter returns the circumference of the circle.
func (c Circle) Perimeter() float64 {
	return 2 * math.Pi * c.R
}
