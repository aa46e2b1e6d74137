// Package querytext reads a search query — a few words or a pasted bug report,
// commit message or task description — as weighted evidence for ranking:
// the prose, split into a title and a body; names of code (identifiers,
// qualified names such as module.Class.method, exception classes) with how
// sure the text is that each one is code; file paths and stack frames; and
// quoted messages and command-line options, which are matched verbatim
// against the code's string literals.
//
// Blocks of a long text (fenced or not) are classified before they are read:
// code (a reproduction script, a diff) gives names; a traceback or a stack
// dump gives frames, the exception's class and its message; a log gives its
// messages; pasted output (dependency lists, environment dumps, test
// summaries) gives nothing but what looks like a name of code. Nothing is
// dropped unread, and no block's words reach the prose: a report with a
// hundred lines of `pip freeze` is ranked by its sentences and its names, not
// by the package list.
//
// The package knows no index: package engine turns the evidence into ranked
// lists (see ARCHITECTURE.md, "Search").
package querytext

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Evidence is what a query says, sorted by kind.
type Evidence struct {
	// Title is the first line of a text of several lines (a commit subject,
	// an issue title), else "".
	Title string
	// Prose is the running text, title included, without the blocks; inline
	// code spans keep their words here too (they are part of the sentence).
	Prose string
	// Code holds the identifier words of the code blocks and tracebacks,
	// space-separated (the "vocabulary" of a reproduction, for BM25).
	Code string
	// Names are the definitions the text names, best evidence first.
	Names []Name
	// Paths are the files the text names (paths, stack frames).
	Paths []Path
	// Literals are quoted messages and options to find verbatim in the code.
	Literals []string
	// Messages are what the program printed when it failed — an exception's
	// or a panic's message (a traceback's last line, or one pasted alone) —
	// to find verbatim where the code raises it.
	Messages []string
	// Labels are headings and labels the program prints, quoted as printed
	// ("Flags:"), to find verbatim, colon included.
	Labels []string
	// Blocks are the classified blocks, in order (diagnostics, tests).
	Blocks []Block
	// Long reports issue-like text: several lines, or more words than a
	// question has. Short queries are ranked as they are.
	Long bool
}

// Name is a name of code in the text: "BadOptionUsage",
// "jinja2.runtime.Context.call", "invoked_subcommand".
type Name struct {
	Text string
	// Weight says how sure the text is that this is a name of this
	// codebase's code, 0..1: an exception class or a frame's function is
	// sure, an inline code span or a dotted name nearly so, a camelCase word
	// in a sentence less, an identifier of a reproduction script less still
	// (it is the user's code, calling the library's).
	Weight float64
	// Type reports a name read only from a capitalised word of a sentence
	// ("the Flag", "a Path"; at a lower weight one opening a sentence,
	// "Href now joins"): a type's name if the codebase defines a type of
	// that name, else a proper noun or an English word, no name at all.
	Type bool
	// Frames are the files of the stack frames whose function this is,
	// when the text gives it nowhere else: a frame of a file outside the
	// workspace (the user's program, a library it calls) names none of the
	// workspace's code, however its function is called.
	Frames []string
}

// Path is a file the text names, with the line and function of a stack frame
// when it came from one.
type Path struct {
	Path string // as written, slash-separated
	Line int    // 0 when unknown
	Func string // the frame's function, when known
	// Frame is the position of the frame counted from the innermost (0) when
	// the path came from a traceback; -1 otherwise.
	Frame int
}

// BlockKind classifies a block of lines.
type BlockKind int

// Block kinds.
const (
	Prose BlockKind = iota
	Code
	Traceback
	Log
	Output
)

func (k BlockKind) String() string {
	return [...]string{"prose", "code", "traceback", "log", "output"}[k]
}

// Block is a run of lines of one kind.
type Block struct {
	Kind  BlockKind
	Lines []string
	// Fenced is true for a ``` block; Lang is its info string ("python").
	Fenced bool
	Lang   string
}

