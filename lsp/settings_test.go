package lsp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/lsp/session"
)

// settingsWarnings returns the texts of showMessage warnings so far.
func settingsWarnings(c *lsptest.Client) []string {
	var out []string
	for _, m := range c.Messages() {
		if m.Method != "window/showMessage" {
			continue
		}
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Type == 2 && strings.Contains(p.Message, "settings") {
			out = append(out, p.Message)
		}
	}
	return out
}

func TestSettingsSession(t *testing.T) {
	t.Setenv("CONTEXT_LS_EMBEDDINGS", "")
	b := &fakeBackend{}
	h := startServer(t, Options{Backend: b})
	h.initialize(clientCaps{}, map[string]any{"contextLs": map[string]any{
		"dbPath": "/idx", "budgetTokens": 1234, "colour": "blue", "maxFileSize": "big",
	}})
	st := h.status()
	if st.Settings.DBPath != "/idx" || st.Settings.BudgetTokens != 1234 || st.Settings.MaxFileSize != session.DefaultMaxFileSize {
		t.Errorf("settings after initialize: %+v", st.Settings)
	}
	// Push a change with the same unknown key, a new unknown key and a bad type.
	must(t, h.c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"contextLs": map[string]any{
		"colour": "red", "flavour": 1, "embeddings": "no", "logLevel": "error",
	}}}))
	st = h.status()
	if st.Settings.DBPath != "/idx" || st.Settings.LogLevel != session.LogError || !st.Settings.Embeddings {
		t.Errorf("settings after change: %+v", st.Settings)
	}
	got := settingsWarnings(h.c)
	want := []string{
		`context-ls settings: unknown setting "colour" ignored`,
		"context-ls settings: maxFileSize: expected a positive integer (bytes), got a string; using the default 1048576",
		"context-ls settings: embeddings: expected a boolean, got a string; using the default true",
		`context-ls settings: unknown setting "flavour" ignored`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%q\nwant\n%q", got, want)
	}
	b.mu.Lock()
	n := len(b.settings)
	b.mu.Unlock()
	if n != 1 {
		t.Errorf("SettingsChanged called %d times, want 1", n)
	}
	// logLevel error: info and warnings are no longer sent as logMessage.
	before := len(h.c.Messages())
	must(t, h.c.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{map[string]string{"uri": "untitled:x"}}, "removed": []any{},
	}}))
	h.status()
	for _, m := range h.c.Messages()[before:] {
		if m.Method == "window/logMessage" {
			t.Errorf("logMessage sent at logLevel error: %s", m.Params)
		}
	}
	if !strings.Contains(h.stderr.String(), "added folder ignored") {
		t.Error("warning missing from stderr")
	}
}

func TestSettingsPull(t *testing.T) {
	b := &fakeBackend{}
	h := startServer(t, Options{Backend: b})
	calls := 0
	h.c.Handle("workspace/configuration", func(params json.RawMessage) (any, error) {
		calls++
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(params, &p); err != nil || len(p.Items) != 1 || p.Items[0].Section != "contextLs" {
			t.Errorf("configuration params %s", params)
		}
		return []any{map[string]any{"budgetTokens": 100 * calls}}, nil
	})
	h.initialize(clientCaps{configuration: true}, map[string]any{"dbPath": "/from-init"})
	st := h.status()
	if st.Settings.BudgetTokens != 100 || st.Settings.DBPath != "/from-init" {
		t.Errorf("settings %+v", st.Settings)
	}
	if len(b.opened) != 1 || b.opened[0].BudgetTokens != 100 {
		t.Errorf("OpenFolder saw %+v, want pulled settings", b.opened)
	}
	// An empty didChangeConfiguration makes the server pull again.
	must(t, h.c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": nil}))
	if st := h.status(); st.Settings.BudgetTokens != 200 {
		t.Errorf("after pull: %+v", st.Settings)
	}
}

func TestSettingsPullFailureKeepsSettings(t *testing.T) {
	h := startServer(t, Options{ClientRequestTimeout: 5 * time.Second})
	h.c.Handle("workspace/configuration", func(json.RawMessage) (any, error) {
		return nil, &lsptest.RPCError{Code: -32601, Message: "nope"}
	})
	h.initialize(clientCaps{configuration: true}, map[string]any{"budgetTokens": 77})
	if st := h.status(); st.Settings.BudgetTokens != 77 {
		t.Errorf("settings %+v", st.Settings)
	}
	if !bytes.Contains([]byte(h.stderr.String()), []byte("workspace/configuration failed")) {
		t.Error("failure not logged")
	}
}
