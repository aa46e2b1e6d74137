package retry

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBackoffDoublesUpToMax(t *testing.T) {
	p := Policy{Attempts: 5, Base: 100 * time.Millisecond, Max: time.Second}
	for n, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 5: time.Second} {
		if got := p.Backoff(n); got > want || got < want*4/5 {
			t.Errorf("Backoff(%d) = %v, want about %v", n, got, want)
		}
	}
}

func TestDoStopsOnPermanentError(t *testing.T) {
	calls := 0
	boom := errors.New("boom")
	err := Policy{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond}.Do(context.Background(), func(context.Context) error {
		calls++
		return Permanent(boom)
	})
	if calls != 1 || !errors.Is(err, boom) {
		t.Fatalf("calls %d err %v", calls, err)
	}
}
