package lru

import "testing"

func TestAdd(t *testing.T) {
	l, err := New2Q[int, int](128)
	if err != nil {
		t.Fatal(err)
	}
	l.Add(1, 1)
}

func TestTable(t *testing.T) {
	c, _ := New2Q[int, int](8)
	tests := []struct {
		name  string
		cache *Cache[int, int]
	}{{"one", c}}
	for _, tt := range tests {
		tt.cache.Add(3, 3)
	}
}

func TestValues(t *testing.T) {
	c, _ := New2Q[string, int](8)
	var s Container[int] = c
	_ = s.Values()
}
