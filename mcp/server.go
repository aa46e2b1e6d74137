package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/share"
)

// Options configure Serve.
type Options struct {
	// Root is the workspace root.
	Root string
	// Engine configures the index (DBDir, Config, Workers, Logger) when
	// this server opens it.
	Engine engine.Options
	// FirstIndexWait bounds how long a query waits for the first full scan
	// of a new index before answering from what is indexed
	// (defaultFirstIndexWait when zero).
	FirstIndexWait time.Duration
	// Name and Version are reported as serverInfo.
	Name, Version string
	// Logger receives diagnostics; it must not write to the protocol
	// stream. Nil discards them.
	Logger *slog.Logger
	// ShareWait bounds the search for the index's owner or its lock
	// (share.DefaultWait when zero).
	ShareWait time.Duration
}

// drainGrace is how long Serve lets in-flight calls finish after the
// client closed its end, before cancelling them.
const drainGrace = 5 * time.Second

// defaultFirstIndexWait: an agent's query waits up to this long for the
// first full scan of a new index; an answer from its first files would
// mislead.
const defaultFirstIndexWait = 60 * time.Second

// server is one MCP session.
type server struct {
	opts Options
	log  *slog.Logger

	wmu      sync.Mutex
	out      io.Writer
	writeErr error
	broken   context.CancelFunc // ends the session when stdout fails

	mu          sync.Mutex
	initialized bool
	version     string
	calls       map[string]context.CancelFunc
	cancelled   map[string]bool

	joinMu  sync.Mutex
	idx     *share.Index
	idxErr  error
	idxDone chan struct{}

	wg sync.WaitGroup
}

// Serve runs one MCP session: newline-delimited JSON-RPC 2.0 messages from
// in, responses to out (nothing else is written to out), until in ends or
// ctx is done. It joins the workspace's index at once — owning it, or
// forwarding tool calls to the process that owns it — and leaves it when
// the session ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Name == "" {
		opts.Name = "context-ls"
	}
	if opts.FirstIndexWait <= 0 {
		opts.FirstIndexWait = defaultFirstIndexWait
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{
		opts: opts, log: log, out: out, broken: cancel,
		calls: map[string]context.CancelFunc{}, cancelled: map[string]bool{},
		idxDone: make(chan struct{}),
	}
	go s.join(sctx)

	type line struct {
		b   []byte
		err error
	}
	lines := make(chan line)
	go func() {
		lr := newLineReader(in)
		for {
			b, err := lr.next()
			select {
			case lines <- line{b, err}:
			case <-sctx.Done():
				return
			}
			if err != nil && !errors.Is(err, errTooLarge) {
				return
			}
		}
	}()

	// Calls run on their own context: the client closing its end lets
	// them finish (for drainGrace) before they are cancelled.
	callCtx, cancelCalls := context.WithCancel(context.Background())
	defer cancelCalls()
	var readErr error
loop:
	for {
		select {
		case <-sctx.Done():
			break loop
		case l := <-lines:
			switch {
			case errors.Is(l.err, errTooLarge):
				s.write(&response{JSONRPC: "2.0", ID: nullID, Error: &rpcError{Code: codeParseError,
					Message: fmt.Sprintf("parse error: message longer than %d bytes", maxMessage)}})
			case l.err != nil:
				if !errors.Is(l.err, io.EOF) {
					readErr = l.err
				}
				break loop
			default:
				s.dispatch(callCtx, l.b)
			}
		}
	}

	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainGrace):
		cancelCalls()
		<-done
	}
	cancel()
	<-s.idxDone
	s.joinMu.Lock()
	idx := s.idx
	s.idx = nil
	s.joinMu.Unlock()
	if idx != nil {
		if err := idx.Close(); err != nil {
			log.Warn("closing the index", "error", err)
		}
	}
	if readErr != nil {
		return fmt.Errorf("reading the client's messages: %w", readErr)
	}
	return nil
}

// join opens or joins the index once at start-up.
func (s *server) join(ctx context.Context) {
	defer close(s.idxDone)
	s.joinMu.Lock()
	defer s.joinMu.Unlock()
	s.idx, s.idxErr = s.openIndex(ctx)
	if s.idxErr != nil {
		s.log.Error("the index is not available", "root", s.opts.Root, "error", s.idxErr)
	}
}

func (s *server) openIndex(ctx context.Context) (*share.Index, error) {
	return share.Open(ctx, s.opts.Root, share.Options{
		Engine:  s.opts.Engine,
		Service: service.Options{Logger: s.log.With("part", "service"), FirstIndexWait: s.opts.FirstIndexWait},
		Role:    share.RoleAgent, Yield: true, OnOwn: s.own, Wait: s.opts.ShareWait,
	})
}

