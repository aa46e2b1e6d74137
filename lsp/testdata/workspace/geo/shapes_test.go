package geo

import "testing"

func TestCircleArea(t *testing.T) {
	if a := NewCircle(1).Area(); a < 3.14 || a > 3.15 {
		t.Errorf("area %v", a)
	}
}
