package graph_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/context-ls/context-ls/graph/graphtest"
)

// TestGolden extracts every fixture under testdata/<lang>/ and compares the
// rendering with <file>.golden; -update rewrites them. The languages kept
// in their own packages (lang/<name>) check their own.
func TestGolden(t *testing.T) {
	langs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range langs {
		if !l.IsDir() || l.Name() == "fuzz" {
			continue
		}
		t.Run(l.Name(), func(t *testing.T) { graphtest.Golden(t, filepath.Join("testdata", l.Name())) })
	}
}
