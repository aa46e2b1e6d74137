package packs

import (
	_ "embed"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// gitleaksConfig is gitleaks v8.30.1's rule set (MIT; gitleaks/README.md,
// gitleaks/LICENSE): 222 detectors of service tokens with the keywords
// that must occur near them, entropy floors and allowlists.
//
//go:embed gitleaks/gitleaks.toml
var gitleaksConfig []byte

// gitleaksFile is the part of a gitleaks configuration the scrubber reads.
type gitleaksFile struct {
	Allowlist gitleaksAllowlist `toml:"allowlist"`
	Rules     []struct {
		ID          string              `toml:"id"`
		Regex       string              `toml:"regex"`
		Path        string              `toml:"path"`
		Entropy     float64             `toml:"entropy"`
		Keywords    []string            `toml:"keywords"`
		SecretGroup int                 `toml:"secretGroup"`
		Allowlists  []gitleaksAllowlist `toml:"allowlists"`
	} `toml:"rules"`
}

// gitleaksAllowlist says which findings of a rule (or of every rule, for
// the global one) are not secrets: the secret (or, by regexTarget, the
// whole match or line) matches one of the regexes, or the secret holds one
// of the stop words; with condition AND, every check given must hold.
type gitleaksAllowlist struct {
	Regexes     []string `toml:"regexes"`
	StopWords   []string `toml:"stopwords"`
	RegexTarget string   `toml:"regexTarget"`
	Condition   string   `toml:"condition"`
	Paths       []string `toml:"paths"`
}

// allowlist is a compiled gitleaksAllowlist.
type allowlist struct {
	re        *regexp.Regexp // the regexes joined; nil when none
	stopWords []string       // lower case
	target    string
	and       bool
	paths     bool // an AND list with paths, which a snippet without its path never satisfies
}

func compileAllowlist(a gitleaksAllowlist) (allowlist, error) {
	out := allowlist{target: a.RegexTarget, and: strings.EqualFold(a.Condition, "AND"), paths: len(a.Paths) > 0}
	if len(a.Regexes) > 0 {
		re, err := regexp.Compile("(?:" + strings.Join(a.Regexes, ")|(?:") + ")")
		if err != nil {
			return out, err
		}
		out.re = re
	}
	for _, w := range a.StopWords {
		out.stopWords = append(out.stopWords, strings.ToLower(w))
	}
	return out, nil
}

// allows reports whether the list lets a finding pass as no secret.
func (a *allowlist) allows(secret, match, line string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	regex := a.re != nil && a.re.MatchString(target)
	stop := false
	if len(a.stopWords) > 0 {
		lower := strings.ToLower(secret)
		for _, w := range a.stopWords {
			if strings.Contains(lower, w) {
				stop = true
				break
			}
		}
	}
	if !a.and {
		return regex || stop
	}
	return !a.paths && (a.re == nil || regex) && (len(a.stopWords) == 0 || stop)
}

// gitleaksRules compiles the embedded rule set into scrubber rules. Rules
// that need a file path (gitleaks matches some on the path: pkcs12 files,
// nuget.config) are left out: a snippet is scrubbed without its path.
// Each runs on the lines that hold one of its keywords (case-folded), as
// gitleaks runs a rule only on text holding one; the secret is the
// rule's secret group, or its first non-empty group, and must exceed the
// rule's entropy and pass the global and the rule's allowlists.
func gitleaksRules() ([]rule, error) {
	var f gitleaksFile
	if _, err := toml.Decode(string(gitleaksConfig), &f); err != nil {
		return nil, fmt.Errorf("gitleaks rules: %w", err)
	}
	global, err := compileAllowlist(f.Allowlist)
	if err != nil {
		return nil, fmt.Errorf("gitleaks global allowlist: %w", err)
	}
	var rules []rule
	for _, r := range f.Rules {
		if r.Regex == "" || r.Path != "" || len(r.Keywords) == 0 || gitleaksSkipped[r.ID] != "" {
			continue
		}
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			return nil, fmt.Errorf("gitleaks rule %s: %w", r.ID, err)
		}
		lists := []allowlist{global}
		for _, a := range r.Allowlists {
			c, err := compileAllowlist(a)
			if err != nil {
				return nil, fmt.Errorf("gitleaks rule %s allowlist: %w", r.ID, err)
			}
			lists = append(lists, c)
		}
		var needles []string
		for _, k := range r.Keywords {
			needles = append(needles, strings.ToLower(k))
		}
		d := gitleaksDetector{re: re, group: r.SecretGroup, entropy: r.Entropy, allowlists: lists}
		rules = append(rules, rule{name: "gitleaks:" + r.ID, needles: needles, fold: true, perLine: true, find: d.find})
	}
	return rules, nil
}

// gitleaksSkipped are the gitleaks rules the scrubber leaves out, and why.
var gitleaksSkipped = map[string]string{
	// Any "key", "token", "auth" … followed by a value of some entropy:
	// the scrubber's own assignment rules cover these, with a reading of
	// key names held to at most three false redactions over the Go
	// standard library. This one redacted twelve more there
	// (NewEncapsulationKey1024 after "the encapsulation key is not
	// valid,", "encryptionKey": "encryptionKey1024").
	"generic-api-key": "the scrubber's assignment rules",
}

// gitleaksDetector applies one gitleaks rule to a line.
type gitleaksDetector struct {
	re         *regexp.Regexp
	group      int
	entropy    float64
	allowlists []allowlist
}

func (d gitleaksDetector) find(line string) [][2]int {
	var spans [][2]int
	for _, m := range d.re.FindAllStringSubmatchIndex(line, -1) {
		a, b := m[0], m[1]
		switch {
		case d.group > 0 && 2*d.group+1 < len(m):
			a, b = m[2*d.group], m[2*d.group+1]
		case d.group == 0:
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					a, b = m[2*g], m[2*g+1]
					break
				}
			}
		}
		if a < 0 || b <= a {
			continue
		}
		secret := line[a:b]
		if secret == Redacted || (d.entropy > 0 && shannonEntropy(secret) <= d.entropy) {
			continue
		}
		allowed := false
		for i := range d.allowlists {
			if d.allowlists[i].allows(secret, line[m[0]:m[1]], line) {
				allowed = true
				break
			}
		}
		if !allowed {
			spans = append(spans, [2]int{a, b})
		}
	}
	return spans
}

// shannonEntropy is the entropy of s's characters, in bits per character.
func shannonEntropy(s string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, c := range s {
		counts[c]++
		n++
	}
	e := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		e -= p * math.Log2(p)
	}
	return e
}
