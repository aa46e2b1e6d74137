package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/logcap"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/share"
	"github.com/context-ls/context-ls/workspace"
)

// cliEnv carries what every subcommand shares: streams and the common
// flags.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	cmd            command
	args           []string // the command's arguments, as given

	root, db         string
	model, modelPath string
	jsonOut          bool
	// quietRebuild is set when the command says itself that the index is
	// being rebuilt (index --verify, a query that met damage): opening a
	// damaged index then prints nothing.
	quietRebuild bool
}

// flags returns a FlagSet with the common flags (--root, --db, the model
// flags, and --json when withJSON) bound to env.
func (env *cliEnv) flags(withJSON bool) *flag.FlagSet {
	fs := flag.NewFlagSet(env.cmd.name, flag.ContinueOnError)
	// A mistake is reported in one line by runCommand; -h prints the
	// usage (parse).
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&env.root, "root", ".", "workspace root `DIR`")
	fs.StringVar(&env.db, "db", "", "keep indexes under `DIR`, one per workspace (default: the user cache dir)")
	fs.StringVar(&env.model, "model", "", "embedding model `NAME` (overrides the config; see: context-ls model list)")
	fs.StringVar(&env.modelPath, "model-path", "", "local model `DIR` holding model.onnx and tokenizer.json")
	if withJSON {
		fs.BoolVar(&env.jsonOut, "json", false, "print JSON")
	}
	return fs
}

