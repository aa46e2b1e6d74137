package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

func init() {
	benches = append(benches, benchCmd{"index", "cold and warm index of the Go and Python standard libraries", benchIndex})
}

// indexRun is one `context-ls index` child process.
type indexRun struct {
	wall    time.Duration
	maxRSS  int64 // bytes
	files   int
	indexed int
	lines   int
	bytes   int64
}

func runIndexProcess(root, db string) (indexRun, error) {
	cmd := exec.Command(binary(), "index", "--root", root, "--db", db, "--json")
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	err := cmd.Run()
	r := indexRun{wall: time.Since(start)}
	if err != nil {
		return r, fmt.Errorf("%v: %s", err, stderr.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss * 1024
	}
	var res indexOutput
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return r, fmt.Errorf("index output: %w: %s", err, out.String())
	}
	r.files, r.indexed, r.lines, r.bytes = res.Files, res.Indexed, res.Lines, res.Bytes
	return r, nil
}

// readAll is the reference: read and hash every regular file under root, the
// I/O floor any indexer pays.
func readAll(root string) (time.Duration, int) {
	start := time.Now()
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			sha256.Sum256(b)
			n++
		}
		return nil
	})
	return time.Since(start), n
}

func duSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if i, err := d.Info(); err == nil {
				n += i.Size()
			}
		}
		return nil
	})
	return n
}

func benchIndex(args []string) error {
	fs := newFlags("index")
	only := fs.String("only", "", "go or python (default both)")
	fs.Parse(args)
	if _, err := os.Stat(binary()); err != nil {
		return fmt.Errorf("build the binary first (make build): %w", err)
	}
	fmt.Printf("# index benchmark — %s\n", machine())
	// The targets (issue: cold ≤ 90 s, peak RSS ≤ 1.5 GB, unchanged
	// re-index ≤ 3 s) are set for the Go standard library; the Python one is
	// measured for comparison only.
	type corpus struct {
		name, root string
		targets    bool
	}
	var corpora []corpus
	if *only == "" || *only == "go" {
		r, err := goroot()
		if err != nil {
			return err
		}
		corpora = append(corpora, corpus{"go-stdlib", r, true})
	}
	if *only == "" || *only == "python" {
		r, err := pythonStdlib()
		if err != nil {
			return err
		}
		corpora = append(corpora, corpus{"python-stdlib", r, false})
	}
	for _, c := range corpora {
		db := filepath.Join(benchDir(), c.name+"-cold")
		if err := os.RemoveAll(db); err != nil {
			return err
		}
		refWall, refFiles := readAll(c.root)
		cold, err := runIndexProcess(c.root, db)
		if err != nil {
			return fmt.Errorf("%s cold: %w", c.name, err)
		}
		warm, err := runIndexProcess(c.root, db)
		if err != nil {
			return fmt.Errorf("%s warm: %w", c.name, err)
		}
		secs := cold.wall.Seconds()
		fmt.Printf("\n## %s (%s): %d files, %d lines, %.1f MB\n", c.name, c.root, cold.files, cold.lines, float64(cold.bytes)/1e6)
		check := func(name string, v float64, unit string, target float64) {
			if c.targets {
				figure(name, v, unit, target, true)
			} else {
				info(name, v, unit)
			}
		}
		check(c.name+" cold index wall", secs, "s", 90)
		check(c.name+" cold index peak RSS", float64(cold.maxRSS)/(1<<30), "GiB", 1.5)
		info(c.name+" cold files/s", float64(cold.indexed)/secs, "files/s")
		info(c.name+" cold lines/s", float64(cold.lines)/secs, "lines/s")
		info(c.name+" db size", float64(duSize(db))/(1<<20), "MiB")
		info(c.name+" reference: read+hash all files", refWall.Seconds(), fmt.Sprintf("s (%d files)", refFiles))
		info(c.name+" cold index / reference", secs/refWall.Seconds(), "×")
		check(c.name+" re-index unchanged wall", warm.wall.Seconds(), "s", 3)
		if warm.indexed != 0 {
			fmt.Printf("%-44s %d files re-indexed on an unchanged tree  MISS\n", c.name+" re-index", warm.indexed)
		}
	}
	return nil
}
