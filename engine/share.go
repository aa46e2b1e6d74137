package engine

// Index sharing between processes.
//
// Pebble locks its directory, so one process at a time can hold an index
// open: its *owner*. The owner also listens on a Unix socket in the index
// directory (ShareSocketName, mode 0600, peers of another user refused). A
// process that finds the index locked talks to the owner over that socket
// instead of opening the index:
//
//   - a SharedIndex (the MCP server) forwards calls — a service name, a
//     method and JSON parameters — which the owner runs with the Service
//     registered under that name against its own engine;
//   - OpenShared (the editor's language server, which needs the engine for
//     overlays, definitions, hover …) asks an owner that yields to hand the
//     index over: the owner finishes its in-flight calls, closes its engine,
//     answers "released", and becomes a forwarding client of the new owner.
//
// An owner that died leaves a socket nobody listens on and a free lock: the
// next process takes the lock, removes the stale socket and listens. Clients
// whose owner went away open the index themselves or find the new owner.
// Concurrent starts are decided by the lock; the losers become clients.
//
// Wire format: newline-delimited JSON objects (shareMsg), one per line, in
// both directions; requests carry an id that the reply repeats.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/context-ls/context-ls/store"
)

// ShareSocketName is the owner's socket in the index directory.
const ShareSocketName = "owner.sock"

// Roles of processes sharing an index, as OwnerInfo and PeerInfo name them.
const (
	// RoleEditor is a language server opened with OpenShared: it takes the
	// index over from an owner that yields and never yields it.
	RoleEditor = "editor"
	// RoleAgent is an MCP server: it owns the index only until an editor's
	// server asks for it.
	RoleAgent = "agent"
	// RoleCLI is a CLI command that found the index owned: it runs its
	// one call on the owner (CallOwner) and never takes the index over.
	RoleCLI = "cli"
)

// Timing of the sharing protocol.
const (
	shareProtocol   = 1
	maxShareMessage = 64 << 20
	// DefaultShareWait bounds how long a process looks for an owner or the
	// lock before giving up.
	DefaultShareWait = 30 * time.Second
	helloTimeout     = 3 * time.Second
	// handoverGrace is how long clients of an owner that handed the index
	// over wait for the new owner's socket before trying the lock
	// themselves (which would only make the new owner ask again).
	handoverGrace = 5 * time.Second
	maxSocketPath = 100 // sun_path holds 104 bytes on macOS, 108 on Linux
)

// drainTimeout bounds the wait for in-flight calls when an owner closes;
// calls still running then are cancelled. A variable for tests.
var drainTimeout = 10 * time.Second

// Errors of index sharing; check them with errors.Is.
var (
	// ErrOwnerGone: the owner went away while a forwarded call was in
	// flight; the call may or may not have run.
	ErrOwnerGone = errors.New("the process owning the index went away")
	// ErrNoOwner: the index is locked but no owner answers on its socket.
	ErrNoOwner = errors.New("the index is locked and no owner answers")
	// ErrHandoverRefused: the owner keeps the index (it is an editor's
	// server).
	ErrHandoverRefused = errors.New("the index owner does not hand it over")
	// ErrUnknownService: no Service is registered under the name in the
	// owner's process.
	ErrUnknownService = errors.New("unknown service")
	// ErrShareClosed: the SharedIndex was closed.
	ErrShareClosed = errors.New("shared index closed")
)

// Service answers calls that processes sharing an index send to its owner.
// The owner makes one per engine, on the first call, and closes it before
// the engine closes; Call may run concurrently.
type Service interface {
	// Call runs method with params against the service's engine.
	Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// Close stops background work the service started; no Call follows.
	Close() error
}

// ServiceFactory makes the Service of an engine.
type ServiceFactory func(e *Engine) Service

var serviceRegistry = struct {
	sync.RWMutex
	m map[string]ServiceFactory
}{m: map[string]ServiceFactory{}}

// RegisterService makes a service available to processes sharing an index
// with this one (when this one owns it) and to SharedIndex.Call in this
// process. It panics if name is empty or already registered, like
// database/sql's Register: registration happens once, at start-up.
func RegisterService(name string, f ServiceFactory) {
	serviceRegistry.Lock()
	defer serviceRegistry.Unlock()
	if name == "" || f == nil {
		panic("engine: RegisterService needs a name and a factory")
	}
	if _, dup := serviceRegistry.m[name]; dup {
		panic("engine: RegisterService called twice for " + name)
	}
	serviceRegistry.m[name] = f
}

func serviceFactory(name string) (ServiceFactory, bool) {
	serviceRegistry.RLock()
	defer serviceRegistry.RUnlock()
	f, ok := serviceRegistry.m[name]
	return f, ok
}

