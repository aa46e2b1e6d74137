package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/vectors"
	"github.com/context-ls/context-ls/workspace"
)

// doctor checks what context-ls needs, one part at a time, and says what is
// wrong and what to do: the binary, the ONNX Runtime (where it was looked
// for, whether it loads), the embedding model (which, its checksums, one
// sentence embedded), the index (where, verified as `index --verify` does),
// the workspace's ignore rules and the editor integration. It reads the
// existing checks (vectors' discovery, engine's verify, the workspace's
// rules) and changes nothing: an index that does not exist is not created.

func init() {
	register(command{name: "doctor", usage: "[--root DIR] [--db DIR] [--json] [DIR]",
		summary: "check the binary, ONNX Runtime, embedding model, index, ignore rules and editor setup", run: runDoctor})
}

// Check statuses, worst last.
const (
	checkOK   = "ok"
	checkInfo = "info"
	checkWarn = "warn"
	checkFail = "fail"
)

// doctorCheck is one part of the report.
type doctorCheck struct {
	Name    string   `json:"name"`
	Status  string   `json:"status"`
	Summary string   `json:"summary"`
	Details []string `json:"details,omitempty"`
	// Fix says what to do when the status is warn or fail.
	Fix string `json:"fix,omitempty"`
}

// doctorReport is doctor's answer (--json prints it).
type doctorReport struct {
	Version string        `json:"version"`
	Binary  string        `json:"binary"`
	Root    string        `json:"root"`
	Checks  []doctorCheck `json:"checks"`
}

func runDoctor(ctx context.Context, env *cliEnv, args []string) error {
	fs := env.flags(true)
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	if err := env.rootArg(fs, rest); err != nil {
		return err
	}
	root, err := filepath.Abs(env.root)
	if err != nil {
		return err
	}
	cfg, diags, err := env.layered()
	if err != nil {
		return err
	}
	base := env.db
	if base == "" {
		base = cfg.DBPath
	}
	if cfg.DBPath, err = engine.IndexDir(base, env.root); err != nil {
		return err
	}
	rep := doctorReport{Version: version, Binary: binaryPath(), Root: root}
	rt, runtimeCheck := checkRuntime(cfg.Embeddings)
	index, owner := checkIndex(ctx, env, cfg)
	rep.Checks = []doctorCheck{
		checkBinary(rep.Binary),
		runtimeCheck,
		checkModel(ctx, cfg, rt),
		index,
		checkIgnore(ctx, root, cfg, diags),
		checkEditors(root, rep.Binary, owner),
	}
	if env.jsonOut {
		if err := env.printJSON(rep); err != nil {
			return err
		}
	} else {
		printDoctor(env, rep)
	}
	for _, c := range rep.Checks {
		if c.Status == checkFail {
			return exitStatus(exitError)
		}
	}
	return nil
}

// printDoctor prints the report: one block per check, its status and
// summary on the first line, details indented below, then what to do.
func printDoctor(env *cliEnv, rep doctorReport) {
	env.printf("context-ls doctor: %s\n\n", rep.Root)
	for _, c := range rep.Checks {
		env.printf("%-8s %-4s  %s\n", c.Name, c.Status, c.Summary)
		for _, d := range c.Details {
			env.printf("%15s%s\n", "", d)
		}
		if c.Fix != "" {
			env.printf("%15sto do: %s\n", "", c.Fix)
		}
	}
}

// binaryPath is the running binary, symlinks resolved.
func binaryPath() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		return r
	}
	return exe
}

func checkBinary(bin string) doctorCheck {
	c := doctorCheck{Name: "binary", Status: checkOK,
		Summary: fmt.Sprintf("context-ls %s (%s, %s/%s) at %s", version, runtime.Version(), runtime.GOOS, runtime.GOARCH, bin)}
	if dir := vectors.BundleDir(); dir != "" {
		var have []string
		for _, d := range []string{vectors.BundleLibDir, vectors.BundleModelsDir} {
			if st, err := os.Stat(filepath.Join(dir, d)); err == nil && st.IsDir() {
				have = append(have, d+"/")
			}
		}
		if len(have) > 0 {
			c.Details = append(c.Details, fmt.Sprintf("release layout: %s beside it in %s", strings.Join(have, " and "), dir))
		} else {
			c.Details = append(c.Details, fmt.Sprintf("no lib/ or models/ beside it in %s (not an unpacked release archive)", dir))
		}
	}
	return c
}

