package packs

import (
	"errors"
	"testing"
)

func TestRenderItem(t *testing.T) {
	it := Item{Path: "a/b.go", StartLine: 3, EndLine: 5, Symbol: "T.M", Kind: "method", IncludeMode: ModeAgent,
		Reason: "caller of X", Score: 0.5, Tokens: 3, Text: "x := `a`\n", Language: "go"}
	for _, c := range []struct {
		name   string
		format string
		it     Item
		want   string
	}{
		{"markdown", FormatMarkdown, it, "### a/b.go:3-5 · T.M (method) · caller of X\n```go\nx := `a`\n```\n\n"},
		{"markdown fence longer than the text's backticks", FormatMarkdown,
			Item{Path: "r.md", StartLine: 7, EndLine: 7, Text: "````go\nx\n````", Language: "markdown"},
			"### r.md:7\n`````markdown\n````go\nx\n````\n`````\n\n"},
		{"markdown without symbol", FormatMarkdown, Item{Path: "n.txt", StartLine: 1, EndLine: 2, Kind: "text", Text: "hi\n", Language: "text"},
			"### n.txt:1-2 · text\n```\nhi\n```\n\n"},
		{"plain", FormatPlain, it, "==> a/b.go:3-5 · T.M (method) · caller of X <==\nx := `a`\n\n"},
		{"xml escapes attributes and CDATA ends", FormatXML,
			Item{Path: `q"<&>.go`, StartLine: 1, EndLine: 1, Reason: "a\tb", Score: 1, Text: "a]]>b\x01\n"},
			"<snippet path=\"q&quot;&lt;&amp;&gt;.go\" lines=\"1\" label=\"q&quot;&lt;&amp;&gt;.go\" reason=\"a&#9;b\"><![CDATA[\na]]]]><![CDATA[>b\uFFFD\n]]></snippet>\n"},
		{"json", FormatJSON, it,
			`{"path":"a/b.go","startLine":3,"endLine":5,"symbol":"T.M","kind":"method","includeMode":"agent","reason":"caller of X","score":0.5,"tokens":3,"text":"x := ` + "`a`" + `\n"},` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := renderItem(c.format, c.it); got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	for _, f := range Formats {
		got, err := Render(f, nil)
		if err != nil || got != "" {
			t.Errorf("%s: empty pack renders %q, %v; want \"\"", f, got, err)
		}
	}
	items := []Item{{Path: "a", StartLine: 1, EndLine: 1, Text: "x\n"}, {Path: "b", StartLine: 2, EndLine: 2, Text: "y\n"}}
	got, err := Render(FormatJSON, items)
	if err != nil {
		t.Fatal(err)
	}
	want := "[\n" +
		`{"path":"a","startLine":1,"endLine":1,"symbol":"","kind":"","includeMode":"","reason":"","score":0,"tokens":0,"text":"x\n"},` + "\n" +
		`{"path":"b","startLine":2,"endLine":2,"symbol":"","kind":"","includeMode":"","reason":"","score":0,"tokens":0,"text":"y\n"}` + "\n]\n"
	if got != want {
		t.Errorf("json:\n%s\nwant\n%s", got, want)
	}
	if _, err := Render("yaml", items); !errors.Is(err, ErrFormat) {
		t.Errorf("unknown format: %v", err)
	}
}
