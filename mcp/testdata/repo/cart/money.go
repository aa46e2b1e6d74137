package cart

import "fmt"

// Money is an amount in cents.
type Money int64

// FormatMoney renders an amount as dollars and cents.
func FormatMoney(m Money) string {
	return fmt.Sprintf("$%d.%02d", m/100, m%100)
}
