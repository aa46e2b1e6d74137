package packs

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Redacted replaces every secret the scrubber finds.
const Redacted = "[REDACTED]"

// Scrubber redacts secrets from text before it leaves the server: private
// key blocks, cloud and SaaS access tokens (AWS, GCP, GitHub, GitLab,
// Slack, Stripe, OpenAI, npm, PyPI …), JWTs, bearer tokens,
// password/secret/token/api-key assignments in code and config formats
// (quoted values anywhere, unquoted values in "key = value" and
// "key: value" lines), credentials in URLs (postgres://user:pass@host) and
// connection strings (Password=…;), secrets on command lines (mysql
// -pPASSWORD, PGPASSWORD=… psql, --password=…), AWS secret keys beside an
// access key id or in prose, password-shaped words after "password" in
// comments, and the matches of configured extra patterns. Redaction replaces the secret itself with Redacted and keeps
// the rest, so "password = [REDACTED]" still reads as code.
//
// A Scrubber is immutable and safe for concurrent use.
type Scrubber struct {
	rules []rule
	// The needles of the rules, case-folded and exact (rule.ids index
	// them): one pass over a text finds the lines each rule runs on.
	fold, exact *needleSet
}

// rule is one detector. A rule with needles runs only where one of them
// occurs (case-insensitively when fold is set): a perLine rule on each line
// holding a needle, any other rule on the whole text.
type rule struct {
	name    string
	needles []string
	fold    bool
	perLine bool
	ids     []int32 // the needles' ids in the Scrubber's needleSet
	re      *regexp.Regexp
	// group is the submatch whose span is redacted (0: the whole match).
	group int
	// valid, if set, confirms a match: m holds the submatch indexes of
	// the match within s.
	valid func(s string, m []int) bool
	// find replaces re for detectors a regexp cannot express; it gets the
	// text (or one line of it, for a perLine rule) and returns the byte
	// ranges to redact.
	find func(s string) [][2]int
}

// builtin returns the Scrubber of the built-in rules, compiled once. Rules
// are never modified afterwards, so Scrubbers share them.
var builtin = sync.OnceValue(func() *Scrubber { return indexed(builtinRules()) })

// indexed returns a Scrubber of rules, their needles numbered.
func indexed(rules []rule) *Scrubber {
	var fold, exact []string
	ids := [2]map[string]int32{{}, {}}
	for i := range rules {
		r := &rules[i]
		set, list := 0, &exact
		if r.fold {
			set, list = 1, &fold
		}
		for _, n := range r.needles {
			id, ok := ids[set][n]
			if !ok {
				id = int32(len(*list))
				ids[set][n] = id
				*list = append(*list, n)
			}
			r.ids = append(r.ids, id)
		}
	}
	return &Scrubber{rules: rules, fold: newNeedleSet(fold), exact: newNeedleSet(exact)}
}

// Scrub redacts secrets from text with the built-in rules.
func Scrub(text string) string {
	return builtin().Scrub(text)
}

// NewScrubber returns a Scrubber with the built-in rules plus extra
// patterns in RE2 syntax. A pattern with a submatch named "secret" redacts
// only that submatch; otherwise the whole match is redacted. Empty matches
// are ignored. An invalid pattern is an error naming it.
func NewScrubber(extra []string) (*Scrubber, error) {
	base := builtin()
	rules := append(make([]rule, 0, len(base.rules)+len(extra)), base.rules...)
	for i, p := range extra {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %d %q: %w", i+1, p, err)
		}
		g := 0
		if idx := re.SubexpIndex("secret"); idx > 0 {
			g = idx
		}
		rules = append(rules, rule{name: fmt.Sprintf("extra-%d", i+1), re: re, group: g})
	}
	return &Scrubber{rules: rules, fold: base.fold, exact: base.exact}, nil
}

// Scrub returns text with every secret replaced by Redacted.
func (s *Scrubber) Scrub(text string) string {
	out, _ := s.ScrubCount(text)
	return out
}

