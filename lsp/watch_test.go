package lsp

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/workspace"
)

func TestWatchDynamicRegistration(t *testing.T) {
	b := &fakeBackend{}
	h := startServer(t, Options{Backend: b})
	h.initialize(clientCaps{dynamicWatch: true}, nil)
	m, err := h.c.Await(testCtx(t), lsptest.Method("client/registerCapability"))
	must(t, err)
	if m.Kind != lsptest.Request {
		t.Fatalf("registerCapability is a %v, want a request", m.Kind)
	}
	var p struct {
		Registrations []struct {
			ID              string `json:"id"`
			Method          string `json:"method"`
			RegisterOptions struct {
				Watchers []struct {
					GlobPattern string `json:"globPattern"`
				} `json:"watchers"`
			} `json:"registerOptions"`
		} `json:"registrations"`
	}
	must(t, m.Decode(&p))
	if len(p.Registrations) != 1 || p.Registrations[0].Method != "workspace/didChangeWatchedFiles" ||
		len(p.Registrations[0].RegisterOptions.Watchers) != 1 || p.Registrations[0].RegisterOptions.Watchers[0].GlobPattern != "**/*" {
		t.Errorf("registration %s", m.Params)
	}
	if st := h.status(); st.Watching != "client" {
		t.Errorf("watching %q", st.Watching)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.watchers) != 0 {
		t.Errorf("fallback watcher started although the client watches: %q", b.watchers)
	}
}

func TestWatchFallback(t *testing.T) {
	b := &fakeBackend{}
	h := startServer(t, Options{Backend: b})
	h.initialize(clientCaps{}, nil)
	if st := h.status(); st.Watching != "server" {
		t.Errorf("watching %q", st.Watching)
	}
	for _, m := range h.c.Messages() {
		if m.Method == "client/registerCapability" {
			t.Error("registration sent to a client without dynamic registration")
		}
	}
	b.mu.Lock()
	watchers := append([]string(nil), b.watchers...)
	b.mu.Unlock()
	if !reflect.DeepEqual(watchers, []string{h.root}) {
		t.Errorf("watchers %q, want %q", watchers, h.root)
	}
	if code := h.shutdownExit(); code != 0 {
		t.Errorf("exit %d", code)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !reflect.DeepEqual(b.stopped, []string{h.root}) {
		t.Errorf("stopped %q", b.stopped)
	}
}

func TestWatchRegistrationRefused(t *testing.T) {
	b := &fakeBackend{}
	h := startServer(t, Options{Backend: b})
	h.c.Handle("client/registerCapability", func(json.RawMessage) (any, error) {
		return nil, &lsptest.RPCError{Code: -32601, Message: "no dynamic registration here"}
	})
	h.initialize(clientCaps{dynamicWatch: true}, nil)
	_, err := h.c.Await(testCtx(t), lsptest.LogMessage("client refused to watch files"))
	must(t, err)
	if st := h.status(); st.Watching != "server" {
		t.Errorf("watching %q", st.Watching)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !reflect.DeepEqual(b.watchers, []string{h.root}) {
		t.Errorf("watchers %q", b.watchers)
	}
}

func TestDidChangeWatchedFiles(t *testing.T) {
	b := &fakeBackend{}
	h := startServer(t, Options{Backend: b})
	h.initialize(clientCaps{dynamicWatch: true}, nil)
	a, z := filepath.Join(h.root, "a.go"), filepath.Join(h.root, "sub", "z.go")
	must(t, h.c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": workspace.PathToURI(z), "type": 2},
		map[string]any{"uri": workspace.PathToURI(a), "type": 1},
		map[string]any{"uri": workspace.PathToURI(z), "type": 3},
		map[string]any{"uri": "untitled:Untitled-1", "type": 1},
	}}))
	h.status()
	b.mu.Lock()
	defer b.mu.Unlock()
	if want := [][]string{{a, z}}; !reflect.DeepEqual(b.changed, want) {
		t.Errorf("FilesChanged %q, want %q", b.changed, want)
	}
}
