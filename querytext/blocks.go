package querytext

import (
	"regexp"
	"strings"
	"unicode"
)

// lineKind is what one line looks like on its own.
type lineKind int

const (
	lineProse lineKind = iota
	lineCode
	lineFrame // a stack frame, a traceback header, a panic or goroutine line
	lineLog
	lineOutput
	lineBlank
)

var (
	logLineRe = regexp.MustCompile(`^\s*(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d|\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|CRITICAL|FATAL|TRACE)\b[\]:]?|(?:time|level)=|[EWIF]\d{4} \d\d:)`)
	// pip freeze / pip list / go.mod / package.json lines, version reports,
	// environment variables and "Key: value" system information.
	depLineRe = regexp.MustCompile(`^\s*(?:[\w.\[\]-]+\s*(?:==|>=|<=|~=|@)\s*v?\d[\w.+-]*|[\w.-]+\s+v?\d+\.\d+[\w.+-]*|[\w./-]+ v\d+\.\d+\.\d+\S*(?: // indirect)?|"[\w@/.-]+":\s*"[\^~]?\d[\w.-]*",?|[A-Z][A-Z0-9_]+=\S*)\s*$`)
	// System information: "- OS: Ubuntu 22.04", "Python version: 3.11.4".
	envLineRe  = regexp.MustCompile(`^\s*[-*]?\s*[A-Za-z][\w ./()-]{0,30}:\s+\S*\d[\w.+-]*(?:\s+\S+){0,2}\s*$|^\s*[-*]?\s*[A-Za-z][\w ./()-]{0,30}:\s+[A-Za-z][\w.+-]*\s+v?\d[\w.+-]*\s*$`)
	keyValueRe = regexp.MustCompile(`^\s*[-*]?\s*[A-Za-z][\w ./()-]{0,30}:\s+\S+(?:\s+\S+){0,3}\s*$`)
	// A line of a traceback or stack dump, in the forms languages print it.
	frameLineRe = regexp.MustCompile(`^\s*(?:` + strings.Join([]string{
		`(?:[\w.]+\s+)?Traceback \(most recent call last\)`, `File "[^"]+", line \d+`, // Python (IPython's header too)
		`E {3}\S`,                     // pytest's exception line; its frames and IPython's: isPythonFrame
		`goroutine \d+ \[`, `panic: `, // Go
		`thread '[^']*' panicked at `, `stack backtrace:`, `\d+: (?:[\w<>$]+::)+[\w<>$]+$`, `at \.?/?[\w./\\-]+\.rs:\d+:\d+$`, // Rust
		`at (?:async |new )?[\w.$<>]+\s*\(`,                          // Java, JavaScript, .NET
		`(?:from )?[\w./\\-]+\.rb:\d+:in `, `#\d+ \S+\.php\(\d+\): `, // Ruby, PHP
		`[\w./\\-]+\.(?:` + sourceExts + `):\d+(?::\d+)? ?(?:\+0x[0-9a-f]+)?$`, // path:line[:col], Go's +0x…
	}, "|") + `)`)
	// Lines that open like code whatever follows.
	codeStartRe = regexp.MustCompile(`^\s*(?:>>>|\.\.\. |def \w+\(|class \w+[(:]|import [\w.]+$|from [\w.]+ import |func [\w(]|package \w+$|type \w+ (?:struct|interface)|@\w+(?:\(|$)|#include|//|#!|[{}\])]|\w+ :?= |\w+\(.*\)$)`)
	// Lines that open like code unless they read as a sentence.
	weakCodeRe = regexp.MustCompile(`^\s*(?:return\b|raise |var \w+|const \w+|if .*[:{]$|for .*[:{]$|while .*[:{]$|with .*:$|try:$|except\b.*:$|else:?$|elif .*:$|print\b)`)
	diffLineRe = regexp.MustCompile(`^(?:diff --git |index [0-9a-f]+\.\.|--- [ab]/|\+\+\+ [ab]/|@@ )`)
)