// index returns the joined index, trying again if the first attempt
// failed.
func (s *server) index(ctx context.Context) (*share.Index, error) {
	select {
	case <-s.idxDone:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.joinMu.Lock()
	defer s.joinMu.Unlock()
	if s.idx != nil {
		return s.idx, nil
	}
	idx, err := s.openIndex(ctx)
	if err != nil {
		return nil, err
	}
	s.idx = idx
	return idx, nil
}

// own runs while this process owns the index: bring it up to date, then
// follow changes on disk, until ownership ends.
func (s *server) own(ctx context.Context, svc *service.Service) {
	svc.Maintain(service.MaintainOptions{Watch: true})
	<-ctx.Done()
}

// write sends one message (or a batch) as a line.
func (s *server) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encoding a response", "error", err)
		return
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.writeErr != nil {
		return
	}
	if _, err := s.out.Write(append(b, '\n')); err != nil {
		s.writeErr = err
		s.log.Error("writing to the client; ending the session", "error", err)
		s.broken()
	}
}

// dispatch handles one line: a message or a batch.
func (s *server) dispatch(ctx context.Context, line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if !json.Valid(line) {
		s.write(&response{JSONRPC: "2.0", ID: nullID, Error: &rpcError{Code: codeParseError, Message: "parse error: the line is not valid JSON"}})
		return
	}
	if line[0] == '[' {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.batch(ctx, line)
		}()
		return
	}
	in, id, rerr := parseMessage(line)
	switch {
	case rerr != nil:
		s.write(&response{JSONRPC: "2.0", ID: id, Error: rerr})
	case in.isResponse:
		// this server sends no requests
	case in.id == nil:
		s.notification(in)
	case in.method == "initialize":
		s.write(s.handle(ctx, in)) // in order: nothing else is processed before it
	default:
		key := s.track(ctx, in.id)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			r := s.handle(key.ctx, in)
			if s.untrack(in.id) && r != nil {
				s.write(r)
			}
		}()
	}
}

// batch handles a JSON-RPC batch (2025-03-26): requests run concurrently
// and their responses go back together.
func (s *server) batch(ctx context.Context, line []byte) {
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil || len(items) == 0 {
		s.write(&response{JSONRPC: "2.0", ID: nullID, Error: &rpcError{Code: codeInvalidRequest, Message: "invalid request: empty or malformed batch"}})
		return
	}
	out := make([]*response, len(items))
	var wg sync.WaitGroup
	for i, raw := range items {
		in, id, rerr := parseMessage(raw)
		switch {
		case rerr != nil:
			out[i] = &response{JSONRPC: "2.0", ID: id, Error: rerr}
		case in.isResponse:
		case in.method == "initialize":
			out[i] = &response{JSONRPC: "2.0", ID: idOrNull(in.id), Error: &rpcError{Code: codeInvalidRequest, Message: "invalid request: initialize must not be part of a batch"}}
		case in.id == nil:
			s.notification(in)
		default:
			key := s.track(ctx, in.id)
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := s.handle(key.ctx, in)
				if s.untrack(in.id) {
					out[i] = r
				}
			}()
		}
	}
	wg.Wait()
	var resp []*response
	for _, r := range out {
		if r != nil {
			resp = append(resp, r)
		}
	}
	if len(resp) > 0 {
		s.write(resp)
	}
}

type tracked struct{ ctx context.Context }

// track registers an in-flight request for notifications/cancelled.
func (s *server) track(ctx context.Context, id json.RawMessage) tracked {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.calls[string(id)] = cancel
	s.mu.Unlock()
	return tracked{ctx}
}

// untrack forgets a finished request; false means it was cancelled (its
// response is not sent).
func (s *server) untrack(id json.RawMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cancel := s.calls[string(id)]; cancel != nil {
		cancel()
	}
	delete(s.calls, string(id))
	c := s.cancelled[string(id)]
	delete(s.cancelled, string(id))
	return !c
}

// notification handles a message without id.
func (s *server) notification(in incoming) {
	switch in.method {
	case "notifications/initialized":
		s.log.Debug("client initialized")
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		if err := json.Unmarshal(in.params, &p); err != nil || len(p.RequestID) == 0 {
			s.log.Debug("malformed cancellation", "params", string(in.params))
			return
		}
		id := string(bytes.TrimSpace(p.RequestID))
		s.mu.Lock()
		if cancel := s.calls[id]; cancel != nil {
			s.cancelled[id] = true
			cancel()
		}
		s.mu.Unlock()
		s.log.Debug("request cancelled", "id", id, "reason", p.Reason)
	default:
		s.log.Debug("notification ignored", "method", in.method)
	}
}

