package main

import (
	"context"
	"fmt"
	"log"
	"log/slog"

	"github.com/context-ls/context-ls/internal/logcap"
	"github.com/context-ls/context-ls/lsp"
	"github.com/context-ls/context-ls/lsp/session"
)

func init() {
	register(command{name: "serve", usage: "[--db DIR] [--stdio] [--clientProcessId N]",
		summary: "language server on stdin/stdout (the default command)", run: runServe})
}

// runServe runs one LSP session on the process's stdin and stdout. Logs go
// to stderr (and, filtered by the logLevel setting, to the client); stdout
// carries the protocol only. CONTEXT_LS_EMBEDDINGS=off turns embeddings off
// whatever the client's settings say.
//
// Language-client libraries add their own flags to the command they start:
// vscode-languageclient appends --stdio for the stdio transport and
// --clientProcessId=N for Node servers, and other clients follow the same
// convention. Both are accepted in any position and change nothing: stdio
// is the only transport, and the session ends with the client's exit.
func runServe(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(false)
	fs.Bool("stdio", false, "talk LSP on stdin/stdout (the only transport; accepted for language clients)")
	fs.Int("clientProcessId", 0, "the client's process `ID` (accepted for language clients and ignored)")
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if env.root != "." {
		return usagef("--root does not apply to serve: the client names the workspace folders")
	}
	// Libraries that log through the standard logger must not touch stdout.
	log.SetOutput(env.stderr)
	level := new(slog.LevelVar)
	logger := slog.New(logcap.Handler(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: level})))
	sess := session.New(session.Options{Logger: logger.With("part", "session"), LevelVar: level, DBPath: env.db})
	code := lsp.Serve(ctx, lsp.Stdio(), lsp.Options{Name: "context-ls", Version: version, Backend: sess})
	if code != 0 {
		return fmt.Errorf("the session ended without shutdown (exit code %d)", code)
	}
	return nil
}
