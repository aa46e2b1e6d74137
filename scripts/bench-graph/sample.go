package main

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// funcDecl is a Go function or method picked as a benchmark target.
type funcDecl struct {
	rel       string // slash path relative to the root
	name      string
	line, col int // 1-based line, 1-based byte column of the name
	utf16Col  int // 0-based UTF-16 column for LSP
	recv      bool
	iface     bool // a method of an interface type
	exported  bool
}

// kind names the target's stratum in reports.
func (f funcDecl) kind() string {
	switch {
	case f.iface:
		return "interface method"
	case f.recv:
		return "method"
	}
	return "function"
}

// goFuncs lists the functions and methods with bodies, and the methods of
// interface types, declared in the non-test, buildable Go files under
// root (restricted to dirs when set), sorted by path and position.
func goFuncs(root string, dirs []string) ([]funcDecl, error) {
	var out []funcDecl
	walk := func(base string) error {
		return filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				n := d.Name()
				if p != base && (n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
					return filepath.SkipDir
				}
				if len(dirs) > 0 && p != base {
					return filepath.SkipDir // only the package itself
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || !buildable(p) {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			add := func(name *ast.Ident, recv, iface bool) {
				pos := fset.Position(name.Pos())
				out = append(out, funcDecl{
					rel: filepath.ToSlash(rel), name: name.Name, line: pos.Line, col: pos.Column,
					utf16Col: utf16Column(src, pos.Offset), recv: recv, iface: iface, exported: name.IsExported(),
				})
			}
			for _, decl := range f.Decls {
				switch decl := decl.(type) {
				case *ast.FuncDecl:
					if decl.Body == nil || decl.Name.Name == "_" || decl.Name.Name == "init" || decl.Name.Name == "main" {
						continue
					}
					add(decl.Name, decl.Recv != nil, false)
				case *ast.GenDecl:
					for _, spec := range decl.Specs {
						ts, ok := spec.(*ast.TypeSpec)
						if !ok {
							continue
						}
						it, ok := ts.Type.(*ast.InterfaceType)
						if !ok {
							continue
						}
						for _, m := range it.Methods.List {
							if _, isFunc := m.Type.(*ast.FuncType); isFunc && len(m.Names) == 1 {
								add(m.Names[0], true, true)
							}
						}
					}
				}
			}
			return nil
		})
	}
	if len(dirs) == 0 {
		if err := walk(root); err != nil {
			return nil, err
		}
	}
	for _, d := range dirs {
		if err := walk(filepath.Join(root, filepath.FromSlash(d))); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].rel != out[j].rel {
			return out[i].rel < out[j].rel
		}
		return out[i].line < out[j].line
	})
	return out, nil
}

// buildable reports whether the default build context includes file p
// (gopls sees only those files).
func buildable(p string) bool {
	ok, err := build.Default.MatchFile(filepath.Dir(p), filepath.Base(p))
	return err == nil && ok
}

// utf16Column is the UTF-16 column of byte offset off within its line.
func utf16Column(src []byte, off int) int {
	ls := off
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	n := 0
	for _, r := range string(src[ls:off]) {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

// pick chooses n items spread evenly over list (deterministic).
func pick[T any](list []T, n int) []T {
	if len(list) <= n {
		return list
	}
	out := make([]T, 0, n)
	step := float64(len(list)) / float64(n)
	for i := 0; i < n; i++ {
		out = append(out, list[int(float64(i)*step+step/2)])
	}
	return out
}

// commonNames are method names every codebase repeats on unrelated types:
// the cases where a name-only match is most often wrong.
var commonNames = []string{"Len", "Key", "Name", "Create"}

// maxCommon is how many common names are sampled: the listed ones, then
// the method names the module declares most often.
const maxCommon = 12

// target is a sampled function with the stratum it was drawn for.
type target struct {
	funcDecl
	stratum string // "random" or "common name"
}

// sampleTargets draws n targets uniformly at random (seeded, so runs are
// comparable) from funcs, or spread evenly over them with spread; then
// adds one random definition of each common method name (commonNames,
// then the most frequent method names of the module) not drawn already.
func sampleTargets(funcs []funcDecl, n int, seed uint64, spread bool) []target {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var drawn []funcDecl
	if spread {
		drawn = pick(funcs, n)
	} else {
		idx := rng.Perm(len(funcs))
		for _, i := range idx[:min(n, len(idx))] {
			drawn = append(drawn, funcs[i])
		}
	}
	out := make([]target, 0, len(drawn)+maxCommon)
	taken := map[funcDecl]bool{}
	for _, f := range drawn {
		out = append(out, target{f, "random"})
		taken[f] = true
	}
	byName := map[string][]funcDecl{}
	for _, f := range funcs {
		if f.recv {
			byName[f.name] = append(byName[f.name], f)
		}
	}
	names := append([]string(nil), commonNames...)
	var frequent []string
	for name, defs := range byName {
		if len(defs) >= 3 {
			frequent = append(frequent, name)
		}
	}
	sort.Slice(frequent, func(i, j int) bool {
		a, b := len(byName[frequent[i]]), len(byName[frequent[j]])
		if a != b {
			return a > b
		}
		return frequent[i] < frequent[j]
	})
	for _, name := range frequent {
		if len(names) >= maxCommon {
			break
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		defs := byName[name]
		if len(defs) == 0 {
			continue
		}
		f := defs[rng.IntN(len(defs))]
		if !taken[f] {
			out = append(out, target{f, "common name"})
			taken[f] = true
		}
	}
	return out
}
