// Package logcap bounds what a log line carries. Values from outside —
// file names, file content, request arguments, errors quoting them — can
// be of any size and hold newlines or control characters; through
// String or Handler each becomes at most Max bytes on one line, with the
// size of what was cut said.
package logcap

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Max is the most bytes of one logged value that are kept.
const Max = 256

// String returns s on one line (control characters escaped, invalid UTF-8
// replaced) and, when longer than Max bytes, cut to Max with the total
// size appended.
func String(s string) string {
	clean := len(s) <= Max && utf8.ValidString(s) && strings.IndexFunc(s, isControl) < 0
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if b.Len() >= Max {
			fmt.Fprintf(&b, "… (%d bytes)", len(s))
			return b.String()
		}
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i]), 16))
		case isControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// Clip returns s cut to at most n bytes on a rune boundary, with "…"
// appended when anything was cut: for a value quoted in a message.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// Handler returns a handler that passes every record to h with its
// message and attribute values bounded by String (errors and Stringers
// included).
func Handler(h slog.Handler) slog.Handler { return capHandler{h} }

type capHandler struct{ h slog.Handler }

func (c capHandler) Enabled(ctx context.Context, l slog.Level) bool { return c.h.Enabled(ctx, l) }

func (c capHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(capAttr(a))
		return true
	})
	return c.h.Handle(ctx, out)
}

func (c capHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	capped := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		capped[i] = capAttr(a)
	}
	return capHandler{c.h.WithAttrs(capped)}
}

func (c capHandler) WithGroup(name string) slog.Handler { return capHandler{c.h.WithGroup(name)} }

func capAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, String(v.String()))
	case slog.KindGroup:
		group := v.Group()
		capped := make([]any, len(group))
		for i, g := range group {
			capped[i] = capAttr(g)
		}
		return slog.Group(a.Key, capped...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, String(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, String(x.String()))
		case []byte:
			return slog.String(a.Key, String(string(x)))
		default:
			return slog.String(a.Key, String(fmt.Sprint(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
