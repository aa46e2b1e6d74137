package engine

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/context-ls/context-ls/querytext"
	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/symbols"
)

// pathClass is what a file is for, as its path tells: ranking weighs code
// above the tests, docs, examples and vendored copies that mirror it.
type pathClass uint8

const (
	classCode     pathClass = iota
	classInternal           // code of internal packages (Go's internal/ directories)
	classTest
	classTestdata // test fixtures and golden files
	classDocs     // prose: Markdown, reStructuredText, text, and anything under docs/
	classChangelog
	classExample
	classVendor // third-party code copied into the tree
	classConfig // CI, build and packaging files (YAML, JSON, TOML, Makefiles, setup scripts)
	numClasses
)

// classPriors scale a hit's score by its file's class, for a question
// (short) and for issue-like text (long). A question in plain words is
// about the code: tests, fixtures, docs, examples, vendored copies and
// release notes rank below what they mirror or describe.
// A question is about what a library offers, so the code of internal
// packages ranks a little below the public API over it (crypto/hmac before
// crypto/internal/fips140/hmac).
// A bug report or a change description is about the code to change: it
// reads like the tests that pin the behaviour down and the docs and
// changelog that describe it, word for word, so those rank lower still.
// Every class still ranks when nothing else matches, and a query that asks
// for a class (queryPriors) lifts it to 1.
var classPriors = struct{ short, long [numClasses]float64 }{
	short: [numClasses]float64{
		classCode:      1,
		classInternal:  0.8,
		classTest:      0.5,
		classTestdata:  0.3,
		classDocs:      0.5,
		classChangelog: 0.3,
		classExample:   0.5,
		classVendor:    0.3,
		classConfig:    1,
	},
	long: [numClasses]float64{
		classCode:      1,
		classInternal:  1,
		classTest:      0.3,
		classTestdata:  0.3,
		classDocs:      0.5,
		classChangelog: 0.2,
		classExample:   0.5,
		classVendor:    0.3,
		classConfig:    0.5,
	},
}

// classOf classifies a workspace-relative path.
func classOf(p string) pathClass {
	base := path.Base(p)
	lower := strings.ToLower(base)
	dirs := strings.Split(strings.ToLower(path.Dir(p)), "/")
	hasDir := func(names ...string) bool {
		for _, d := range dirs {
			for _, n := range names {
				if d == n {
					return true
				}
			}
		}
		return false
	}
	switch {
	case hasDir("vendor", "third_party", "thirdparty", "_vendor", "vendored", "node_modules"):
		return classVendor
	case strings.HasSuffix(lower, ".py") && slices.Contains(dirs[min(1, len(dirs)):], "packages"):
		// A package's packages/ subpackage holds copies of its
		// dependencies (requests/packages/urllib3); a top-level packages/
		// is a monorepo's own.
		return classVendor
	case isTestdataPath(p) || hasDir("fixtures", "__snapshots__", "golden"):
		return classTestdata
	case isTestPath(p):
		return classTest
	case isChangelog(lower):
		return classChangelog
	case hasDir("examples", "example", "_examples", "samples", "demo", "demos"):
		return classExample
	case hasDir("docs", "doc", "documentation") && !strings.HasSuffix(lower, ".go"):
		// Go keeps package doc.go files in code directories; a docs/ tree
		// of Go code is its site generator: docs all the same.
		return classDocs
	}
	lang := symbols.ForPath(p)
	switch {
	case lang == nil:
		return classConfig
	case lang.Name == "markdown" || lang.Name == "text" && isProseFile(lower):
		return classDocs
	case lang.Name == "yaml" || lang.Name == "json" || lang.Name == "toml" || lang.Name == "text" ||
		lower == "setup.py" || lower == "ez_setup.py" || strings.HasPrefix(p, ".github/"):
		return classConfig
	}
	if hasDir("internal") {
		return classInternal
	}
	return classCode
}

// isCode reports the classes of code proper (public or internal).
func isCode(c pathClass) bool { return c == classCode || c == classInternal }

// isChangelog reports release-note files: CHANGES.rst, CHANGELOG.md,
// HISTORY, NEWS.txt, RELEASE-NOTES.md.
func isChangelog(lowerBase string) bool {
	stem := strings.TrimSuffix(lowerBase, path.Ext(lowerBase))
	switch stem {
	case "changes", "changelog", "history", "news", "release-notes", "release_notes", "releasenotes", "whatsnew":
		return true
	}
	return false
}

// isProseFile reports text files that are prose (README, .rst, .txt) rather
// than build files (Makefile, Dockerfile) or licences.
func isProseFile(lowerBase string) bool {
	switch path.Ext(lowerBase) {
	case ".rst", ".txt", ".text", ".adoc", ".asciidoc", ".org":
		return true
	}
	return strings.HasPrefix(lowerBase, "readme")
}

// pathPrior weighs a definition by where it lives, for orderings that have
// no query (definitions of a name).
func pathPrior(p string) float64 { return classPriors.short[classOf(p)] }

func isTestdataPath(p string) bool {
	return strings.HasPrefix(p, "testdata/") || strings.Contains(p, "/testdata/")
}

// isTestPath reports paths that hold tests by the common conventions: its
// language's test-file names (symbols.Language.IsTestFile), x.test.* and
// x.spec.* in any language, and the usual test directories.
func isTestPath(p string) bool {
	base := path.Base(p)
	if strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || symbols.ForPath(p).IsTestFile(base) {
		return true
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "test" || seg == "tests" || seg == "__tests__" || seg == "spec" || seg == "testsuite" {
			return true
		}
	}
	return false
}

