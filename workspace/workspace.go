// Package workspace decides which files of a workspace root are indexed,
// canonicalises every path that comes from outside, reads the workspace
// configuration file (.context-ls.toml) and watches the tree for changes.
//
// # What is indexed
//
// Walk visits every regular file that survives the checks below, in
// byte-wise lexical order of its slash-separated path relative to the root.
// Explain and Included run the very same per-entry code, so a path is in
// Walk's output exactly when Included says so.
//
// Each directory entry is judged in this order; the first check that
// decides wins:
//
//  1. Names that are not valid UTF-8 are skipped, and the index directory
//     (Config.DBPath, when inside the root) is never entered.
//  2. User rules: Config.Ignore (root-relative, highest priority), then the
//     .contextignore files from the deepest directory up to the root. The
//     last matching pattern decides, and a negation ("!vendor/") includes
//     the entry even if the denylist or a .gitignore excludes it: this is the
//     user's escape hatch.
//  3. The built-in denylist: version control, dependency, cache and build
//     output directories; lock files; minified bundles and source maps;
//     images, fonts, media, archives, compiled artefacts, databases,
//     documents and key material; credential files such as .env. Ambiguous
//     directory names are denied only beside the build file that makes them
//     output: target/ beside Cargo.toml, pom.xml or build.sbt; dist/ beside
//     package.json or a Python project file; build/ beside a Python or
//     Gradle project file. Plain build/, bin/ and testdata/ are kept.
//  4. Git rules, inside a git repository only (the root or a directory above
//     or below it holds .git; elsewhere a .gitignore is an ordinary file, as
//     in ripgrep): .gitignore files from the deepest directory up to the root,
//     then the .gitignore files of directories above the root up to the
//     enclosing repository's top (applied only to paths inside the root),
//     then that repository's info/exclude. The last matching pattern decides.
//     A .gitignore negation cannot override the denylist.
//  5. Symlinks are never descended. One that resolves outside the root is
//     skipped ("symlink escapes root"); one that resolves inside is skipped
//     too, because its target is visited, and judged, at its real path. So
//     every file is reported once, under the same canonical path Resolve
//     returns, and symlink cycles cannot loop. Sockets, devices and pipes
//     are skipped.
//  6. A directory excluded by any rule is not entered, so nothing below it
//     can be re-included (as in git); exclude a directory's contents rather
//     than the directory ("dir/*" then "!dir/keep.go") to re-include files.
//  7. Files larger than Config.MaxFileSize (default 1 MiB) are skipped.
//  8. The first 8 KiB of the file are read: binary content (see IsBinary)
//     is skipped, and so is a .js/.mjs/.cjs/.css file whose average line
//     length over its first or its last 8 KiB exceeds 300 bytes (minified;
//     a bundle often starts with a licence header and a readable prelude)
//     unless a user-rule negation named it explicitly. Size and binary
//     checks cannot be overridden. An editor buffer is judged by the same
//     rules (JudgeContent).
//
// Ignore files use full gitignore syntax: blank lines and "#" comments,
// "\#" and "\!" escapes, unescaped trailing spaces trimmed, "!" negation, a
// trailing "/" for directories, anchoring by a leading or inner "/", "*",
// "?", bracket expressions with ranges, negation and POSIX classes, and
// "**/", "/**" and "/**/". Symlinked ignore files are not read (as in git).
// Git's core.excludesFile (the user's global ignore file) is not read, so
// that indexing does not depend on who runs it.
//
// # Paths from outside
//
// Resolve and Abs accept paths from editors, the CLI and agents and reject
// with ErrOutsideWorkspace whatever leaves the root: ".." traversal,
// absolute paths elsewhere, symlinks pointing out, NUL bytes, Windows
// drive, UNC and backslash-traversal paths.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Names of the ignore files read in every directory.
const (
	GitIgnoreFile     = ".gitignore"
	ContextIgnoreFile = ".contextignore"
)

// ErrTooLarge is returned (wrapped) by ReadFile for a file larger than
// Config.MaxFileSize.
var ErrTooLarge = errors.New("larger than the maximum file size")

// HardMaxFileSize bounds Config.MaxFileSize: larger files are never
// indexed, whatever the configuration says. One file's definitions,
// chunks and text-index documents are built in memory (and written in one
// batch); measured on dense generated Go, a 16 MiB file peaks at 1.3 GB
// of memory and a 200 MiB one grew past 4 GB before it was stopped.
const HardMaxFileSize = 16 << 20

