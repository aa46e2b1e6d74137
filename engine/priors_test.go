package engine

import (
	"strings"
	"testing"

	"github.com/context-ls/context-ls/querytext"
)

func TestEmbeddedProse(t *testing.T) {
	licence := "func initMIT() {\n\tLicenses[\"mit\"] = License{\n\t\tName: \"MIT License\",\n\t\tText: `\n" +
		strings.Repeat("Permission is hereby granted, free of charge, to any person obtaining a copy\n"+
			"of this software and associated documentation files, to deal in the Software\n"+
			"without restriction, subject to the following conditions: the above notice\n"+
			"shall be included in all copies or substantial portions of the Software.\n", 2) + "`,\n\t}\n}\n"
	// The same text cut inside the literal: a chunk need not hold its quotes.
	middle := strings.Repeat("The licenses for most software and other practical works are designed\n"+
		"to take away your freedom to share and change the works. By contrast,\n"+
		"the GNU General Public License is intended to guarantee your freedom to\n", 3)
	code := strings.Repeat("func (c *Command) Flags() *flag.FlagSet {\n\tif c.flags == nil {\n"+
		"\t\tc.flags = flag.NewFlagSet(c.Name(), flag.ContinueOnError)\n\t}\n\treturn c.flags\n}\n", 4)
	// A comment is documentation, not prose held in code.
	commented := strings.Repeat("// Flags returns the complete set of flags that apply to this command\n"+
		"// and to all of its parents, so that the help of a command can list\n"+
		"// every flag the user is able to set on it.\n", 3) + "func (c *Command) Flags() *flag.FlagSet { return c.flags }\n"
	// A shell script held in a literal is code.
	script := "const bashTemplate = `\n" + strings.Repeat("__complete() {\n    local cur prev words cword\n"+
		"    _get_comp_words_by_ref -n \"=:\" cur prev words cword\n    if [[ ${cur} == -* ]]; then\n"+
		"        COMPREPLY=( $(compgen -W \"${flags[*]}\" -- \"${cur}\") )\n    fi\n}\n", 3) + "`\n"
	for _, c := range []struct {
		name, text, lang string
		want             bool
	}{
		{"licence in a literal", licence, "go", true},
		{"cut inside a literal", middle, "go", true},
		{"code", code, "go", false},
		{"comments", commented, "go", false},
		{"script in a literal", script, "go", false},
		{"python: docstrings are documentation", middle, "python", false},
		{"too short to tell", "var s = `the end of the story is here`", "go", false},
	} {
		if got := isEmbeddedProse(c.text, c.lang); got != c.want {
			t.Errorf("%s: isEmbeddedProse = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestClassOf: what a path says a file is for. A package's packages/
// subpackage holds vendored copies (requests/packages/urllib3); a
// monorepo's top-level packages/ holds its own code.
func TestClassOf(t *testing.T) {
	for p, want := range map[string]pathClass{
		"requests/packages/urllib3/response.py":         classVendor,
		"src/pip/_vendor/rich/text.py":                  classVendor,
		"vendor/github.com/pkg/errors/errors.go":        classVendor,
		"packages/react-dom/src/client/ReactDOMRoot.js": classCode,
		"packages/core/src/app.py":                      classCode,
		"requests/models.py":                            classCode,
		"internal/encoding/json/codec.go":               classInternal,
		"tests/test_requests.py":                        classTest,
		"docs/conf.py":                                  classDocs,
		"HISTORY.md":                                    classChangelog,
	} {
		if got := classOf(p); got != want {
			t.Errorf("classOf(%s) = %d, want %d", p, got, want)
		}
	}
}

// TestQueryAsksForClass: a short query asks for a class of file by a word
// of its own ("tests for the parser"), not by a part of an identifier
// (test_client, docs.url).
func TestQueryAsksForClass(t *testing.T) {
	for q, asked := range map[string]bool{
		"tests for the retry policy":                            true,
		"where are the docs on configuration":                   true,
		"remove deprecated as_tuple parameter from test_client": false,
		"read the docs.url setting":                             false,
	} {
		pr := queryPriors(q, querytext.Analyse(q))
		if got := pr[classCode] < 1; got != asked {
			t.Errorf("%q: code prior %.2f, asked for a class: %v, want %v", q, pr[classCode], got, asked)
		}
	}
}
