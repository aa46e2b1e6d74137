//go:build pins

// Package pins keeps the design card's packages in go.mod at their pinned
// versions until the code that imports them lands (go mod tidy would otherwise
// drop them, and a later `go get` picks jsonrpc2 v1, which breaks protocol).
package pins

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/blevesearch/bleve/v2"
	_ "github.com/cockroachdb/pebble"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/smacker/go-tree-sitter"
	_ "github.com/sugarme/tokenizer"
	_ "github.com/yalue/onnxruntime_go"
	_ "go.lsp.dev/jsonrpc2"
	_ "go.lsp.dev/protocol"
	_ "golang.org/x/text/unicode/norm"
)
