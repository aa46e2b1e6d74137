package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/context-ls/context-ls/internal/lsptest"
)

func init() {
	benches = append(benches, benchCmd{"edit", "edit-to-fresh latency of the language server on the Go stdlib, and its memory", benchEdit})
}

// editFiles are the stdlib files the benchmark edits in turn (never saved).
var editFiles = []string{"net/http/server.go", "strings/strings.go", "fmt/print.go", "os/file.go"}

// freshKinds are the queries an edit must become visible to: a search,
// workspace/symbol, textDocument/documentSymbol and hover. Each edit is
// timed through one of them, in turn.
var freshKinds = []string{"search", "workspace/symbol", "documentSymbol", "hover"}

// benchEdit starts the server binary on the Go standard library, waits for
// the bootstrap index, opens four files of it (and waits until the server
// has taken them in, as when a user opens a file and then types), then
// repeatedly adds a uniquely named function to one of these buffers
// (never saved) — at its end, or before the function nearest its middle,
// which moves everything after it (-where; both in turn by default) —
// and times, from the didChange
// notification, the first answer of a query that shows it (search,
// workspace/symbol, documentSymbol or hover, in turn). The server makes
// queries read the edits sent before them, so the query right after the
// edit is expected to hold it: its answer time is the figure, with no
// polling interval in it. A query that misses the edit is repeated (every
// 5 ms) until it shows it, and the run says how many missed. As a
// reference in the same run, the same query for the previous edit's name
// (already indexed) is timed just before: the difference between the two
// is what making the edit visible costs. CONTEXT_LS_CPUPROFILE=FILE in the
// environment makes the server write a CPU profile of its run.
func benchEdit(args []string) error {
	fs := newFlags("edit")
	n := fs.Int("n", 60, "edits to time (spread over the four query kinds)")
	fresh := fs.Duration("timeout", 10*time.Second, "give up on one edit after this long")
	verbose := fs.Bool("v", false, "let the server log at debug level (stderr)")
	server := fs.String("server", "", "run this server binary instead of building bin/context-ls (to compare two builds back to back on one index)")
	where := fs.String("where", "both", "where each function is added: end (of the file), middle (before the function nearest the middle, moving everything after it), or both in turn")
	fs.Parse(args)
	if *where != "end" && *where != "middle" && *where != "both" {
		return fmt.Errorf("-where %q: want end, middle or both", *where)
	}

	root, err := goroot()
	if err != nil {
		return err
	}
	bin := *server
	if bin == "" {
		bin, err = serverBinaryPath()
		if err != nil {
			return err
		}
	}
	db := filepath.Join(benchDir(), "lsp-edit")
	fmt.Printf("# edit benchmark — %s\n# server %s on %s, index under %s\n", machine(), bin, root, db)

	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	cmd.Stderr = os.Stderr
	c, err := lsptest.Start(cmd)
	if err != nil {
		return err
	}
	defer func() {
		_ = c.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_, _ = c.Wait()
		}
	}()
	c.Handle("window/workDoneProgress/create", func(json.RawMessage) (any, error) { return nil, nil })
	c.Handle("client/registerCapability", func(json.RawMessage) (any, error) { return nil, nil })
	ctx := context.Background()

	logLevel := "warn"
	if *verbose {
		logLevel = "debug"
	}
	start := time.Now()
	rootURI := fileURI(root)
	err = c.Call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(),
		"capabilities": map[string]any{
			"window":       map[string]any{"workDoneProgress": true},
			"workspace":    map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
			"textDocument": map[string]any{"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true}},
		},
		"workspaceFolders":      []map[string]string{{"uri": rootURI, "name": "go"}},
		"initializationOptions": map[string]any{"dbPath": db, "logLevel": logLevel},
	}, nil)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		return err
	}
	if err := awaitBootstrap(ctx, c); err != nil {
		return err
	}
	bootstrap := time.Since(start)
	rss, hwm, err := procMemory(cmd.Process.Pid)
	if err != nil {
		return err
	}

	versions := map[string]int32{}
	texts := map[string]string{}
	lat := map[string][]time.Duration{}   // by query kind
	plain := map[string][]time.Duration{} // the same query, nothing to wait for
	byFile := map[string][]time.Duration{}
	byPlace := map[string][]time.Duration{} // end or middle
	var all []time.Duration
	misses, late := 0, 0
	prev := map[string]freshQuery{} // the previous edit's query, by file
	tag := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	for _, rel := range editFiles {
		uri := fileURI(filepath.Join(root, rel))
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		texts[rel], versions[rel] = string(b), 1
		if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": "go", "version": 1, "text": texts[rel],
		}}); err != nil {
			return err
		}
		// A request on the document reads the events sent before it.
		if err := c.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, nil); err != nil {
			return fmt.Errorf("open %s: %w", rel, err)
		}
	}
	cpu0, err := procCPU(cmd.Process.Pid)
	if err != nil {
		return err
	}
	for i := 0; i < *n; i++ {
		rel := editFiles[i%len(editFiles)]
		kind := freshKinds[(i/len(editFiles)+i)%len(freshKinds)]
		uri := fileURI(filepath.Join(root, rel))
		// The reference: the previous edit of this file, already indexed,
		// asked the same way.
		if q, ok := prev[rel]; ok {
			q.kind = kind
			d, ok, err := q.first(ctx, c, *fresh)
			if err != nil {
				return err
			}
			if ok {
				plain[kind] = append(plain[kind], d)
			}
		}
		name := fmt.Sprintf("BenchEditFresh%s%d", tag, i)
		place := *where
		if place == "both" {
			place = [2]string{"end", "middle"}[(i/len(editFiles))%2]
		}
		var line, at int // where the text goes, as a line and an offset
		var insert string
		var q freshQuery
		if place == "end" {
			line, at = strings.Count(texts[rel], "\n"), len(texts[rel])
			insert = fmt.Sprintf("\n// %s is added by the edit benchmark.\nfunc %s() int { return %d }\n", name, name, i)
			q = freshQuery{kind: kind, name: name, uri: uri, line: line + 2}
		} else {
			line, at = middleFunc(texts[rel])
			insert = fmt.Sprintf("// %s is added by the edit benchmark.\nfunc %s() int { return %d }\n\n", name, name, i)
			q = freshQuery{kind: kind, name: name, uri: uri, line: line + 1}
		}
		texts[rel] = texts[rel][:at] + insert + texts[rel][at:]
		versions[rel]++
		began := time.Now()
		err := c.Notify("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": versions[rel]},
			"contentChanges": []map[string]any{{
				"range": map[string]any{"start": map[string]int{"line": line, "character": 0}, "end": map[string]int{"line": line, "character": 0}},
				"text":  insert,
			}},
		})
		if err != nil {
			return err
		}
		shown, tries, err := q.poll(ctx, c, *fresh)
		if err != nil {
			return err
		}
		prev[rel] = q
		if !shown {
			misses++
			fmt.Fprintf(os.Stderr, "edit %d: %s not visible to %s after %v\n", i, name, kind, *fresh)
			continue
		}
		if tries > 1 {
			late++
		}
		d := time.Since(began)
		byPlace[place] = append(byPlace[place], d)
		lat[kind] = append(lat[kind], d)
		byFile[rel] = append(byFile[rel], d)
		all = append(all, d)
	}
	cpu, err := procCPU(cmd.Process.Pid)
	if err != nil {
		return err
	}
	cpu -= cpu0
	for rel := range texts {
		_ = c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": fileURI(filepath.Join(root, rel))}})
	}
	_ = c.Call(ctx, "shutdown", nil, nil)
	_ = c.Notify("exit", nil)
	_, _ = c.Wait()

	info("bootstrap (initialize → progress end)", bootstrap.Seconds(), "s")
	info("server RSS after bootstrap (VmRSS)", float64(rss)/1024, "MiB")
	info("server peak RSS so far (VmHWM)", float64(hwm)/1024, "MiB")
	info("edits timed", float64(len(all)), fmt.Sprintf("(%d not visible within %v; %d seen only by a repeated query)", misses, *fresh, late))
	if len(all) == 0 {
		return errors.New("no edit became visible")
	}
	// CPU time does not wait for a core: on a shared machine it says more
	// steadily than latency what a change of the server costs.
	info("server CPU per edit (its queries and background work included)", ms(cpu)/float64(*n), "ms")
	for _, rel := range editFiles {
		info("edit-to-fresh p50, "+rel, ms(percentile(byFile[rel], 0.50)), "ms")
	}
	for _, place := range []string{"end", "middle"} {
		if len(byPlace[place]) > 0 {
			info("edit-to-fresh p95, a function added at the "+place, ms(percentile(byPlace[place], 0.95)), "ms")
		}
	}
	for _, kind := range freshKinds {
		info("  "+kind+": query alone p50", ms(percentile(plain[kind], 0.50)), "ms")
		info("  "+kind+": edit-to-fresh p50", ms(percentile(lat[kind], 0.50)), "ms")
		info("  "+kind+": edit-to-fresh p95", ms(percentile(lat[kind], 0.95)), "ms")
	}
	info("edit-to-fresh p50 (didChange → answer showing it)", ms(percentile(all, 0.50)), "ms")
	info("edit-to-fresh max", ms(percentile(all, 1)), "ms")
	limit("edit-to-fresh p95 (didChange → answer showing it)", ms(percentile(all, 0.95)), "ms", 50)
	return nil
}

