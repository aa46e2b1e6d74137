package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/context-ls/context-ls/engine"
)

// Callers in Python and TypeScript against type-aware references: pyright's
// and tsserver's call hierarchy, through their language servers (pyright's
// own, typescript-language-server over typescript 5, whose tsserver the
// server needs; both installed from npm into the tools directory).
//
// Normalisation, the same for both and for every target:
//   - targets: the functions and methods (dunder methods, Python properties
//     and TypeScript accessors, read as attributes and never called, left
//     out) the
//     reference server's documentSymbol lists in the repository's source
//     files (tests left out), and TypeScript constants initialised with an
//     arrow function or a function expression; drawn at random with a fixed
//     seed;
//   - the reference callers are its incoming calls, each confirmed by its
//     own go-to-definition: a call range counts when the definition there
//     is the target (the target's file, within its range or one of its
//     overload signatures': overloads are one function);
//   - callers are compared by file and enclosing function, one rule for
//     both sides: each call site (the reference's confirmed call ranges,
//     our items' sites) belongs to the outermost definition containing it
//     in the reference server's document outline — a top-level function or
//     constant, or a member of a top-level class —, named by the line of
//     its name; a call outside any is the file's (line 0). Nested
//     functions fold into the function around them (the servers and we
//     differ on which local functions are definitions);
//   - tests-for-symbol: a target has tests when a reference caller in a test
//     file (Python: a test_* function or a test method there; TypeScript:
//     any caller there, test blocks being anonymous) calls it directly or
//     through one non-test caller; we find them when one of our tests is
//     that caller (Python) or in one of those files (TypeScript).

// npmTools are the reference servers' packages, pinned.
var npmTools = []string{"pyright@1.1.414", "typescript-language-server@6.0.2", "typescript@5.9.3"}

// refRepo is a repository measured against a reference language server.
type refRepo struct {
	name   string // short name in figures
	lang   string // "python" or "typescript"
	repo   string // owner/name of the git copy
	commit string // the tree measured
	// paths are the parts of the tree copied (the sources and their tests).
	paths []string
	// tsconfig, when set, is written over the copy's own (whose extends and
	// project references name packages that are not installed): one
	// project over every file copied.
	tsconfig string
}

// The repositories (none in ../shared/eval, none the team measures on).
var refRepos = []refRepo{
	// A Python HTTP client: httpx/__init__.py re-exports its submodules'
	// names, Client and AsyncClient derive from BaseClient, pytest tests.
	{name: "httpx", lang: "python", repo: "encode/httpx", commit: "ae1b9f66238f75ced3ced5e4485408435de10768",
		paths: []string{"httpx", "tests"}},
	// A TypeScript web framework: index.ts files re-exporting (also under
	// other names), classes with #private members, vitest tests.
	{name: "hono", lang: "typescript", repo: "honojs/hono", commit: "28a9c128912de19f3fb28b00ae289c9b93f6f392",
		paths: []string{"src"}, tsconfig: tsProject("src/**/*")},
	// A TypeScript promise queue: #private methods, node:test tests in
	// test/ named like the sources.
	{name: "p-queue", lang: "typescript", repo: "sindresorhus/p-queue", commit: "180ab9e25cd10b6f548767d7176076b50d25e188",
		paths: []string{"source", "test"}, tsconfig: tsProject("source/**/*", "test/**/*")},
}

// tsProject is a tsconfig.json over the given files.
func tsProject(include ...string) string {
	q := make([]string, len(include))
	for i, s := range include {
		q[i] = fmt.Sprintf("%q", s)
	}
	return `{"compilerOptions": {"target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler",
  "allowJs": true, "strict": true, "noEmit": true, "skipLibCheck": true, "jsx": "react-jsx", "jsxImportSource": "hono/jsx",
  "experimentalDecorators": true, "lib": ["ES2022", "DOM"]},
  "include": [` + strings.Join(q, ", ") + `]}
`
}

// Floors of the reference comparisons.
const (
	floorRefPrecision = 0.95
	floorRefRecall    = 0.85
	floorRefTests     = 0.90
)

