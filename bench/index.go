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
	"slices"
	"strings"
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

// ctagsRun times `ctags -R` over root (tags written to a temporary file):
// the reference a cold index is held against, run in the same benchmark
// so that the machine's load weighs on both.
func ctagsRun(root string) (time.Duration, error) {
	path, err := exec.LookPath("ctags")
	if err != nil {
		return 0, fmt.Errorf("ctags not found (apt-get install universal-ctags): %w", err)
	}
	tags, err := os.CreateTemp("", "bench-tags-*")
	if err != nil {
		return 0, err
	}
	tags.Close()
	defer os.Remove(tags.Name())
	cmd := exec.Command(path, "-R", "-f", tags.Name(), root)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("ctags -R %s: %v: %s", root, err, lastLine(stderr.String()))
	}
	return time.Since(start), nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// loadAvg returns the 1-minute load average ("?" when unknown).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
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
	n, _ := duSizes(dir)
	return n
}

// duSizes returns the bytes of the regular files under dir and the disk
// space they occupy (allocated blocks: a tree of small files occupies more
// than its bytes, one of large files about as much).
func duSizes(dir string) (bytes, disk int64) {
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if i, err := d.Info(); err == nil {
				bytes += i.Size()
				if st, ok := i.Sys().(*syscall.Stat_t); ok {
					disk += st.Blocks * 512
				}
			}
		}
		return nil
	})
	return bytes, disk
}

func benchIndex(args []string) error {
	fs := newFlags("index")
	only := fs.String("only", "", "go or python (default both)")
	fs.Parse(args)
	if _, err := os.Stat(binary()); err != nil {
		return fmt.Errorf("build the binary first (make build): %w", err)
	}
	fmt.Printf("# index benchmark — %s\n", machine())
	// Limits (issue 16) for the Go standard library: cold index within 15×
	// `ctags -R` on the same tree in the same run, unchanged re-index
	// ≤ 0.5 s, peak RSS ≤ 1.5 GiB; the Python one is measured for
	// comparison only.
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
		ctags, err := ctagsRun(c.root)
		if err != nil {
			return err
		}
		load := loadAvg()
		cold, err := runIndexProcess(c.root, db)
		if err != nil {
			return fmt.Errorf("%s cold: %w", c.name, err)
		}
		// The first run after a cold index may still merge the text
		// index's segments; the figure is the median of three.
		var warms []time.Duration
		var warm indexRun
		for range 3 {
			warm, err = runIndexProcess(c.root, db)
			if err != nil {
				return fmt.Errorf("%s warm: %w", c.name, err)
			}
			warms = append(warms, warm.wall)
		}
		secs := cold.wall.Seconds()
		fmt.Printf("\n## %s (%s): %d files, %d lines, %.1f MB; load average %s before the cold run\n", c.name, c.root, cold.files, cold.lines, float64(cold.bytes)/1e6, load)
		info(c.name+" cold index wall", secs, "s")
		info(c.name+" reference: ctags -R", ctags.Seconds(), "s")
		if c.targets {
			limit(c.name+" cold index / ctags -R", secs/ctags.Seconds(), "×", 15)
			figure(c.name+" cold index peak RSS", float64(cold.maxRSS)/(1<<30), "GiB", 1.5, true)
		} else {
			info(c.name+" cold index / ctags -R", secs/ctags.Seconds(), "×")
			info(c.name+" cold index peak RSS", float64(cold.maxRSS)/(1<<30), "GiB")
		}
		info(c.name+" cold files/s", float64(cold.indexed)/secs, "files/s")
		info(c.name+" cold lines/s", float64(cold.lines)/secs, "lines/s")
		info(c.name+" db size", float64(duSize(db))/(1<<20), "MiB")
		info(c.name+" db size / source size", float64(duSize(db))/float64(max(cold.bytes, 1)), "×")
		info(c.name+" reference: read+hash all files", refWall.Seconds(), fmt.Sprintf("s (%d files)", refFiles))
		info(c.name+" cold index / reference", secs/refWall.Seconds(), "×")
		slices.Sort(warms)
		if c.targets {
			limit(c.name+" re-index unchanged wall (median of 3)", warms[1].Seconds(), "s", 0.5)
		} else {
			info(c.name+" re-index unchanged wall (median of 3)", warms[1].Seconds(), "s")
		}
		if warm.indexed != 0 {
			fmt.Printf("%-44s %d files re-indexed on an unchanged tree  MISS\n", c.name+" re-index", warm.indexed)
			belowFloor = append(belowFloor, c.name+" re-index of an unchanged tree wrote files")
		}
	}
	return nil
}
