package graph_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	. "github.com/context-ls/context-ls/graph" // the tests of graph, outside it to share graphtest
	"github.com/context-ls/context-ls/graph/graphtest"
	_ "github.com/context-ls/context-ls/lang/all" // FuzzExtract covers the languages kept in their own packages too

	"github.com/context-ls/context-ls/symbols"
)

// fixtureGraphs extracts every fixture file of every language.
func fixtureGraphs(t testing.TB) []*FileGraph {
	t.Helper()
	var out []*FileGraph
	langs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range langs {
		if !l.IsDir() {
			continue
		}
		dir := filepath.Join("testdata", l.Name())
		ix := graphtest.Build(t, dir)
		for _, p := range ix.Paths() {
			g, err := ix.Graph(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		t.Fatal("no fixtures")
	}
	return out
}

func TestEncodeRoundTrip(t *testing.T) {
	for _, g := range fixtureGraphs(t) {
		b := Encode(g)
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", g.Path, err)
		}
		if !reflect.DeepEqual(g, back) {
			t.Fatalf("%s: round trip differs:\n%+v\n%+v", g.Path, g, back)
		}
		if !bytes.Equal(Encode(back), b) {
			t.Fatalf("%s: encoding is not deterministic", g.Path)
		}
		head, err := DecodeHeader(b)
		if err != nil {
			t.Fatalf("%s: header: %v", g.Path, err)
		}
		want := *g
		want.Calls, want.TypeRefs = nil, nil
		if !reflect.DeepEqual(&want, head) {
			t.Fatalf("%s: header differs:\n%+v\n%+v", g.Path, &want, head)
		}
		for _, r := range ReverseEntries(g) {
			if strings.HasPrefix(r.Key, EmbedKey("")) {
				name, err := DecodeEmbed(r.Value)
				if err != nil || !embedsStd(g, name, strings.TrimPrefix(r.Key, EmbedKey(""))) {
					t.Fatalf("%s: embedding entry %q = %q, %v", g.Path, r.Key, name, err)
				}
				continue
			}
			s, err := DecodeSite(g.Path, r.Value)
			if err != nil {
				t.Fatalf("%s: site: %v", g.Path, err)
			}
			if s.Lang != g.Lang || s.Module != g.Module || s.Package != g.Package {
				t.Fatalf("%s: site file identity %+v", g.Path, s)
			}
			if name, kind, lang, err := PeekSite(r.Value); err != nil || string(name) != s.Call.Name || kind != s.Call.Recv.Kind || string(lang) != s.Lang {
				t.Fatalf("%s: PeekSite = %q %v %q %v", g.Path, name, kind, lang, err)
			}
			callKeys := r.Key == CalleeKey(s.Call.Name) || r.Key == TestCalleeKey(s.Call.Name) || r.Key == DefaultExportKey
			accessKeys := r.Key == AccessKey(s.Call.Name) || r.Key == TestAccessKey(s.Call.Name)
			if !callKeys && !accessKeys || accessKeys != s.Call.Access() {
				t.Fatalf("%s: key %q for call %+v", g.Path, r.Key, s.Call)
			}
			inTest := r.Key == TestCalleeKey(s.Call.Name) || r.Key == TestAccessKey(s.Call.Name)
			if inTest != (s.CallerTest != nil && !s.Call.DefaultImport) {
				t.Fatalf("%s: key %q but caller test %+v", g.Path, r.Key, s.CallerTest)
			}
		}
	}
}

// embedsStd reports whether interface name of g embeds the standard
// interface whose lower-cased key is std.
func embedsStd(g *FileGraph, name, std string) bool {
	for _, t := range g.Types {
		for _, b := range t.Bases {
			if t.Name == name && t.Interface && strings.ToLower(b.Module+"."+b.Name) == std {
				return true
			}
		}
	}
	return false
}

func TestDecodeErrors(t *testing.T) {
	g := &FileGraph{Path: "a.go", Lang: "go", Calls: []Call{{Caller: -1, Test: -1, Name: "f"}}}
	good := Encode(g)
	wrongVersion := append([]byte(nil), good...)
	wrongVersion[3] = FormatVersion + 1
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"not ours", []byte("hello world"), ErrCorrupt},
		{"version", wrongVersion, ErrVersion},
		{"truncated", good[:len(good)-3], ErrCorrupt},
		{"trailing", append(append([]byte(nil), good...), 0), ErrCorrupt},
		{"huge count", append(append([]byte(nil), good[:4]...), 0xff, 0xff, 0xff, 0xff, 0x0f), ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Decode = %v, want %v", err, tt.want)
			}
		})
	}
	site := ReverseEntries(g)[0].Value
	for _, in := range [][]byte{nil, {SiteMagic}, site[:len(site)-1], append(append([]byte(nil), site...), 1)} {
		if _, err := DecodeSite("a.go", in); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("DecodeSite(%x) = %v, want ErrCorrupt", in, err)
		}
	}
}

