package querytext

// Tracebacks and stack dumps: their frames (file, line, function; innermost
// first whatever order the language prints them in), the exception's class
// and its message. Python's frames come in three printed forms — the
// interpreter's, pytest's and IPython's —; Go's, Rust's, Java's,
// JavaScript's, Ruby's, PHP's and .NET's in one each.

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	// Python: File "path", line N, in func
	pyFrameRe = regexp.MustCompile(`^\s*File "([^"]+)", line (\d+)(?:, in (\S+))?`)
	// pytest's long report: path:N: in func, innermost last, as Python.
	pytestFrameRe = regexp.MustCompile(`^\s*((?:[A-Za-z]:)?[\w.@+~/\\-]*[\w-]\.py):(\d+): in (\S+)\s*$`)
	// IPython and Jupyter: File path:N, in func(args), innermost last.
	ipythonFrameRe = regexp.MustCompile(`^\s*File ([^\s"][^"]*?):(\d+), in ([\w.<>]+)`)
	// path:line[:col] — Go, JS, compilers, linters, test runners.
	fileLineRe = regexp.MustCompile(`((?:[A-Za-z]:)?[\w.@+~/\\-]*[\w-]\.(?:` + sourceExts + `)):(\d+)`)
	// Java / JS frames: at pkg.Class.method(File.java:12), at fn (file.js:3:9),
	// at async fn (file.js:3:9), at new Class (file.js:3:9)
	atFrameRe = regexp.MustCompile(`^\s*at\s+(?:async\s+|new\s+)?([\w$<>][\w.$<>]*)\s*\(?`)
	// Rust's panic: "thread 'main' panicked at src/lib.rs:4:5:", its message
	// on the next line.
	rustPanicRe = regexp.MustCompile(`^thread '[^']*' panicked at `)
	// Rust: "  4: crate::module::Type::method" over "at ./src/file.rs:42:13".
	rustFuncRe = regexp.MustCompile(`^\s*\d+: ((?:[\w<>$]+::)+[\w<>$]+)$`)
	// Go: pkg.(*Type).Method(...) or pkg.Func(...) on the line above the file.
	goFuncRe = regexp.MustCompile(`^\s*((?:[\w.-]+/)*[\w.-]+\.(?:\(\*?\w+\)\.)?\w+)\(`)
	// Go: the function that started a goroutine, over the file of its go
	// statement: "created by net/http.(*Server).Serve in goroutine 1".
	goCreatedRe = regexp.MustCompile(`^\s*created by ((?:[\w.-]+/)*[\w.-]+\.(?:\(\*?\w+\)\.)?\w+)`)
	// Ruby: "from app/models/order.rb:42:in `block in Order#total'".
	rubyFrameRe = regexp.MustCompile("^\\s*(?:from\\s+)?((?:[A-Za-z]:)?[\\w.@+~/\\\\-]*[\\w-]\\.rb):(\\d+):in [`']([^'`]+)'")
	// PHP: "#0 /srv/app/src/Cart.php(42): App\\Cart->total()".
	phpFrameRe = regexp.MustCompile(`^\s*#\d+ ((?:[A-Za-z]:)?[^\s(]+\.php)\((\d+)\): ([\w\\]+(?:->|::)\w+|\w+)\(`)
	// .NET: "at Shop.Cart.Total() in C:\src\Shop\Cart.cs:line 42".
	dotnetFrameRe = regexp.MustCompile(`^\s*at ([\w.<>` + "`" + `+]+)\(.*\) in (.+\.cs):line (\d+)`)
	// pytest's prefix of the exception lines it prints: "E   ExcType: message".
	pytestError = "E   "
	// The last line of a Python traceback: ExcType: message.
	excLineRe = regexp.MustCompile(`^\s*((?:[A-Za-z_]\w*\.)*[A-Z]\w*)(?::\s*(.*))?$`)
)