// Name weights by where a name was found.
const (
	weightException = 1.0  // an exception class (ValueError, in prose or a traceback)
	weightFrame     = 1.0  // a traceback frame's function
	weightSpan      = 0.9  // an inline code span: `Context.call`
	weightQualified = 0.8  // a dotted or :: name in a sentence: jinja2.runtime.Context
	weightImport    = 0.8  // a name imported by a reproduction: from x import Name
	weightProse     = 0.6  // a camelCase or snake_case word in a sentence
	weightCode      = 0.35 // an identifier of a code block (the user's code calling the library)
	weightLog       = 0.3  // an identifier in a log or output line
	weightType      = 0.5  // a capitalised word inside a sentence, meaning a type
	weightTypeStart = 0.3  // a capitalised word opening a sentence: a type's name, if a type has it
)

// longWords: a one-line query of more words than this reads as a
// description rather than a question. A question names what it looks for
// in a few words ("where does the scheduler decide which worker takes the
// next job": 11); a sentence of twelve words or more tells what a change does
// or what goes wrong, and the tests, docs and changelog of the code retell
// it, as they retell a description of several lines. Set on the dev sets:
// localisation (one-line descriptions of 12 to 25 words) Acc@5 0.920 →
// 0.927 where the cut was 24 words; the Go dev questions (4 to 11 words)
// are untouched, and those of six words or more read as descriptions
// would lose little (hit@1 0.72 → 0.68, MRR 0.81 → 0.78), a one-line text's
// chunks being regrouped like a question's (engine: locChunkPart).
const longWords = 11

// changeTitleRe matches a one-line text that is a change's title however
// short, by marks only titles carry: a pull request's number at its end
// ("Fix INI saving panics (#1075)") or a conventional commit's type at its
// start ("perf(tree): …"). Read as issue-like, as a description of several
// lines is. On 240 commits of eight repositories outside the dev set,
// pack file recall at 4,000 tokens rose by 4 rows and coverage by 1; the
// function figures were even (one row down on one set, up on the other).
var changeTitleRe = regexp.MustCompile(`\(#\d+\)\s*$|^(?i:feat|fix|perf|refactor|chore|docs|test|build|ci|style|revert|deps)(?:\([^)]*\))?!?:\s`)

// Analyse reads a query.
func Analyse(q string) Evidence {
	q = strings.ReplaceAll(q, "\r\n", "\n")
	lines := dropTemplate(strings.Split(strings.TrimSpace(q), "\n"))
	var ev Evidence
	ev.Long = len(lines) > 1 || len(strings.Fields(q)) > longWords || changeTitleRe.MatchString(q)
	if len(lines) > 1 {
		ev.Title = strings.TrimSpace(lines[0])
	}
	ev.Blocks = splitBlocks(lines)
	names := newNameSet()
	var prose, code []string
	for _, b := range ev.Blocks {
		switch b.Kind {
		case Prose:
			for _, l := range b.Lines {
				prose = append(prose, l)
				readProse(l, names, &ev)
			}
		case Code:
			for _, l := range b.Lines {
				code = append(code, readCode(l, names, &ev)...)
			}
		case Traceback:
			code = append(code, readTraceback(b.Lines, names, &ev)...)
		case Log, Output:
			for _, l := range b.Lines {
				readLogLine(l, names, &ev, b.Kind == Log)
			}
		}
	}
	// A runtime's or compiler's message is read wherever it is: a
	// traceback's last line, pasted build output, a sentence.
	for _, l := range lines {
		readRuntime(l, names)
	}
	ev.Prose = strings.Join(prose, "\n")
	ev.Code = strings.Join(code, " ")
	ev.Names = names.sorted()
	ev.Literals = dedupe(ev.Literals, true)
	ev.Messages = dedupe(ev.Messages, true)
	ev.Labels = dedupe(ev.Labels, false) // matched as printed, case and all
	return ev
}

