package share

import (
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
	"github.com/context-ls/context-ls/store"
)

// Owned is an index this process owns: its engine, the service over it,
// and the socket through which other processes reach that service.
type Owned struct {
	Engine  *engine.Engine
	Service *service.Service
	owner   *shareOwner
	once    sync.Once
	err     error
}

// Close stops serving the index to other processes (their in-flight calls
// finish first), then closes the service and the engine. Closing twice is
// harmless.
func (o *Owned) Close() error {
	o.once.Do(func() {
		if o.owner != nil {
			o.owner.stop(nil, shareMsg{})
		}
		o.err = errors.Join(o.Service.Close(), o.Engine.Close())
	})
	return o.err
}

// own opens the service of a freshly opened engine and serves it.
func own(e *engine.Engine, sopts service.Options, log *slog.Logger, info OwnerInfo, handover func(*ownerConn, PeerInfo) error) (*Owned, error) {
	svc, err := service.New(e, sopts)
	if err != nil {
		e.Close()
		return nil, err
	}
	return &Owned{Engine: e, Service: svc, owner: startOwner(svc, log, info, handover)}, nil
}

func logger(opts engine.Options) *slog.Logger {
	if opts.Logger != nil {
		return opts.Logger
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// CallOwner runs one operation on the process owning the index in dbDir,
// for a process that found the index locked and has no use for the index
// beyond that call (a CLI command). It returns the owner's description.
// When nobody answers on the index's socket, or the owner is closing and
// did not run the call, the error wraps ErrNoOwner (and, when there is no
// socket at all — the lock holder does not share — fs.ErrNotExist); when
// the owner went away during the call, ErrOwnerGone.
func CallOwner(ctx context.Context, dbDir, op string, request json.RawMessage) (json.RawMessage, OwnerInfo, error) {
	c, err := dialOwner(ctx, SocketPath(dbDir), PeerInfo{PID: os.Getpid(), Role: RoleCLI})
	if err != nil {
		return nil, OwnerInfo{}, fmt.Errorf("%w: %w", ErrNoOwner, err)
	}
	defer c.close()
	res, err := c.do(ctx, shareMsg{Op: "call", Call: op, Params: request})
	if errors.Is(err, errOwnerClosing) {
		err = fmt.Errorf("%w: %w", ErrNoOwner, err)
	}
	return res, c.owner, err
}

// ---------------------------------------------------------------------------
// OpenEditor: the editor's side.

// OpenEditor opens the index of root for a process that needs the engine
// itself — an editor's language server, which holds unsaved buffers — and
// serves it to the others until Close. When another process owns the
// index and yields (an MCP server), it is asked to hand the index over and
// OpenEditor opens it once released. An owner that does not yield
// (another editor's server) makes OpenEditor fail with an error wrapping
// store.ErrLocked and ErrHandoverRefused.
func OpenEditor(ctx context.Context, root string, opts engine.Options, sopts service.Options) (*Owned, error) {
	dbDir, _, err := engine.ResolveDir(root, opts)
	if err != nil {
		return nil, err
	}
	sock := SocketPath(dbDir)
	me := PeerInfo{PID: os.Getpid(), Role: RoleEditor}
	deadline := time.Now().Add(DefaultWait)
	backoff := 20 * time.Millisecond
	for {
		e, err := engine.Open(ctx, root, opts)
		if err == nil {
			return own(e, sopts, logger(opts), OwnerInfo{Role: RoleEditor}, nil)
		}
		if !errors.Is(err, store.ErrLocked) {
			return nil, err
		}
		herr := requestHandover(ctx, sock, me)
		switch {
		case herr == nil:
			backoff = 20 * time.Millisecond
			continue
		case errors.Is(herr, ErrHandoverRefused):
			return nil, fmt.Errorf("%w; %w", err, herr)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case time.Now().After(deadline):
			return nil, fmt.Errorf("%w; %w on %s: %v", err, ErrNoOwner, sock, herr)
		}
		if err := sleepCtx(ctx, backoff); err != nil {
			return nil, err
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// requestHandover asks the owner on sock to release the index; nil means
// it did (its engine is closed).
func requestHandover(ctx context.Context, sock string, me PeerInfo) error {
	c, err := dialOwner(ctx, sock, me)
	if err != nil {
		return err
	}
	defer c.close()
	params, _ := json.Marshal(me)
	// The owner finishes its in-flight calls first: allow for them.
	hctx, cancel := context.WithTimeout(ctx, 2*drainTimeout+helloTimeout)
	defer cancel()
	_, err = c.do(hctx, shareMsg{Op: "handover", Params: params})
	return err
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Index: the agent's side.

// Options configure Join.
type Options struct {
	// Engine configures the index when this process opens it.
	Engine engine.Options
	// Service configures the service when this process owns the index.
	Service service.Options
	// Role names this process to the others (RoleAgent by default).
	Role string
	// Yield hands the index over to an OpenEditor caller that asks for it
	// while this process owns it; this process then forwards its calls to
	// the new owner.
	Yield bool
	// OnOwn, if set, runs on a goroutine of its own each time this process
	// becomes the owner (index maintenance, file watching); its context
	// ends when ownership ends (handover, Close), and the index is closed
	// only after it returns.
	OnOwn func(ctx context.Context, svc *service.Service)
	// Wait bounds the search for an owner or the lock (DefaultWait when
	// zero).
	Wait time.Duration
}

// Status tells how an Index reaches its index.
type Status struct {
	// State is "owner" (this process holds the index), "client" (calls
	// go to the owner's process), "connecting" or "unavailable".
	State string `json:"state"`
	// Owner describes the owning process (this one when State is owner).
	Owner *OwnerInfo `json:"owner,omitempty"`
	// Socket is the owner's socket path.
	Socket string `json:"socket"`
	// DBDir is the index directory.
	DBDir string `json:"dbDir"`
	// Error says why the index is unavailable.
	Error string `json:"error,omitempty"`
}

type shareState int

const (
	stSettling shareState = iota
	stOwner
	stClient
	stFailed
	stClosed
)

// Index is a process's handle on an index that several processes share:
// this process either owns the index (its service runs the calls) or
// forwards its calls to the owner's process. It follows ownership changes
// — handovers, owners that exit or die — by itself. It is a
// service.Backend.
type Index struct {
	root   string
	canon  string
	opts   Options
	me     PeerInfo
	dbDir  string
	sock   string
	log    *slog.Logger
	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // settle goroutines

	mu      sync.Mutex
	state   shareState
	owned   *Owned
	cli     *shareClient
	lastErr error
	changed chan struct{} // closed and replaced at every state change
	ownStop context.CancelFunc
	ownDone chan struct{}
}

// Join joins the index of root: it opens the index when nobody holds it
// (and serves it to the others), else connects to its owner. It fails
// when neither works within opts.Wait, or when the owner serves another
// workspace.
func Join(ctx context.Context, root string, opts Options) (*Index, error) {
	dbDir, canon, err := engine.ResolveDir(root, opts.Engine)
	if err != nil {
		return nil, err
	}
	if opts.Role == "" {
		opts.Role = RoleAgent
	}
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	life, cancel := context.WithCancel(context.Background())
	x := &Index{
		root: root, canon: canon, opts: opts, dbDir: dbDir, sock: SocketPath(dbDir),
		me: PeerInfo{Protocol: shareProtocol, PID: os.Getpid(), Role: opts.Role}, log: logger(opts.Engine),
		life: life, cancel: cancel, changed: make(chan struct{}),
	}
	e, c, err := x.settle(ctx, 0)
	if err != nil {
		cancel()
		return nil, err
	}
	x.mu.Lock()
	x.install(e, c, nil)
	x.mu.Unlock()
	return x, nil
}

// settle finds the index: the owner's socket first, then the lock. During
// grace only the socket is tried (a handover is under way).
func (x *Index) settle(ctx context.Context, grace time.Duration) (*engine.Engine, *shareClient, error) {
	start := time.Now()
	deadline := start.Add(x.opts.Wait)
	backoff := 20 * time.Millisecond
	var lastErr error
	for {
		c, err := dialOwner(ctx, x.sock, x.me)
		if err == nil {
			if c.owner.Root != x.canon {
				c.close()
				return nil, nil, fmt.Errorf("the owner of index %s (pid %d) serves workspace %s, not %s: %w",
					x.dbDir, c.owner.PID, c.owner.Root, x.canon, engine.ErrWrongIndex)
			}
			return nil, c, nil
		}
		lastErr = err
		if time.Since(start) >= grace {
			e, err := engine.Open(ctx, x.root, x.opts.Engine)
			if err == nil {
				return e, nil, nil
			}
			if !errors.Is(err, store.ErrLocked) {
				return nil, nil, err
			}
			lastErr = fmt.Errorf("%w; socket: %v", err, lastErr)
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("index %s: %w on %s (waited %s): %v", x.dbDir, ErrNoOwner, x.sock, x.opts.Wait, lastErr)
		}
		if err := sleepCtx(ctx, backoff); err != nil {
			return nil, nil, err
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// install records the outcome of settle; x.mu is held.
func (x *Index) install(e *engine.Engine, c *shareClient, err error) {
	if e != nil {
		var handover func(*ownerConn, PeerInfo) error
		if x.opts.Yield {
			handover = x.release
		}
		owned, oerr := own(e, x.opts.Service, x.log, OwnerInfo{Role: x.opts.Role, Yields: x.opts.Yield}, handover)
		if oerr != nil {
			e, err = nil, oerr
		} else {
			x.owned = owned
		}
	}
	switch {
	case err != nil:
		x.state, x.lastErr = stFailed, err
		x.log.Warn("index unavailable", "index", x.dbDir, "error", err)
	case e != nil:
		x.state, x.cli = stOwner, nil
		ctx, stop := context.WithCancel(x.life)
		done := make(chan struct{})
		x.ownStop, x.ownDone = stop, done
		svc := x.owned.Service
		go func() {
			defer close(done)
			if x.opts.OnOwn != nil {
				x.opts.OnOwn(ctx, svc)
			}
		}()
		x.log.Info("index opened: this process owns it", "index", x.dbDir, "socket", x.sock)
	default:
		x.state, x.cli, x.owned = stClient, c, nil
		x.log.Info("index owned by another process: forwarding calls", "index", x.dbDir,
			"owner", c.owner.PID, "role", c.owner.Role)
	}
	close(x.changed)
	x.changed = make(chan struct{})
}

// release hands the index over: stop the owner's background work, finish
// in-flight calls, close the service and the engine (freeing the lock),
// then find the new owner in the background. The reply "released" follows
// its return.
func (x *Index) release(keep *ownerConn, by PeerInfo) error {
	x.mu.Lock()
	if x.state != stOwner || keep.o != x.owned.owner {
		x.mu.Unlock()
		return errNotReady
	}
	owned, stop, done := x.owned, x.ownStop, x.ownDone
	x.state, x.owned = stSettling, nil
	x.mu.Unlock()
	stop()
	<-done
	owned.owner.stop(keep, shareMsg{To: by.PID})
	owned.owner = nil
	err := owned.Close()
	x.startSettle(handoverGrace)
	if err != nil {
		return fmt.Errorf("closing the index: %w", err)
	}
	return nil
}

// startSettle looks for the index again in the background.
func (x *Index) startSettle(grace time.Duration) {
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		e, c, err := x.settle(x.life, grace)
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.state == stClosed {
			if e != nil {
				e.Close()
			}
			if c != nil {
				c.close()
			}
			return
		}
		x.install(e, c, err)
	}()
}

// route is where a call goes: the local owner or a client connection.
type route struct {
	own *shareOwner
	cli *shareClient
}

// acquire returns the current route, waiting while ownership changes.
func (x *Index) acquire(ctx context.Context) (route, error) {
	tried := false
	for {
		x.mu.Lock()
		switch x.state {
		case stOwner:
			r := route{own: x.owned.owner}
			x.mu.Unlock()
			return r, nil
		case stClient:
			if !x.cli.dead() {
				r := route{cli: x.cli}
				x.mu.Unlock()
				return r, nil
			}
			grace := time.Duration(0)
			if x.cli.handoverTo.Load() != 0 {
				grace = handoverGrace
			}
			// Calls still in flight on the old connection get their
			// replies: a closing owner answers them before it hangs up.
			// Close it only if the owner never does.
			old := x.cli
			time.AfterFunc(2*drainTimeout+helloTimeout, old.close)
			x.state, x.cli = stSettling, nil
			tried = true
			x.startSettle(grace)
		case stFailed:
			if tried {
				err := x.lastErr
				x.mu.Unlock()
				return route{}, err
			}
			tried = true
			x.state = stSettling
			x.startSettle(0)
		case stClosed:
			x.mu.Unlock()
			return route{}, ErrClosed
		}
		ch := x.changed
		x.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return route{}, ctx.Err()
		}
	}
}

// Call runs a service operation against the index: on this process's
// service when it owns the index, else in the owner's process. Calls that
// did not run because ownership was changing are sent again to the next
// owner, and so is a read-only operation whose owner died during the
// call; another operation in flight when its owner died fails with an
// error wrapping ErrOwnerGone (it may or may not have taken effect).
// The state of a reindex job this process started is answered here.
func (x *Index) Call(ctx context.Context, op string, request json.RawMessage) (json.RawMessage, error) {
	if op == service.OpJob.Name {
		var req service.JobRequest
		if json.Unmarshal(request, &req) == nil {
			if st, ok := service.JobStatusOf(req.JobID); ok {
				return json.Marshal(st)
			}
		}
	}
	o, known := service.Lookup(op)
	var lastErr error
	goneRetried := false
	for attempt := 0; attempt < 8; attempt++ {
		r, err := x.acquire(ctx)
		if err != nil {
			return nil, err
		}
		var res json.RawMessage
		if r.own != nil {
			res, err = r.own.call(ctx, op, request)
		} else {
			res, err = r.cli.do(ctx, shareMsg{Op: "call", Call: op, Params: request})
		}
		switch {
		case err == nil:
			return res, nil
		case errors.Is(err, errOwnerClosing), errors.Is(err, errNotDelivered):
			lastErr = err
			if r.cli != nil {
				r.cli.closing.Store(true)
			}
			continue
		case errors.Is(err, ErrOwnerGone) && known && o.ReadOnly && !goneRetried && ctx.Err() == nil:
			x.log.Info("the index owner went away during a call; sending it again", "operation", op)
			goneRetried = true
			lastErr = err
			continue
		}
		return nil, err
	}
	return nil, fmt.Errorf("ownership of the index kept changing: %w", lastErr)
}

// Status reports how the index is reached now.
func (x *Index) Status() Status {
	x.mu.Lock()
	defer x.mu.Unlock()
	st := Status{Socket: x.sock, DBDir: x.dbDir}
	switch x.state {
	case stOwner:
		st.State = "owner"
		info := x.owned.owner.info
		st.Owner = &info
	case stClient:
		st.State = "client"
		info := x.cli.owner
		st.Owner = &info
	case stSettling:
		st.State = "connecting"
	case stFailed:
		st.State = "unavailable"
		st.Error = x.lastErr.Error()
	case stClosed:
		st.State = "closed"
	}
	return st
}

// DBDir returns the index directory.
func (x *Index) DBDir() string { return x.dbDir }

// Close leaves the index: an owner stops serving (its clients find the
// next owner), finishes its calls and closes its index; a client
// disconnects.
func (x *Index) Close() error {
	x.mu.Lock()
	if x.state == stClosed {
		x.mu.Unlock()
		return nil
	}
	owned, c, stop, done := x.owned, x.cli, x.ownStop, x.ownDone
	x.state, x.owned, x.cli = stClosed, nil, nil
	close(x.changed)
	x.changed = make(chan struct{})
	x.mu.Unlock()
	x.cancel()
	var err error
	if owned != nil {
		stop()
		<-done
		err = owned.Close()
	}
	if c != nil {
		c.close()
	}
	x.wg.Wait()
	return err
}