// maxIgnoreFileSize bounds one ignore file.
const maxIgnoreFileSize = 4 << 20

// Decision sources that are not ignore files (those read "path:line").
const (
	SourceConfig        = "config ignore"
	SourceDenylist      = "denylist"
	SourceIndexDir      = "index directory"
	SourceMaxSize       = "max file size"
	SourceBinary        = "binary"
	SourceMinified      = "minified"
	SourceSymlinkEscape = "symlink escapes root"
	SourceSymlink       = "symlink"
	SourceBrokenLink    = "broken symlink"
	SourceOutside       = "outside workspace"
	SourceNotFound      = "not found"
	SourceSpecial       = "not a regular file"
	SourceUnreadable    = "unreadable"
	SourceInvalidName   = "invalid name"
	SourceUnwanted      = "not wanted" // WalkKnown's caller indexes no file of this name
	SourcePathTooLong   = "path too long"
)

// pathTooLong returns the Decision rule for a path the operating system
// refuses as too long (ENAMETOOLONG: deeper than PATH_MAX), and whether err
// says so.
func pathTooLong(abs string, err error) (string, bool) {
	if !errors.Is(err, syscall.ENAMETOOLONG) {
		return "", false
	}
	return fmt.Sprintf("%d bytes from the file system's root: longer than the system allows (PATH_MAX)", len(abs)), true
}

// FileInfo describes one file Walk visits.
type FileInfo struct {
	// Rel is the path relative to the root, slash-separated.
	Rel string
	// Abs is the absolute path.
	Abs string
	// Size is the size in bytes.
	Size int64
	// ModTime is the modification time in Unix nanoseconds.
	ModTime int64
	// Shebang is the file's first line when it starts with "#!" (at most
	// 256 bytes), from the content checks; it is empty when the walk's
	// caller knew the file (its head was not read).
	Shebang string
}

// Decision explains whether a path is indexed and which rule or check
// decided it.
type Decision struct {
	// Rel is the canonical path relative to the root (slash-separated) that
	// the decision is about; for paths outside the workspace, the input.
	Rel string
	// Included reports whether Walk visits Rel (for a directory: whether
	// Walk enters it).
	Included bool
	// Rule is the deciding pattern as written ("*.gen.go", "!vendor/"), the
	// denylist entry, or the check's finding ("size 2000000 > 1048576").
	// Empty when no rule matched an included path.
	Rule string
	// Source is where the rule comes from: an ignore file with its line
	// (".gitignore:12", "docs/.contextignore:3", "../.gitignore:1",
	// ".git/info/exclude:2") or one of the Source constants. Empty when no
	// rule matched an included path.
	Source string
	// Dir reports that Rel is a directory.
	Dir bool
	// Ancestor is set when Rel is excluded because this ancestor directory
	// is: Rule and Source are then the ancestor's.
	Ancestor string
	// named is set when a user rule's negation names Rel itself, which
	// overrides the minified check (JudgeContent).
	named bool
}

// Workspace is one workspace root with its rules. It is safe for
// concurrent use.
type Workspace struct {
	root    string // absolute, symlinks resolved
	given   string // absolute, cleaned, as passed to Open
	maxSize int64
	onSkip  func(rel, reason string)
	config  *patternList // Config.Ignore
	dbRel   string       // Config.DBPath relative to the root, if inside

	// outer are the ignore sources above the root, lowest priority first.
	outer []outerSource
	// inRepo is set when the root is inside a git repository (it or a
	// directory above it holds .git).
	inRepo bool

	mu    sync.Mutex
	cache map[string]cachedList // ignore files by absolute path
}

// outerSource is an ignore file outside the root that still applies.
type outerSource struct {
	abs, label, outer string
}

// cachedList is a parsed ignore file and the stat data it was parsed at.
type cachedList struct {
	mod  time.Time
	size int64
	list *patternList
}

