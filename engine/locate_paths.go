package engine

// The evidence of files the text names: by path, stack frame or module
// (path), by the words of their base names (filename, spelled), and the
// tests of the files of code found (tested). See locate.go for how the
// legs add up.

import (
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/context-ls/context-ls/querytext"
	"github.com/context-ls/context-ls/search"
)

// testsOfCodeShare: when a query asks for tests, the tests of a file of
// code (by naming convention) gain this share of the file's score.
const testsOfCodeShare = 0.8

// addTestsOfCode credits the test files of the best files of code, found
// by the languages' naming conventions (x_test.go, test_x.py, tests/test_x.py,
// x.test.ts, x.spec.js): "tests for the rate limiter" wants the tests of the
// code the rest of the query finds, not tests that share its words.
func (l *locator) addTestsOfCode() error {
	if err := l.loadPaths(); err != nil {
		return err
	}
	indexed := make(map[string]bool, len(l.paths))
	for _, p := range l.paths {
		indexed[p] = true
	}
	var code []*fileEv
	for _, f := range l.files {
		if isCode(classOf(f.path)) && f.score > 0 {
			code = append(code, f)
		}
	}
	for _, f := range code {
		dir, base := path.Dir(f.path), path.Base(f.path)
		ext := path.Ext(base)
		stem := strings.TrimSuffix(base, ext)
		for _, t := range []string{
			stem + "_test" + ext, "test_" + base, "tests/test_" + base, "test/test_" + base,
			stem + ".test" + ext, stem + ".spec" + ext, "__tests__/" + stem + ".test" + ext,
		} {
			for _, cand := range []string{path.Join(dir, t), t} {
				if indexed[cand] && matchPaths(l.req.Paths, cand) {
					tf := l.file(cand)
					tf.add("tested", testsOfCodeShare*f.score/f.prior*tf.prior)
				}
			}
		}
	}
	return nil
}

// loadPaths reads every indexed path once per query.
func (l *locator) loadPaths() error {
	if l.paths != nil {
		return nil
	}
	l.paths = []string{}
	return l.qc.s.e.text.Paths(func(p string) bool {
		l.paths = append(l.paths, p)
		return true
	})
}

// nameTerms returns the search terms of text and the terms of each two
// adjacent words written as one ("bash completion" → bashcomplet, the
// stem of a _bashcomplete.py).
func nameTerms(text string) map[string]bool {
	ts := termSet(text)
	var prev string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	}) {
		if search.IsStopWord(w) {
			prev = ""
			continue
		}
		if prev != "" {
			for _, t := range search.NameParts(prev + w) {
				ts[t] = true
			}
		}
		prev = w
	}
	return ts
}

// addFileNames credits candidate files whose name the text spells: the
// words of a file's base name (and, at half weight, of its directory) that
// the query uses, each weighted by how few candidates share it (idf among
// the candidates) and by where the query uses it (title 1, body 0.5), a
// word whose stem only begins a word of the query at half that
// (namePrefixShare), normalised to 1 for the best-named file.
func (l *locator) addFileNames(ev querytext.Evidence, q string) {
	qw := map[string]float64{}
	body := ev.Prose
	if !ev.Long {
		body = q
	}
	for t := range nameTerms(body) {
		qw[t] = 0.5
	}
	for t := range nameTerms(ev.Title) {
		qw[t] = 1
	}
	if !ev.Long {
		for t := range qw {
			qw[t] = 1
		}
	}
	type named struct {
		f     *fileEv
		parts map[string]float64
		cut   map[string]bool // parts the stemmer shortened (serving → serv)
	}
	var cands []named
	nf := map[string]int{}
	for p, f := range l.files {
		c := named{f, map[string]float64{}, map[string]bool{}}
		add := func(name string, w float64) {
			for _, t := range search.NameParts(name) {
				c.parts[t] = w
			}
			for _, raw := range rawWords(name) {
				for _, t := range search.NameParts(raw) {
					if len(t) < len(raw) && strings.HasPrefix(raw, t) {
						c.cut[t] = true
					}
				}
			}
		}
		add(path.Base(path.Dir(p)), 0.5)
		base := path.Base(p)
		add(strings.TrimSuffix(base, path.Ext(base)), 1)
		for t := range c.parts {
			nf[t]++
		}
		cands = append(cands, c)
	}
	n := float64(len(cands))
	scores := make([]float64, len(cands))
	top := 0.0
	for i, c := range cands {
		for t, pw := range c.parts {
			if w := qw[t]; w > 0 {
				scores[i] += w * pw * math.Log(1+n/float64(nf[t]))
			} else if w := prefixWeight(qw, t); w > 0 && c.cut[t] {
				scores[i] += namePrefixShare * w * pw * math.Log(1+n/float64(nf[t]))
			}
		}
		top = max(top, scores[i])
	}
	if top > 0 {
		for i, c := range cands {
			if scores[i] > 0 {
				c.f.add("filename", locWeights.filename*scores[i]/top*c.f.prior)
			}
		}
	}
	if !ev.Long {
		return // a question's words are few: its file names are the filename part's
	}
	title, rest := spelledKeys(ev.Title), spelledKeys(body)
	for _, c := range cands {
		base := path.Base(c.f.path)
		stem := strings.TrimSuffix(base, path.Ext(base))
		switch {
		case spells(title, stem):
			c.f.add("spelled", locWeights.spelled*c.f.prior)
		case spells(rest, stem):
			c.f.add("spelled", locWeights.spelled*spelledBodyShare*c.f.prior)
		}
	}
}