// freshQuery asks the server whether the function name, added at line
// (0-based) of uri, is visible to one kind of query.
type freshQuery struct {
	kind, name, uri string
	line            int
}

// first runs the query once and reports how long it took and whether
// its answer shows the name.
func (q freshQuery) first(ctx context.Context, c *lsptest.Client, limit time.Duration) (time.Duration, bool, error) {
	began := time.Now()
	qctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	ok, err := q.run(qctx, c)
	return time.Since(began), ok, err
}

// poll runs the query until its answer shows the name (every 5 ms, up to
// limit); it reports whether it did and how many queries it took.
func (q freshQuery) poll(ctx context.Context, c *lsptest.Client, limit time.Duration) (bool, int, error) {
	began := time.Now()
	for tries := 1; time.Since(began) < limit; tries++ {
		qctx, cancel := context.WithTimeout(ctx, limit)
		ok, err := q.run(qctx, c)
		cancel()
		if err != nil || ok {
			return ok, tries, err
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false, 0, nil
}

// run is one query.
func (q freshQuery) run(ctx context.Context, c *lsptest.Client) (bool, error) {
	doc := map[string]any{"uri": q.uri}
	switch q.kind {
	case "search":
		var res struct {
			Hits []struct {
				Symbol string `json:"symbol"`
			} `json:"hits"`
		}
		err := c.Call(ctx, "workspace/executeCommand", map[string]any{
			"command": "contextLs.search", "arguments": []any{map[string]any{"query": q.name, "k": 3}},
		}, &res)
		if err != nil {
			return false, fmt.Errorf("search %s: %w", q.name, err)
		}
		for _, h := range res.Hits {
			if h.Symbol == q.name {
				return true, nil
			}
		}
	case "workspace/symbol":
		var res []struct {
			Name string `json:"name"`
		}
		if err := c.Call(ctx, "workspace/symbol", map[string]any{"query": q.name}, &res); err != nil {
			return false, fmt.Errorf("workspace/symbol %s: %w", q.name, err)
		}
		for _, s := range res {
			if s.Name == q.name {
				return true, nil
			}
		}
	case "documentSymbol":
		var res []struct {
			Name string `json:"name"`
		}
		if err := c.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": doc}, &res); err != nil {
			return false, fmt.Errorf("documentSymbol for %s: %w", q.name, err)
		}
		for _, s := range res {
			if s.Name == q.name {
				return true, nil
			}
		}
	case "hover":
		var res *struct {
			Contents struct {
				Value string `json:"value"`
			} `json:"contents"`
		}
		err := c.Call(ctx, "textDocument/hover", map[string]any{
			"textDocument": doc, "position": map[string]int{"line": q.line, "character": len("func ") + 1},
		}, &res)
		if err != nil {
			return false, fmt.Errorf("hover on %s: %w", q.name, err)
		}
		return res != nil && strings.Contains(res.Contents.Value, q.name+"()"), nil
	default:
		return false, fmt.Errorf("unknown query kind %q", q.kind)
	}
	return false, nil
}

// awaitBootstrap waits for the end of the server's indexing progress,
// printing the latest report every 10 s.
func awaitBootstrap(ctx context.Context, c *lsptest.Client) error {
	create, err := c.Await(ctx, lsptest.Method("window/workDoneProgress/create"))
	if err != nil {
		return err
	}
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if err := create.Decode(&p); err != nil {
		return err
	}
	// value decodes a $/progress message on the token, or reports false.
	type value struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	decode := func(m lsptest.Message) (value, bool) {
		var v struct {
			Token json.RawMessage `json:"token"`
			Value value           `json:"value"`
		}
		if m.Method != "$/progress" || json.Unmarshal(m.Params, &v) != nil || string(v.Token) != string(p.Token) {
			return value{}, false
		}
		return v.Value, true
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := c.Await(wctx, func(m lsptest.Message) bool {
			v, ok := decode(m)
			return ok && v.Kind == "end"
		})
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		latest := ""
		for _, m := range c.Messages() {
			if v, ok := decode(m); ok && v.Kind == "report" {
				latest = v.Message
			}
		}
		fmt.Fprintf(os.Stderr, "bootstrap: %s\n", latest)
	}
}

// procCPU reads the user and system CPU time a process has used
// (/proc/PID/stat, in clock ticks of 10 ms).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's CPU time: %w", err)
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from the last parenthesis (utime and stime are fields 14 and 15).
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b)[i+1:])
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("reading the server's CPU time: unexpected %s", b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("reading the server's CPU time: %w", err)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// procMemory reads VmRSS and VmHWM (KiB) of a process.
func procMemory(pid int) (rss, hwm int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("reading the server's memory: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch name {
		case "VmRSS":
			rss = n
		case "VmHWM":
			hwm = n
		}
	}
	return rss, hwm, nil
}

// serverBinaryPath builds bin/context-ls from the checkout (a warm build
// takes seconds), so the figures are never those of a stale binary.
func serverBinaryPath() (string, error) {
	bin := binary()
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/context-ls")
	cmd.Dir = repoRoot()
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s: %w", bin, err)
	}
	return bin, nil
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// middleFunc finds where a function goes in the middle of Go source text:
// the start of the first line beginning with "func " from the middle on
// (the end when there is none), as a 0-based line and an offset.
func middleFunc(text string) (line, at int) {
	at = len(text)
	if i := strings.Index(text[len(text)/2:], "\nfunc "); i >= 0 {
		at = len(text)/2 + i + 1
	}
	return strings.Count(text[:at], "\n"), at
}
