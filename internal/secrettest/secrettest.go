// Package secrettest plants secrets of many kinds (private keys, JWTs,
// cloud and service tokens, passwords in URLs, code, config files, shell
// command lines and prose) in a small workspace of several languages, and
// finds any of them that survive in an output. Tests of every channel that
// returns code, signatures or doc text — CLI, language server, MCP — plant
// the workspace, run their queries and assert that Leaks finds nothing.
//
// The workspace is testdata/workspace; testdata/buffers holds files an
// editor has open with text not saved (Buffers: the language server's
// unsaved buffers are a channel of their own). The secrets they hold are
// listed in testdata/secrets.tsv (kind, length of the public prefix,
// value), and a test checks that each one occurs in one of them.
package secrettest

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

//go:embed all:testdata/workspace all:testdata/buffers testdata/secrets.tsv
var fixture embed.FS

const (
	workspaceDir = "testdata/workspace"
	buffersDir   = "testdata/buffers"
)

// Secret is one planted secret.
type Secret struct {
	Kind  string // what it is: "aws-secret-access-key", "python-password" …
	Value string // the literal secret as planted
	// Public is the length of the prefix of Value that only names the
	// kind of token ("ghp_", "AKIA"); it alone is no leak.
	Public int
}

// Secrets returns every planted secret, in the order of secrets.tsv.
func Secrets() []Secret {
	data, err := fixture.ReadFile("testdata/secrets.tsv")
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	var out []Secret
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			panic(fmt.Sprintf("secrets.tsv: malformed line %q", line))
		}
		public, err := strconv.Atoi(f[1])
		if err != nil {
			panic(fmt.Sprintf("secrets.tsv: %q: %v", line, err))
		}
		out = append(out, Secret{Kind: f[0], Value: strings.ReplaceAll(f[2], `\n`, "\n"), Public: public})
	}
	return out
}

// Files returns the workspace: slash-separated relative path → content.
func Files() map[string]string { return tree(workspaceDir) }

// Buffers returns the unsaved editor buffers to open in the planted
// workspace: slash-separated relative path (not planted on disk) → text.
func Buffers() map[string]string { return tree(buffersDir) }

// tree reads the embedded files below dir.
func tree(dir string) map[string]string {
	files := map[string]string{}
	err := fs.WalkDir(fixture, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fixture.ReadFile(p)
		if err != nil {
			return err
		}
		files[strings.TrimPrefix(p, dir+"/")] = string(data)
		return nil
	})
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	return files
}

// Plant writes the workspace into dir (created if needed) and returns the
// secrets it holds.
func Plant(dir string) ([]Secret, error) {
	for rel, content := range Files() {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("plant secrets: %w", err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return nil, fmt.Errorf("plant secrets: %w", err)
		}
	}
	return Secrets(), nil
}

// Leak is a secret found in an output.
type Leak struct {
	Secret
	// Fragment is what of it was found: the whole value, or a window of
	// WindowBytes bytes of it.
	Fragment string
}

func (l Leak) String() string { return fmt.Sprintf("%s leaks %q", l.Kind, l.Fragment) }

// WindowBytes is the size of the fragments Leaks looks for: any run of
// that many bytes of a secret (beyond its public prefix) found in an
// output is a leak, so a secret cut in two or partly redacted still counts.
const WindowBytes = 8

// Leaks returns the secrets of which out holds a fragment, at most one
// Leak per secret.
func Leaks(out string, secrets []Secret) []Leak {
	var leaks []Leak
	for _, s := range secrets {
		for _, line := range strings.Split(s.Value, "\n") {
			if f, ok := fragmentIn(out, line, s.Public); ok {
				leaks = append(leaks, Leak{s, f})
				break
			}
			s.Public = 0 // only the first line has a prefix
		}
	}
	return leaks
}

// fragmentIn returns a window of secret (one that reaches beyond its
// public prefix) that occurs in out; a secret shorter than a window must
// occur whole.
func fragmentIn(out, secret string, public int) (string, bool) {
	if len(secret) <= WindowBytes {
		return secret, secret != "" && strings.Contains(out, secret)
	}
	for i := max(0, public-WindowBytes+1); i+WindowBytes <= len(secret); i++ {
		if w := secret[i : i+WindowBytes]; strings.Contains(out, w) {
			return w, true
		}
	}
	return "", false
}

// Kinds returns the distinct kinds of the secrets, sorted.
func Kinds(secrets []Secret) []string {
	seen := map[string]bool{}
	var kinds []string
	for _, s := range secrets {
		if !seen[s.Kind] {
			seen[s.Kind] = true
			kinds = append(kinds, s.Kind)
		}
	}
	sort.Strings(kinds)
	return kinds
}

// Paths returns the workspace's file paths, sorted.
func Paths() []string {
	var paths []string
	for p := range Files() {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}
