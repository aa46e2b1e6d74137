// Package ratelimit limits how often a caller may act, with a token bucket
// per key.
package ratelimit

import (
	"sync"
	"time"
)

// Limiter hands out tokens at Rate per second up to Burst per key.
type Limiter struct {
	Rate  float64
	Burst int

	mu      sync.Mutex
	buckets map[string]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// New returns a limiter refilling rate tokens a second, holding at most burst.
func New(rate float64, burst int) *Limiter {
	return &Limiter{Rate: rate, Burst: burst, buckets: map[string]*bucket{}, now: time.Now}
}

// Allow takes a token from key's bucket and reports whether there was one.
// A bucket refills continuously since it was last used; an unknown key
// starts full.
func (l *Limiter) Allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: float64(l.Burst), last: now}
		l.buckets[key] = b
	}
	b.tokens += now.Sub(b.last).Seconds() * l.Rate
	if b.tokens > float64(l.Burst) {
		b.tokens = float64(l.Burst)
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
