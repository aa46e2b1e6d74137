// Package clip shortens strings for messages and logs.
package clip

import "strings"

// Clip returns s cut to at most n bytes on a rune boundary, with "…"
// appended when anything was cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
