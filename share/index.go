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
)

// owned is an index this process owns: its engine, the service over it,
// and the socket through which other processes reach that service.
type owned struct {
	engine  *engine.Engine
	service *service.Service
	owner   *shareOwner
	once    sync.Once
	err     error
}

// close stops serving the index to other processes (their in-flight calls
// finish first), then closes the service and the engine. Closing twice is
// harmless.
func (o *owned) close() error {
	o.once.Do(func() {
		if o.owner != nil {
			o.owner.stop(nil, shareMsg{})
		}
		o.err = errors.Join(o.service.Close(), o.engine.Close())
	})
	return o.err
}

// own opens the service of a freshly opened engine and serves it.
func own(e *engine.Engine, sopts service.Options, log *slog.Logger, info OwnerInfo, handover func(*ownerConn, PeerInfo) error) (*owned, error) {
	svc, err := service.New(e, sopts)
	if err != nil {
		e.Close()
		return nil, err
	}
	return &owned{engine: e, service: svc, owner: startOwner(svc, log, info, handover)}, nil
}

func logger(opts engine.Options) *slog.Logger {
	if opts.Logger != nil {
		return opts.Logger
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
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
// Index: one process's handle on a shared index, whatever its role.

// Options configure Open.
type Options struct {
	// Engine configures the index when this process opens it.
	Engine engine.Options
	// Service configures the service when this process owns the index.
	Service service.Options
	// Role names this process to the others (RoleAgent by default).
	Role string
	// Yield hands the index over to a process that asks for it (TakeOver)
	// while this process owns it; this process then forwards its calls to
	// the new owner.
	Yield bool
	// TakeOver asks an owner that yields to hand the index over (an
	// editor's server, which needs the engine for its buffers); an owner
	// that does not yield (another editor) is forwarded to until it
	// leaves, and this process then takes the index.
	TakeOver bool
	// OnOwn, if set, runs on a goroutine of its own each time this process
	// becomes the owner (index maintenance, file watching); its context
	// ends when ownership ends (handover, Close), and the index is closed
	// only after it returns.
	OnOwn func(ctx context.Context, svc *service.Service)
	// Wait bounds the search for an owner or the lock (DefaultWait when
	// zero).
	Wait time.Duration
}

// Roles and what they do with the index:
//   - RoleEditor (the language server): TakeOver, never Yield;
//   - RoleAgent (the MCP server): Yield to an editor;
//   - RoleCLI (a CLI command): neither; it owns the index only for its
//     one command, serving the others meanwhile.

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
// — handovers, owners that exit or die — by itself: a client whose owner
// leaves looks for the index again at once, and becomes the owner when
// the lock is free. It is a service.Backend.
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
	owned   *owned
	cli     *shareClient
	lastErr error
	changed chan struct{} // closed and replaced at every state change
	ownStop context.CancelFunc
	ownDone chan struct{}
}

// Open opens the index of root for a process of any role: it opens the
// index when nobody holds it (and serves it to the others), asks an owner
// that yields to hand it over when opts.TakeOver, else connects to the
// owner. It fails when none of these works within opts.Wait, or when the
// owner serves another workspace.
func Open(ctx context.Context, root string, opts Options) (*Index, error) {
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
			if !x.opts.TakeOver || !c.owner.Yields {
				return nil, c, nil
			}
			// An owner that yields hands the index over: it finishes its
			// calls, closes the index and answers; then the lock is free.
			c.close()
			if err = requestHandover(ctx, x.sock, x.me); err == nil {
				backoff, grace = 20*time.Millisecond, 0
				continue
			}
			err = fmt.Errorf("handover: %w", err)
		}
		lastErr = err
		if time.Since(start) >= grace {
			e, err := engine.Open(ctx, x.root, x.opts.Engine)
			if err == nil {
				return e, nil, nil
			}
			if !errors.Is(err, engine.ErrLocked) {
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
		svc := x.owned.service
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
		go x.follow(c)
	}
	close(x.changed)
	x.changed = make(chan struct{})
}

// follow waits until the owner behind c leaves (it closes, hands the
// index on or dies) and then looks for the index again, so that this
// process takes it over when it is free without waiting for a call.
func (x *Index) follow(c *shareClient) {
	select {
	case <-c.gone:
	case <-x.life.Done():
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.state == stClient && x.cli == c {
		x.resettleLocked()
	}
}

// resettleLocked drops the client connection of an owner that left and
// looks for the index again in the background; x.mu is held.
func (x *Index) resettleLocked() {
	grace := time.Duration(0)
	if x.cli.handoverTo.Load() != 0 {
		grace = handoverGrace
	}
	// Calls still in flight on the old connection get their replies: a
	// closing owner answers them before it hangs up. Close it only if the
	// owner never does.
	old := x.cli
	time.AfterFunc(2*drainTimeout+helloTimeout, old.close)
	x.state, x.cli = stSettling, nil
	x.startSettle(grace)
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
	err := owned.close()
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
			tried = true
			x.resettleLocked()
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
		err = owned.close()
	}
	if c != nil {
		c.close()
	}
	x.wg.Wait()
	return err
}

// Local returns the service of the index when this process owns it (nil
// while another process does): what only the owner can do — bring the
// index up to date beside a query, rebuild it — goes through it.
func (x *Index) Local() *service.Service {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.state != stOwner {
		return nil
	}
	return x.owned.service
}
