// Package all registers every language kept in its own package under
// lang/: importing it (engine does, for every front end) makes them known
// to symbols and graph. A new language package is added here, one line.
package all

import (
	_ "github.com/context-ls/context-ls/lang/bash" // shell scripts
	_ "github.com/context-ls/context-ls/lang/lua"  // Lua
)
