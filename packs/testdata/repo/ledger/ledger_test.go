package ledger

import (
	"errors"
	"testing"
)

func TestTransferOverdraft(t *testing.T) {
	l := New(nil)
	if _, err := l.Open("a", 10); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Open("b", 0); err != nil {
		t.Fatal(err)
	}
	if err := l.Transfer("a", "b", 11); !errors.Is(err, ErrOverdraft) {
		t.Fatalf("got %v, want ErrOverdraft", err)
	}
}

func TestTransferMovesMoney(t *testing.T) {
	l := New(nil)
	l.Open("a", 10)
	l.Open("b", 0)
	if err := l.Transfer("a", "b", 4); err != nil {
		t.Fatal(err)
	}
	if r := l.Richest(1); r[0].ID != "a" || r[0].Balance != 6 {
		t.Fatalf("richest = %+v", r[0])
	}
}