// ScrubCount is Scrub that also reports how many secrets it redacted.
func (s *Scrubber) ScrubCount(text string) (string, int) {
	spans := s.Find(text)
	if len(spans) == 0 {
		return text, 0
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, sp := range spans {
		b.WriteString(text[last:sp[0]])
		b.WriteString(Redacted)
		last = sp[1]
	}
	b.WriteString(text[last:])
	return b.String(), len(spans)
}

// Find returns the byte ranges of the secrets in text, sorted and merged;
// text[r[0]:r[1]] is what Scrub replaces.
func (s *Scrubber) Find(text string) [][2]int {
	if text == "" {
		return nil
	}
	// The lines holding each needle, case-folded (ASCII only, so byte
	// offsets stay valid) and exact.
	found := [2][][]int{s.exact.lines(text), s.fold.lines(asciiLower(text))}
	var spans [][2]int
	for i := range s.rules {
		r := &s.rules[i]
		var starts []int
		if len(r.ids) > 0 {
			set := found[0]
			if r.fold {
				set = found[1]
			}
			if starts = linesOf(set, r.ids); len(starts) == 0 {
				continue
			}
		}
		if !r.perLine {
			if r.find != nil {
				spans = append(spans, r.find(text)...)
			} else {
				spans = r.apply(text, 0, spans)
			}
			continue
		}
		for _, ls := range starts {
			le := strings.IndexByte(text[ls:], '\n')
			if le < 0 {
				le = len(text)
			} else {
				le += ls
			}
			line := text[ls:le]
			if r.find == nil {
				spans = r.apply(line, ls, spans)
				continue
			}
			for _, sp := range r.find(line) {
				spans = append(spans, [2]int{ls + sp[0], ls + sp[1]})
			}
		}
	}
	return mergeSpans(spans)
}

// linesOf returns the line starts holding one of the needles ids, given
// each needle's (ascending) line starts: ascending, each once.
func linesOf(found [][]int, ids []int32) []int {
	if len(ids) == 1 {
		return found[ids[0]]
	}
	var out []int
	for _, id := range ids {
		out = append(out, found[id]...)
	}
	if len(out) < 2 {
		return out
	}
	sort.Ints(out)
	uniq := out[:1]
	for _, ls := range out[1:] {
		if ls != uniq[len(uniq)-1] {
			uniq = append(uniq, ls)
		}
	}
	return uniq
}

// apply runs the rule's regexp over s (found at offset base of the text)
// and appends the validated spans.
func (r *rule) apply(s string, base int, spans [][2]int) [][2]int {
	for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
		a, b := m[2*r.group], m[2*r.group+1]
		if a < 0 || b <= a {
			continue
		}
		if r.valid != nil && !r.valid(s, m) {
			continue
		}
		if s[a:b] == Redacted {
			continue // already scrubbed: keep Scrub idempotent
		}
		spans = append(spans, [2]int{base + a, base + b})
	}
	return spans
}

