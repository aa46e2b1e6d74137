package chunking

import (
	"bytes"
	"fmt"
)

// yaml chunks a YAML file by top-level key (see Text).
func (d *doc) yaml() []Chunk {
	n := d.numLines()
	var entries []span
	item := 0 // index of the next top-level sequence item in this document
	lead := -1
	for l := 0; l < n; l++ {
		b := d.line(l)
		switch {
		case len(b) == 0 || isSpace(b[0]):
			if blankBytes(b) {
				lead = -1 // a blank line detaches comments from what follows
			}
			continue
		case b[0] == '#' || b[0] == '%' || yamlDocMarker(b):
			if yamlDocMarker(b) {
				item = 0
			}
			if lead < 0 {
				lead = l
			}
			continue
		}
		label, ok := yamlKey(b)
		if !ok && b[0] == '-' && (len(b) == 1 || b[1] == ' ' || b[1] == '\t') {
			label, ok = fmt.Sprintf("[%d]", item), true
			item++
		}
		if !ok {
			lead = -1
			continue // a line that continues the current entry
		}
		start := l
		if lead >= 0 {
			start = lead
		}
		entries = append(entries, span{first: start, label: label})
		lead = -1
	}
	return d.entries(KindYAMLKey, entries, d.yamlCuts)
}

// yamlDocMarker reports a document start ("---") or end ("...") line.
func yamlDocMarker(b []byte) bool {
	if len(b) < 3 || (!bytes.HasPrefix(b, []byte("---")) && !bytes.HasPrefix(b, []byte("..."))) {
		return false
	}
	return len(b) == 3 || b[3] == ' ' || b[3] == '\t'
}

// yamlKey parses a top-level "key:" line and returns the key without quotes.
func yamlKey(b []byte) (string, bool) {
	switch b[0] {
	case '[', '{', '|', '>', '!', '&', '*', '@', '`':
		return "", false
	case '-':
		if len(b) == 1 || b[1] == ' ' || b[1] == '\t' {
			return "", false // a sequence item
		}
	}
	if b[0] == '?' && (len(b) == 1 || b[1] == ' ') {
		return string(bytes.TrimSpace(b[1:])), true // complex key
	}
	if b[0] == '"' || b[0] == '\'' {
		q := b[0]
		for i := 1; i < len(b); i++ {
			if b[i] == '\\' && q == '"' {
				i++
				continue
			}
			if b[i] == q {
				if q == '\'' && i+1 < len(b) && b[i+1] == '\'' {
					i++
					continue
				}
				rest := bytes.TrimLeft(b[i+1:], " \t")
				if len(rest) > 0 && rest[0] == ':' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t') {
					return string(b[1:i]), true
				}
				return "", false
			}
		}
		return "", false
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ':':
			if i+1 == len(b) || b[i+1] == ' ' || b[i+1] == '\t' {
				return string(bytes.TrimRight(b[:i], " \t")), true
			}
		case '#':
			if i > 0 && (b[i-1] == ' ' || b[i-1] == '\t') {
				return "", false // a comment before any key separator
			}
		}
	}
	return "", false
}

// yamlCuts proposes cut points inside an entry: the lines at the entry's
// smallest child indentation (second-level keys and items).
func (d *doc) yamlCuts(a, b int) []int {
	ind := -1
	for l := a + 1; l < b; l++ {
		if d.blank(l) || bytes.HasPrefix(bytes.TrimLeft(d.line(l), " \t"), []byte("#")) {
			continue
		}
		if k := d.indent(l); k > 0 && (ind < 0 || k < ind) {
			ind = k
		}
	}
	return d.lineCuts(a, b, func(l int) bool {
		return !d.blank(l) && d.indent(l) == ind
	})
}

// entries emits one chunk per entry, an entry running to the next entry's
// first line; the lines before the first entry are labelled with the file
// name. An entry above MaxTokens is packed from the units between cuts(a, b)
// (lines [a, b)), then lines, then bytes.
func (d *doc) entries(kind string, es []span, cuts func(a, b int) []int) []Chunk {
	n := d.numLines()
	for i := range es {
		es[i].end = n
		if i+1 < len(es) {
			es[i].end = es[i+1].first
		}
	}
	first := n
	if len(es) > 0 {
		first = es[0].first
	}
	all := append([]span{{first: 0, end: first, label: d.fileLabel()}}, es...)
	var out []Chunk
	for _, e := range all {
		if e.first >= e.end {
			continue
		}
		s, t := d.lines[e.first], d.lineStart(e.end)
		if d.units(s, t) <= d.opts.MaxTokens*tokenUnit {
			if c, ok := d.emit(kind, e.label, s, t); ok {
				out = append(out, c)
			}
			continue
		}
		out = append(out, d.parts(kind, e.label, d.entryContext(e), d.pack(s, t, cuts(e.first, e.end), packing{}))...)
	}
	return out
}

// entryContext is the first line of an entry that is neither blank nor a
// comment: the key line or table header.
func (d *doc) entryContext(e span) string {
	for l := e.first; l < e.end; l++ {
		t := bytes.TrimSpace(d.line(l))
		if len(t) > 0 && t[0] != '#' {
			return string(t)
		}
	}
	return ""
}