// oneLineFrame reads line l as a frame that gives its file, line and function
// on one line — Ruby's, PHP's, .NET's, innermost first —: the file, the
// line and the function as "Type.method".
func oneLineFrame(l string) (path string, line int, fn string, ok bool) {
	if m := rubyFrameRe.FindStringSubmatch(l); m != nil {
		fn = m[3]
		if i := strings.LastIndex(fn, " in "); i >= 0 {
			fn = fn[i+len(" in "):] // "block (2 levels) in Order#total"
		}
		path, fn = m[1], strings.ReplaceAll(fn, "#", ".")
		line, _ = strconv.Atoi(m[2])
		return path, line, fn, true
	}
	if m := phpFrameRe.FindStringSubmatch(l); m != nil {
		fn = strings.NewReplacer("->", ".", "::", ".").Replace(m[3])
		if i := strings.LastIndexByte(fn, '\\'); i >= 0 {
			fn = fn[i+1:] // App\Cart.total
		}
		line, _ = strconv.Atoi(m[2])
		return m[1], line, fn, true
	}
	if m := dotnetFrameRe.FindStringSubmatch(l); m != nil {
		parts := strings.Split(m[1], ".")
		fn = strings.Join(parts[max(0, len(parts)-2):], ".")
		line, _ = strconv.Atoi(m[3])
		return m[2], line, fn, true
	}
	return "", 0, "", false
}

// pythonFrameRes read a Python frame's path, line and function, each in
// one of the forms it is printed in.
var pythonFrameRes = []*regexp.Regexp{pyFrameRe, pytestFrameRe, ipythonFrameRe}

// pythonFrame reads line l as a frame of a Python traceback, in any of its
// forms: the submatches path, line and function, or nil.
func pythonFrame(l string) []string {
	for _, re := range pythonFrameRes {
		if m := re.FindStringSubmatch(l); m != nil {
			return m
		}
	}
	return nil
}

// isPythonFrame reports a frame of a Python traceback, in any of its forms.
func isPythonFrame(l string) bool { return pythonFrame(l) != nil }

// uncaughtRe is what a runtime prints before an exception it did not
// catch: Java's `Exception in thread "main"` and `Caused by:`, JavaScript's
// and PHP's `Uncaught`, .NET's `Unhandled exception.`.
var uncaughtRe = regexp.MustCompile(`^(?:Exception in thread "[^"]*"\s+|Caused by:\s+|(?:PHP )?(?:Fatal error:\s+)?Uncaught\s+(?:\(in promise\)\s+)?|Unhandled exception\.\s+)`)

// exceptionLine reads line l of a traceback as its exception line: the
// exception's class and its message. Where a line stands can say what it
// is, whatever the class is called (RateLimited, TemplateNotFound): pytest
// marks it with "E   ", and Python prints it unindented after its frames
// (afterPyFrames) with its message or its module. Elsewhere only a class
// named like an exception is one.
func exceptionLine(l string, afterPyFrames bool) (name, msg string, ok bool) {
	marked := strings.HasPrefix(l, pytestError)
	t := strings.TrimSpace(strings.TrimPrefix(l, pytestError))
	p := uncaughtRe.FindString(t)
	t = t[len(p):]
	m := excLineRe.FindStringSubmatch(t)
	if m == nil {
		return "", "", false
	}
	placed := marked && m[2] != "" ||
		afterPyFrames && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") && (m[2] != "" || strings.Contains(m[1], ".")) ||
		p != "" && (m[1] == "Error" || m[1] == "Exception") // JavaScript's and PHP's base classes, uncaught
	if !placed && !exceptionRe.MatchString(lastPart(m[1])) {
		return "", "", false
	}
	return m[1], m[2], true
}

