package packs

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// plantedCase is one case of testdata/scrub/planted.txt: the text with the
// «» markers removed and the secrets they delimited.
type plantedCase struct {
	name    string
	text    string
	secrets []string
}

// loadPlanted reads the planted-secret corpus: "-- name --" lines start a
// case, «…» marks each secret.
func loadPlanted(t *testing.T) []plantedCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "scrub", "planted.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []plantedCase
	var body []string
	name := ""
	flush := func() {
		if name == "" {
			return
		}
		raw := strings.Join(body, "\n")
		c := plantedCase{name: name}
		var sb strings.Builder
		for {
			i := strings.Index(raw, "«")
			if i < 0 {
				sb.WriteString(raw)
				break
			}
			j := strings.Index(raw[i:], "»")
			if j < 0 {
				t.Fatalf("case %s: unclosed «", name)
			}
			sb.WriteString(raw[:i])
			secret := raw[i+len("«") : i+j]
			sb.WriteString(secret)
			c.secrets = append(c.secrets, secret)
			raw = raw[i+j+len("»"):]
		}
		c.text = sb.String()
		if len(c.secrets) == 0 {
			t.Fatalf("case %s plants no secret", name)
		}
		cases = append(cases, c)
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			name, body = strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --"), nil
			continue
		}
		if name != "" {
			body = append(body, line)
		}
	}
	flush()
	return cases
}

// leaks returns the 8-byte windows of secret (the whole secret when
// shorter) that survive in out.
func leaks(out, secret string) []string {
	const w = 8
	if len(secret) <= w {
		if strings.Contains(out, secret) {
			return []string{secret}
		}
		return nil
	}
	var found []string
	for i := 0; i+w <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+w]) {
			found = append(found, secret[i:i+w])
		}
	}
	return found
}

func TestScrubPlantedSecrets(t *testing.T) {
	cases := loadPlanted(t)
	if len(cases) < 40 {
		t.Fatalf("planted corpus has %d cases, want at least 40", len(cases))
	}
	total := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, n := builtin().ScrubCount(c.text)
			if n == 0 {
				t.Fatalf("nothing redacted in:\n%s", c.text)
			}
			for _, s := range c.secrets {
				total++
				if l := leaks(out, s); len(l) > 0 {
					t.Errorf("secret %q leaks %q in:\n%s", s, l, out)
				}
			}
			if again := Scrub(out); again != out {
				t.Errorf("Scrub is not idempotent:\n%s\n---\n%s", out, again)
			}
		})
	}
	t.Logf("%d cases, %d planted secrets", len(cases), total)
}

