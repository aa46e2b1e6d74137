package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/internal/logcap"
)

// Handler handles one request or notification; the result of a
// notification is ignored.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Method is one entry of the handler table.
type Method struct {
	// Ordered methods run one at a time in arrival order; the others run
	// concurrently once every earlier ordered message has been applied.
	Ordered      bool
	Notification bool
	// Timeout overrides Options.RequestTimeout for a concurrent request.
	Timeout time.Duration
	// TimeoutOf, when set, picks the deadline from the params (commands
	// carry their own); zero keeps the others.
	TimeoutOf func(params json.RawMessage) time.Duration
	Handle    Handler
}

// Validator is implemented by params that check required fields after
// decoding; the error text names the field.
type Validator interface{ Validate() error }

// DecodeParams decodes params into P. Type mismatches become InvalidParams
// errors naming the field ("textDocument.uri: expected string"); P's
// Validate method, if any, checks the rest.
func DecodeParams[P any](raw json.RawMessage) (P, error) {
	var p P
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &p); err != nil {
			return p, paramsError(err)
		}
	}
	if v, ok := any(&p).(Validator); ok {
		if err := v.Validate(); err != nil {
			return p, InvalidParams("%s", err.Error())
		}
	}
	return p, nil
}

// paramsError turns a json decoding error into InvalidParams naming the
// offending field.
func paramsError(err error) *ResponseError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "params"
		}
		return InvalidParams("%s: expected %s", field, JSONTypeName(te.Type))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return InvalidParams("params: malformed JSON at offset %d", se.Offset)
	}
	return InvalidParams("params: %v", err)
}

// JSONTypeName names the JSON form of a Go type for error messages.
func JSONTypeName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	default:
		return "a value"
	}
}

// Request builds a table entry for a request with typed params.
func Request[P, R any](ordered bool, fn func(ctx context.Context, p P) (R, error)) Method {
	return Method{Ordered: ordered, Handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
		p, err := DecodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return fn(ctx, p)
	}}
}

// Notification builds a table entry for an ordered notification.
func Notification[P any](fn func(ctx context.Context, p P) error) Method {
	return Method{Ordered: true, Notification: true, Handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
		p, err := DecodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return nil, fn(ctx, p)
	}}
}

// toResponseError maps a handler error to the error sent to the client:
// a *ResponseError as it is, cancellation as RequestCancelled,
// ErrNotSupported as MethodNotFound, anything else as RequestFailed.
func toResponseError(method string, err error) *ResponseError {
	var re *ResponseError
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, context.Canceled):
		return &ResponseError{Code: CodeRequestCancelled, Message: method + ": request cancelled"}
	case errors.Is(err, context.DeadlineExceeded):
		return &ResponseError{Code: CodeRequestFailed, Message: method + ": " + err.Error()}
	case errors.Is(err, ErrNotSupported):
		return &ResponseError{Code: CodeMethodNotFound, Message: method + ": " + err.Error()}
	default:
		return &ResponseError{Code: CodeRequestFailed, Message: method + ": " + err.Error()}
	}
}

// orderedQueue runs functions one at a time in push order on one
// goroutine. Pushing never blocks.
type orderedQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []queuedFunc
	last   chan struct{} // done channel of the last pushed function
	closed bool
	done   chan struct{} // closed when run returns
}

type queuedFunc struct {
	fn   func()
	done chan struct{}
}

func newOrderedQueue() *orderedQueue {
	q := &orderedQueue{done: make(chan struct{}), last: make(chan struct{})}
	close(q.last)
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push appends fn and returns a channel closed once fn has run (or has
// been dropped by close).
func (q *orderedQueue) push(fn func()) chan struct{} {
	done := make(chan struct{})
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		close(done)
		return done
	}
	q.items = append(q.items, queuedFunc{fn: fn, done: done})
	q.last = done
	q.cond.Signal()
	return done
}

// barrier returns a channel closed once everything pushed so far has run:
// a read-only request waits on it so that it sees every earlier change.
func (q *orderedQueue) barrier() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.last
}

// run executes queued functions until close.
func (q *orderedQueue) run() {
	defer close(q.done)
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.cond.Wait()
		}
		if q.closed {
			for _, it := range q.items {
				close(it.done)
			}
			q.items = nil
			q.mu.Unlock()
			return
		}
		it := q.items[0]
		q.items[0] = queuedFunc{}
		q.items = q.items[1:]
		q.mu.Unlock()
		it.fn()
		close(it.done)
	}
}

