// Package retry runs an operation again after transient failures, waiting
// longer after each attempt.
package retry

import (
	"context"
	"errors"
	"math/rand"
	"time"
)

// Policy says how often and how patiently an operation is retried.
type Policy struct {
	Attempts int           // total attempts, the first included
	Base     time.Duration // wait after the first failure
	Max      time.Duration // upper bound of a single wait
}

// ErrGiveUp wraps the last error once every attempt has failed.
var ErrGiveUp = errors.New("retry: giving up")

// Backoff returns the wait before attempt n (1-based): Base doubled for
// every earlier failure, capped at Max, with up to a fifth of random jitter
// so that many clients do not retry in lockstep.
func (p Policy) Backoff(n int) time.Duration {
	d := p.Base << uint(n-1)
	if d <= 0 || d > p.Max {
		d = p.Max
	}
	jitter := time.Duration(rand.Int63n(int64(d)/5 + 1))
	return d - jitter
}

// Do calls fn until it succeeds, the attempts run out or ctx ends.
// Errors marked permanent by fn (Permanent) stop at once.
func (p Policy) Do(ctx context.Context, fn func(context.Context) error) error {
	var err error
	for n := 1; n <= p.Attempts; n++ {
		if err = fn(ctx); err == nil {
			return nil
		}
		var perm permanent
		if errors.As(err, &perm) {
			return perm.err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(p.Backoff(n)):
		}
	}
	return errors.Join(ErrGiveUp, err)
}

type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }

// Permanent marks an error that retrying cannot fix.
func Permanent(err error) error { return permanent{err} }
