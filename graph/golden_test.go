package graph

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"

	"github.com/context-ls/context-ls/symbols"
)

// parseFile parses src as the language of rel and extracts its graph.
func parseFile(t testing.TB, rel string, src []byte) (*symbols.File, *FileGraph) {
	t.Helper()
	lang := symbols.ForContent(rel, src)
	if lang == nil || !lang.HasGrammar() {
		t.Fatalf("%s: no grammar", rel)
	}
	p := symbols.NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), lang, src)
	if err != nil {
		t.Fatalf("parse %s: %v", rel, err)
	}
	defer f.Close()
	return f, Extract(f, rel)
}

func typeString(t TypeExpr) string {
	if !t.Known() {
		return "?"
	}
	s := t.Name
	if t.Call {
		s += "()"
	}
	if t.Elem {
		s = "[]" + s
	}
	if t.Module != "" {
		s = "{" + t.Module + "}" + s
	}
	return s
}

// render prints a graph as one line per fact, in a stable order.
func render(g *FileGraph, syms []symbols.Symbol) string {
	var b strings.Builder
	fmt.Fprintf(&b, "file %s lang=%s package=%q module=%q", g.Path, g.Lang, g.Package, g.Module)
	if g.DefaultExport != "" {
		fmt.Fprintf(&b, " default=%s", g.DefaultExport)
	}
	b.WriteByte('\n')
	for _, im := range g.Imports {
		fmt.Fprintf(&b, "import L%d %q module=%q", im.Line+1, im.Path, im.Module)
		if im.Alias != "" {
			fmt.Fprintf(&b, " as %s", im.Alias)
		}
		if im.Level > 0 {
			fmt.Fprintf(&b, " level=%d", im.Level)
		}
		for _, n := range im.Names {
			if n.Alias != "" {
				fmt.Fprintf(&b, " %s→%s", n.Name, n.Alias)
			} else {
				fmt.Fprintf(&b, " %s", n.Name)
			}
		}
		b.WriteByte('\n')
	}
	for _, t := range g.Types {
		fmt.Fprintf(&b, "type %s", t.Name)
		if t.Container != "" {
			fmt.Fprintf(&b, " in %s", t.Container)
		}
		if t.Interface {
			b.WriteString(" interface")
		}
		for _, bs := range t.Bases {
			fmt.Fprintf(&b, " base=%s", typeString(bs))
		}
		for _, c := range t.Calls {
			fmt.Fprintf(&b, " call=(%s)", c)
		}
		b.WriteByte('\n')
	}
	for _, f := range g.Fields {
		owner := f.Owner
		if owner == "" {
			owner = "<package>"
		}
		emb := ""
		if f.Embedded {
			emb = " embedded"
		}
		fmt.Fprintf(&b, "field %s.%s %s%s\n", owner, f.Name, typeString(f.Type), emb)
	}
	caller := func(i int) string {
		if i < 0 || i >= len(syms) {
			return "<file>"
		}
		return syms[i].QualifiedName()
	}
	for _, c := range g.Calls {
		kind := "call"
		switch {
		case c.New:
			kind = "new"
		case c.Ref:
			kind = "ref"
		case c.Read && c.Write:
			kind = "read-write"
		case c.Read:
			kind = "read"
		case c.Write:
			kind = "write"
		}
		fmt.Fprintf(&b, "%s L%d:%d %s -> ", kind, c.Site.Start.Line+1, c.Site.Start.Column+1, caller(c.Caller))
		if c.Text != "" {
			fmt.Fprintf(&b, "%s.", c.Text)
		}
		fmt.Fprintf(&b, "%s recv=%s", c.Name, c.Recv.Kind)
		if c.Recv.Module != "" {
			fmt.Fprintf(&b, " module=%s", c.Recv.Module)
		}
		if c.Recv.Type.Known() {
			fmt.Fprintf(&b, " type=%s", typeString(c.Recv.Type))
		}
		if c.Recv.Root != "" {
			fmt.Fprintf(&b, " root=%s", c.Recv.Root)
		}
		if len(c.Recv.Fields) > 0 {
			fmt.Fprintf(&b, " fields=%s", strings.Join(c.Recv.Fields, "."))
		}
		if c.Self != "" {
			fmt.Fprintf(&b, " self=%s", c.Self)
		}
		if c.DefaultImport {
			b.WriteString(" default-import")
		}
		if c.Test >= 0 {
			fmt.Fprintf(&b, " test=%q", g.Tests[c.Test].Name)
		}
		b.WriteByte('\n')
	}
	for _, r := range g.TypeRefs {
		mod := ""
		if r.Module != "" {
			mod = "{" + r.Module + "}"
		}
		fmt.Fprintf(&b, "typeref L%d %s -> %s%s\n", r.Line+1, caller(r.Caller), mod, r.Name)
	}
	for _, t := range g.Tests {
		fmt.Fprintf(&b, "test %s %q L%d-%d\n", t.Kind, t.Name, t.Span.Start.Line+1, t.Span.End.Line+1)
	}
	for _, a := range g.Accessors {
		kind := "getter"
		if a.Set {
			kind = "setter"
		}
		fmt.Fprintf(&b, "accessor %s %s\n", kind, caller(a.Ord))
	}
	return b.String()
}

