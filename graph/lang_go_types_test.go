package graph_test

import (
	"context"
	"reflect"
	"sort"
	"testing"

	. "github.com/context-ls/context-ls/graph" // the tests of graph, outside it to share graphtest
	"github.com/context-ls/context-ls/graph/graphtest"
)

// callersAndGuesses returns the described callers and name-only guesses
// of spec in ix.
func callersAndGuesses(t *testing.T, ix *graphtest.Index, spec string) (items, guesses []string) {
	t.Helper()
	r := NewResolver(ix, Options{})
	res, err := r.Callers(context.Background(), ix.Def(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	items, guesses = []string{}, []string{}
	for _, e := range res.Edges {
		if e.Confidence == NameOnly {
			t.Errorf("callers of %s: name-only edge %s among the items", spec, graphtest.Describe(e))
		}
		items = append(items, graphtest.Describe(e))
	}
	for _, e := range res.Guesses {
		if e.Confidence != NameOnly {
			t.Errorf("callers of %s: %s edge %s among the guesses", spec, e.Confidence, graphtest.Describe(e))
		}
		guesses = append(guesses, graphtest.Describe(e))
	}
	sort.Strings(items)
	sort.Strings(guesses)
	return items, guesses
}

func TestCallersGoTypes(t *testing.T) {
	ix := graphtest.Build(t, "testdata/gotypes")
	tests := []struct {
		name, target string
		want         []string
		guesses      []string
	}{
		{"through a workspace interface embedding io.Closer, and through io.Closer once the type is such a File",
			"store/store.go:diskFile.Close", []string{"app/app.go:run likely", "store/store.go:closeAll likely", "store/store.go:closeIt likely"}, nil},
		{"through io.Closer only in its own package when it implements no workspace interface with Close",
			"store/store.go:memWriter.Close", []string{"store/store.go:closeAll exact", "store/store.go:closeIt likely"}, nil},
		{"an interface's method is the first declaration's: io.Closer calls elsewhere are no calls of a Reader",
			"store/store.go:snap.Close", []string{"store/store.go:closeAll likely", "store/store.go:closeIt likely",
				"store/store.go:closeReader likely"}, nil},
		{"a type's own method shadows the promoted one", "store/store.go:inner.Key",
			[]string{"store/store.go:closures exact", "store/store.go:wrapper.Key exact"}, nil},
		{"shadowing method", "store/store.go:wrapper.Key", []string{"store/store.go:useWrapper exact"}, nil},
		{"promoted method; through an interface it implements: a variadic element, a func-typed field's result, &x[i]",
			"store/store.go:inner.Next", []string{"store/store.go:DB.scan likely", "store/store.go:all likely", "store/store.go:useWrapper exact"}, nil},
		{"interface method: calls through it and on the concrete types implementing it",
			"store/store.go:Iter.Next", []string{"store/store.go:DB.scan exact", "store/store.go:all exact",
				"store/store.go:concrete likely", "store/store.go:useWrapper likely"}, nil},
		{"method declared by an embedded interface reaches its implementations", "store/store.go:obsoleteFilter.Name",
			[]string{"store/store.go:DB.scan likely"}, nil},
		{"promoted through an embedded field of an anonymous struct; unexported: no caller outside the package",
			"store/store.go:snapList.earliest", []string{"store/store.go:DB.scan exact"}, nil},
		{"field of an anonymous struct, result through a type alias; through an interface of another package",
			"store/manifest/manifest.go:LevelIterator.Next", []string{"store/store.go:DB.scan exact", "store/store.go:all likely"}, nil},
		{"package-level variable of an anonymous struct type", "store/store.go:diskFile.Sync",
			[]string{"store/store.go:syncConfig likely"}, nil},
		{"a function value assigned", "store/store.go:defaultHook", []string{"store/store.go:install exact"}, nil},
		{"a signature spelling a type through an alias implements the interface", "store/store.go:annot.Zero",
			[]string{"store/store.go:annotate likely"}, nil},
		{"a type parameter has its constraint's methods", "store/store.go:queue.Len",
			[]string{"store/store.go:one likely", "store/store.go:total likely"}, nil},
		{"an element of a named slice type", "store/store.go:entry.unref", []string{"store/store.go:drop exact"}, nil},
		{"methods promoted from an embedded standard library type count for interfaces", "store/store.go:osBacked.Sync",
			[]string{"store/store.go:syncConfig likely"}, nil},
		{"Go's only method of a name on an unknown receiver is a guess", "store/store.go:buffer.Truncate",
			[]string{}, []string{"app/app.go:run name-only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, guesses := callersAndGuesses(t, ix, tt.target)
			if tt.guesses == nil {
				tt.guesses = []string{}
			}
			if !reflect.DeepEqual(items, tt.want) || !reflect.DeepEqual(guesses, tt.guesses) {
				t.Errorf("callers of %s:\n got %q, guesses %q\nwant %q, guesses %q", tt.target, items, guesses, tt.want, tt.guesses)
			}
		})
	}
}

// TestCallersGoStdWorkspace: when the workspace is the standard library,
// its own declarations answer, not the built-in table of standard types.
func TestCallersGoStdWorkspace(t *testing.T) {
	ix := graphtest.Build(t, "testdata/gostd")
	items, guesses := callersAndGuesses(t, ix, "os/file.go:File.Close")
	want := []string{"app/app.go:closeAny likely", "app/app.go:closeFile exact"}
	if !reflect.DeepEqual(items, want) || len(guesses) != 0 {
		t.Errorf("callers of os.File.Close = %q, guesses %q; want %q", items, guesses, want)
	}
	items, _ = callersAndGuesses(t, ix, "io/io.go:Closer.Close")
	if want := []string{"app/app.go:closeAny exact", "app/app.go:closeFile likely"}; !reflect.DeepEqual(items, want) {
		t.Errorf("callers of io.Closer.Close = %q, want %q", items, want)
	}
}
