// Package lru is a fixture: generic containers.
package lru

// Container is what every container has.
type Container[T any] interface {
	Values() []T
	Len() int
}

// Store is a generic interface embedding another.
type Store[K comparable, V any] interface {
	Add(key K, value V) bool
	Container[V]
}

// Cache is a generic cache.
type Cache[K comparable, V any] struct {
	items map[K]V
}

// New2Q makes a cache.
func New2Q[K comparable, V any](size int) (*Cache[K, V], error) {
	return &Cache[K, V]{items: make(map[K]V, size)}, nil
}

// Add adds a value.
func (c *Cache[K, V]) Add(key K, value V) bool {
	c.items[key] = value
	return true
}

// Values lists the values.
func (c *Cache[K, V]) Values() []V {
	var out []V
	for _, v := range c.items {
		out = append(out, v)
	}
	return out
}

// Len counts the values.
func (c *Cache[K, V]) Len() int { return len(c.items) }

// Factory makes caches.
type Factory func() *Cache[int, int]

func fill(s Store[int, int]) {
	s.Add(1, 1)
}

func build(mk Factory) {
	c := mk()
	c.Add(2, 2)
}
