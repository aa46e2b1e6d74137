// Package service is the one answer to every question a client asks of an
// index: search, similar code, related context, context packs, callers,
// callees and tests, definitions and hovers, symbols, stats, the files
// indexed, refreshes, reindex jobs and pins.
//
// Each operation has one request type and one result type (types.go), in
// editor terms: workspace-relative paths, 1-based lines, columns in
// characters. Every request is checked by the same rules (args.go), and
// everything a result shows of the code — snippets, signatures, doc
// comments, pack text — is scrubbed of secrets here, so no front end can
// forget to. The CLI, the language server and the MCP server only
// translate their wire format to these types and back; index sharing
// forwards operations by name with their JSON request (Call).
//
// A Service wraps one engine; each operation reads one immutable snapshot
// of it.
package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/packs"
)

// Buffers gives the current text of files open in an editor, which may
// differ from disk and from what is indexed yet (the language server's
// open documents).
type Buffers interface {
	// Text returns the buffer of a workspace-relative path, if open.
	Text(rel string) ([]byte, bool)
	// Open counts the open buffers.
	Open() int
}

// Options configure New.
type Options struct {
	// Logger receives the service's logs; nil discards them.
	Logger *slog.Logger
	// Buffers, if set, are the editor's open documents: positions are
	// read against them and their text is shown.
	Buffers Buffers
	// FirstIndexWait, if set, makes operations that read the index wait
	// (up to this long) while a new index runs its first full scan: an
	// agent's answer from the first files indexed would mislead. Editors
	// leave it unset and see the index fill.
	FirstIndexWait time.Duration
}

// Service answers operations against one engine. Its methods may be
// called concurrently.
type Service struct {
	e       *engine.Engine
	log     *slog.Logger
	buffers Buffers
	scrub   *packs.Scrubber
	// defScrub scrubs definitions' signatures and docs, through a memo.
	defScrub *scrubMemo
	waitFor  time.Duration

	// ctx ends with Close: background work (jobs, asynchronous refreshes,
	// index maintenance) runs under it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	packs      atomic.Int64
	packTokens atomic.Int64

	maint maintainer
}

// New returns the service of an open engine. The engine stays the
// caller's: Close does not close it.
func New(e *engine.Engine, opts Options) (*Service, error) {
	sc, err := e.Scrubber()
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{e: e, log: log.With("root", e.Root()), buffers: opts.Buffers, scrub: sc, waitFor: opts.FirstIndexWait, ctx: ctx, cancel: cancel,
		defScrub: newScrubMemo(sc, scrubMemoMaxText, scrubMemoMaxBytes)}
	s.maint.init(s)
	return s, nil
}

// Engine returns the service's engine.
func (s *Service) Engine() *engine.Engine { return s.e }

// Root returns the canonical workspace root.
func (s *Service) Root() string { return s.e.Root() }

// Close cancels the service's background work (running jobs end as
// cancelled) and waits for it.
func (s *Service) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

// awaitFirstIndex waits (up to the service's FirstIndexWait) while the
// index has never completed a full scan.
func (s *Service) awaitFirstIndex(ctx context.Context) {
	if s.waitFor <= 0 {
		return
	}
	if _, ok := s.e.LastIndexed(); ok {
		return
	}
	deadline := time.NewTimer(s.waitFor)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			s.log.Warn("answering before the first full scan of the workspace completed")
			return
		case <-tick.C:
			if _, ok := s.e.LastIndexed(); ok {
				return
			}
		}
	}
}

// goBackground runs fn under the service's context; false when closed.
func (s *Service) goBackground(fn func(ctx context.Context)) bool {
	if s.ctx.Err() != nil {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("background work panicked (the service keeps serving)", "panic", r)
			}
		}()
		fn(s.ctx)
	}()
	return true
}

// Backend runs operations by name: a Service in this process, or the
// process that owns the index (package share).
type Backend interface {
	Call(ctx context.Context, op string, request json.RawMessage) (json.RawMessage, error)
}

// Call runs the operation named op with a JSON request and returns its
// JSON result: what index sharing forwards, and what the MCP server and
// the CLI send. Errors are *Error.
func (s *Service) Call(ctx context.Context, name string, request json.RawMessage) (json.RawMessage, error) {
	o, ok := Lookup(name)
	if !ok {
		return nil, unknownOp(name)
	}
	res, err := s.safeRun(ctx, o, request)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(res)
	if err != nil {
		return nil, &Error{Code: CodeFailed, Message: fmt.Sprintf("%s: encoding the result: %v", name, err)}
	}
	return out, nil
}

// unknownOp is the error of a call naming no operation.
func unknownOp(name string) error {
	names := make([]string, 0, len(Ops))
	for _, o := range Ops {
		names = append(names, o.Name)
	}
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf("unknown operation %q; the operations are: %s", name, strings.Join(names, ", "))}
}

// safeRun runs an operation, turning a panic into an error: a broken
// invariant fails one request and the server keeps serving.
func (s *Service) safeRun(ctx context.Context, o *Op, request json.RawMessage) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("operation panicked (the service keeps serving)", "op", o.Name, "panic", r)
			res, err = nil, &Error{Code: CodeFailed, Message: fmt.Sprintf("%s: internal error: %v", o.Name, r)}
		}
	}()
	if o.ReadOnly && o.readsIndex {
		s.awaitFirstIndex(ctx)
	}
	res, err = o.run(ctx, s, request)
	if err != nil {
		return nil, classify("", "", err)
	}
	return res, nil
}

// Do runs a typed operation on a backend: the request is sent as JSON and
// the result decoded. Front ends that may forward (the CLI, the MCP
// server) call operations this way.
func Do[Res any](ctx context.Context, b Backend, o *Op, req any) (*Res, error) {
	if reflect.TypeOf(req) != o.Request {
		return nil, fmt.Errorf("service: %s takes a %s, not a %T", o.Name, o.Request, req)
	}
	if reflect.TypeFor[Res]() != o.Result {
		return nil, fmt.Errorf("service: %s answers a %s, not a %s", o.Name, o.Result, reflect.TypeFor[Res]())
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out, err := b.Call(ctx, o.Name, raw)
	if err != nil {
		return nil, err
	}
	res := new(Res)
	if err := json.Unmarshal(out, res); err != nil {
		return nil, fmt.Errorf("%s: malformed result: %w", o.Name, err)
	}
	return res, nil
}

// EncodeError is the JSON form of an error for a forwarded call.
func EncodeError(err error) json.RawMessage {
	var se *Error
	if !errors.As(classify("", "", err), &se) {
		se = &Error{Code: CodeFailed, Message: err.Error()}
	}
	b, _ := json.Marshal(se)
	return b
}

// DecodeError rebuilds a forwarded call's error.
func DecodeError(raw json.RawMessage) error {
	var se Error
	if err := json.Unmarshal(raw, &se); err != nil || se.Code == "" {
		return &Error{Code: CodeFailed, Message: string(raw)}
	}
	return &se
}
