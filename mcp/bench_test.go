package mcp

import (
	"context"
	"testing"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/share"
	"github.com/context-ls/context-ls/workspace"
)

// BenchmarkQueryContext measures the search behind query_context on the
// fixture repository, run by the owner of the index and forwarded from
// another handle over the owner's socket: the difference is what an MCP
// server pays for sharing the editor's index.
func BenchmarkQueryContext(b *testing.B) {
	root := fixtureTB(b)
	db := b.TempDir()
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	opts := share.Options{Engine: engine.Options{DBDir: db, Config: cfg}, Yield: true}
	ctx := context.Background()
	owner, err := share.Open(ctx, root, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer owner.Close()
	if _, err := owner.Call(ctx, service.OpIndex.Name, nil); err != nil {
		b.Fatal(err)
	}
	client, err := share.Open(ctx, root, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	for _, bc := range []struct {
		name string
		x    *share.Index
	}{{"owner", owner}, {"forwarded", client}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := service.Do[service.SearchResult](ctx, bc.x, service.OpSearch, service.SearchRequest{Query: "how is the cart total computed", K: 5})
				if err != nil || len(res.Hits) == 0 {
					b.Fatalf("search: %+v %v", res, err)
				}
			}
		})
	}
}
