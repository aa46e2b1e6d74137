// Command notices gathers the licences of the Go code compiled into the
// context-ls binary, for a release archive (make dist): the standard
// library and every module of `go list -deps ./cmd/context-ls` for the
// target platform, read from the module cache (go-licenses is not
// available offline, and this is all it would do here).
//
//	go run ./scripts/notices -o DIR [-goos GOOS -goarch GOARCH]
//
// Each module's licence files (LICENSE*, LICENCE*, COPYING*, NOTICE*, in the
// module's root and in the directories of the packages compiled in) are
// copied to DIR/<module path>@<version>/, and a Markdown list of the
// modules — path, version, licence (recognised from the text), files — is
// printed on stdout, sorted. It exits non-zero when a module has no licence
// file: such a module cannot be redistributed until someone finds out why.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

const mainModule = "github.com/context-ls/context-ls"

type module struct {
	Path, Version, Dir string
}

type pkg struct {
	ImportPath string
	Dir        string
	Standard   bool
	Module     *module
}

// licenceFile reports whether a file name is a licence or notice.
func licenceFile(name string) bool {
	n := strings.ToUpper(name)
	for _, p := range []string{"LICENSE", "LICENCE", "COPYING", "NOTICE", "UNLICENSE"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// identify names the licence a text is, from its wording; "" when it is none
// of the common ones.
func identify(text []byte) string {
	t := string(bytes.Join(bytes.Fields(text), []byte(" ")))
	has := func(s string) bool { return strings.Contains(t, s) }
	switch {
	case has("Apache License") && has("Version 2.0"):
		return "Apache-2.0"
	case has("Mozilla Public License Version 2.0"), has("Mozilla Public License, version 2.0"):
		return "MPL-2.0"
	case has("Permission is hereby granted, free of charge"):
		return "MIT"
	case has("Redistribution and use in source and binary forms") && (has("Neither the name") || has("names of its contributors")):
		return "BSD-3-Clause"
	case has("Redistribution and use in source and binary forms"):
		return "BSD-2-Clause"
	case has("Permission to use, copy, modify, and/or distribute"), has("Permission to use, copy, modify, and distribute"):
		return "ISC"
	}
	return ""
}

func main() {
	out := flag.String("o", "", "write the licence files under `DIR`")
	goos := flag.String("goos", runtime.GOOS, "target GOOS")
	goarch := flag.String("goarch", runtime.GOARCH, "target GOARCH")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "notices: -o DIR is required")
		os.Exit(2)
	}
	if err := run(*out, *goos, *goarch, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
}

func run(out, goos, goarch string, w io.Writer) error {
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,Standard,Module", "./cmd/context-ls")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=1", "GOFLAGS=-mod=readonly")
	cmd.Stderr = os.Stderr
	data, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	// Per module, the directories whose licence files apply: the module's
	// root and every compiled package's directory up to it.
	dirs := map[module]map[string]bool{}
	std := false
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("go list output: %w", err)
		}
		if p.Standard {
			std = true
			continue
		}
		if p.Module == nil || p.Module.Path == mainModule {
			continue
		}
		m := *p.Module
		if dirs[m] == nil {
			dirs[m] = map[string]bool{}
		}
		for d := p.Dir; strings.HasPrefix(d, m.Dir); d = filepath.Dir(d) {
			dirs[m][d] = true
			if d == m.Dir {
				break
			}
		}
	}
	var mods []module
	for m := range dirs {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })

	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "| Go module | version | licence | files |")
	fmt.Fprintln(bw, "|---|---|---|---|")
	if std {
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w", err)
		}
		line, err := copyLicences(out, "go", runtime.Version(), []string{strings.TrimSpace(string(goroot))})
		if err != nil {
			return err
		}
		fmt.Fprintln(bw, line)
	}
	var missing []string
	for _, m := range mods {
		var list []string
		for d := range dirs[m] {
			list = append(list, d)
		}
		sort.Strings(list)
		line, err := copyLicences(out, m.Path, m.Version, list)
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s@%s: %v", m.Path, m.Version, err))
			continue
		}
		fmt.Fprintln(bw, line)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("modules without a licence file:\n  %s", strings.Join(missing, "\n  "))
	}
	return nil
}

// copyLicences copies the licence files of dirs (a module's root first)
// into out/<path>@<version>/ — a file of a package directory under the
// path relative to the root — and returns the module's table row.
func copyLicences(out, path, version string, dirs []string) (string, error) {
	root := dirs[0]
	dest := filepath.Join(out, filepath.FromSlash(path)+"@"+version)
	var files, ids []string
	seen := map[string]bool{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			if e.IsDir() || !licenceFile(e.Name()) {
				continue
			}
			text, err := os.ReadFile(filepath.Join(d, e.Name()))
			if err != nil {
				return "", err
			}
			rel, _ := filepath.Rel(root, filepath.Join(d, e.Name()))
			to := filepath.Join(dest, rel)
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return "", err
			}
			if err := os.WriteFile(to, text, 0o644); err != nil {
				return "", err
			}
			files = append(files, filepath.ToSlash(rel))
			id := identify(text)
			if id == "" {
				id = "see " + filepath.ToSlash(rel)
			}
			if !seen[id] && !strings.HasPrefix(strings.ToUpper(e.Name()), "NOTICE") {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(files) == 0 {
		return "", fmt.Errorf("no licence file in %s", strings.Join(dirs, ", "))
	}
	sort.Strings(files)
	return fmt.Sprintf("| %s | %s | %s | %s |", path, version, strings.Join(ids, ", "), strings.Join(files, ", ")), nil
}