// readTraceback reads a traceback or stack dump: frames, innermost first,
// the exception class and its message. It returns the frames' function
// names as code words.
func readTraceback(lines []string, names *nameSet, ev *Evidence) []string {
	type frame struct {
		path, fn string
		line     int
	}
	var frames []frame
	var words []string
	lastFunc := ""
	pyFrames := false // a Python frame was read since the last exception line
	// Python (pytest, IPython) prints the innermost frame last; Go, Java
	// and JS first.
	pythonOrder := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		m := pythonFrame(l)
		pythonOrder = pythonOrder || m != nil || strings.Contains(l, "Traceback (most recent call last)")
		if i > 0 && rustPanicRe.MatchString(strings.TrimSpace(lines[i-1])) {
			if isMessage(t) {
				ev.Messages = append(ev.Messages, t)
			}
			continue
		}
		if m != nil {
			n, _ := strconv.Atoi(m[2])
			frames = append(frames, frame{m[1], m[3], n})
			pyFrames = true
			continue
		}
		if path, n, fn, ok := oneLineFrame(l); ok {
			frames = append(frames, frame{path, fn, n})
			continue
		}
		if m := goFuncRe.FindStringSubmatch(t); m != nil {
			lastFunc = m[1]
			continue
		}
		if m := goCreatedRe.FindStringSubmatch(t); m != nil {
			lastFunc = m[1]
			continue
		}
		if m := rustFuncRe.FindStringSubmatch(t); m != nil {
			lastFunc = rustFuncName(m[1])
			continue
		}
		if m := atFrameRe.FindStringSubmatch(l); m != nil {
			lastFunc = m[1]
		}
		if m := fileLineRe.FindStringSubmatch(t); m != nil {
			n, _ := strconv.Atoi(m[2])
			frames = append(frames, frame{m[1], goFuncName(lastFunc), n})
			lastFunc = ""
			continue
		}
		if name, msg, ok := exceptionLine(l, pyFrames); ok {
			pyFrames = false
			if name != "Error" && name != "Exception" {
				names.add(name, weightException) // not every Error of the workspace
			}
			if msg := strings.TrimSpace(msg); isMessage(msg) {
				ev.Messages = append(ev.Messages, msg)
			}
			continue
		}
		if strings.HasPrefix(t, "panic: ") {
			if msg := strings.TrimSpace(strings.TrimPrefix(t, "panic: ")); isMessage(msg) {
				ev.Messages = append(ev.Messages, msg)
			}
		}
	}
	for i := range frames {
		f := frames[i]
		depth := i
		if pythonOrder {
			depth = len(frames) - 1 - i
		}
		file := strings.ReplaceAll(f.path, `\`, "/")
		ev.Paths = append(ev.Paths, Path{Path: file, Line: f.line, Func: f.fn, Frame: depth})
		// A special method ("in __init__") is in every other class: it says
		// which protocol, not which code; the frame's file and line do.
		if f.fn != "" && !strings.HasPrefix(f.fn, "<") && !isDunder(f.fn) {
			names.addFrame(f.fn, weightFrame*frameDecay(depth), file)
			words = append(words, lastPart(f.fn))
		}
	}
	return words
}

// isDunder reports Python's special names: __init__, __call__, __getattr__.
func isDunder(s string) bool {
	return len(s) > 4 && strings.HasPrefix(s, "__") && strings.HasSuffix(s, "__") && !strings.Contains(s, ".")
}

// frameDecay weighs a frame's function by its depth: the innermost frames
// are where things went wrong, the outer ones the way there.
func frameDecay(depth int) float64 { return max(0.4, 1-0.15*float64(depth)) }

// rustFuncName turns "crate::module::Type::method" into "Type.method"
// ("crate::func" into "crate.func"), as goFuncName does Go's, dropping a
// symbol hash ("::h1a2b…").
func rustFuncName(s string) string {
	parts := strings.Split(s, "::")
	if n := len(parts); n > 1 && len(parts[n-1]) == 17 && strings.HasPrefix(parts[n-1], "h") {
		parts = parts[:n-1]
	}
	if n := len(parts); n > 2 {
		parts = parts[n-2:]
	}
	return strings.Join(parts, ".")
}

// goFuncName turns "github.com/x/y.(*T).M" into "T.M", "pkg.F" into "pkg.F".
func goFuncName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.NewReplacer("(*", "", "(", "", ")", "").Replace(s)
	if parts := strings.Split(s, "."); len(parts) == 3 {
		return parts[1] + "." + parts[2] // pkg.T.M → T.M
	}
	return s
}
