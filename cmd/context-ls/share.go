package main

// CLI commands on an index a server owns.
//
// A server (serve, mcp) owns the index it opened: Pebble's lock keeps other
// processes out. A CLI command that finds the index owned forwards itself —
// its name and arguments — to the owner, which runs the same command
// against its own engine (an editor's unsaved buffers included) and sends
// back what the command printed and its exit status. Only commands marked
// indexed run this way.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/store"
)

// cliService is the engine service (engine.RegisterService) that runs
// forwarded CLI commands in the process owning an index.
const cliService = "cli"

func init() {
	engine.RegisterService(cliService, func(e *engine.Engine) engine.Service { return cliRunner{e} })
}

// forwardedCommand is the argument of the cli service's "run" call.
type forwardedCommand struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// forwardedOutput is what a forwarded command printed (bytes as they are:
// source text need not be UTF-8), and its exit status.
type forwardedOutput struct {
	Stdout []byte `json:"stdout"`
	Stderr []byte `json:"stderr"`
	Code   int    `json:"code"`
}

// maxForwardedOutput bounds what a forwarded command may print: the reply
// is one message of the sharing protocol (64 MiB, base64 inflates by 4/3).
const maxForwardedOutput = 40 << 20

// exitStatus ends a command that ran elsewhere and has printed everything
// already, with its exit status (0 included).
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// cliRunner runs forwarded commands against the owner's engine.
type cliRunner struct{ e *engine.Engine }

func (r cliRunner) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != "run" {
		return nil, fmt.Errorf("cli service: unknown method %q", method)
	}
	var fc forwardedCommand
	if err := json.Unmarshal(params, &fc); err != nil {
		return nil, fmt.Errorf("cli service: bad arguments: %w", err)
	}
	c, ok := lookupCommand(fc.Command)
	if !ok || !c.indexed {
		return nil, fmt.Errorf("cli service: %q is not a command that runs against the index", fc.Command)
	}
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, cmd: c, args: fc.Args, owned: r.e}
	code := runCommand(ctx, env)
	if n := out.Len() + errb.Len(); n > maxForwardedOutput {
		return nil, fmt.Errorf("its output (%d MiB) is too large to send back (at most %d MiB); narrow the command, or run it while no server owns the index",
			n>>20, maxForwardedOutput>>20)
	}
	return json.Marshal(forwardedOutput{Stdout: out.Bytes(), Stderr: errb.Bytes(), Code: code})
}

func (cliRunner) Close() error { return nil }

// forward runs env's command on the process owning the index in dbDir and
// prints what it printed; it returns the command's exitStatus. The error
// wraps engine.ErrNoOwner when no server answers for the index (with
// fs.ErrNotExist when none listens: another CLI command holds it) and
// engine.ErrOwnerGone when the owner went away during the call.
func (env *cliEnv) forward(ctx context.Context, dbDir string) error {
	params, err := json.Marshal(forwardedCommand{Command: env.cmd.name, Args: env.args})
	if err != nil {
		return err
	}
	res, owner, err := engine.CallOwner(ctx, dbDir, engine.RoleCLI, cliService, "run", params)
	if err != nil {
		if errors.Is(err, engine.ErrNoOwner) || errors.Is(err, engine.ErrOwnerGone) {
			return err
		}
		return fmt.Errorf("the index is owned by process %d (%s), which could not run the command: %w", owner.PID, owner.Role, err)
	}
	var fo forwardedOutput
	if err := json.Unmarshal(res, &fo); err != nil {
		return fmt.Errorf("reply of process %d: %w", owner.PID, err)
	}
	if env.model != "" || env.modelPath != "" {
		fmt.Fprintf(env.stderr, "context-ls %s: --model and --model-path do not apply: process %d (%s) owns the index and answered with its own model\n",
			env.cmd.name, owner.PID, owner.Role)
	}
	env.stdout.Write(fo.Stdout)
	env.stderr.Write(fo.Stderr)
	// An error even for success: the command is over, nothing may run on.
	return exitStatus(fo.Code)
}

// ownerWait bounds how long a command keeps trying while the index changes
// hands (an owner exiting, or handing it to an editor's server).
const ownerWait = 10 * time.Second

// openOrForward opens the index in dbDir with open, or, while a server owns
// it, runs the command there (the error is then the command's exitStatus).
// An owner that is closing, gone or not answering yet is tried again, as is
// the lock it leaves, until ownerWait; a lock held by a process that does
// not share (another CLI command) fails at once.
func (env *cliEnv) openOrForward(ctx context.Context, dbDir string, open func() (*engine.Engine, error)) (*engine.Engine, error) {
	deadline := time.Now().Add(ownerWait)
	for {
		e, err := open()
		if !errors.Is(err, store.ErrLocked) || !env.cmd.indexed {
			return e, err
		}
		ferr := env.forward(ctx, dbDir)
		switch {
		case errors.Is(ferr, fs.ErrNotExist):
			return nil, fmt.Errorf("%w (no context-ls server answers for it: another command is using it)", err)
		case !errors.Is(ferr, engine.ErrNoOwner) && !errors.Is(ferr, engine.ErrOwnerGone):
			return nil, ferr
		case time.Now().After(deadline):
			return nil, fmt.Errorf("the index changes hands and no owner answered within %s: %w", ownerWait, ferr)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
