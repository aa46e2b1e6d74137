package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/context-ls/context-ls/workspace"
	"go.lsp.dev/protocol"
)

// neovimResults is what editors/neovim/test/init.lua writes.
type neovimResults struct {
	Steps      []string          `json:"steps"`
	Error      string            `json:"error"`
	Bootstrap  bool              `json:"bootstrap"`
	Attached   bool              `json:"attached"`
	Position   protocol.Position `json:"position"`
	Definition struct {
		Result []protocol.Location `json:"result"`
		Error  string              `json:"error"`
	} `json:"definition"`
	Search struct {
		Result SearchResult `json:"result"`
		Error  string       `json:"error"`
	} `json:"search"`
	Callers struct {
		Result GraphAnswer `json:"result"`
		Error  string      `json:"error"`
	} `json:"callers"`
	EditHit  json.RawMessage `json:"edit_hit"`
	Stopped  bool            `json:"stopped"`
	ExitCode *int            `json:"exit_code"`
}

// TestNeovimHeadless attaches the real server to a fixture workspace from
// a real client, headless Neovim, and checks what Neovim received.
func TestNeovimHeadless(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not on PATH: install Debian's neovim package (make deps) to run the real-client test")
	}
	initLua, err := filepath.Abs("../editors/neovim/test/init.lua")
	must(t, err)
	if _, err := os.Stat(initLua); err != nil {
		t.Fatalf("the Neovim harness is missing: %v", err)
	}
	bin := serverBinary(t)
	root := filepath.Join(t.TempDir(), "ws")
	copyFixture(t, root)
	out := filepath.Join(t.TempDir(), "results.json")
	home := t.TempDir()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-i", "NONE", "-u", initLua)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"CONTEXT_LS_BIN="+bin, "CONTEXT_LS_ROOT="+root, "CONTEXT_LS_OUT="+out, "CONTEXT_LS_DB="+t.TempDir(),
		"CONTEXT_LS_EMBEDDINGS=off",
		"HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home, "XDG_STATE_HOME="+home, "XDG_CACHE_HOME="+home,
	)
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, output)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no results: %v\n%s", err, output)
	}
	var res neovimResults
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("results %s: %v", raw, err)
	}
	if res.Error != "" {
		t.Fatalf("the harness failed after steps %v: %s", res.Steps, res.Error)
	}
	if !res.Bootstrap || !res.Attached {
		t.Errorf("bootstrap progress ended: %v; buffer attached: %v", res.Bootstrap, res.Attached)
	}

	// Definition: the UTF-16 position after the emoji resolves across
	// packages.
	mainText, err := os.ReadFile(filepath.Join(root, "cmd/app/main.go"))
	must(t, err)
	if want := position(t, string(mainText), "NewCircle", 0, 0); res.Position != want {
		t.Errorf("Neovim's position %+v, ours %+v", res.Position, want)
	}
	shapes, err := os.ReadFile(filepath.Join(root, "geo/shapes.go"))
	must(t, err)
	wantDef := protocol.Location{
		URI:   protocol.DocumentURI(workspace.PathToURI(filepath.Join(root, "geo/shapes.go"))),
		Range: protocol.Range{Start: position(t, string(shapes), "NewCircle", 1, 0), End: position(t, string(shapes), "NewCircle", 1, 9)},
	}
	if d := res.Definition; d.Error != "" || len(d.Result) != 1 || d.Result[0] != wantDef {
		t.Errorf("definition %+v, want %+v", d, wantDef)
	}

	// Commands: search answers with located hits; callers of the call
	// site's callee come with the call site.
	if s := res.Search; s.Error != "" || len(s.Result.Hits) == 0 || s.Result.Hits[0].Symbol != "TotalArea" ||
		string(s.Result.Hits[0].Location.URI) != workspace.PathToURI(filepath.Join(root, "geo/rect.go")) || !strings.Contains(s.Result.Hits[0].Text, "func TotalArea") {
		t.Errorf("search %+v", s)
	}
	site := protocol.Range{Start: res.Position, End: protocol.Position{Line: res.Position.Line, Character: res.Position.Character + 9}}
	c := res.Callers
	if c.Error != "" || len(c.Result.Results) != 1 || c.Result.Results[0].Definition.Symbol.Symbol != "NewCircle" || len(c.Result.Results[0].Items) != 2 {
		t.Fatalf("callers %+v", c)
	}
	if it := c.Result.Results[0].Items[0]; it.Symbol != "main" || len(it.Sites) != 1 || it.Sites[0].LSP.Range != site ||
		string(it.Sites[0].LSP.URI) != workspace.PathToURI(filepath.Join(root, "cmd/app/main.go")) {
		t.Errorf("caller %+v, want main calling at %+v", it, site)
	}

	// The unsaved edit Neovim sent was found.
	var hit SearchHit
	if err := json.Unmarshal(res.EditHit, &hit); err != nil || hit.Symbol != "Volume" || !strings.Contains(hit.Text, "func Volume() float64") {
		t.Errorf("unsaved edit not found: %s", res.EditHit)
	}
	// The buffer's last line (15, 0-based) holds the function; the
	// snippet may start earlier (small definitions share a chunk) and its
	// location spans exactly its text.
	r := hit.Location.Range
	if r.End.Line != 15 || r.End.Character != uint32(len("func Volume() float64 { return 1 }")) ||
		int(r.End.Line-r.Start.Line) != strings.Count(hit.Text, "\n") {
		t.Errorf("Volume hit at %+v for text %q", r, hit.Text)
	}

	// Neovim stopped the server cleanly.
	if !res.Stopped || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Errorf("server stop: stopped %v, exit code %v", res.Stopped, res.ExitCode)
	}
}
