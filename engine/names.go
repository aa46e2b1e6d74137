package engine

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
)

// nameTable holds the distinct lower-cased definition names of an
// engine's index in memory, so that a workspace symbol query scores names
// without reading every n/ key of the store (150–250 ms on the Go
// standard library, a key per definition).
//
// The table is a superset of the names of every snapshot taken since it
// was built. It is built from one snapshot taken while no write is between
// adding its names and committing its batch (under Engine.writeMu); every
// later write adds its file's names before its batch commits
// (Engine.writeFileWith), and names a write removes stay. A query looks up
// each candidate name's definitions in its own snapshot, where a name no
// longer defined has none, so it answers exactly what a scan of that
// snapshot's n/ keys would. Names added since the build are kept apart and
// merged into the sorted list once there are mergeExtra of them (or a
// 64th of the list: a merge copies the list, so a branch switch on a large
// repository merges a few times, not once per thousand names); once
// writes have added more names than a quarter of the table (a bulk run, a
// branch switch) the table is dropped and the next query builds it again,
// so neither removed names nor memory grow without bound.
//
// Nothing is built until a query needs it (a fresh process that never asks
// for workspace symbols pays nothing); the language server builds it in the
// background once its first index is done (Engine.PrepareSymbols).
type nameTable struct {
	mu    sync.Mutex
	state int
	ready chan struct{} // closed when the build in progress ends
	base  nameList
	extra map[string]struct{} // names added since the build, not in base
	added int                 // names added since the build
}

// nameTable states.
const (
	namesNone = iota
	namesBuilding
	namesBuilt
)

// mergeExtra is how many added names are kept apart from the sorted list
// before they are merged into it.
const mergeExtra = 1024

// nameList is a sorted list of distinct names in one string (no pointer
// per name for the collector to follow: the Linux kernel has over a
// million distinct definition names).
type nameList struct {
	blob string
	ends []uint32 // name i is blob[ends[i-1]:ends[i]]
}

func (l nameList) len() int { return len(l.ends) }

func (l nameList) at(i int) string {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.blob[start:l.ends[i]]
}

func (l nameList) has(name string) bool {
	i := sort.Search(l.len(), func(i int) bool { return l.at(i) >= name })
	return i < l.len() && l.at(i) == name
}

// nameListBuilder appends names in lexical order.
type nameListBuilder struct {
	b    strings.Builder
	ends []uint32
}

func (b *nameListBuilder) add(name string) {
	b.b.WriteString(name)
	b.ends = append(b.ends, uint32(b.b.Len()))
}

func (b *nameListBuilder) list() nameList { return nameList{blob: b.b.String(), ends: b.ends} }

// merge returns l with the names of more (not in l) merged in.
func (l nameList) merge(more []string) nameList {
	sort.Strings(more)
	var b nameListBuilder
	b.b.Grow(len(l.blob) + len(more)*16)
	b.ends = make([]uint32, 0, l.len()+len(more))
	i, j := 0, 0
	for i < l.len() || j < len(more) {
		if j == len(more) || (i < l.len() && l.at(i) < more[j]) {
			b.add(l.at(i))
			i++
		} else {
			b.add(more[j])
			j++
		}
	}
	return b.list()
}

// add records the names of a file version about to be written; the
// caller holds Engine.writeMu.
func (t *nameTable) add(syms []symbols.Symbol) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state == namesNone {
		return
	}
	for i := range syms {
		name := strings.ToLower(syms[i].Name) // as the store keys it
		if _, ok := t.extra[name]; ok || (t.state == namesBuilt && t.base.has(name)) {
			continue
		}
		t.extra[name] = struct{}{}
		t.added++
	}
	if t.state == namesBuilt {
		t.tidy(true)
	}
}

