package packing

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

// defectsFixture reproduces, in miniature, the shapes of this repository's
// own code where related context and callers went wrong: a local err next
// to a method err, a receiver *Snapshot next to a method Engine.Snapshot,
// wg.Done() next to an unrelated Client.Done, and a common method name
// (Len) on unrelated types.
var defectsFixture = map[string]string{
	"go.mod": "module example.com/idx\n\ngo 1.22\n",
	"engine/engine.go": `package engine

// Engine indexes a folder.
type Engine struct{}

// Snapshot returns the current view.
func (e *Engine) Snapshot() *Snapshot { return &Snapshot{} }

// Snapshot is a view of the index.
type Snapshot struct{ n int }

// Close closes the engine.
func (e *Engine) Close() error { return nil }

// Len counts definitions.
func (s *Snapshot) Len() int { return s.n }
`,
	"engine/share.go": `package engine

import "sync"

type shareError struct{ msg string }

func (e *shareError) err() error { return nil }

// Service answers forwarded calls.
type Service struct{}

// Close stops the service.
func (s *Service) Close() error { return nil }

// SharedIndex shares an engine.
type SharedIndex struct {
	wg sync.WaitGroup
	e  *Engine
}

func (x *SharedIndex) release(s *Snapshot) error {
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
	}()
	err := x.e.Close()
	if err != nil {
		return err
	}
	return nil
}
`,
	"client/client.go": `package client

// Client talks to a server.
type Client struct{ done chan struct{} }

// Done is closed when the client stops.
func (c *Client) Done() <-chan struct{} { return c.done }

// Len is the queue length.
func (c *Client) Len() int { return 0 }

// Drain reads what is left.
func Drain(q interface{ Len() int }) int {
	return q.Len()
}
`,
	"engine/stats.go": `package engine

// Count counts a snapshot's definitions.
func Count(s *Snapshot) int { return s.Len() }
`,
}

// relatedItems renders the related items as "reason: path:symbol".
func relatedItems(t *testing.T, e *engine.Engine, sel Selection) []string {
	t.Helper()
	s := e.Snapshot()
	defer s.Release()
	rel, err := Related(context.Background(), s, sel)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, it := range rel.Items {
		out = append(out, it.Reason+": "+it.Path+":"+it.Symbol)
		if j := sameCode(rel.Items[:i], make([]bool, i), packs.Candidate{Path: it.Path, StartLine: it.StartLine, EndLine: it.EndLine}); j >= 0 {
			t.Errorf("related items %d and %d show the same code: %s:%d-%d (%s) and %s:%d-%d (%s)", j, i,
				rel.Items[j].Path, rel.Items[j].StartLine, rel.Items[j].EndLine, rel.Items[j].Reason, it.Path, it.StartLine, it.EndLine, it.Reason)
		}
	}
	return out
}

// TestRelatedDefinitionsJustified: the definitions a selection uses are
// those the graph resolves its names to; locals and parameters are not
// definitions of anything, receiver and parameter types are types, and a
// call on an external type (sync.WaitGroup) names no workspace method.
func TestRelatedDefinitionsJustified(t *testing.T) {
	e, _ := indexedEngine(t, defectsFixture)
	defer e.Close()
	// release, whole (lines 21-31 of share.go).
	got := relatedItems(t, e, Selection{Path: "engine/share.go", StartLine: 21, EndLine: 31})
	var defs []string
	for _, it := range got {
		if strings.HasPrefix(it, "definition of ") {
			defs = append(defs, it)
		}
	}
	sort.Strings(defs)
	want := []string{
		"definition of Close; called by SharedIndex.release: engine/engine.go:Engine.Close",
		"definition of SharedIndex: engine/share.go:SharedIndex",
		"definition of Snapshot: engine/engine.go:Snapshot",
	}
	if !reflect.DeepEqual(defs, want) {
		t.Errorf("definitions related to release:\n got %q\nwant %q\n(all items %q)", defs, want, got)
	}
}

// TestGraphGuessesApart: callers of a common method name list only the
// callers the graph can justify; name-only matches from unrelated types
// are guesses, apart, and counted as omitted.
func TestGraphGuessesApart(t *testing.T) {
	e, _ := indexedEngine(t, defectsFixture)
	defer e.Close()
	s := e.Snapshot()
	defer s.Release()
	res, err := s.Callers(context.Background(), engine.Target{Symbol: "Snapshot.Len"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 {
		t.Fatalf("callers of Snapshot.Len: %d targets", len(res))
	}
	r := res[0]
	var items, guesses []string
	for _, it := range r.Items {
		items = append(items, it.Path+":"+it.Symbol+" "+it.Confidence)
	}
	for _, it := range r.Guesses {
		guesses = append(guesses, it.Path+":"+it.Symbol+" "+it.Confidence)
	}
	if want := []string{"engine/stats.go:Count exact"}; !reflect.DeepEqual(items, want) {
		t.Errorf("callers of Snapshot.Len = %q, want %q", items, want)
	}
	if want := []string{"client/client.go:Drain name-only"}; !reflect.DeepEqual(guesses, want) || r.Omitted != len(want) {
		t.Errorf("guesses = %q (omitted %d), want %q", guesses, r.Omitted, want)
	}
	// Related context takes the callers, never the guesses.
	for _, it := range relatedItems(t, e, Selection{Path: "engine/engine.go", StartLine: 15, EndLine: 16}) {
		if strings.Contains(it, "client/") {
			t.Errorf("related context of Snapshot.Len holds a guess: %s", it)
		}
	}
}