// FuzzDecode feeds arbitrary bytes to both decoders: they must fail
// cleanly, and whatever they accept must re-encode to a decodable value.
func FuzzDecode(f *testing.F) {
	for _, g := range fixtureGraphs(f) {
		f.Add(Encode(g))
		for _, r := range ReverseEntries(g) {
			f.Add(r.Value)
			break
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if g, err := Decode(b); err == nil {
			if _, err := Decode(Encode(g)); err != nil {
				t.Fatalf("re-decode: %v", err)
			}
		}
		_, _ = DecodeHeader(b) // must not panic either
		if s, err := DecodeSite("p", b); err == nil {
			if s.Path != "p" {
				t.Fatalf("site path %q", s.Path)
			}
			name, kind, lang, err := PeekSite(b)
			if err != nil || string(name) != s.Call.Name || kind != s.Call.Recv.Kind || string(lang) != s.Lang {
				t.Fatalf("PeekSite = %q %v %q %v; DecodeSite %+v", name, kind, lang, err, s)
			}
		}
	})
}

// FuzzExtract parses arbitrary bytes as every supported language: Extract
// must not panic and its output must keep its invariants and round-trip.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("package p\nfunc f() { g(); x.y.z() }\n"))
	f.Add([]byte("from . import a\nclass C(B):\n  def m(self): self.x.y()\n"))
	f.Add([]byte("import d from './x'; export default function f() { new A().b(); d(); }"))
	f.Add([]byte("package p\nfunc (\xff) f() { \xfe.\xfd() }"))
	f.Add([]byte("use crate::a::{b, c as d}; fn f() { d(); a::b::c(); }"))
	f.Add([]byte("local m = require('a.b')\nlocal M = {}\nfunction M:f(x) self:g(); m.h().i:j(); require'c'.d() end\n" +
		"describe('x', function() local o = setmetatable({}, M) it('y', function() o:f() end) end)\nreturn M\n"))
	var langs []*symbols.Language
	for _, l := range symbols.All() {
		if l.HasGrammar() && Supported(l.Name) {
			langs = append(langs, l)
		}
	}
	p := symbols.NewParser()
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<14 {
			return
		}
		for _, l := range langs {
			file, err := p.Parse(context.Background(), l, src)
			if err != nil {
				continue
			}
			g := Extract(file, "dir/file"+l.Extensions[0])
			graphtest.Check(t, g, file.Symbols, len(src))
			file.Close()
			back, err := Decode(Encode(g))
			if err != nil {
				t.Fatalf("%s: decode: %v", l.Name, err)
			}
			if !reflect.DeepEqual(normalize(g), normalize(back)) {
				t.Fatalf("%s: round trip differs", l.Name)
			}
			for _, r := range ReverseEntries(g) {
				if _, err := DecodeSite("p", r.Value); err != nil {
					t.Fatalf("%s: site: %v", l.Name, err)
				}
			}
		}
	})
}

// TestExtractCapsCalls checks that a generated file with more call sites
// than MaxCallsPerFile keeps the first MaxCallsPerFile.
func TestExtractCapsCalls(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nfunc f() {\n")
	for i := 0; i < MaxCallsPerFile+10; i++ {
		b.WriteString("\tg()\n")
	}
	b.WriteString("}\n\nfunc g() {}\n")
	f, g := graphtest.Parse(t, "p/p.go", []byte(b.String()))
	_ = f
	if len(g.Calls) != MaxCallsPerFile {
		t.Fatalf("calls = %d, want %d", len(g.Calls), MaxCallsPerFile)
	}
}

// normalize makes nil and empty slices compare equal.
func normalize(g *FileGraph) *FileGraph {
	c := *g
	ClearMemberAt(&c)
	for i := range c.Calls {
		if len(c.Calls[i].Recv.Fields) == 0 {
			c.Calls[i].Recv.Fields = nil
		}
	}
	return &c
}
