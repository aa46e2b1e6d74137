package lsp

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func TestMapperPositionOffset(t *testing.T) {
	tests := []struct {
		name string
		text string
		pos  protocol.Position
		want int
	}{
		{"start", "abc", pos(0, 0), 0},
		{"ascii", "abc\ndef", pos(1, 2), 6},
		{"past line end clamps", "abc\ndef", pos(0, 99), 3},
		{"past line end clamps before CRLF", "abc\r\ndef", pos(0, 99), 3},
		{"line past EOF clamps to EOF", "abc\ndef", pos(7, 0), 7},
		{"last empty line", "abc\n", pos(1, 0), 4},
		{"2-byte rune", "é!", pos(0, 1), 2},
		{"3-byte rune", "€!", pos(0, 1), 3},
		{"surrogate pair", "😀!", pos(0, 2), 4},
		{"inside a surrogate pair rounds down", "😀!", pos(0, 1), 0},
		{"after emoji and CJK", "a😀中b", pos(0, 4), 8},
		{"CRLF line 2", "a\r\nb\r\nc", pos(2, 1), 7},
		{"lone CR is a line break", "a\rb", pos(1, 0), 2},
		{"CR LF CR", "a\r\n\rb", pos(2, 1), 5},
		{"invalid byte counts as one unit", "a\xffb", pos(0, 2), 2},
		{"empty text", "", pos(3, 3), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMapper([]byte(tc.text))
			if got := m.PositionOffset(tc.pos); got != tc.want {
				t.Errorf("PositionOffset(%v) = %d, want %d", tc.pos, got, tc.want)
			}
		})
	}
}

func TestMapperOffsetPosition(t *testing.T) {
	tests := []struct {
		name string
		text string
		off  int
		want protocol.Position
	}{
		{"start", "abc", 0, pos(0, 0)},
		{"end", "abc", 3, pos(0, 3)},
		{"next line", "abc\ndef", 5, pos(1, 1)},
		{"at LF", "abc\ndef", 3, pos(0, 3)},
		{"inside CRLF maps to line end", "abc\r\ndef", 4, pos(0, 3)},
		{"after emoji", "😀x", 4, pos(0, 2)},
		{"inside emoji rounds down", "😀x", 2, pos(0, 0)},
		{"negative clamps", "abc", -5, pos(0, 0)},
		{"past end clamps", "ab\ncd", 99, pos(1, 2)},
		{"lone CR", "a\rb", 2, pos(1, 0)},
		{"after trailing newline", "a\n", 2, pos(1, 0)},
		{"invalid bytes", "\xff\xfe", 2, pos(0, 2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMapper([]byte(tc.text))
			if got := m.OffsetPosition(tc.off); got != tc.want {
				t.Errorf("OffsetPosition(%d) = %v, want %v", tc.off, got, tc.want)
			}
		})
	}
}

func TestMapperPoints(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		point Point
		want  protocol.Position
	}{
		{"byte column after emoji", "😀ab\n", Point{0, 5}, pos(0, 3)},
		{"second line", "x\n€y", Point{1, 3}, pos(1, 1)},
		{"column past line end clamps", "ab\ncd", Point{0, 9}, pos(0, 2)},
		{"line past EOF", "ab", Point{4, 0}, pos(0, 2)},
		{"CRLF: column at CR", "ab\r\ncd", Point{0, 2}, pos(0, 2)},
		// With a lone CR, engine line 1 (after '\n') is LSP line 2.
		{"lone CR: engine lines count LF only", "a\rb\nc", Point{1, 0}, pos(2, 0)},
		{"lone CR: byte column crosses the CR", "a\rb\nc", Point{0, 2}, pos(1, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMapper([]byte(tc.text))
			got := m.PointPosition(tc.point)
			if got != tc.want {
				t.Errorf("PointPosition(%v) = %v, want %v", tc.point, got, tc.want)
			}
			// Round trip back to a point at the same offset.
			back := m.PositionPoint(got)
			if m.PointOffset(back) != m.PositionOffset(got) {
				t.Errorf("round trip %v → %v → %v", tc.point, got, back)
			}
		})
	}
}

