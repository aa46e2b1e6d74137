package querytext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAnalyse reads any text — a query, a bug report with its traceback
// in any form — without failing, and what it reads comes from the text:
// every message and literal is in it, every frame has a depth of -1 (a
// plain path) or more and a line of 0 or more, every name has a text and
// a positive weight.
func FuzzAnalyse(f *testing.F) {
	for _, seed := range []string{
		"Traceback (most recent call last):\n  File \"/srv/app/x.py\", line 3, in run\n    go()\nValueError: bad value here\n",
		"title\n\ntests/test_x.py:4: \n_ _ _\n/venv/x/y.py:14: in get_json\n    return 1\nE   x.errors.RateLimited: rate limited, retry after 1.0s\n",
		"---\nKeyError     Traceback (most recent call last)\nCell In[3], line 1\n----> 1 f()\n\nFile ~/v/a.py:23, in A.f(self)\n---> 23 g()\n\nKeyError: 'x'\n",
		"panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.(*T).M(...)\n\t/a/b.go:12 +0x1f\n",
		"TypeError: Cannot read properties of undefined\n    at f (/app/a.ts:31:40)\n    at async g (/app/b.ts:2:1)\n",
		"thread 'main' panicked at src/p.rs:4:5:\nindex out of bounds\nstack backtrace:\n   0: a::b::C::d\n             at ./src/p.rs:4:5\n",
		"NoMethodError: x\napp/a.rb:4:in `block in A#b'\n\tfrom app/c.rb:2:in `d'\n#0 /a/B.php(3): A\\B->c()\n   at A.B.C() in C:\\a\\B.cs:line 4\n",
		"Add `no_args_is_help` to click.Command; see --help and \"quoted message\"",
		"E   \nE    \nFile :1, in \nFile \"\", line 0\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		ev := Analyse(text)
		for _, m := range ev.Messages {
			if !strings.Contains(text, m) {
				t.Errorf("message %q is not in the text", m)
			}
		}
		for _, p := range ev.Paths {
			if p.Frame < -1 || p.Line < 0 {
				t.Errorf("path %+v", p)
			}
		}
		for _, n := range ev.Names {
			if n.Text == "" || !(n.Weight > 0) {
				t.Errorf("name %+v", n)
			}
		}
	})
}
