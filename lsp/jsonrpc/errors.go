package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"
)

// ErrorCode is a JSON-RPC or LSP error code.
type ErrorCode int64

// Error codes used on the wire: those of JSON-RPC and LSP 3.16 as
// go.lsp.dev/jsonrpc2 defines them, and the LSP 3.17 codes it lacks.
// (That package's framing and request ids are not used: see the package
// comment.)
const (
	CodeParseError           = ErrorCode(jsonrpc2.ParseError)
	CodeInvalidRequest       = ErrorCode(jsonrpc2.InvalidRequest)
	CodeMethodNotFound       = ErrorCode(jsonrpc2.MethodNotFound)
	CodeInvalidParams        = ErrorCode(jsonrpc2.InvalidParams)
	CodeInternalError        = ErrorCode(jsonrpc2.InternalError)
	CodeServerNotInitialized = ErrorCode(jsonrpc2.ServerNotInitialized)
	CodeUnknownError         = ErrorCode(jsonrpc2.UnknownError)
	// CodeRequestFailed (LSP 3.17) answers a well-formed request that the
	// backend could not serve, and a request that ran past its deadline.
	CodeRequestFailed ErrorCode = -32803
	// CodeContentModified tells the client the document changed under the
	// request; it may retry.
	CodeContentModified ErrorCode = -32801
	// CodeRequestCancelled answers a request cancelled by $/cancelRequest.
	CodeRequestCancelled ErrorCode = -32800
)

// ResponseError is a JSON-RPC error object. Handlers may return one
// (directly or wrapped) to choose the code the client sees; any other error
// is answered with CodeRequestFailed and the error's text.
type ResponseError struct {
	Code    ErrorCode       `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements error.
func (e *ResponseError) Error() string {
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// ErrNotSupported is returned by a handler for a feature this server
// does not provide; the client sees MethodNotFound.
var ErrNotSupported = errors.New("not supported by this server")

// InvalidParams builds an InvalidParams error.
func InvalidParams(format string, args ...any) *ResponseError {
	return &ResponseError{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}
