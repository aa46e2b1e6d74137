package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

func init() {
	benches = append(benches, benchCmd{"linux", "cold index of the Linux kernel source (Debian's linux-source-6.1) against ctags -R, re-index, first answer, search and pack latency", benchLinux})
}

// linuxQueries are kernel questions of the kind an agent asks, written for
// this benchmark (no golden answers: the figures are latencies).
var linuxQueries = []string{
	"allocate a socket buffer",
	"ext4 journal commit",
	"tcp congestion window",
	"schedule the next runnable task on a cpu",
	"page fault handler for anonymous memory",
	"register a character device",
	"spinlock with interrupts disabled",
	"copy data from user space",
	"read a block from disk through the bio layer",
	"usb device enumeration",
	"netfilter hook registration",
	"slab allocator cache creation",
	"wake up processes waiting on a queue",
	"mount a filesystem superblock",
	"pci device probe and resource mapping",
	"rcu read side critical section",
	"timer expiry with hrtimer",
	"ipv6 route lookup",
	"workqueue item scheduling",
	"kmalloc",
}

// cliRun times one fresh context-ls process (start included) and returns
// its wall time.
func cliRun(args ...string) (time.Duration, error) {
	cmd := exec.Command(binary(), args...)
	cmd.Env = append(os.Environ(), "CONTEXT_LS_EMBEDDINGS=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("context-ls %v: %v: %s", args, err, lastLine(stderr.String()))
	}
	return d, nil
}

// unpackLinux unpacks tarball into dir once (a marker file records a
// complete unpack) and returns the source tree.
func unpackLinux(tarball, dir string) (string, error) {
	tree := filepath.Join(dir, "linux-source-6.1")
	marker := filepath.Join(dir, ".unpacked")
	if _, err := os.Stat(marker); err == nil {
		return tree, nil
	}
	if _, err := os.Stat(tarball); err != nil {
		return "", fmt.Errorf("%s missing (apt-get install linux-source-6.1; make bench-linux does): %w", tarball, err)
	}
	if err := os.RemoveAll(tree); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fmt.Printf("# unpacking %s into %s\n", tarball, dir)
	cmd := exec.Command("tar", "-xf", tarball, "-C", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("tar -xf %s: %v: %s", tarball, err, lastLine(string(out)))
	}
	return tree, os.WriteFile(marker, nil, 0o644)
}

func benchLinux(args []string) error {
	fs := newFlags("linux")
	tarball := fs.String("tarball", "/usr/src/linux-source-6.1.tar.xz", "the kernel source tarball")
	// The tree must not be inside a git repository (this one included):
	// there Debian's top-level .gitignore ("/*") would apply.
	cache, _ := os.UserCacheDir()
	dir := fs.String("dir", filepath.Join(cache, "context-ls-bench", "linux"), "where the tree is unpacked, outside any git repository (kept between runs)")
	tree := fs.String("tree", "", "index this tree instead of the unpacked kernel (a quick check of the benchmark itself)")
	fs.Parse(args)
	if _, err := os.Stat(binary()); err != nil {
		return fmt.Errorf("build the binary first (make build): %w", err)
	}
	root := *tree
	if root == "" {
		var err error
		if root, err = unpackLinux(*tarball, *dir); err != nil {
			return err
		}
	}
	fmt.Printf("# linux benchmark — %s\n# tree %s\n", machine(), root)
	db := filepath.Join(benchDir(), "linux-cold")
	if err := os.RemoveAll(db); err != nil {
		return err
	}
	srcBytes, srcDisk := duSizes(root)
	info("source size (bytes of its files)", float64(srcBytes)/(1<<30), "GiB")
	info("source size on disk (blocks)", float64(srcDisk)/(1<<30), "GiB")

	fmt.Printf("# ctags -R (load average %s)\n", loadAvg())
	ctags, err := ctagsRun(root)
	if err != nil {
		return err
	}
	info("reference: ctags -R", ctags.Seconds(), "s")

	fmt.Printf("# cold index, no embeddings (load average %s)\n", loadAvg())
	cold, err := runIndexProcess(root, db)
	if err != nil {
		return fmt.Errorf("cold index: %w", err)
	}
	secs := cold.wall.Seconds()
	fmt.Printf("## %d files, %d lines, %.1f MB indexed; load average %s after\n", cold.indexed, cold.lines, float64(cold.bytes)/1e6, loadAvg())
	info("cold index wall", secs, "s")
	info("cold files/s", float64(cold.indexed)/secs, "files/s")
	info("cold lines/s", float64(cold.lines)/secs, "lines/s")
	limit("cold index / ctags -R", secs/ctags.Seconds(), "×", 40)
	limit("cold index peak RSS", float64(cold.maxRSS)/(1<<30), "GiB", 2)
	dbBytes, dbDisk := duSizes(db)
	info("index size (bytes of its files)", float64(dbBytes)/(1<<30), "GiB")
	limit("index size / source size, in bytes", float64(dbBytes)/float64(max(srcBytes, 1)), "×", 1.5)
	info("index / source, disk blocks occupied", float64(dbDisk)/float64(max(srcDisk, 1)), "×")

	var warms []time.Duration
	for range 3 {
		w, err := runIndexProcess(root, db)
		if err != nil {
			return fmt.Errorf("re-index: %w", err)
		}
		warms = append(warms, w.wall)
	}
	slices.Sort(warms)
	info("re-index unchanged wall (median of 3)", warms[1].Seconds(), "s")

	common := []string{"--root", root, "--db", db}
	first, err := cliRun(append([]string{"search", "--k", "10", linuxQueries[0]}, common...)...)
	if err != nil {
		return err
	}
	limit("first answer of a fresh CLI process (search)", first.Seconds(), "s", 1)
	st, err := cliRun(append([]string{"stats"}, common...)...)
	if err != nil {
		return err
	}
	info("stats from a fresh CLI process", st.Seconds(), "s")

	var search, pack []time.Duration
	for _, q := range linuxQueries {
		d, err := cliRun(append([]string{"search", "--k", "10", q}, common...)...)
		if err != nil {
			return err
		}
		search = append(search, d)
		d, err = cliRun(append([]string{"pack", "--budget", "4000", q}, common...)...)
		if err != nil {
			return err
		}
		pack = append(pack, d)
	}
	fmt.Printf("# %d queries, each a fresh CLI process (start included)\n", len(linuxQueries))
	info("search p50", ms(percentile(search, 0.5)), "ms")
	info("search p95", ms(percentile(search, 0.95)), "ms")
	limit("search slowest", slices.Max(search).Seconds(), "s", 1)
	info("pack 4000 p50", ms(percentile(pack, 0.5)), "ms")
	info("pack 4000 p95", ms(percentile(pack, 0.95)), "ms")
	return nil
}
