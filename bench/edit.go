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

	"github.com/context-ls/context-ls/lsp/lsptest"
)

func init() {
	benches = append(benches, benchCmd{"edit", "edit-to-fresh latency of the language server on the Go stdlib, and its memory", benchEdit})
}

// editFiles are the stdlib files the benchmark edits in turn (never saved).
var editFiles = []string{"net/http/server.go", "strings/strings.go", "fmt/print.go", "os/file.go"}

// benchEdit starts the server binary on the Go standard library, waits for
// the bootstrap index, then repeatedly appends a uniquely named function
// to an open buffer and polls contextLs.search until a hit names it.
func benchEdit(args []string) error {
	fs := newFlags("edit")
	n := fs.Int("n", 30, "edits to time")
	fresh := fs.Duration("timeout", 10*time.Second, "give up on one edit after this long")
	verbose := fs.Bool("v", false, "let the server log at debug level (stderr)")
	fs.Parse(args)

	root, err := goroot()
	if err != nil {
		return err
	}
	bin, err := serverBinaryPath()
	if err != nil {
		return err
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
			"window":    map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
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
	var lat []time.Duration
	misses := 0
	tag := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	for i := 0; i < *n; i++ {
		rel := editFiles[i%len(editFiles)]
		uri := fileURI(filepath.Join(root, rel))
		if _, open := texts[rel]; !open {
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
		}
		name := fmt.Sprintf("BenchEditFresh%s%d", tag, i)
		line := strings.Count(texts[rel], "\n")
		insert := fmt.Sprintf("\n// %s is added by the edit benchmark.\nfunc %s() int { return %d }\n", name, name, i)
		texts[rel] += insert
		versions[rel]++
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
		d, ok, err := pollSearch(ctx, c, name, *fresh)
		if err != nil {
			return err
		}
		if !ok {
			misses++
			fmt.Fprintf(os.Stderr, "edit %d: %s not visible after %v\n", i, name, *fresh)
			continue
		}
		lat = append(lat, d)
	}
	for rel := range texts {
		_ = c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": fileURI(filepath.Join(root, rel))}})
	}
	_ = c.Call(ctx, "shutdown", nil, nil)
	_ = c.Notify("exit", nil)
	_, _ = c.Wait()

	info("bootstrap (initialize → progress end)", bootstrap.Seconds(), "s")
	info("server RSS after bootstrap (VmRSS)", float64(rss)/1024, "MiB")
	info("server peak RSS so far (VmHWM)", float64(hwm)/1024, "MiB")
	info("edits timed", float64(len(lat)), fmt.Sprintf("(%d not visible within %v)", misses, *fresh))
	if len(lat) == 0 {
		return errors.New("no edit became visible")
	}
	limit("edit-to-fresh p95 (didChange → search hit)", ms(percentile(lat, 0.95)), "ms", 50)
	info("edit-to-fresh p50", ms(percentile(lat, 0.50)), "ms")
	info("edit-to-fresh max", ms(percentile(lat, 1)), "ms")
	return nil
}

// pollSearch runs contextLs.search for name until a hit names it; it
// returns the time from the call to the first answer holding it.
func pollSearch(ctx context.Context, c *lsptest.Client, name string, limit time.Duration) (time.Duration, bool, error) {
	start := time.Now()
	for time.Since(start) < limit {
		var res struct {
			Hits []struct {
				Symbol string `json:"symbol"`
			} `json:"hits"`
		}
		err := c.Call(ctx, "workspace/executeCommand", map[string]any{
			"command": "contextLs.search", "arguments": []any{map[string]any{"query": name, "k": 3}},
		}, &res)
		if err != nil {
			return 0, false, fmt.Errorf("search %s: %w", name, err)
		}
		for _, h := range res.Hits {
			if h.Symbol == name {
				return time.Since(start), true, nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, false, nil
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
