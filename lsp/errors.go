package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrorCode is a JSON-RPC or LSP error code.
type ErrorCode int64

// Error codes used on the wire.
const (
	CodeParseError           ErrorCode = -32700
	CodeInvalidRequest       ErrorCode = -32600
	CodeMethodNotFound       ErrorCode = -32601
	CodeInvalidParams        ErrorCode = -32602
	CodeInternalError        ErrorCode = -32603
	CodeServerNotInitialized ErrorCode = -32002
	CodeUnknownError         ErrorCode = -32001
	// CodeRequestFailed (LSP 3.17) answers a well-formed request that the
	// backend could not serve, and a request that ran past its deadline.
	CodeRequestFailed ErrorCode = -32803
	// CodeContentModified tells the client the document changed under the
	// request; it may retry.
	CodeContentModified ErrorCode = -32801
	// CodeRequestCancelled answers a request cancelled by $/cancelRequest.
	CodeRequestCancelled ErrorCode = -32800
)

// ResponseError is a JSON-RPC error object. Feature hooks may return one
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

// Sentinel errors of the feature layer, checked with errors.Is.
var (
	// ErrNotSupported is returned when the backend does not provide the
	// hook a request needs.
	ErrNotSupported = errors.New("not supported by this server")
	// ErrNoFolder is returned for a file outside every open workspace folder.
	ErrNoFolder = errors.New("file is outside the workspace folders")
	// ErrFolderUnavailable is returned for a folder that failed to open or
	// is still opening.
	ErrFolderUnavailable = errors.New("workspace folder is not available")
	// ErrUnsupportedURI is returned for a URI that is not a file URI.
	ErrUnsupportedURI = errors.New("unsupported URI")
)

// invalidParams builds an InvalidParams error.
func invalidParams(format string, args ...any) *ResponseError {
	return &ResponseError{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}
