package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// handlerFunc handles one request or notification; the result of a
// notification is ignored.
type handlerFunc func(ctx context.Context, params json.RawMessage) (any, error)

// methodSpec is one entry of the handler table.
type methodSpec struct {
	// ordered methods run one at a time in arrival order; the others run
	// concurrently once every earlier ordered message has been applied.
	ordered      bool
	notification bool
	// timeout overrides Options.RequestTimeout for a concurrent request.
	timeout time.Duration
	// timeoutOf, when set, picks the deadline from the params (commands
	// carry their own); zero keeps the others.
	timeoutOf func(params json.RawMessage) time.Duration
	handle    handlerFunc
}

// validator is implemented by params that check required fields after
// decoding; the error text names the field.
type validator interface{ validate() error }

// decodeParams decodes params into P. Type mismatches become InvalidParams
// errors naming the field ("textDocument.uri: expected string"); P's
// validate method, if any, checks the rest.
func decodeParams[P any](raw json.RawMessage) (P, error) {
	var p P
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &p); err != nil {
			return p, paramsError(err)
		}
	}
	if v, ok := any(&p).(validator); ok {
		if err := v.validate(); err != nil {
			return p, invalidParams("%s", err.Error())
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
		return invalidParams("%s: expected %s", field, jsonTypeName(te.Type))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return invalidParams("params: malformed JSON at offset %d", se.Offset)
	}
	return invalidParams("params: %v", err)
}

// jsonTypeName names the JSON form of a Go type for error messages.
func jsonTypeName(t reflect.Type) string {
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

// request builds a table entry for a request with typed params.
func request[P, R any](ordered bool, fn func(ctx context.Context, p P) (R, error)) methodSpec {
	return methodSpec{ordered: ordered, handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
		p, err := decodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return fn(ctx, p)
	}}
}

// notification builds a table entry for an ordered notification.
func notification[P any](fn func(ctx context.Context, p P) error) methodSpec {
	return methodSpec{ordered: true, notification: true, handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
		p, err := decodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return nil, fn(ctx, p)
	}}
}

// toResponseError maps a handler error to the error sent to the client.
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

// Lifecycle states kept in server.initState.
const (
	initNone int32 = iota
	initPending
	initDone
)

