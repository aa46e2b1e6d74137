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
	"io"
	"strings"

	"github.com/context-ls/context-ls/engine"
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

// forwardedOutput is what a forwarded command printed, and its exit status.
type forwardedOutput struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"code"`
}

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
	return json.Marshal(forwardedOutput{Stdout: out.String(), Stderr: errb.String(), Code: code})
}

func (cliRunner) Close() error { return nil }

// forward runs env's command on the process owning the index in dbDir and
// prints what it printed; it returns the command's exitStatus. locked is the error of opening the index, returned
// as is when no server answers for it (another CLI command holds it).
func (env *cliEnv) forward(ctx context.Context, dbDir string, locked error) error {
	params, err := json.Marshal(forwardedCommand{Command: env.cmd.name, Args: env.args})
	if err != nil {
		return err
	}
	res, owner, err := engine.CallOwner(ctx, dbDir, engine.RoleCLI, cliService, "run", params)
	switch {
	case errors.Is(err, engine.ErrNoOwner):
		return fmt.Errorf("%w (no context-ls server answers for it: another command is using it)", locked)
	case err != nil:
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
	io.WriteString(env.stdout, fo.Stdout)
	io.WriteString(env.stderr, fo.Stderr)
	// An error even for success: the command is over, nothing may run on.
	return exitStatus(fo.Code)
}