// Open prepares the workspace at root with cfg. root is made absolute and
// symlink-resolved and must be a readable directory. cfg.MaxFileSize <= 0
// means DefaultMaxFileSize.
func Open(root string, cfg Config) (*Workspace, error) {
	if root == "" || strings.IndexByte(root, 0) >= 0 {
		return nil, fmt.Errorf("open workspace %q: invalid path", root)
	}
	given, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(given)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	if err := readableDir(real); err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	w := &Workspace{
		root:    real,
		given:   given,
		maxSize: cfg.MaxFileSize,
		onSkip:  cfg.OnSkip,
		config:  newConfigList(cfg.Ignore),
		cache:   map[string]cachedList{},
	}
	if w.maxSize <= 0 {
		w.maxSize = DefaultMaxFileSize
	}
	w.maxSize = min(w.maxSize, HardMaxFileSize)
	if cfg.DBPath != "" && strings.IndexByte(cfg.DBPath, 0) < 0 {
		db := cfg.DBPath
		if !filepath.IsAbs(db) {
			db = filepath.Join(real, db)
		}
		if dbReal, err := realpath(db); err == nil {
			if rel, ok := w.relInside(dbReal); ok && rel != "." {
				w.dbRel = rel
			}
		}
	}
	w.outer, w.inRepo = findOuterSources(real)
	return w, nil
}

// readableDir checks that dir is a directory whose entries can be listed.
func readableDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if _, err := f.ReadDir(1); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// accessError reports a directory that cannot be listed.
type accessError struct {
	dir string
	err error
}

func (e *accessError) Error() string { return "cannot list " + e.dir + ": " + e.err.Error() }
func (e *accessError) Unwrap() error { return e.err }

// Root returns the absolute, symlink-resolved root.
func (w *Workspace) Root() string { return w.root }

// InGitRepo reports whether the root is inside a git repository, where
// .gitignore files (and .git/info/exclude) apply; outside one only
// .contextignore files and the configuration do.
func (w *Workspace) InGitRepo() bool { return w.inRepo }

// findOuterSources finds the git repository enclosing root and returns its
// info/exclude and the .gitignore files of the directories from the
// repository's top down to root's parent, lowest priority first; inRepo
// reports whether there is such a repository.
func findOuterSources(root string) (out []outerSource, inRepo bool) {
	top := ""
	for dir := root; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			top = dir
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, false
		}
		dir = parent
	}
	prefix := func(dir string) string {
		rel, err := filepath.Rel(dir, root)
		if err != nil || rel == "." {
			return ""
		}
		return filepath.ToSlash(rel) + "/"
	}
	label := func(abs string) string {
		if rel, ok := relUnder(root, abs); ok {
			return rel
		}
		if rel, err := filepath.Rel(root, abs); err == nil {
			return filepath.ToSlash(rel)
		}
		return abs
	}
	if gitDir := commonGitDir(filepath.Join(top, ".git")); gitDir != "" {
		ex := filepath.Join(gitDir, "info", "exclude")
		out = append(out, outerSource{abs: ex, label: label(ex), outer: prefix(top)})
	}
	if top == root {
		return out, true
	}
	var dirs []string
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == top || filepath.Dir(dir) == dir {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		gi := filepath.Join(dirs[i], GitIgnoreFile)
		out = append(out, outerSource{abs: gi, label: label(gi), outer: prefix(dirs[i])})
	}
	return out, true
}

// commonGitDir returns the repository directory holding info/exclude for
// the .git entry dotGit: the directory itself, or for a worktree or
// submodule link file ("gitdir: ...") the linked directory's common
// directory. It returns "" if the entry cannot be read.
func commonGitDir(dotGit string) string {
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	gitDir := dotGit
	if !fi.IsDir() {
		data, err := os.ReadFile(dotGit)
		if err != nil {
			return ""
		}
		line, _, _ := strings.Cut(string(data), "\n")
		target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return ""
		}
		gitDir = strings.TrimSpace(target)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(filepath.Dir(dotGit), gitDir)
		}
	}
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		return common
	}
	return gitDir
}

// rules is the set of ignore-pattern lists in force in one directory.
type rules struct {
	git  []*patternList // outer sources and .gitignore files, lowest priority first
	user []*patternList // .contextignore files, lowest priority first
	// inRepo is set inside a git repository: .gitignore files apply only
	// there (ripgrep's rule). Outside one, a .gitignore is a file like any
	// other — an unpacked source tarball (Debian's linux-source adds "/*"
	// to the kernel's) indexes as it is.
	inRepo bool
}

