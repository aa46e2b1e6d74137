package testutil

import (
	"fmt"
	"strings"
)

// Bundle returns a JavaScript file laid out as issue 29's first
// reproduction: a readable prelude (a licence header of prelude comment
// lines, each followed by a short function), then one line of minified
// functions up to about size bytes, then a short last function — the
// shape of a real bundle, whose first 8 KiB look like ordinary code.
func Bundle(prelude, size int) string {
	var b strings.Builder
	for i := 0; i < prelude; i++ {
		fmt.Fprintf(&b, "// line %d of a normal looking header comment\nfunction h%d(a) { return a + %d; }\n", i, i, i)
	}
	b.WriteString("function zz0(a,b){return a}")
	for i := 1; b.Len() < size-40; i++ {
		fmt.Fprintf(&b, "function zz%d(a,b){return a*%d+b.x%d||zz%d(b,a)};var q%d=\"%020x\";", i, i, i, i-1, i, i)
	}
	b.WriteString("\nfunction zzSneakyLast(){return 1}\n")
	return b.String()
}