// classifyLine says what a line looks like without its neighbours.
func classifyLine(l string) lineKind {
	t := strings.TrimSpace(l)
	switch {
	case t == "":
		return lineBlank
	case frameLineRe.MatchString(l) || isPythonFrame(l):
		return lineFrame
	case diffLineRe.MatchString(t):
		return lineCode
	case logLineRe.MatchString(l):
		return lineLog
	}
	// A link is a word of its sentence ("See https://…/issues/12",
	// "[the docs](https://…)"), not code nor a "Key: value" line.
	t = strings.TrimSpace(unlink(t))
	switch {
	case strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "> ") && !isSentence(t[2:]):
		return lineOutput
	case codeStartRe.MatchString(t):
		return lineCode
	case depLineRe.MatchString(t):
		return lineOutput
	case envLineRe.MatchString(t):
		return lineOutput
	case isSentence(t):
		return lineProse
	case weakCodeRe.MatchString(t):
		return lineCode
	case keyValueRe.MatchString(t) && !strings.ContainsAny(t, "(){}"):
		return lineOutput
	case len(strings.Fields(t)) <= 3 && !strings.ContainsAny(t, "{}=;:\"'"):
		return lineProse // a short heading or fragment ("Ex", "Steps to reproduce", "handle).")
	case codeDensity(t) >= 0.08:
		return lineCode
	}
	return lineOutput
}

// mdLinkRe is a Markdown link, [text](url), or an autolink, <url>.
var mdLinkRe = regexp.MustCompile(`\[([^\]\n]*)\]\([^)\s]*\)|<[a-z][a-z0-9+.-]*://[^>\s]*>`)

// unlink turns each link of l into a word: a Markdown link into its text,
// a URL into "link".
func unlink(l string) string {
	if !strings.Contains(l, "://") {
		return l
	}
	l = mdLinkRe.ReplaceAllStringFunc(l, func(m string) string {
		if strings.HasPrefix(m, "<") {
			return "link"
		}
		return mdLinkRe.FindStringSubmatch(m)[1]
	})
	return urlRe.ReplaceAllString(l, "link")
}

// isSentence reports running text: mostly plain words (letters, with
// sentence punctuation), at least three of them, or a bullet of them.
func isSentence(t string) bool {
	t = spanRe.ReplaceAllString(t, "x") // a code span is a word of its sentence
	t = strings.TrimLeft(t, "-*•> ")
	fields := strings.Fields(t)
	if len(fields) < 3 {
		return len(fields) > 0 && plainShare(fields) == 1 && !strings.ContainsAny(t, "(){}=;")
	}
	share := plainShare(fields)
	// a sentence that names code ("Add no_args_is_help to click.Command"):
	// English function words and little code punctuation
	return share >= 0.6 || share >= 0.3 && functionWords(fields) > 0 && codeDensity(t) < 0.05
}

// functionWords counts English function words that code does not use as
// keywords ("for", "in", "is", "not" are Python's).
func functionWords(fields []string) int {
	n := 0
	for _, f := range fields {
		switch strings.ToLower(strings.TrimRight(f, ".,;:!?")) {
		case "the", "a", "an", "to", "of", "this", "that", "it", "be", "by", "on", "when", "should",
			"was", "are", "has", "have", "we", "you", "can", "will", "does", "doesn't", "instead", "now":
			n++
		}
	}
	return n
}

// plainShare is the share of fields that are words of prose.
func plainShare(fields []string) float64 {
	plain := 0
	for _, f := range fields {
		f = strings.TrimRight(f, ".,;:!?)")
		f = strings.TrimLeft(f, "(\"'")
		if f != "" && isPlainWord(f) {
			plain++
		}
	}
	return float64(plain) / float64(len(fields))
}

// isPlainWord: letters, with an apostrophe or hyphen inside, not camelCase.
func isPlainWord(f string) bool {
	for _, r := range f {
		if !(unicode.IsLetter(r) || r == '\'' || r == '-' || r == '’') {
			return false
		}
	}
	return !hasInnerUpper(f)
}

// codeDensity is the share of a line's characters that are code punctuation
// (not "_" or ".", which names in sentences have too).
func codeDensity(t string) float64 {
	n := 0
	for _, r := range t {
		if strings.ContainsRune("()[]{}=<>;:*&|!\"'`/\\#%", r) {
			n++
		}
	}
	return float64(n) / float64(len([]rune(t)))
}

