package symbols

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// corpus lists the files with the given extension under root.
func corpus(b *testing.B, root, ext string) []string {
	b.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable directories are skipped
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ext) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		b.Skipf("no %s files under %s: %v", ext, root, err)
	}
	return files
}

// benchCorpus parses every file once per iteration with one Parser and
// reports throughput, symbols per second, the time split between
// tree-sitter parsing and symbol extraction, and the process's peak RSS.
// The steps are those of Parser.Parse, timed separately.
func benchCorpus(b *testing.B, lang *Language, files []string) {
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	if err := lang.compile(); err != nil {
		b.Fatal(err)
	}
	var total int64
	var syms, failed int
	var parseDur, extractDur time.Duration
	b.ResetTimer()
	start := time.Now()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		total, syms, failed = 0, 0, 0
		for _, path := range files {
			src, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			if len(src) > MaxSourceBytes {
				failed++
				continue
			}
			t0 := time.Now()
			tree, err := p.parseTree(ctx, lang, src, nil)
			if err != nil {
				if errors.Is(err, ErrTimeout) {
					failed++
					continue
				}
				b.Fatalf("%s: %v", path, err)
			}
			t1 := time.Now()
			s, err := extract(ctx, lang, src, tree)
			if err != nil {
				b.Fatalf("%s: %v", path, err)
			}
			t2 := time.Now()
			tree.Close()
			parseDur += t1.Sub(t0)
			extractDur += t2.Sub(t1)
			total += int64(len(src))
			syms += len(s)
		}
	}
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	b.SetBytes(total)
	n := float64(b.N)
	b.ReportMetric(float64(syms)*n/elapsed.Seconds(), "symbols/s")
	b.ReportMetric(parseDur.Seconds()/n, "parse-s/op")
	b.ReportMetric(extractDur.Seconds()/n, "extract-s/op")
	b.ReportMetric(float64(total)/1e6/(parseDur.Seconds()/n), "parse-only-MB/s")
	if cpu > 0 {
		// Throughput per CPU second of this process: on a shared machine
		// wall-clock MB/s mostly measures the other tenants.
		b.ReportMetric(float64(total)*n/1e6/cpu.Seconds(), "MB/cpu-s")
	}
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(failed), "failed")
	if hwm := peakRSSMB(); hwm > 0 {
		b.ReportMetric(hwm, "peak-RSS-MB")
	}
}

// cpuTime returns the user plus system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSSMB reads VmHWM from /proc/self/status; 0 where unavailable.
func peakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "VmHWM:" {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err != nil {
				return 0
			}
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkParseGoStdlib parses and extracts every .go file of the Go
// standard library ($(go env GOROOT)/src) per iteration.
func BenchmarkParseGoStdlib(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	benchCorpus(b, ByName("go"), corpus(b, root, ".go"))
}

// BenchmarkParsePythonStdlib parses and extracts the .py files of the
// Python standard library (first 1,500 in walk order, to stay short).
func BenchmarkParsePythonStdlib(b *testing.B) {
	out, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		b.Skipf("python3 stdlib path: %v", err)
	}
	files := corpus(b, strings.TrimSpace(string(out)), ".py")
	if len(files) > 1500 {
		files = files[:1500]
	}
	benchCorpus(b, ByName("python"), files)
}