// refSource reports a file measured for its callers: a source of the
// language, not a test and not a declaration file.
func refSource(lang, rel string) bool {
	switch lang {
	case "python":
		return strings.HasSuffix(rel, ".py") && !refTestFile(lang, rel)
	case "typescript":
		return (strings.HasSuffix(rel, ".ts") || strings.HasSuffix(rel, ".tsx")) && !strings.HasSuffix(rel, ".d.ts") && !refTestFile(lang, rel)
	}
	return false
}

// refTestFile reports test files by the runners' conventions (pytest;
// jest, vitest, mocha, ava and node:test), independent of ours.
func refTestFile(lang, rel string) bool {
	base := path.Base(rel)
	dirs := "/" + path.Dir(rel) + "/"
	switch lang {
	case "python":
		return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" ||
			strings.Contains(dirs, "/tests/") || strings.Contains(dirs, "/test/")
	case "typescript":
		return strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
			strings.Contains(dirs, "/__tests__/") || strings.Contains(dirs, "/test/") || strings.Contains(dirs, "/tests/")
	}
	return false
}

// refTarget is a function or method the reference server lists.
type refTarget struct {
	rel, name string
	sel       lspRange // the name, as the server gives it
	rng       lspRange // the whole definition
	// overloads are the ranges of the declarations of the same name beside
	// it (TypeScript overload signatures and their implementation): one
	// function, whichever signature a call binds to.
	overloads []lspRange
	line, col int // 1-based line and byte column of the name
	method    bool
}

