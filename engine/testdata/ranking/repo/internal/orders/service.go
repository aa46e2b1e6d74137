// Package orders moves orders through their life: placed, paid, shipped,
// delivered or cancelled.
package orders

import (
	"errors"
	"fmt"
	"time"
)

// State is where an order is in its life.
type State int

const (
	Placed State = iota
	Paid
	Shipped
	Delivered
	Cancelled
)

// ErrAlreadyShipped is returned when an order that left the warehouse is
// cancelled; it has to be returned instead.
var ErrAlreadyShipped = errors.New("order already shipped")

// Order is one customer order.
type Order struct {
	ID        string
	State     State
	PlacedAt  time.Time
	ShippedAt time.Time
}

// Service changes orders' states.
type Service struct {
	Store interface {
		Get(id string) (*Order, error)
		Put(o *Order) error
	}
	Now func() time.Time
}

// Cancel cancels an order that has not shipped yet.
func (s *Service) Cancel(id string) error {
	o, err := s.Store.Get(id)
	if err != nil {
		return fmt.Errorf("cancel %s: %w", id, err)
	}
	switch o.State {
	case Shipped, Delivered:
		return fmt.Errorf("cancel %s: %w", id, ErrAlreadyShipped)
	case Cancelled:
		return nil
	}
	o.State = Cancelled
	return s.Store.Put(o)
}

// Ship marks a paid order as shipped now.
func (s *Service) Ship(id string) error {
	o, err := s.Store.Get(id)
	if err != nil {
		return fmt.Errorf("ship %s: %w", id, err)
	}
	if o.State != Paid {
		return fmt.Errorf("ship %s: order is not paid", id)
	}
	o.State, o.ShippedAt = Shipped, s.Now()
	return s.Store.Put(o)
}
