package engine

import "testing"

// TestLinked: two files are linked when one imports the other's module (or
// a name from it) or calls a name the other defines; a shared import, a
// call of a name both define, or the same module (one Go package) links
// nothing.
func TestLinked(t *testing.T) {
	compiler := &fileLinks{module: "jinja2.compiler",
		imports: map[string]bool{"jinja2.nodes": true, "jinja2.nodes.Node": true, "os": true},
		calls:   map[string]bool{"concat": true}, defines: map[string]bool{"CodeGenerator": true, "generate": true}}
	env := &fileLinks{module: "jinja2.environment",
		imports: map[string]bool{"jinja2.compiler": true, "os": true},
		calls:   map[string]bool{}, defines: map[string]bool{"Environment": true}}
	utils := &fileLinks{module: "jinja2.utils",
		imports: map[string]bool{"os": true}, calls: map[string]bool{},
		defines: map[string]bool{"concat": true}}
	other := &fileLinks{module: "jinja2.other",
		imports: map[string]bool{"os": true}, calls: map[string]bool{"missing": true},
		defines: map[string]bool{"Other": true}}
	sameA := &fileLinks{module: "cmd", imports: map[string]bool{"cmd": true}, calls: map[string]bool{}, defines: map[string]bool{"A": true}}
	sameB := &fileLinks{module: "cmd", imports: map[string]bool{}, calls: map[string]bool{}, defines: map[string]bool{"B": true}}
	for _, c := range []struct {
		name string
		a, b *fileLinks
		want string
	}{
		{"imported", compiler, env, "import"},
		{"importer", env, compiler, "import"},
		{"callee", compiler, utils, "call"},
		{"caller", utils, compiler, "call"},
		{"shared import only", env, other, ""},
		{"call of an undefined name", other, utils, ""},
		{"same module", sameA, sameB, ""},
	} {
		if got := linked(c.a, c.b); got != c.want {
			t.Errorf("%s: linked = %q, want %q", c.name, got, c.want)
		}
	}
}
