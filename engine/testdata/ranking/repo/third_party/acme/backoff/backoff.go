// Package backoff is a copy of acme's backoff library, vendored into third_party.
package backoff

import "time"

// Backoff returns the exponential backoff delay for attempt n.
func Backoff(base time.Duration, n int) time.Duration {
	return base << uint(n)
}

// Retry calls fn up to attempts times with exponential backoff between calls.
func Retry(attempts int, base time.Duration, fn func() error) error {
	var err error
	for n := 0; n < attempts; n++ {
		if err = fn(); err == nil {
			return nil
		}
		time.Sleep(Backoff(base, n))
	}
	return err
}