// loadList reads and parses an ignore file through the cache. A missing
// file, or one that is not a regular file, yields nil.
func (w *Workspace) loadList(abs, label, base, outer string) (*patternList, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
			return nil, nil
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil
	}
	w.mu.Lock()
	c, ok := w.cache[abs]
	w.mu.Unlock()
	if ok && c.mod.Equal(fi.ModTime()) && c.size == fi.Size() {
		return c.list, nil
	}
	if fi.Size() > maxIgnoreFileSize {
		return nil, fmt.Errorf("%s is larger than %d bytes; not read", label, maxIgnoreFileSize)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	list := parsePatternList(data, label, base, outer)
	w.mu.Lock()
	w.cache[abs] = cachedList{mod: fi.ModTime(), size: fi.Size(), list: list}
	w.mu.Unlock()
	return list, nil
}

// skip is an OnSkip report.
type skip struct{ rel, reason string }

// rootRules returns the rules in force at the root: the outer sources, then
// the root's own ignore files.
func (w *Workspace) rootRules(sib siblings) (rules, []skip) {
	r := rules{inRepo: w.inRepo}
	var skips []skip
	for _, o := range w.outer {
		l, err := w.loadList(o.abs, o.label, "", o.outer)
		if err != nil {
			skips = append(skips, skip{o.label, "ignore file not read: " + err.Error()})
		}
		if l != nil {
			r.git = append(r.git, l)
		}
	}
	r, more := w.withDir(r, "", w.root, sib)
	return r, append(skips, more...)
}