// nameSet keeps each name once, at its best weight, in first-seen order.
type nameSet struct {
	idx   map[string]int
	names []Name
}

func newNameSet() *nameSet { return &nameSet{idx: map[string]int{}} }

func (s *nameSet) add(text string, w float64) { s.addKind(text, w, false, "") }

// addFrame adds the function of a stack frame of file path.
func (s *nameSet) addFrame(text string, w float64, path string) { s.addKind(text, w, false, path) }

// addType adds a name that can only be a type's (Name.Type); read
// elsewhere as a plain name too, it is a plain name.
func (s *nameSet) addType(text string, w float64) { s.addKind(text, w, true, "") }

// addKind adds a name, read from a stack frame of file frame ("": not from
// a frame). A name's Frames stay nil once it is read outside frames.
func (s *nameSet) addKind(text string, w float64, typ bool, frame string) {
	text = strings.Trim(text, ".:")
	if len(text) < 2 || isNoiseName(text) {
		return
	}
	if i, ok := s.idx[text]; ok {
		n := &s.names[i]
		if !typ && n.Type {
			n.Type = false
			n.Weight = w
		} else if typ == n.Type {
			n.Weight = max(n.Weight, w)
		}
		switch {
		case frame == "":
			n.Frames = nil
		case n.Frames != nil:
			n.Frames = append(n.Frames, frame)
		}
		return
	}
	s.idx[text] = len(s.names)
	n := Name{Text: text, Weight: w, Type: typ}
	if frame != "" {
		n.Frames = []string{frame}
	}
	s.names = append(s.names, n)
}

// sorted returns the names by weight, first-seen order within a weight.
func (s *nameSet) sorted() []Name {
	out := append([]Name(nil), s.names...)
	// stable: a pasted log can give thousands of names
	slices.SortStableFunc(out, func(a, b Name) int { return cmp.Compare(b.Weight, a.Weight) })
	return out
}

var (
	// A URL: its host and path are not names of code nor files of the workspace.
	urlRe = regexp.MustCompile(`\b[a-z][a-z0-9+.-]*://\S+`)
	// A code span: `x`, or ``x``.
	spanRe = regexp.MustCompile("``?([^`\n]+?)``?")
	// A quoted message: "…", '…' or “…” of two words or more.
	quoteRe = regexp.MustCompile(`"([^"\n]{3,200})"|“([^”\n]{3,200})”|(?:^|[\s(\[:=])'([^'\n]{3,200})'(?:$|[\s).,;:\]])`)
	// A command-line option: --name, --name-part.
	optionRe = regexp.MustCompile(`(?:^|[\s"'\x60(\[=,])(--[a-zA-Z][\w-]*[a-zA-Z0-9])`)
	// A word of code: letters, digits, _, with . or :: between parts.
	wordRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?`)
	// An exception or error class (the Python and Java convention).
	exceptionRe = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Exit|Interrupt|Failure)$`)
	// An instance member as JavaScript, Ruby and Java docs write it:
	// Request#accepts, Router#handle() (not #123, issue#12 nor #L12).
	hashMemberRe = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)#([a-z_][A-Za-z0-9_]*)`)
)

// dotMembers writes the instance members of s (Request#accepts) as the
// qualified names they are (Request.accepts).
func dotMembers(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	return hashMemberRe.ReplaceAllString(s, "$1.$2")
}