// handle answers one request.
func (s *server) handle(ctx context.Context, in incoming) *response {
	r := &response{JSONRPC: "2.0", ID: in.id}
	fail := func(code int, format string, args ...any) *response {
		r.Error = &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
		return r
	}
	s.mu.Lock()
	initialized, version := s.initialized, s.version
	s.mu.Unlock()
	switch in.method {
	case "initialize":
		if initialized {
			return fail(codeInvalidRequest, "invalid request: the session is already initialized")
		}
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
			ClientInfo      struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"clientInfo"`
		}
		if err := json.Unmarshal(paramsOrEmpty(in.params), &p); err != nil {
			return fail(codeInvalidParams, "invalid params: %v", err)
		}
		if p.ProtocolVersion == "" {
			return fail(codeInvalidParams, "invalid params: protocolVersion is required")
		}
		v := negotiate(p.ProtocolVersion)
		s.mu.Lock()
		s.initialized, s.version = true, v
		s.mu.Unlock()
		s.log.Info("session initialized", "client", p.ClientInfo.Name, "clientVersion", p.ClientInfo.Version,
			"requested", p.ProtocolVersion, "protocol", v)
		r.Result = map[string]any{
			"protocolVersion": v,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      serverInfo(s.opts, v),
			"instructions":    instructions,
		}
		return r
	case "ping":
		r.Result = struct{}{}
		return r
	}
	if !initialized {
		return fail(codeInvalidRequest, "invalid request: the session is not initialized (send initialize first)")
	}
	switch in.method {
	case "tools/list":
		r.Result = map[string]any{"tools": toolList(version)}
		return r
	case "tools/call":
		var p callParams
		if err := json.Unmarshal(paramsOrEmpty(in.params), &p); err != nil {
			return fail(codeInvalidParams, "invalid params: %v", err)
		}
		if p.Name == "" {
			return fail(codeInvalidParams, "invalid params: name is required (the tool to call)")
		}
		t, ok := toolsByName[p.Name]
		if !ok {
			return fail(codeInvalidParams, "unknown tool %q (tools/list names the tools)", p.Name)
		}
		res, rerr := s.callTool(ctx, t, p.Arguments)
		if rerr != nil {
			r.Error = rerr
			return r
		}
		r.Result = res
		return r
	}
	return fail(codeMethodNotFound, "method not found: %s", in.method)
}

// callParams are the parameters of tools/call.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

func paramsOrEmpty(p json.RawMessage) json.RawMessage {
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		return json.RawMessage("{}")
	}
	return p
}

func serverInfo(o Options, version string) map[string]any {
	info := map[string]any{"name": o.Name, "version": o.Version}
	if versionAtLeast(version, "2025-06-18") {
		info["title"] = "context-ls"
	}
	return info
}

// instructions tell the agent how to use the tools (initialize result).
const instructions = "context-ls indexes this workspace and answers with small, located snippets. " +
	"Start with query_context to find where something is implemented or explained; use context_pack for a " +
	"token-budgeted bundle about a task or about a file's lines; find_callers, find_callees and find_tests follow " +
	"the call graph. Locations are workspace-relative paths with 1-based, inclusive line ranges. After you edit " +
	"files, call refresh_context with their paths so that later answers see the change."

// callTool runs a tool's operation through the index — in this process
// when it owns the index, else in the owner's — and renders its result.
// Bad arguments and failures are tool errors the agent reads.
func (s *server) callTool(ctx context.Context, t *tool, args json.RawMessage) (*toolResult, *rpcError) {
	idx, err := s.index(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return errorResult("%s: cancelled", t.name), nil
		}
		return errorResult("%s: the index of %s is not available: %s", t.name, s.opts.Root, service.OneLine(err)), nil
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	raw, err := idx.Call(ctx, t.op.Name, args)
	var se *service.Error
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return errorResult("%s: cancelled", t.name), nil
	case errors.As(err, &se) && (se.Code == service.CodeInvalid || se.Code == service.CodeNotFound && se.Field != ""):
		return errorResult("%s: bad argument %s", t.name, service.OneLine(se)), nil
	case errors.Is(err, share.ErrOwnerGone):
		return errorResult("%s: the process owning the index exited during the call, which may or may not have "+
			"taken effect; check with get_context_stats or get_rebuild_status", t.name), nil
	default:
		return errorResult("%s failed: %s", t.name, service.OneLine(err)), nil
	}
	text, structured, err := t.render(raw, s)
	if err != nil {
		return nil, &rpcError{Code: codeInternalError, Message: fmt.Sprintf("%s: %v", t.name, err)}
	}
	return &toolResult{Content: []textContent{{Type: "text", Text: text}}, StructuredContent: structured}, nil
}

// sharing is this session's view of index ownership.
func (s *server) sharing() *Sharing {
	s.joinMu.Lock()
	idx := s.idx
	s.joinMu.Unlock()
	if idx == nil {
		return nil
	}
	ss := idx.Status()
	sh := &Sharing{State: ss.State, ServerPID: os.Getpid(), Socket: ss.Socket}
	if ss.Owner != nil {
		sh.OwnerPID, sh.OwnerRole = ss.Owner.PID, ss.Owner.Role
	}
	return sh
}
