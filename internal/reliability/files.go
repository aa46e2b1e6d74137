package reliability

import (
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Repo returns a generated Go workspace of n files in 40 packages, each
// with two documented functions whose names and comments carry the file's
// number, so queries can name any of them.
func Repo(n int) map[string]string {
	files := make(map[string]string, n)
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("pkg%02d/f%04d.go", i%40, i)] = fmt.Sprintf(
			"package pkg%02d\n\n// Handler%d answers request kind %d with a computed value.\nfunc Handler%d(x int) int {\n\treturn x * %d\n}\n\n// Helper%d formats value %d.\nfunc Helper%d() string { return \"%d\" }\n",
			i%40, i, i, i, i, i, i, i, i)
	}
	return files
}

// RepoQueries are queries with answers in any Repo of 100 files or more.
var RepoQueries = []string{"Handler77", "request kind 12", "formats value", "pkg07.Helper47", "computed value"}

// WriteFiles writes files (slash-separated relative path → content)
// under root.
func WriteFiles(root string, files map[string]string) error {
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteDenseGo writes a Go file of about size bytes holding one small
// documented function per 90 bytes: the densest ordinary source, the
// worst case for indexing memory.
func WriteDenseGo(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := &countWriter{w: f}
	fmt.Fprint(w, "package big\n\n")
	for i := 0; w.n < size-100; i++ {
		fmt.Fprintf(w, "// F%d computes a value for request %d.\nfunc F%d(x int) int {\n\treturn x * %d\n}\n\n", i, i, i, i)
	}
	if w.err != nil {
		f.Close()
		return w.err
	}
	return f.Close()
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// CopyDir copies the regular files of src into dst (created).
func CopyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() || d.Name() == "owner.sock" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// Corrupt overwrites n bytes of path at offset off with random bytes
// (seeded by off), as a failing disk or a stray write would.
func Corrupt(path string, off int64, n int) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	junk := make([]byte, n)
	rand.New(rand.NewSource(off)).Read(junk)
	if _, err := f.WriteAt(junk, off); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// IndexFiles returns the store tables and text-index segments of an
// index directory, relative to it, largest first within each kind: the
// largest table holds the bulk of the index, where damage cannot fall on
// data deleted anyway (a small early table may hold only the trimmed
// change log).
func IndexFiles(indexDir string) ([]string, error) {
	var out []string
	for _, pattern := range []string{"pebble/*.sst", "bleve/store/*.zap"} {
		m, err := filepath.Glob(filepath.Join(indexDir, pattern))
		if err != nil {
			return nil, err
		}
		size := map[string]int64{}
		for _, p := range m {
			if st, err := os.Stat(p); err == nil {
				size[p] = st.Size()
			}
		}
		sort.SliceStable(m, func(i, j int) bool { return size[m[i]] > size[m[j]] })
		for _, p := range m {
			rel, _ := filepath.Rel(indexDir, p)
			out = append(out, rel)
		}
	}
	return out, nil
}

// containsAll reports whether s contains every one of parts.
func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
