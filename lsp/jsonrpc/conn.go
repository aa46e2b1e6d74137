package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/context-ls/context-ls/internal/logcap"
)

// Framing limits.
const (
	// DefaultMaxMessageBytes bounds one message body unless
	// Options.MaxMessageBytes says otherwise.
	DefaultMaxMessageBytes = 128 << 20
	// maxHeaderLine bounds one header line; longer lines are framing errors.
	maxHeaderLine = 4096
)

// Transport errors. errFraming and errTooLarge are recoverable: the reader
// has consumed the bad frame and the next read starts at the next one.
var (
	errFraming  = errors.New("bad message framing")
	errTooLarge = errors.New("message too large")
	// errConnClosed is returned by writes and calls after the connection
	// has been closed.
	errConnClosed = errors.New("connection closed")
)

// frameReader reads Content-Length framed message bodies.
type frameReader struct {
	r   *bufio.Reader
	max int64
}

func newFrameReader(r io.Reader, max int64) *frameReader {
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next message body. skipped describes garbage that was
// dropped before a good frame (empty when there was none). Errors wrapping
// errFraming or errTooLarge leave the reader positioned after the bad frame;
// any other error (io.EOF included) means the stream is unusable.
//
// Resynchronisation: a line that is not a "Name: value" header is garbage;
// if it contains "Content-Length:" the header is taken from there (a body
// sent without a header runs into the next header line, which has no line
// break before it), otherwise it is dropped and the header block restarts.
func (fr *frameReader) next() (body []byte, skipped string, err error) {
	length := int64(-1)
	var problems []string
	sawHeader, badLength := false, false
	for {
		line, err := fr.readLine()
		if err != nil {
			if errors.Is(err, errFraming) {
				problems = append(problems, err.Error())
				length, sawHeader, badLength = -1, false, false
				continue
			}
			if errors.Is(err, io.EOF) && (sawHeader || len(problems) > 0) {
				return nil, "", fmt.Errorf("stream ended inside a message header: %w", io.ErrUnexpectedEOF)
			}
			return nil, "", err
		}
		if line == "" {
			if !sawHeader && len(problems) == 0 {
				// Blank lines between messages are tolerated.
				continue
			}
			if !sawHeader {
				// A blank line after garbage only: keep looking.
				continue
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isHeaderToken(name) {
			k := indexFold(line, "content-length:")
			if k <= 0 {
				problems = append(problems, fmt.Sprintf("invalid header line %q", logcap.Clip(line, 60)))
				length, sawHeader, badLength = -1, false, false
				continue
			}
			problems = append(problems, fmt.Sprintf("%d bytes of garbage before a header", k))
			length, sawHeader, badLength = -1, false, false
			name, value, _ = strings.Cut(line[k:], ":")
		}
		sawHeader = true
		if strings.EqualFold(name, "Content-Length") {
			n, perr := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if perr != nil || n < 0 {
				problems = append(problems, fmt.Sprintf("invalid Content-Length %q", logcap.Clip(strings.TrimSpace(value), 40)))
				badLength = true
				continue
			}
			length = n
		}
		// Other headers (Content-Type) are accepted and ignored.
	}
	note := strings.Join(problems, "; ")
	if badLength {
		return nil, "", fmt.Errorf("%w: %s", errFraming, note)
	}
	if length < 0 {
		if note != "" {
			note += "; "
		}
		return nil, "", fmt.Errorf("%w: %smissing Content-Length header", errFraming, note)
	}
	if length > fr.max {
		if _, err := io.CopyN(io.Discard, fr.r, length); err != nil {
			return nil, "", fmt.Errorf("discarding oversized body: %w", err)
		}
		return nil, note, fmt.Errorf("%w: body of %d bytes exceeds the limit of %d", errTooLarge, length, fr.max)
	}
	body = make([]byte, length)
	if _, err := io.ReadFull(fr.r, body); err != nil {
		return nil, "", fmt.Errorf("reading %d-byte message body: %w", length, err)
	}
	return body, note, nil
}

// isHeaderToken reports whether s is an HTTP header field name.
func isHeaderToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// indexFold is strings.Index ignoring the ASCII case of s; lowerSubstr
// must be lower-case ASCII.
func indexFold(s, lowerSubstr string) int {
	n := len(lowerSubstr)
	for i := 0; i+n <= len(s); i++ {
		match := true
		for j := 0; j < n; j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lowerSubstr[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// readLine reads one header line without its terminator (CRLF or LF).
func (fr *frameReader) readLine() (string, error) {
	var buf []byte
	for {
		chunk, err := fr.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(buf) > maxHeaderLine {
				// Discard the rest of the overlong line.
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = fr.r.ReadSlice('\n')
				}
				if err != nil {
					return "", err
				}
				return "", fmt.Errorf("%w: header line longer than %d bytes", errFraming, maxHeaderLine)
			}
			continue
		}
		if len(buf) > 0 && errors.Is(err, io.EOF) {
			return "", fmt.Errorf("stream ended inside a header line: %w", io.ErrUnexpectedEOF)
		}
		return "", err
	}
	if len(buf) > maxHeaderLine {
		return "", fmt.Errorf("%w: header line longer than %d bytes", errFraming, maxHeaderLine)
	}
	return string(bytes.TrimRight(buf, "\r\n")), nil
}

// requestID is a JSON-RPC request id: an integer of any size or a string.
// Numeric ids are kept as their decimal text, so ids beyond int64 survive
// the round trip and compare exactly.
type requestID struct {
	raw string // JSON text to echo in replies
	key string // canonical form: "n:<decimal>" or "s:<string>"
}

// errBadID reports an id that is neither an integer nor a string.
var errBadID = errors.New("id must be an integer or a string")

// parseID decodes a JSON id. Integers are canonicalised (leading zeros and
// a zero fraction such as "7.0" are accepted); fractions, exponents, null,
// booleans, arrays and objects are rejected with errBadID.
func parseID(raw json.RawMessage) (requestID, error) {
	t := strings.TrimSpace(string(raw))
	if t == "" {
		return requestID{}, errBadID
	}
	if t[0] == '"' {
		var s string
		if err := json.Unmarshal([]byte(t), &s); err != nil {
			return requestID{}, fmt.Errorf("%w: %w", errBadID, err)
		}
		return requestID{raw: t, key: "s:" + s}, nil
	}
	digits := t
	neg := false
	if strings.HasPrefix(digits, "-") {
		neg = true
		digits = digits[1:]
	}
	if i := strings.IndexByte(digits, '.'); i >= 0 {
		if strings.Trim(digits[i+1:], "0") != "" || i+1 == len(digits) {
			return requestID{}, fmt.Errorf("%w: %s has a fraction", errBadID, logcap.Clip(t, 40))
		}
		digits = digits[:i]
	}
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return requestID{}, fmt.Errorf("%w: got %s", errBadID, logcap.Clip(t, 40))
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		digits, neg = "0", false
	}
	if neg {
		digits = "-" + digits
	}
	return requestID{raw: t, key: "n:" + digits}, nil
}

// numberID returns a numeric id.
func numberID(n int64) requestID {
	s := strconv.FormatInt(n, 10)
	return requestID{raw: s, key: "n:" + s}
}

// String returns the id as it appeared on the wire.
func (id requestID) String() string { return id.raw }

// MarshalJSON echoes the id exactly as it was received.
func (id requestID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// wireIn is any incoming message before classification.
type wireIn struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// msgKind classifies an incoming message.
type msgKind int

const (
	kindRequest msgKind = iota + 1
	kindNotification
	kindResponse
)

// incoming is a validated incoming message.
type incoming struct {
	kind   msgKind
	id     requestID
	method string
	params json.RawMessage
	result json.RawMessage
	err    *ResponseError
}

// decodeMessage validates one message body. On failure it returns a
// *ResponseError to send back (ParseError or InvalidRequest) and the
// request id when one could be recovered (zero otherwise).
func decodeMessage(body []byte) (incoming, requestID, *ResponseError) {
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return incoming{}, requestID{}, &ResponseError{Code: CodeParseError, Message: "parse error: message body is not valid JSON"}
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		msg := "invalid request: message must be a JSON object"
		if len(trimmed) > 0 && trimmed[0] == '[' {
			msg = "invalid request: batch messages are not supported"
		}
		return incoming{}, requestID{}, &ResponseError{Code: CodeInvalidRequest, Message: msg}
	}
	var w wireIn
	if err := json.Unmarshal(trimmed, &w); err != nil {
		return incoming{}, requestID{}, &ResponseError{Code: CodeParseError, Message: "parse error: " + err.Error()}
	}
	var id requestID
	hasID := w.ID != nil
	if hasID {
		parsed, err := parseID(w.ID)
		if err != nil {
			return incoming{}, requestID{}, &ResponseError{Code: CodeInvalidRequest, Message: "invalid request: " + err.Error()}
		}
		id = parsed
	}
	invalid := func(format string, args ...any) (incoming, requestID, *ResponseError) {
		return incoming{}, id, &ResponseError{Code: CodeInvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, args...)}
	}
	var version string
	if w.JSONRPC == nil || json.Unmarshal(w.JSONRPC, &version) != nil || version != "2.0" {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if w.Method == nil {
		switch {
		case !hasID:
			return invalid("a message needs a method or an id")
		case w.Result == nil && w.Error == nil:
			return invalid(`a request needs a "method" (a response, a "result" or an "error")`)
		case w.Result != nil && w.Error != nil:
			return invalid("a response needs exactly one of result and error")
		}
		in := incoming{kind: kindResponse, id: id, result: w.Result}
		if w.Error != nil {
			var re ResponseError
			if err := json.Unmarshal(w.Error, &re); err != nil {
				re = ResponseError{Code: CodeInternalError, Message: "malformed error object from peer: " + err.Error()}
			}
			in.err = &re
		}
		return in, id, nil
	}
	var method string
	if err := json.Unmarshal(w.Method, &method); err != nil || method == "" {
		return invalid(`"method" must be a non-empty string`)
	}
	if w.Params != nil {
		p := bytes.TrimSpace(w.Params)
		if len(p) > 0 && p[0] != '{' && p[0] != '[' && string(p) != "null" {
			if hasID {
				return incoming{}, id, &ResponseError{Code: CodeInvalidParams, Message: "params: expected object or array"}
			}
			return invalid("params must be an object or an array")
		}
	}
	kind := kindNotification
	if hasID {
		kind = kindRequest
	}
	return incoming{kind: kind, id: id, method: method, params: w.Params}, id, nil
}

// wireRequest is an outgoing request or notification.
type wireRequest struct {
	JSONRPC string     `json:"jsonrpc"`
	ID      *requestID `json:"id,omitempty"`
	Method  string     `json:"method"`
	Params  any        `json:"params,omitempty"`
}

// wireResponse is an outgoing response. Result is always present on
// success (null included) and absent on error.
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      requestID       `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *ResponseError  `json:"error,omitempty"`
}

// conn is the framed JSON-RPC connection: a reader used by one goroutine,
// a writer serialized by a mutex, and the table of calls to the client
// awaiting their responses.
type conn struct {
	reader *frameReader

	wmu    sync.Mutex
	w      io.Writer
	closer io.Closer
	closed atomic.Bool

	nextID  atomic.Int64
	pmu     sync.Mutex
	pending map[string]chan incoming
}

func newConn(rwc io.ReadWriteCloser, maxBody int64) *conn {
	return &conn{
		reader:  newFrameReader(rwc, maxBody),
		w:       rwc,
		closer:  rwc,
		pending: make(map[string]chan incoming),
	}
}

// writeMessage marshals v and writes it as one frame.
func (c *conn) writeMessage(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	if c.closed.Load() {
		return errConnClosed
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	header := "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(c.w, header); err != nil {
		return fmt.Errorf("writing message header: %w", err)
	}
	if _, err := c.w.Write(body); err != nil {
		return fmt.Errorf("writing message body: %w", err)
	}
	return nil
}

// reply sends a response. A result that cannot be marshaled becomes an
// InternalError reply.
func (c *conn) reply(id requestID, result any, rerr *ResponseError) error {
	resp := wireResponse{JSONRPC: "2.0", ID: id}
	if rerr != nil {
		resp.Error = rerr
		return c.writeMessage(resp)
	}
	raw, err := json.Marshal(result)
	if err != nil {
		resp.Error = &ResponseError{Code: CodeInternalError, Message: "internal error: marshaling result: " + err.Error()}
		return c.writeMessage(resp)
	}
	resp.Result = raw
	return c.writeMessage(resp)
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	return c.writeMessage(wireRequest{JSONRPC: "2.0", Method: method, Params: params})
}

// call sends a request to the client and waits for its response or ctx.
// It must not be called from the reader goroutine.
func (c *conn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := numberID(c.nextID.Add(1))
	ch := make(chan incoming, 1)
	c.pmu.Lock()
	if c.pending == nil {
		c.pmu.Unlock()
		return nil, errConnClosed
	}
	c.pending[id.key] = ch
	c.pmu.Unlock()
	forget := func() {
		c.pmu.Lock()
		if c.pending != nil {
			delete(c.pending, id.key)
		}
		c.pmu.Unlock()
	}
	if err := c.writeMessage(wireRequest{JSONRPC: "2.0", ID: &id, Method: method, Params: params}); err != nil {
		forget()
		return nil, fmt.Errorf("sending %s: %w", method, err)
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: %w", method, errConnClosed)
		}
		if resp.err != nil {
			return nil, fmt.Errorf("%s: client replied: %w", method, resp.err)
		}
		return resp.result, nil
	case <-ctx.Done():
		forget()
		return nil, fmt.Errorf("%s: waiting for the client: %w", method, ctx.Err())
	}
}

// deliver hands a response to the call waiting for it; it reports false
// when no call waits for that id.
func (c *conn) deliver(in incoming) bool {
	c.pmu.Lock()
	ch, ok := c.pending[in.id.key]
	if ok {
		delete(c.pending, in.id.key)
	}
	c.pmu.Unlock()
	if ok {
		ch <- in
	}
	return ok
}

// close closes the stream and fails every pending call.
func (c *conn) close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.pmu.Lock()
	for _, ch := range c.pending {
		close(ch)
	}
	c.pending = nil
	c.pmu.Unlock()
	if err := c.closer.Close(); err != nil {
		return fmt.Errorf("closing stream: %w", err)
	}
	return nil
}
