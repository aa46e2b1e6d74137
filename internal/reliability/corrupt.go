package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CorruptionCase is one damaged index file.
type CorruptionCase struct {
	File   string // relative to the index directory
	Offset int64
	// Silent counts the queries that answered differently from a clean
	// index, without an error, before the index was verified; Reported
	// those that said the index is damaged (failing, or rebuilding it
	// before they answered); Marked those after
	// which the index was marked damaged (a read met the damage: it is
	// rebuilt when next opened, before the verify).
	Silent, Reported, Marked int
	Verify                   Result // index --verify: finds the damage and rebuilds
	Again                    Result // index --verify once more: intact
	Same                     error  // answers after the rebuild against a clean index
}

// Detected reports whether the damage was found: by a query, or by the
// first verify.
func (c CorruptionCase) Detected() bool {
	return c.Reported > 0 || c.Marked > 0 || c.Verify.Code == 1 && strings.Contains(c.Verify.Stdout, "index damaged")
}

// Erased reports whether the damage went with data the index deleted
// anyway (the change log is trimmed after every run, and Pebble drops a
// deleted block without reading it): nothing was detected because
// nothing was wrong — every query answered right before the verify, the
// verify found the index whole, and it answers like a clean one.
func (c CorruptionCase) Erased() bool {
	return !c.Detected() && c.Silent == 0 && c.Verify.Code == 0 && c.Same == nil
}

// CorruptionReport is what the corruption scenario saw.
type CorruptionReport struct {
	Cases    []CorruptionCase
	Problems []string
}

// Corruption runs the corruption scenario: a workspace of files Go files
// is indexed; then, on a copy of the index each time, 200 random bytes
// are written into one store table or text-index segment at each of the
// given fractions of its size (at most perKind files of each). Queries
// run first (how many answer wrong without an error is counted), then
// `index --verify` must report the damage in one line with exit status 1
// and rebuild; a second verify must find the index intact, and the index
// must answer like the clean one.
func Corruption(b Bin, work string, files int, fractions []float64, perKind int) (CorruptionReport, error) {
	var r CorruptionReport
	root := filepath.Join(work, "corrupt-repo")
	if err := WriteFiles(root, Repo(files)); err != nil {
		return r, err
	}
	clean := Index{root, filepath.Join(work, "corrupt-clean")}
	if res := b.Run(clean.Args("index")...); res.Code != 0 {
		return r, fmt.Errorf("clean index: %s", res)
	}
	base := filepath.Join(work, "corrupt-base")
	if err := CopyDir(clean.DB, base); err != nil {
		return r, err
	}
	baseDir, err := Index{root, base}.Dir()
	if err != nil {
		return r, err
	}
	targets, err := IndexFiles(baseDir)
	if err != nil {
		return r, err
	}
	taken := map[string]int{}
	for _, t := range targets {
		kind := filepath.Ext(t)
		if taken[kind] >= perKind {
			continue
		}
		taken[kind]++
		info, err := os.Stat(filepath.Join(baseDir, t))
		if err != nil {
			return r, err
		}
		for _, f := range fractions {
			c := CorruptionCase{File: t, Offset: int64(f * float64(info.Size()-200))}
			bad := Index{root, filepath.Join(work, "corrupt-bad")}
			os.RemoveAll(bad.DB)
			if err := CopyDir(base, bad.DB); err != nil {
				return r, err
			}
			dir, err := bad.Dir()
			if err != nil {
				return r, err
			}
			if err := Corrupt(filepath.Join(dir, t), c.Offset, 200); err != nil {
				return r, err
			}
			for _, q := range RepoQueries {
				want, got := b.Run(clean.Args("search", "--json", q)...), b.Run(bad.Args("search", "--json", q)...)
				switch {
				case strings.Contains(got.Stderr, "index damaged"):
					c.Reported++ // failed saying so, or said so and rebuilt before answering
				case got.Code == 0 && got.Stdout != want.Stdout:
					c.Silent++
				}
				if _, err := os.Stat(filepath.Join(dir, "pebble", "DAMAGED")); err == nil {
					c.Marked++
				}
			}
			c.Verify = b.Run(bad.Args("index", "--verify")...)
			c.Again = b.Run(bad.Args("index", "--verify")...)
			c.Same = b.SameAnswers(clean, bad, RepoQueries)
			if c.Again.Code != 0 || !strings.Contains(c.Again.Stdout, "index ok") {
				r.Problems = append(r.Problems, fmt.Sprintf("%s@%d: second verify: %s", t, c.Offset, c.Again))
			}
			if c.Same != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("%s@%d: after the rebuild: %v", t, c.Offset, c.Same))
			}
			if !c.Detected() && !c.Erased() {
				r.Problems = append(r.Problems, fmt.Sprintf("%s@%d: damage not detected: verify: %s", t, c.Offset, c.Verify))
			}
			r.Cases = append(r.Cases, c)
		}
	}
	return r, nil
}
