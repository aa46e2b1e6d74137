package search

import (
	"reflect"
	"testing"
)

func terms(s string) []string {
	var out []string
	Terms([]byte(s), func(t string, start, end int) { out = append(out, t) })
	return out
}

func TestTerms(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"QueryEscape", []string{"queryescape", "queri", "escap"}},
		{"read_file(path)", []string{"read_file", "read", "file", "path"}},
		{"HTTPServer", []string{"httpserver", "http", "server"}},
		{"utf8Valid", []string{"utf8valid", "utf", "valid"}},
		{"base64", []string{"base64", "base", "64"}},
		{"the waiting goroutines", []string{"wait", "goroutin"}},
		{"a b __ _x_", []string{}},
		{"naïve Über", []string{"naïve", "über"}},
	}
	for _, c := range cases {
		got := terms(c.in)
		if got == nil {
			got = []string{}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTermsOffsets(t *testing.T) {
	src := "x := fooBar"
	Terms([]byte(src), func(term string, start, end int) {
		if start < 0 || end > len(src) || start >= end {
			t.Fatalf("bad range %d-%d for %q", start, end, term)
		}
	})
}

func FuzzTerms(f *testing.F) {
	f.Add([]byte("func (b *Builder) WriteString(s string) (int, error)"))
	f.Add([]byte{0xff, 0xfe, 'a', 'B'})
	f.Fuzz(func(t *testing.T, b []byte) {
		Terms(b, func(term string, start, end int) {
			if term == "" || start < 0 || end > len(b) || start > end {
				t.Fatalf("bad term %q %d-%d", term, start, end)
			}
		})
	})
}

func TestNameParts(t *testing.T) {
	for in, want := range map[string][]string{
		"ParseMultipartForm": {"pars", "multipart", "form"},
		"read_file":          {"read", "file"},
		"Interfaces":         {"interfac"},
		"utf8":               {"utf"},
		"HTTPServer":         {"http", "server"},
		"_":                  nil,
	} {
		if got := NameParts(in); !reflect.DeepEqual(got, want) {
			t.Errorf("NameParts(%q) = %q, want %q", in, got, want)
		}
	}
}
