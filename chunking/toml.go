package chunking

import "bytes"

// tomlLexer tracks the state that can span lines in TOML: multi-line strings
// and arrays or inline tables left open.
type tomlLexer struct {
	ml    string // `"""` or `'''` while inside a multi-line string
	depth int    // open [ and { inside a value
}

// clean reports whether a line starting now begins a new statement.
func (x *tomlLexer) clean() bool { return x.ml == "" && x.depth == 0 }

// scan advances the state over one line.
func (x *tomlLexer) scan(b []byte) {
	for i := 0; i < len(b); i++ {
		if x.ml != "" {
			j := bytes.Index(b[i:], []byte(x.ml))
			if j < 0 {
				return
			}
			// Up to two extra quotes may close the string ("""a"""").
			k := i + j + 3
			for n := 0; n < 2 && k < len(b) && b[k] == x.ml[0]; n++ {
				k++
			}
			if x.ml == `"""` && escaped(b, i+j) {
				i += j
				continue
			}
			x.ml = ""
			i = k - 1
			continue
		}
		switch c := b[i]; c {
		case '#':
			return
		case '"', '\'':
			if bytes.HasPrefix(b[i:], []byte{c, c, c}) {
				x.ml = string([]byte{c, c, c})
				i += 2
				continue
			}
			for i++; i < len(b) && b[i] != c; i++ {
				if c == '"' && b[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			x.depth++
		case ']', '}':
			if x.depth > 0 {
				x.depth--
			}
		}
	}
}

// escaped reports whether b[i] is preceded by an odd number of backslashes.
func escaped(b []byte, i int) bool {
	n := 0
	for i > 0 && b[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// tomlHeader parses a "[table]" or "[[array.of.tables]]" line and returns it
// without the trailing comment.
func tomlHeader(b []byte) (string, bool) {
	t := bytes.TrimSpace(b)
	if len(t) < 3 || t[0] != '[' {
		return "", false
	}
	double := t[1] == '['
	i := 1
	if double {
		i = 2
	}
	// The name: bare keys, quoted keys, dots and spaces up to the bracket.
	for i < len(t) && t[i] != ']' {
		switch c := t[i]; {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(t) && t[j] != c {
				if c == '"' && t[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(t) {
				return "", false
			}
			i = j + 1
		case c == '.' || c == ' ' || c == '\t' || c == '_' || c == '-' ||
			(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'):
			i++
		default:
			return "", false
		}
	}
	end := i + 1
	if double {
		if end >= len(t) || t[end] != ']' {
			return "", false
		}
		end++
	}
	if end > len(t) || len(bytes.TrimSpace(t[1:i])) == 0 {
		return "", false
	}
	rest := bytes.TrimSpace(t[end:])
	if len(rest) > 0 && rest[0] != '#' {
		return "", false
	}
	return string(t[:end]), true
}

// toml chunks a TOML file by table (see Text).
func (d *doc) toml() []Chunk {
	var x tomlLexer
	var entries []span
	var keyLines []bool // lines starting a key/value pair at depth 0
	lead := -1
	for l := 0; l < d.numLines(); l++ {
		b := d.line(l)
		clean := x.clean()
		keyLines = append(keyLines, false)
		if clean {
			t := bytes.TrimSpace(b)
			switch {
			case len(t) == 0:
				lead = -1
				continue
			case t[0] == '#':
				if lead < 0 {
					lead = l
				}
				continue
			}
			if name, ok := tomlHeader(b); ok {
				start := l
				if lead >= 0 {
					start = lead
				}
				entries = append(entries, span{first: start, label: name})
				lead = -1
				continue
			}
			keyLines[l] = true
		}
		lead = -1
		x.scan(b)
	}
	return d.entries(KindTOMLTable, entries, func(a, b int) []int {
		return d.lineCuts(a, b, func(l int) bool { return keyLines[l] })
	})
}
