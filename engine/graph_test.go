package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"

	"github.com/context-ls/context-ls/workspace"
)

var graphFixture = map[string]string{
	"go.mod": "module example.com/app\n\ngo 1.22\n",
	"store/store.go": `package store

// Open opens a store.
func Open(path string) *DB { return &DB{} }

// DB is a store.
type DB struct{}

// Get reads a key.
func (d *DB) Get(k string) string { return k }
`,
	"app/app.go": `package app

import "example.com/app/store"

// Run reads one key.
func Run() string {
	db := store.Open("x")
	return db.Get("k")
}

// Twice reads two keys.
func Twice() string {
	db := store.Open("y")
	return db.Get("a") + db.Get("b")
}
`,
	"app/app_test.go": `package app

import "testing"

func TestRun(t *testing.T) {
	if Run() != "k" {
		t.Fatal("bad")
	}
}
`,
}

// graphItems renders items as "path:symbol confidence".
func graphItems(t *testing.T, res []GraphResult, err error) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, r := range res {
		for _, it := range r.Items {
			out = append(out, it.Path+":"+it.Symbol+" "+it.Confidence+" "+it.Reason)
		}
	}
	sort.Strings(out)
	return out
}

func callersOf(t *testing.T, e *Engine, target Target) []string {
	t.Helper()
	s := e.Snapshot()
	defer s.Release()
	res, err := s.Callers(context.Background(), target)
	return graphItems(t, res, err)
}

// TestGraphIncremental edits a call site and deletes a function: the
// caller lists follow, and nothing stale survives.
func TestGraphIncremental(t *testing.T) {
	ctx := context.Background()
	root := testutil.WriteTree(t, graphFixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	get := Target{Symbol: "DB.Get"}
	want := []string{"app/app.go:Run exact receiver type DB", "app/app.go:Twice exact receiver type DB"}
	if got := callersOf(t, e, get); !reflect.DeepEqual(got, want) {
		t.Fatalf("callers of DB.Get = %q, want %q", got, want)
	}
	// Edit a call site (an editor overlay): Twice no longer calls Get.
	edited := `package app

import "example.com/app/store"

// Run reads one key.
func Run() string {
	db := store.Open("x")
	return db.Get("k")
}

// Twice opens twice.
func Twice() string {
	store.Open("y")
	return ""
}
`
	if err := e.UpdateOverlay(ctx, "app/app.go", []byte(edited)); err != nil {
		t.Fatal(err)
	}
	if got, want := callersOf(t, e, get), []string{"app/app.go:Run exact receiver type DB"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after edit: callers of DB.Get = %q, want %q", got, want)
	}
	// Delete Get from disk: its edges disappear, and the target is gone.
	storeFile := filepath.Join(root, "store", "store.go")
	if err := os.WriteFile(storeFile, []byte("package store\n\n// Open opens a store.\nfunc Open(path string) *DB { return &DB{} }\n\n// DB is a store.\ntype DB struct{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.Refresh(ctx, []string{"store/store.go"}); err != nil {
		t.Fatal(err)
	}
	s := e.Snapshot()
	_, err := s.Callers(ctx, get)
	s.Release()
	if !errors.Is(err, ErrNoSymbol) {
		t.Fatalf("callers of a deleted method: err = %v, want ErrNoSymbol", err)
	}
	// Callees of Run: the call to the deleted Get resolves to nothing.
	s = e.Snapshot()
	res, err := s.Callees(ctx, Target{Symbol: "Run"})
	s.Release()
	if got, want := graphItems(t, res, err), []string{"store/store.go:Open exact qualified by import example.com/app/store"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("callees of Run after delete = %q, want %q", got, want)
	}
	// Delete the whole file: nothing calls into it any more.
	if err := os.Remove(storeFile); err != nil {
		t.Fatal(err)
	}
	if err := e.Refresh(ctx, []string{"store/store.go"}); err != nil {
		t.Fatal(err)
	}
	s = e.Snapshot()
	res, err = s.Callees(ctx, Target{Symbol: "Run"})
	s.Release()
	if got := graphItems(t, res, err); len(got) != 0 {
		t.Fatalf("callees of Run after deleting store.go = %q, want none", got)
	}
}

// TestGraphReverseKeysReplaced checks the store side of incrementality:
// rewriting a file leaves exactly the new reverse entries.
func TestGraphReverseKeysReplaced(t *testing.T) {
	ctx := context.Background()
	root := testutil.WriteTree(t, graphFixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	count := func(key string) int {
		s := e.Snapshot()
		defer s.Release()
		n := 0
		if err := s.st.Reverse(key, func(p string, _ []byte) bool {
			if p == "app/app.go" {
				n++
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("get"); n != 3 {
		t.Fatalf("reverse entries for get = %d, want 3", n)
	}
	if err := e.UpdateOverlay(ctx, "app/app.go", []byte("package app\n\nfunc Run() string { return \"\" }\n")); err != nil {
		t.Fatal(err)
	}
	if n := count("get"); n != 0 {
		t.Fatalf("after rewrite: reverse entries for get = %d, want 0", n)
	}
	if n := count("open"); n != 0 {
		t.Fatalf("after rewrite: reverse entries for open = %d, want 0", n)
	}
}

func TestGraphTargets(t *testing.T) {
	ctx := context.Background()
	root := testutil.WriteTree(t, graphFixture)
	e := openTest(t, root, t.TempDir())
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s := e.Snapshot()
	defer s.Release()
	tests := []struct {
		name   string
		target Target
		want   []string
		err    error
	}{
		{"definition name", Target{Path: "store/store.go", Line: 10, Col: 15}, []string{
			"app/app.go:Run exact receiver type DB", "app/app.go:Twice exact receiver type DB"}, nil},
		{"line only", Target{Path: "store/store.go", Line: 4}, []string{
			"app/app.go:Run exact qualified by import example.com/app/store", "app/app.go:Twice exact qualified by import example.com/app/store"}, nil},
		{"call site resolves to its callee", Target{Path: "app/app.go", Line: 8, Col: 12}, []string{
			"app/app.go:Run exact receiver type DB", "app/app.go:Twice exact receiver type DB"}, nil},
		{"inside a body", Target{Path: "app/app.go", Line: 14}, []string{}, nil},
		{"qualified name", Target{Symbol: "store.Open"}, []string{
			"app/app.go:Run exact qualified by import example.com/app/store", "app/app.go:Twice exact qualified by import example.com/app/store"}, nil},
		{"unknown name", Target{Symbol: "Nope"}, nil, ErrNoSymbol},
		{"outside the workspace", Target{Path: "../etc/passwd", Line: 1}, nil, workspace.ErrOutsideWorkspace},
		{"not indexed", Target{Path: "missing.go", Line: 1}, nil, ErrNotIndexed},
		{"empty", Target{}, nil, ErrBadTarget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Callers(ctx, tt.target)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if got := graphItems(t, res, err); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("callers = %q, want %q", got, tt.want)
			}
		})
	}
	res, err := s.Tests(ctx, Target{Symbol: "DB.Get"})
	if got, want := graphItems(t, res, err), []string{"app/app_test.go:TestRun exact two-hops"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tests of DB.Get = %q, want %q", got, want)
	}
}
