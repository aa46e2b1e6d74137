package shop

// Iterator walks items.
type Iterator interface {
	Next() bool
	Close() error
}

// Iter is an alias of Iterator.
type Iter = Iterator

type base struct{}

func (b *base) Close() error { return nil }

// listIter implements Iterator with a promoted Close.
type listIter struct{ base }

func (l *listIter) Next() bool { return false }

// otherIter has a Next of another signature: it is no Iterator.
type otherIter struct{}

func (o *otherIter) Next() int    { return 0 }
func (o *otherIter) Close() error { return nil }

func drain(it Iter) {
	for it.Next() {
	}
	it.Close()
}

func openIter() (Iter, error) { return &listIter{}, nil }

func (l *listIter) clone() (*listIter, error) { return l, nil }

func use() {
	it, err := openIter()
	if err != nil {
		return
	}
	it.Next()
	c, _ := it.(*listIter).clone()
	c.Next()
}
