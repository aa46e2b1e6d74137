package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

// Codes classify service errors, so that each front end answers in its
// own terms (LSP InvalidParams, an MCP tool error naming the argument, CLI
// exit status 2) and a forwarded call's error survives the trip intact.
const (
	// CodeInvalid: an argument is wrong; Field names it. The caller can
	// fix the request.
	CodeInvalid = "invalid"
	// CodeNotFound: what the request names does not exist (no definition
	// of that name, no such job, a file that is not indexed).
	CodeNotFound = "notFound"
	// CodeUnavailable: the index cannot answer this now (embeddings off,
	// the disk is full, the index is being rebuilt); the message says why.
	CodeUnavailable = "unavailable"
	// CodeCancelled: the caller cancelled the request.
	CodeCancelled = "cancelled"
	// CodeFailed: anything else.
	CodeFailed = "failed"
)

// Sentinel errors matching every *Error of a code with errors.Is.
var (
	ErrInvalid     = &Error{Code: CodeInvalid}
	ErrNotFound    = &Error{Code: CodeNotFound}
	ErrUnavailable = &Error{Code: CodeUnavailable}
	ErrCancelled   = &Error{Code: CodeCancelled}
)

// Error is an error of an operation.
type Error struct {
	Code string `json:"code"`
	// Field is the argument at fault (CodeInvalid, and CodeNotFound when an
	// argument names the missing thing), in the request's JSON names.
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	// err is the underlying error (lost when forwarded).
	err error
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// Is matches sentinels by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Field == "" && t.Code == e.Code
}

func (e *Error) Unwrap() error { return e.err }

func invalid(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

func notFound(field, format string, args ...any) *Error {
	return &Error{Code: CodeNotFound, Field: field, Message: fmt.Sprintf(format, args...)}
}

func unavailable(err error, format string, args ...any) *Error {
	return &Error{Code: CodeUnavailable, Message: fmt.Sprintf(format, args...), err: err}
}

// classify turns an error of the engine about the argument field (value
// v) into an *Error with a code; errors that already are one pass.
func classify(field, v string, err error) error {
	if err == nil {
		return nil
	}
	var se *Error
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeCancelled, Message: err.Error(), err: err}
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Code: CodeNotFound, Field: field, Message: fmt.Sprintf("%q does not exist", v), err: err}
	case errors.Is(err, workspace.ErrOutsideWorkspace):
		return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf("%q is outside the workspace", v), err: err}
	case errors.Is(err, workspace.ErrTooLarge):
		return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf("%q is larger than the workspace's maxFileSize", v), err: err}
	case errors.Is(err, engine.ErrNotIndexed):
		return &Error{Code: CodeNotFound, Field: field, Message: fmt.Sprintf("%q is not indexed (excluded, an unsupported language, or not scanned yet)", v), err: err}
	case errors.Is(err, engine.ErrBadSelection):
		return &Error{Code: CodeInvalid, Field: "lines", Message: err.Error(), err: err}
	case errors.Is(err, engine.ErrDiskFull), errors.Is(err, engine.ErrDamaged):
		return &Error{Code: CodeUnavailable, Message: err.Error(), err: err}
	case errors.Is(err, engine.ErrNoEmbeddings):
		return &Error{Code: CodeUnavailable, Message: err.Error() + "; `context-ls doctor` says what is missing, or wait until stats report embeddings ready", err: err}
	}
	return &Error{Code: CodeFailed, Message: err.Error(), err: err}
}

// OneLine flattens an error message to a single line.
func OneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
