// Package lsptest is a scripted LSP client for tests: it speaks
// Content-Length framed JSON-RPC over pipes, to a server running in the
// same process (Pipe) or to a real binary (Start), sends requests and
// notifications, answers the server's requests automatically, and lets a
// test wait for the notifications it expects (Await).
//
// It deliberately shares no code with package lsp, so that the framing of
// each side checks the other.
package lsptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Kind says what a received message is.
type Kind int

// Kinds of received messages.
const (
	// Notification is a notification from the server.
	Notification Kind = iota + 1
	// Request is a request from the server (answered automatically).
	Request
	// Response is a response that matches no call of this client, such as
	// an error reply with a null id.
	Response
)

// Message is one message received from the server, other than a response
// to one of the client's calls.
type Message struct {
	Kind   Kind
	Method string
	// ID is the raw id of a server request or unmatched response.
	ID     json.RawMessage
	Params json.RawMessage
	Result json.RawMessage
	Error  *RPCError
}

// Decode unmarshals the message's params into v.
func (m Message) Decode(v any) error {
	if err := json.Unmarshal(m.Params, v); err != nil {
		return fmt.Errorf("decoding %s params: %w", m.Method, err)
	}
	return nil
}

// RPCError is an error response.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements error.
func (e *RPCError) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// ErrClosed is returned when the server's stream ended.
var ErrClosed = errors.New("lsptest: server stream closed")

// Handler answers one server request: the result, or an error (an
// *RPCError keeps its code).
type Handler func(params json.RawMessage) (any, error)

// Client is a scripted LSP client. Its methods are safe for concurrent use.
type Client struct {
	w     io.Writer
	close func() error
	wmu   sync.Mutex

	nextID atomic.Int64

	mu       sync.Mutex
	pending  map[string]chan reply
	log      []Message
	consumed []bool
	changed  chan struct{}
	handlers map[string]Handler
	readErr  error
	done     chan struct{}

	cmd *exec.Cmd
}

type reply struct {
	result json.RawMessage
	err    *RPCError
}

// New starts a client reading the server's output from r and writing to
// w; closeFn (may be nil) is called by Close.
func New(r io.Reader, w io.Writer, closeFn func() error) *Client {
	c := &Client{
		w: w, close: closeFn,
		pending:  make(map[string]chan reply),
		changed:  make(chan struct{}),
		handlers: make(map[string]Handler),
		done:     make(chan struct{}),
	}
	go c.readLoop(bufio.NewReader(r))
	return c
}

// pipeEnd joins the two pipe halves a server uses.
type pipeEnd struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p *pipeEnd) Close() error {
	var errs []error
	for _, c := range p.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// Pipe returns a client and the server's end of an in-memory connection.
func Pipe() (*Client, io.ReadWriteCloser) {
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	server := &pipeEnd{Reader: toServerR, Writer: toClientW, closers: []io.Closer{toServerR, toClientW}}
	c := New(toClientR, toServerW, func() error { return toServerW.Close() })
	return c, server
}

// Start runs cmd with its stdin and stdout connected to a client; stderr
// is left as the caller set it.
func Start(cmd *exec.Cmd) (*Client, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("lsptest: stdin pipe: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("lsptest: stdout pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("lsptest: starting %s: %w", cmd.Path, err)
	}
	c := New(out, in, in.Close)
	c.cmd = cmd
	return c, nil
}

// Wait waits for a process started with Start to exit and returns its exit
// code.
func (c *Client) Wait() (int, error) {
	if c.cmd == nil {
		return 0, errors.New("lsptest: no process")
	}
	err := c.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return -1, fmt.Errorf("lsptest: waiting for the server: %w", err)
	}
	return 0, nil
}

// PID is the process id of a server started with Start (0 for none).
func (c *Client) PID() int {
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// Handle sets the answer to server requests of one method. Requests
// without a handler are answered with a null result.
func (c *Client) Handle(method string, h Handler) {
	c.mu.Lock()
	c.handlers[method] = h
	c.mu.Unlock()
}

// Close closes the client's output: the server sees the end of its input.
func (c *Client) Close() error {
	if c.close == nil {
		return nil
	}
	return c.close()
}

// Done is closed when the server's output ends.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns why the server's output ended (an error wrapping io.EOF for a
// clean end, another error for output that is not well-framed), or nil
// while it is still open.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// WriteRaw writes bytes as they are, without framing.
func (c *Client) WriteRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(b); err != nil {
		return fmt.Errorf("lsptest: write: %w", err)
	}
	return nil
}

// WriteFrame writes body with a correct Content-Length header.
func (c *Client) WriteFrame(body []byte) error {
	return c.WriteRaw(append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...))
}

func (c *Client) send(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("lsptest: marshal: %w", err)
	}
	return c.WriteFrame(body)
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Pending is a call in flight.
type Pending struct {
	c  *Client
	id json.RawMessage
	ch chan reply
}

// ID returns the call's raw JSON id.
func (p *Pending) ID() json.RawMessage { return p.id }

// Cancel sends $/cancelRequest for the call.
func (p *Pending) Cancel() error {
	return p.c.Notify("$/cancelRequest", map[string]json.RawMessage{"id": p.id})
}

