package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// frame encodes one LSP message with its Content-Length header.
func frame(t *testing.T, msg map[string]any) []byte {
	t.Helper()
	body, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

// readFrames splits server output into message bodies; anything else on
// stdout fails the test.
func readFrames(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(out))
	var msgs []map[string]any
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			return msgs
		}
		if err != nil || !strings.HasPrefix(line, "Content-Length: ") {
			t.Fatalf("stdout is not LSP framing at %q (%v)", line, err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length: ")))
		if err != nil {
			t.Fatalf("bad header %q", line)
		}
		if blank, _ := r.ReadString('\n'); blank != "\r\n" {
			t.Fatalf("header not followed by a blank line: %q", blank)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("body %q: %v", body, err)
		}
		msgs = append(msgs, m)
	}
}

func TestServe(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, repo)
	session := func(shutdown bool) []byte {
		var in bytes.Buffer
		in.Write(frame(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
			"processId": nil, "capabilities": map[string]any{},
			"rootUri":               "file://" + root,
			"initializationOptions": map[string]any{"dbPath": t.TempDir()},
		}}))
		in.Write(frame(t, map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}))
		if shutdown {
			in.Write(frame(t, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
		}
		in.Write(frame(t, map[string]any{"jsonrpc": "2.0", "method": "exit"}))
		return in.Bytes()
	}
	tests := []struct {
		name     string
		args     []string
		stdin    []byte
		code     int
		stderr   string
		protocol bool
	}{
		{"shutdown then exit", []string{"serve"}, session(true), 0, "", true},
		{"the default command", nil, session(true), 0, "", true},
		{"exit without shutdown", []string{"serve"}, session(false), 1, "session ended without shutdown", true},
		{"input ends at once", []string{"serve"}, nil, 1, "session ended without shutdown", false},
		// What language-client libraries append (vscode-languageclient:
		// --stdio for the stdio transport, --clientProcessId for Node
		// servers), in every position they may take.
		{"--stdio", []string{"serve", "--stdio"}, session(true), 0, "", true},
		{"--stdio first", []string{"serve", "--stdio", "--db", t.TempDir()}, session(true), 0, "", true},
		{"--clientProcessId=N", []string{"serve", "--clientProcessId=4242", "--stdio"}, session(true), 0, "", true},
		{"--clientProcessId N", []string{"serve", "--stdio", "--clientProcessId", "4242"}, session(true), 0, "", true},
		{"-stdio", []string{"serve", "-stdio", "-clientProcessId=1"}, session(true), 0, "", true},
		{"no command, --stdio", []string{"--stdio", "--clientProcessId=4242"}, session(true), 0, "", true},
		{"no command, unknown flag", []string{"--pipe=/tmp/x"}, nil, 2, "flag provided but not defined: -pipe", false},
		{"bad --clientProcessId", []string{"serve", "--clientProcessId=me"}, nil, 2, "invalid value", false},
		{"another transport", []string{"serve", "--pipe=/tmp/x"}, nil, 2, "flag provided but not defined: -pipe", false},
		{"stray argument", []string{"serve", "extra"}, nil, 2, "unexpected argument", false},
		{"--root", []string{"serve", "--root", root}, nil, 2, "--root does not apply to serve", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := cliStdin(t, tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errOut, tc.code, tc.stderr)
			}
			// stdout holds LSP frames only (logs go to the client as
			// window/logMessage, and to stderr).
			var initialize map[string]any
			for _, m := range readFrames(t, []byte(out)) {
				if fmt.Sprint(m["id"]) == "1" {
					initialize = m
				}
			}
			if !tc.protocol {
				if initialize != nil {
					t.Errorf("unexpected response %v", initialize)
				}
				return
			}
			res, _ := initialize["result"].(map[string]any)
			info, _ := res["serverInfo"].(map[string]any)
			caps, _ := res["capabilities"].(map[string]any)
			if info["name"] != "context-ls" || caps["definitionProvider"] != true {
				t.Errorf("initialize response %v", initialize)
			}
		})
	}
}
