package ratelimit

import (
	"testing"
	"time"
)

func TestAllowRefillsOverTime(t *testing.T) {
	clock := time.Unix(0, 0)
	l := New(1, 2)
	l.now = func() time.Time { return clock }
	if !l.Allow("a") || !l.Allow("a") || l.Allow("a") {
		t.Fatal("a burst of two, then refused")
	}
	clock = clock.Add(time.Second)
	if !l.Allow("a") {
		t.Fatal("one token back after a second")
	}
}
