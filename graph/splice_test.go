package graph

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/symbols"
)

// TestExtractSplicedMatchesExtract holds the spliced graph to a full
// extraction: chains of editor-like edits of Go standard library files
// (testutil.GoEditChains), each version re-parsed from the one before and
// its graph spliced from the one before, give at every step the graph —
// its encoding, reverse entries and fields — a full parse and extraction
// of the same text gives.
func TestExtractSplicedMatchesExtract(t *testing.T) {
	lang := symbols.ByName("go")
	ctx := context.Background()
	inc, full := symbols.NewParser(), symbols.NewParser()
	defer inc.Close()
	defer full.Close()
	src0 := filepath.Join(runtime.GOROOT(), "src") + string(filepath.Separator)
	edits, spliced := 0, 0
	testutil.GoEditChains(t, func(path string, src []byte) (func(int, string, []byte), func()) {
		rel := filepath.ToSlash(path[len(src0):])
		prev, err := inc.Parse(ctx, lang, src)
		if err != nil {
			return nil, nil
		}
		prevG := Extract(prev, rel)
		edit := func(step int, kind string, next []byte) {
			f, err := inc.Reparse(ctx, prev, next)
			prev.Close()
			if err != nil {
				t.Fatalf("%s step %d (%s): %v", rel, step, kind, err)
			}
			prev = f
			got := extractSpliced(prevG, f, rel) // ExtractSpliced, counted
			if got != nil {
				spliced++
			} else {
				got = Extract(f, rel)
			}
			prevG = got
			wf, err := full.Parse(ctx, lang, next)
			if err != nil {
				t.Fatalf("%s step %d: full parse: %v", rel, step, err)
			}
			defer wf.Close()
			edits++
			if d := graphDiff(got, Extract(wf, rel)); d != "" {
				t.Fatalf("%s step %d (%s, splice %+v): %s", rel, step, kind, f.Splice, d)
			}
		}
		return edit, func() { prev.Close() }
	})
	t.Logf("%d edits, %d graphs spliced", edits, spliced)
	if spliced < edits/3 {
		t.Fatalf("only %d of %d edits spliced", spliced, edits)
	}
}

// graphDiff describes how two graphs differ: in their encoding, reverse
// entries or, nil and empty lists alike, their fields; "" when they do not.
func graphDiff(got, want *FileGraph) string {
	if !bytes.Equal(Encode(got), Encode(want)) {
		for _, f := range []struct {
			name      string
			got, want any
		}{{"calls", got.Calls, want.Calls}, {"type refs", got.TypeRefs, want.TypeRefs}, {"tests", got.Tests, want.Tests}, {"imports", got.Imports, want.Imports}, {"types", got.Types, want.Types}, {"fields", got.Fields, want.Fields}} {
			if !reflect.DeepEqual(f.got, f.want) {
				return fmt.Sprintf("%s differ:\n got  %+v\n want %+v", f.name, f.got, f.want)
			}
		}
		return "the encodings differ"
	}
	if !reflect.DeepEqual(ReverseEntries(got), ReverseEntries(want)) {
		return "the reverse entries differ"
	}
	norm := func(g FileGraph) FileGraph {
		if len(g.Calls) == 0 {
			g.Calls = nil
		}
		if len(g.TypeRefs) == 0 {
			g.TypeRefs = nil
		}
		if len(g.Tests) == 0 {
			g.Tests = nil
		}
		if len(g.memberAt) == 0 {
			g.memberAt = nil
		}
		return g
	}
	if !reflect.DeepEqual(norm(*got), norm(*want)) {
		return "the graphs differ outside their encoding"
	}
	return ""
}