// close stops run after the function in progress; the rest are dropped.
func (q *orderedQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// Lifecycle states kept in Server.initState.
const (
	initNone int32 = iota
	initPending
	initDone
)

// Defaults of Options.
const (
	DefaultRequestTimeout  = 30 * time.Second
	DefaultShutdownTimeout = 5 * time.Second
)

// Logger receives the connection's diagnostics.
type Logger interface {
	Debug(msg string, args ...any)
	Info(msg string, args ...any)
	Warn(msg string, args ...any)
	Error(msg string, args ...any)
	// Panicked reports a recovered panic with its stack.
	Panicked(where string, value any, stack []byte)
}

// Options configure a Server.
type Options struct {
	Logger Logger
	// RequestTimeout is the deadline of a concurrent request
	// (DefaultRequestTimeout when zero); MethodTimeouts overrides it per
	// method, and a Method's Timeout or TimeoutOf per entry.
	RequestTimeout time.Duration
	MethodTimeouts map[string]time.Duration
	// MaxConcurrent bounds the concurrent requests running at once
	// (2×GOMAXPROCS, at least 4, when zero).
	MaxConcurrent int
	// MaxMessageBytes bounds one incoming message (DefaultMaxMessageBytes
	// when zero); larger messages are dropped with a ParseError.
	MaxMessageBytes int64
	// ShutdownTimeout bounds how long Drain waits for in-flight requests
	// and how long Run waits for handlers when it stops
	// (DefaultShutdownTimeout when zero).
	ShutdownTimeout time.Duration
}

// Server is one LSP base-protocol connection: Content-Length framed
// JSON-RPC over a stream, with the lifecycle the protocol prescribes
// (nothing but initialize before initialize, nothing after shutdown but
// exit). Notifications and ordered requests are applied one at a time in
// arrival order on one goroutine; the other requests start once every
// earlier ordered message has been applied, then run concurrently on a
// bounded pool, each with a deadline and a context that $/cancelRequest
// cancels. Replies are serialized on the writer and written even when a
// request's context is cancelled. The reader never waits on a handler or
// on a response from the client.
type Server struct {
	opts    Options
	conn    *conn
	log     Logger
	methods map[string]Method
	queue   *orderedQueue

	parent context.Context // the caller's: its end stops Run
	ctx    context.Context
	cancel context.CancelFunc

	// Reader goroutine only.
	shutdownSeen bool

	initState atomic.Int32
	stopping  atomic.Bool
	down      atomic.Bool // shutdown answered

	inflightMu sync.Mutex
	inflight   map[string]context.CancelFunc
	sem        chan struct{}
	wg         sync.WaitGroup

	finishOnce sync.Once
	finished   chan struct{}
	exitCode   int
}

// NewServer returns a connection over rwc; ctx bounds its life. Install
// the handler table with Handle, then Run.
func NewServer(ctx context.Context, rwc io.ReadWriteCloser, opts Options) *Server {
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = max(4, 2*runtime.GOMAXPROCS(0))
	}
	s := &Server{
		opts:     opts,
		conn:     newConn(rwc, opts.MaxMessageBytes),
		log:      opts.Logger,
		queue:    newOrderedQueue(),
		inflight: make(map[string]context.CancelFunc),
		sem:      make(chan struct{}, opts.MaxConcurrent),
		finished: make(chan struct{}),
	}
	s.parent = ctx
	s.ctx, s.cancel = context.WithCancel(ctx)
	return s
}

// Handle installs the handler table; call it before Run.
func (s *Server) Handle(methods map[string]Method) { s.methods = methods }

// Context is the connection's context: it ends when the connection stops.
func (s *Server) Context() context.Context { return s.ctx }

// Notify sends a notification to the client.
func (s *Server) Notify(method string, params any) error { return s.conn.notify(method, params) }

// Call sends a request to the client and waits for its response or ctx
// (any handler may call it: the reader never waits on handlers).
func (s *Server) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.conn.call(ctx, method, params)
}

// Enqueue runs fn on the ordered queue, after every message received so
// far has been applied (and before any received later).
func (s *Server) Enqueue(fn func()) { s.queue.push(fn) }