// parse parses flags that may appear before, between or after positional
// arguments ("search QUERY --k 5" and "search --k 5 QUERY" are the same);
// -h prints the command's usage.
func (env *cliEnv) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usageText(env, fs)
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// config builds the workspace configuration — defaults, .context-ls.toml,
// the flags, the environment (workspace.Layered) — reports its
// diagnostics on stderr, and sets its DBPath to the root's index
// directory: under --db, else under the file's dbPath, else the default
// location.
func (env *cliEnv) config() (workspace.Config, error) {
	cfg, diags, err := env.layered()
	if err != nil {
		return cfg, err
	}
	for _, d := range diags {
		fmt.Fprintf(env.stderr, "context-ls: %s\n", d)
	}
	base := env.db
	if base == "" {
		base = cfg.DBPath
	}
	if cfg.DBPath, err = engine.IndexDir(base, env.root); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// layered is the workspace configuration of --root with the model flags
// laid over it (workspace.Layered) and what it found wrong.
func (env *cliEnv) layered() (workspace.Config, []workspace.Diagnostic, error) {
	ov := map[string]any{}
	if env.model != "" {
		ov["model"] = env.model
	}
	if env.modelPath != "" {
		ov["modelPath"] = env.modelPath
	}
	return workspace.Layered(env.root, ov)
}

// logger is the CLI's log on stderr (CONTEXT_LS_DEBUG=1: debug).
func (env *cliEnv) logger(level slog.Level) *slog.Logger {
	if os.Getenv("CONTEXT_LS_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(logcap.Handler(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: level})))
}

// index is the index a command works on (share.Open): owned by this
// process for the command (serving other processes meanwhile), or by a
// server, which runs the command's operations (a CLI process that finds
// the index owned forwards them over the owner's socket, so an editor's
// unsaved buffers are seen).
type index struct {
	env *cliEnv
	x   *share.Index
}

// ownerWait bounds how long a command keeps trying while the index changes
// hands (an owner exiting, or handing it to an editor's server).
const ownerWait = 10 * time.Second

// openIndex opens the index of --root/--db, or finds the process that owns
// it.
func (env *cliEnv) openIndex(ctx context.Context) (*index, error) {
	cfg, err := env.config()
	if err != nil {
		return nil, err
	}
	return env.openIndexWith(ctx, cfg, env.logger(slog.LevelWarn))
}

// openIndexWith opens the index of --root under a configuration, logging
// to log.
func (env *cliEnv) openIndexWith(ctx context.Context, cfg workspace.Config, log *slog.Logger) (*index, error) {
	x, err := share.Open(ctx, env.root, share.Options{
		Engine:  engine.Options{DBDir: cfg.DBPath, Config: cfg, Logger: log},
		Service: service.Options{Logger: log},
		Role:    share.RoleCLI, Wait: ownerWait,
	})
	if err != nil {
		return nil, err
	}
	ix := &index{env: env, x: x}
	if svc := x.Local(); svc != nil && !env.quietRebuild {
		if reason := svc.Engine().Damaged(); reason != "" {
			fmt.Fprintf(env.stderr, "context-ls %s: index damaged (%s); rebuilding it\n", env.cmd.name, service.OneLine(errors.New(reason)))
		}
	}
	if owner := ix.owner(); owner != nil && (env.model != "" || env.modelPath != "") {
		fmt.Fprintf(env.stderr, "context-ls %s: --model and --model-path do not apply: process %d (%s) owns the index and answers with its own model\n",
			env.cmd.name, owner.PID, owner.Role)
	}
	return ix, nil
}

// close releases the index.
func (ix *index) close() { ix.x.Close() }

// owner is the process that owns the index, when it is not this one.
func (ix *index) owner() *share.OwnerInfo {
	if st := ix.x.Status(); st.State == "client" {
		return st.Owner
	}
	return nil
}

// Call runs an operation on the index, here or on its owner.
func (ix *index) Call(ctx context.Context, op string, req json.RawMessage) (json.RawMessage, error) {
	res, err := ix.x.Call(ctx, op, req)
	var se *service.Error
	if owner := ix.owner(); err != nil && owner != nil && !errors.As(err, &se) && ctx.Err() == nil {
		return nil, fmt.Errorf("the index is owned by process %d (%s), which could not run the command: %w", owner.PID, owner.Role, err)
	}
	return res, err
}

// ensureIndexed brings an index this process owns up to date before a
// query (unchanged files cost a stat each; with embeddings, every chunk
// gets its vector); an owning server keeps its index fresh itself. Without
// embeddings to wait for, query runs beside the update, and current
// reports that its answer is the updated index's (service.IndexBeside);
// false: run query now.
func (ix *index) ensureIndexed(ctx context.Context, embeddings bool, query func() error) (current bool, err error) {
	svc := ix.x.Local()
	if svc == nil {
		return false, nil
	}
	if embeddings {
		_, err := svc.Index(ctx, service.IndexRequest{Embeddings: true})
		return false, err
	}
	return svc.IndexBeside(ctx, service.IndexRequest{}, query)
}

// runOp opens the index, brings it up to date when the operation reads
// its content, and runs the operation with a JSON request; it returns the
// result (of the operation's result type) and the process that answered
// when another owns the index.
func runOp(ctx context.Context, env *cliEnv, o *service.Op, req json.RawMessage) (any, *share.OwnerInfo, error) {
	ix, err := env.openIndex(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer func() { ix.close() }()
	var out json.RawMessage
	query := func() (err error) {
		out, err = ix.Call(ctx, o.Name, req)
		return err
	}
	current := false
	if o.ReadsIndex() {
		current, err = ix.ensureIndexed(ctx, o.Embeddings, query)
		if errors.Is(err, engine.ErrDamaged) {
			// Reopening starts the damaged part empty; indexing rebuilds it.
			fmt.Fprintf(env.stderr, "context-ls %s: %s; rebuilding it\n", env.cmd.name, service.OneLine(err))
			env.quietRebuild = true
			ix.close()
			if ix, err = env.openIndex(ctx); err != nil {
				return nil, nil, err
			}
			current, err = ix.ensureIndexed(ctx, o.Embeddings, query)
		}
		switch {
		case errors.Is(err, engine.ErrDiskFull):
			fmt.Fprintf(env.stderr, "context-ls %s: warning: %s; answering from the index as it is\n", env.cmd.name, service.OneLine(err))
		case err != nil:
			return nil, nil, err
		}
	}
	if !current {
		if err := query(); err != nil {
			return nil, nil, err
		}
	}
	res := reflect.New(o.Result).Interface()
	if err := json.Unmarshal(out, res); err != nil {
		return nil, nil, fmt.Errorf("%s: malformed result: %w", o.Name, err)
	}
	return res, ix.owner(), nil
}

// rootArg takes the one positional argument of a command that has no
// arguments of its own as the workspace root, as --root would be
// ("context-ls index ~/src/app"). More than one, one beside --root, or
// one that is not a directory is refused.
func (env *cliEnv) rootArg(fs *flag.FlagSet, rest []string) error {
	if len(rest) == 0 {
		return nil
	}
	rootSet := false
	fs.Visit(func(f *flag.Flag) { rootSet = rootSet || f.Name == "root" })
	switch {
	case len(rest) > 1:
		return usagef("unexpected argument %q: give one workspace root", rest[1])
	case rootSet:
		return usagef("unexpected argument %q: the workspace root is given by --root already", rest[0])
	}
	if st, err := os.Stat(rest[0]); err != nil || !st.IsDir() {
		return usagef("unexpected argument %q: not a directory (the one argument is the workspace root)", rest[0])
	}
	env.root = rest[0]
	return nil
}

func (env *cliEnv) printJSON(v any) error {
	enc := json.NewEncoder(env.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (env *cliEnv) printf(format string, args ...any) { fmt.Fprintf(env.stdout, format, args...) }

// multiFlag collects a repeatable flag whose values may be comma-separated.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*m = append(*m, p)
		}
	}
	return nil
}

// isTerminal reports whether w is a character device (an interactive
// terminal), where progress lines are welcome.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