func TestMapperRoundTripAllOffsets(t *testing.T) {
	texts := []string{"", "a", "a\nb", "héllo\r\nwörld😀\r\n", "\r\r\n\n", "😀😀\n\t𝄞x", "a\xffb\xe2\x82\n"}
	for _, text := range texts {
		m := NewMapper([]byte(text))
		for off := 0; off <= len(text); off++ {
			p := m.OffsetPosition(off)
			back := m.PositionOffset(p)
			if back > off {
				t.Errorf("%q: offset %d → %v → %d (past the original)", text, off, p, back)
			}
			// Offsets at rune starts that are not inside a line break round trip.
			if utf8.RuneStart(byteAt(text, off)) && back != off && !inLineBreak(text, off) {
				t.Errorf("%q: offset %d → %v → %d", text, off, p, back)
			}
		}
	}
}

func byteAt(s string, i int) byte {
	if i >= len(s) {
		return 0
	}
	return s[i]
}

func inLineBreak(s string, off int) bool {
	return off > 0 && off < len(s) && s[off-1] == '\r' && s[off] == '\n'
}

func TestApplyChanges(t *testing.T) {
	r := func(l1, c1, l2, c2 uint32) *protocol.Range {
		return &protocol.Range{Start: pos(l1, c1), End: pos(l2, c2)}
	}
	tests := []struct {
		name    string
		text    string
		changes []ContentChange
		want    string
		wantErr error
	}{
		{"insert at start", "abc", []ContentChange{{Range: r(0, 0, 0, 0), Text: "X"}}, "Xabc", nil},
		{"full text", "abc", []ContentChange{{Text: "new"}}, "new", nil},
		{"full then incremental", "abc", []ContentChange{{Text: "new"}, {Range: r(0, 3, 0, 3), Text: "!"}}, "new!", nil},
		{"delete emoji by its two units", "a😀b", []ContentChange{{Range: r(0, 1, 0, 3), Text: ""}}, "ab", nil},
		{"insert after emoji", "😀", []ContentChange{{Range: r(0, 2, 0, 2), Text: "x"}}, "😀x", nil},
		{"replace across CRLF", "ab\r\ncd", []ContentChange{{Range: r(0, 1, 1, 1), Text: "-"}}, "a-d", nil},
		{"delete a CRLF line break", "ab\r\ncd", []ContentChange{{Range: r(0, 2, 1, 0), Text: ""}}, "abcd", nil},
		{"position past line end clamps", "ab\ncd", []ContentChange{{Range: r(0, 50, 0, 60), Text: "!"}}, "ab!\ncd", nil},
		{"line past EOF clamps", "ab", []ContentChange{{Range: r(5, 0, 6, 0), Text: "\nz"}}, "ab\nz", nil},
		{"changes apply in order", "abc", []ContentChange{
			{Range: r(0, 0, 0, 1), Text: "😀"},
			{Range: r(0, 2, 0, 2), Text: "|"},
		}, "😀|bc", nil},
		{"insert newline then edit the new line", "ab", []ContentChange{
			{Range: r(0, 1, 0, 1), Text: "\r\n"},
			{Range: r(1, 0, 1, 1), Text: "B"},
		}, "a\r\nB", nil},
		{"lone CR", "a\rb", []ContentChange{{Range: r(1, 0, 1, 1), Text: "B"}}, "a\rB", nil},
		{"end before start", "abc", []ContentChange{{Range: r(0, 2, 0, 1), Text: ""}}, "", ErrBadRange},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := []byte(tc.text)
			got, err := ApplyChanges(orig, tc.changes)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if string(orig) != tc.text {
				t.Errorf("input modified: %q", orig)
			}
		})
	}
}

// runeModel is an independent model of a document: a []rune with LSP line
// and UTF-16 rules implemented directly on runes.
type runeModel []rune

// offset converts a position the way the LSP specifies, on runes.
func (m runeModel) offset(line, char int) int {
	i, l := 0, 0
	for l < line {
		for i < len(m) && m[i] != '\n' && m[i] != '\r' {
			i++
		}
		if i == len(m) {
			return len(m)
		}
		if m[i] == '\r' && i+1 < len(m) && m[i+1] == '\n' {
			i++
		}
		i++
		l++
	}
	units := 0
	for i < len(m) && m[i] != '\n' && m[i] != '\r' {
		n := len(utf16.Encode([]rune{m[i]}))
		if units+n > char {
			break
		}
		units += n
		i++
	}
	return i
}

// edits from fuzz bytes: each edit takes 5 bytes (line, char, line, char,
// text choice).
var fuzzTexts = []string{"", "a", "é", "€", "😀", "𝄞z", "\n", "\r\n", "\r", "xy\nz", "😀\r\n😀"}

