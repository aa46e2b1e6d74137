// Package money does arithmetic on amounts of currency in minor units.
package money

import "fmt"

// Amount is a sum of money in minor units (cents) of one currency.
type Amount struct {
	Minor    int64
	Currency string
}

// RoundHalfEven divides x by d and rounds to the nearest integer, ties to
// the even neighbour (banker's rounding), so that rounding many line items
// does not drift upwards.
func RoundHalfEven(x, d int64) int64 {
	q, r := x/d, x%d
	if r < 0 {
		r = -r
	}
	switch {
	case 2*r > d, 2*r == d && q%2 != 0:
		if x < 0 {
			return q - 1
		}
		return q + 1
	}
	return q
}

// Split divides an amount into n parts that differ by at most one minor
// unit and add up to the whole.
func (a Amount) Split(n int) []Amount {
	parts := make([]Amount, n)
	for i := range parts {
		parts[i] = Amount{Minor: a.Minor / int64(n), Currency: a.Currency}
		if int64(i) < a.Minor%int64(n) {
			parts[i].Minor++
		}
	}
	return parts
}

// Add sums two amounts of the same currency.
func (a Amount) Add(b Amount) (Amount, error) {
	if a.Currency != b.Currency {
		return Amount{}, fmt.Errorf("money: cannot add %s to %s", b.Currency, a.Currency)
	}
	return Amount{Minor: a.Minor + b.Minor, Currency: a.Currency}, nil
}
