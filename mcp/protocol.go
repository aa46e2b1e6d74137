package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Protocol versions this server speaks, newest first. A client asking for
// one of them gets it; any other gets the newest.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// LatestProtocolVersion is the newest version this server speaks.
var LatestProtocolVersion = ProtocolVersions[0]

// negotiate picks the protocol version for a client's request.
func negotiate(requested string) string {
	for _, v := range ProtocolVersions {
		if v == requested {
			return v
		}
	}
	return LatestProtocolVersion
}

// versionAtLeast reports whether negotiated version v is v0 or newer (the
// versions are dates, so they compare as strings).
func versionAtLeast(v, v0 string) bool { return v >= v0 }

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// maxMessage bounds one incoming line (a snippet to find neighbours of can
// be large; nothing legitimate comes near this).
const maxMessage = 16 << 20

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// incoming is one decoded JSON-RPC message from the client.
type incoming struct {
	id     json.RawMessage // nil for a notification
	method string
	params json.RawMessage
	// isResponse marks a response to a server request (this server sends
	// none, so they are ignored).
	isResponse bool
}

// response is one JSON-RPC response.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

var nullID = json.RawMessage("null")

// parseMessage decodes one JSON-RPC message object. A returned *rpcError
// is to be answered with the returned id (null when unknown).
func parseMessage(raw json.RawMessage) (incoming, json.RawMessage, *rpcError) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return incoming{}, nullID, &rpcError{Code: codeInvalidRequest, Message: "invalid request: a JSON-RPC message is a JSON object"}
	}
	id, hasID := fields["id"]
	if hasID {
		id = bytes.TrimSpace(id)
		if len(id) == 0 || (id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
			return incoming{}, nullID, &rpcError{Code: codeInvalidRequest, Message: "invalid request: id must be a string or a number"}
		}
	}
	var version string
	if v, ok := fields["jsonrpc"]; !ok || json.Unmarshal(v, &version) != nil || version != "2.0" {
		return incoming{}, idOrNull(id), &rpcError{Code: codeInvalidRequest, Message: `invalid request: "jsonrpc" must be "2.0"`}
	}
	m, hasMethod := fields["method"]
	if !hasMethod {
		if _, ok := fields["result"]; ok && hasID {
			return incoming{id: id, isResponse: true}, nil, nil
		}
		if _, ok := fields["error"]; ok && hasID {
			return incoming{id: id, isResponse: true}, nil, nil
		}
		return incoming{}, idOrNull(id), &rpcError{Code: codeInvalidRequest, Message: `invalid request: "method" is missing`}
	}
	var method string
	if err := json.Unmarshal(m, &method); err != nil || method == "" {
		return incoming{}, idOrNull(id), &rpcError{Code: codeInvalidRequest, Message: `invalid request: "method" must be a non-empty string`}
	}
	params := bytes.TrimSpace(fields["params"])
	if len(params) > 0 && params[0] != '{' && params[0] != '[' && !bytes.Equal(params, []byte("null")) {
		return incoming{}, idOrNull(id), &rpcError{Code: codeInvalidRequest, Message: `invalid request: "params" must be an object or an array`}
	}
	in := incoming{method: method, params: params}
	if hasID {
		in.id = id
	}
	return in, nil, nil
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return nullID
	}
	return id
}

// lineReader reads newline-delimited messages of bounded size.
type lineReader struct {
	r *bufio.Reader
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReaderSize(r, 64<<10)} }

// errTooLarge reports a line longer than maxMessage (skipped entirely).
var errTooLarge = errors.New("message too large")

// next returns the next line without its newline. A line over maxMessage
// is consumed and reported as errTooLarge; io.EOF ends the stream (a last
// line without a newline is still returned).
func (lr *lineReader) next() ([]byte, error) {
	var buf []byte
	tooLarge := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if !tooLarge {
			if len(buf)+len(chunk) > maxMessage {
				tooLarge, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLarge {
				return nil, errTooLarge
			}
			return bytes.TrimRight(buf, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if tooLarge {
				return nil, errTooLarge
			}
			if len(bytes.TrimSpace(buf)) > 0 {
				return bytes.TrimRight(buf, "\r\n"), nil
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}
