// Package store is a fixture for Go method resolution: interfaces that
// embed standard library ones, shadowed promoted methods, anonymous
// structs, fields of function type, closures, variadic parameters.
package store

import (
	"io"
	"os"
	"sync"

	"example.com/kv/store/manifest"
)

// File is a file: io.Closer's Close is one of its methods.
type File interface {
	io.Closer
	Sync() error
}

// diskFile implements File.
type diskFile struct{}

func (f *diskFile) Close() error { return nil }
func (f *diskFile) Sync() error  { return nil }

// memWriter implements io.Closer only.
type memWriter struct{}

func (w *memWriter) Close() error { return nil }

func closeAll(c io.Closer, w *memWriter) {
	c.Close() // an io.Closer in memWriter's own package
	w.Close()
}

// Iter iterates.
type Iter interface {
	Next() bool
}

// inner implements Key and Next.
type inner struct{}

func (i *inner) Key() string { return "" }
func (i *inner) Next() bool  { return false }

// wrapper embeds inner and shadows its Key.
type wrapper struct{ inner }

func (w *wrapper) Key() string { return w.inner.Key() }

func useWrapper(w *wrapper) {
	w.Key()  // wrapper.Key, not inner.Key
	w.Next() // promoted from inner
}

// Filter names itself.
type Filter interface {
	Name() string
}

// Mask is a Filter that can be masked.
type Mask interface {
	Filter
	SetMask(m int)
}

// obsoleteFilter implements Filter, not Mask.
type obsoleteFilter struct{}

func (o obsoleteFilter) Name() string { return "obsolete" }

type snapList struct{}

func (s *snapList) earliest() int { return 0 }

type versionSet struct{}

func (v *versionSet) current() *version { return nil }

type version = manifest.Version

// newItersFn opens iterators.
type newItersFn func(level int) (Iter, error)

type level struct{ iter Iter }

// DB holds state behind a mutex in an anonymous struct.
type DB struct {
	mu struct {
		sync.Mutex
		versions *versionSet
		snaps    struct {
			snapList
		}
	}
	newIters newItersFn
	mask     Mask
	levels   []level
}

func (d *DB) scan() {
	v := d.mu.versions.current()
	it := v.Levels[0].Iter()
	it.Next()
	d.mu.snaps.earliest()
	iter, _ := d.newIters(0)
	iter.Next()
	d.mask.Name()
	l := &d.levels[0]
	l.iter.Next()
}

// all steps every iterator.
func all(its ...Iter) {
	for _, it := range its {
		it.Next()
	}
}

func closures() {
	mk := func() *inner { return &inner{} }
	x := mk()
	x.Key()
}

// listIter is a concrete Iter.
type listIter struct{}

func (l *listIter) Next() bool { return false }

func concrete(l *listIter) {
	l.Next() // listIter implements Iter: a caller of Iter.Next too
}

// buffer has the workspace's only Truncate.
type buffer struct{}

func (b *buffer) Truncate(n int) {}

var cfg struct {
	file File
}

func syncConfig() {
	cfg.file.Sync()
}

// closeIt closes through io.Closer only, in memWriter's package.
func closeIt(c io.Closer) { c.Close() }

// Reader reads and closes.
type Reader interface {
	Get() int
	Close() error
}

// readerCloser takes its Close from Reader, which declares it first.
type readerCloser interface {
	Reader
	io.Closer
}

// snap is a Reader, hence a readerCloser.
type snap struct{}

func (s *snap) Get() int     { return 0 }
func (s *snap) Close() error { return nil }

func closeReader(r readerCloser) { r.Close() }

var hook func() int

// install sets the hook to a function value.
func install() { hook = defaultHook }

func defaultHook() int { return 0 }

type meta = manifest.LevelMetadata

// Annotator annotates a level.
type Annotator interface {
	Zero(m *manifest.LevelMetadata) int
}

// annot spells Zero's parameter through an alias: it still implements
// Annotator.
type annot struct{}

func (a annot) Zero(m *meta) int { return 0 }

func annotate(a Annotator) { a.Zero(nil) }

// Sizer has a length.
type Sizer interface{ Len() int }

type queue struct{}

func (q *queue) Len() int { return 0 }

// total sums lengths through a type parameter constrained by Sizer.
func total[S Sizer](xs []S) int {
	n := 0
	for _, x := range xs {
		n += x.Len()
	}
	return n
}

func one[S Sizer](x S) int { return x.Len() }

type entry struct{}

func (e *entry) unref() {}

// entryList is a named slice: its elements are entries.
type entryList []*entry

type holder struct{ list entryList }

func drop(h *holder) {
	h.list[0].unref()
}

// osBacked is a File: Close comes from the embedded *os.File.
type osBacked struct{ *os.File }

func (o *osBacked) Sync() error { return nil }
