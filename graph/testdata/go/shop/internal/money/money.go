// Package money has amounts.
package money

// Amount is money.
type Amount int64

// Zero reports zero.
func (a Amount) Zero() bool { return a == 0 }

// Sum adds.
func Sum(a, b Amount) Amount { return a + b }