// namePrefixShare: a word of a file's name whose stem, shortened by the
// stemmer, begins a word of the query — the two share a root, as
// serving.py's serv and "server" — counts this share of a word the query
// uses. A word the stemmer kept whole is not a root: form.ts is not named
// by "formula".
const namePrefixShare = 0.5

// prefixWeight returns the weight (qw) of the query word that a file-name
// word t of four letters or more begins, the greatest if several do, or 0.
func prefixWeight(qw map[string]float64, t string) float64 {
	if len(t) < 4 {
		return 0
	}
	best := 0.0
	for q, w := range qw {
		if len(q) > len(t) && strings.HasPrefix(q, t) {
			best = max(best, w)
		}
	}
	return best
}

// spelledBodyShare: a file name spelled by the body of a text, rather than
// by its title, gains this share of the spelled weight.
const spelledBodyShare = 0.75

// spells reports whether the keys of a text (spelledKeys) spell a file's
// base name: a name of one word by two or three adjacent words, a name of
// several words by one word or by adjacent words in any order, or two or
// more adjacent words of a longer name by one compound word
// ("stringslice" → flag_string_slice).
func spells(keys map[string]int, stem string) bool {
	raw := rawWords(stem)
	if len(raw) == 0 {
		return false
	}
	n := keys[joinKey(raw)]
	if n >= 2 || n == 1 && len(raw) >= 2 {
		return true
	}
	if len(raw) < 2 {
		return false
	}
	var parts []string
	for _, w := range raw {
		parts = append(parts, search.NameParts(w)...)
	}
	if keys[multiKey(parts)] > 0 {
		return true
	}
	for i := range raw {
		for j := i + 2; j <= len(raw) && j-i < len(raw); j++ {
			if keys[joinKey(raw[i:j])+"\x01"] > 0 {
				return true
			}
		}
	}
	return false
}

// spelledKeys returns the file-name keys that runs of one to three adjacent
// words of text spell, each with the run's length: the run's words joined
// and stemmed as one ("ID tracking" → idtrack, as idtracking.py's key;
// "bash completion" → bashcomplet, as _bashcomplete.py's), one word also
// marked as a compound, and for a run of several words its stemmed words
// sorted (multiKey), so that "string slice flag" spells
// flag_string_slice.go.
func spelledKeys(text string) map[string]int {
	keys := map[string]int{}
	ws := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for i := range ws {
		var run, parts []string
		for n := 1; n <= 3 && i+n <= len(ws); n++ {
			w := ws[i+n-1]
			wp := search.NameParts(w)
			if search.IsStopWord(w) || len(wp) == 0 {
				break // a stop word, a letter ("command's" → command, s), a number
			}
			run = append(run, w)
			parts = append(parts, wp...)
			key := joinKey(run)
			keys[key] = max(keys[key], n)
			if n == 1 {
				keys[key+"\x01"] = 1
			}
			if len(parts) >= 2 {
				keys[multiKey(parts)] = max(keys[multiKey(parts)], n)
			}
		}
	}
	return keys
}

