package reliability

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// SmallReport is what the small cases of issue 29 (item 8) saw: a
// workspace in a git repository whose .gitignore has 20,000 patterns and
// whose files include one at the bottom of a chain of directories deeper
// than PATH_MAX, and one whose name holds a newline.
type SmallReport struct {
	Files    Result // files
	Index    Result // index
	Again    Result // index again, nothing changed
	Why      Result // files --why on the file below PATH_MAX's depth
	Callers  Result // callers on PATH:LINE in the file named with a newline
	Problems []string
}

// ignorePatterns returns n .gitignore patterns of the usual kinds (a
// directory, an extension, a file name, an anchored path, a ** pattern),
// none of which matches the workspace's files.
func ignorePatterns(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "build_%d/\n", i)
		case 1:
			fmt.Fprintf(&b, "*.tmp%d\n", i)
		case 2:
			fmt.Fprintf(&b, "foo%d.log\n", i)
		case 3:
			fmt.Fprintf(&b, "/dir%d/sub\n", i)
		default:
			fmt.Fprintf(&b, "**/cache%d/**\n", i)
		}
	}
	return b.String()
}

// MkdirChain creates depth nested directories named name below dir,
// through directory descriptors (no path length limit applies), and
// writes file with content at the bottom. It returns the chain's path
// relative to dir.
func MkdirChain(dir, name string, depth int, file, content string) (string, error) {
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	segs := make([]string, 0, depth)
	for i := 0; i < depth; i++ {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			unix.Close(fd)
			return "", err
		}
		next, err := unix.Openat(fd, name, unix.O_DIRECTORY|unix.O_RDONLY, 0)
		unix.Close(fd)
		if err != nil {
			return "", err
		}
		fd = next
		segs = append(segs, name)
	}
	defer unix.Close(fd)
	f, err := unix.Openat(fd, file, unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC, 0o644)
	if err != nil {
		return "", err
	}
	defer unix.Close(f)
	if _, err := unix.Write(f, []byte(content)); err != nil {
		return "", err
	}
	return strings.Join(segs, "/"), nil
}

// Small runs item 8's cases on a chain of depth directories. Listing and
// indexing the 27 files (26 indexable) must take well under maxScan each (a scan took
// 1.3–14 s with the 20,000 patterns); files --why must say the file below
// PATH_MAX is not indexed because its path is too long; callers must take
// a PATH:LINE whose path holds a newline.
func Small(b Bin, work string, depth int, maxScan time.Duration) (SmallReport, error) {
	var r SmallReport
	root := filepath.Join(work, "small")
	files := map[string]string{
		".gitignore":         ignorePatterns(20000),
		"names/new\nline.go": "package names\n\nfunc A() {}\n\nfunc B() { A() }\n",
	}
	for i := 0; i < 25; i++ {
		files[fmt.Sprintf("pkg/f%02d.go", i)] = fmt.Sprintf("package pkg\n\n// F%d is file %d's function.\nfunc F%d() {}\n", i, i, i)
	}
	if err := WriteFiles(root, files); err != nil {
		return r, err
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		return r, err
	}
	chain, err := MkdirChain(root, "deep", depth, "deep.go", "package deep\n\nfunc Deep() {}\n")
	if err != nil {
		return r, err
	}
	ix := Index{root, filepath.Join(work, "small-db")}
	r.Files = b.Run("files", "--root", root)
	r.Index = b.Run(ix.Args("index")...)
	r.Again = b.Run(ix.Args("index")...)
	r.Why = b.Run("files", "--root", root, "--why", chain+"/deep.go")
	r.Callers = b.Run(ix.Args("callers", "--json", "names/new\nline.go:3")...)
	check := func(ok bool, format string, args ...any) {
		if !ok {
			r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
		}
	}
	check(r.Files.Code == 0 && strings.Count(r.Files.Stdout, "\n") == 26, "files: %s, want the 26 files above PATH_MAX's depth", r.Files)
	for _, res := range []Result{r.Files, r.Index, r.Again} {
		check(res.Code == 0 && res.Elapsed < maxScan, "a scan of 27 files under 20,000 patterns, %d directories deep: %s (limit %s)", depth, res, maxScan)
	}
	check(r.Why.Code == 0 && strings.Contains(r.Why.Stdout, "path too long"), "files --why on a file deeper than PATH_MAX: %s", r.Why)
	check(r.Callers.Code == 0 && strings.Contains(r.Callers.Stdout, `"symbol": "B"`), "callers on a path holding a newline: %s", r.Callers)
	return r, nil
}
