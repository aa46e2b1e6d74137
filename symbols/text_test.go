package symbols

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCollapseSpace(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  a \t b\n", "a b"},
		{"f(\n\ta int,\n\tb int,\n)", "f(a int, b int)"},
		{"[\n  1,\n  2\n]", "[1, 2]"},
		{"#define X(a) \\\n  (a)", "#define X(a) (a)"},
		{"#define X(a) \\\r\n  (a)", "#define X(a) (a)"},
		{"a\\b", "a\\b"},
		{"x = {\n}", "x = {}"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := CollapseSpace([]byte(tt.in)); got != tt.want {
			t.Errorf("CollapseSpace(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	if got := truncate("short", 10); got != "short" {
		t.Errorf("short: %q", got)
	}
	long := strings.Repeat("é", 200) // 400 bytes
	got := truncate(long, 301)
	if len(got) > 301 || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Errorf("truncate kept %d bytes, valid %v: %q", len(got), utf8.ValidString(got), got[len(got)-10:])
	}
}

func TestCommentText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/** One line. */", "One line."},
		{"/**\n * First.\n *\n * Second.\n */", "First.\n\nSecond."},
		{"/*\n     Indented first\n  second\n*/", "Indented first\nsecond"},
		{"/*! Qt style */", "Qt style"},
		{"/***/", ""},
	}
	for _, tt := range tests {
		if got := blockCommentText([]byte(tt.in)); got != tt.want {
			t.Errorf("blockCommentText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	lines := []struct {
		in      string
		markers []string
		want    string
	}{
		{"// Go doc", []string{"//"}, "Go doc"},
		{"/// Rust doc", []string{"///"}, "Rust doc"},
		{"//! inner", []string{"//"}, "inner"},
		{"## heading", []string{"#"}, "heading"},
		{"#", []string{"#"}, ""},
		{"//    indented code", []string{"//"}, "   indented code"},
	}
	for _, tt := range lines {
		if got := stripLineMarker(tt.in, tt.markers); got != tt.want {
			t.Errorf("stripLineMarker(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPythonStringValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"""Summary."""`, "Summary."},
		{"'''Summary.\n\n    Details here.\n      Indented.\n    '''", "Summary.\n\nDetails here.\n  Indented."},
		{`r"""Raw \d."""`, `Raw \d.`},
		{`'single'`, "single"},
		{"\"\"\"\n    Starts on the next line.\n    \"\"\"", "Starts on the next line."},
	}
	for _, tt := range tests {
		if got := pythonStringValue(tt.in); got != tt.want {
			t.Errorf("pythonStringValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCleanXMLDoc(t *testing.T) {
	in := "<summary>\nCreates a <see cref=\"Order\"/> for\n<paramref name=\"id\"/>.\n</summary>\n<param name=\"id\">The id.</param>"
	want := "Creates a Order for\nid.\n\nThe id."
	if got := cleanXMLDoc(in); got != want {
		t.Errorf("cleanXMLDoc = %q, want %q", got, want)
	}
}

func TestShebangInterpreter(t *testing.T) {
	tests := []struct{ in, want string }{
		{"#!/usr/bin/env python3\n", "python"},
		{"#!/usr/bin/python2.7", "python"},
		{"#! /bin/bash -e\n", "bash"},
		{"#!/usr/bin/env -S deno run\n", "deno"},
		{"#!/usr/bin/env\n", ""},
		{"# not a shebang", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := shebangInterpreter([]byte(tt.in)); got != tt.want {
			t.Errorf("shebangInterpreter(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