// checkRuntime finds the ONNX Runtime library where the embedder would and
// loads it; it returns the library's path ("" when none loaded). Without
// embeddings a missing library is no problem.
func checkRuntime(embeddings bool) (string, doctorCheck) {
	c := doctorCheck{Name: "runtime"}
	places := vectors.RuntimePlaces("")
	found := -1
	for i, p := range places {
		switch {
		case p.Found != "" && found < 0:
			found = i
			c.Details = append(c.Details, fmt.Sprintf("%s: %s (used)", p.Origin, p.Found))
		case p.Found != "":
			c.Details = append(c.Details, fmt.Sprintf("%s: %s", p.Origin, p.Found))
		case p.Path == "":
			c.Details = append(c.Details, fmt.Sprintf("%s: %s", p.Origin, p.Problem))
		default:
			c.Details = append(c.Details, fmt.Sprintf("%s: %s: %s", p.Origin, p.Path, p.Problem))
		}
	}
	if found < 0 && !embeddings {
		c.Status, c.Summary = checkInfo, "no ONNX Runtime library found (embeddings are off)"
		return "", c
	}
	if found < 0 {
		c.Status = checkWarn
		c.Summary = "no ONNX Runtime library found: no embeddings, search uses words, names and the code graph"
		c.Fix = fmt.Sprintf("use a release archive (its lib/ holds the runtime), or install ONNX Runtime >= %s and set %s to the library",
			vectors.RuntimeVersion, vectors.RuntimeEnv)
		return "", c
	}
	p := places[found]
	v, err := vectors.LoadRuntime(p.Found)
	if err != nil {
		c.Status = checkFail
		c.Summary = fmt.Sprintf("%s (%s) does not load: %s", p.Found, p.Origin, service.OneLine(err))
		c.Fix = fmt.Sprintf("replace it with ONNX Runtime >= %s for %s/%s, or point %s at one", vectors.RuntimeVersion, runtime.GOOS, runtime.GOARCH, vectors.RuntimeEnv)
		return "", c
	}
	c.Status = checkOK
	c.Summary = fmt.Sprintf("ONNX Runtime %s loaded from %s (%s)", v, p.Found, p.Origin)
	return p.Found, c
}

// checkModel resolves the embedding model as the engine does, verifies its
// files against the registry's checksums and, with a loaded runtime,
// embeds one sentence with it.
func checkModel(ctx context.Context, cfg workspace.Config, rt string) doctorCheck {
	c := doctorCheck{Name: "model"}
	spec, dir, err := engine.ResolveModel(cfg.Model, cfg.ModelPath)
	if err != nil {
		c.Status, c.Summary = checkFail, service.OneLine(err)
		c.Fix = "name a model of `context-ls model list` (model in .context-ls.toml, --model)"
		return c
	}
	where := modelOrigin(cfg, dir)
	if !cfg.Embeddings {
		c.Status = checkInfo
		c.Summary = fmt.Sprintf("embeddings are off (configuration or %s); the model would be %s in %s (%s)", workspace.EnvEmbeddings, spec.Name, dir, where)
		return c
	}
	if !vectors.Present(spec, dir) {
		c.Status = checkWarn
		c.Summary = fmt.Sprintf("model %s is not installed in %s (%s): no embeddings", spec.Name, dir, where)
		if bundled := vectors.BundledModelsDir(); bundled != "" && cfg.ModelPath == "" {
			c.Details = append(c.Details, "also looked in "+filepath.Join(bundled, spec.Name)+" (beside the binary)")
		}
		c.Fix = modelFix(spec)
		return c
	}
	files, verr := vectors.Verify(spec, dir)
	for _, f := range files {
		verdict := "matches the registry"
		switch {
		case !f.OK:
			verdict = f.Problem
		case !f.Pinned:
			verdict = "no pinned checksum"
		}
		c.Details = append(c.Details, fmt.Sprintf("%s: sha256 %s, %s", f.Name, f.SHA256, verdict))
	}
	if verr != nil {
		c.Status = checkFail
		c.Summary = fmt.Sprintf("model %s in %s (%s) fails its checksums", spec.Name, dir, where)
		c.Fix = modelFix(spec)
		return c
	}
	c.Status = checkOK
	c.Summary = fmt.Sprintf("%s (%d dims) in %s (%s)", spec.Name, spec.Dim, dir, where)
	if rt == "" {
		c.Details = append(c.Details, "not loaded: no ONNX Runtime")
		return c
	}
	start := time.Now()
	emb, err := vectors.Open(spec, dir, vectors.Options{RuntimePath: rt})
	if err == nil {
		_, err = emb.Embed(ctx, []string{"where is a failed upload retried"}, vectors.Query)
		emb.Close()
	}
	if err != nil {
		c.Status = checkFail
		c.Summary = fmt.Sprintf("model %s in %s does not run: %s", spec.Name, dir, service.OneLine(err))
		c.Fix = modelFix(spec)
		return c
	}
	c.Details = append(c.Details, fmt.Sprintf("loaded and embedded a test sentence in %d ms", time.Since(start).Milliseconds()))
	return c
}