// relPath is a file URI's path relative to root.
func relPath(root, uri string) (string, bool) {
	p := uri
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" {
		p = u.Path
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// refSession is a reference server on one repository copy.
type refSession struct {
	c        *lspClient
	root     string
	lang     string
	opened   map[string]bool
	texts    map[string][]byte
	outlines map[string][]docSymbol
}

// caller is a caller's key (file, line of the enclosing outermost
// definition's name) with that definition's name.
type caller struct {
	loc
	name string
}

// outline returns the reference server's document symbols of a file.
func (s *refSession) outline(ctx context.Context, rel string) ([]docSymbol, error) {
	if syms, ok := s.outlines[rel]; ok {
		return syms, nil
	}
	if err := s.open(rel); err != nil {
		return nil, err
	}
	var syms []docSymbol
	err := s.c.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": fileURI(filepath.Join(s.root, rel))}}, &syms)
	if err != nil {
		return nil, err
	}
	s.outlines[rel] = syms
	return syms, nil
}

// containers are the symbol kinds whose members are definitions of their
// own: classes, interfaces, namespaces, modules, enums, structs.
var containers = map[int]bool{2: true, 3: true, 5: true, 10: true, 11: true, 23: true}

// callerAt is the caller key of a call at pos (0-based line, UTF-16
// character) in file rel.
func (s *refSession) callerAt(ctx context.Context, rel string, pos lspPosition) (caller, error) {
	syms, err := s.outline(ctx, rel)
	if err != nil {
		return caller{}, err
	}
	for _, ds := range syms {
		if !contains(ds.Range, pos) {
			continue
		}
		if containers[ds.Kind] {
			for _, m := range ds.Children {
				if contains(m.Range, pos) {
					return caller{loc{rel, m.SelectionRange.Start.Line + 1}, m.Name}, nil
				}
			}
		}
		return caller{loc{rel, ds.SelectionRange.Start.Line + 1}, ds.Name}, nil
	}
	return caller{loc{rel, 0}, ""}, nil
}

func contains(r lspRange, p lspPosition) bool {
	before := func(a, b lspPosition) bool { return a.Line < b.Line || a.Line == b.Line && a.Character <= b.Character }
	return before(r.Start, p) && before(p, r.End)
}

// ourCallers returns the caller keys of our items' sites (line and
// column converted to a position), with each item's reason.
func (s *refSession) ourCallers(ctx context.Context, items []engine.GraphItem) (map[loc]string, error) {
	out := map[loc]string{}
	for _, it := range items {
		b, err := s.text(it.Path)
		if err != nil {
			continue // a file the reference does not see
		}
		lines := bytes.Split(b, []byte("\n"))
		for _, site := range it.Sites {
			l := site.Line - 1
			if l < 0 || l >= len(lines) {
				continue
			}
			pos := lspPosition{Line: l, Character: utf16Column(lines[l], min(site.Col-1, len(lines[l])))}
			c, err := s.callerAt(ctx, it.Path, pos)
			if err != nil {
				return nil, err
			}
			out[c.loc] = it.Confidence + " " + it.Reason
		}
	}
	return out, nil
}

func (s *refSession) langID(rel string) string {
	switch {
	case strings.HasSuffix(rel, ".py"):
		return "python"
	case strings.HasSuffix(rel, ".tsx"):
		return "typescriptreact"
	case strings.HasSuffix(rel, ".js") || strings.HasSuffix(rel, ".mjs") || strings.HasSuffix(rel, ".cjs"):
		return "javascript"
	}
	return "typescript"
}

// open tells the server about a file once (tsserver answers only for
// files it was told about).
func (s *refSession) open(rel string) error {
	if s.opened[rel] {
		return nil
	}
	b, err := s.text(rel)
	if err != nil {
		return err
	}
	s.opened[rel] = true
	return s.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": fileURI(filepath.Join(s.root, rel)), "languageId": s.langID(rel), "version": 1, "text": string(b)}})
}

func (s *refSession) text(rel string) ([]byte, error) {
	if b, ok := s.texts[rel]; ok {
		return b, nil
	}
	b, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	s.texts[rel] = b
	return b, nil
}

type docSymbol struct {
	Name           string      `json:"name"`
	Kind           int         `json:"kind"`
	Range          lspRange    `json:"range"`
	SelectionRange lspRange    `json:"selectionRange"`
	Children       []docSymbol `json:"children"`
}

// targets lists the functions and methods of a source file.
func (s *refSession) targets(ctx context.Context, rel string) ([]refTarget, error) {
	syms, err := s.outline(ctx, rel)
	if err != nil {
		return nil, err
	}
	src, _ := s.text(rel)
	lines := bytes.Split(src, []byte("\n"))
	var out []refTarget
	add := func(ds docSymbol, method bool) {
		if strings.HasPrefix(ds.Name, "__") && strings.HasSuffix(ds.Name, "__") || ds.Name == "constructor" {
			return
		}
		l := ds.SelectionRange.Start.Line
		if l >= len(lines) || s.lang == "python" && pyProperty(lines, l) {
			return
		}
		col := byteColumn(lines[l], ds.SelectionRange.Start.Character)
		if before := strings.Fields(string(lines[l][:col])); len(before) > 0 && (before[len(before)-1] == "get" || before[len(before)-1] == "set") {
			return // a TypeScript accessor: read as a property, never called
		}
		if string(lines[l][col:min(len(lines[l]), col+len(ds.Name))]) != ds.Name {
			return // a computed or odd name
		}
		out = append(out, refTarget{rel: rel, name: ds.Name, sel: ds.SelectionRange, rng: ds.Range, line: l + 1, col: col + 1, method: method})
	}
	overloads := func(level []docSymbol) {
		byName := map[string][]lspRange{}
		for _, ds := range level {
			byName[ds.Name] = append(byName[ds.Name], ds.Range)
		}
		for i := range out {
			if len(byName[out[i].name]) > 1 && out[i].overloads == nil && containsRange(byName[out[i].name], out[i].rng) {
				out[i].overloads = byName[out[i].name]
			}
		}
	}
	defer overloads(syms)
	for _, ds := range syms {
		switch ds.Kind {
		case 12: // Function
			add(ds, false)
		case 13, 14: // Variable, Constant: const f = () => …
			if s.lang == "typescript" && arrowInit(lines, ds) {
				add(ds, false)
			}
		case 5: // Class
			for _, m := range ds.Children {
				if m.Kind == 6 { // Method
					add(m, true)
				}
			}
			overloads(ds.Children)
		}
	}
	return out, nil
}

// pyProperty reports a method decorated as a property (@property,
// @x.setter, @cached_property): read as an attribute, never called.
func pyProperty(lines [][]byte, l int) bool {
	for k := l - 1; k >= 0 && k >= l-6; k-- {
		t := strings.TrimSpace(string(lines[k]))
		if !strings.HasPrefix(t, "@") {
			break
		}
		if t == "@property" || strings.HasSuffix(t, ".setter") || strings.HasSuffix(t, ".getter") || strings.HasSuffix(t, ".deleter") || strings.HasSuffix(t, "cached_property") {
			return true
		}
	}
	return false
}

func containsRange(list []lspRange, r lspRange) bool {
	for _, l := range list {
		if l == r {
			return true
		}
	}
	return false
}

// arrowInit reports a constant initialised with a function (const f = (…) => …).
func arrowInit(lines [][]byte, ds docSymbol) bool {
	l := ds.SelectionRange.Start.Line
	if l >= len(lines) {
		return false
	}
	rest := string(lines[l])
	if d := strings.Fields(strings.TrimPrefix(strings.TrimSpace(rest), "export ")); len(d) == 0 || d[0] != "const" && d[0] != "let" && d[0] != "var" {
		return false
	}
	i := strings.Index(rest, ds.Name)
	if i < 0 {
		return false
	}
	rest = rest[i+len(ds.Name):]
	for k := l + 1; k < min(len(lines), l+3); k++ {
		rest += " " + string(lines[k])
	}
	eq := strings.Index(rest, "=")
	if eq < 0 || strings.HasPrefix(rest[eq:], "==") {
		return false
	}
	v := strings.TrimSpace(rest[eq+1:])
	return strings.HasPrefix(v, "(") && strings.Contains(v, "=>") || strings.HasPrefix(v, "async") || strings.HasPrefix(v, "function")
}

// byteColumn converts a UTF-16 column of a line to a byte column.
func byteColumn(line []byte, u16 int) int {
	n := 0
	for i, r := range string(line) {
		if n >= u16 {
			return i
		}
		if r == utf8.RuneError {
			n++
			continue
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return len(line)
}

// incoming returns the reference's confirmed callers of t by key, each
// with the call hierarchy item to follow for two hops.
func (s *refSession) incoming(ctx context.Context, t refTarget) (map[caller]callItem, error) {
	if err := s.open(t.rel); err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	calls, err := s.c.incoming(qctx, filepath.Join(s.root, t.rel), t.sel.Start)
	if err != nil {
		return nil, err
	}
	return s.confirmedCallers(qctx, calls, &t)
}

// confirmedCallers keys the call ranges of incoming calls, keeping those
// whose definition is t (all when t is nil).
func (s *refSession) confirmedCallers(ctx context.Context, calls []incomingCall, t *refTarget) (map[caller]callItem, error) {
	out := map[caller]callItem{}
	for _, ic := range calls {
		rel, ok := relPath(s.root, ic.From.URI)
		if !ok {
			continue
		}
		for _, r := range ic.FromRanges {
			c, err := s.callerAt(ctx, rel, r.Start)
			if err != nil {
				return nil, err
			}
			if _, seen := out[c]; seen {
				continue
			}
			if t != nil {
				ok, err := s.confirmed(ctx, rel, r, *t)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
			}
			out[c] = ic.From
		}
	}
	return out, nil
}

// confirmed reports whether the definition at call range r in file rel is
// the target.
func (s *refSession) confirmed(ctx context.Context, rel string, r lspRange, t refTarget) (bool, error) {
	if err := s.open(rel); err != nil {
		return false, err
	}
	var raw json.RawMessage
	params := map[string]any{"textDocument": map[string]string{"uri": fileURI(filepath.Join(s.root, rel))}, "position": r.Start}
	if err := s.c.call(ctx, "textDocument/definition", params, &raw); err != nil {
		return false, err
	}
	for _, d := range decodeLocations(raw) {
		drel, ok := relPath(s.root, d.URI)
		if !ok || drel != t.rel {
			continue
		}
		for _, rg := range append([]lspRange{t.rng}, t.overloads...) {
			if d.Range.Start.Line >= rg.Start.Line && d.Range.Start.Line <= rg.End.Line {
				return true, nil
			}
		}
	}
	return false, nil
}

// lspLocation is a Location, or a LocationLink's target.
type lspLocation struct {
	URI       string   `json:"uri"`
	Range     lspRange `json:"range"`
	TargetURI string   `json:"targetUri"`
	TargetSel lspRange `json:"targetSelectionRange"`
}

// decodeLocations reads a definition answer: a Location, a list of
// Locations or of LocationLinks, or null.
func decodeLocations(raw json.RawMessage) []lspLocation {
	var list []lspLocation
	if err := json.Unmarshal(raw, &list); err != nil {
		var one lspLocation
		if json.Unmarshal(raw, &one) != nil {
			return nil
		}
		list = []lspLocation{one}
	}
	for i, l := range list {
		if l.TargetURI != "" {
			list[i].URI, list[i].Range = l.TargetURI, l.TargetSel
		}
	}
	return list
}

// refTests collects the reference's tests of a target: callers that are
// tests, directly or through one non-test caller (at most 10, spread).
func (s *refSession) refTests(ctx context.Context, callers map[caller]callItem) (map[loc]bool, error) {
	out := map[loc]bool{}
	var mids []callItem
	seen := map[string]bool{}
	for c, it := range callers {
		if s.isTest(c) {
			out[c.loc] = true
		} else if !refTestFile(s.lang, c.path) && !seen[it.URI+it.Name+fmt.Sprint(it.SelectionRange.Start)] {
			seen[it.URI+it.Name+fmt.Sprint(it.SelectionRange.Start)] = true
			mids = append(mids, it)
		}
	}
	sort.Slice(mids, func(i, j int) bool {
		if mids[i].URI != mids[j].URI {
			return mids[i].URI < mids[j].URI
		}
		return mids[i].SelectionRange.Start.Line < mids[j].SelectionRange.Start.Line
	})
	for _, m := range pick(mids, 10) {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		var second []incomingCall
		err := s.c.call(qctx, "callHierarchy/incomingCalls", map[string]any{"item": m}, &second)
		if err == nil {
			var keyed map[caller]callItem
			keyed, err = s.confirmedCallers(qctx, second, nil)
			for c := range keyed {
				if s.isTest(c) {
					out[c.loc] = true
				}
			}
		}
		cancel()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// isTest reports a reference caller that is a test.
func (s *refSession) isTest(c caller) bool {
	if !refTestFile(s.lang, c.path) {
		return false
	}
	if s.lang == "python" {
		return strings.HasPrefix(c.name, "test")
	}
	return true
}

// materialise writes the tree of repo at commit (its paths) from a git
// copy under mirrors into dest, once.
func materialise(mirrors string, r refRepo, dest string) error {
	marker := dest + ".done"
	if isFile(marker) {
		return nil
	}
	if mirrors == "" {
		return errSkip(fmt.Sprintf("no git copies (--mirrors or CONTEXT_EVAL_MIRRORS): %s not measured", r.repo))
	}
	slug := strings.ReplaceAll(r.repo, "/", "+")
	gitdir := filepath.Join(mirrors, slug, "repo")
	if _, err := os.Stat(gitdir); err != nil {
		gitdir = filepath.Join(mirrors, slug)
	}
	if err := exec.Command("git", "--git-dir", gitdir, "cat-file", "-e", r.commit+"^{commit}").Run(); err != nil {
		return errSkip(fmt.Sprintf("no git copy of %s holding %s under %s (get one: a clone into %s)", r.repo, r.commit[:12], mirrors, filepath.Join(mirrors, slug)))
	}
	if err := os.RemoveAll(dest); err != nil {
		return err
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	args := append([]string{"--git-dir", gitdir, "archive", "--format=tar", r.commit, "--"}, r.paths...)
	archive := exec.Command("git", args...)
	untar := exec.Command("tar", "-x", "-C", dest)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	if err := untar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		return fmt.Errorf("git archive %s: %w: %s", r.repo, err, stderr.String())
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("untar %s: %w", r.repo, err)
	}
	if r.tsconfig != "" {
		if err := os.WriteFile(filepath.Join(dest, "tsconfig.json"), []byte(r.tsconfig), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(marker, nil, 0o644)
}

// skipError marks a part that cannot run here (a tool or a repository is
// missing): reported, not failed.
type skipError string

func (e skipError) Error() string { return string(e) }

func errSkip(msg string) error { return skipError(msg) }

// npmBin returns the path of an npm tool's binary, installing the pinned
// tools into dir when missing.
func npmBin(ctx context.Context, dir, name string) (string, error) {
	bin := filepath.Join(dir, "node_modules", ".bin", name)
	if isFile(bin) {
		return bin, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errSkip("npm not found: the reference servers (" + strings.Join(npmTools, ", ") + ") cannot be installed")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if !isFile(filepath.Join(dir, "package.json")) {
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "bench-graph-tools", "private": true}`+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	fmt.Printf("bench-graph: installing %s into %s\n", strings.Join(npmTools, " "), dir)
	cmd := exec.CommandContext(ctx, "npm", append([]string{"install", "--no-audit", "--no-fund", "--prefix", dir}, npmTools...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", errSkip(fmt.Sprintf("npm install %s failed (%v): %s", strings.Join(npmTools, " "), err, lastLines(b, 3)))
	}
	if !isFile(bin) {
		return "", fmt.Errorf("%s installed but %s is missing", strings.Join(npmTools, " "), bin)
	}
	return bin, nil
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// benchRefs measures every reference repository; a repository or tool
// that is missing is skipped with its reason.
func benchRefs(ctx context.Context, o options) error {
	for _, r := range refRepos {
		if len(o.repos) > 0 && !o.repos[r.name] {
			continue
		}
		err := benchRef(ctx, o, r)
		var skip skipError
		if errors.As(err, &skip) {
			fmt.Printf("bench-graph: SKIP %s (%s): %s\n", r.name, r.lang, skip)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
	}
	return nil
}

// benchRef compares our callers and tests with the reference server's on
// one repository.
func benchRef(ctx context.Context, o options, r refRepo) error {
	var bin string
	var args []string
	var init map[string]any
	var err error
	switch r.lang {
	case "python":
		bin, err = npmBin(ctx, o.tools, "pyright-langserver")
		args = []string{"--stdio"}
		init = map[string]any{}
	case "typescript":
		bin, err = npmBin(ctx, o.tools, "typescript-language-server")
		args = []string{"--stdio"}
		init = map[string]any{"tsserver": map[string]any{"path": filepath.Join(o.tools, "node_modules", "typescript", "lib", "tsserver.js")}}
	}
	if err != nil {
		return err
	}
	root := filepath.Join(o.work, r.name+"-"+r.commit[:12])
	if err := materialise(o.mirrors, r, root); err != nil {
		return err
	}
	e, err := openIndexed(ctx, root, filepath.Join(o.work, r.name+"-index"), 0)
	if err != nil {
		return err
	}
	defer e.Close()
	c, err := startLSPArgs(bin, args, root, nil, init)
	if err != nil {
		return err
	}
	defer c.close()
	t0 := time.Now()
	if err := c.initialize(ctx, root); err != nil {
		return err
	}
	s := &refSession{c: c, root: root, lang: r.lang, opened: map[string]bool{}, texts: map[string][]byte{}, outlines: map[string][]docSymbol{}}
	var files []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(root, p); !d.IsDir() && refSource(r.lang, filepath.ToSlash(rel)) {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	var all []refTarget
	for _, f := range files {
		ts, err := s.targets(ctx, f)
		if err != nil {
			return fmt.Errorf("symbols of %s: %w", f, err)
		}
		all = append(all, ts...)
	}
	rng := rand.New(rand.NewPCG(o.seed, 0x9e3779b97f4a7c15))
	idx := rng.Perm(len(all))
	targets := make([]refTarget, 0, o.refTargets)
	for _, i := range idx[:min(o.refTargets, len(idx))] {
		targets = append(targets, all[i])
	}
	fmt.Printf("bench-graph: %s (%s %s at %s): callers of %d of %d functions and methods, at random (seed %d); reference %s\n",
		r.name, r.lang, r.repo, r.commit[:12], len(targets), len(all), o.seed, filepath.Base(bin))
	var items, withGuesses prCounts
	withTests, testsFound := 0, 0
	skipped := 0
	for i, t := range targets {
		ref, err := s.incoming(ctx, t)
		if errors.Is(err, errNoItem) {
			skipped++ // not a function to the reference (a type read as one)
			continue
		}
		if err != nil {
			return fmt.Errorf("reference callers of %s:%d %s: %w", t.rel, t.line, t.name, err)
		}
		if i == 0 {
			fmt.Printf("bench-graph: %s: the reference answered its first query %s after start\n", r.name, time.Since(t0).Round(time.Millisecond))
		}
		refSet, refName := map[loc]bool{}, map[loc]string{}
		for c := range ref {
			refSet[c.loc], refName[c.loc] = true, c.name
		}
		snap := e.Snapshot()
		res, err := snap.Callers(ctx, engine.Target{Path: t.rel, Line: t.line, Col: t.col})
		snap.Release()
		if err != nil && !errors.Is(err, engine.ErrNoSymbol) {
			return fmt.Errorf("context-ls callers of %s:%d %s: %w", t.rel, t.line, t.name, err)
		}
		var listed, guessed []engine.GraphItem
		for _, gr := range res {
			listed, guessed = append(listed, gr.Items...), append(guessed, gr.Guesses...)
		}
		why, err := s.ourCallers(ctx, listed)
		if err != nil {
			return err
		}
		guesses, err := s.ourCallers(ctx, guessed)
		if err != nil {
			return err
		}
		ours, all := locSet(why), locSet(guesses)
		for l := range ours {
			all[l] = true
		}
		fps, fns := items.add(ours, refSet)
		withGuesses.add(all, refSet)
		if o.verbose && (len(fps) > 0 || len(fns) > 0) {
			fmt.Printf("  %s:%d %s: reference %d, ours %d\n", t.rel, t.line, t.name, len(refSet), len(ours))
			for _, l := range fps {
				fmt.Printf("    extra  %s:%d (%s)\n", l.path, l.line, why[l])
			}
			for _, l := range fns {
				fmt.Printf("    missed %s:%d %s\n", l.path, l.line, refName[l])
			}
		}
		refTests, err := s.refTests(ctx, ref)
		if err != nil {
			return fmt.Errorf("reference tests of %s:%d %s: %w", t.rel, t.line, t.name, err)
		}
		if len(refTests) == 0 {
			continue
		}
		withTests++
		snap = e.Snapshot()
		tres, err := snap.Tests(ctx, engine.Target{Path: t.rel, Line: t.line, Col: t.col})
		snap.Release()
		if err != nil && !errors.Is(err, engine.ErrNoSymbol) {
			return fmt.Errorf("context-ls tests of %s:%d %s: %w", t.rel, t.line, t.name, err)
		}
		found := false
		for _, gr := range tres {
			for _, it := range gr.Items {
				for l := range refTests {
					if it.Path == l.path && (r.lang != "python" || it.NameLine == l.line) {
						found = true
					}
				}
			}
		}
		if found {
			testsFound++
		} else if o.verbose {
			var names []string
			for l := range refTests {
				names = append(names, fmt.Sprintf("%s:%d", l.path, l.line))
			}
			sort.Strings(names)
			fmt.Printf("  tests of %s:%d %s: none of the reference's %s\n", t.rel, t.line, t.name, strings.Join(names[:min(3, len(names))], " "))
		}
	}
	if skipped > 0 {
		fmt.Printf("bench-graph: %s: %d targets are no function to the reference, left out\n", r.name, skipped)
	}
	fmt.Printf("bench-graph: %s callers, default list:             %s\n", r.name, items)
	fmt.Printf("bench-graph: %s callers, name-only guesses added:  %s\n", r.name, withGuesses)
	figure(r.name+" callers precision", items.precision(), "", ">=", floorRefPrecision)
	figure(r.name+" callers recall", items.recall(), "", ">=", floorRefRecall)
	fmt.Printf("bench-graph: %s tests-for-symbol: %d of the %d targets the reference shows a test for\n", r.name, testsFound, withTests)
	if withTests > 0 {
		figure(r.name+" tests found (rate)", float64(testsFound)/float64(withTests), "", ">=", floorRefTests)
	}
	return nil
}
