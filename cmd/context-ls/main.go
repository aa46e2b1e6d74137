// Command context-ls is a language server, CLI and MCP server that gives
// coding agents and developers a small, high-relevance slice of a codebase.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "context-ls: under construction")
	os.Exit(2)
}