// withDir returns r extended with the ignore files of directory dirRel.
func (w *Workspace) withDir(r rules, dirRel, dirAbs string, sib siblings) (rules, []skip) {
	var skips []skip
	load := func(name string) *patternList {
		// A listing says for free whether the file exists; otherwise
		// loadList's own Lstat answers.
		if l, ok := sib.(listing); ok && !l.has(name) {
			return nil
		}
		label := joinRel(dirRel, name)
		l, err := w.loadList(filepath.Join(dirAbs, name), label, dirRel, "")
		if err != nil {
			skips = append(skips, skip{label, "ignore file not read: " + err.Error()})
		}
		return l
	}
	if !r.inRepo && sib.has(".git") {
		r.inRepo = true // a repository's top below the root
	}
	if !r.inRepo {
		// not a repository: .gitignore files do not apply
	} else if l := load(GitIgnoreFile); l != nil {
		r.git = append(r.git[:len(r.git):len(r.git)], l)
	}
	if l := load(ContextIgnoreFile); l != nil {
		r.user = append(r.user[:len(r.user):len(r.user)], l)
	}
	return r, skips
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// verdict is the outcome of the name rules for one entry.
type verdict struct {
	excluded bool
	rule     string
	source   string
	explicit bool // a user-rule negation matched the entry itself
}

// nameRules applies the index directory, user rules, denylist and git rules
// to the entry rel (whose last segment is name).
func (w *Workspace) nameRules(r rules, rel, name string, isDir bool, sib siblings) verdict {
	if w.dbRel != "" && rel == w.dbRel {
		return verdict{excluded: true, rule: "dbPath", source: SourceIndexDir}
	}
	if p := w.config.match(rel, isDir); p != nil {
		return verdict{excluded: !p.negate, rule: p.text, source: SourceConfig, explicit: p.negate}
	}
	for i := len(r.user) - 1; i >= 0; i-- {
		if p := r.user[i].match(rel, isDir); p != nil {
			return verdict{excluded: !p.negate, rule: p.text, source: r.user[i].label(p), explicit: p.negate}
		}
	}
	if rule := denied(name, isDir, sib); rule != "" {
		return verdict{excluded: true, rule: rule, source: SourceDenylist}
	}
	for i := len(r.git) - 1; i >= 0; i-- {
		if p := r.git[i].match(rel, isDir); p != nil {
			return verdict{excluded: !p.negate, rule: p.text, source: r.git[i].label(p)}
		}
	}
	return verdict{}
}

// entry is one directory entry to judge.
type entry struct {
	dirRel, name string
	abs          string
	mode         fs.FileMode // type bits, from Lstat or the directory listing
	// info returns the entry's Lstat information (size, modification time).
	info func() (fs.FileInfo, error)
	// known, when set, reports a file whose size and modification time
	// match what the caller already judged (an unchanged indexed file): its
	// head is not read again.
	known func(rel string, size, mtime int64) bool
	// unwanted, when set, reports a regular file the caller wants in no
	// version: it is left out unread and unstatted (Known.Unwanted).
	unwanted func(rel string) bool
}

// judge decides one directory entry. It is the single code path behind
// Walk, Explain and Included. For an included regular file it also returns
// its FileInfo; isDir reports an included directory to descend into. head
// is the buffer for the content checks.
func (w *Workspace) judge(r rules, e entry, sib siblings, head []byte) (d Decision, fi FileInfo, isDir bool) {
	d.Rel = joinRel(e.dirRel, e.name)
	exclude := func(rule, source string) (Decision, FileInfo, bool) {
		d.Included, d.Rule, d.Source = false, rule, source
		return d, FileInfo{}, false
	}
	if !utf8.ValidString(e.name) {
		return exclude("name is not valid UTF-8", SourceInvalidName)
	}
	isDir = e.mode.IsDir()
	var (
		link       = e.mode&fs.ModeSymlink != 0
		target     string
		targetRel  string
		linkInside bool
		linkErr    error
	)
	if link {
		target, linkErr = realpath(e.abs)
		if linkErr == nil {
			targetRel, linkInside = w.relInside(target)
			var st fs.FileInfo
			if st, linkErr = os.Stat(target); linkErr == nil {
				isDir = st.IsDir()
			}
		}
	}
	d.Dir = isDir
	v := w.nameRules(r, d.Rel, e.name, isDir, sib)
	if v.excluded {
		return exclude(v.rule, v.source)
	}
	d.Rule, d.Source, d.named = v.rule, v.source, v.explicit
	if link {
		switch {
		case target != "" && !linkInside:
			return exclude("-> "+target, SourceSymlinkEscape)
		case linkErr != nil:
			return exclude(linkErr.Error(), SourceBrokenLink)
		default:
			return exclude("-> "+targetRel+" (visited at its real path)", SourceSymlink)
		}
	}
	if isDir {
		d.Included = true
		return d, FileInfo{}, true
	}
	if !e.mode.IsRegular() {
		return exclude(e.mode.Type().String(), SourceSpecial)
	}
	if e.unwanted != nil && e.unwanted(d.Rel) {
		return exclude("not wanted by the caller", SourceUnwanted)
	}
	info, err := e.info()
	if err != nil {
		return exclude(err.Error(), SourceUnreadable)
	}
	if info.Size() > w.maxSize {
		return exclude(w.tooLarge(info.Size()), SourceMaxSize)
	}
	fi = FileInfo{Rel: d.Rel, Abs: e.abs, Size: info.Size(), ModTime: info.ModTime().UnixNano()}
	if e.known != nil && e.known(fi.Rel, fi.Size, fi.ModTime) {
		d.Included = true
		return d, fi, false
	}
	buf, tail := head, head[:0]
	if len(head) > headSize {
		buf, tail = head[:headSize], head[headSize:]
	}
	n, err := readHead(e.abs, buf[:min(int64(len(buf)), info.Size())])
	if rule, ok := pathTooLong(e.abs, err); ok {
		return exclude(rule, SourcePathTooLong)
	}
	if err != nil {
		return exclude(err.Error(), SourceUnreadable)
	}
	if minifiable(e.name) && !v.explicit {
		m, err := readTail(e.abs, info.Size(), int64(n), tail)
		if err != nil {
			return exclude(err.Error(), SourceUnreadable)
		}
		tail = tail[:m]
	} else {
		tail = tail[:0]
	}
	if rule, source := contentRules(e.name, buf[:n], tail, v.explicit); source != "" {
		return exclude(rule, source)
	}
	fi.Shebang = shebangLine(buf[:n])
	d.Included = true
	return d, fi, false
}

// JudgeContent applies the content rules Walk applies to a file on disk
// (binary content; minified code, unless a user rule names the file) to
// content, an editor buffer of d.Rel, where d is Explain's decision on
// the path: the same text is excluded on disk and in a buffer. It returns
// the exclusion's rule and source, or "" and "".
func JudgeContent(d Decision, content []byte) (rule, source string) {
	head, tail := content, content[len(content):]
	if len(content) > headSize {
		head = content[:headSize]
		tail = content[max(headSize, len(content)-headSize):]
	}
	return contentRules(path.Base(d.Rel), head, tail, d.named)
}

// fsSiblings answers siblings from the file system.
type fsSiblings string

func (dir fsSiblings) has(name string) bool {
	_, err := os.Lstat(filepath.Join(string(dir), name))
	return err == nil
}

// listing answers siblings from a directory listing sorted by name.
type listing []fs.DirEntry

func (l listing) has(name string) bool {
	_, ok := slices.BinarySearchFunc(l, name, func(e fs.DirEntry, n string) int {
		return strings.Compare(e.Name(), n)
	})
	return ok
}

// Walk calls fn for every indexable regular file, in byte-wise lexical
// order of FileInfo.Rel. It stops at the first error fn returns and returns
// it, and returns ctx's error (wrapped) once ctx is done. Unreadable
// directories and files are skipped and reported through Config.OnSkip.
func (w *Workspace) Walk(ctx context.Context, fn func(FileInfo) error) error {
	return w.WalkKnown(ctx, Known{}, fn)
}

func (w *Workspace) report(skips []skip) {
	if w.onSkip == nil {
		return
	}
	for _, s := range skips {
		w.onSkip(s.rel, s.reason)
	}
}

// reported lists the exclusion sources Walk passes to OnSkip.
var reported = map[string]bool{
	SourceSymlinkEscape: true, SourceSymlink: true, SourceBrokenLink: true,
	SourceSpecial: true, SourceUnreadable: true, SourceInvalidName: true, SourcePathTooLong: true,
}

// compareEntries orders directory entries so that a depth-first walk emits
// paths in byte-wise lexical order: a directory sorts as its name followed
// by '/', the byte that follows it in every path below it.
func compareEntries(a, b fs.DirEntry) int {
	an, bn := a.Name(), b.Name()
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	return keyByte(an, n, a.IsDir()) - keyByte(bn, n, b.IsDir())
}

// keyByte is the sort key's byte at index n of name: the name's byte, '/'
// just past a directory's name, -1 past the end otherwise.
func keyByte(name string, n int, dir bool) int {
	switch {
	case n < len(name):
		return int(name[n])
	case n == len(name) && dir:
		return '/'
	}
	return -1
}

// Explain says whether path (absolute or relative to the root) is indexed
// and why. The path is canonicalised first, as Resolve does, so Rel may
// differ from the input (a symlink inside the root is explained at its
// target). It never fails: problems with the path are decisions too
// ("outside workspace", "symlink escapes root", "not found", "unreadable").
func (w *Workspace) Explain(path string) Decision {
	rel, err := w.Resolve(path)
	lex, inside := w.lexicalRel(path)
	if err == nil {
		d := w.decide(rel)
		if d.Source == SourceNotFound && inside && lex != rel {
			// Resolved through a dangling link: say so, as Walk does.
			if dl := w.decide(lex); !dl.Included && dl.Source != SourceNotFound {
				return dl
			}
		}
		return d
	}
	if inside && checkPathSyntax(path, isWindows) == nil {
		// The path names a location inside the root but cannot be
		// resolved inside it: judge it as Walk meets it, which stops at the
		// escaping or broken link, or at a rule that excludes it first.
		if d := w.decide(lex); !d.Included && d.Source != SourceNotFound {
			return d
		}
		source := SourceUnreadable
		if errors.Is(err, ErrOutsideWorkspace) {
			source = SourceSymlinkEscape
		}
		return Decision{Rel: lex, Rule: err.Error(), Source: source}
	}
	return Decision{Rel: path, Rule: err.Error(), Source: SourceOutside}
}

// Included reports whether Walk visits rel, a clean slash-separated path
// relative to the root, exactly as given (for a directory: whether Walk
// enters it; "." is the root). A symlink is never included itself; its
// target may be, under its own path. The error wraps ErrOutsideWorkspace for
// a path that is not clean and relative or climbs out of the root; a path
// that leaves through a symlink is simply not included.
func (w *Workspace) Included(rel string) (bool, error) {
	if err := checkRel(rel); err != nil {
		return false, err
	}
	return w.decide(rel).Included, nil
}

// decide judges the clean relative path rel by walking its segments from
// the root, judging each as Walk meets it.
func (w *Workspace) decide(rel string) Decision {
	if rel == "." || rel == "" {
		return Decision{Rel: ".", Included: true, Dir: true}
	}
	segs := strings.Split(rel, "/")
	r, _ := w.rootRules(fsSiblings(w.root))
	dirRel, dirAbs := "", w.root
	for i, name := range segs {
		last := i == len(segs)-1
		abs := filepath.Join(dirAbs, name)
		entryRel := joinRel(dirRel, name)
		fi, err := os.Lstat(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
				return w.decideMissing(r, rel, segs, i, dirAbs)
			}
			if rule, ok := pathTooLong(abs, err); ok {
				return finish(Decision{Rel: entryRel, Rule: rule, Source: SourcePathTooLong}, rel, last)
			}
			return finish(Decision{Rel: entryRel, Rule: err.Error(), Source: SourceUnreadable}, rel, last)
		}
		var head []byte
		if fi.Mode().IsRegular() {
			if !last {
				return Decision{Rel: rel, Source: SourceNotFound, Rule: entryRel + " is not a directory"}
			}
			head = newContentBuf()
		}
		e := entry{dirRel: dirRel, name: name, abs: abs, mode: fi.Mode().Type(), info: func() (fs.FileInfo, error) { return fi, nil }}
		d, _, isDir := w.judge(r, e, fsSiblings(dirAbs), head)
		if !d.Included || last {
			return finish(d, rel, last)
		}
		if !isDir {
			return Decision{Rel: rel, Source: SourceNotFound, Rule: entryRel + " is not a directory"}
		}
		if err := listable(abs); err != nil {
			return finish(Decision{Rel: entryRel, Rule: err.Error(), Source: SourceUnreadable, Dir: true}, rel, false)
		}
		r, _ = w.withDir(r, entryRel, abs, fsSiblings(abs))
		dirRel, dirAbs = entryRel, abs
	}
	return Decision{Rel: rel, Source: SourceNotFound}
}

