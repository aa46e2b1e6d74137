package graph_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	. "github.com/context-ls/context-ls/graph" // the tests of graph, outside it to share graphtest
	"github.com/context-ls/context-ls/graph/graphtest"

	"github.com/context-ls/context-ls/symbols"
)

// usesIn lists the uses in the lines [from, to] (1-based) of fixture
// file rel, each as "kind name -> definition" (or "-> none").
func usesIn(t *testing.T, ix *graphtest.Index, dir, rel string, from, to int) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	start := len(strings.Join(lines[:from-1], ""))
	end := len(strings.Join(lines[:to], ""))
	lang := symbols.ForPath(rel)
	p := symbols.NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), lang, src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, uses := Uses(f, rel, start, end)
	r := NewResolver(ix, Options{})
	var out []string
	kinds := map[UseKind]string{UseCall: "call", UseType: "type", UseValue: "value"}
	for _, u := range uses {
		ms, err := r.ResolveUse(g, u)
		if err != nil {
			t.Fatal(err)
		}
		to := "none"
		if len(ms) > 0 {
			to = ms[0].Def.Path + ":" + ms[0].Def.QualifiedName() + " " + ms[0].Confidence.String()
		}
		out = append(out, kinds[u.Kind]+" "+u.Name+" -> "+to)
	}
	return out
}

func TestUses(t *testing.T) {
	const dir = "testdata/gotypes"
	ix := graphtest.Build(t, dir)
	tests := []struct {
		name     string
		rel      string
		from, to int
		want     []string
	}{
		{"receiver and parameter types are types; calls resolve through them; locals are nothing", "store/store.go", 52, 55, []string{
			"type wrapper -> store/store.go:wrapper exact",
			"call Key -> store/store.go:wrapper.Key exact",
			"call Next -> store/store.go:inner.Next exact",
		}},
		{"a closure and its result: the closure is local, its result type is a type", "store/store.go", 121, 125, []string{
			"type inner -> store/store.go:inner exact",
			"call Key -> store/store.go:inner.Key exact",
		}},
		{"a package-level variable is a value; an interface call resolves to the interface method", "store/store.go", 145, 147, []string{
			"value cfg -> store/store.go:cfg exact",
			"call Sync -> store/store.go:File.Sync exact",
		}},
		{"standard library types and unknown receivers resolve to nothing", "app/app.go", 11, 16, []string{
			"type File -> store/store.go:File exact",
			"type Closer -> none",
			"call Close -> store/store.go:diskFile.Close likely",
			"call Close -> store/store.go:diskFile.Close likely",
			"call Now -> none",
			"call Truncate -> none",
			"call Second -> none",
			"call earliest -> none",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := usesIn(t, ix, dir, tt.rel, tt.from, tt.to); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("uses of %s:%d-%d:\n got %q\nwant %q", tt.rel, tt.from, tt.to, got, tt.want)
			}
		})
	}
}

func TestUsesPython(t *testing.T) {
	const dir = "testdata/python"
	ix := graphtest.Build(t, dir)
	// Database.get: self's attribute chain, a local, an imported function.
	got := usesIn(t, ix, dir, "app/store/db.py", 22, 27)
	want := []string{
		"call get -> app/store/cache.py:LRU.get exact",
		"call _load -> app/store/db.py:Database._load exact",
		"call slugify -> app/util.py:slugify exact",
		"call close -> app/store/db.py:Base.close likely",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("uses of Database.get:\n got %q\nwant %q", got, want)
	}
}
