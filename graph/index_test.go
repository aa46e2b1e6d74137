package graph

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/symbols"
)

// memIndex is an in-memory Index over a fixture tree. Graphs are stored
// encoded and decoded on every read, like the engine's store.
type memIndex struct {
	syms  map[string][]symbols.Symbol
	lang  map[string]string
	graph map[string][]byte
	rev   map[string][]memEntry
	gomod map[string]string // directory → module path of its go.mod
}

type memEntry struct {
	path  string
	value []byte
}

func newMemIndex() *memIndex {
	return &memIndex{syms: map[string][]symbols.Symbol{}, lang: map[string]string{}, graph: map[string][]byte{},
		rev: map[string][]memEntry{}, gomod: map[string]string{}}
}

// buildIndex indexes every file under dir (paths relative to dir).
func buildIndex(t testing.TB, dir string) *memIndex {
	t.Helper()
	ix := newMemIndex()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if path.Base(rel) == "go.mod" {
			for _, l := range strings.Split(string(src), "\n") {
				if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
					ix.gomod[path.Dir(rel)] = f[1]
				}
			}
			return nil
		}
		if lang := symbols.ForContent(rel, src); lang == nil || !lang.HasGrammar() {
			return nil
		}
		ix.put(t, rel, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// put (re)indexes one file, replacing its previous entries.
func (ix *memIndex) put(t testing.TB, rel string, src []byte) {
	t.Helper()
	ix.remove(rel)
	f, g := parseFile(t, rel, src)
	ix.syms[rel] = f.Symbols
	ix.lang[rel] = g.Lang
	ix.graph[rel] = Encode(g)
	for _, r := range ReverseEntries(g) {
		ix.rev[r.Key] = append(ix.rev[r.Key], memEntry{rel, r.Value})
	}
	for k := range ix.rev {
		sort.SliceStable(ix.rev[k], func(i, j int) bool { return ix.rev[k][i].path < ix.rev[k][j].path })
	}
}

// remove deletes a file and its reverse entries.
func (ix *memIndex) remove(rel string) {
	delete(ix.syms, rel)
	delete(ix.lang, rel)
	delete(ix.graph, rel)
	for k, es := range ix.rev {
		out := es[:0]
		for _, e := range es {
			if e.path != rel {
				out = append(out, e)
			}
		}
		ix.rev[k] = out
	}
}

func (ix *memIndex) DefinitionRefs(name string) ([]DefRef, error) {
	var out []DefRef
	paths := make([]string, 0, len(ix.syms))
	for p := range ix.syms {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for i, s := range ix.syms[p] {
			if strings.EqualFold(s.Name, name) {
				out = append(out, DefRef{Path: p, Ord: i, Lang: ix.lang[p]})
			}
		}
	}
	return out, nil
}

func (ix *memIndex) Symbol(p string, ord int) (symbols.Symbol, error) {
	syms := ix.syms[p]
	if ord < 0 || ord >= len(syms) {
		return symbols.Symbol{}, ErrNotFound
	}
	return syms[ord], nil
}

func (ix *memIndex) Symbols(p string) ([]symbols.Symbol, error) { return ix.syms[p], nil }

func (ix *memIndex) GraphData(p string) ([]byte, error) { return ix.graph[p], nil }

// Graph decodes a file's whole graph (nil when absent).
func (ix *memIndex) Graph(p string) (*FileGraph, error) {
	b, ok := ix.graph[p]
	if !ok {
		return nil, nil
	}
	return Decode(b)
}

func (ix *memIndex) Sites(key string, fn func(string, []byte) bool) error {
	for _, e := range ix.rev[key] {
		if !fn(e.path, e.value) {
			break
		}
	}
	return nil
}

func (ix *memIndex) GoModulePath(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if m, ok := ix.gomod[d]; ok {
			return m
		}
		if d == "." || d == "/" {
			return ""
		}
	}
}

// def finds a definition by "path:Qualified.Name".
func (ix *memIndex) def(t testing.TB, spec string) Def {
	t.Helper()
	p, q, ok := strings.Cut(spec, ":")
	if !ok {
		t.Fatalf("bad def spec %q", spec)
	}
	// Name#2 is the second definition of Name (a property's setter).
	skip := 0
	if i := strings.LastIndexByte(q, '#'); i >= 0 {
		if n, err := strconv.Atoi(q[i+1:]); err == nil && n >= 1 {
			q, skip = q[:i], n-1
		}
	}
	for i, s := range ix.syms[p] {
		if s.QualifiedName() == q {
			if skip > 0 {
				skip--
				continue
			}
			return Def{Path: p, Ord: i, Lang: ix.lang[p], Symbol: s}
		}
	}
	t.Fatalf("no definition %s", spec)
	return Def{}
}

// describe renders an edge as "path:Caller conf".
func describe(e Edge) string {
	name := "<file>"
	switch {
	case e.Test != nil && e.Def.Ord < 0:
		name = e.Test.Name
	case e.Def.Ord >= 0:
		name = e.Def.QualifiedName()
	}
	return e.Def.Path + ":" + name + " " + e.Confidence.String()
}
