package bash_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/context-ls/context-ls/graph"
	"github.com/context-ls/context-ls/graph/graphtest"
	"github.com/context-ls/context-ls/lang/bash"
	"github.com/context-ls/context-ls/symbols"
	"github.com/context-ls/context-ls/symbols/symbolstest"
)

func TestDetect(t *testing.T) {
	for _, p := range []string{"run.sh", "x.bash", "b.zsh", ".bashrc", "home/u/.profile"} {
		if got := symbols.ForPath(p); got != bash.Language {
			t.Errorf("ForPath(%q) = %v, want bash", p, got)
		}
	}
	for _, head := range []string{"#!/bin/bash\nset -e\n", "#!/bin/sh\n", "\xef\xbb\xbf#!/bin/bash\n", "#!/usr/bin/env dash\n", "#!/bin/zsh5\n"} {
		if got := symbols.ForContent("bin/tool", []byte(head)); got != bash.Language {
			t.Errorf("ForContent(bin/tool, %q) = %v, want bash", head, got)
		}
	}
	if got := symbols.ForContent("script.py", []byte("#!/bin/bash\n")); got == bash.Language {
		t.Error("the extension should win over the #! line")
	}
	for _, n := range []string{"bash", "sh", " Shell "} {
		if l := symbols.ByName(n); l != bash.Language || !l.HasGrammar() {
			t.Errorf("ByName(%q) = %v, want the registered grammar", n, l)
		}
	}
	if !graph.Supported("bash") {
		t.Error("graph does not support bash")
	}
}

func TestSymbolsGolden(t *testing.T) {
	symbolstest.Golden(t, filepath.Join("testdata", "symbols"), "bash")
}

// FuzzParse feeds arbitrary bytes to the bash grammar; seeds are the
// symbols fixtures and bytes that are no text.
//
//	go test ./lang/bash -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	symbolstest.FuzzFixtures(f, bash.Language, filepath.Join("testdata", "symbols"), []byte("\xff\xfe\x00\x00"))
}

func TestGraphGolden(t *testing.T) {
	graphtest.Golden(t, filepath.Join("testdata", "graph"))
}

func TestCallers(t *testing.T) {
	ix := graphtest.Build(t, filepath.Join("testdata", "graph"))
	if got, want := graphtest.Callers(t, ix, "lib.sh:prepare"), []string{"build.sh:build likely"}; !reflect.DeepEqual(got, want) {
		t.Errorf("callers of a sourced function:\n got %q\nwant %q", got, want)
	}
}
