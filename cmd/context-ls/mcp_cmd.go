package main

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/internal/logcap"
	"github.com/context-ls/context-ls/mcp"
)

func init() {
	register(command{name: "mcp", usage: "[--root DIR] [--db DIR] [--model NAME] [--model-path DIR]",
		summary: "Model Context Protocol server for coding agents on stdin/stdout", run: runMCP})
}

// runMCP runs one MCP session on stdin and stdout. stdout carries the
// protocol only; logs go to stderr (CONTEXT_LS_DEBUG=1 for debug logs).
func runMCP(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(false)
	rest, err := env.parse(fs, args)
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
	dbDir := cfg.DBPath
	level := slog.LevelInfo
	if os.Getenv("CONTEXT_LS_DEBUG") != "" {
		level = slog.LevelDebug
	}
	logger := slog.New(logcap.Handler(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: level})))
	slog.SetDefault(logger)
	return mcp.Serve(ctx, env.stdin, env.stdout, mcp.Options{
		Root:    root,
		Engine:  engine.Options{DBDir: dbDir, Config: cfg, Logger: logger.With("part", "engine")},
		Name:    "context-ls",
		Version: version,
		Logger:  logger.With("part", "mcp"),
	})
}
