package secrettest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFixtureHoldsEverySecret(t *testing.T) {
	secrets := Secrets()
	if kinds := Kinds(secrets); len(kinds) < 40 {
		t.Fatalf("%d kinds of secret planted, want at least 40: %v", len(kinds), kinds)
	}
	var texts []string
	files := Files()
	for _, c := range files {
		texts = append(texts, c)
	}
	for rel, c := range Buffers() {
		texts = append(texts, c)
		if _, ok := files[rel]; ok {
			t.Errorf("buffer %s is also a planted file: it must be unsaved text only", rel)
		}
	}
	all := strings.Join(texts, "\n")
	for _, s := range secrets {
		if !strings.Contains(all, s.Value) {
			t.Errorf("%s %q is not in the workspace", s.Kind, s.Value)
		}
		if s.Public >= len(s.Value) {
			t.Errorf("%s: public prefix %d covers the whole secret", s.Kind, s.Public)
		}
	}
	if leaks := Leaks(all, secrets); len(leaks) != len(secrets) {
		t.Fatalf("Leaks finds %d of %d secrets in the raw workspace", len(leaks), len(secrets))
	}
}

func TestLeaksIgnoresPublicPrefixesAndRedactions(t *testing.T) {
	s := []Secret{{Kind: "github-token", Value: "ghp_QjVDZRucq2zyw8GOuLfafi1JrpRWBJG9encC", Public: 4}}
	if l := Leaks("token ghp_[REDACTED] and ghp_QjV", s); len(l) != 0 {
		t.Fatalf("a public prefix counted as a leak: %v", l)
	}
	if l := Leaks("half of it: Rucq2zyw8GOu", s); len(l) != 1 {
		t.Fatalf("a fragment of the secret was not found: %v", l)
	}
}

func TestPlant(t *testing.T) {
	dir := t.TempDir()
	secrets, err := Plant(dir)
	if err != nil || len(secrets) == 0 {
		t.Fatal(secrets, err)
	}
	for _, rel := range Paths() {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".envrc")); err != nil {
		t.Fatalf("dot files are planted too: %v", err)
	}
}
