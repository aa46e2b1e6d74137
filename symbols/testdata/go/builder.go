// Package builder is a fixture for Go symbol extraction.
package builder

import (
	"errors"
	"fmt"
)

// ErrFull is returned when the builder cannot grow.
var ErrFull = errors.New("builder: full")

// Kinds of entries.
const (
	// KindA is the first kind.
	KindA Kind = iota
	KindB
	kindHidden
)

const MaxSize, minSize = 1 << 20, 16

var (
	defaultCap = 64
	// Verbose enables logging.
	Verbose, Debug bool
)

// Kind classifies an entry.
type Kind int

// Builder accumulates values of type T.
//
// It is not safe for concurrent use.
type Builder[T any] struct {
	items []T
	limit int
}

type (
	// Sizer reports a size.
	Sizer interface {
		// Size returns the size in bytes.
		Size() int
		fmt.Stringer
	}

	// Alias is an alias.
	Alias = map[string]int

	handler func(int) error
)

// New returns an empty Builder.
func New[T any](limit int) *Builder[T] {
	return &Builder[T]{limit: limit}
}

// Grow makes room for n more items.
//
//go:noinline
func (b *Builder[T]) Grow(n int) error {
	if len(b.items)+n > b.limit {
		return fmt.Errorf("grow %d: %w", n, ErrFull)
	}
	type local struct{ n int }
	_ = local{n}
	return nil
}

func (b Builder[T]) Len() int { return len(b.items) }

// reset is unexported.
func (b *Builder[T]) reset() { b.items = b.items[:0] }

/* String renders the kind. */
func (k Kind) String() string {
	switch k {
	case KindA:
		return "a"
	}
	return "?"
}

var x = 1            // trailing comment, not a doc
func afterTrailing() {}

// Detached comment.

func noDoc(fn func(a, b int) (int,
	error)) {
}