// dropTemplate removes what an issue template leaves in every report,
// outside fenced blocks: its HTML comments — the instructions ("Include
// the full traceback if there was an exception."), which the page does not
// show and a report keeps word for word — and its headings
// (isTemplateLine). A comment in a fence is code (a template's); one never
// closed is no comment. A commit message's trailers (Signed-off-by: …,
// Co-authored-by: …) name people, not code: they go too.
func dropTemplate(lines []string) []string {
	out := lines[:0:0]
	fence, inComment := "", false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if f := fenceOf(t); !inComment && fence == "" && f != "" {
			fence = f
			out = append(out, l)
			continue
		}
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			out = append(out, l)
			continue
		}
		var b strings.Builder
		rest, dropped := l, inComment
		for rest != "" {
			if inComment {
				end := strings.Index(rest, "-->")
				if end < 0 {
					rest = ""
					break
				}
				rest, inComment = rest[end+3:], false
				continue
			}
			start := strings.Index(rest, "<!--")
			if start < 0 {
				b.WriteString(rest)
				break
			}
			b.WriteString(rest[:start])
			rest, inComment, dropped = rest[start+4:], true, true
		}
		if kept := b.String(); (!dropped || strings.TrimSpace(kept) != "") && !isTemplateLine(kept) && !trailerRe.MatchString(kept) {
			out = append(out, kept)
		}
	}
	if inComment {
		return lines // "<!--" never closed: text that merely spells it
	}
	return out
}

// trailerRe matches a git trailer line: Signed-off-by, Co-authored-by,
// Reviewed-by and the like, Change-Id.
var trailerRe = regexp.MustCompile(`^\s*(?i:[a-z]+(?:-[a-z]+)*-by|change-id):\s`)

// templateWords are the words of an issue template's headings ("###
// Describe the bug", "**Expected behavior**", "Steps to reproduce:") and
// of an issue form's empty answer ("_No response_").
var templateWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`describe description bug report reproduce reproduction steps step
		expected actual current behavior behaviour result results outcome additional context information info
		environment screenshots screenshot logs log output what happened happen did you expect instead
		summary details detail response problem issue minimal example relevant version versions system
		to the a an of and or if any please provide here your this no none`) {
		m[w] = true
	}
	return m
}()

// isTemplateLine reports a heading of an issue template (every word of it
// a template word, or a question: "### What version of Cobra are you
// using?") or an issue form's "_No response_": the same in every report,
// so no evidence of any.
func isTemplateLine(l string) bool {
	t := strings.TrimSpace(l)
	heading := strings.HasPrefix(t, "#")
	t = strings.TrimLeft(t, "# ")
	if strings.HasPrefix(t, "**") && strings.HasSuffix(strings.TrimRight(t, ":"), "**") || strings.HasPrefix(t, "_") && strings.HasSuffix(t, "_") {
		heading = true
	}
	t = strings.Trim(t, "*_: ")
	if !heading && !strings.HasSuffix(strings.TrimSpace(l), ":") || t == "" {
		return false
	}
	if strings.HasSuffix(t, "?") && !strings.Contains(t, "`") {
		return true // a template's question: "### What did you expect to see?"
	}
	for _, w := range strings.Fields(strings.ToLower(t)) {
		if !templateWords[strings.Trim(w, ".,;:?!()'\"")] {
			return false
		}
	}
	return true
}

// fenceOf returns the fence a trimmed line opens or closes ("```" or
// "~~~"), or "".
func fenceOf(t string) string {
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return t[:3]
	}
	return ""
}

// splitBlocks cuts lines into classified blocks: fenced blocks whole,
// tracebacks from their header (or first frame) to their exception line,
// and the other lines in runs of one kind.
func splitBlocks(lines []string) []Block {
	var blocks []Block
	add := func(kind BlockKind, ls []string) {
		if len(ls) == 0 {
			return
		}
		if n := len(blocks); n > 0 && blocks[n-1].Kind == kind && !blocks[n-1].Fenced {
			blocks[n-1].Lines = append(blocks[n-1].Lines, ls...)
			return
		}
		blocks = append(blocks, Block{Kind: kind, Lines: ls})
	}
	for i := 0; i < len(lines); {
		l := lines[i]
		t := strings.TrimSpace(l)
		if i == 0 && len(lines) > 1 && !strings.HasPrefix(t, "```") && classifyLine(l) != lineFrame {
			add(Prose, lines[:1]) // a title is a sentence, whatever it names
			i++
			continue
		}
		if fence := fenceOf(t); fence != "" {
			lang := strings.ToLower(strings.TrimSpace(strings.Trim(t, "`~")))
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), fence) {
				j++
			}
			body := lines[i+1 : j]
			blocks = append(blocks, Block{Kind: classifyFenced(body, lang), Lines: body, Fenced: true, Lang: lang})
			i = j + 1
			continue
		}
		k := classifyLine(l)
		if k == lineFrame {
			j := tracebackEnd(lines, i)
			add(Traceback, lines[i:j])
			i = j
			continue
		}
		// a run of lines of one kind (blank lines join a run, never start one)
		j := i + 1
		for j < len(lines) {
			kj := classifyLine(lines[j])
			t := strings.TrimSpace(lines[j])
			if kj == lineFrame || fenceOf(t) != "" {
				break
			}
			if kj != k && kj != lineBlank {
				break
			}
			j++
		}
		add(blockOf(k), trimBlank(lines[i:j]))
		i = j
	}
	return blocks
}