// tidy merges the added names into the list once there are enough of
// them, and (drop) drops the table once writes added too many; under
// t.mu, built.
func (t *nameTable) tidy(drop bool) {
	if drop && t.added > max(4096, t.base.len()/4) {
		t.state, t.base, t.extra, t.added = namesNone, nameList{}, nil, 0
		return
	}
	if len(t.extra) >= max(mergeExtra, t.base.len()/64) {
		more := make([]string, 0, len(t.extra))
		for n := range t.extra {
			if !t.base.has(n) { // added while the list was being built
				more = append(more, n)
			}
		}
		t.base = t.base.merge(more)
		t.extra = map[string]struct{}{}
	}
}

// names returns the table's sorted list and the names added since, built
// first if need be (from s when s is the engine's current state, else from
// a new snapshot); a build ends early, and the table stays unbuilt, when
// ctx ends.
func (e *Engine) names(ctx context.Context, s *Snapshot) (nameList, []string, error) {
	t := &e.nameTab
	for {
		t.mu.Lock()
		switch t.state {
		case namesBuilt:
			extra := make([]string, 0, len(t.extra))
			for n := range t.extra {
				extra = append(extra, n)
			}
			base := t.base
			t.mu.Unlock()
			return base, extra, nil
		case namesBuilding:
			ready := t.ready
			t.mu.Unlock()
			select {
			case <-ready:
			case <-ctx.Done():
				return nameList{}, nil, ctx.Err()
			}
			continue
		}
		t.mu.Unlock()
		if err := e.buildNames(ctx, s); err != nil {
			return nameList{}, nil, err
		}
	}
}

// buildNames builds the table from a snapshot of the store unless another
// caller is already building it or has built it. The snapshot is s when no
// write came after it (a query then gets exactly the names of its own
// snapshot), else a new one.
func (e *Engine) buildNames(ctx context.Context, s *Snapshot) error {
	t := &e.nameTab
	// No write is between adding its names and committing its batch while
	// writeMu is held: the snapshot holds every write whose names the table
	// did not see, and every later write adds its names.
	e.writeMu.Lock()
	t.mu.Lock()
	if t.state != namesNone {
		t.mu.Unlock()
		e.writeMu.Unlock()
		return nil
	}
	t.state, t.ready, t.extra, t.added = namesBuilding, make(chan struct{}), map[string]struct{}{}, 0
	t.mu.Unlock()
	var snap *store.Snapshot
	if s != nil && (e.isCurrent(s) || e.db.Failed() != nil) {
		// The caller holds s. A failed store takes no more writes, and a
		// new snapshot of it would read nothing.
		snap = s.st
	} else {
		snap = e.db.Snapshot()
		defer snap.Release()
	}
	e.writeMu.Unlock()

	var b nameListBuilder
	err := snap.DistinctNames(func(name []byte) bool {
		b.b.Write(name)
		b.ends = append(b.ends, uint32(b.b.Len()))
		return len(b.ends)%4096 != 0 || ctx.Err() == nil
	})
	if err == nil {
		err = ctx.Err()
	}

	t.mu.Lock()
	defer t.mu.Unlock()
	close(t.ready)
	if err != nil {
		t.state, t.extra = namesNone, nil
		return err
	}
	t.state, t.base = namesBuilt, b.list()
	for n := range t.extra {
		if t.base.has(n) {
			delete(t.extra, n)
		}
	}
	t.tidy(false) // a table just built answers at least once
	return nil
}

// PrepareSymbols builds the in-memory table of definition names that
// workspace symbol queries score (a read of every name key of the store),
// so the first query does not wait for it. It is a no-op once built; it
// stops early when ctx ends.
func (e *Engine) PrepareSymbols(ctx context.Context) error {
	_, _, err := e.names(ctx, nil)
	return err
}

// isCurrent reports whether s holds every write committed so far; the
// caller holds writeMu (a write marks the snapshot stale before it lets
// writeMu go).
func (e *Engine) isCurrent(s *Snapshot) bool {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	return e.cur == s && !e.dirty.Load()
}
