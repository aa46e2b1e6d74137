package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/context-ls/context-ls/internal/reliability"
	"github.com/context-ls/context-ls/internal/secrettest"
	"github.com/context-ls/context-ls/packs"
	"github.com/context-ls/context-ls/workspace"
)

func init() {
	benches = append(benches, benchCmd{"reliability",
		"full disk, a 200 MB file, corrupted index files, kill -9 mid-index, secrets: the long reliability suite", benchReliability})
}

// benchReliability runs the long versions of internal/reliability's
// scenarios on bin/context-ls and prints what each measured; it fails
// when a scenario saw a problem or a figure misses its target.
func benchReliability(args []string) error {
	fl := newFlags("reliability")
	files := fl.Int("files", 1500, "Go files in the generated workspaces")
	kills := fl.Int("kills", 20, "kill -9 runs")
	only := fl.String("only", "", "run one part: disk, large, shapes, small, live, corrupt, kill or secrets")
	binPath := fl.String("bin", binary(), "the context-ls binary to measure (another build, for a reference run)")
	fl.Parse(args)
	run := func(part string) bool { return *only == "" || *only == part }
	work, err := os.MkdirTemp("", "context-ls-reliability")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	b := reliability.Bin{Path: *binPath}
	if _, err := os.Stat(b.Path); err != nil {
		return fmt.Errorf("%s: %w (run make build first)", b.Path, err)
	}
	fmt.Println("machine:", machine())
	var problems []string
	fail := func(ps []string) {
		for _, p := range ps {
			fmt.Println("PROBLEM:", p)
		}
		problems = append(problems, ps...)
	}
	check := func(name string, value float64, unit string, target float64, lowerIsBetter bool) {
		figure(name, value, unit, target, lowerIsBetter)
		if (lowerIsBetter && value > target) || (!lowerIsBetter && value < target) {
			problems = append(problems, fmt.Sprintf("%s: %g %s misses %g", name, value, unit, target))
		}
	}

	if run("disk") {
		if err := benchDiskFull(b, work, *files, check, fail); err != nil {
			return err
		}
	}
	if run("large") {
		if err := benchLargeFiles(b, work, check, fail); err != nil {
			return err
		}
	}
	if run("shapes") {
		if err := benchShapes(b, filepath.Join(work, "shapes"), check, fail); err != nil {
			return err
		}
	}
	if run("small") {
		fmt.Println("\n== small cases: 20,000 ignore patterns, 10,000 directories deep, a newline in a path")
		r, err := reliability.Small(b, filepath.Join(work, "small"), 10000, 2*time.Second)
		if err != nil {
			return err
		}
		check("files (27 files, 20,000 patterns, 10,000 deep)", ms(r.Files.Elapsed), "ms", 2000, true)
		check("index", ms(r.Index.Elapsed), "ms", 2000, true)
		check("index again, nothing changed", ms(r.Again.Elapsed), "ms", 2000, true)
		fail(r.Problems)
	}
	if run("live") {
		fmt.Println("\n== the live index after events (issue 29, item 5)")
		for _, clientWatches := range []bool{true, false} {
			const trials = 8
			missed, err := b.EditsDuringScan(filepath.Join(work, "live"), 8000, trials, clientWatches)
			if err != nil {
				return err
			}
			check(fmt.Sprintf("edits saved during the first scan, never seen (client watches: %v)", clientWatches), float64(len(missed)), "of 8", 0, true)
			fail(missed)
		}
		stale, err := b.RemovedAfterSave(filepath.Join(work, "live"), 20)
		if err != nil {
			return err
		}
		check("saved definitions removed on disk, still found", float64(len(stale)), "of 20", 0, true)
		fail(stale)
		took, err := b.EditWhileDiskFull(filepath.Join(work, "live"))
		switch {
		case errors.Is(err, reliability.ErrNoTmpfs):
			fmt.Printf("full-disk case skipped: %v (run as root)\n", err)
		case err != nil:
			fail([]string{err.Error()})
		default:
			check("a change made on a full disk, indexed after space is freed", ms(took), "ms", 15000, true)
		}
	}
	if run("corrupt") {
		if err := benchCorruption(b, work, *files, check, fail); err != nil {
			return err
		}
	}
	if run("kill") {
		fmt.Println("\n== kill -9 mid-index")
		k, err := reliability.KillMidIndex(b, filepath.Join(work, "kill"), *files, *kills)
		if err != nil {
			return err
		}
		check("resumed indexes equal to an uninterrupted one", float64(len(k.Resumed)-len(k.Problems))/float64(*kills), "share", 1, false)
		fail(k.Problems)
	}
	if run("secrets") {
		if err := benchSecrets(check); err != nil {
			return err
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problems", len(problems))
	}
	return nil
}

// checkFunc prints a figure against its target and records a miss;
// failFunc records a scenario's problems.
type (
	checkFunc func(name string, value float64, unit string, target float64, lowerIsBetter bool)
	failFunc  func([]string)
)

func benchDiskFull(b reliability.Bin, work string, files int, check checkFunc, fail failFunc) error {
	fmt.Println("\n== full disk (tmpfs)")
	d, err := reliability.DiskFull(b, filepath.Join(work, "disk"), files)
	switch {
	case errors.Is(err, reliability.ErrNoTmpfs):
		fmt.Printf("skipped: %v (run as root)\n", err)
	case err != nil:
		return err
	default:
		check("index on a 3 MiB disk: error after", ms(d.Tiny.Elapsed), "ms", 2000, true)
		check("index on a full disk: error after", ms(d.Refused.Elapsed), "ms", 5000, true)
		check("index filling the disk: error after", ms(d.MidIndex.Elapsed), "ms", 30000, true)
		check("SIGTERM on a full disk: exit after", ms(d.Latency), "ms", 10000, true)
		info("index once space is back", ms(d.Recovered.Elapsed), "ms")
		fail(d.Problems)
	}
	return nil
}

func benchLargeFiles(b reliability.Bin, work string, check checkFunc, fail failFunc) error {
	fmt.Println("\n== large files (maxFileSize = \"1GiB\")")
	l, err := reliability.LargeFile(b, filepath.Join(work, "large"), 200<<20)
	if err != nil {
		return err
	}
	check("index beside a 200 MiB file: time", ms(l.Index.Elapsed), "ms", 10000, true)
	check("index beside a 200 MiB file: peak RSS", float64(l.Index.MaxRSS>>20), "MiB", 400, true)
	fail(l.Problems)
	near := int64(workspace.HardMaxFileSize - 1<<20)
	l, err = reliability.LargeFile(b, filepath.Join(work, "near"), near)
	if err != nil {
		return err
	}
	info(fmt.Sprintf("index of a dense %d MiB Go file: time", near>>20), ms(l.Index.Elapsed), "ms")
	check(fmt.Sprintf("index of a dense %d MiB Go file: peak RSS", near>>20), float64(l.Index.MaxRSS>>20), "MiB", 1536, true)
	fail(l.Problems)
	for _, delay := range []time.Duration{2 * time.Second, 5 * time.Second, 10 * time.Second} {
		res, latency, err := reliability.Interrupt(b, filepath.Join(work, "interrupt"), near, delay)
		if err != nil {
			return err
		}
		if res.Code == 0 {
			info(fmt.Sprintf("SIGTERM %s into it: finished first", delay), ms(latency), "ms")
			continue
		}
		check(fmt.Sprintf("SIGTERM %s into it: exit after", delay), ms(latency), "ms", 10000, true)
	}
	return nil
}

// benchShapes indexes every shaped file of internal/reliability at 1 MiB
// (the bundle also at the 190 KB), interrupts each with SIGTERM at
// three points, and opens 1 MiB of "(" and of NUL bytes as unsaved buffers
// in a language server. The two cases must index within 2 s and
// 300 MiB; every shape within 60 s and 1.5 GiB (the dense 15 MiB Go
// file's memory limit); every SIGTERM must end the run within 1 s.
func benchShapes(b reliability.Bin, work string, check checkFunc, fail failFunc) error {
	fmt.Println("\n== shaped files (issue 29: long lines, runs of one token, deep nesting)")
	const mib = 1 << 20
	type run struct {
		shape  reliability.Shape
		size   int
		strict bool // the cases: 2 s, 300 MiB
	}
	runs := []run{{reliability.ShapeNamed("bundle after a readable prelude, as TypeScript"), 190_000, true}}
	for _, s := range reliability.Shapes {
		runs = append(runs, run{s, mib, s.Name == "( only, Go"})
	}
	for _, r := range runs {
		res, err := reliability.IndexShape(b, work, r.shape, r.size)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("%s, %d KiB", r.shape.Name, r.size>>10)
		maxTime, maxRSS := time.Minute, int64(1536)<<20
		if r.strict {
			maxTime, maxRSS = 2*time.Second, 300<<20
		}
		check(name+": s", res.Index.Elapsed.Seconds(), "s", maxTime.Seconds(), true)
		info(name+": CPU", res.Index.CPU.Seconds(), "s")
		check(name+": peak RSS", float64(res.Index.MaxRSS>>20), "MiB", float64(maxRSS>>20), true)
		info(name+": symbols", float64(res.Stats.Symbols), "")
		info(name+": chunks", float64(res.Stats.Chunks), "")
		fail(res.Problems(maxTime, maxRSS))
	}
	for _, s := range reliability.Shapes {
		for _, delay := range []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, 1500 * time.Millisecond} {
			res, latency, err := reliability.InterruptShape(b, work, s, mib, delay)
			if err != nil {
				return err
			}
			name := fmt.Sprintf("SIGTERM %s into %s", delay, s.Name)
			if res.Code == 0 {
				info(name+": finished first", ms(res.Elapsed), "ms")
				continue
			}
			check(name+": exit after", ms(latency), "ms", 1000, true)
		}
	}
	for _, name := range []string{"( only, Go", "NUL bytes, Go"} {
		r := b.ServeBuffer(work, reliability.ShapeNamed(name), mib)
		if r.Err != nil || !r.Found || r.Code != 0 {
			fail([]string{fmt.Sprintf("serve with an unsaved 1 MiB buffer of %s: %v (search found Ordinary: %v, exit %d)", name, r.Err, r.Found, r.Code)})
			continue
		}
		check("serve, 1 MiB buffer of "+name+": pack", ms(r.Pack), "ms", 2000, true)
		check("serve, 1 MiB buffer of "+name+": search", ms(r.Search), "ms", 1000, true)
		check("serve, 1 MiB buffer of "+name+": shutdown", ms(r.Shutdown), "ms", 1000, true)
	}
	return nil
}