// rawWords splits a file's base name into its lower-case words (on _, -,
// . and camelCase), leaving out one-letter words and stop words.
func rawWords(stem string) []string {
	var out []string
	for _, w := range nameWords(stem) {
		if len(w) >= 2 && !search.IsStopWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// joinKey is the key of words written as one: joined, then stemmed as one
// word.
func joinKey(ws []string) string {
	return strings.Join(search.NameParts(strings.Join(ws, "")), "")
}

// multiKey is the order-free key of several words.
func multiKey(parts []string) string {
	s := append([]string(nil), parts...)
	sort.Strings(s)
	return "\x00" + strings.Join(s, " ")
}

// addPaths credits the files the text names by path (a path, a stack
// frame: inner frames more) or by module (jinja2.runtime).
func (l *locator) addPaths(ev querytext.Evidence) error {
	type want struct {
		path   string // slash-separated, without extension for modules
		module int    // a dotted name: the name's index, so only its longest module counts
		weight float64
		line   int
		frame  bool   // a stack frame's: its line is in the definition that ran
		fn     string // the frame's function, when the frame gives it
		cls    string // the frame's class, when its name gives one
	}
	var ws []want
	depth, err := l.frameDepths(ev.Paths)
	if err != nil {
		return err
	}
	for i, p := range ev.Paths {
		w := 1.0
		if p.Frame >= 0 {
			w = frameWeight(depth[i])
		}
		cls, fn := splitQualified(p.Func)
		ws = append(ws, want{path: p.Path, module: -1, weight: w, line: p.Line, frame: p.Frame >= 0, fn: fn, cls: cls})
	}
	for ni, n := range ev.Names {
		if parts := strings.Split(n.Text, "."); len(parts) >= 2 && !strings.Contains(n.Text, "::") {
			// the longest prefix that is a module: a.b.C.m → a/b/C/m, a/b/C, a/b
			for i := len(parts); i >= 2; i-- {
				ws = append(ws, want{path: strings.Join(parts[:i], "/"), module: ni, weight: n.Weight})
			}
		}
	}
	if len(ws) == 0 {
		return nil
	}
	if err := l.loadPaths(); err != nil {
		return err
	}
	moduleFound := map[int]bool{}
	for _, w := range ws {
		var hits []string
		if w.module >= 0 {
			if moduleFound[w.module] {
				continue // a shorter prefix of a name whose module was found
			}
			hits = modulesNamed(l.paths, w.path)
			moduleFound[w.module] = len(hits) > 0
		} else if w.frame {
			hits = l.frameFile(w.path).files
		} else {
			hits = filesNamed(l.paths, w.path)
		}
		if len(hits) == 0 || !matchPaths(l.req.Paths, hits[0]) {
			continue
		}
		spec := 1 / float64(len(hits))
		for _, p := range hits {
			f := l.file(p)
			v := locWeights.path * w.weight * spec * f.prior
			f.add("path", v)
			if id := l.chunkAtLine(p, w.line); id != "" {
				f.chunks[id] += v
			}
			if w.frame && w.line > 0 {
				// The definition holding the frame's line is named by it,
				// whatever its function is called ("in __init__") — or,
				// when the frame names a function and the line lies
				// elsewhere (the trace is of another version), the
				// definition of that name nearest to it (fileDefs.frameUnit).
				f.named = append(f.named, namedLine{line: w.line, sure: w.weight * spec * f.prior, frame: true, fn: w.fn, cls: w.cls})
			} else if w.line > 0 {
				// A line the text points at ("core.py:2150", a link to
				// it) names the definition holding it.
				f.named = append(f.named, namedLine{line: w.line, sure: w.weight * spec * f.prior})
			}
		}
	}
	return nil
}

// frameDepths returns each path's depth as a stack frame (-1: not a
// frame) counting the workspace's frames only (ownFrame): the runtime's,
// the standard library's and the libraries' frames printed inside them (Go's
// runtime.gopanic, Rust's panic machinery, a library's validation) do not
// push the workspace's innermost frame down. A traceback's frames are
// consecutive in paths.
func (l *locator) frameDepths(paths []querytext.Path) ([]int, error) {
	depth := make([]int, len(paths))
	for i := range depth {
		depth[i] = -1
	}
	if !slices.ContainsFunc(paths, func(p querytext.Path) bool { return p.Frame >= 0 }) {
		return depth, nil
	}
	if err := l.loadPaths(); err != nil {
		return nil, err
	}
	for i := 0; i < len(paths); {
		if paths[i].Frame < 0 {
			i++
			continue
		}
		j := i
		for j < len(paths) && paths[j].Frame >= 0 {
			j++
		}
		run := make([]int, 0, j-i) // the run's frames, innermost first
		for k := i; k < j; k++ {
			run = append(run, k)
		}
		sort.SliceStable(run, func(a, b int) bool { return paths[run[a]].Frame < paths[run[b]].Frame })
		n := 0
		for _, k := range run {
			depth[k] = n
			if l.ownFrame(paths[k].Path) {
				n++
			}
		}
		i = j
	}
	return depth, nil
}

// scriptFrame reports a Python frame's bare file name ("app.py"): a path
// relative to where the program ran — the user's own script —, not a
// module of this workspace's that has the same name (src/flask/app.py).
// Other languages' frames name bare files as a rule (Java's Bar.java).
func scriptFrame(p string) bool {
	return !strings.ContainsAny(p, `/\`) && strings.HasSuffix(p, ".py")
}

// ownNames drops the names the text gives only as the functions of stack
// frames of files outside the workspace (ownFrame): the user's program
// (main.main of /home/me/app/main.go), a library the code calls
// (site-packages/requests/adapters.py) — their functions are not the
// workspace's, however they are called.
func (l *locator) ownNames(names []querytext.Name) ([]querytext.Name, error) {
	if !slices.ContainsFunc(names, func(n querytext.Name) bool { return len(n.Frames) > 0 }) {
		return names, nil
	}
	if err := l.loadPaths(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(names), func(n querytext.Name) bool {
		return len(n.Frames) > 0 && !slices.ContainsFunc(n.Frames, l.ownFrame)
	}), nil
}

// frameFile is what the file of a stack frame is in the workspace.
type frameFile struct {
	// files are the indexed files it names (filesNamed; a Python
	// script's bare name only at the root, scriptFrame).
	files []string
	// own reports the workspace's: it names one of its files, or it lies
	// in a folder of the workspace (the last two folders of its path
	// agree) — a file renamed or moved since the trace was taken.
	own bool
}

// frameFile returns what the file p of a stack frame is, once per file of
// a query. The paths must be loaded.
func (l *locator) frameFile(p string) frameFile {
	if ff, ok := l.frameFiles[p]; ok {
		return ff
	}
	ff := frameFile{files: filesNamed(l.paths, p)}
	if scriptFrame(p) {
		ff.files = slices.DeleteFunc(ff.files, func(f string) bool { return strings.Contains(f, "/") })
	}
	ff.own = len(ff.files) > 0
	if dirs := strings.Split(path.Dir(strings.TrimPrefix(path.Clean("/"+p), "/")), "/"); !ff.own && dirs[0] != "." {
		dir := strings.Join(dirs[max(0, len(dirs)-2):], "/") + "/"
		ff.own = slices.ContainsFunc(l.paths, func(f string) bool {
			return strings.HasPrefix(f, dir) || strings.Contains(f, "/"+dir)
		})
	}
	if l.frameFiles == nil {
		l.frameFiles = map[string]frameFile{}
	}
	l.frameFiles[p] = ff
	return ff
}

// ownFrame reports whether the file p of a stack frame is the workspace's
// (frameFile.own).
func (l *locator) ownFrame(p string) bool { return l.frameFile(p).own }

// frameWeight weighs a stack frame's file by its depth from the innermost.
func frameWeight(depth int) float64 { return max(0.3, 1-0.2*float64(depth)) }

// filesNamed returns the indexed files a path of the text names: the files
// sharing its longest trailing run of path components (two at least, or the
// whole indexed path: "site-packages/jinja2/environment.py" names
// "src/jinja2/environment.py"; "core.py" names every core.py).
func filesNamed(paths []string, p string) []string {
	p = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(p, `\`, "/")), "/")
	want := strings.Split(p, "/")
	best, bestN := []string(nil), 0
	for _, f := range paths {
		if path.Base(f) != want[len(want)-1] {
			continue
		}
		have := strings.Split(f, "/")
		n := 0
		for n < len(have) && n < len(want) && have[len(have)-1-n] == want[len(want)-1-n] {
			n++
		}
		if n < 2 && n < len(have) && len(want) > 1 {
			continue // only the base name agrees, and the text gave directories
		}
		switch {
		case n > bestN:
			best, bestN = []string{f}, n
		case n == bestN:
			best = append(best, f)
		}
	}
	return best
}

// modulesNamed returns the files that are the module mod ("jinja2/runtime":
// jinja2/runtime.py, src/jinja2/runtime.py, jinja2/runtime/__init__.py).
func modulesNamed(paths []string, mod string) []string {
	var out []string
	for _, f := range paths {
		stem := strings.TrimSuffix(f, path.Ext(f))
		stem = strings.TrimSuffix(stem, "/__init__")
		if stem == mod || strings.HasSuffix(stem, "/"+mod) {
			out = append(out, f)
		}
	}
	return out
}

// chunkAtLine returns the id of the chunk of p holding 1-based line, or "".
func (l *locator) chunkAtLine(p string, line int) string {
	if line <= 0 {
		return ""
	}
	rec, err := l.qc.s.st.File(p)
	if err != nil {
		return ""
	}
	for _, id := range rec.Chunks {
		c, ok := l.qc.chunk(id.String())
		if ok && c.StartLine <= line && line <= c.EndLine {
			return id.String()
		}
	}
	return ""
}
