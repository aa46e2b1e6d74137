package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unicode/utf8"
)

// ErrOutsideWorkspace is returned (wrapped, with the offending path) for a
// path that does not name a location inside the workspace root: ".."
// traversal, absolute paths elsewhere, symlinks leading out, and malformed
// input (empty, NUL bytes, invalid UTF-8, Windows drive or UNC paths).
var ErrOutsideWorkspace = errors.New("path outside workspace")

// isWindows selects the Windows path rules.
const isWindows = runtime.GOOS == "windows"

// errNotDir is the error for a path that continues below a file.
var errNotDir error = syscall.ENOTDIR

// maxLinks bounds symlink expansions while resolving one path.
const maxLinks = 255

// errLinkLoop reports a symlink chain longer than maxLinks.
var errLinkLoop = errors.New("too many levels of symbolic links")

// Resolve turns a path from outside (absolute, or relative to the root) into
// the canonical slash-separated path relative to the root: cleaned, with the
// symlinks of its existing prefix resolved the way the kernel would resolve
// them. The path need not exist. The root itself is ".". It returns an error
// wrapping ErrOutsideWorkspace if the path leaves the root.
func (w *Workspace) Resolve(p string) (string, error) {
	if err := checkPathSyntax(p, isWindows); err != nil {
		return "", err
	}
	var real string
	var err error
	if filepath.IsAbs(p) {
		if rest, ok := strings.CutPrefix(p, w.root+string(filepath.Separator)); ok {
			real, err = realpathFrom(w.root, rest)
		} else {
			real, err = realpath(p)
		}
	} else {
		real, err = realpathFrom(w.root, p)
	}
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", p, err)
	}
	rel, ok := w.relInside(real)
	if !ok {
		return "", fmt.Errorf("%w: %q resolves to %s", ErrOutsideWorkspace, p, real)
	}
	return rel, nil
}

// Abs returns the absolute path of rel, a slash-separated path relative to
// the root such as Walk reports. rel must be clean (no "." or ".." segments,
// no leading or doubled slashes) and must not lead out of the root through
// a symlink; otherwise the error wraps ErrOutsideWorkspace.
func (w *Workspace) Abs(rel string) (string, error) {
	if err := checkRel(rel); err != nil {
		return "", err
	}
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	real, err := realpath(abs)
	if err != nil {
		return "", fmt.Errorf("abs %q: %w", rel, err)
	}
	if _, ok := w.relInside(real); !ok {
		return "", fmt.Errorf("%w: %q resolves to %s", ErrOutsideWorkspace, rel, real)
	}
	return abs, nil
}

// checkRel validates a root-relative path in canonical form.
func checkRel(rel string) error {
	if err := checkPathSyntax(rel, isWindows); err != nil {
		return err
	}
	if rel == "." {
		return nil
	}
	if path.IsAbs(rel) || filepath.IsAbs(rel) || path.Clean(rel) != rel {
		return fmt.Errorf("%w: %q is not a clean relative path", ErrOutsideWorkspace, rel)
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%w: %q climbs above the root", ErrOutsideWorkspace, rel)
	}
	return nil
}

