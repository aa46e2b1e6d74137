package packs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"sort"
	"strings"
)

// DefaultCoChangeCommits is the history depth CoChanged reads when asked
// for zero commits.
const DefaultCoChangeCommits = 300

// maxCoChangeCommits bounds the history depth, and so git's output.
const maxCoChangeCommits = 20000

// maxCommitFiles: commits touching more files than this (mass renames,
// formatting sweeps, vendoring) say nothing about which files belong
// together and are ignored.
const maxCommitFiles = 50

// CoChanged returns the files that changed together with path in the last
// commits commits of the git repository holding root (merges excluded),
// most often co-changed first, ties broken by the most recent co-change and
// then by name. Paths are slash-separated and relative to root, like path;
// files outside root are not reported. Commits touching more than 50 files
// are ignored. When root is not in a git work tree, the repository has no
// commits, or git is not installed, the result is empty and the error nil.
// commits ≤ 0 means DefaultCoChangeCommits.
func CoChanged(ctx context.Context, root, file string, commits int) ([]string, error) {
	if commits <= 0 {
		commits = DefaultCoChangeCommits
	}
	if commits > maxCoChangeCommits {
		commits = maxCoChangeCommits
	}
	file = path.Clean(strings.ReplaceAll(file, "\\", "/"))
	if file == "." || file == "" || strings.HasPrefix(file, "../") || path.IsAbs(file) {
		return nil, fmt.Errorf("co-change of %q: not a path relative to the workspace root", file)
	}
	cmd := exec.CommandContext(ctx, "git", "-C", root, "log", "-n", fmt.Sprint(commits),
		"--no-merges", "--no-renames", "--relative", "--name-only", "-z", "--format=%x1e%H")
	cmd.Env = gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("git log in %s: %w", root, ctxErr)
		}
		msg := stderr.String()
		if strings.Contains(msg, "not a git repository") || strings.Contains(msg, "does not have any commits") ||
			strings.Contains(msg, "bad default revision") {
			return nil, nil
		}
		return nil, fmt.Errorf("git log in %s: %w: %s", root, err, strings.TrimSpace(msg))
	}
	return rankCoChanges(out, file), nil
}

// gitEnv is the environment for git: the caller's, in the C locale (the
// error messages above are matched in English) and without variables that
// would point git at another repository.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "LC_ALL", "LANG", "LANGUAGE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C")
}

// rankCoChanges parses the output of git log -z --name-only
// --format=%x1e%H and ranks the files that share commits with file.
func rankCoChanges(out []byte, file string) []string {
	type stat struct {
		count  int
		recent int // index of the most recent shared commit
	}
	stats := map[string]*stat{}
	for i, rec := range bytes.Split(out, []byte{0x1e}) {
		fields := bytes.Split(rec, []byte{0})
		if len(fields) < 2 {
			continue
		}
		var files []string
		touches := false
		for _, f := range fields[1:] {
			name := strings.TrimLeft(string(f), "\n")
			if name == "" {
				continue
			}
			files = append(files, name)
			if name == file {
				touches = true
			}
		}
		if !touches || len(files) > maxCommitFiles {
			continue
		}
		for _, f := range files {
			if f == file {
				continue
			}
			s := stats[f]
			if s == nil {
				s = &stat{recent: i}
				stats[f] = s
			}
			s.count++
		}
	}
	ranked := make([]string, 0, len(stats))
	for f := range stats {
		ranked = append(ranked, f)
	}
	sort.Slice(ranked, func(i, j int) bool {
		a, b := stats[ranked[i]], stats[ranked[j]]
		if a.count != b.count {
			return a.count > b.count
		}
		if a.recent != b.recent {
			return a.recent < b.recent
		}
		return ranked[i] < ranked[j]
	})
	return ranked
}
