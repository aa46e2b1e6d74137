package engine

import (
	"fmt"
	"path"
	"strings"
)

// matchPaths reports whether rel passes the include/exclude globs: it must
// match at least one include glob (if any) and no "!" exclude glob.
func matchPaths(globs []string, rel string) bool {
	included, hasInclude := false, false
	for _, g := range globs {
		if strings.HasPrefix(g, "!") {
			if matchGlob(g[1:], rel) {
				return false
			}
			continue
		}
		hasInclude = true
		if matchGlob(g, rel) {
			included = true
		}
	}
	return included || !hasInclude
}

// matchGlob matches a slash-separated path against a glob: "*", "?" and
// "[...]" within a segment, "**" across any number of segments. A glob
// without "/" matches the base name at any depth ("*.md"); a trailing "/"
// matches everything below a directory ("docs/").
func matchGlob(glob, rel string) bool {
	glob = strings.TrimPrefix(glob, "./")
	if strings.HasSuffix(glob, "/") {
		glob += "**"
	}
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(rel))
		return ok
	}
	return matchSegments(strings.Split(strings.TrimPrefix(glob, "/"), "/"), strings.Split(rel, "/"))
}

func matchSegments(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			if len(g) == 1 {
				return true
			}
			for i := 0; i <= len(p); i++ {
				if matchSegments(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}

// validGlobs reports the first malformed glob.
func validGlobs(globs []string) error {
	for _, g := range globs {
		for _, seg := range strings.Split(strings.TrimPrefix(g, "!"), "/") {
			if seg == "**" {
				continue
			}
			if _, err := path.Match(seg, ""); err != nil {
				return fmt.Errorf("path filter %q: %w", g, err)
			}
		}
	}
	return nil
}