// TestScrubKeepsOrdinaryCode lists code that mentions secrets without
// holding one; none of it may change.
func TestScrubKeepsOrdinaryCode(t *testing.T) {
	for _, text := range []string{
		`password := r.FormValue("password")`,
		`if password == "" { return errEmpty }`,
		`token := tok.Next()`,
		`tok, err := token.Parse(src)`,
		`case token.STRING:`,
		`secret = secrets.token_bytes(32)`,
		`password = getpass.getpass("Password: ")`,
		`const passwordPrompt = "Enter password: "`,
		`tokenizer = "bert-base-uncased"`,
		`max_tokens = 4096`,
		`api_key = os.environ["API_KEY"]`,
		`API_KEY=${API_KEY}`,
		`password: ${DB_PASSWORD}`,
		`password: "{{ .Values.password }}"`,
		`token_url = "https://oauth2.googleapis.com/token"`,
		`password_file: /run/secrets/db_password`,
		`secret_name: prod-db-credentials`,
		`pwd = os.getcwd()`,
		`url := "postgres://user:password@localhost/db"`,
		`dsn := fmt.Sprintf("postgres://%s:%s@%s/%s", u, p, h, d)`,
		`-----BEGIN RSA PRIVATE KEY-----`,
		`const pemHeader = "-----BEGIN PRIVATE KEY-----"`,
		`Token: "IDENT",`,
		`AccessKeyID: accessKey,`,
		`password: str = None`,
		`secretKey := make([]byte, 32)`,
		`"token_type": "bearer",`,
		`Authorization: Bearer <token>`,
		`password = "********"`,
		`PASSWORD=changeme`,
		`key = "value"`,
		`keyLen = "keylen"`,
		`if s.token == "Bearer" {`,
		`byPass: "yes"`,
		`sk-learn is not a key`,
		`SCM_CREDENTIALS                  = 0x2`,
		`NL80211_ATTR_SAE_PASSWORD = 0x115`,
		`encodeUserPassword:   "encodeUserPassword",`,
		`"encryptionKey": "encryptionKey1024",`,
		`"secret":                               "\u3299\ufe0f",`,
		`// 	groupname:password:GID:user_list`,
		`FVE_E_NO_TPM_WITH_PASSPHRASE  Handle = 0x803100AC`,
		`// password hashing with bcrypt2b and sha256`,
		`// the password is required`,
		`func _C_pw_uid(p *_C_struct_passwd) _C_uid_t { return p.pw_uid }`,
		`// Ask for the password with term.ReadPassword(fd).`,
		`mysql -p app_db`,
		`mysql -p$MYSQL_PWD app_db`,
		`git log --format=%H -1 # secret 0123456789abcdef0123456789abcdef01234567`,
		`PASSWORD=$(cat /run/secrets/db) ./server`,
		`// "Basic realm" is the challenge; basic authentication follows.`,
		`auth: "Zm9vYmFyYmF6cXV4"`, // base64, but not a user and a password
		`conn := "redis://localhost:6379/0"`,
		`ws := "ws://:8080/socket"`,
		`hash := "9c1b2e4f6a8d0c2e4f6a8b0d1c3e5f7a9c1b2e4f"`, // 40 hex: a SHA-1
		`name := "AbstractSingletonProxyFactoryBeanImpl123"`, // 40 characters, words
	} {
		if got := Scrub(text); got != text {
			t.Errorf("Scrub changed ordinary code:\n in: %s\nout: %s", text, got)
		}
	}
}

func TestScrubExtraPatterns(t *testing.T) {
	s, err := NewScrubber([]string{`INTERNAL-[0-9]{6}`, `ticket=(?P<secret>[a-z]{4,})`})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Scrub("id INTERNAL-123456 and ticket=abcdef; INTERNAL-12")
	want := "id [REDACTED] and ticket=[REDACTED]; INTERNAL-12"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A pattern matching the empty string must not litter the text.
	s, err = NewScrubber([]string{`x*`})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Scrub("abc"); got != "abc" {
		t.Errorf("empty matches redacted: %q", got)
	}
	if _, err := NewScrubber([]string{`(unclosed`}); err == nil || !strings.Contains(err.Error(), "(unclosed") {
		t.Errorf("invalid pattern: got %v, want an error naming it", err)
	}
}

