package lsp

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/internal/testutil"
)

// TestServeProcess runs Serve on a child process's stdio (this test binary,
// see TestMain) through lsptest.Start, as integration tests of the real
// binary will.
func TestServeProcess(t *testing.T) {
	tests := []struct {
		name     string
		shutdown bool
		want     int
	}{
		{"shutdown then exit", true, 0},
		{"exit without shutdown", false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CONTEXT_LS_TEST_SERVE=1")
			stderr := &testutil.SyncBuffer{}
			cmd.Stderr = stderr
			c, err := lsptest.Start(cmd)
			must(t, err)
			must(t, c.Call(testCtx(t), "initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}}, nil))
			must(t, c.Notify("initialized", map[string]any{}))
			var st StatusResult
			must(t, c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "contextLs.status"}, &st))
			if st.Server.Name != "context-ls-process" {
				t.Errorf("status %+v", st)
			}
			if tc.shutdown {
				must(t, c.Call(testCtx(t), "shutdown", nil, nil))
			}
			must(t, c.Notify("exit", nil))
			code, err := c.Wait()
			must(t, err)
			if code != tc.want {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.want, stderr.String())
			}
			// Everything on stdout was a well-framed message, up to a clean end.
			<-c.Done()
			if err := c.Err(); !errors.Is(err, io.EOF) {
				t.Errorf("server output ended with %v, want EOF", err)
			}
			for _, m := range c.Messages() {
				if m.Kind == lsptest.Response {
					t.Errorf("unexpected reply %+v", m)
				}
			}
		})
	}
}
