package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/mcp"
	"github.com/context-ls/context-ls/store"
)

func init() {
	register(command{name: "mcp", usage: "[--root DIR] [--db DIR] [--model NAME] [--model-path DIR]",
		summary: "Model Context Protocol server for coding agents on stdin/stdout", run: runMCP})
	// Whichever context-ls process owns an index — this MCP server or an
	// editor's "serve" — runs the tool calls other MCP servers forward.
	mcp.Register()
}

// runMCP runs one MCP session on stdin and stdout. stdout carries the
// protocol only; logs go to stderr (CONTEXT_LS_DEBUG=1 for debug logs).
// --db names a directory holding one index per workspace, as for serve, so
// that an editor's server and an agent's MCP server started with the same
// --db share one index.
func runMCP(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(false)
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	log.SetOutput(env.stderr)
	root, err := filepath.Abs(env.root)
	if err != nil {
		return fmt.Errorf("--root %q: %w", env.root, err)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return usagef("--root %q: not a directory", env.root)
	}
	cfg, err := env.config()
	if err != nil {
		return err
	}
	dbDir, err := mcpIndexDir(env.db, root)
	if err != nil {
		return err
	}
	// The workspace walk and the watcher leave the index directory alone.
	cfg.DBPath = dbDir
	level := slog.LevelInfo
	if os.Getenv("CONTEXT_LS_DEBUG") != "" {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(logger)
	return mcp.Serve(ctx, env.stdin, env.stdout, mcp.Options{
		Root:    root,
		Engine:  engine.Options{DBDir: dbDir, Config: cfg, Logger: logger.With("part", "engine")},
		Name:    "context-ls",
		Version: version,
		Logger:  logger.With("part", "mcp"),
	})
}

// mcpIndexDir is the index directory of root: under base the way the
// language server places a folder's index (lsp's dbDirFor: the folder's
// name and a hash of its path; a relative base is relative to the
// workspace), else the engine's default per-user location.
func mcpIndexDir(base, root string) (string, error) {
	if base == "" {
		real, err := filepath.EvalSymlinks(root)
		if err != nil {
			return "", fmt.Errorf("--root %q: %w", root, err)
		}
		return store.DefaultDir(real)
	}
	if !filepath.IsAbs(base) {
		base = filepath.Join(root, base)
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(base, filepath.Base(root)+"-"+hex.EncodeToString(sum[:6])), nil
}
