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
	"path/filepath"
	"strings"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

// cliEnv carries what every subcommand shares: streams, the common flags and
// the opened engine.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	cmd            command
	args           []string // the command's arguments, as given
	// owned is the engine of the server running this command for a CLI
	// process (share.go); nil in the CLI itself.
	owned *engine.Engine

	root, db         string
	model, modelPath string
	jsonOut          bool
}

// flags returns a FlagSet with the common flags (--root, --db, and --json
// when withJSON) bound to env.
func (env *cliEnv) flags(withJSON bool) *flag.FlagSet {
	fs := flag.NewFlagSet(env.cmd.name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.StringVar(&env.root, "root", ".", "workspace root `DIR`")
	fs.StringVar(&env.db, "db", "", "keep indexes under `DIR`, one per workspace (default: the user cache dir)")
	fs.StringVar(&env.model, "model", "", "embedding model `NAME` (overrides the config; see: context-ls model list)")
	fs.StringVar(&env.modelPath, "model-path", "", "local model `DIR` holding model.onnx and tokenizer.json")
	if withJSON {
		fs.BoolVar(&env.jsonOut, "json", false, "print JSON")
	}
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "usage: context-ls %s %s\n\n%s\n\nflags:\n", env.cmd.name, env.cmd.usage, env.cmd.summary)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags that may appear before, between or after positional
// arguments ("search QUERY --k 5" and "search --k 5 QUERY" are the same).
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
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

// config loads the workspace config, reports its diagnostics on stderr and
// applies the flags; its DBPath is the index directory of the root.
func (env *cliEnv) config() (workspace.Config, error) {
	cfg, diags, err := workspace.LoadConfig(env.root)
	if err != nil {
		return cfg, err
	}
	for _, d := range diags {
		fmt.Fprintf(env.stderr, "context-ls: %s\n", d)
	}
	if env.model != "" {
		cfg.Model = env.model
	}
	if env.modelPath != "" {
		cfg.ModelPath = env.modelPath
	}
	if strings.EqualFold(os.Getenv("CONTEXT_LS_EMBEDDINGS"), "off") {
		cfg.Embeddings = false
	}
	// Where the index is: under --db, else under the file's dbPath, else
	// in the default location.
	base := env.db
	if base == "" {
		base = cfg.DBPath
	}
	if cfg.DBPath, err = engine.IndexDir(base, env.root); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// open opens the engine for --root/--db; done releases it. When a server
// owns the index, an indexed command runs there instead: open returns the
// command's outcome as its error (see forward). In the server, it is the
// server's engine.
func (env *cliEnv) open(ctx context.Context) (e *engine.Engine, done func(), err error) {
	if env.owned != nil {
		return env.owned, func() {}, nil
	}
	cfg, err := env.config()
	if err != nil {
		return nil, nil, err
	}
	level := slog.LevelWarn
	if os.Getenv("CONTEXT_LS_DEBUG") != "" {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: level}))
	e, err = env.openOrForward(ctx, cfg.DBPath, func() (*engine.Engine, error) {
		return engine.Open(ctx, env.root, engine.Options{DBDir: cfg.DBPath, Config: cfg, Logger: log})
	})
	if err != nil {
		return nil, nil, err
	}
	return e, func() { e.Close() }, nil
}

// ensureIndexed brings the index up to date before a query. Unchanged files
// cost a stat each.
func (env *cliEnv) ensureIndexed(ctx context.Context, e *engine.Engine) error {
	_, err := e.Index(ctx, nil)
	return err
}

// withIndex opens the engine for --root/--db, brings the index up to date
// and calls fn with a snapshot; everything is released afterwards.
func (env *cliEnv) withIndex(ctx context.Context, fn func(e *engine.Engine, snap *engine.Snapshot) error) error {
	e, done, err := env.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err := env.ensureIndexed(ctx, e); err != nil {
		return err
	}
	snap := e.Snapshot()
	defer snap.Release()
	return fn(e, snap)
}

// noArgs refuses positional arguments.
func noArgs(rest []string) error {
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	return nil
}

func (env *cliEnv) printJSON(v any) error {
	enc := json.NewEncoder(env.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (env *cliEnv) printf(format string, args ...any) { fmt.Fprintf(env.stdout, format, args...) }

// splitList splits comma-separated flag values.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error {
	*m = append(*m, splitList(v)...)
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

// selection is a span of lines of a workspace file, from --file/--lines.
type selection struct {
	rel        string
	start, end int    // 1-based, inclusive
	text       string // the selected lines
	content    string // the whole file
}

// selection resolves --file PATH (relative to the root like every path the
// CLI prints, or absolute; never outside the workspace) and --lines A-B
// (default: the whole file).
func (env *cliEnv) selection(e *engine.Engine, file, lines string) (selection, error) {
	start, end, err := parseLines(lines)
	if err != nil {
		return selection{}, err
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(e.Root(), file)
	}
	rel, err := e.Workspace().Resolve(file)
	if err != nil {
		return selection{}, err
	}
	content, err := e.Workspace().ReadFile(rel)
	if err != nil {
		return selection{}, err
	}
	all := strings.SplitAfter(string(content), "\n")
	if len(all) > 0 && all[len(all)-1] == "" {
		all = all[:len(all)-1]
	}
	if start > len(all) {
		return selection{}, fmt.Errorf("--lines %q: %s has %d lines", lines, rel, len(all))
	}
	end = min(end, len(all))
	return selection{rel: rel, start: start, end: end, text: strings.Join(all[start-1:end], ""), content: string(content)}, nil
}
