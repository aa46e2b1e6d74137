// Package share lets several processes use one index. Pebble locks its
// directory, so one process at a time holds an index open: its *owner*,
// which also listens on a Unix socket in the index directory
// (SocketName, mode 0600, peers of another user refused). Every process —
// an editor's language server, an MCP server, a CLI command — opens an
// index the same way (Open) and gets an Index, which runs its calls (a
// service operation name and its JSON request) on its own service while
// it owns the index, else in the owner's process over the socket (an
// editor's unsaved buffers included).
//
// An owner that yields (an MCP server) hands the index over to a process
// that asks (TakeOver: an editor's language server, which needs the engine
// for its buffers): it finishes its in-flight calls, closes its engine,
// answers "released", and becomes a forwarding client of the new owner. An
// owner that does not yield (another editor, a CLI command) is forwarded
// to until it leaves.
//
// An owner that leaves (exit, handover) tells its clients; one that died
// leaves a socket nobody listens on and a free lock. Either way its
// clients look for the index again at once: the next process takes the
// lock, removes a stale socket and listens; the others connect to it.
// Concurrent starts are decided by the lock; the losers become clients.
//
// Wire format: newline-delimited JSON objects (message), one per line, in
// both directions; requests carry an id that the reply repeats.
package share

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

	"github.com/context-ls/context-ls/service"
)

// SocketName is the owner's socket in the index directory.
const SocketName = "owner.sock"

// Roles of processes sharing an index, as OwnerInfo and PeerInfo name them.
const (
	// RoleEditor is a language server: it takes the index over from an
	// owner that yields and never yields it.
	RoleEditor = "editor"
	// RoleAgent is an MCP server: it owns the index only until an editor's
	// server asks for it.
	RoleAgent = "agent"
	// RoleCLI is a CLI command: it owns the index for its one command when
	// it is free (serving the others meanwhile), else runs its call on the
	// owner.
	RoleCLI = "cli"
)

// Timing of the sharing protocol.
const (
	shareProtocol   = 1
	maxShareMessage = 64 << 20
	// DefaultWait bounds how long a process looks for an owner or the
	// lock before giving up.
	DefaultWait  = 30 * time.Second
	helloTimeout = 3 * time.Second
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
	// ErrClosed: the Index was closed.
	ErrClosed = errors.New("shared index closed")
)

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
	ID     uint64          `json:"id,omitempty"`
	Op     string          `json:"op,omitempty"`        // hello, call, cancel, handover
	Call   string          `json:"operation,omitempty"` // call: the service operation
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *shareError     `json:"error,omitempty"`
	Event  string          `json:"event,omitempty"` // closing
	To     int             `json:"to,omitempty"`    // closing: the pid the index goes to
}

// shareError is an error reply; Code tells the client what to do.
type shareError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Detail is the operation's error (codeFailed): a service.Error.
	Detail json.RawMessage `json:"detail,omitempty"`
}

// Error codes of replies.
const (
	codeClosing  = "closing"  // the owner is closing: the call did not run; retry with the next owner
	codeRefused  = "refused"  // handover refused
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
	case codeFailed:
		if len(e.Detail) > 0 {
			return service.DecodeError(e.Detail)
		}
	case codeGone:
		return fmt.Errorf("%w: %s", ErrOwnerGone, strings.TrimPrefix(e.Message, ErrOwnerGone.Error()+": "))
	}
	return errors.New(e.Message)
}

// SocketPath returns the socket of the index in dbDir: dbDir/owner.sock,
// or, when that path is too long for a Unix socket address, a file named
// after a hash of dbDir in a private directory under the system's temporary
// directory.
func SocketPath(dbDir string) string {
	p := filepath.Join(dbDir, SocketName)
	if len(p)+24 <= maxSocketPath { // room for the temporary bind name
		return p
	}
	sum := sha256.Sum256([]byte(dbDir))
	return filepath.Join(os.TempDir(), fmt.Sprintf("context-ls-%d", os.Getuid()), hex.EncodeToString(sum[:8])+".sock")
}

// ---------------------------------------------------------------------------
// The owner's side.

