package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// lspClient drives a language server (gopls) over stdio with JSON-RPC 2.0:
// just enough of the protocol for the call hierarchy.
type lspClient struct {
	cmd      *exec.Cmd
	in       io.WriteCloser
	settings map[string]any

	mu      sync.Mutex
	nextID  int
	pending map[int]chan rpcMessage
	readErr error
	done    chan struct{}
}

type rpcMessage struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *rpcError        `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// startLSP starts the server binary in dir; settings answer
// workspace/configuration and go in initializationOptions.
func startLSP(bin, dir string, env []string, settings map[string]any) (*lspClient, error) {
	return startLSPArgs(bin, nil, dir, env, settings)
}

// startLSPArgs is startLSP with arguments for the binary.
func startLSPArgs(bin string, args []string, dir string, env []string, settings map[string]any) (*lspClient, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	c := &lspClient{cmd: cmd, in: in, settings: settings, pending: map[int]chan rpcMessage{}, done: make(chan struct{})}
	go c.readLoop(bufio.NewReaderSize(out, 1<<20))
	return c, nil
}

func (c *lspClient) readLoop(r *bufio.Reader) {
	defer close(c.done)
	for {
		msg, err := readMessage(r)
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
		switch {
		case msg.ID != nil && msg.Method != "":
			c.answer(msg) // a request from the server
		case msg.ID != nil:
			id, err := strconv.Atoi(string(*msg.ID))
			if err != nil {
				continue
			}
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- msg
			}
		}
	}
}

func readMessage(r *bufio.Reader) (rpcMessage, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return rpcMessage{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			length, err = strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return rpcMessage{}, fmt.Errorf("bad header %q", line)
			}
		}
	}
	if length < 0 || length > 1<<30 {
		return rpcMessage{}, errors.New("missing Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return rpcMessage{}, err
	}
	var msg rpcMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		return rpcMessage{}, fmt.Errorf("decode message: %w", err)
	}
	return msg, nil
}

// answer replies to server requests: configuration gets the settings,
// everything else (progress tokens, registrations) an empty result.
func (c *lspClient) answer(msg rpcMessage) {
	var result any
	if msg.Method == "workspace/configuration" {
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		list := make([]any, len(p.Items))
		for i := range list {
			list[i] = c.settings
		}
		result = list
	}
	_ = c.write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
}

func (c *lspClient) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
		return err
	}
	_, err = c.in.Write(b)
	return err
}

// call sends a request and decodes its result into out.
func (c *lspClient) call(ctx context.Context, method string, params, out any) error {
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return c.readErr
	}
	c.nextID++
	id := c.nextID
	ch := make(chan rpcMessage, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return err
	}
	select {
	case msg, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: connection closed: %v", method, c.readErr)
		}
		if msg.Error != nil {
			return fmt.Errorf("%s: %w", method, msg.Error)
		}
		if out != nil && len(msg.Result) > 0 {
			return json.Unmarshal(msg.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (c *lspClient) notify(method string, params any) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// initialize performs the LSP handshake for one workspace folder.
func (c *lspClient) initialize(ctx context.Context, root string) error {
	uri := fileURI(root)
	params := map[string]any{
		"processId":             os.Getpid(),
		"rootUri":               uri,
		"workspaceFolders":      []map[string]string{{"uri": uri, "name": "ws"}},
		"initializationOptions": c.settings,
		"capabilities": map[string]any{
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
			"textDocument": map[string]any{
				"callHierarchy":  map[string]any{"dynamicRegistration": false},
				"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"definition":     map[string]any{"linkSupport": false},
			},
		},
	}
	if err := c.call(ctx, "initialize", params, nil); err != nil {
		return err
	}
	return c.notify("initialized", map[string]any{})
}

// close shuts the server down.
func (c *lspClient) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.call(ctx, "shutdown", nil, nil)
	_ = c.notify("exit", nil)
	c.in.Close()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
	}
	_ = c.cmd.Wait()
}

type lspPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start lspPosition `json:"start"`
	End   lspPosition `json:"end"`
}

type callItem struct {
	Name           string          `json:"name"`
	Kind           int             `json:"kind"`
	URI            string          `json:"uri"`
	Range          lspRange        `json:"range"`
	SelectionRange lspRange        `json:"selectionRange"`
	Detail         string          `json:"detail,omitempty"`
	Data           json.RawMessage `json:"data,omitempty"`
}

type incomingCall struct {
	From       callItem   `json:"from"`
	FromRanges []lspRange `json:"fromRanges"`
}

// errNoItem: the server has no call hierarchy item at a position.
var errNoItem = errors.New("no call hierarchy item")

// incoming returns the incoming calls of the function whose name is at
// pos (0-based line, UTF-16 character) in file path.
func (c *lspClient) incoming(ctx context.Context, path string, pos lspPosition) ([]incomingCall, error) {
	doc := map[string]any{"textDocument": map[string]string{"uri": fileURI(path)}, "position": pos}
	var items []callItem
	if err := c.call(ctx, "textDocument/prepareCallHierarchy", doc, &items); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%w at %s:%d:%d", errNoItem, path, pos.Line+1, pos.Character+1)
	}
	var calls []incomingCall
	if err := c.call(ctx, "callHierarchy/incomingCalls", map[string]any{"item": items[0]}, &calls); err != nil {
		return nil, err
	}
	return calls, nil
}

func fileURI(p string) string { return "file://" + p }

func uriPath(u string) string { return strings.TrimPrefix(u, "file://") }