func blockOf(k lineKind) BlockKind {
	switch k {
	case lineCode:
		return Code
	case lineFrame:
		return Traceback
	case lineLog:
		return Log
	case lineOutput:
		return Output
	}
	return Prose
}

// tracebackEnd returns the end of the traceback starting at lines[i]: it
// runs over frames, the source lines shown under them and anything
// indented, up to and including the exception line (or the panic's last
// frame), and stops at the first sentence after it.
func tracebackEnd(lines []string, i int) int {
	j := i + 1
	pyFrames := isPythonFrame(lines[i])
	for j < len(lines) {
		l := lines[j]
		t := strings.TrimSpace(l)
		if rustPanicRe.MatchString(strings.TrimSpace(lines[j-1])) {
			j++ // the panic's message
			continue
		}
		if _, _, ok := exceptionLine(l, pyFrames); ok {
			return j + 1
		}
		k := classifyLine(l)
		if k == lineFrame || goFuncRe.MatchString(t) || goCreatedRe.MatchString(t) { // a Go frame's function: main.main()
			pyFrames = pyFrames || isPythonFrame(l)
			j++
			continue
		}
		if t == "" {
			// a blank line ends a Python traceback only after its exception
			j++
			continue
		}
		if k == lineLog {
			return j // a log line after a stack dump is a block of its own
		}
		if k == lineProse && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
			// a sentence: the traceback ended without an exception line
			// unless it is a frame's source line (code read as prose is
			// rare: "return x" is code) — stop here.
			return j
		}
		j++
	}
	return j
}

// classifyFenced classifies a fenced block by its info string and its lines.
func classifyFenced(body []string, lang string) BlockKind {
	var votes [lineBlank]int
	for _, l := range body {
		if k := classifyLine(l); k != lineBlank {
			votes[k]++
		}
	}
	if votes[lineFrame] > 0 {
		for _, l := range body {
			if t := strings.TrimSpace(l); strings.Contains(t, "Traceback (most recent call last)") || isPythonFrame(l) || strings.HasPrefix(t, "panic: ") || strings.HasPrefix(t, "goroutine ") {
				return Traceback
			}
		}
		if votes[lineFrame]*3 >= votes[lineFrame]+votes[lineCode]+votes[lineLog]+votes[lineOutput]+votes[lineProse] {
			return Traceback
		}
	}
	switch fenceKinds[lang] {
	case fenceCode:
		return Code
	case fenceShell, fenceData:
		if votes[lineLog] > votes[lineCode] {
			return Log
		}
		if fenceKinds[lang] == fenceShell {
			return Code
		}
		return Output
	}
	best := lineCode
	for _, k := range []lineKind{lineLog, lineOutput} {
		if votes[k] > votes[best] {
			best = k
		}
	}
	if votes[lineProse] > votes[best] && votes[lineCode] == 0 {
		return Output // sentences in a fence: quoted output or a message
	}
	return blockOf(best)
}

func trimBlank(ls []string) []string {
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1]) == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// fenceKind is what a fence's info string says its block holds.
type fenceKind int

const (
	fenceUnknown fenceKind = iota
	fenceCode              // source code, a diff, a template
	fenceShell             // shell commands: code, unless its lines read as a log
	fenceData              // configuration, logs, console output: output, or a log
)

// fenceKinds maps fence info strings to what they hold.
var fenceKinds = func() map[string]fenceKind {
	m := map[string]fenceKind{}
	for _, l := range strings.Fields("python py python3 pycon go golang js javascript ts typescript java rust rs ruby rb c cpp c++ php kotlin diff patch jinja html+jinja django") {
		m[l] = fenceCode
	}
	for _, l := range strings.Fields("sh bash shell") {
		m[l] = fenceShell
	}
	for _, l := range strings.Fields("toml ini cfg txt text log console shell-session json yaml yml") {
		m[l] = fenceData
	}
	return m
}()