func benchCorruption(b reliability.Bin, work string, files int, check checkFunc, fail failFunc) error {
	fmt.Println("\n== corrupted index files (200 random bytes)")
	c, err := reliability.Corruption(b, filepath.Join(work, "corrupt"), files, []float64{0.02, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.98}, 3)
	if err != nil {
		return err
	}
	detected, erased, silent, same := 0, 0, 0, 0
	for _, cs := range c.Cases {
		switch {
		case cs.Detected():
			detected++
		case cs.Erased():
			erased++
		}
		if cs.Silent > 0 {
			silent++
		}
		if cs.Same == nil {
			same++
		}
	}
	n := float64(len(c.Cases))
	info("cases (store tables and text segments)", n, "")
	info("cases with silently wrong answers before verify", float64(silent), "")
	info("damage erased with deleted data (nothing wrong)", float64(erased), "")
	check("damage detected (a query or index --verify) or erased", float64(detected+erased)/n, "share", 1, false)
	check("answers equal to a clean index after rebuild", float64(same)/n, "share", 1, false)
	fail(c.Problems)

	fmt.Println("\n== unopenable index (MANIFEST, tables, CURRENT damaged; marked by a read)")
	cases, problems, err := reliability.Unopenable(b, filepath.Join(work, "unopenable"), files)
	if err != nil {
		return err
	}
	for _, uc := range cases {
		info(uc.Name+": search, ms", ms(uc.Search.Elapsed), "ms")
		info(uc.Name+": verify exit status", float64(uc.Verify.Code), "")
	}
	check("unopenable indexes: problems (a failure, a wrong answer, a silent verify)", float64(len(problems)), "", 0, true)
	fail(problems)
	return nil
}

