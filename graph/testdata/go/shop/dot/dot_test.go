package dot_test

import (
	"testing"

	. "example.com/shop"
)

func TestDot(t *testing.T) { Checkout(nil) }