// readProse collects the evidence of one line of running text.
func readProse(l string, names *nameSet, ev *Evidence) {
	for _, m := range spanRe.FindAllStringSubmatch(l, -1) {
		if span := strings.TrimSpace(m[1]); !urlRe.MatchString(span) {
			readSpan(dotMembers(span), names, ev) // a URL in a span is a link (readLinks)
		}
	}
	readLinks(l, ev)
	rest := dotMembers(urlRe.ReplaceAllString(spanRe.ReplaceAllString(l, " "), " "))
	for _, m := range quoteRe.FindAllStringSubmatch(rest, -1) {
		lit := firstNonEmpty(m[1:]...)
		if isMessage(lit) {
			ev.Literals = append(ev.Literals, lit)
		} else if isCodeWord(lit) {
			names.add(lit, weightProse)
		}
	}
	for _, m := range optionRe.FindAllStringSubmatch(rest, -1) {
		ev.Literals = append(ev.Literals, m[1])
	}
	// An error pasted on its own ("RuntimeError: Working outside of
	// application context.", "Error: No such option: --foo"): its message
	// is the program's, to find verbatim, as a traceback's last line is.
	if msg, ok := errorOutput(l); ok && !usersSentence(msg) {
		ev.Messages = append(ev.Messages, msg)
	}
	readPaths(rest, ev)
	for _, loc := range wordRe.FindAllStringIndex(rest, -1) {
		w := strings.TrimSuffix(rest[loc[0]:loc[1]], "()")
		switch {
		case exceptionRe.MatchString(lastPart(w)):
			names.add(w, weightException)
		case strings.Contains(w, "::") || strings.Contains(w, ".") && isQualified(w):
			names.add(w, weightQualified)
		case isCodeWord(w):
			names.add(w, weightProse)
		case isTypeWord(w) && !sentenceStart(rest[:loc[0]]):
			names.addType(w, weightType)
		case isTypeWord(w):
			names.addType(w, weightTypeStart)
		}
	}
}

// isTypeWord reports a capitalised word that may name a type: an upper-case
// letter, then lower-case letters or digits ("Flag", "Path", "Choice"); not
// an acronym ("ENV", "URL") nor a one-letter word.
func isTypeWord(w string) bool {
	if len(w) < 3 || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for _, r := range w[1:] {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// sentenceStart reports whether a word after before opens a sentence, a
// line or a list item (its capital then says nothing).
func sentenceStart(before string) bool {
	t := strings.TrimRight(before, " \t\"'(")
	if t == "" {
		return true
	}
	switch t[len(t)-1] {
	case '.', '!', '?', ':', '*', '-', '>', '#':
		return true
	}
	return false
}

// readSpan reads an inline code span: a name, a call, a path, an option, or
// a snippet (whose words are names of lower weight).
func readSpan(s string, names *nameSet, ev *Evidence) {
	if s == "" {
		return
	}
	if isPath(s) {
		ev.Paths = append(ev.Paths, Path{Path: s, Frame: -1})
		return
	}
	if strings.HasPrefix(s, "--") && optionRe.MatchString(s) {
		ev.Literals = append(ev.Literals, strings.Fields(s)[0])
		return
	}
	if isLabel(s) {
		ev.Labels = append(ev.Labels, s)
		return
	}
	bare := strings.TrimSuffix(strings.TrimSpace(s), "()")
	if m := wordRe.FindString(bare); m == bare {
		if exceptionRe.MatchString(lastPart(bare)) {
			names.add(bare, weightException)
		} else {
			names.add(bare, weightSpan)
		}
		return
	}
	if msg, ok := errorOutput(s); ok && !looksLikeCode(msg) {
		ev.Messages = append(ev.Messages, msg) // `Error: No such option: --foo`
		return
	}
	if isMessage(s) && !looksLikeCode(s) {
		ev.Literals = append(ev.Literals, s)
		return
	}
	// A snippet: `f(x, y=1)`, `sort_keys=True`, `{% trans %}`: its
	// identifiers are names as sure as the span's; its plain words less so.
	for _, w := range wordRe.FindAllString(s, -1) {
		w = strings.TrimSuffix(w, "()")
		switch {
		case isCodeWord(w) || strings.Contains(w, "."):
			names.add(w, weightSpan)
		case len(w) > 3:
			names.add(w, weightProse)
		}
	}
}

// readCode collects the names of one line of a code block and returns its
// identifier words.
func readCode(l string, names *nameSet, ev *Evidence) []string {
	readCommand(l, ev)
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(l), ">>>"), "..."))
	if m := diffPathRe.FindStringSubmatch(t); m != nil {
		ev.Paths = append(ev.Paths, Path{Path: m[1], Frame: -1})
		return nil
	}
	if m := importRe.FindStringSubmatch(t); m != nil {
		// from pkg.mod import A, B  /  import pkg.mod
		if m[1] != "" {
			names.add(m[1], weightImport)
			for _, n := range strings.Split(m[2], ",") {
				if f := strings.Fields(n); len(f) > 0 {
					names.add(f[0], weightImport)
				}
			}
		} else if f := strings.Fields(m[3]); len(f) > 0 {
			names.add(strings.TrimSuffix(f[0], ","), weightImport)
		}
	}
	var words []string
	for _, w := range wordRe.FindAllString(stripStrings(t), -1) {
		w = strings.TrimSuffix(w, "()")
		if codeKeywords[w] {
			continue
		}
		words = append(words, w)
		switch {
		case exceptionRe.MatchString(lastPart(w)):
			names.add(w, weightException)
		case strings.Contains(w, ".") || isCodeWord(w):
			names.add(w, weightCode)
		}
	}
	return words
}