// modelOrigin says where a model directory comes from.
func modelOrigin(cfg workspace.Config, dir string) string {
	switch {
	case cfg.ModelPath != "":
		return "modelPath"
	case vectors.BundledModelsDir() != "" && filepath.Dir(dir) == vectors.BundledModelsDir():
		return "beside the binary"
	}
	return "user cache"
}

func modelFix(spec vectors.ModelSpec) string {
	if !spec.Downloadable() {
		return fmt.Sprintf("%s is not downloadable: use a release archive that carries it, or set modelPath to a directory holding its files", spec.Name)
	}
	return "context-ls model pull " + spec.Name
}

// checkIndex reports the workspace's index: where it is and whether it is
// healthy (the whole index read and checked, as `index --verify` does),
// without creating one. It returns the owner that answered when a server
// holds the index.
func checkIndex(ctx context.Context, env *cliEnv, cfg workspace.Config) (doctorCheck, string) {
	c := doctorCheck{Name: "index"}
	if _, err := os.Stat(cfg.DBPath); errors.Is(err, fs.ErrNotExist) {
		c.Status = checkInfo
		c.Summary = "not built yet: " + cfg.DBPath
		c.Fix = "context-ls index (or any query) builds it; an editor's server builds it when it starts"
		return c, ""
	}
	cfg.Embeddings = false // the check reads the index; embedding it is not doctor's job
	ix, err := env.openIndexWith(ctx, cfg, env.logger(slog.LevelError))
	if err != nil {
		c.Status, c.Summary = checkFail, fmt.Sprintf("%s does not open: %s", cfg.DBPath, service.OneLine(err))
		c.Fix = "context-ls index --verify rebuilds a damaged index; or remove the directory and index again"
		return c, ""
	}
	defer ix.close()
	st, err := service.Do[service.StatsResult](ctx, ix, service.OpStats, service.StatsRequest{})
	if err != nil {
		c.Status, c.Summary = checkWarn, fmt.Sprintf("%s: %s", cfg.DBPath, service.OneLine(err))
		return c, ""
	}
	owner := ""
	if o := ix.owner(); o != nil {
		owner = fmt.Sprintf("process %d (%s) holds the index and answered", o.PID, o.Role)
	}
	c.Details = append(c.Details, fmt.Sprintf("%s (%s), %d files, last full index %s", st.Index, humanBytes(st.IndexBytes), st.Files, orNever(st.LastIndex)))
	vr, err := service.Do[service.VerifyResult](ctx, ix, service.OpVerify, service.VerifyRequest{})
	switch {
	case err != nil:
		c.Status, c.Summary = checkWarn, "could not be checked: "+service.OneLine(err)
	case vr.Damaged:
		c.Status = checkFail
		c.Summary = fmt.Sprintf("damaged: %s", strings.Join(vr.Problems, "; "))
		c.Fix = "context-ls index --verify rebuilds what is damaged"
	default:
		c.Status = checkOK
		c.Summary = fmt.Sprintf("healthy: %d files, %d chunks, %d keys and %d text documents checked", vr.Files, vr.Chunks, vr.Keys, vr.TextDocs)
	}
	return c, owner
}

func orNever(s string) string {
	if s == "" {
		return "never completed"
	}
	return s
}

