package ledger

import (
	"fmt"
	"strings"
)

// Report prints the richest accounts, one per line.
func Report(l *Ledger, n int) string {
	var b strings.Builder
	for _, a := range l.Richest(n) {
		fmt.Fprintf(&b, "%s\t%d\n", a.ID, a.Balance)
	}
	return b.String()
}

// Settle moves everything from one account into another.
func Settle(l *Ledger, from, to string) error {
	a := l.accounts[from]
	if a == nil {
		return fmt.Errorf("ledger: no account %q", from)
	}
	return l.Transfer(from, to, a.Balance)
}