// OwnerInfo describes the owner of an index, as its socket reports it.
type OwnerInfo struct {
	Protocol int    `json:"protocol"`
	PID      int    `json:"pid"`
	Role     string `json:"role"`
	// Root is the canonical workspace root of the owner's engine.
	Root string `json:"root"`
	// Yields is true when the owner hands the index over on request.
	Yields bool `json:"yields"`
	// Since is when it took ownership (RFC 3339).
	Since string `json:"since"`
}

// PeerInfo describes a process talking to an owner.
type PeerInfo struct {
	Protocol int    `json:"protocol"`
	PID      int    `json:"pid"`
	Role     string `json:"role"`
}

// shareMsg is one line of the sharing protocol: a request (Op), a reply
// (ID with Result or Error) or an event from the owner (Event).
type shareMsg struct {
	ID      uint64          `json:"id,omitempty"`
	Op      string          `json:"op,omitempty"` // hello, call, cancel, handover
	Service string          `json:"service,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *shareError     `json:"error,omitempty"`
	Event   string          `json:"event,omitempty"` // closing
	To      int             `json:"to,omitempty"`    // closing: the pid the index goes to
}

// shareError is an error reply; Code tells the client what to do.
type shareError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error codes of replies.
const (
	codeClosing  = "closing"  // the owner is closing: the call did not run; retry with the next owner
	codeRefused  = "refused"  // handover refused
	codeNoSvc    = "service"  // unknown service
	codeFailed   = "failed"   // the call ran and failed
	codeBadInput = "badInput" // malformed request
	codeGone     = "gone"     // the owner cut the call off while closing: it may have run in part
)

// errOwnerClosing: the call did not run because the owner is closing.
var errOwnerClosing = errors.New("the index owner is closing")

// errNotReady: a handover request reached an owner still starting up.
var errNotReady = errors.New("the index owner is starting up")

func (e *shareError) err() error {
	switch e.Code {
	case codeClosing:
		return errOwnerClosing
	case codeRefused:
		return fmt.Errorf("%w: %s", ErrHandoverRefused, e.Message)
	case codeNoSvc:
		return fmt.Errorf("%w: %s", ErrUnknownService, e.Message)
	case codeGone:
		return fmt.Errorf("%w: %s", ErrOwnerGone, strings.TrimPrefix(e.Message, ErrOwnerGone.Error()+": "))
	}
	return errors.New(e.Message)
}

// ShareSocketPath returns the socket of the index in dbDir: dbDir/owner.sock,
// or, when that path is too long for a Unix socket address, a file named
// after a hash of dbDir in a private directory under the system's temporary
// directory.
func ShareSocketPath(dbDir string) string {
	p := filepath.Join(dbDir, ShareSocketName)
	if len(p)+24 <= maxSocketPath { // room for the temporary bind name
		return p
	}
	sum := sha256.Sum256([]byte(dbDir))
	return filepath.Join(os.TempDir(), fmt.Sprintf("context-ls-%d", os.Getuid()), hex.EncodeToString(sum[:8])+".sock")
}

// resolveDBDir returns the index directory Open would use for root.
func resolveDBDir(root string, opts Options) (dbDir, canonRoot string, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", "", fmt.Errorf("workspace %q: %w", root, err)
	}
	canonRoot, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", fmt.Errorf("open workspace: %w", err)
	}
	dbDir = opts.DBDir
	if dbDir == "" {
		if dbDir, err = store.DefaultDir(canonRoot); err != nil {
			return "", "", err
		}
	}
	if dbDir, err = filepath.Abs(dbDir); err != nil {
		return "", "", err
	}
	return dbDir, canonRoot, nil
}

// ---------------------------------------------------------------------------
// The owner's side.

// shareOwner serves an engine's socket: forwarded calls, handover requests.
type shareOwner struct {
	e    *Engine
	info OwnerInfo
	log  *slog.Logger
	path string
	ln   *net.UnixListener // nil when the socket could not be created
	sock os.FileInfo       // the socket file we created
	// handover releases the index for the requester, keeping conn open
	// for the reply; nil refuses every request.
	handover func(conn *ownerConn, by PeerInfo) error

	mu        sync.Mutex
	closing   bool
	closingTo int // the pid the index is handed to, when closing for a handover
	active    int
	idle      chan struct{} // closed when active drops to 0 during stop
	seq       uint64
	cancels   map[uint64]context.CancelFunc
	conns     map[*ownerConn]bool
	svcs      map[string]Service

	// cut is set when stop cancels calls that outlived drainTimeout.
	cut atomic.Bool

	stopOnce sync.Once
	acceptWG sync.WaitGroup
}

// startOwner makes e serve its socket. A socket that cannot be created is
// logged: e stays usable, and other processes report that no owner answers.
func startOwner(e *Engine, info OwnerInfo, handover func(*ownerConn, PeerInfo) error) *shareOwner {
	info.Protocol = shareProtocol
	info.PID = os.Getpid()
	info.Root = e.Root()
	info.Since = time.Now().UTC().Format(time.RFC3339)
	o := &shareOwner{
		e: e, info: info, log: e.log, path: ShareSocketPath(e.DBDir()), handover: handover,
		cancels: map[uint64]context.CancelFunc{}, conns: map[*ownerConn]bool{}, svcs: map[string]Service{},
	}
	if ln, fi, err := listenOwner(o.path); err != nil {
		o.log.Warn("index sharing disabled: cannot listen", "socket", o.path, "error", err)
	} else {
		o.ln, o.sock = ln, fi
		o.acceptWG.Add(1)
		go o.accept()
	}
	e.sharing.Store(o)
	return o
}

// listenOwner binds the socket under a temporary name, restricts it to the
// user and renames it into place, so that it never exists with looser
// permissions. Whatever was at path is stale: the caller holds the index
// lock, and only lock holders listen.
func listenOwner(path string) (*net.UnixListener, os.FileInfo, error) {
	if filepath.Base(path) != ShareSocketName {
		// the fallback location under the temporary directory
		if err := privateDir(filepath.Dir(path)); err != nil {
			return nil, nil, err
		}
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	_ = os.Remove(tmp)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w", tmp, err)
	}
	ln.SetUnlinkOnClose(false)
	fail := func(err error) (*net.UnixListener, os.FileInfo, error) {
		ln.Close()
		os.Remove(tmp)
		return nil, nil, err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fail(fmt.Errorf("restrict %s: %w", tmp, err))
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail(fmt.Errorf("remove stale socket %s: %w", path, err))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(fmt.Errorf("publish socket %s: %w", path, err))
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return fail(fmt.Errorf("socket %s: %w", path, err))
	}
	return ln, fi, nil
}

// privateDir creates dir with mode 0700, or checks that an existing one is
// a directory of this user that nobody else can write to.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByMe(fi) {
		return fmt.Errorf("socket directory %s is not a private directory of this user", dir)
	}
	return nil
}

func (o *shareOwner) accept() {
	defer o.acceptWG.Done()
	for {
		c, err := o.ln.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				o.log.Warn("index sharing: accept", "error", err)
			}
			return
		}
		if err := checkPeer(c); err != nil {
			o.log.Warn("index sharing: connection refused", "error", err)
			c.Close()
			continue
		}
		oc := &ownerConn{o: o, c: c, calls: map[uint64]context.CancelFunc{}}
		o.mu.Lock()
		if o.closing {
			o.mu.Unlock()
			oc.send(shareMsg{Event: "closing"})
			c.Close()
			continue
		}
		o.conns[oc] = true
		o.mu.Unlock()
		go oc.serve()
	}
}

// call runs one call with the named service, counted as in flight so that
// stop waits for it.
func (o *shareOwner) call(ctx context.Context, service, method string, params json.RawMessage) (json.RawMessage, error) {
	svc, cctx, end, err := o.begin(ctx, service)
	if err != nil {
		return nil, err
	}
	defer end()
	res, err := safeCall(cctx, svc, method, params)
	return res, o.cutOff(ctx, err)
}

// cutOff reports a call that stop cancelled (its caller did not) as
// ErrOwnerGone: it may have run in part, and the caller decides whether
// to run it again on the next owner.
func (o *shareOwner) cutOff(parent context.Context, err error) error {
	if err != nil && o.cut.Load() && parent.Err() == nil {
		return fmt.Errorf("%w: the owner stopped serving the index during the call (%v)", ErrOwnerGone, err)
	}
	return err
}

// begin counts a call in flight and returns its service and a context
// that stop can cancel; end must be called once the call's reply is
// delivered.
func (o *shareOwner) begin(ctx context.Context, service string) (Service, context.Context, func(), error) {
	o.mu.Lock()
	if o.closing {
		o.mu.Unlock()
		return nil, nil, nil, errOwnerClosing
	}
	svc, ok := o.svcs[service]
	if !ok {
		f, found := serviceFactory(service)
		if !found {
			o.mu.Unlock()
			return nil, nil, nil, fmt.Errorf("%w %q in process %d", ErrUnknownService, service, o.info.PID)
		}
		svc = f(o.e)
		o.svcs[service] = svc
	}
	ctx, cancel := context.WithCancel(ctx)
	o.seq++
	id := o.seq
	o.cancels[id] = cancel
	o.active++
	o.mu.Unlock()
	end := func() {
		cancel()
		o.mu.Lock()
		delete(o.cancels, id)
		o.active--
		if o.active == 0 && o.idle != nil {
			close(o.idle)
			o.idle = nil
		}
		o.mu.Unlock()
	}
	return svc, ctx, end, nil
}

// safeCall runs a service call, turning a panic into an error: one bad
// call must not take the index owner (an editor's server) down.
func safeCall(ctx context.Context, svc Service, method string, params json.RawMessage) (res json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("service call %s panicked: %v\n%s", method, r, debug.Stack())
		}
	}()
	return svc.Call(ctx, method, params)
}

// stop closes the socket, tells clients (and waits for in-flight calls, up
// to drainTimeout, then cancels the rest), closes the services and the
// connections except keep. It does not close the engine.
func (o *shareOwner) stop(keep *ownerConn, ev shareMsg) {
	o.stopOnce.Do(func() {
		o.mu.Lock()
		o.closing, o.closingTo = true, ev.To
		var idle chan struct{}
		if o.active > 0 {
			idle = make(chan struct{})
			o.idle = idle
		}
		conns := make([]*ownerConn, 0, len(o.conns))
		for c := range o.conns {
			conns = append(conns, c)
		}
		o.mu.Unlock()
		if o.ln != nil {
			o.ln.Close()
			o.acceptWG.Wait()
			if fi, err := os.Lstat(o.path); err == nil && os.SameFile(fi, o.sock) {
				os.Remove(o.path)
			}
		}
		ev.Event = "closing"
		for _, c := range conns {
			c.send(ev)
		}
		if idle != nil {
			select {
			case <-idle:
			case <-time.After(drainTimeout):
				o.log.Warn("index sharing: cancelling calls still running at close")
				o.cut.Store(true)
				o.mu.Lock()
				for _, cancel := range o.cancels {
					cancel()
				}
				o.mu.Unlock()
				select {
				case <-idle:
				case <-time.After(drainTimeout):
					o.log.Error("index sharing: calls ignore cancellation; closing anyway")
				}
			}
		}
		o.mu.Lock()
		svcs := o.svcs
		o.svcs = map[string]Service{}
		o.mu.Unlock()
		for name, s := range svcs {
			if err := s.Close(); err != nil {
				o.log.Warn("index sharing: closing a service", "service", name, "error", err)
			}
		}
		for _, c := range conns {
			if c != keep {
				c.close()
			}
		}
	})
}

// ownerConn is one client connection of an owner.
type ownerConn struct {
	o   *shareOwner
	c   *net.UnixConn
	wmu sync.Mutex

	mu    sync.Mutex
	calls map[uint64]context.CancelFunc
	shut  bool
}

func (oc *ownerConn) send(m shareMsg) {
	b, err := json.Marshal(m)
	if err != nil {
		oc.o.log.Error("index sharing: encoding a reply", "error", err)
		return
	}
	oc.wmu.Lock()
	defer oc.wmu.Unlock()
	oc.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := oc.c.Write(append(b, '\n')); err != nil {
		oc.o.log.Debug("index sharing: write to a client", "error", err)
	}
}

func (oc *ownerConn) reply(id uint64, res json.RawMessage, err error) {
	m := shareMsg{ID: id}
	switch {
	case err == nil:
		if res == nil {
			res = json.RawMessage("null")
		}
		m.Result = res
	case errors.Is(err, errOwnerClosing):
		m.Error = &shareError{Code: codeClosing, Message: err.Error()}
		oc.o.mu.Lock()
		m.To = oc.o.closingTo
		oc.o.mu.Unlock()
	case errors.Is(err, ErrUnknownService):
		m.Error = &shareError{Code: codeNoSvc, Message: err.Error()}
	case errors.Is(err, ErrHandoverRefused):
		m.Error = &shareError{Code: codeRefused, Message: err.Error()}
	case errors.Is(err, ErrOwnerGone):
		m.Error = &shareError{Code: codeGone, Message: err.Error()}
	default:
		m.Error = &shareError{Code: codeFailed, Message: err.Error()}
	}
	oc.send(m)
}

func (oc *ownerConn) close() {
	oc.mu.Lock()
	oc.shut = true
	for _, cancel := range oc.calls {
		cancel()
	}
	oc.mu.Unlock()
	oc.c.Close()
}

// serve reads the client's requests until it disconnects; calls run
// concurrently and a vanished client's calls are cancelled.
func (oc *ownerConn) serve() {
	defer func() {
		oc.o.mu.Lock()
		delete(oc.o.conns, oc)
		oc.o.mu.Unlock()
		oc.close()
	}()
	r := bufio.NewReaderSize(oc.c, 64<<10)
	for {
		line, err := readShareLine(r)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				oc.o.log.Debug("index sharing: reading from a client", "error", err)
			}
			return
		}
		var m shareMsg
		if err := json.Unmarshal(line, &m); err != nil {
			oc.send(shareMsg{Error: &shareError{Code: codeBadInput, Message: "malformed message: " + err.Error()}})
			return
		}
		switch m.Op {
		case "hello":
			info, _ := json.Marshal(oc.o.info)
			oc.reply(m.ID, info, nil)
		case "call":
			oc.startCall(m)
		case "cancel":
			oc.mu.Lock()
			if cancel := oc.calls[m.ID]; cancel != nil {
				cancel()
			}
			oc.mu.Unlock()
		case "handover":
			go oc.handover(m)
		default:
			oc.reply(m.ID, nil, fmt.Errorf("unknown operation %q", m.Op))
		}
	}
}

func (oc *ownerConn) startCall(m shareMsg) {
	ctx, cancel := context.WithCancel(context.Background())
	oc.mu.Lock()
	if oc.shut {
		oc.mu.Unlock()
		cancel()
		return
	}
	oc.calls[m.ID] = cancel
	oc.mu.Unlock()
	go func() {
		defer func() {
			cancel()
			oc.mu.Lock()
			delete(oc.calls, m.ID)
			oc.mu.Unlock()
		}()
		svc, cctx, end, err := oc.o.begin(ctx, m.Service)
		if err != nil {
			oc.reply(m.ID, nil, err)
			return
		}
		// The reply is part of the call: an owner closing for a handover
		// waits until it is written.
		defer end()
		res, err := safeCall(cctx, svc, m.Method, m.Params)
		oc.reply(m.ID, res, oc.o.cutOff(ctx, err))
	}()
}

func (oc *ownerConn) handover(m shareMsg) {
	var by PeerInfo
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &by); err != nil {
			oc.reply(m.ID, nil, fmt.Errorf("handover: bad requester info: %w", err))
			return
		}
	}
	o := oc.o
	if o.handover == nil {
		oc.reply(m.ID, nil, fmt.Errorf("%w: process %d (%s) keeps the index", ErrHandoverRefused, o.info.PID, o.info.Role))
		return
	}
	o.log.Info("index sharing: handing the index over", "to", by.PID, "role", by.Role)
	if err := o.handover(oc, by); err != nil {
		oc.reply(m.ID, nil, fmt.Errorf("handover: %w", err))
		return
	}
	oc.reply(m.ID, json.RawMessage(`{"released":true}`), nil)
	oc.close()
}

// readShareLine reads one newline-terminated message of at most
// maxShareMessage bytes.
func readShareLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxShareMessage {
			return nil, fmt.Errorf("message longer than %d bytes", maxShareMessage)
		}
		switch {
		case err == nil:
			if buf == nil {
				return chunk, nil
			}
			return append(buf, chunk...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, chunk...)
		default:
			return nil, err
		}
	}
}

// ---------------------------------------------------------------------------
// The client's side.

// shareClient is a connection to an owner.
type shareClient struct {
	c     *net.UnixConn
	owner OwnerInfo
	wmu   sync.Mutex

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan shareMsg
	done    chan struct{}
	// handoverTo is the pid the owner announced it hands the index to.
	handoverTo atomic.Int64
	closing    atomic.Bool
}

// dialOwner connects to the owner's socket and exchanges hellos.
func dialOwner(ctx context.Context, path string, me PeerInfo) (*shareClient, error) {
	d := net.Dialer{Timeout: helloTimeout}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	c := &shareClient{c: conn.(*net.UnixConn), pending: map[uint64]chan shareMsg{}, done: make(chan struct{})}
	go c.read()
	hctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	me.Protocol = shareProtocol
	params, _ := json.Marshal(me)
	res, err := c.do(hctx, shareMsg{Op: "hello", Params: params})
	if err != nil {
		c.close()
		return nil, fmt.Errorf("hello to %s: %w", path, err)
	}
	if err := json.Unmarshal(res, &c.owner); err != nil {
		c.close()
		return nil, fmt.Errorf("hello from %s: %w", path, err)
	}
	if c.owner.Protocol != shareProtocol {
		c.close()
		return nil, fmt.Errorf("the owner of the index (pid %d) speaks sharing protocol %d, this binary %d: run the same context-ls version",
			c.owner.PID, c.owner.Protocol, shareProtocol)
	}
	return c, nil
}

func (c *shareClient) read() {
	defer close(c.done)
	r := bufio.NewReaderSize(c.c, 64<<10)
	for {
		line, err := readShareLine(r)
		if err != nil {
			return
		}
		var m shareMsg
		if json.Unmarshal(line, &m) != nil {
			return
		}
		if m.Event == "closing" || (m.Error != nil && m.Error.Code == codeClosing) {
			if m.To != 0 {
				c.handoverTo.Store(int64(m.To))
			}
			c.closing.Store(true)
			if m.Event != "" {
				continue
			}
		}
		c.mu.Lock()
		ch := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// dead reports whether the connection is gone or the owner announced it
// is closing.
func (c *shareClient) dead() bool {
	select {
	case <-c.done:
		return true
	default:
		return c.closing.Load()
	}
}

func (c *shareClient) close() { c.c.Close() }

// errNotDelivered: the request could not be written; it did not run.
var errNotDelivered = errors.New("request not delivered to the index owner")

// do sends a request and waits for its reply.
func (c *shareClient) do(ctx context.Context, m shareMsg) (json.RawMessage, error) {
	ch := make(chan shareMsg, 1)
	c.mu.Lock()
	c.next++
	m.ID = c.next
	c.pending[m.ID] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, m.ID)
		c.mu.Unlock()
	}
	if err := c.send(m); err != nil {
		forget()
		return nil, fmt.Errorf("%w: %v", errNotDelivered, err)
	}
	select {
	case r := <-ch:
		return replyOf(r)
	case <-ctx.Done():
		forget()
		_ = c.send(shareMsg{Op: "cancel", ID: m.ID})
		return nil, ctx.Err()
	case <-c.done:
		select {
		case r := <-ch:
			return replyOf(r)
		default:
		}
		forget()
		return nil, fmt.Errorf("%w (pid %d)", ErrOwnerGone, c.owner.PID)
	}
}

func replyOf(m shareMsg) (json.RawMessage, error) {
	if m.Error != nil {
		return nil, m.Error.err()
	}
	return m.Result, nil
}

func (c *shareClient) send(m shareMsg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	_, err = c.c.Write(append(b, '\n'))
	return err
}

// CallOwner runs one call on the process owning the index in dbDir, for
// a process that found the index locked and has no use for the index
// beyond that call (a CLI command). It returns the owner's description.
// When nobody answers on the index's socket, or the owner is closing and
// did not run the call, the error wraps ErrNoOwner (and, when there is no
// socket at all — the lock holder does not share — fs.ErrNotExist); when
// the owner went away during the call, ErrOwnerGone.
func CallOwner(ctx context.Context, dbDir, role, service, method string, params json.RawMessage) (json.RawMessage, OwnerInfo, error) {
	c, err := dialOwner(ctx, ShareSocketPath(dbDir), PeerInfo{PID: os.Getpid(), Role: role})
	if err != nil {
		return nil, OwnerInfo{}, fmt.Errorf("%w: %w", ErrNoOwner, err)
	}
	defer c.close()
	res, err := c.do(ctx, shareMsg{Op: "call", Service: service, Method: method, Params: params})
	if errors.Is(err, errOwnerClosing) {
		err = fmt.Errorf("%w: %w", ErrNoOwner, err)
	}
	return res, c.owner, err
}

// ---------------------------------------------------------------------------
// OpenShared: the editor's side.

// OpenShared opens the index of root like Open, for a process that needs
// the engine itself — an editor's language server, which holds unsaved
// buffers. When another process owns the index and yields (an MCP server),
// it is asked to hand the index over and OpenShared opens it once released.
// An owner that does not yield (another editor's server) makes OpenShared
// fail with an error wrapping store.ErrLocked and ErrHandoverRefused. While
// open, the engine serves the registered services to the processes sharing
// the index, until Close.
func OpenShared(ctx context.Context, root string, opts Options) (*Engine, error) {
	dbDir, _, err := resolveDBDir(root, opts)
	if err != nil {
		return nil, err
	}
	sock := ShareSocketPath(dbDir)
	me := PeerInfo{PID: os.Getpid(), Role: RoleEditor}
	deadline := time.Now().Add(DefaultShareWait)
	backoff := 20 * time.Millisecond
	for {
		e, err := Open(ctx, root, opts)
		if err == nil {
			startOwner(e, OwnerInfo{Role: RoleEditor}, nil)
			return e, nil
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
// SharedIndex: the agent's side.

// ShareOptions configure OpenSharedIndex.
type ShareOptions struct {
	// Role names this process to the others (RoleAgent by default).
	Role string
	// Yield hands the index over to an OpenShared caller that asks for it
	// while this process owns it; this process then forwards its calls to
	// the new owner.
	Yield bool
	// OnOwn, if set, runs on a goroutine of its own each time this process
	// becomes the owner (background indexing, file watching); its context
	// ends when ownership ends (handover, Close), and the engine is closed
	// only after it returns.
	OnOwn func(ctx context.Context, e *Engine)
	// Wait bounds the search for an owner or the lock (DefaultShareWait
	// when zero).
	Wait time.Duration
}

// ShareStatus tells how a SharedIndex reaches its index.
type ShareStatus struct {
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

// SharedIndex is a process's handle on an index that several processes
// share: this process either owns the index (its engine runs the calls) or
// forwards its calls to the owner's process. It follows ownership changes —
// handovers, owners that exit or die — by itself.
type SharedIndex struct {
	root   string
	canon  string
	opts   Options
	so     ShareOptions
	me     PeerInfo
	dbDir  string
	sock   string
	log    *slog.Logger
	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // settle goroutines

	mu      sync.Mutex
	state   shareState
	own     *shareOwner
	eng     *Engine
	cli     *shareClient
	lastErr error
	changed chan struct{} // closed and replaced at every state change
	ownStop context.CancelFunc
	ownDone chan struct{}
}

// OpenSharedIndex joins the index of root: it opens the index when nobody
// holds it (and serves it to the others), else connects to its owner. It
// fails when neither works within so.Wait, or when the owner serves
// another workspace.
func OpenSharedIndex(ctx context.Context, root string, opts Options, so ShareOptions) (*SharedIndex, error) {
	dbDir, canon, err := resolveDBDir(root, opts)
	if err != nil {
		return nil, err
	}
	if so.Role == "" {
		so.Role = RoleAgent
	}
	if so.Wait <= 0 {
		so.Wait = DefaultShareWait
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	life, cancel := context.WithCancel(context.Background())
	s := &SharedIndex{
		root: root, canon: canon, opts: opts, so: so, dbDir: dbDir, sock: ShareSocketPath(dbDir),
		me: PeerInfo{Protocol: shareProtocol, PID: os.Getpid(), Role: so.Role}, log: log,
		life: life, cancel: cancel, changed: make(chan struct{}),
	}
	e, c, err := s.settle(ctx, 0)
	if err != nil {
		cancel()
		return nil, err
	}
	s.mu.Lock()
	s.install(e, c, nil)
	s.mu.Unlock()
	return s, nil
}

// settle finds the index: the owner's socket first, then the lock. During
// grace only the socket is tried (a handover is under way).
func (s *SharedIndex) settle(ctx context.Context, grace time.Duration) (*Engine, *shareClient, error) {
	start := time.Now()
	deadline := start.Add(s.so.Wait)
	backoff := 20 * time.Millisecond
	var lastErr error
	for {
		c, err := dialOwner(ctx, s.sock, s.me)
		if err == nil {
			if c.owner.Root != s.canon {
				c.close()
				return nil, nil, fmt.Errorf("the owner of index %s (pid %d) serves workspace %s, not %s: %w",
					s.dbDir, c.owner.PID, c.owner.Root, s.canon, ErrWrongIndex)
			}
			return nil, c, nil
		}
		lastErr = err
		if time.Since(start) >= grace {
			e, err := Open(ctx, s.root, s.opts)
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
			return nil, nil, fmt.Errorf("index %s: %w on %s (waited %s): %v", s.dbDir, ErrNoOwner, s.sock, s.so.Wait, lastErr)
		}
		if err := sleepCtx(ctx, backoff); err != nil {
			return nil, nil, err
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// install records the outcome of settle; s.mu is held.
func (s *SharedIndex) install(e *Engine, c *shareClient, err error) {
	switch {
	case err != nil:
		s.state, s.lastErr = stFailed, err
		s.log.Warn("index unavailable", "index", s.dbDir, "error", err)
	case e != nil:
		s.state, s.eng, s.cli = stOwner, e, nil
		s.own = startOwner(e, OwnerInfo{Role: s.so.Role, Yields: s.so.Yield}, s.handoverFunc())
		ctx, stop := context.WithCancel(s.life)
		done := make(chan struct{})
		s.ownStop, s.ownDone = stop, done
		go func() {
			defer close(done)
			if s.so.OnOwn != nil {
				s.so.OnOwn(ctx, e)
			}
		}()
		s.log.Info("index opened: this process owns it", "index", s.dbDir, "socket", s.sock)
	default:
		s.state, s.cli, s.eng, s.own = stClient, c, nil, nil
		s.log.Info("index owned by another process: forwarding calls", "index", s.dbDir,
			"owner", c.owner.PID, "role", c.owner.Role)
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *SharedIndex) handoverFunc() func(*ownerConn, PeerInfo) error {
	if !s.so.Yield {
		return nil
	}
	return s.release
}

// release hands the index over: stop the owner's background work, finish
// in-flight calls, close the engine (freeing the lock), then find the new
// owner in the background. The reply "released" follows its return.
func (s *SharedIndex) release(keep *ownerConn, by PeerInfo) error {
	s.mu.Lock()
	if s.state != stOwner || keep.o != s.own {
		s.mu.Unlock()
		return errNotReady
	}
	o, e, stop, done := s.own, s.eng, s.ownStop, s.ownDone
	s.state, s.own, s.eng = stSettling, nil, nil
	s.mu.Unlock()
	stop()
	<-done
	o.stop(keep, shareMsg{To: by.PID})
	err := e.Close()
	s.startSettle(handoverGrace)
	if err != nil {
		return fmt.Errorf("closing the engine: %w", err)
	}
	return nil
}

// startSettle looks for the index again in the background.
func (s *SharedIndex) startSettle(grace time.Duration) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		e, c, err := s.settle(s.life, grace)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.state == stClosed {
			if e != nil {
				e.Close()
			}
			if c != nil {
				c.close()
			}
			return
		}
		s.install(e, c, err)
	}()
}

// route is where a call goes: the local owner or a client connection.
type route struct {
	own *shareOwner
	cli *shareClient
}

// acquire returns the current route, waiting while ownership changes.
func (s *SharedIndex) acquire(ctx context.Context) (route, error) {
	tried := false
	for {
		s.mu.Lock()
		switch s.state {
		case stOwner:
			r := route{own: s.own}
			s.mu.Unlock()
			return r, nil
		case stClient:
			if !s.cli.dead() {
				r := route{cli: s.cli}
				s.mu.Unlock()
				return r, nil
			}
			grace := time.Duration(0)
			if s.cli.handoverTo.Load() != 0 {
				grace = handoverGrace
			}
			// Calls still in flight on the old connection get their
			// replies: a closing owner answers them before it hangs up.
			// Close it only if the owner never does.
			old := s.cli
			time.AfterFunc(2*drainTimeout+helloTimeout, old.close)
			s.state, s.cli = stSettling, nil
			tried = true
			s.startSettle(grace)
		case stFailed:
			if tried {
				err := s.lastErr
				s.mu.Unlock()
				return route{}, err
			}
			tried = true
			s.state = stSettling
			s.startSettle(0)
		case stClosed:
			s.mu.Unlock()
			return route{}, ErrShareClosed
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return route{}, ctx.Err()
		}
	}
}

// Call runs method of the named service against the index: with this
// process's engine when it owns the index, else in the owner's process.
// Calls that did not run because ownership was changing are sent again to
// the next owner; a call in flight when its owner died fails with an error
// wrapping ErrOwnerGone (the caller decides whether running it again is
// safe).
func (s *SharedIndex) Call(ctx context.Context, service, method string, params json.RawMessage) (json.RawMessage, error) {
	var lastErr error
	for attempt := 0; attempt < 8; attempt++ {
		r, err := s.acquire(ctx)
		if err != nil {
			return nil, err
		}
		var res json.RawMessage
		if r.own != nil {
			res, err = r.own.call(ctx, service, method, params)
		} else {
			res, err = r.cli.do(ctx, shareMsg{Op: "call", Service: service, Method: method, Params: params})
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
		}
		return nil, err
	}
	return nil, fmt.Errorf("ownership of the index kept changing: %w", lastErr)
}

// Status reports how the index is reached now.
func (s *SharedIndex) Status() ShareStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ShareStatus{Socket: s.sock, DBDir: s.dbDir}
	switch s.state {
	case stOwner:
		st.State = "owner"
		info := s.own.info
		st.Owner = &info
	case stClient:
		st.State = "client"
		info := s.cli.owner
		st.Owner = &info
	case stSettling:
		st.State = "connecting"
	case stFailed:
		st.State = "unavailable"
		st.Error = s.lastErr.Error()
	case stClosed:
		st.State = "closed"
	}
	return st
}

// Root returns the canonical workspace root.
func (s *SharedIndex) Root() string { return s.canon }

// DBDir returns the index directory.
func (s *SharedIndex) DBDir() string { return s.dbDir }

// Close leaves the index: an owner stops serving (its clients find the
// next owner), finishes its calls and closes its engine; a client
// disconnects.
func (s *SharedIndex) Close() error {
	s.mu.Lock()
	if s.state == stClosed {
		s.mu.Unlock()
		return nil
	}
	o, e, c, stop, done := s.own, s.eng, s.cli, s.ownStop, s.ownDone
	s.state, s.own, s.eng, s.cli = stClosed, nil, nil, nil
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	s.cancel()
	var err error
	if e != nil {
		stop()
		<-done
		o.stop(nil, shareMsg{})
		err = e.Close()
	}
	if c != nil {
		c.close()
	}
	s.wg.Wait()
	return err
}