// fixtures returns the files under testdata/<lang> whose language has a
// grammar, as paths relative to that directory.
func fixtures(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".golden") || symbols.ForPath(p) == nil {
			return nil // goldens and files of no language (go.mod)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGolden extracts every fixture under testdata/<lang>/ and compares the
// rendering with <file>.golden; -update rewrites them.
func TestGolden(t *testing.T) {
	langs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range langs {
		if !l.IsDir() {
			continue
		}
		dir := filepath.Join("testdata", l.Name())
		for _, rel := range fixtures(t, dir) {
			t.Run(l.Name()+"/"+rel, func(t *testing.T) {
				src, err := os.ReadFile(filepath.Join(dir, rel))
				if err != nil {
					t.Fatal(err)
				}
				lang := symbols.ForContent(rel, src)
				if lang == nil || !lang.HasGrammar() {
					t.Skipf("%s: symbols has no grammar for this file yet", rel)
				}
				f, g := parseFile(t, rel, src)
				checkGraph(t, g, f.Symbols, len(src))
				got := render(g, f.Symbols)
				golden := filepath.Join(dir, rel+".golden")
				if *testutil.Update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./graph -update)", err)
				}
				if !bytes.Equal(want, []byte(got)) {
					t.Errorf("graph of %s differs from %s:\n%s", rel, golden, lineDiff(string(want), got))
				}
			})
		}
	}
}

// checkGraph asserts invariants every consumer relies on.
func checkGraph(t testing.TB, g *FileGraph, syms []symbols.Symbol, n int) {
	t.Helper()
	for i, c := range g.Calls {
		if c.Caller < -1 || c.Caller >= len(syms) {
			t.Fatalf("call %d caller %d out of range", i, c.Caller)
		}
		if c.Test < -1 || c.Test >= len(g.Tests) {
			t.Fatalf("call %d test %d out of range", i, c.Test)
		}
		if c.Site.StartByte < 0 || c.Site.EndByte > n || c.Site.StartByte > c.Site.EndByte {
			t.Fatalf("call %d site %+v out of range", i, c.Site)
		}
		if c.Name == "" {
			t.Fatalf("call %d has no name", i)
		}
	}
	for _, tt := range g.Tests {
		if tt.Ord >= len(syms) {
			t.Fatalf("test %q ord %d out of range", tt.Name, tt.Ord)
		}
	}
	for _, a := range g.Accessors {
		if a.Ord < 0 || a.Ord >= len(syms) || syms[a.Ord].Kind != symbols.KindMethod {
			t.Fatalf("accessor %d is no method", a.Ord)
		}
	}
}

// lineDiff shows the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	inW, inG := map[string]int{}, map[string]int{}
	for _, l := range w {
		inW[l]++
	}
	for _, l := range g {
		inG[l]++
	}
	var b strings.Builder
	for _, l := range w {
		if inG[l] == 0 {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range g {
		if inW[l] == 0 {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}