// Initialized marks the initialize request as successful: the other
// methods are served from now on. The initialize handler calls it.
func (s *Server) Initialized() { s.initState.Store(initDone) }

// Drain waits (up to ShutdownTimeout) for the concurrent requests in
// flight and cancels those still running: the shutdown handler calls it.
func (s *Server) Drain() {
	stop := time.NewTimer(s.opts.ShutdownTimeout)
	defer stop.Stop()
	if !waitGroupWithin(&s.wg, stop.C) {
		s.log.Warn("shutdown: cancelling requests still running")
		s.inflightMu.Lock()
		for _, cancel := range s.inflight {
			cancel()
		}
		s.inflightMu.Unlock()
	}
}

// Run serves the connection until the client sends exit, the stream ends
// or the context is cancelled, then stops: in-flight work is cancelled
// and waited for (bounded), onStop runs once every ordered handler has
// returned (it is skipped when one hangs), and the stream is closed. It
// returns the process exit code: 0 after shutdown then exit, else 1.
func (s *Server) Run(onStop func()) int {
	go s.queue.run()
	go s.readLoop()
	select {
	case <-s.finished:
	case <-s.parent.Done():
		s.log.Info("stopping: context cancelled")
		s.finish(1)
	}
	s.teardown(onStop)
	return s.exitCode
}

// finish records the exit code once and releases Run.
func (s *Server) finish(code int) {
	s.finishOnce.Do(func() {
		s.exitCode = code
		close(s.finished)
	})
}

// exit handles the exit notification (on the ordered queue).
func (s *Server) exit() {
	if s.down.Load() {
		s.finish(0)
		return
	}
	s.log.Warn("exit without shutdown")
	s.finish(1)
}

// teardown stops everything Run started.
func (s *Server) teardown(onStop func()) {
	s.inflightMu.Lock()
	s.stopping.Store(true)
	s.inflightMu.Unlock()
	s.cancel()
	s.queue.close()
	deadline := time.NewTimer(s.opts.ShutdownTimeout)
	defer deadline.Stop()
	queueStopped := true
	select {
	case <-s.queue.done:
	case <-deadline.C:
		queueStopped = false
		s.log.Error("an ordered handler did not return after cancellation; the session is left open")
	}
	if !waitGroupWithin(&s.wg, deadline.C) {
		s.log.Error("some request handlers did not return after cancellation")
	}
	if queueStopped && onStop != nil {
		if err := s.Protect("stopping the session", func() error { onStop(); return nil }); err != nil {
			s.log.Error("stopping the session", "error", err)
		}
	}
	if err := s.conn.close(); err != nil {
		s.log.Debug("closing the stream", "error", err)
	}
}

// waitGroupWithin waits for wg until stop fires; it reports whether wg
// finished.
func waitGroupWithin(wg *sync.WaitGroup, stop <-chan time.Time) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-stop:
		return false
	}
}

// readLoop reads and dispatches messages until the stream fails.
func (s *Server) readLoop() {
	for {
		body, skipped, err := s.conn.reader.next()
		if skipped != "" {
			s.log.Warn("skipped invalid input on the stream", "detail", skipped)
		}
		if err != nil {
			switch {
			case errors.Is(err, errFraming):
				s.log.Error("bad message framing; message dropped", "error", err)
				continue
			case errors.Is(err, errTooLarge):
				s.log.Error("message dropped", "error", err)
				_ = s.conn.reply(requestID{}, nil, &ResponseError{Code: CodeParseError, Message: "parse error: " + err.Error()})
				continue
			}
			s.streamEnded(err)
			return
		}
		s.dispatchSafely(body)
	}
}

// dispatchSafely dispatches one message, recovering from a panic in the
// dispatch code itself so that the reader keeps serving.
func (s *Server) dispatchSafely(body []byte) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Panicked("message dispatch", v, debug.Stack())
		}
	}()
	s.dispatch(body)
}

// streamEnded handles the end of the input stream: in-flight work is
// cancelled and, after every message already queued (an exit among them),
// the server finishes with exit code 1.
func (s *Server) streamEnded(err error) {
	if s.stopping.Load() {
		return
	}
	if errors.Is(err, io.EOF) {
		s.log.Info("input stream closed")
	} else {
		s.log.Error("input stream failed", "error", err)
	}
	s.cancel()
	s.queue.push(func() { s.finish(1) })
	// A handler that ignores cancellation must not keep Serve alive.
	time.AfterFunc(s.opts.ShutdownTimeout, func() { s.finish(1) })
}