// classWords are the words by which a short query asks for a class of file
// ("tests of the parser", "docs on configuration"). Long texts are not read
// for them: a bug report mentions tests and docs in passing.
var classWords = map[string]pathClass{
	"test": classTest, "tests": classTest, "testing": classTest, "unittest": classTest,
	"fixture": classTestdata, "fixtures": classTestdata, "testdata": classTestdata, "golden": classTestdata,
	"doc": classDocs, "docs": classDocs, "documentation": classDocs, "readme": classDocs, "tutorial": classDocs, "guide": classDocs,
	"changelog": classChangelog, "changes": classChangelog,
	"example": classExample, "examples": classExample, "demo": classExample, "sample": classExample,
	"vendor": classVendor, "vendored": classVendor,
	"ci": classConfig, "workflow": classConfig, "makefile": classConfig, "dockerfile": classConfig, "config": classConfig,
}

// queryPriors returns the class priors for one query: a class the query
// asks for — by name in a short query ("tests for the parser": the tests
// come first, the code they test next), or by naming one of its files —
// ranks like code.
func queryPriors(q string, ev querytext.Evidence) [numClasses]float64 {
	pr := classPriors.short
	if ev.Long {
		pr = classPriors.long
	} else {
		asked := false
		// Words of the query, identifiers and compounds whole:
		// test_client, docs.url or a doc-string asks for no class.
		for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-')
		}) {
			if c, ok := classWords[strings.Trim(w, ".")]; ok {
				pr[c] = 1
				asked = true
			}
		}
		if asked {
			pr[classCode] *= askedCodePrior
			pr[classInternal] *= askedCodePrior
		}
	}
	for _, p := range ev.Paths {
		if p.Frame < 0 {
			pr[classOf(p.Path)] = 1
		}
	}
	return pr
}

// askedCodePrior is the prior of code when a query asks for another class
// of file by name.
const askedCodePrior = 0.5

// Embedded prose: a chunk of code that is mostly English held in string
// literals — a licence a project generator writes out, a help page, a
// message catalogue — reads like the documentation it is, and a text
// written in the same English (a change description, a question) matches
// it word for word, often better than the code it is about. Such a chunk's
// text match is scaled by the docs prior (qc.embeddedProse, addText).
//
// A chunk is cut by lines and may start or end inside a literal, so it is
// not parsed: it is read as words, comment lines left out, and called prose
// when English function words ("the", "of", "to", …) are a large share of
// them. Code has few (keywords and identifiers: "if err != nil" has one in
// four at most), and so does code held in literals (a shell script, a
// template of generated code); English prose has 40–50 %. A language
// documenting code in literals (symbols.Language.DocStrings: Python's
// docstrings) is left out: a chunk cut inside one cannot tell it from a
// literal.
const (
	proseStopShare = 0.35 // share of the words that are English function words, at least
	proseMinWords  = 40   // words outside comment lines, at least
	proseDepth     = 40   // chunks of a text leg checked, best first
)

// literalsJudged reports whether isEmbeddedProse can judge the string
// literals of language lang: a known language that does not document its
// code in them.
func literalsJudged(lang string) bool {
	l := symbols.ByName(lang)
	return l != nil && !l.DocStrings
}

// isEmbeddedProse reports whether a chunk of code in language lang is
// mostly English outside its comments (see proseStopShare).
func isEmbeddedProse(text, lang string) bool {
	if !literalsJudged(lang) {
		return false
	}
	words, stops := 0, 0
	var w [16]byte // a word's first letters, lower-cased: stop words are short
	n := 0
	flush := func() {
		if n > 0 {
			words++
			if n <= len(w) && search.IsStopWord(string(w[:n])) {
				stops++
			}
		}
		n = 0
	}
	lineStart := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		if lineStart {
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			rest := text[j:]
			if strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "#") ||
				strings.HasPrefix(rest, "/*") || strings.HasPrefix(rest, "*") {
				k := strings.IndexByte(rest, '\n')
				if k < 0 {
					break
				}
				i = j + k // the newline: the next line starts
				continue
			}
			lineStart = false
		}
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			if n < len(w) {
				w[n] = c | 0x20
			}
			n++
		default:
			flush()
			lineStart = c == '\n'
		}
	}
	flush()
	return words >= proseMinWords && float64(stops) >= proseStopShare*float64(words)
}

// proseCache remembers isEmbeddedProse by chunk id across queries and
// engines: an id is derived from a chunk's path and text (store.NewChunkID),
// so an answer never goes stale. Reading a chunk's text is most of the
// check's cost (about a tenth of a question's CPU time on the Go standard
// library when every query paid it). Emptied when it holds proseCacheMax
// answers.
var proseCache proseMemo

const proseCacheMax = 1 << 16

type proseMemo struct {
	mu sync.Mutex
	m  map[store.ChunkID]bool
}

func (p *proseMemo) get(id store.ChunkID) (v, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok = p.m[id]
	return v, ok
}

func (p *proseMemo) put(id store.ChunkID, v bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil || len(p.m) >= proseCacheMax {
		p.m = make(map[store.ChunkID]bool)
	}
	p.m[id] = v
}