func mergeSpans(spans [][2]int) [][2]int {
	if len(spans) < 2 {
		return spans
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i][0] != spans[j][0] {
			return spans[i][0] < spans[j][0]
		}
		return spans[i][1] > spans[j][1]
	})
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp[0] <= last[1] {
			if sp[1] > last[1] {
				last[1] = sp[1]
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

// asciiLower lowers ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// tokenRules are secrets recognisable by their own shape.
var tokenRules = []struct {
	name    string
	needles []string
	re      string
}{
	{"aws-access-key-id", []string{"AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA", "ASCA", "A3T"},
		`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b`},
	{"gcp-api-key", []string{"AIza"}, `\bAIza[0-9A-Za-z_\-]{35}`},
	{"google-oauth-secret", []string{"GOCSPX-"}, `\bGOCSPX-[A-Za-z0-9_\-]{28}`},
	{"github-token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, `\bgh[pousr]_[A-Za-z0-9]{36,}\b`},
	{"github-pat", []string{"github_pat_"}, `\bgithub_pat_[A-Za-z0-9_]{22,}`},
	{"gitlab-token", []string{"glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "gloas-", "glsoat-", "glimt-", "glagent-"}, `\bgl(?:pat|dt|rt|ptt|ft|cbt|oas|soat|imt|agent)-[A-Za-z0-9_\-]{20,}`},
	{"slack-token", []string{"xox", "xapp-"}, `\b(?:xox[abposr]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,})`},
	{"slack-webhook", []string{"hooks.slack.com"}, `https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{20,}`},
	{"jwt", []string{"eyJ"}, `\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*`},
	{"stripe-key", []string{"k_live_", "k_test_", "whsec_"}, `\b(?:[rs]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})`},
	{"openai-anthropic-key", []string{"sk-"}, `\bsk-(?:proj-|ant-(?:api|admin)\d\d-)?[A-Za-z0-9_\-]{32,}`},
	{"npm-token", []string{"npm_"}, `\bnpm_[A-Za-z0-9]{36}\b`},
	{"pypi-token", []string{"pypi-"}, `\bpypi-AgE[A-Za-z0-9_\-]{50,}`},
	{"sendgrid-key", []string{"SG."}, `\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b`},
	{"huggingface-token", []string{"hf_"}, `\bhf_[A-Za-z0-9]{34,}\b`},
	{"shopify-token", []string{"shpat_", "shpca_", "shppa_", "shpss_"}, `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`},
	{"digitalocean-token", []string{"dop_v1_", "doo_v1_", "dor_v1_"}, `\bdo[opr]_v1_[a-f0-9]{64}\b`},
	{"twilio-key", []string{"SK"}, `\bSK[0-9a-f]{32}\b`},
	{"age-secret-key", []string{"AGE-SECRET-KEY-"}, `\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b`},
	{"telegram-bot-token", []string{":AA"}, `\b[0-9]{8,10}:AA[0-9A-Za-z_\-]{33}\b`},
	{"mailgun-key", []string{"key-"}, `\bkey-[0-9a-f]{32}\b`},
}

// Needles for the assignment rules, lower case.
var keyNeedles = []string{"pass", "pwd", "secret", "token", "key", "credential", "auth"}

func builtinRules() []rule {
	gitleaks, err := gitleaksRules()
	if err != nil {
		panic(err) // embedded data: TestGitleaksRules compiles it
	}
	rules := []rule{{name: "private-key", needles: []string{"-----begin", "-----end"}, fold: true, find: findPrivateKeys}}
	rules = append(rules, gitleaks...)
	for _, t := range tokenRules {
		rules = append(rules, rule{name: t.name, needles: t.needles, perLine: true, re: regexp.MustCompile(t.re)})
	}
	return append(rules,
		rule{
			// Bearer tokens in headers and strings: "Authorization: Bearer x".
			name: "bearer", needles: []string{"bearer"}, fold: true, perLine: true,
			re:    regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9_\-.~+/]{20,}=*)`),
			group: 1, valid: func(s string, m []int) bool { return secretLooking(s[m[2]:m[3]], 20) },
		},
		rule{
			// Credentials in URLs: scheme://user:password@host, also
			// without a user (redis://:password@host).
			name: "url-credentials", needles: []string{"://"}, perLine: true,
			re:    regexp.MustCompile("\\b[A-Za-z][A-Za-z0-9+.\\-]{1,30}://[^\\s:/?#@\"'`<>]*:([^\\s/?@\"'`<>]+)@"),
			group: 1, valid: func(s string, m []int) bool { return !isPlaceholder(s[m[2]:m[3]]) },
		},
		rule{
			// A user and password in base64: "Authorization: Basic
			// dXNlcjpwYXNz", a Docker registry's "auth": "dXNlcjpwYXNz".
			name: "basic-credentials", needles: []string{"basic", "auth"}, fold: true, perLine: true,
			re:    regexp.MustCompile(`(?i)(?:\bbasic\s+|\bauth["']?\s*[:=]\s*["']?)([A-Za-z0-9+/]{8,}={0,2})`),
			group: 1, valid: func(s string, m []int) bool { return base64Credentials(s[m[2]:m[3]]) },
		},
		rule{
			// An AWS secret access key assigned or passed whatever its
			// name (key := "…"): 40 characters of base64 in quotes.
			name: "aws-secret-quoted", needles: []string{"\"", "'", "`"}, perLine: true,
			re:    regexp.MustCompile("[\"'`]([A-Za-z0-9/+]{40})[\"'`]"),
			group: 1, valid: func(s string, m []int) bool { v := s[m[2]:m[3]]; return awsSecretShaped(v) && !wordy(v) },
		},
		rule{
			// Connection strings: "Server=x;User Id=y;Password=z;". The
			// pair must touch a ';' so "pwd = os.getcwd()" is left alone.
			name: "connection-string", needles: []string{"password", "pwd", "accountkey", "sharedaccesskey"}, fold: true, perLine: true,
			re:    regexp.MustCompile(`(?i)\b(?:password|pwd|accountkey|sharedaccesskey)\s*=\s*([^;"'\s]+)`),
			group: 1, valid: connectionPair,
		},
		rule{
			// Environment assignments in code: os.Setenv("API_KEY", "…").
			name: "setenv", needles: keyNeedles, fold: true, perLine: true,
			re:    regexp.MustCompile(`(?i)(?:setenv|putenv|environ\s*\[)\s*\(?\s*["']([A-Za-z0-9_.\-]+)["']\s*(?:,|\]\s*=)\s*["']([^"'\n]+)["']`),
			group: 2, valid: func(s string, m []int) bool { return assignmentOK(s[m[2]:m[3]], s[m[4]:m[5]], true) },
		},
		rule{
			// Quoted assignments in code and config: password = "…",
			// "api_key": "…", Token: `…`, secret := '…', pwd == "…",
			// String password = "…", token: string = "…".
			name: "quoted-assignment", needles: keyNeedles, fold: true, perLine: true, find: findQuoted,
		},
		rule{
			// Unquoted values in config lines: PASSWORD=x, password: x,
			// token = x (.env, YAML, INI, properties, shell).
			name: "unquoted-assignment", needles: keyNeedles, fold: true, perLine: true,
			re:    regexp.MustCompile(`^\s*(?:export\s+|-\s+)?([A-Za-z_][A-Za-z0-9_.\-]*)\s*[=:]\s*([^\s"'` + "`" + `=#;!&*|>{\[(<$%][^\s#;]*)\s*(?:[#;].*)?$`),
			group: 2, valid: func(s string, m []int) bool { return assignmentOK(s[m[2]:m[3]], s[m[4]:m[5]], envLine(s, m)) },
		},
		rule{
			// A password given in prose or a comment: "the deploy
			// password is Hp9y…", "password of the user: x…", "(password
			// 51Yn…)". Only a token shaped like a password counts.
			name: "prose-password", needles: []string{"password", "passwd", "passphrase"}, fold: true, perLine: true,
			find: findProsePassword,
		},
		rule{
			// An AWS secret access key (40 base64 characters) on a line
			// that speaks of AWS, an access key id or a secret, also in
			// prose ("key AKIA… with secret …") and next to an id that
			// was already redacted.
			name: "aws-secret-key", needles: []string{"aws", "Aws", "AWS", "AKIA", "ASIA", "secret", "Secret", "SECRET"}, perLine: true,
			re:    regexp.MustCompile(`(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
			group: 1, valid: func(s string, m []int) bool { return awsSecretShaped(s[m[2]:m[3]]) },
		},
		rule{
			// A MySQL/MariaDB password glued to -p on a command line:
			// mysql -u root -pS3cret db.
			name: "mysql-password-flag", needles: []string{"mysql", "mariadb"}, fold: true, perLine: true,
			re:    regexp.MustCompile(`(?:^|\s)-p([^\s'"` + "`" + `]+)`),
			group: 1, valid: func(s string, m []int) bool { return plausibleValue(s[m[2]:m[3]], true) },
		},
		rule{
			// Secrets given to a command: environment prefixes
			// (PGPASSWORD=x psql …) and long flags (--password=x).
			name: "command-line", needles: keyNeedles, fold: true, perLine: true,
			re:    regexp.MustCompile(`(?:^|[\s;&|(])(?:--)?([A-Za-z_][A-Za-z0-9_\-]*)=([^\s"'` + "`" + `;&|()<>$][^\s;&|()<>]*)(?:\s|$)`),
			group: 2, valid: func(s string, m []int) bool { return assignmentOK(s[m[2]:m[3]], s[m[4]:m[5]], false) },
		},
		rule{
			// XML elements: <password>…</password>.
			name: "xml-element", needles: keyNeedles, fold: true, perLine: true,
			re:    regexp.MustCompile(`<([A-Za-z_][A-Za-z0-9_.\-:]*)>([^<\s]+)</`),
			group: 2, valid: func(s string, m []int) bool { return assignmentOK(s[m[2]:m[3]], s[m[4]:m[5]], true) },
		},
	)
}

// namesItself reports whether a quoted value is its key's own name
// (encodeUserPassword: "encodeUserPassword", "encryptionKey":
// "encryptionKey1024"): a table of names, not a secret.
func namesItself(key, value string) bool {
	return strings.EqualFold(strings.TrimRight(value, "0123456789"), key)
}

// envLine reports whether an unquoted assignment match is an environment
// line (.env, shell): an upper-case name and '=' with no space around it,
// where the value is literal text whatever it looks like.
func envLine(s string, m []int) bool {
	key := s[m[2]:m[3]]
	if m[3] >= len(s) || s[m[3]] != '=' || m[4] != m[3]+1 {
		return false
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// findProsePassword returns the password-shaped token that follows a
// password word within its next few words on a line.
func findProsePassword(line string) [][2]int {
	lower := asciiLower(line)
	var spans [][2]int
	for _, word := range []string{"password", "passwd", "passphrase"} {
		for from := 0; ; {
			i := strings.Index(lower[from:], word)
			if i < 0 {
				break
			}
			i += from + len(word)
			from = i
			rest := line[i:]
			for n := 0; n < 5 && rest != ""; n++ {
				t := strings.TrimLeft(rest, " \t:=(\"'`")
				end := strings.IndexAny(t, " \t")
				if end < 0 {
					end = len(t)
				}
				tok := strings.TrimRight(t[:end], ".,;:)\"'`")
				start := i + (len(rest) - len(t))
				if proseSecret(tok) {
					spans = append(spans, [2]int{start, start + len(tok)})
					break
				}
				rest = t[end:]
				i = start + end
			}
		}
	}
	return spans
}

// proseSecret reports whether a word of prose is shaped like a password:
// six characters or more, no code punctuation, and three of lower case,
// upper case, digits and symbols (so "sha256", "required" and
// "r.FormValue" are not).
func proseSecret(v string) bool {
	if len(v) < 6 || len(v) > 128 || isPlaceholder(v) || strings.ContainsAny(v, "()[]{}<>=,;:.\"'`/\\") ||
		strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		return false
	}
	return classesOf(v, "_*&").count() >= 3 // '_', '*', '&': identifiers, pointers
}

// charClasses says which kinds of character a string holds.
type charClasses struct{ lower, upper, digit, other bool }

// classesOf returns the character classes of v; the bytes of plain do
// not count as other.
func classesOf(v, plain string) charClasses {
	var c charClasses
	for i := 0; i < len(v); i++ {
		switch b := v[i]; {
		case 'a' <= b && b <= 'z':
			c.lower = true
		case 'A' <= b && b <= 'Z':
			c.upper = true
		case '0' <= b && b <= '9':
			c.digit = true
		case strings.IndexByte(plain, b) < 0:
			c.other = true
		}
	}
	return c
}

// count is the number of classes present.
func (c charClasses) count() int {
	n := 0
	for _, b := range []bool{c.lower, c.upper, c.digit, c.other} {
		if b {
			n++
		}
	}
	return n
}

// awsSecretShaped reports whether v (40 base64 characters) looks like an
// AWS secret access key: upper and lower case letters and digits, not
// hexadecimal (a SHA-1 is 40 hex digits).
func awsSecretShaped(v string) bool {
	c := classesOf(v, "")
	return c.lower && c.upper && c.digit && !isHex(v)
}

// base64Credentials reports whether v is base64 of "user:password": a
// user name and a password of printable ASCII.
func base64Credentials(v string) bool {
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "=")); err != nil {
			return false
		}
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok || user == "" || len(pass) < 3 {
		return false
	}
	for _, c := range raw {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// wordy reports whether most of v is lower-case runs of three letters or
// more, as in an identifier made of words (AbstractSingletonProxy…), not
// in generated base64 (8 in 100,000 random 40-character strings).
func wordy(v string) bool {
	inWords, run := 0, 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && 'a' <= v[i] && v[i] <= 'z' {
			run++
			continue
		}
		if run >= 3 {
			inWords += run
		}
		run = 0
	}
	return inWords*10 >= len(v)*6
}

// connectionPair accepts a "password=value" match that is part of a
// ';'-separated connection string.
func connectionPair(s string, m []int) bool {
	if !plausibleValue(s[m[2]:m[3]], true) {
		return false
	}
	after := strings.TrimLeft(s[m[3]:], " \t")
	before := strings.TrimRight(s[:m[0]], " \t")
	return strings.HasPrefix(after, ";") || strings.HasSuffix(before, ";")
}

// quotedAssignment matches a key, an optional type annotation or second
// name, an assignment or comparison operator and a quoted value. The key is
// submatch 1 and the optional word after it submatch 2 (in "String
// DB_PASSWORD = …" the name is the second word, in "token: string = …" the
// first); the value is in submatch 3, 4 or 5 depending on its quotes.
var quotedAssignment = regexp.MustCompile("([A-Za-z_$@][A-Za-z0-9_.\\-$]*)[\"']?" +
	"(?:\\s*:?\\s*([A-Za-z_][A-Za-z0-9_.\\[\\]]*))?" +
	"\\s*(?::=|=>|===|==|!=|=|:)\\s*(?:[rRbBuUfF]{1,2})?" +
	"(?:\"((?:[^\"\\\\\\n]|\\\\.)*)\"|'((?:[^'\\\\\\n]|\\\\.)*)'|`([^`\\n]*)`)")

// findQuoted applies quotedAssignment to one line.
func findQuoted(line string) [][2]int {
	if !strings.ContainsAny(line, "\"'`") {
		return nil
	}
	var spans [][2]int
	for _, m := range quotedAssignment.FindAllStringSubmatchIndex(line, -1) {
		class := classifyKey(line[m[2]:m[3]])
		if m[4] >= 0 {
			if c := classifyKey(line[m[4]:m[5]]); c > class {
				class = c
			}
		}
		for g := 3; g <= 5; g++ {
			a, b := m[2*g], m[2*g+1]
			if a < 0 {
				continue
			}
			if v := line[a:b]; v != Redacted && valueOK(class, v, true) && !namesItself(line[m[2]:m[3]], v) {
				spans = append(spans, [2]int{a, b})
			}
		}
	}
	return spans
}

// privateKeyBegin matches the header of a PEM or OpenSSH private key block.
var privateKeyBegin = regexp.MustCompile(`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`)

// privateKeyEnd matches the footer of such a block.
var privateKeyEnd = regexp.MustCompile(`-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`)

// maxKeyBlock bounds the distance from a BEGIN line to its END line.
const maxKeyBlock = 64 << 10

// findPrivateKeys returns the private key blocks of s: from the BEGIN line
// to the END line when there is one within maxKeyBlock, else (a block cut
// off at the end of a snippet) the BEGIN line and the key material that
// follows it. Only blocks that carry key material (at least 16 base64
// characters) count, so code that merely mentions the header is left
// alone.
func findPrivateKeys(s string) [][2]int {
	var spans [][2]int
	for _, m := range privateKeyBegin.FindAllStringIndex(s, -1) {
		if len(spans) > 0 && m[0] < spans[len(spans)-1][1] {
			continue
		}
		rest := s[m[1]:]
		if len(rest) > maxKeyBlock {
			rest = rest[:maxKeyBlock]
		}
		if e := privateKeyEnd.FindStringIndex(rest); e != nil {
			if base64Chars(rest[:e[0]]) >= 16 {
				spans = append(spans, [2]int{m[0], m[1] + e[1]})
			}
			continue
		}
		n := keyMaterialLen(rest)
		if base64Chars(rest[:n]) >= 16 {
			spans = append(spans, [2]int{m[0], m[1] + n})
		}
	}
	// A snippet that starts inside a block (a chunk cut from the middle
	// of a file) has its END line only: the key material before it goes.
	for _, m := range privateKeyEnd.FindAllStringIndex(s, -1) {
		if covered(spans, m[0]) {
			continue
		}
		start := m[0]
		for start > 0 && start > m[0]-maxKeyBlock && isKeyMaterialByte(s[start-1]) {
			start--
		}
		if base64Chars(s[start:m[0]]) >= 16 {
			spans = append(spans, [2]int{start, m[1]})
		}
	}
	return spans
}

// covered reports whether offset i lies in one of spans.
func covered(spans [][2]int, i int) bool {
	for _, sp := range spans {
		if sp[0] <= i && i < sp[1] {
			return true
		}
	}
	return false
}

// isKeyMaterialByte reports whether c may occur in the lines of a key
// block (base64, white space, the "\n" of an escaped newline).
func isKeyMaterialByte(c byte) bool {
	return isBase64Byte(c) || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\\'
}

// keyMaterialLen returns the length of the prefix of s made of key
// material: base64 characters, white space, escaped newlines and PEM
// header lines ("Proc-Type: 4,ENCRYPTED").
func keyMaterialLen(s string) int {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == 'n':
			i += 2
		case isBase64Byte(c) || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':' || c == ',' || c == '-':
			i++
		default:
			return i
		}
	}
	return i
}

func base64Chars(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isBase64Byte(s[i]) {
			n++
		}
	}
	return n
}

func isBase64Byte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

// keyClass says what kind of secret a key name announces.
type keyClass int

const (
	keyNone     keyClass = iota
	keyToken             // token, api key …: only secret-looking values are
	keyPassword          // password, passwd, secret …: any real value is a secret
)

// Words of key names, split at camel case, '_', '-', '.'.
var (
	passwordWords = map[string]bool{"password": true, "passwd": true, "passphrase": true, "pwd": true,
		"secret": true, "secrets": true, "credential": true, "credentials": true, "pass": true}
	tokenWords = map[string]bool{"token": true, "apikey": true, "accesskey": true, "secretkey": true,
		"privatekey": true, "authkey": true, "accountkey": true, "authtoken": true, "accesstoken": true}
	tokenPairs = map[[2]string]bool{{"api", "key"}: true, {"access", "key"}: true, {"secret", "key"}: true,
		{"private", "key"}: true, {"auth", "key"}: true, {"account", "key"}: true, {"signing", "key"}: true,
		{"encryption", "key"}: true, {"master", "key"}: true, {"client", "key"}: true}
	// A key whose last word is one of these names something about the
	// secret (its file, its length, its prompt), not the secret.
	notSecretLast = map[string]bool{"type": true, "types": true, "kind": true, "name": true, "names": true,
		"file": true, "files": true, "path": true, "dir": true, "url": true, "uri": true, "endpoint": true,
		"prompt": true, "label": true, "field": true, "fields": true, "header": true, "headers": true,
		"param": true, "params": true, "len": true, "length": true, "size": true, "count": true,
		"prefix": true, "suffix": true, "pattern": true, "regex": true, "re": true, "env": true, "var": true,
		"policy": true, "ttl": true, "timeout": true, "lifetime": true, "expiry": true, "expires": true,
		"hint": true, "format": true, "fmt": true, "msg": true, "message": true, "error": true, "err": true,
		"text": true, "title": true, "placeholder": true, "min": true, "max": true, "chars": true,
		"index": true, "idx": true, "pos": true, "offset": true, "start": true, "end": true,
		"char": true, "sep": true, "separator": true, "delim": true, "kinds": true, "mode": true,
		"required": true, "enabled": true, "changed": true, "reset": true, "provider": true, "source": true,
		"location": true, "store": true, "manager": true, "helper": true, "cmd": true, "command": true,
		"algorithm": true, "alg": true, "method": true, "scheme": true, "version": true, "hash": true}
)

// splitKey splits an identifier into lower-case words.
func splitKey(key string) []string {
	var words []string
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == '$' || c == '@' || c == ':':
			flush()
		case 'A' <= c && c <= 'Z':
			// A new word starts at an upper-case letter that follows a
			// lower-case one or precedes one (camelCase, HTTPServer).
			if len(cur) > 0 {
				prev := key[i-1]
				nextLower := i+1 < len(key) && 'a' <= key[i+1] && key[i+1] <= 'z'
				if 'a' <= prev && prev <= 'z' || '0' <= prev && prev <= '9' || ('A' <= prev && prev <= 'Z' && nextLower) {
					flush()
				}
			}
			cur = append(cur, c)
		default:
			cur = append(cur, c)
		}
	}
	flush()
	return words
}

// classifyKey says whether a key name announces a secret.
func classifyKey(key string) keyClass {
	words := splitKey(key)
	if len(words) == 0 || notSecretLast[words[len(words)-1]] {
		return keyNone
	}
	class := keyNone
	for i, w := range words {
		if passwordWords[w] || gluedPassword(w) {
			if w == "pass" && len(words) > 1 && i == len(words)-1 && words[i-1] != "db" && words[i-1] != "user" {
				continue // "bypass", "firstPass" are not passwords
			}
			return keyPassword
		}
		if tokenWords[w] {
			class = keyToken
		}
		if i > 0 && tokenPairs[[2]string{words[i-1], w}] {
			class = keyToken
		}
	}
	return class
}

// gluedPassword reports whether a word ends in a password word with a
// prefix glued on (PGPASSWORD, MYSQL_PWD is split already, dbpasswd).
func gluedPassword(w string) bool {
	for _, p := range []string{"password", "passwd", "passphrase"} {
		if len(w) > len(p) && strings.HasSuffix(w, p) {
			return true
		}
	}
	return false
}

// assignmentOK reports whether value, assigned to key, is a secret to
// redact. Quoted values may hold any characters; unquoted ones must not
// look like code (an identifier, a call, a field access).
func assignmentOK(key, value string, quoted bool) bool {
	return valueOK(classifyKey(key), value, quoted)
}

// valueOK reports whether value, assigned to a key of the given class, is
// a secret to redact.
func valueOK(class keyClass, value string, quoted bool) bool {
	if class == keyNone {
		return false
	}
	if !plausibleValue(value, quoted) {
		return false
	}
	if class == keyToken {
		return secretLooking(value, 8)
	}
	return true
}

// maxSecretLen bounds the values the assignment rules consider; longer
// ones are data, not credentials.
const maxSecretLen = 512

// plausibleValue rejects placeholders and, for unquoted values, code.
func plausibleValue(v string, quoted bool) bool {
	if v == "" || len(v) > maxSecretLen || strings.ContainsAny(v, " \t") || isPlaceholder(v) || onlyEscapes(v) {
		return false
	}
	if len(v) < 3 {
		return false
	}
	if quoted {
		return true
	}
	if strings.ContainsAny(v, "()[]{}<>,") {
		return false // a call, index or literal: code
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "nil", "none", "yes", "no", "on", "off", "undefined", "required", "optional":
		return false
	}
	hasDigit, ident := false, true
	for i := 0; i < len(v); i++ {
		c := v[i]
		if '0' <= c && c <= '9' {
			hasDigit = true
			continue
		}
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '.') {
			ident = false
		}
	}
	if ident && !hasDigit {
		return false // an identifier or a field access: code
	}
	if ident && strings.Contains(v, ".") {
		return false // obj.field2
	}
	if isDigits(v) && len(v) < 8 {
		return false // a port, a count, a timeout
	}
	if len(v) > 2 && (v[:2] == "0x" || v[:2] == "0X") && isHex(v[2:]) {
		return false // a numeric constant: SCM_CREDENTIALS = 0x2
	}
	return true
}