// diffPathRe reads the file of a diff header: "--- a/src/x.py", "+++ b/x.go".
var diffPathRe = regexp.MustCompile(`^(?:---|\+\+\+) [ab]/(\S+)`)

var importRe = regexp.MustCompile(`^(?:from\s+([\w.]+)\s+import\s+\(?([\w\s,]+)\)?|import\s+([\w.\s,]+))$`)

// stripStrings removes string literals from a line of code: their words
// are the user's data, not names.
func stripStrings(l string) string {
	var b strings.Builder
	var quote rune
	for _, r := range l {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'' || r == '`':
			quote = r
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// readLogLine reads one line of a log or pasted output: its quoted messages
// (a log) and the names it spells like code; plain words are left out.
func readLogLine(l string, names *nameSet, ev *Evidence, isLog bool) {
	readPaths(l, ev)
	readCommand(l, ev)
	msg, printed := errorOutput(l)
	if printed {
		ev.Messages = append(ev.Messages, msg) // the line's quotes are part of it
	}
	if t := strings.TrimSpace(l); isLabel(t) {
		ev.Labels = append(ev.Labels, t) // a heading of pasted help output
	}
	if isLog && !printed {
		for _, m := range quoteRe.FindAllStringSubmatch(l, -1) {
			if lit := firstNonEmpty(m[1:]...); isMessage(lit) {
				ev.Literals = append(ev.Literals, lit)
			}
		}
		if i := strings.Index(l, "Warning: "); i >= 0 && len(l)-i > 20 {
			ev.Literals = append(ev.Literals, strings.TrimSpace(l[i+len("Warning: "):]))
		}
	}
	for _, w := range wordRe.FindAllString(l, -1) {
		w = strings.TrimSuffix(w, "()")
		switch {
		case exceptionRe.MatchString(lastPart(w)):
			names.add(w, weightException)
		case isLog && hasInnerUpper(w) || isLog && strings.Contains(w, "_") && len(w) > 4:
			names.add(w, weightLog)
		}
	}
}

// promptRe is a command typed at a shell prompt: "$ app serve --port 80",
// "% …", "> …" (cmd), "PS C:\app> …" (PowerShell).
var promptRe = regexp.MustCompile(`^\s*(?:\$|%|>|PS [^>]*>)\s+\S`)

// readCommand reads the --options of a command line pasted with its
// prompt, as the options of a sentence are read: to find verbatim where the
// program defines them.
func readCommand(l string, ev *Evidence) {
	if !promptRe.MatchString(l) {
		return
	}
	for _, m := range optionRe.FindAllStringSubmatch(l, -1) {
		ev.Literals = append(ev.Literals, m[1])
	}
}

// errorLineRe is an error a program printed on its own line: "Error: …"
// (click, cobra), "error: …", "fatal: …", "Fatal error: …", "Incorrect
// Usage: …" (urfave/cli), and Python logging's "ERROR:logger:…".
var errorLineRe = regexp.MustCompile(`^(?:(?:[Ee]rror|ERROR|[Ff]atal(?: error)?|FATAL|Incorrect Usage)(?:\[[^\]]*\])?:\s+|(?:ERROR|CRITICAL):[\w.]+:\s*)(.+)$`)

// logErrorRe is a log line at an error level, its time, level, logger and
// the like before its message: "2024-01-02 12:00:00,123 ERROR [sync]
// failed to refresh the token", "[12:00:00] FATAL db: connection refused",
// "[ERROR] …", log4j's "… [main] ERROR com.shop.Cart - …", Spring's "…
// ERROR 1234 --- [main] o.s.Cart : …", pytest's captured "ERROR
// sync:sync.py:42 …", logfmt's level=error … msg="…". A level word alone
// opens no log line: "ERROR handling is broken" is a sentence.
var logErrorRe = func() *regexp.Regexp {
	stamp := `(?:\[?\d{4}[-/]\d\d[-/]\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?\]?|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?)`
	level := `(?:ERROR|FATAL|CRITICAL|PANIC)`
	tail := `(?:\d+\s+---\s+\[[^\]]*\]\s+\S+\s+:\s+|\[[^\]]*\]\s+|[\w.-]+:[\w./-]+:\d+\s+|[\w$]+(?:\.[\w$]+)+\s+-\s+|[\w.-]+:\s+)?(.+)`
	return regexp.MustCompile(`^(?:` +
		stamp + `\s+(?:\[[^\]]*\]\s+)?\[?` + level + `\]?:?\s+` + tail + `|` +
		`\[` + level + `\]:?\s+` + tail + `|` +
		level + `\s+[\w.-]+:[\w./-]+:\d+\s+(.+)|` +
		`.*\blevel=(?:error|fatal|panic)\b.*\bmsg="((?:[^"\\]|\\.)*)".*)$`)
}()

// placedRe is a line of output that begins with the place it is about:
// "path:line:" or "path:line:column:".
var placedRe = regexp.MustCompile(`^\S+:\d+(?::\d+)?:\s+(.+)$`)

// errorOutput returns the message of an output or log line that reports an
// error — an error line, a log line at an error level, or an exception's
// ("ValueError: bad value") — when it reads as a message (isMessage).
func errorOutput(l string) (string, bool) {
	t := strings.TrimSpace(l)
	if m := placedRe.FindStringSubmatch(t); m != nil {
		t = m[1] // a warning printed with its place: "core.py:1085: DeprecationWarning: …"
	}
	if m := errorLineRe.FindStringSubmatch(t); m != nil {
		msg := strings.TrimSpace(m[1])
		if _, inner, ok := exceptionLine(msg, false); ok && inner != "" {
			msg = strings.TrimSpace(inner) // "Fatal error: Uncaught Error: Call to …"
		}
		return msg, isMessage(msg)
	}
	if m := logErrorRe.FindStringSubmatch(t); m != nil {
		msg := strings.TrimSpace(strings.ReplaceAll(firstNonEmpty(m[1:]...), `\"`, `"`))
		if q := quoteRe.FindStringSubmatch(msg); q != nil && strings.HasPrefix(msg, q[0]) {
			msg = firstNonEmpty(q[1:]...) // a structured log's message: "…" key=value
		}
		return msg, isMessage(msg)
	}
	if _, msg, ok := exceptionLine(t, false); ok {
		msg = strings.TrimSpace(msg)
		return msg, isMessage(msg)
	}
	return "", false
}

// linkRe is a link to a file of a repository as code hosts print it —
// GitHub's and GitLab's …/blob/REF/PATH#L12 (-L20), Gitea's and
// Bitbucket's …/src/REF/PATH#L12 or #lines-12 —: a report pointing at the
// line it is about.
var linkRe = regexp.MustCompile(`://[^\s/]+/\S*?/(?:-/)?(?:blob|src(?:/(?:branch|commit|tag))?)/[^/\s]+/([^\s#?)\]>"']+)(?:\?[^\s#)\]>"']*)?(?:#L(\d+)|#lines-(\d+))?`)

// readLinks collects the files (and lines) that links to a repository's
// files name; the rest of a URL names nothing.
func readLinks(l string, ev *Evidence) {
	for _, u := range urlRe.FindAllString(l, -1) {
		m := linkRe.FindStringSubmatch(u)
		if m == nil || !isPath(m[1]) {
			continue
		}
		line, _ := strconv.Atoi(firstNonEmpty(m[2], m[3]))
		ev.Paths = append(ev.Paths, Path{Path: m[1], Line: line, Frame: -1})
	}
}

// sourceExts are the extensions a path must end in to be read as a file of
// code (so "e.g.", "3.7" and version numbers are not paths).
const sourceExts = `py|pyi|pyx|go|js|jsx|mjs|cjs|ts|tsx|java|kt|kts|rb|rs|c|h|cc|cpp|hpp|cs|php|sh|bash|lua|swift|scala|ex|exs|md|rst|txt|toml|yaml|yml|json|cfg|ini|html|jinja|j2|tmpl|sql|proto`

// readPaths collects the file paths of a line (path, path:line).
func readPaths(l string, ev *Evidence) {
	l = urlRe.ReplaceAllString(l, " ") // a URL's path is the server's (links: readLinks)
	for _, m := range pathRe.FindAllStringSubmatch(l, -1) {
		p := strings.TrimRight(m[1], ".,;:)")
		if !isPath(p) {
			continue
		}
		line := 0
		if m[2] != "" {
			line, _ = strconv.Atoi(m[2])
		}
		ev.Paths = append(ev.Paths, Path{Path: strings.ReplaceAll(p, `\`, "/"), Line: line, Frame: -1})
	}
}

var pathRe = regexp.MustCompile(`((?:[A-Za-z]:)?[\w.@+~/\\-]*[\w-]\.(?:` + sourceExts + `))(?::(\d+))?\b`)

// isPath reports a file path: a name with a source extension and either a
// directory or a name that is not also a dotted identifier (click.py is a
// path, click.echo is not).
func isPath(s string) bool {
	if strings.ContainsAny(s, " \t") {
		return false
	}
	m := pathRe.FindStringSubmatch(s)
	return m != nil && m[0] == s
}

// isMessage reports text worth matching verbatim: two words or more, not
// a path, mostly letters.
func isMessage(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 8 || len(strings.Fields(s)) < 2 || isPath(s) {
		return false
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) || r == ' ' {
			letters++
		}
	}
	return letters*10 >= len([]rune(s))*6
}

// usersSentence reports text after "Error:" in prose that the user wrote,
// not the program: long, or in the first person ("Error: when I click save
// nothing happens").
func usersSentence(msg string) bool {
	f := strings.Fields(msg)
	if len(f) > 20 {
		return true
	}
	for _, w := range f {
		switch strings.Trim(w, ".,;:!?'\"()") {
		case "I", "I'm", "I've", "my", "me", "we", "We", "our", "My", "Our":
			return true
		}
	}
	return false
}

// isLabel reports a printed heading or label: one to three capitalised
// words and a colon ("Flags:", "Global Flags:", "GLOBAL OPTIONS:"), as help
// output shows them; not the headings of a report or a docstring
// (notLabels).
func isLabel(s string) bool {
	w, ok := strings.CutSuffix(s, ":")
	if !ok || notLabels[strings.ToLower(w)] {
		return false
	}
	f := strings.Fields(w)
	if len(f) == 0 || len(f) > 3 {
		return false
	}
	for _, x := range f {
		if !isTypeWord(x) && !isCapsWord(x) {
			return false
		}
	}
	return true
}

// notLabels are headings a report or a docstring writes, not a program's
// output: what a user pastes under them is what matters.
var notLabels = map[string]bool{
	"error": true, "errors": true, "warning": true, "note": true, "notes": true, "todo": true, "ok": true,
	"expected": true, "actual": true, "output": true, "input": true, "result": true, "results": true,
	"example": true, "examples": true, "args": true, "arguments": true, "parameters": true, "params": true,
	"returns": true, "return": true, "raises": true, "yields": true, "attributes": true, "see also": true,
	"traceback": true, "steps": true, "environment": true, "version": true, "versions": true,
}

// isCapsWord reports an upper-case word of two letters or more ("OPTIONS").
func isCapsWord(w string) bool {
	if len(w) < 2 {
		return false
	}
	for _, r := range w {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return w[0] >= 'A' && w[0] <= 'Z'
}

// looksLikeCode reports a span that is code rather than a message: call
// parentheses, operators, braces.
func looksLikeCode(s string) bool {
	return strings.ContainsAny(s, "(){}[]=<>;") || strings.Contains(s, "->")
}

// isCodeWord reports an identifier that is not an English word:
// camelCase, snake_case, or with digits inside letters.
func isCodeWord(w string) bool {
	if !isIdent(w) {
		return false
	}
	core := strings.Trim(w, "_")
	return hasInnerUpper(core) || strings.Contains(core, "_") || strings.HasPrefix(w, "_") && len(core) > 2
}

// isQualified reports a dotted name of code (jinja2.runtime.Context,
// Context.call, cli.IntFlag), not a sentence's abbreviation (e.g., i.e.)
// nor a version or a domain-like word pair.
func isQualified(w string) bool {
	parts := strings.Split(w, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len(p) < 2 || !isIdent(p) {
			return false
		}
	}
	for _, p := range parts {
		if isCodeWord(p) || p[0] >= 'A' && p[0] <= 'Z' {
			return true
		}
	}
	// all lower case: pkg.func, module.attr — code unless the last part is
	// a common domain or file suffix
	switch parts[len(parts)-1] {
	case "com", "org", "net", "io", "html", "txt", "md", "rst":
		return false
	}
	return true
}

func isIdent(w string) bool {
	if w == "" {
		return false
	}
	for i, r := range w {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// hasInnerUpper reports camelCase: an upper-case letter after a lower-case
// one ("queryEscape", "HTTPServer"'s "Server" after "P" does not count, its
// "erver" does not either; "GetURL" does).
func hasInnerUpper(s string) bool {
	lowerSeen := false
	for _, r := range s {
		switch {
		case unicode.IsLower(r):
			lowerSeen = true
		case unicode.IsUpper(r) && lowerSeen:
			return true
		}
	}
	return false
}

// isNoiseName drops names that are no evidence: Python's and Go's own
// spellings that every codebase has.
func isNoiseName(s string) bool {
	return codeKeywords[s] || noiseNames[s]
}

var noiseNames = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true}

// codeKeywords are language keywords and ubiquitous builtins: never a name
// of the codebase's own code.
var codeKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		and as assert async await break class continue def del elif else except finally for from
		global if import in is lambda nonlocal not or pass raise return try while with yield
		None True False self cls print len str int float bool list dict set tuple object type
		range open super isinstance getattr setattr hasattr
		func package var const map chan go defer select switch case default struct interface
		nil true false string error byte rune make new append
		function let this null undefined public private static void`) {
		m[w] = true
	}
	return m
}()

func lastPart(s string) string {
	if i := strings.LastIndexAny(s, ".:"); i >= 0 {
		return s[i+1:]
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// dedupe keeps the first of each string, ignoring case when fold is set.
func dedupe(ss []string, fold bool) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		k := s
		if fold {
			k = strings.ToLower(s)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}
