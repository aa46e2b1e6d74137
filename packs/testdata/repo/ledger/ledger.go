// Package ledger keeps balances of accounts and the transfers between them.
package ledger

import (
	"errors"
	"fmt"
	"sort"
)

// ErrOverdraft is returned when a transfer would leave an account below zero.
var ErrOverdraft = errors.New("ledger: overdraft")

// Account is one holder of money.
type Account struct {
	ID      string
	Balance int64
	History []Entry
}

// Entry records one change of a balance.
type Entry struct {
	Delta int64
	Note  string
}

// Ledger holds accounts by ID.
type Ledger struct {
	accounts map[string]*Account
	onChange func(id string, delta int64)
}

// New returns an empty ledger. The hook, when non-nil, is called after
// every balance change.
func New(hook func(id string, delta int64)) *Ledger {
	return &Ledger{accounts: map[string]*Account{}, onChange: hook}
}

// Open adds an account with an opening balance.
func (l *Ledger) Open(id string, opening int64) (*Account, error) {
	if _, dup := l.accounts[id]; dup {
		return nil, fmt.Errorf("ledger: account %q exists", id)
	}
	if opening < 0 {
		return nil, fmt.Errorf("ledger: negative opening balance %d", opening)
	}
	a := &Account{ID: id, Balance: opening}
	a.History = append(a.History, Entry{Delta: opening, Note: "opening"})
	l.accounts[id] = a
	return a, nil
}

// Transfer moves amount from one account to another. It fails with
// ErrOverdraft when the source cannot cover it.
func (l *Ledger) Transfer(from, to string, amount int64) error {
	src, ok := l.accounts[from]
	if !ok {
		return fmt.Errorf("ledger: no account %q", from)
	}
	dst, ok := l.accounts[to]
	if !ok {
		return fmt.Errorf("ledger: no account %q", to)
	}
	if src.Balance < amount {
		return fmt.Errorf("transfer %d from %s: %w", amount, from, ErrOverdraft)
	}
	src.Balance -= amount
	dst.Balance += amount
	src.History = append(src.History, Entry{Delta: -amount, Note: "to " + to})
	dst.History = append(dst.History, Entry{Delta: amount, Note: "from " + from})
	if l.onChange != nil {
		l.onChange(from, -amount)
		l.onChange(to, amount)
	}
	return nil
}

// Richest returns the n accounts with the largest balances, largest first.
func (l *Ledger) Richest(n int) []*Account {
	all := make([]*Account, 0, len(l.accounts))
	for _, a := range l.accounts {
		all = append(all, a)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Balance != all[j].Balance {
			return all[i].Balance > all[j].Balance
		}
		return all[i].ID < all[j].ID
	})
	if n < len(all) {
		all = all[:n]
	}
	return all
}

// audit checks that the balances match the histories.
var audit = func(l *Ledger) error {
	for id, a := range l.accounts {
		var sum int64
		for _, e := range a.History {
			sum += e.Delta
		}
		if sum != a.Balance {
			return fmt.Errorf("ledger: %s: balance %d, history %d", id, a.Balance, sum)
		}
	}
	return nil
}