// readLoop reads and dispatches messages until the stream fails.
func (s *server) readLoop() {
	for {
		body, skipped, err := s.conn.reader.next()
		if skipped != "" {
			s.log.warn("skipped invalid input on the stream", "detail", skipped)
		}
		if err != nil {
			switch {
			case errors.Is(err, errFraming):
				s.log.error("bad message framing; message dropped", "error", err)
				continue
			case errors.Is(err, errTooLarge):
				s.log.error("message dropped", "error", err)
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
func (s *server) dispatchSafely(body []byte) {
	defer func() {
		if v := recover(); v != nil {
			s.log.panicked("message dispatch", v, debug.Stack())
		}
	}()
	s.dispatch(body)
}

// streamEnded handles the end of the input stream: in-flight work is
// cancelled and, after every message already queued (an exit among them),
// the server finishes with exit code 1.
func (s *server) streamEnded(err error) {
	if s.stopping.Load() {
		return
	}
	if errors.Is(err, io.EOF) {
		s.log.info("input stream closed")
	} else {
		s.log.error("input stream failed", "error", err)
	}
	s.cancel()
	s.queue.push(func() { s.finish(1) })
	// A handler that ignores cancellation must not keep Serve alive.
	time.AfterFunc(s.opts.ShutdownTimeout, func() { s.finish(1) })
}

// dispatch routes one message body. It runs on the reader goroutine and
// never blocks on handlers or on the client.
func (s *server) dispatch(body []byte) {
	in, id, rerr := decodeMessage(body)
	if rerr != nil {
		s.log.warn("invalid message", "error", rerr.Message)
		_ = s.conn.reply(id, nil, rerr)
		return
	}
	switch in.kind {
	case kindResponse:
		if !s.conn.deliver(in) {
			s.log.debug("response to an unknown request id ignored", "id", in.id.String())
		}
	case kindNotification:
		s.dispatchNotification(in)
	case kindRequest:
		s.dispatchRequest(in)
	}
}

func (s *server) dispatchNotification(in incoming) {
	switch in.method {
	case "$/cancelRequest":
		s.cancelRequest(in.params)
		return
	case "exit":
		s.queue.push(s.exit)
		return
	}
	spec, ok := s.methods[in.method]
	if !ok || !spec.notification {
		if !strings.HasPrefix(in.method, "$/") {
			s.log.debug("unknown notification ignored", "method", in.method)
		}
		return
	}
	if s.initState.Load() == initNone {
		s.log.debug("notification before initialize dropped", "method", in.method)
		return
	}
	if s.shutdownSeen {
		s.log.debug("notification after shutdown dropped", "method", in.method)
		return
	}
	s.queue.push(func() { s.runOrdered(in, spec) })
}

func (s *server) dispatchRequest(in incoming) {
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
		rerr = &ResponseError{Code: CodeMethodNotFound, Message: "method not found: " + truncate(in.method, 200)}
	case spec.notification:
		rerr = &ResponseError{Code: CodeInvalidRequest, Message: fmt.Sprintf("invalid request: %s is a notification, not a request", in.method)}
	}
	if rerr != nil {
		_ = s.conn.reply(in.id, nil, rerr)
		return
	}
	if in.method == "shutdown" {
		s.shutdownSeen = true
	}
	if spec.ordered {
		s.queue.push(func() { s.runOrdered(in, spec) })
		return
	}
	s.startConcurrent(in, spec)
}

// runOrdered runs an ordered message on the queue goroutine and replies
// to requests.
func (s *server) runOrdered(in incoming, spec methodSpec) {
	if in.method != "initialize" && s.initState.Load() != initDone {
		if in.kind == kindRequest {
			_ = s.conn.reply(in.id, nil, &ResponseError{Code: CodeServerNotInitialized, Message: fmt.Sprintf("server not initialized: %s before a successful initialize", in.method)})
		} else {
			s.log.debug("notification dropped: server not initialized", "method", in.method)
		}
		return
	}
	result, err := s.invoke(s.ctx, in.method, spec.handle, in.params)
	if in.method == "initialize" && err != nil {
		// A failed initialize may be retried.
		s.initState.CompareAndSwap(initPending, initNone)
	}
	if in.kind != kindRequest {
		if err != nil {
			s.log.error("notification failed", "method", in.method, "error", err)
		}
		return
	}
	if err != nil {
		_ = s.conn.reply(in.id, nil, toResponseError(in.method, err))
		return
	}
	if err := s.conn.reply(in.id, result, nil); err != nil {
		s.log.debug("reply not written", "method", in.method, "error", err)
	}
}

// startConcurrent registers a read-only request for cancellation and runs
// it on its own goroutine.
func (s *server) startConcurrent(in incoming, spec methodSpec) {
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
		_ = s.conn.reply(in.id, nil, &ResponseError{Code: CodeInvalidRequest, Message: "invalid request: id " + truncate(in.id.String(), 60) + " is already in use"})
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

func (s *server) runConcurrent(ctx context.Context, in incoming, spec methodSpec, barrier <-chan struct{}) {
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
	timeout := spec.timeout
	if t, ok := s.opts.MethodTimeouts[in.method]; ok && t > 0 {
		timeout = t
	}
	if spec.timeoutOf != nil {
		if t := spec.timeoutOf(in.params); t > 0 {
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
		v, err := s.invoke(hctx, in.method, spec.handle, in.params)
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
		s.log.debug("reply not written", "method", in.method, "error", err)
	}
}

// invoke calls a handler, turning a panic into an InternalError.
func (s *server) invoke(ctx context.Context, method string, h handlerFunc, params json.RawMessage) (result any, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.panicked(method, v, debug.Stack())
			result = nil
			err = &ResponseError{Code: CodeInternalError, Message: fmt.Sprintf("internal error in %s: %v", method, v)}
		}
	}()
	return h(ctx, params)
}

// protect calls a backend hook on the ordered side, turning a panic into
// an error so that one bad hook does not stop the rest of the work.
func (s *server) protect(what string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.panicked(what, v, debug.Stack())
			err = fmt.Errorf("%s panicked: %v", what, v)
		}
	}()
	return fn()
}

// cancelRequest handles $/cancelRequest: the id may be a number of any
// size or a string. Ordered requests cannot be cancelled.
func (s *server) cancelRequest(raw json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil || p.ID == nil {
		s.log.debug("malformed $/cancelRequest ignored", "params", truncate(string(raw), 200))
		return
	}
	id, err := parseID(p.ID)
	if err != nil {
		s.log.debug("$/cancelRequest with an invalid id ignored", "error", err)
		return
	}
	s.inflightMu.Lock()
	cancel, ok := s.inflight[id.key]
	s.inflightMu.Unlock()
	if ok {
		cancel()
	}
}