func FuzzIncrementalEdits(f *testing.F) {
	f.Add("hello\nworld", []byte{0, 1, 0, 3, 4, 1, 0, 1, 2, 7})
	f.Add("a😀b\r\nc", []byte{0, 1, 0, 2, 0, 0, 3, 0, 9, 8, 1, 1, 1, 1, 6})
	f.Add("", []byte{3, 3, 0, 0, 10, 0, 0, 9, 9, 5})
	f.Add("\r\r\n\n", []byte{1, 0, 2, 0, 8, 0, 0, 0, 0, 7})
	f.Fuzz(func(t *testing.T, initial string, script []byte) {
		if !utf8.ValidString(initial) {
			return // didOpen text arrives as a JSON string: always valid UTF-8
		}
		// Keep each execution cheap: the work is quadratic in these sizes.
		if len(initial) > 4096 {
			initial = initial[:4096]
			for !utf8.ValidString(initial) {
				initial = initial[:len(initial)-1]
			}
		}
		if len(script) > 5*64 {
			script = script[:5*64]
		}
		text := []byte(initial)
		model := runeModel([]rune(initial))
		for len(script) >= 5 {
			l1, c1, l2, c2 := int(script[0]%8), int(script[1]%12), int(script[2]%8), int(script[3]%12)
			ins := fuzzTexts[int(script[4])%len(fuzzTexts)]
			script = script[5:]
			s, e := model.offset(l1, c1), model.offset(l2, c2)
			ch := ContentChange{Range: &protocol.Range{Start: pos(uint32(l1), uint32(c1)), End: pos(uint32(l2), uint32(c2))}, Text: ins}
			next, err := ApplyChanges(text, []ContentChange{ch})
			if e < s {
				if !errors.Is(err, ErrBadRange) {
					t.Fatalf("range %d:%d-%d:%d on %q: got %v, want ErrBadRange", l1, c1, l2, c2, text, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("range %d:%d-%d:%d on %q: %v", l1, c1, l2, c2, text, err)
			}
			model = append(append(append(runeModel{}, model[:s]...), []rune(ins)...), model[e:]...)
			text = next
			if string(text) != string(model) {
				t.Fatalf("after %d:%d-%d:%d %q: bytes %q, model %q", l1, c1, l2, c2, ins, text, string(model))
			}
		}
		// Every offset maps to a position and back within the text.
		m := NewMapper(text)
		for off := 0; off <= len(text); off += 1 + len(text)/64 {
			if back := m.PositionOffset(m.OffsetPosition(off)); back > len(text) || back > off {
				t.Fatalf("offset %d maps back to %d in %q", off, back, text)
			}
		}
	})
}

func FuzzMapper(f *testing.F) {
	f.Add([]byte("a😀\r\nb\rc\xff"), uint32(1), uint32(1), 3)
	f.Fuzz(func(t *testing.T, text []byte, line, char uint32, off int) {
		m := NewMapper(text)
		o := m.PositionOffset(pos(line, char))
		if o < 0 || o > len(text) {
			t.Fatalf("PositionOffset out of range: %d", o)
		}
		p := m.OffsetPosition(off)
		if int(p.Line) >= m.LineCount() {
			t.Fatalf("line %d of %d", p.Line, m.LineCount())
		}
		pt := m.OffsetPoint(o)
		if back := m.PointOffset(pt); back != o {
			t.Fatalf("point round trip %d → %v → %d", o, pt, back)
		}
	})
}

func BenchmarkMapper(b *testing.B) {
	line := "\tfunc (s *server) handle(ctx context.Context) error { return nil } // 😀 é\n"
	text := []byte(strings.Repeat(line, 20000)) // ~1.5 MB
	b.Run("NewMapper", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for i := 0; i < b.N; i++ {
			NewMapper(text)
		}
	})
	m := NewMapper(text)
	b.Run("PositionOffset", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			m.PositionOffset(pos(uint32(i%20000), 60))
		}
	})
	b.Run("OffsetPosition", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			m.OffsetPosition((i * 7919) % len(text))
		}
	})
	b.Run("ApplyChange", func(b *testing.B) {
		ch := []ContentChange{{Range: &protocol.Range{Start: pos(10000, 5), End: pos(10000, 6)}, Text: "x"}}
		b.SetBytes(int64(len(text)))
		for i := 0; i < b.N; i++ {
			if _, err := ApplyChanges(text, ch); err != nil {
				b.Fatal(err)
			}
		}
	})
}
