package chunking

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repeatTo repeats the lines made by line(i) until src reaches size bytes.
func repeatTo(size int, head string, line func(i int) string) []byte {
	var b strings.Builder
	b.WriteString(head)
	for i := 0; b.Len() < size; i++ {
		b.WriteString(line(i))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func TestIsData(t *testing.T) {
	size := DataMinSize + 1000
	cases := []struct {
		name string
		src  []byte
		want bool
	}{
		{"register header", repeatTo(size, "/* registers */\n#ifndef X_H\n#define X_H\n", func(i int) string {
			return fmt.Sprintf("#define mmGRBM_STATUS_%d_MASK                                 0x%08xL /* field %d */", i, i*4, i)
		}), true},
		{"firmware table", repeatTo(size, "static const u32 table[] = {\n", func(i int) string {
			return fmt.Sprintf("\t{0x%08x, 0x%08x}, {0x40000000, 0x00000000},", i, i*7)
		}), true},
		{"register header with bit macros", repeatTo(size, "", func(i int) string {
			switch i % 3 {
			case 0:
				return fmt.Sprintf("#define R_AX_CTRL_%d 0x%04X", i, i*4)
			case 1:
				return fmt.Sprintf("#define B_AX_EN_%d BIT(%d)", i, i%32)
			}
			return fmt.Sprintf("#define B_AX_FIELD_%d_MASK GENMASK(%d, 0)", i, i%32)
		}), true},
		{"code calling macros", repeatTo(size, "", func(i int) string {
			return fmt.Sprintf("	val = rtw_read32_mask(rtwdev, R_AX_CTRL_%d, B_AX_EN | 0x%x);", i, i)
		}), false},
		{"enum of numbered constants", repeatTo(size, "typedef enum SEL {\n", func(i int) string {
			return fmt.Sprintf("FMT_BIT_DEPTH_CONTROL_SEL_%d = 0x%08x,", i, i)
		}), true},
		{"one huge literal line", []byte("package tz\n\nconst zipdata = \"" + strings.Repeat(`PK\x03\x04abc`, size/12) + "\"\n"), true},
		{"byte table on one line", []byte("package p\n\nvar table = [...]byte{" + strings.Repeat("0x85, 0x58, ", size/12) + "}\n"), true},
		{"code", repeatTo(size, "package p\n\n", func(i int) string {
			return fmt.Sprintf("func f%d(x int) int { return g(x, %d) + h(x) }", i, i)
		}), false},
		{"code with a table in it", repeatTo(size, "package p\n\n", func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf("\t{0x%04x, 0x%04x, 1},", i, i+1)
			}
			return fmt.Sprintf("func (s *server) handle%d(ctx context.Context, req *Request) error { return s.next.Do(ctx, req) }", i)
		}), false},
		{"small data file", repeatTo(DataMinSize/2, "", func(i int) string { return fmt.Sprintf("#define R%d 0x%x", i, i) }), false},
		{"comments only", repeatTo(size, "", func(i int) string { return fmt.Sprintf("// line %d 0x%x", i, i) }), false},
	}
	for _, c := range cases {
		if got := IsData(c.src); got != c.want {
			t.Errorf("%s (%d bytes): IsData = %v, want %v", c.name, len(c.src), got, c.want)
		}
	}
}

// TestIsDataGoStdlib: the standard library's hand-written code is never
// data, and its known generated tables are.
func TestIsDataGoStdlib(t *testing.T) {
	root := goStdlib(t)
	for rel, want := range map[string]bool{
		"time/tzdata/zzipdata.go":                      true,  // 1.3 MiB of string literal
		"crypto/internal/fips140/nistec/p256_table.go": true,  // 0.5 MiB of bytes on one line
		"vendor/golang.org/x/net/idna/tables15.0.0.go": false, // tables, but half of it is code and names
		"net/http/server.go":                           false,
		"cmd/compile/internal/ssa/rewriteAMD64.go":     false,
		"unicode/tables.go":                            false, // its named tables (Upper, Latin) are definitions people look up
		"runtime/proc.go":                              false,
		"go/parser/parser.go":                          false,
	} {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			continue // not in this Go version
		}
		if got := IsData(src); got != want {
			t.Errorf("%s: IsData = %v, want %v", rel, got, want)
		}
	}
}

func TestData(t *testing.T) {
	src := repeatTo(DataMinSize+1000, "", func(i int) string { return fmt.Sprintf("#define REG_%d 0x%04x", i, i) })
	src = append(src, []byte("#define LONG "+strings.Repeat("0x1, ", 2000)+"\n")...)
	opts := DefaultOptions()
	chunks := Data("regs.h", "c", src, opts)
	if len(chunks) < 2 {
		t.Fatalf("got %d chunks", len(chunks))
	}
	prevEnd := 0
	for i, c := range chunks {
		if c.Kind != KindData || c.Language != "c" || c.Path != "regs.h" {
			t.Fatalf("chunk %d: kind %q language %q path %q", i, c.Kind, c.Language, c.Path)
		}
		if c.Text != string(src[c.StartByte:c.EndByte]) {
			t.Fatalf("chunk %d: text is not src[%d:%d]", i, c.StartByte, c.EndByte)
		}
		if c.EndLine-c.StartLine+1 > opts.WindowLines {
			t.Fatalf("chunk %d: %d lines, more than a window", i, c.EndLine-c.StartLine+1)
		}
		if c.StartByte > prevEnd && strings.TrimSpace(string(src[prevEnd:c.StartByte])) != "" {
			t.Fatalf("chunk %d starts at %d, after text from %d no chunk holds", i, c.StartByte, prevEnd)
		}
		prevEnd = max(prevEnd, c.EndByte)
	}
	if strings.TrimSpace(string(src[prevEnd:])) != "" {
		t.Fatalf("chunks end at %d of %d bytes", prevEnd, len(src))
	}
	if got := Data("x.h", "c", append([]byte{0}, src...), opts); got != nil {
		t.Fatalf("a binary file gave %d chunks", len(got))
	}
}