// Wait waits for the response and decodes its result into result (unless
// nil). An error response is returned as *RPCError.
func (p *Pending) Wait(ctx context.Context, result any) error {
	select {
	case r, ok := <-p.ch:
		if !ok {
			return ErrClosed
		}
		if r.err != nil {
			return r.err
		}
		if result != nil {
			if err := json.Unmarshal(r.result, result); err != nil {
				return fmt.Errorf("lsptest: decoding result %s: %w", truncate(string(r.result), 200), err)
			}
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("lsptest: waiting for response %s: %w", p.id, ctx.Err())
	}
}

// Go sends a request with the next numeric id and returns without waiting.
func (c *Client) Go(method string, params any) (*Pending, error) {
	return c.GoWithID(json.RawMessage(strconv.FormatInt(c.nextID.Add(1), 10)), method, params)
}

// GoWithID sends a request with a caller-chosen raw JSON id (a number of
// any size or a string).
func (c *Client) GoWithID(id json.RawMessage, method string, params any) (*Pending, error) {
	key, err := idKey(id)
	if err != nil {
		return nil, err
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.pending[key] = ch
	c.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := c.send(msg); err != nil {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
		return nil, err
	}
	return &Pending{c: c, id: id, ch: ch}, nil
}

// Call sends a request and waits for its response (see Pending.Wait).
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	p, err := c.Go(method, params)
	if err != nil {
		return err
	}
	return p.Wait(ctx, result)
}

// Await returns the first received message that matches and that no
// earlier Await returned, waiting for it if needed.
func (c *Client) Await(ctx context.Context, match func(Message) bool) (Message, error) {
	for {
		c.mu.Lock()
		for i, m := range c.log {
			if !c.consumed[i] && match(m) {
				c.consumed[i] = true
				c.mu.Unlock()
				return m, nil
			}
		}
		changed, readErr := c.changed, c.readErr
		c.mu.Unlock()
		if readErr != nil {
			return Message{}, ErrClosed
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("lsptest: awaiting a message: %w", ctx.Err())
		}
	}
}

// Messages returns every message received so far, in order.
func (c *Client) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.log...)
}

// Method matches messages of one method.
func Method(name string) func(Message) bool {
	return func(m Message) bool { return m.Method == name }
}

// LogMessage matches window/logMessage notifications whose text contains
// substr.
func LogMessage(substr string) func(Message) bool {
	return textMessage("window/logMessage", substr)
}

// ShowMessage matches window/showMessage notifications whose text contains
// substr.
func ShowMessage(substr string) func(Message) bool {
	return textMessage("window/showMessage", substr)
}

func textMessage(method, substr string) func(Message) bool {
	return func(m Message) bool {
		if m.Method != method {
			return false
		}
		var p struct {
			Message string `json:"message"`
		}
		return json.Unmarshal(m.Params, &p) == nil && strings.Contains(p.Message, substr)
	}
}

// idKey canonicalises a raw id for matching responses.
func idKey(id json.RawMessage) (string, error) {
	t := strings.TrimSpace(string(id))
	if strings.HasPrefix(t, `"`) {
		var s string
		if err := json.Unmarshal([]byte(t), &s); err != nil {
			return "", fmt.Errorf("lsptest: bad id %s: %w", t, err)
		}
		return "s:" + s, nil
	}
	if t == "" || t == "null" {
		return "null", nil
	}
	return "n:" + t, nil
}

func (c *Client) record(m Message) {
	c.mu.Lock()
	c.log = append(c.log, m)
	c.consumed = append(c.consumed, false)
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

func (c *Client) readLoop(r *bufio.Reader) {
	defer close(c.done)
	for {
		body, err := readFrame(r)
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			for k, ch := range c.pending {
				close(ch)
				delete(c.pending, k)
			}
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *RPCError       `json:"error"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			c.record(Message{Kind: Response, Error: &RPCError{Code: -32700, Message: "lsptest: server sent invalid JSON: " + err.Error()}})
			continue
		}
		switch {
		case msg.Method != "" && msg.ID != nil:
			c.record(Message{Kind: Request, Method: msg.Method, ID: msg.ID, Params: msg.Params})
			go c.answer(msg.ID, msg.Method, msg.Params)
		case msg.Method != "":
			c.record(Message{Kind: Notification, Method: msg.Method, Params: msg.Params})
		default:
			key, _ := idKey(msg.ID)
			c.mu.Lock()
			ch, ok := c.pending[key]
			delete(c.pending, key)
			c.mu.Unlock()
			if ok {
				ch <- reply{result: msg.Result, err: msg.Error}
			} else {
				c.record(Message{Kind: Response, ID: msg.ID, Result: msg.Result, Error: msg.Error})
			}
		}
	}
}

// answer replies to a server request with its handler's answer.
func (c *Client) answer(id json.RawMessage, method string, params json.RawMessage) {
	c.mu.Lock()
	h := c.handlers[method]
	c.mu.Unlock()
	var result any
	var err error
	if h != nil {
		result, err = h(params)
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": id}
	if err != nil {
		var re *RPCError
		if !errors.As(err, &re) {
			re = &RPCError{Code: -32603, Message: err.Error()}
		}
		resp["error"] = re
	} else {
		resp["result"] = result
	}
	_ = c.send(resp)
}

// readFrame reads one Content-Length framed body.
func readFrame(r *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("lsptest: reading header: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if length < 0 {
				return nil, errors.New("lsptest: frame without Content-Length")
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("lsptest: bad header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("lsptest: bad Content-Length %q", value)
			}
			length = n
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("lsptest: reading body: %w", err)
	}
	return bytes.TrimSpace(body), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