// shareOwner serves an engine's socket: forwarded calls, handover requests.
type shareOwner struct {
	svc  service.Backend
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

	// cut is set when stop cancels calls that outlived drainTimeout.
	cut atomic.Bool

	stopOnce sync.Once
	acceptWG sync.WaitGroup
}

// startOwner makes svc serve its socket. A socket that cannot be created
// is logged: the index stays usable here, and other processes report that
// no owner answers.
func startOwner(svc *service.Service, log *slog.Logger, info OwnerInfo, handover func(*ownerConn, PeerInfo) error) *shareOwner {
	e := svc.Engine()
	backend := serveWith(svc)
	info.Protocol = shareProtocol
	info.PID = os.Getpid()
	info.Root = e.Root()
	info.Since = time.Now().UTC().Format(time.RFC3339)
	o := &shareOwner{
		svc: backend, info: info, log: log, path: SocketPath(e.DBDir()), handover: handover,
		cancels: map[uint64]context.CancelFunc{}, conns: map[*ownerConn]bool{},
	}
	if ln, fi, err := listenOwner(o.path); err != nil {
		o.log.Warn("index sharing disabled: cannot listen", "socket", o.path, "error", err)
	} else {
		o.ln, o.sock = ln, fi
		o.acceptWG.Add(1)
		go o.accept()
	}
	return o
}

// serveWith is what an owner runs calls with: its service (tests wrap it
// to add operations that wait or panic).
var serveWith = func(s *service.Service) service.Backend { return s }

// listenOwner binds the socket under a temporary name, restricts it to the
// user and renames it into place, so that it never exists with looser
// permissions. Whatever was at path is stale: the caller holds the index
// lock, and only lock holders listen.
func listenOwner(path string) (*net.UnixListener, os.FileInfo, error) {
	if filepath.Base(path) != SocketName {
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

// call runs one operation on the owner's service, counted as in flight
// so that stop waits for it.
func (o *shareOwner) call(ctx context.Context, op string, params json.RawMessage) (json.RawMessage, error) {
	cctx, end, err := o.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	res, err := safeCall(cctx, o.svc, op, params)
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

// begin counts a call in flight and returns a context that stop can
// cancel; end must be called once the call's reply is delivered.
func (o *shareOwner) begin(ctx context.Context) (context.Context, func(), error) {
	o.mu.Lock()
	if o.closing {
		o.mu.Unlock()
		return nil, nil, errOwnerClosing
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
	return ctx, end, nil
}

// safeCall runs a call, turning a panic into an error: one bad call must
// not take the index owner (an editor's server) down.
func safeCall(ctx context.Context, b service.Backend, op string, params json.RawMessage) (res json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("operation %s panicked: %v\n%s", op, r, debug.Stack())
		}
	}()
	return b.Call(ctx, op, params)
}

// stop closes the socket, tells clients (and waits for in-flight calls, up
// to drainTimeout, then cancels the rest), closes the services and the
// connections except keep. It closes neither the service nor the engine.
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
	case errors.Is(err, ErrHandoverRefused):
		m.Error = &shareError{Code: codeRefused, Message: err.Error()}
	case errors.Is(err, ErrOwnerGone):
		m.Error = &shareError{Code: codeGone, Message: err.Error()}
	default:
		m.Error = &shareError{Code: codeFailed, Message: err.Error(), Detail: service.EncodeError(err)}
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
		cctx, end, err := oc.o.begin(ctx)
		if err != nil {
			oc.reply(m.ID, nil, err)
			return
		}
		// The reply is part of the call: an owner closing for a handover
		// waits until it is written.
		defer end()
		res, err := safeCall(cctx, oc.o.svc, m.Call, m.Params)
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
	// gone is closed when the connection ends or the owner announces it
	// is closing.
	gone     chan struct{}
	goneOnce sync.Once
}

// left marks the owner gone.
func (c *shareClient) left() { c.goneOnce.Do(func() { close(c.gone) }) }

// dialOwner connects to the owner's socket and exchanges hellos.
func dialOwner(ctx context.Context, path string, me PeerInfo) (*shareClient, error) {
	d := net.Dialer{Timeout: helloTimeout}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	c := &shareClient{c: conn.(*net.UnixConn), pending: map[uint64]chan shareMsg{}, done: make(chan struct{}), gone: make(chan struct{})}
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
	defer c.left()
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
			c.left()
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
