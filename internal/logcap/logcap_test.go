package logcap

import (
	"bytes"
	"errors"
	"log/slog"
	"math/rand"
	"strings"
	"testing"
)

func TestStringBoundsAndFlattens(t *testing.T) {
	if got := String("plain path/to/file.go"); got != "plain path/to/file.go" {
		t.Fatalf("short clean value changed: %q", got)
	}
	got := String("a\nb\tc\x00d\xff")
	if strings.ContainsAny(got, "\n\t\x00") || !strings.Contains(got, `\n`) || !strings.Contains(got, `\xff`) {
		t.Fatalf("control characters and invalid UTF-8 not escaped: %q", got)
	}
	long := strings.Repeat("é", 1000)
	got = String(long)
	if len(got) > Max+32 || !strings.HasSuffix(got, "… (2000 bytes)") {
		t.Fatalf("long value: %d bytes, %q", len(got), got[len(got)-20:])
	}
}

// TestHandlerCapsEveryValue: a log record carrying a mebibyte of random
// bytes (as a string, an error, a byte slice, a group and a With
// attribute) is one short line.
func TestHandlerCapsEveryValue(t *testing.T) {
	raw := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(raw)
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewTextHandler(&buf, nil))).With("path", string(raw))
	log.Warn(string(raw[:4096]), "err", errors.New(string(raw)), "bytes", raw,
		slog.Group("req", "arg", string(raw)), "list", []string{string(raw)})
	out := buf.String()
	if n := strings.Count(out, "\n"); n != 1 {
		t.Fatalf("%d lines logged, want one", n)
	}
	if len(out) > 12*Max {
		t.Fatalf("log line of %d bytes for six capped values", len(out))
	}
}