// checkIgnore says what would be indexed and which rules decide it.
func checkIgnore(ctx context.Context, root string, cfg workspace.Config, diags []workspace.Diagnostic) doctorCheck {
	c := doctorCheck{Name: "ignore", Status: checkOK}
	ws, err := workspace.Open(root, cfg)
	if err != nil {
		c.Status, c.Summary = checkFail, service.OneLine(err)
		return c
	}
	res, err := service.ListFiles(ctx, root, cfg, service.FilesRequest{})
	if err != nil {
		c.Status, c.Summary = checkFail, "listing the files to index: "+service.OneLine(err)
		return c
	}
	langs := map[string]int{}
	for _, f := range res.Files {
		langs[f.Language]++
	}
	var counts []string
	for l, n := range langs {
		counts = append(counts, fmt.Sprintf("%s %d", l, n))
	}
	sort.Strings(counts)
	c.Summary = fmt.Sprintf("%d files would be indexed", len(res.Files))
	if len(counts) > 0 {
		c.Summary += " (" + strings.Join(counts, ", ") + ")"
	}
	if ws.InGitRepo() {
		c.Details = append(c.Details, ".gitignore files apply: the root is inside a git repository")
	} else {
		c.Details = append(c.Details, ".gitignore files do not apply: the root is not inside a git repository (.contextignore files do)")
	}
	for _, f := range []string{".contextignore", workspace.ConfigFileName} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			c.Details = append(c.Details, f+" at the root")
		}
	}
	if len(cfg.Ignore) > 0 {
		c.Details = append(c.Details, "ignore (configuration): "+strings.Join(cfg.Ignore, ", "))
	}
	if len(cfg.Languages) > 0 {
		c.Details = append(c.Details, "languages (configuration): "+strings.Join(cfg.Languages, ", "))
	}
	c.Details = append(c.Details, fmt.Sprintf("files over %s are left out (maxFileSize)", humanBytes(ws.MaxFileSize())))
	for _, d := range diags {
		c.Status = checkWarn
		c.Details = append(c.Details, "configuration: "+d.String())
	}
	if len(res.Files) == 0 {
		c.Status = checkWarn
		c.Fix = "check --root; context-ls files --why PATH says which rule leaves a file out"
	} else if c.Status == checkWarn {
		c.Fix = "fix the configuration entries above (the defaults apply meanwhile)"
	}
	return c
}

// checkEditors reports what the editors and agents would find: the binary
// on PATH, a server holding the index, the VS Code extension, the MCP
// registrations of the workspace.
func checkEditors(root, bin, owner string) doctorCheck {
	c := doctorCheck{Name: "editors", Status: checkInfo}
	onPath, err := exec.LookPath("context-ls")
	switch {
	case err != nil:
		c.Summary = "context-ls is not on PATH"
		c.Details = append(c.Details, "the VS Code extension runs the server it carries; elsewhere set contextLs.serverPath, Neovim's cmd or the agent's command to "+bin)
	case sameFile(onPath, bin):
		c.Summary = "context-ls on PATH is this binary (" + onPath + ")"
	default:
		c.Summary = "context-ls on PATH is another binary: " + onPath
		c.Details = append(c.Details, "editors and agents that look on PATH start that one, not "+bin)
	}
	if owner != "" {
		c.Details = append(c.Details, "server: "+owner)
	} else {
		c.Details = append(c.Details, "server: none holds this workspace's index now")
	}
	home, _ := os.UserHomeDir()
	var exts []string
	for _, dir := range []string{".vscode/extensions", ".vscode-server/extensions", ".vscode-oss/extensions", ".cursor/extensions", ".local/share/code-server/extensions"} {
		matches, _ := filepath.Glob(filepath.Join(home, dir, "context-ls.context-ls-*"))
		exts = append(exts, matches...)
	}
	if len(exts) == 0 {
		c.Details = append(c.Details, "VS Code extension: not installed under "+home)
	}
	for _, e := range exts {
		what := "uses contextLs.serverPath or PATH"
		if _, err := os.Stat(filepath.Join(e, "server", "bin", "context-ls")); err == nil {
			what = "carries its own server"
		}
		c.Details = append(c.Details, fmt.Sprintf("VS Code extension: %s (%s)", e, what))
	}
	for _, f := range []string{".mcp.json", filepath.Join(".cursor", "mcp.json"), filepath.Join(".vscode", "mcp.json")} {
		if cmd, ok := mcpCommand(filepath.Join(root, f)); ok {
			state := "found"
			if _, err := exec.LookPath(cmd); err != nil {
				state = "not found"
			}
			c.Details = append(c.Details, fmt.Sprintf("MCP: %s starts %s (%s)", f, cmd, state))
		}
	}
	return c
}

// mcpCommand returns the command of the context-ls server an MCP
// configuration file registers (Claude Code's and Cursor's mcpServers,
// VS Code's servers), if any.
func mcpCommand(path string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	var cfg struct {
		MCPServers map[string]struct{ Command string } `json:"mcpServers"`
		Servers    map[string]struct{ Command string } `json:"servers"`
	}
	if json.Unmarshal(data, &cfg) != nil {
		return "", false
	}
	for _, servers := range []map[string]struct{ Command string }{cfg.MCPServers, cfg.Servers} {
		for _, s := range servers {
			if filepath.Base(s.Command) == "context-ls" {
				return s.Command, true
			}
		}
	}
	return "", false
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
