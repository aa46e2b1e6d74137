// Command context-ls is a language server, CLI and MCP server that gives
// coding agents and developers a small, high-relevance slice of a codebase.
//
// With no arguments (or "serve") it speaks LSP on stdio; "mcp" speaks the
// Model Context Protocol; the other subcommands are the CLI over the same
// engine. Run "context-ls help" for the list.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/context-ls/context-ls/service"
)

// command is one CLI subcommand.
type command struct {
	name    string
	usage   string // arguments after the name
	summary string
	doc     string // what -h says it does ("": the summary)
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

var commands []command

func register(c command) { commands = append(commands, c) }

// exit codes
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError is a command-line mistake: reported with the command's usage.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitStatus ends a command that has printed everything it had to say
// with a status other than 0 (index --verify found damage).
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// stopGrace is how long a command has to stop by itself after SIGTERM or
// an interrupt before the process ends anyway: a file's store batch or a
// syntax tree being built is C code no context reaches. Ending there is
// safe: every write is atomic, and the index resumes from wherever the
// process stopped (what a kill -9 leaves is tested to answer like an
// uninterrupted index).
const stopGrace = 500 * time.Millisecond

// exitAfterSignal ends the process stopGrace after the first SIGTERM or
// interrupt (which also cancel the command's context, run).
func exitAfterSignal(stderr io.Writer) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		time.Sleep(stopGrace)
		fmt.Fprintf(stderr, "context-ls: interrupted; not stopped after %s, exiting\n", stopGrace)
		os.Exit(exitError)
	}()
}

func main() {
	exitAfterSignal(os.Stderr)
	// CONTEXT_LS_CPUPROFILE=FILE writes a CPU profile of the command (for
	// `go tool pprof`; the benchmarks use it to find where time goes).
	if p := os.Getenv("CONTEXT_LS_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil && pprof.StartCPUProfile(f) == nil {
			code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	name := "serve"
	if len(args) > 0 && (!strings.HasPrefix(args[0], "-") || args[0] == "-h" || args[0] == "--help" || args[0] == "--version") {
		name, args = args[0], args[1:]
	}
	// Otherwise the flags are serve's: language clients run the bare binary
	// with their own (context-ls --stdio --clientProcessId=N).
	if name == "help" || name == "-h" || name == "--help" {
		printHelp(stdout)
		return exitOK
	}
	if name == "version" || name == "--version" {
		fmt.Fprintln(stdout, "context-ls", version)
		return exitOK
	}
	c, ok := lookupCommand(name)
	if !ok {
		fmt.Fprintf(stderr, "context-ls: unknown command %q (run \"context-ls help\")\n", name)
		return exitUsage
	}
	return runCommand(ctx, &cliEnv{stdin: stdin, stdout: stdout, stderr: stderr, cmd: c, args: args})
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// runCommand runs env's command with env.args, reports its error on
// env.stderr and returns the exit status.
func runCommand(ctx context.Context, env *cliEnv) int {
	c := env.cmd
	err := c.run(ctx, env, env.args)
	var ue usageError
	var se *service.Error
	var es exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &es):
		return int(es)
	case errors.As(err, &ue):
		fmt.Fprintf(env.stderr, "context-ls %s: %s\nusage: context-ls %s %s\n", c.name, ue.msg, c.name, c.usage)
		return exitUsage
	case errors.As(err, &se) && se.Code == service.CodeInvalid:
		fmt.Fprintf(env.stderr, "context-ls %s: %s\n", c.name, oneLine(se))
		return exitUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(env.stderr, "context-ls %s: interrupted\n", c.name)
		return exitError
	default:
		fmt.Fprintf(env.stderr, "context-ls %s: %s\n", c.name, oneLine(err))
		return exitError
	}
}

// version is set by the linker (-X main.version=...).
var version = "dev"

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "context-ls — relevant, located context from a codebase for editors and agents")
	fmt.Fprintln(w, "\nusage: context-ls [command] [flags] [args]   (no command: serve)")
	fmt.Fprintln(w, "\ncommands:")
	sorted := append([]command(nil), commands...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nEvery command takes --root DIR (default: the current directory) and --db DIR (where indexes are kept, one per workspace);")
	fmt.Fprintln(w, "a command without arguments of its own (index, stats, doctor, …) also takes the root as its argument: context-ls index ~/src/app.")
	fmt.Fprintln(w, "CONTEXT_LS_EMBEDDINGS=off disables embeddings. Run \"context-ls COMMAND -h\" for its flags.")
}

// oneLine flattens an error to a single line for stderr.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
