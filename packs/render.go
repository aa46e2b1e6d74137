package packs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Render renders items, in the given order, in one of Formats. An empty
// item list renders as "" in every format.
//
//   - markdown: one "### path:lines · symbol (kind) · reason" header per
//     item and its text in a fence tagged with the language (the fence is
//     longer than any backtick run in the text);
//   - xml: <project_context> holding one <snippet path lines label kind
//     reason> per item (label is the symbol, else the file's
//     base name), the text in CDATA;
//   - json: an array of items (the Item JSON shape);
//   - plain: a "==> path:lines · symbol (kind) · reason <==" line per item
//     and its text.
func Render(format string, items []Item) (string, error) {
	if !isFormat(format) {
		return "", fmt.Errorf("%q: %w", format, ErrFormat)
	}
	return render(format, items), nil
}

func render(format string, items []Item) string {
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(renderWrap(format, true))
	for i, it := range items {
		p := renderItem(format, it)
		if format == FormatJSON && i == len(items)-1 {
			p = strings.TrimSuffix(p, ",\n") + "\n"
		}
		b.WriteString(p)
	}
	b.WriteString(renderWrap(format, false))
	return b.String()
}

// renderWrap returns the text before (open) or after the items.
func renderWrap(format string, open bool) string {
	switch format {
	case FormatXML:
		if open {
			return "<project_context>\n"
		}
		return "</project_context>\n"
	case FormatJSON:
		if open {
			return "[\n"
		}
		return "]\n"
	}
	return ""
}

// renderItem renders one item as it appears in the pack; a JSON item ends
// in ",\n" (the renderer drops the last comma).
func renderItem(format string, it Item) string {
	text := it.Text
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	switch format {
	case FormatXML:
		var b strings.Builder
		b.WriteString(`<snippet path="`)
		b.WriteString(xmlAttr(it.Path))
		b.WriteString(`" lines="`)
		b.WriteString(lineRange(it))
		b.WriteString(`"`)
		b.WriteString(` label="` + xmlAttr(label(it)) + `"`)
		if it.Kind != "" {
			b.WriteString(` kind="` + xmlAttr(it.Kind) + `"`)
		}
		if it.Reason != "" {
			b.WriteString(` reason="` + xmlAttr(it.Reason) + `"`)
		}
		b.WriteString("><![CDATA[\n")
		b.WriteString(strings.ReplaceAll(xmlChars(text), "]]>", "]]]]><![CDATA[>"))
		b.WriteString("]]></snippet>\n")
		return b.String()
	case FormatJSON:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		// An Item has only strings and numbers: encoding cannot fail.
		_ = enc.Encode(it)
		return strings.TrimSuffix(buf.String(), "\n") + ",\n"
	case FormatPlain:
		return "==> " + header(it) + " <==\n" + text + "\n"
	}
	fence := fenceFor(text)
	return "### " + header(it) + "\n" + fence + fenceLang(it.Language) + "\n" + text + fence + "\n\n"
}

// label names an item: its symbol, else its file's base name.
func label(it Item) string {
	if it.Symbol != "" {
		return it.Symbol
	}
	return path.Base(it.Path)
}

// header is "path:lines · symbol (kind) · reason" without empty parts.
func header(it Item) string {
	h := it.Path + ":" + lineRange(it)
	if it.Symbol != "" {
		h += " · " + it.Symbol
		if it.Kind != "" {
			h += " (" + it.Kind + ")"
		}
	} else if it.Kind != "" {
		h += " · " + it.Kind
	}
	if it.Reason != "" {
		h += " · " + it.Reason
	}
	return h
}

func lineRange(it Item) string {
	if it.EndLine <= it.StartLine {
		return strconv.Itoa(it.StartLine)
	}
	return strconv.Itoa(it.StartLine) + "-" + strconv.Itoa(it.EndLine)
}

// fenceFor returns a backtick fence longer than any backtick run in text.
func fenceFor(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	if longest < 3 {
		return "```"
	}
	return strings.Repeat("`", longest+1)
}

// fenceLang is the info string of a fence for a language name.
func fenceLang(lang string) string {
	if lang == "text" || strings.ContainsAny(lang, " `\n") {
		return ""
	}
	return lang
}

// xmlChars replaces characters XML 1.0 forbids, even in CDATA.
func xmlChars(s string) string {
	ok := true
	for _, r := range s {
		if !xmlAllowed(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	return strings.Map(func(r rune) rune {
		if xmlAllowed(r) {
			return r
		}
		return '\uFFFD'
	}, s)
}

func xmlAllowed(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;",
	"\n", "&#10;", "\r", "&#13;", "\t", "&#9;")

func xmlAttr(s string) string { return attrEscaper.Replace(xmlChars(s)) }