// dispatch routes one message body. It runs on the reader goroutine and
// never blocks on handlers or on the client.
func (s *Server) dispatch(body []byte) {
	in, id, rerr := decodeMessage(body)
	if rerr != nil {
		s.log.Warn("invalid message", "error", rerr.Message)
		_ = s.conn.reply(id, nil, rerr)
		return
	}
	switch in.kind {
	case kindResponse:
		if !s.conn.deliver(in) {
			s.log.Debug("response to an unknown request id ignored", "id", in.id.String())
		}
	case kindNotification:
		s.dispatchNotification(in)
	case kindRequest:
		s.dispatchRequest(in)
	}
}

func (s *Server) dispatchNotification(in incoming) {
	switch in.method {
	case "$/cancelRequest":
		s.cancelRequest(in.params)
		return
	case "exit":
		s.queue.push(s.exit)
		return
	}
	spec, ok := s.methods[in.method]
	if !ok || !spec.Notification {
		if !strings.HasPrefix(in.method, "$/") {
			s.log.Debug("unknown notification ignored", "method", in.method)
		}
		return
	}
	if s.initState.Load() == initNone {
		s.log.Debug("notification before initialize dropped", "method", in.method)
		return
	}
	if s.shutdownSeen {
		s.log.Debug("notification after shutdown dropped", "method", in.method)
		return
	}
	s.queue.push(func() { s.runOrdered(in, spec) })
}

func (s *Server) dispatchRequest(in incoming) {
	spec, ok := s.methods[in.method]
	state := s.initState.Load()
	var rerr *ResponseError
	switch {
	case s.shutdownSeen:
		rerr = &ResponseError{Code: CodeInvalidRequest, Message: fmt.Sprintf("invalid request: %s after shutdown", in.method)}
	case in.method == "initialize" && state != initNone:
		rerr = &ResponseError{Code: CodeInvalidRequest, Message: "invalid request: initialize was already received"}
	case in.method == "initialize":
		s.initState.Store(initPending)
	case state == initNone:
		rerr = &ResponseError{Code: CodeServerNotInitialized, Message: fmt.Sprintf("server not initialized: %s before initialize", in.method)}
	case !ok:
		rerr = &ResponseError{Code: CodeMethodNotFound, Message: "method not found: " + logcap.Clip(in.method, 200)}
	case spec.Notification:
		rerr = &ResponseError{Code: CodeInvalidRequest, Message: fmt.Sprintf("invalid request: %s is a notification, not a request", in.method)}
	}
	if rerr != nil {
		_ = s.conn.reply(in.id, nil, rerr)
		return
	}
	if in.method == "shutdown" {
		s.shutdownSeen = true
	}
	if spec.Ordered {
		s.queue.push(func() { s.runOrdered(in, spec) })
		return
	}
	s.startConcurrent(in, spec)
}

// runOrdered runs an ordered message on the queue goroutine and replies
// to requests.
func (s *Server) runOrdered(in incoming, spec Method) {
	if in.method != "initialize" && s.initState.Load() != initDone {
		if in.kind == kindRequest {
			_ = s.conn.reply(in.id, nil, &ResponseError{Code: CodeServerNotInitialized, Message: fmt.Sprintf("server not initialized: %s before a successful initialize", in.method)})
		} else {
			s.log.Debug("notification dropped: server not initialized", "method", in.method)
		}
		return
	}
	result, err := s.invoke(s.ctx, in.method, spec.Handle, in.params)
	if in.method == "initialize" && err != nil {
		// A failed initialize may be retried.
		s.initState.CompareAndSwap(initPending, initNone)
	}
	if in.method == "shutdown" && err == nil {
		s.down.Store(true)
	}
	if in.kind != kindRequest {
		if err != nil {
			s.log.Error("notification failed", "method", in.method, "error", err)
		}
		return
	}
	if err != nil {
		_ = s.conn.reply(in.id, nil, toResponseError(in.method, err))
		return
	}
	if err := s.conn.reply(in.id, result, nil); err != nil {
		s.log.Debug("reply not written", "method", in.method, "error", err)
	}
}