// finish turns the decision about an ancestor into one about rel.
func finish(d Decision, rel string, last bool) Decision {
	if last {
		return d
	}
	d.Ancestor = d.Rel
	d.Rel = rel
	d.Dir = false
	return d
}

// decideMissing judges a path whose segments from i on do not exist: the
// name rules still say whether it would be excluded.
func (w *Workspace) decideMissing(r rules, rel string, segs []string, i int, dirAbs string) Decision {
	dirRel := strings.Join(segs[:i], "/")
	for ; i < len(segs); i++ {
		last := i == len(segs)-1
		entryRel := joinRel(dirRel, segs[i])
		if !utf8.ValidString(segs[i]) {
			return finish(Decision{Rel: entryRel, Rule: "name is not valid UTF-8", Source: SourceInvalidName}, rel, last)
		}
		if v := w.nameRules(r, entryRel, segs[i], !last, fsSiblings(dirAbs)); v.excluded {
			return finish(Decision{Rel: entryRel, Rule: v.rule, Source: v.source, Dir: !last}, rel, last)
		}
		dirRel, dirAbs = entryRel, filepath.Join(dirAbs, segs[i])
	}
	return Decision{Rel: rel, Source: SourceNotFound}
}

// MaxFileSize is the size above which files are not indexed: the
// configured maxFileSize, at most HardMaxFileSize.
func (w *Workspace) MaxFileSize() int64 { return w.maxSize }

// tooLarge explains why a file of size bytes is excluded.
func (w *Workspace) tooLarge(size int64) string {
	if w.maxSize == HardMaxFileSize {
		return fmt.Sprintf("size %d > %d, the hard limit (maxFileSize cannot raise it)", size, w.maxSize)
	}
	return fmt.Sprintf("size %d > %d", size, w.maxSize)
}

// ReadFile reads the file rel (relative to the root) without following any
// symlink out of the root, even one swapped in after the path was checked.
// Files larger than Config.MaxFileSize are refused.
func (w *Workspace) ReadFile(rel string) ([]byte, error) {
	if err := checkRel(rel); err != nil {
		return nil, err
	}
	f, err := os.OpenInRoot(w.root, filepath.FromSlash(rel))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", rel)
	}
	if fi.Size() > w.maxSize {
		return nil, fmt.Errorf("read %s: size %d: %w (%d bytes)", rel, fi.Size(), ErrTooLarge, w.maxSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, w.maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if int64(len(data)) > w.maxSize {
		return nil, fmt.Errorf("read %s: grew: %w (%d bytes)", rel, ErrTooLarge, w.maxSize)
	}
	return data, nil
}
