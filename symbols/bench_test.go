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
// reports throughput, symbols per second and the process's peak RSS.
func benchCorpus(b *testing.B, lang *Language, files []string) {
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	var total int64
	var syms, failed int
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		total, syms, failed = 0, 0, 0
		for _, path := range files {
			src, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			f, err := p.Parse(ctx, lang, src)
			if err != nil {
				if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrTimeout) {
					failed++
					continue
				}
				b.Fatalf("%s: %v", path, err)
			}
			total += int64(len(src))
			syms += len(f.Symbols)
			f.Close()
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.SetBytes(total)
	b.ReportMetric(float64(syms*b.N)/elapsed.Seconds(), "symbols/s")
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(failed), "failed")
	if hwm := peakRSSMB(); hwm > 0 {
		b.ReportMetric(hwm, "peak-RSS-MB")
	}
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