func TestSplitKey(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"DB_PASSWORD", "db password"},
		{"apiKey", "api key"},
		{"x-api-key", "x api key"},
		{"HTTPServerToken", "http server token"},
		{"cfg.Password", "cfg password"},
		{"aws_secret_access_key", "aws secret access key"},
		{"tokenizer", "tokenizer"},
		{"token2FA", "token2 fa"},
	} {
		if got := strings.Join(splitKey(c.in), " "); got != c.want {
			t.Errorf("splitKey(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestScrubStdlibCorpus scrubs a sample of ordinary code — Go and Python
// standard library sources — and checks that (almost) nothing is redacted.
// Every redaction is logged; those in test fixtures that hold
// credential-shaped test data are expected, anything else counts as a false
// redaction.
func TestScrubStdlibCorpus(t *testing.T) {
	var roots []string
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		roots = append(roots, filepath.Join(strings.TrimSpace(string(out)), "src"))
	}
	if out, err := exec.Command("python3", "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output(); err == nil {
		roots = append(roots, strings.TrimSpace(string(out)))
	}
	if len(roots) == 0 {
		t.Skip("neither the Go nor the Python standard library is available")
	}
	const perRoot = 400
	files := 0
	var falseRedactions []string
	for _, root := range roots {
		sample, err := sampleFiles(root, perRoot)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range sample {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files++
			text := string(data)
			for _, sp := range builtinFind(text) {
				line := lineAround(text, sp[0])
				rel, _ := filepath.Rel(root, path)
				if isTestFixture(rel) {
					t.Logf("test data: %s: %s", rel, line)
					continue
				}
				falseRedactions = append(falseRedactions, rel+": "+line)
			}
		}
	}
	t.Logf("%d files scrubbed, %d false redactions", files, len(falseRedactions))
	for _, f := range falseRedactions {
		t.Errorf("false redaction: %s", f)
	}
}

// builtinFind is Find with the built-in rules.
func builtinFind(text string) [][2]int {
	return builtin().Find(text)
}

// sampleFiles returns every k-th source file under root so that about n
// are returned, deterministically.
func sampleFiles(root string, n int) ([]string, error) {
	var all []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "site-packages" || name == "__pycache__" {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".go" || ext == ".py" {
			all = append(all, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(all)
	step := len(all)/n + 1
	var out []string
	for i := 0; i < len(all); i += step {
		out = append(out, all[i])
	}
	return out, nil
}

var testFixturePath = regexp.MustCompile(`(_test\.go$|/test_[^/]*\.py$|(^|/)(testdata|tests?)/)`)

func isTestFixture(rel string) bool { return testFixturePath.MatchString(filepath.ToSlash(rel)) }

func lineAround(text string, off int) string {
	s := strings.LastIndexByte(text[:off], '\n') + 1
	e := strings.IndexByte(text[off:], '\n')
	if e < 0 {
		e = len(text)
	} else {
		e += off
	}
	l := strings.TrimSpace(text[s:e])
	if len(l) > 160 {
		l = l[:160] + "…"
	}
	return l
}

func FuzzScrub(f *testing.F) {
	for _, c := range []string{
		"password = \"hunter2\"",
		"-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEA\n",
		"postgres://a:b@c/d",
		"AKIAIOSFODNN7EXAMPLE",
		"\xff\xfe token: \"x\x00y\"",
	} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, n := builtin().ScrubCount(s)
		if n == 0 && out != s {
			t.Fatalf("changed text without redacting")
		}
		if n > 0 && !strings.Contains(out, Redacted) {
			t.Fatalf("redacted %d but no marker in %q", n, out)
		}
	})
}

// TestGitleaksRules: gitleaks's rule set compiles, every rule the scrubber
// leaves out exists, and its rules find what the scrubber's own do not.
func TestGitleaksRules(t *testing.T) {
	rules, err := gitleaksRules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) < 200 {
		t.Errorf("%d gitleaks rules compiled, want 200 or more", len(rules))
	}
	names := map[string]bool{}
	for _, r := range rules {
		names[strings.TrimPrefix(r.name, "gitleaks:")] = true
	}
	for id := range gitleaksSkipped {
		if names[id] {
			t.Errorf("skipped rule %s is in the set", id)
		}
	}
	var ownRules []rule
	for _, r := range builtinRules() {
		if !strings.HasPrefix(r.name, "gitleaks:") {
			ownRules = append(ownRules, r)
		}
	}
	own := indexed(ownRules)
	for _, c := range loadPlanted(t) {
		if !strings.HasPrefix(c.name, "gitleaks-") {
			continue
		}
		if got := own.Scrub(c.text); got != c.text {
			t.Errorf("%s: the scrubber's own rules find it already: %s", c.name, got)
		}
	}
}
