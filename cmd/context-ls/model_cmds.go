package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/vectors"
)

func init() {
	register(command{name: "model", usage: "list | verify [NAME] [--model-path DIR] | pull NAME [--model-path DIR]",
		summary: "embedding models: list the registry, verify or download a model", run: runModel})
}

func runModel(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 {
		return usagef("missing subcommand (list, verify or pull)")
	}
	sub, args := args[0], args[1:]
	fs := env.flags(true)
	if sub == "-h" || sub == "-help" || sub == "--help" || sub == "help" {
		usageText(env, fs)
		return flag.ErrHelp
	}
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		type entry struct {
			Name        string `json:"name"`
			Dim         int    `json:"dim"`
			MaxSeq      int    `json:"maxSeq"`
			Pooling     string `json:"pooling"`
			Dir         string `json:"dir"`
			Installed   bool   `json:"installed"`
			Downloads   bool   `json:"downloadable"`
			Description string `json:"description"`
		}
		var out []entry
		cfg, _, err := env.layered() // the workspace's model is the default
		if err != nil {
			return err
		}
		for _, m := range vectors.Models() {
			_, d, err := engine.ResolveModel(m.Name, "")
			if err != nil {
				return err
			}
			installed := vectors.Present(m, d)
			out = append(out, entry{m.Name, m.Dim, m.MaxSeq, string(m.Pooling), d, installed, m.Downloadable(), m.Description})
		}
		if env.jsonOut {
			return env.printJSON(map[string]any{"models": out, "default": cfg.Model})
		}
		for _, m := range out {
			state := "not installed"
			if m.Installed {
				state = "installed"
			}
			mark := ""
			if m.Name == cfg.Model {
				mark = " (default)"
			}
			env.printf("%-24s %4d dims  %-13s %s%s\n    %s\n", m.Name, m.Dim, state, m.Description, mark, m.Dir)
		}
		return nil
	case "verify":
		cfg, _, err := env.layered() // the workspace's model unless one is named
		if err != nil {
			return err
		}
		name := cfg.Model
		if len(rest) > 0 {
			name = rest[0]
		}
		spec, d, err := engine.ResolveModel(name, env.modelPath)
		if err != nil {
			return err
		}
		st, err := vectors.Verify(spec, d)
		if env.jsonOut {
			if jerr := env.printJSON(map[string]any{"model": name, "dir": d, "files": st}); jerr != nil {
				return jerr
			}
		} else {
			for _, f := range st {
				verdict := "ok"
				switch {
				case !f.Present:
					verdict = "missing"
				case !f.OK:
					verdict = "checksum mismatch"
				case !f.Pinned:
					verdict = "ok (no pinned checksum)"
				}
				env.printf("%-16s %s  %s\n", f.Name, verdict, f.Path)
			}
		}
		return err
	case "pull":
		if len(rest) != 1 {
			return usagef("pull needs exactly one model NAME (see: context-ls model list)")
		}
		spec, d, err := engine.ResolveModel(rest[0], env.modelPath)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		last := time.Time{}
		err = vectors.Pull(ctx, spec, d, func(file string, done, total int64) {
			if time.Since(last) < time.Second && done != total {
				return
			}
			last = time.Now()
			fmt.Fprintf(env.stderr, "%s: %d/%d MB\n", file, done>>20, total>>20)
		})
		if err != nil {
			return err
		}
		env.printf("%s installed in %s\n", spec.Name, d)
		return nil
	}
	return usagef("unknown subcommand %q (list, verify or pull)", sub)
}
