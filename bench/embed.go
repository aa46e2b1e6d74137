package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

func init() {
	benches = append(benches, benchCmd{"embed", "embedding a real code base with use-lite: chunks/s, wall time, peak RSS", benchEmbed})
}

// benchEmbed indexes a workspace with use-lite embeddings from scratch in a
// child process (so its peak RSS is the process's own) and reports the
// embedding rate. By default the workspace is net/http of the Go standard
// library and the time for the whole library is projected from the rate;
// -full embeds the whole library (about an hour on a busy 2-core machine).
func benchEmbed(args []string) error {
	fs := newFlags("embed")
	full := fs.Bool("full", false, "embed the whole Go standard library instead of net/http")
	fs.Parse(args)
	if _, err := os.Stat(binary()); err != nil {
		return fmt.Errorf("build the binary first (make build): %w", err)
	}
	if _, err := os.Stat(filepath.Join(useLiteDir(), "model.onnx")); err != nil {
		return fmt.Errorf("use-lite not found at %s: %w", useLiteDir(), err)
	}
	src, err := goroot()
	if err != nil {
		return err
	}
	root := filepath.Join(src, "net", "http")
	if *full {
		root = src
	}
	db := filepath.Join(benchDir(), "embed-"+filepath.Base(root))
	if err := os.RemoveAll(db); err != nil {
		return err
	}
	fmt.Printf("# embedding benchmark — %s\n# workspace %s, model use-lite (batch 32, 1 intra-op thread)\n", machine(), root)
	run := func(env ...string) (indexOutput, time.Duration, int64, error) {
		cmd := exec.Command(binary(), "index", "--json", "--root", root, "--db", db, "--model", "use-lite", "--model-path", useLiteDir())
		cmd.Env = append(os.Environ(), env...)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		var res indexOutput
		if err != nil {
			return res, wall, 0, fmt.Errorf("%v: %s", err, stderr.String())
		}
		var rss int64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss * 1024
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			return res, wall, rss, fmt.Errorf("index output: %w: %s", err, out.String())
		}
		return res, wall, rss, nil
	}
	// The lexical index alone, then the same run with embeddings: the
	// difference is the embedding time.
	lex, lexWall, _, err := run("CONTEXT_LS_EMBEDDINGS=off")
	if err != nil {
		return err
	}
	emb, wall, rss, err := run()
	if err != nil {
		return err
	}
	if emb.Embeddings.State != "ready" {
		return fmt.Errorf("embeddings %s: %s", emb.Embeddings.State, emb.Embeddings.Reason)
	}
	embedTime := wall - time.Duration(emb.DurationNs)
	rate := float64(emb.Embeddings.Embedded) / embedTime.Seconds()
	info("files / chunks", float64(lex.Files), fmt.Sprintf("files, %d chunks", emb.Embeddings.Vectors))
	info("lexical index wall (reference)", lexWall.Seconds(), "s")
	info("embedding wall", embedTime.Seconds(), "s")
	info("embedding rate", rate, "chunks/s")
	info("peak RSS while embedding", float64(rss)/(1<<20), "MiB")
	if !*full {
		const stdlibChunks = 131250 // chunks of the Go 1.26 standard library index
		info("projected: whole Go stdlib at this rate", float64(stdlibChunks)/rate/60, "min (projection, not measured)")
	}
	// A second run finds every vector in the cache.
	again, wall2, _, err := run()
	if err != nil {
		return err
	}
	figure("re-run: vectors computed again", float64(again.Embeddings.Embedded), "", 0, true)
	info("re-run wall (all vectors from the cache)", wall2.Seconds(), "s")
	return nil
}

// indexOutput is `context-ls index --json`.
type indexOutput struct {
	Files      int   `json:"files"`
	Indexed    int   `json:"indexed"`
	Lines      int   `json:"lines"`
	Bytes      int64 `json:"bytes"`
	DurationNs int64 `json:"durationNs"`
	Embeddings struct {
		State    string `json:"state"`
		Reason   string `json:"reason"`
		Vectors  int    `json:"vectors"`
		Embedded int64  `json:"embedded"`
	} `json:"embeddings"`
}
