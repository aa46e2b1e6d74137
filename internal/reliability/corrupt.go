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

// UnopenableCase is one way of damaging an index so that its store
// cannot be opened, or is marked damaged by a read before the next check.
type UnopenableCase struct {
	Name   string
	Damage func(indexDir string) error
	Search Result // a search on the damaged index
	Verify Result // index --verify on another copy of the damaged index
	Again  Result // index --verify once more
	Same   error  // answers afterwards against a clean index
}

// Unopenable runs the unopenable-index scenario (issue 29, item 7): a
// MANIFEST overwritten or cut short, a table cut to half or deleted,
// CURRENT naming a missing MANIFEST, and a store a read marked damaged.
// On each, a search must answer (saying the index is rebuilt when it
// is), index --verify must say it found damage and rebuilt (exit status
// 1) when something was lost, a second verify must find the index
// intact, and the index must answer like a clean one.
func Unopenable(b Bin, work string, files int) ([]UnopenableCase, []string, error) {
	root := filepath.Join(work, "unopenable-repo")
	if err := WriteFiles(root, Repo(files)); err != nil {
		return nil, nil, err
	}
	clean := Index{root, filepath.Join(work, "unopenable-clean")}
	if res := b.Run(clean.Args("index")...); res.Code != 0 {
		return nil, nil, fmt.Errorf("clean index: %s", res)
	}
	glob := func(dir, pattern string) (string, error) {
		m, err := filepath.Glob(filepath.Join(dir, "pebble", pattern))
		if err != nil || len(m) == 0 {
			return "", fmt.Errorf("no %s in %s: %v", pattern, dir, err)
		}
		return m[0], nil
	}
	half := func(pattern string) func(string) error {
		return func(dir string) error {
			p, err := glob(dir, pattern)
			if err != nil {
				return err
			}
			st, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, st.Size()/2)
		}
	}
	cases := []UnopenableCase{
		{Name: "MANIFEST overwritten at its start", Damage: func(dir string) error {
			p, err := glob(dir, "MANIFEST-*")
			if err != nil {
				return err
			}
			return Corrupt(p, 0, 200)
		}},
		{Name: "MANIFEST cut to half", Damage: half("MANIFEST-*")},
		{Name: "a table cut to half", Damage: half("*.sst")},
		{Name: "a table deleted", Damage: func(dir string) error {
			p, err := glob(dir, "*.sst")
			if err != nil {
				return err
			}
			return os.Remove(p)
		}},
		{Name: "CURRENT naming a missing MANIFEST", Damage: func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "pebble", "CURRENT"), []byte("MANIFEST-999999\n"), 0o644)
		}},
		{Name: "marked damaged by a read", Damage: func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "pebble", "DAMAGED"), []byte("index damaged: pebble: checksum mismatch\n"), 0o644)
		}},
	}
	var problems []string
	for i := range cases {
		c := &cases[i]
		damaged := func(name string) (Index, error) {
			ix := Index{root, filepath.Join(work, name)}
			os.RemoveAll(ix.DB)
			if err := CopyDir(clean.DB, ix.DB); err != nil {
				return ix, err
			}
			dir, err := ix.Dir()
			if err != nil {
				return ix, err
			}
			return ix, c.Damage(dir)
		}
		ix, err := damaged("unopenable-search")
		if err != nil {
			return nil, nil, err
		}
		c.Search = b.Run(ix.Args("search", "--json", RepoQueries[0])...)
		want := b.Run(clean.Args("search", "--json", RepoQueries[0])...)
		if c.Search.Code != 0 || c.Search.Stdout != want.Stdout {
			problems = append(problems, fmt.Sprintf("%s: search: %s", c.Name, c.Search))
		}
		if ix, err = damaged("unopenable-verify"); err != nil {
			return nil, nil, err
		}
		c.Verify = b.Run(ix.Args("index", "--verify")...)
		c.Again = b.Run(ix.Args("index", "--verify")...)
		c.Same = b.SameAnswers(clean, ix, RepoQueries)
		switch {
		case c.Verify.Code == 1 && strings.Contains(c.Verify.Stdout, "index damaged"):
		case c.Verify.Code == 0 && strings.Contains(c.Verify.Stdout, "index ok") && c.Same == nil:
			// Pebble opened it as it was and nothing was lost.
		default:
			problems = append(problems, fmt.Sprintf("%s: verify: %s", c.Name, c.Verify))
		}
		if c.Again.Code != 0 || !strings.Contains(c.Again.Stdout, "index ok") {
			problems = append(problems, fmt.Sprintf("%s: second verify: %s", c.Name, c.Again))
		}
		if c.Same != nil {
			problems = append(problems, fmt.Sprintf("%s: after the rebuild: %v", c.Name, c.Same))
		}
	}
	return cases, problems, nil
}
