package vectors

import (
	"errors"
	"fmt"
)

// Sentinel errors. Check them with errors.Is; the returned errors wrap them
// with the details (paths tried, file names, item indexes).
var (
	// ErrRuntimeUnavailable means the ONNX Runtime shared library could not
	// be found or could not be loaded.
	ErrRuntimeUnavailable = errors.New("onnx runtime unavailable")
	// ErrRuntimeNotFound means no ONNX Runtime library was found where
	// FindRuntime looks. It wraps ErrRuntimeUnavailable.
	ErrRuntimeNotFound = fmt.Errorf("%w: no ONNX Runtime library found", ErrRuntimeUnavailable)
	// ErrModelMissing means a model file is absent from the model directory.
	ErrModelMissing = errors.New("model file missing")
	// ErrUnknownModel means no registry entry has the requested name.
	ErrUnknownModel = errors.New("unknown model")
	// ErrChecksum means a file's size or sha256 differs from the pinned value.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrModelMismatch means a model file does not have the inputs, outputs
	// or dimension its ModelSpec declares.
	ErrModelMismatch = errors.New("model does not match its spec")
	// ErrTokenize means the tokenizer failed on an input text.
	ErrTokenize = errors.New("tokenizer failed")
	// ErrClosed means the Embedder was used after Close.
	ErrClosed = errors.New("embedder closed")
	// ErrDimension means a vector's length differs from the index dimension.
	ErrDimension = errors.New("vector dimension mismatch")
	// ErrCorruptVector means an encoded vector could not be decoded.
	ErrCorruptVector = errors.New("corrupt encoded vector")
)
