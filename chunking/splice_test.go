package chunking

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/symbols"
)

// TestCodeSplicedMatchesCode holds spliced chunking to a full one: chains
// of editor-like edits of Go standard library files
// (testutil.GoEditChains), each version re-parsed from the one before and
// chunked from the chunks before, give at every step the chunks Code
// gives.
func TestCodeSplicedMatchesCode(t *testing.T) {
	lang := symbols.ByName("go")
	ctx := context.Background()
	p := symbols.NewParser()
	defer p.Close()
	opts := DefaultOptions()
	edits, spliced := 0, 0
	testutil.GoEditChains(t, func(path string, src []byte) (func(int, string, []byte), func()) {
		prev, err := p.Parse(ctx, lang, src)
		if err != nil {
			return nil, nil
		}
		chunks := Code(path, prev, opts)
		edit := func(step int, kind string, next []byte) {
			f, err := p.Reparse(ctx, prev, next)
			prev.Close()
			if err != nil {
				t.Fatalf("%s step %d (%s): %v", path, step, kind, err)
			}
			prev = f
			got, ok := codeSpliced(path, f, opts, chunks) // CodeSpliced, counted
			if ok {
				spliced++
			} else {
				got = Code(path, f, opts)
			}
			edits++
			if want := Code(path, f, opts); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s step %d (%s, splice %+v): %s", path, step, kind, f.Splice, chunksDiff(got, want))
			}
			chunks = got
		}
		return edit, func() { prev.Close() }
	})
	t.Logf("%d edits, %d chunked spliced", edits, spliced)
	if spliced < edits/3 {
		t.Fatalf("only %d of %d edits chunked spliced", spliced, edits)
	}
}

// chunksDiff describes the first difference of two chunk lists.
func chunksDiff(got, want []Chunk) string {
	for i := 0; i < min(len(got), len(want)); i++ {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, w := got[i], want[i]
			g.Text, w.Text = "", ""
			return fmt.Sprintf("chunk %d:\n got  %+v\n want %+v", i, g, w)
		}
	}
	return fmt.Sprintf("got %d chunks, want %d", len(got), len(want))
}
