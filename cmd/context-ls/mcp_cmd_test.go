package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestMCPCommand(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, repo)
	db := t.TempDir()
	session := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_context_stats","arguments":{}}}`,
	}, "\n") + "\n"
	sum := sha256.Sum256([]byte(root))
	wantIndex := filepath.Join(db, filepath.Base(root)+"-"+hex.EncodeToString(sum[:6]))
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{"input ends at once", []string{"mcp", "--root", root, "--db", db}, "", 0, ""},
		{"a session", []string{"mcp", "--root", root, "--db", db}, session, 0, ""},
		{"relative --db is relative to the workspace", []string{"mcp", "--root", root, "--db", "idx"}, session, 0, ""},
		{"stray argument", []string{"mcp", "--root", root, "extra"}, "", 2, "unexpected argument"},
		{"unknown flag", []string{"mcp", "--bogus"}, "", 2, "flag provided but not defined"},
		{"missing root", []string{"mcp", "--root", filepath.Join(root, "nope")}, "", 2, "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := cliStdin(t, []byte(tc.stdin), tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errOut, tc.code, tc.stderr)
			}
			var stats map[string]any
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if line == "" {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
					t.Fatalf("stdout line is not a JSON-RPC message: %q", line)
				}
				if id, _ := m["id"].(float64); id == 2 {
					res, _ := m["result"].(map[string]any)
					stats, _ = res["structuredContent"].(map[string]any)
				}
			}
			if tc.stdin != session {
				return
			}
			want := wantIndex
			if tc.args[len(tc.args)-1] == "idx" {
				want = filepath.Join(root, "idx", filepath.Base(root)+"-"+hex.EncodeToString(sum[:6]))
			}
			if stats["index"] != want || stats["files"] == nil {
				t.Errorf("stats %v, want the index in %s", stats, want)
			}
		})
	}
}