// onlyEscapes reports whether a quoted value is made of escape sequences
// only ("\u3299\ufe0f"): a character table, not a secret.
func onlyEscapes(v string) bool {
	for v != "" {
		if len(v) < 2 || v[0] != '\\' {
			return false
		}
		n := 2
		for n < len(v) && isHex(v[n:n+1]) {
			n++
		}
		v = v[n:]
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// secretLooking reports whether v looks like a generated token: long
// enough, no spaces, not a URL or path, and mixing character classes.
func secretLooking(v string, minLen int) bool {
	if len(v) < minLen || strings.ContainsAny(v, " \t") || isPlaceholder(v) {
		return false
	}
	if strings.Contains(v, "://") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return false
	}
	c := classesOf(v, "")
	return c.count() >= 2 && (c.digit || len(v) >= 20)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// placeholderWords are values that stand for a secret without being one.
var placeholderWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "secret": true, "token": true,
	"changeme": true, "change_me": true, "example": true, "dummy": true, "sample": true,
	"test": true, "testing": true, "redacted": true, "hidden": true, "none": true, "null": true,
	"nil": true, "undefined": true, "todo": true, "fixme": true, "xxx": true, "apikey": true,
	"api_key": true, "your_password": true, "your_token": true, "your_api_key": true, "mypassword": true,
	"user": true, "username": true, "foo": true, "bar": true, "baz": true, "p": true, "pw": true,
}

// isPlaceholder reports whether v is a template, variable reference,
// format verb, masked value or a stand-in word rather than a secret.
func isPlaceholder(v string) bool {
	t := strings.TrimSpace(v)
	if t == "" || t == Redacted {
		return true
	}
	l := strings.ToLower(t)
	if placeholderWords[l] || strings.HasPrefix(l, "your") || strings.HasPrefix(l, "my_") || strings.HasPrefix(l, "<") ||
		strings.HasPrefix(l, "${") || strings.HasPrefix(l, "$(") || strings.HasPrefix(l, "{{") || strings.HasPrefix(l, "%") ||
		strings.HasPrefix(l, "{") && strings.HasSuffix(l, "}") || strings.HasPrefix(l, "$") && isIdentLike(l[1:]) {
		return true
	}
	if strings.Contains(l, "%s") || strings.Contains(l, "%v") || strings.Contains(l, "%(") || strings.Contains(l, "{}") ||
		strings.Contains(l, "{0}") || strings.Contains(l, "${") {
		return true
	}
	// Masks: "****", "xxxxxxxx", "........".
	same := true
	for i := 1; i < len(l); i++ {
		if l[i] != l[0] {
			same = false
			break
		}
	}
	return same && len(l) > 1
}

func isIdentLike(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