// startConcurrent registers a read-only request for cancellation and runs
// it on its own goroutine.
func (s *Server) startConcurrent(in incoming, spec Method) {
	ctx, cancel := context.WithCancel(s.ctx)
	s.inflightMu.Lock()
	if s.stopping.Load() {
		s.inflightMu.Unlock()
		cancel()
		return
	}
	if _, dup := s.inflight[in.id.key]; dup {
		s.inflightMu.Unlock()
		cancel()
		_ = s.conn.reply(in.id, nil, &ResponseError{Code: CodeInvalidRequest, Message: "invalid request: id " + logcap.Clip(in.id.String(), 60) + " is already in use"})
		return
	}
	s.inflight[in.id.key] = cancel
	s.wg.Add(1)
	s.inflightMu.Unlock()
	barrier := s.queue.barrier()
	go func() {
		defer s.wg.Done()
		defer func() {
			s.inflightMu.Lock()
			delete(s.inflight, in.id.key)
			s.inflightMu.Unlock()
			cancel()
		}()
		s.runConcurrent(ctx, in, spec, barrier)
	}()
}

type handlerResult struct {
	value any
	err   error
}

func (s *Server) runConcurrent(ctx context.Context, in incoming, spec Method, barrier <-chan struct{}) {
	cancelled := func() {
		_ = s.conn.reply(in.id, nil, toResponseError(in.method, context.Cause(ctx)))
	}
	// Wait until every earlier ordered message has been applied.
	select {
	case <-barrier:
	case <-ctx.Done():
		cancelled()
		return
	}
	if s.initState.Load() != initDone {
		_ = s.conn.reply(in.id, nil, &ResponseError{Code: CodeServerNotInitialized, Message: fmt.Sprintf("server not initialized: %s before a successful initialize", in.method)})
		return
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		cancelled()
		return
	}
	timeout := spec.Timeout
	if t, ok := s.opts.MethodTimeouts[in.method]; ok && t > 0 {
		timeout = t
	}
	if spec.TimeoutOf != nil {
		if t := spec.TimeoutOf(in.params); t > 0 {
			timeout = t
		}
	}
	if timeout <= 0 {
		timeout = s.opts.RequestTimeout
	}
	hctx, hcancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("timed out after %v: %w", timeout, context.DeadlineExceeded))
	defer hcancel()
	done := make(chan handlerResult, 1)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.sem }()
		v, err := s.invoke(hctx, in.method, spec.Handle, in.params)
		done <- handlerResult{v, err}
	}()
	var r handlerResult
	select {
	case r = <-done:
	case <-hctx.Done():
		select {
		case r = <-done: // the result raced the cancellation: keep it
		default:
			// Reply now; the handler finishes in the background and its
			// result is dropped.
			r = handlerResult{err: context.Cause(hctx)}
		}
	}
	if r.err != nil {
		if errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded) {
			if cause := context.Cause(hctx); cause != nil {
				r.err = cause
			}
		}
		_ = s.conn.reply(in.id, nil, toResponseError(in.method, r.err))
		return
	}
	if err := s.conn.reply(in.id, r.value, nil); err != nil {
		s.log.Debug("reply not written", "method", in.method, "error", err)
	}
}

// invoke calls a handler, turning a panic into an InternalError.
func (s *Server) invoke(ctx context.Context, method string, h Handler, params json.RawMessage) (result any, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Panicked(method, v, debug.Stack())
			result = nil
			err = &ResponseError{Code: CodeInternalError, Message: fmt.Sprintf("internal error in %s: %v", method, v)}
		}
	}()
	return h(ctx, params)
}

// Protect calls fn, turning a panic into an error (logged with its stack)
// so that one bad hook does not stop the rest of the work.
func (s *Server) Protect(what string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Panicked(what, v, debug.Stack())
			err = fmt.Errorf("%s panicked: %v", what, v)
		}
	}()
	return fn()
}

// cancelRequest handles $/cancelRequest: the id may be a number of any
// size or a string. Ordered requests cannot be cancelled.
func (s *Server) cancelRequest(raw json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.ID == nil {
		s.log.Debug("malformed $/cancelRequest ignored", "params", logcap.Clip(string(raw), 200))
		return
	}
	id, err := parseID(p.ID)
	if err != nil {
		s.log.Debug("$/cancelRequest with an invalid id ignored", "error", err)
		return
	}
	s.inflightMu.Lock()
	cancel, ok := s.inflight[id.key]
	s.inflightMu.Unlock()
	if ok {
		cancel()
	}
}
