package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/context-ls/context-ls/engine"
	"github.com/context-ls/context-ls/workspace"
)

// BenchmarkQueryContext measures a query_context call on the fixture
// repository run by the owner of the index and the same call forwarded
// from another handle over the owner's socket: the difference is what an
// MCP server pays for sharing the editor's index.
func BenchmarkQueryContext(b *testing.B) {
	Register()
	root := fixtureTB(b)
	db := b.TempDir()
	cfg := workspace.DefaultConfig()
	cfg.Embeddings = false
	opts := engine.Options{DBDir: db, Config: cfg}
	ctx := context.Background()
	owner, err := engine.OpenSharedIndex(ctx, root, opts, engine.ShareOptions{Yield: true,
		OnOwn: func(ctx context.Context, e *engine.Engine) { e.Index(ctx, nil) }})
	if err != nil {
		b.Fatal(err)
	}
	defer owner.Close()
	client, err := engine.OpenSharedIndex(ctx, root, opts, engine.ShareOptions{Yield: true})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	params, _ := json.Marshal(callParams{Name: "query_context", Arguments: json.RawMessage(`{"query":"how is the cart total computed","k":5}`)})
	// The first call waits for the first full scan.
	if _, err := owner.Call(ctx, ServiceName, "tools/call", params); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		s    *engine.SharedIndex
	}{{"owner", owner}, {"forwarded", client}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				raw, err := bc.s.Call(ctx, ServiceName, "tools/call", params)
				if err != nil {
					b.Fatal(err)
				}
				var out callOutcome
				if err := json.Unmarshal(raw, &out); err != nil || out.Result == nil || out.Result.IsError {
					b.Fatalf("query_context: %s %v", raw, err)
				}
			}
		})
	}
}
