package service

import (
	"fmt"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/packs"
)

// TestScrubMemo: the memo answers what the scrubber answers — secrets
// redacted the first time and every time after, texts above its size
// scrubbed without it — and stays within its bound, starting empty again
// when full.
func TestScrubMemo(t *testing.T) {
	sc, err := packs.NewScrubber(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := newScrubMemo(sc, 80, 400)
	secret := "ghp_Zq8rT4mN2pLx7Vb9Kc3Hs6Jd1Fw5Ga0Ey2Uq"
	texts := []string{
		"func Login(token string) error",
		`// Default is "` + secret + `".`,
		"// Token is " + secret + " and much more text, longer than the memo keeps: " + strings.Repeat("x", 80),
		"",
	}
	for round := 0; round < 3; round++ {
		for _, text := range texts {
			got, want := m.Scrub(text), sc.Scrub(text)
			if got != want {
				t.Fatalf("round %d: Scrub(%q) = %q, the scrubber says %q", round, text, got, want)
			}
			if strings.Contains(got, secret) {
				t.Fatalf("round %d: the secret leaked: %q", round, got)
			}
		}
	}
	if _, ok := m.m[texts[1]]; !ok {
		t.Fatalf("a short text is not remembered: %v", m.m)
	}
	if _, ok := m.m[texts[2]]; ok {
		t.Fatal("a text above maxText is remembered")
	}
	for i := 0; i < 50; i++ {
		text := fmt.Sprintf("func F%d(password string) // %s", i, secret)
		if got := m.Scrub(text); got != sc.Scrub(text) || strings.Contains(got, secret) {
			t.Fatalf("Scrub(%q) = %q", text, got)
		}
		if m.bytes > m.maxBytes {
			t.Fatalf("the memo holds %d bytes, above its bound %d", m.bytes, m.maxBytes)
		}
	}
	if len(m.m) >= 50 {
		t.Fatalf("the memo kept %d texts: never started again", len(m.m))
	}
}
