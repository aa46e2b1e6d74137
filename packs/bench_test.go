package packs

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/symbols"
)

// stdlibCandidates turns the definitions of a few Go standard library
// packages into n candidates with decreasing scores, as a query would
// return them.
func stdlibCandidates(b *testing.B, n int) []Candidate {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no Go toolchain to find the standard library")
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	p := symbols.NewParser()
	defer p.Close()
	var cands []Candidate
	for _, pkg := range []string{"net/http", "encoding/json", "strings"} {
		files, _ := filepath.Glob(filepath.Join(src, pkg, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			file, err := p.Parse(context.Background(), symbols.ByName("go"), data)
			if err != nil {
				b.Fatal(err)
			}
			rel, _ := filepath.Rel(src, f)
			for _, s := range file.Symbols {
				sp := s.FullSpan()
				if s.Kind != symbols.KindFunction && s.Kind != symbols.KindMethod {
					continue
				}
				cands = append(cands, Candidate{
					Path: filepath.ToSlash(rel), StartLine: sp.Start.Line + 1, EndLine: sp.End.Line + 1,
					Symbol: s.QualifiedName(), Kind: string(s.Kind), Language: "go",
					Text: string(data[sp.StartByte:sp.EndByte]), Source: SourceQuery, Reason: "query match",
				})
			}
			file.Close()
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	if len(cands) > n {
		cands = cands[:n]
	}
	for i := range cands {
		cands[i].Score = 1 - float64(i)/float64(len(cands))
	}
	return cands
}

// BenchmarkBuild measures Build alone (no retrieval) on 150 standard
// library definitions for a 4,000-token markdown pack.
func BenchmarkBuild(b *testing.B) {
	cands := stdlibCandidates(b, 150)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := Build(Request{Budget: 4000}, cands)
		if err != nil {
			b.Fatal(err)
		}
		if p.Tokens > 4000 {
			b.Fatalf("%d tokens", p.Tokens)
		}
	}
}

// BenchmarkScrub measures the secret scrubber on standard library code.
func BenchmarkScrub(b *testing.B) {
	cands := stdlibCandidates(b, 1000)
	var text strings.Builder
	for _, c := range cands {
		text.WriteString(c.Text)
	}
	s := text.String()
	b.SetBytes(int64(len(s)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Scrub(s)
	}
}
