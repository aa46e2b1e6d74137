package chunking

import (
	"os"
	"testing"
)

// BenchmarkCountTokens measures CountTokens throughput on Go and Python
// standard library files (reported as MB/s).
func BenchmarkCountTokens(b *testing.B) {
	var texts []string
	size := 0
	for _, root := range []struct{ dir, ext string }{{goStdlib(b), ".go"}, {pyStdlib(b), ".py"}} {
		for _, p := range every(listFiles(b, root.dir, root.ext), 50, 7) {
			src, err := os.ReadFile(p)
			if err != nil {
				b.Fatalf("read %s: %v", p, err)
			}
			texts = append(texts, string(src))
			size += len(src)
		}
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for _, t := range texts {
			n += CountTokens(t)
		}
	}
	if n == 0 {
		b.Fatal("no tokens counted")
	}
}