func benchSecrets(check checkFunc) error {
	fmt.Println("\n== secrets")
	secrets := secrettest.Secrets()
	leaks := 0
	for _, files := range []map[string]string{secrettest.Files(), secrettest.Buffers()} {
		for _, content := range files {
			leaks += len(secrettest.Leaks(packs.Scrub(content), secrets))
		}
	}
	info("planted secrets (kinds)", float64(len(secrettest.Kinds(secrets))), "")
	check("planted secrets leaking through Scrub", float64(leaks), "", 0, true)
	src, err := goroot()
	if err != nil {
		return err
	}
	scanned, redactions, outside, err := scrubTree(src)
	if err != nil {
		return err
	}
	info("Go stdlib files scrubbed", float64(scanned), "")
	info("redactions in the Go stdlib (test data included)", float64(redactions), "")
	check("redactions in the Go stdlib outside test data", float64(len(outside)), "", 3, true)
	for _, o := range outside {
		fmt.Println("  ", o)
	}
	return nil
}

// testData matches the paths of test files and fixtures, where secrets
// and credential-shaped strings are expected.
var testData = regexp.MustCompile(`(_test\.go$|(^|/)(testdata|tests?)/)`)

// scrubTree scrubs every .go file under root with the built-in rules and
// returns the number of files, of redactions, and the redacted lines
// outside test data (false redactions, most likely).
func scrubTree(root string) (files, redactions int, outside []string, err error) {
	s, err := packs.NewScrubber(nil)
	if err != nil {
		return 0, 0, nil, err
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".go" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		text := string(data)
		rel, _ := filepath.Rel(root, p)
		for _, sp := range s.Find(text) {
			redactions++
			if !testData.MatchString(filepath.ToSlash(rel)) {
				line := text[strings.LastIndexByte(text[:sp[0]], '\n')+1:]
				if i := strings.IndexByte(line, '\n'); i >= 0 {
					line = line[:i]
				}
				if len(line) > 120 {
					line = line[:120] + "…"
				}
				outside = append(outside, rel+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	return files, redactions, outside, err
}