// checkPathSyntax rejects input that cannot name a workspace file whatever
// the file system holds. windows selects the rules for Windows hosts; the
// drive-letter, UNC and backslash-traversal checks apply everywhere because
// such paths reach a server on Linux from Windows clients and agents.
func checkPathSyntax(p string, windows bool) error {
	switch {
	case p == "":
		return fmt.Errorf("%w: empty path", ErrOutsideWorkspace)
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("%w: %q contains a NUL byte", ErrOutsideWorkspace, p)
	case !utf8.ValidString(p):
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrOutsideWorkspace, p)
	}
	slashed := strings.ReplaceAll(p, `\`, "/")
	// "C:", "C:/x" and "C:\x" name a drive; "a:12:3.go" is a file name.
	if len(slashed) >= 2 && slashed[1] == ':' && isASCIILetter(slashed[0]) && (len(slashed) == 2 || slashed[2] == '/') && !windows {
		return fmt.Errorf("%w: %q is a Windows drive path", ErrOutsideWorkspace, p)
	}
	if strings.HasPrefix(p, `\\`) || (strings.HasPrefix(slashed, "//") && windows) {
		return fmt.Errorf("%w: %q is a UNC or device path", ErrOutsideWorkspace, p)
	}
	if strings.Contains(p, `\`) && !windows {
		for _, seg := range strings.Split(slashed, "/") {
			if seg == ".." {
				return fmt.Errorf("%w: %q climbs with backslash separators", ErrOutsideWorkspace, p)
			}
		}
	}
	if windows {
		for i, seg := range strings.Split(slashed, "/") {
			if err := checkWindowsSegment(seg, i == 0); err != nil {
				return fmt.Errorf("%w: %q: %v", ErrOutsideWorkspace, p, err)
			}
		}
	}
	return nil
}

// checkWindowsSegment rejects path segments that Windows maps to something
// other than the file they seem to name. first allows a drive ("C:").
func checkWindowsSegment(seg string, first bool) error {
	if seg == "" || seg == "." || seg == ".." {
		return nil
	}
	if i := strings.IndexByte(seg, ':'); i >= 0 && !(first && i == 1 && len(seg) == 2 && isASCIILetter(seg[0])) {
		return errors.New("alternate data stream")
	}
	if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
		return errors.New("trailing dot or space")
	}
	base := strings.ToUpper(seg)
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimRight(base, " ")
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return errors.New("reserved device name")
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '0' && base[3] <= '9' {
		return errors.New("reserved device name")
	}
	return nil
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// relInside returns the slash-separated path of abs (clean, absolute)
// relative to the real root, and whether abs lies inside it.
func (w *Workspace) relInside(abs string) (string, bool) {
	return relUnder(w.root, abs)
}

// relUnder returns abs relative to dir (both clean and absolute) if abs is
// dir or lies below it.
func relUnder(dir, abs string) (string, bool) {
	if abs == dir {
		return ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(abs, prefix) {
		return "", false
	}
	return filepath.ToSlash(abs[len(prefix):]), true
}

// lexicalRel cleans p (absolute or relative to the root) without touching
// the file system and returns it relative to the root, accepting the root as
// given to Open as well as its resolved form. ok is false if p lies outside.
func (w *Workspace) lexicalRel(p string) (string, bool) {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.root, p)
	}
	abs = filepath.Clean(abs)
	if rel, ok := relUnder(w.root, abs); ok {
		return rel, true
	}
	return relUnder(w.given, abs)
}

// realpath resolves every symlink in the existing prefix of the absolute
// path p, processing ".." after each resolved component as the kernel does.
// The part of p that does not exist is appended cleaned. The result is
// clean and absolute.
func realpath(p string) (string, error) {
	vol := filepath.VolumeName(p)
	return realpathFrom(vol+string(filepath.Separator), p[len(vol):])
}

// realpathFrom is realpath for the path rest relative to resolved, a clean
// absolute directory path that has no symlinks (the workspace root, or a
// volume's root directory).
func realpathFrom(resolved, rest string) (string, error) {
	links := 0
	for rest != "" {
		var comp string
		if i := strings.IndexAny(rest, separators); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			comp, rest = rest, ""
		}
		switch comp {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, comp)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
				return filepath.Join(next, rest), nil
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxLinks {
			return "", fmt.Errorf("%s: %w", next, errLinkLoop)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			resolved = tv + string(filepath.Separator)
			target = target[len(tv):]
		}
		if rest == "" {
			rest = target
		} else {
			rest = target + string(filepath.Separator) + rest
		}
	}
	return resolved, nil
}

// separators are the path separators of the host.
var separators = func() string {
	if filepath.Separator == '/' {
		return "/"
	}
	return `/` + string(filepath.Separator)
}()
