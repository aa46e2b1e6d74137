package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/context-ls/context-ls/internal/logcap"
	"github.com/context-ls/context-ls/lsp/session"
	"go.lsp.dev/protocol"
)

// logger writes to stderr through slog and, filtered by the logLevel
// setting, to the client as window/logMessage. stdout is never touched.
type logger struct {
	// base logs with every value bounded (logcap); raw, unbounded, only
	// the stacks of panics.
	base, raw *slog.Logger
	// level is the client filter; it also filters stderr when the server
	// built its own stderr handler.
	level *slog.LevelVar
	// send delivers window/logMessage; nil until the connection exists.
	send func(method string, params any) error
}

func newLogger(base *slog.Logger, stderr interface{ Write([]byte) (int, error) }) *logger {
	lv := new(slog.LevelVar)
	lv.Set(slog.LevelInfo)
	if base == nil {
		base = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lv}))
	}
	return &logger{base: slog.New(logcap.Handler(base.Handler())), raw: base, level: lv}
}

// setLevel changes the filter.
func (l *logger) setLevel(level session.LogLevel) { l.level.Set(level.SlogLevel()) }

// log writes one record to stderr and, when its level passes the filter,
// to the client.
func (l *logger) log(level slog.Level, msg string, args ...any) {
	l.base.Log(context.Background(), level, msg, args...)
	if l.send == nil || level < l.level.Level() {
		return
	}
	_ = l.send("window/logMessage", protocol.LogMessageParams{Type: messageType(level), Message: formatRecord(msg, args...)})
}

// Debug, Info, Warn and Error log at their level (jsonrpc.Logger).
func (l *logger) Debug(msg string, args ...any) { l.log(slog.LevelDebug, msg, args...) }
func (l *logger) Info(msg string, args ...any)  { l.log(slog.LevelInfo, msg, args...) }
func (l *logger) Warn(msg string, args ...any)  { l.log(slog.LevelWarn, msg, args...) }
func (l *logger) Error(msg string, args ...any) { l.log(slog.LevelError, msg, args...) }

// Panicked logs a recovered panic with its stack: always to stderr and
// always to the client as an Error message, whatever the filter.
func (l *logger) Panicked(where string, value any, stack []byte) {
	l.raw.Error("panic recovered", "in", where, "panic", fmt.Sprint(value), "stack", string(stack))
	if l.send != nil {
		_ = l.send("window/logMessage", protocol.LogMessageParams{
			Type:    protocol.MessageTypeError,
			Message: fmt.Sprintf("context-ls: panic in %s: %v\n%s", where, value, stack),
		})
	}
}

func messageType(level slog.Level) protocol.MessageType {
	switch {
	case level >= slog.LevelError:
		return protocol.MessageTypeError
	case level >= slog.LevelWarn:
		return protocol.MessageTypeWarning
	case level >= slog.LevelInfo:
		return protocol.MessageTypeInfo
	default:
		return protocol.MessageTypeLog
	}
}

// formatRecord renders a message and its key/value pairs as one line,
// each value bounded (logcap).
func formatRecord(msg string, args ...any) string {
	if len(args) == 0 {
		return logcap.String(msg)
	}
	var b strings.Builder
	b.WriteString(logcap.String(msg))
	r := slog.NewRecord(time.Time{}, 0, msg, 0)
	r.Add(args...)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%s", a.Key, logcap.String(a.Value.String()))
		return true
	})
	return b.String()
}
