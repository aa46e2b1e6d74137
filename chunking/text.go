package chunking

import (
	"bytes"
	"path"
	"strings"
)

// Text formats with their own chunking rules.
const (
	formatMarkdown = "markdown"
	formatYAML     = "yaml"
	formatTOML     = "toml"
	formatSQL      = "sql"
	formatJSON     = "json"
)

// binarySniff is how much of a file Text inspects for NUL bytes.
const binarySniff = 8000

// Text chunks a file that is not parsed as code:
//
//   - Markdown by heading. A section is a heading and its body up to the
//     next heading of the same or a higher level, subsections included, when
//     it fits MaxTokens; otherwise its own body (up to its first subheading)
//     becomes one chunk and every subsection is chunked in turn. Labels are
//     heading paths ("Install > From source"). Lines inside fenced code
//     blocks are never headings, and a fence is never cut; an oversized
//     section is split on paragraph boundaries. Text before the first
//     heading (front matter included) is labelled with the file name.
//   - YAML by top-level key (or top-level sequence item, labelled "[i]"),
//     each with the comment lines directly above it.
//   - TOML by table ("[x]", "[[x]]" headers, with the comments directly
//     above them); the pairs before the first header are a chunk of their
//     own, labelled with the file name.
//   - SQL by statement: a ';' outside strings, quoted identifiers, comments
//     and dollar-quoted bodies ends one, as does the delimiter set by a
//     MySQL DELIMITER line. Comments before a statement belong to it.
//   - JSON and everything else by windows of WindowLines lines that repeat
//     OverlapLines lines.
//
// Units above MaxTokens are split into parts of about equal size labelled
// "label (part i/n)", with Parent set to the label and Context to the heading,
// key, table header or statement head: Markdown sections at paragraphs (a
// fenced code block is never cut), YAML keys at their second-level entries,
// TOML tables at their pairs, SQL statements at lines that start outside
// strings and comments (lines of a dollar-quoted body included), and
// anything further at lines and, for a single enormous line, inside the line
// after a space, comma or semicolon.
//
// The format comes from language ("markdown", "yaml", "toml", "sql", "json"
// and common aliases) or, when language names none of them, from the path's
// extension. Chunks never start or end with blank lines and carry 1-based
// inclusive line ranges and byte ranges with Text == src[StartByte:EndByte]
// exactly; Text is not sanitized, so it holds invalid UTF-8 where src does
// (see Chunk.ValidText). A file with a NUL byte in its first 8000 bytes is
// binary and yields no chunks; so does an empty or blank file.
func Text(path, language string, src []byte, opts Options) []Chunk {
	if bytes.IndexByte(src[:min(len(src), binarySniff)], 0) >= 0 {
		return nil
	}
	format := textFormat(language, path)
	lang := language
	if lang == "" {
		lang = format
	}
	d := newDoc(path, lang, src, opts)
	switch format {
	case formatMarkdown:
		return d.markdown()
	case formatYAML:
		return d.yaml()
	case formatTOML:
		return d.toml()
	case formatSQL:
		return d.sql()
	}
	return d.windows(KindText, 0, d.numLines())
}

// textFormat names the chunking rules for a language name or file path.
func textFormat(language, p string) string {
	switch strings.ToLower(language) {
	case "markdown", "md", "mdx", "gfm":
		return formatMarkdown
	case "yaml", "yml":
		return formatYAML
	case "toml":
		return formatTOML
	case "sql", "plsql", "plpgsql", "pgsql", "postgresql", "postgres", "mysql", "sqlite", "tsql":
		return formatSQL
	case "json", "jsonc", "json5", "jsonl":
		return formatJSON
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdown", ".mkd", ".mdx":
		return formatMarkdown
	case ".yaml", ".yml":
		return formatYAML
	case ".toml":
		return formatTOML
	case ".sql":
		return formatSQL
	case ".json", ".jsonc", ".json5", ".jsonl":
		return formatJSON
	}
	return ""
}

// fileLabel labels the part of a file before its first heading, key or table.
func (d *doc) fileLabel() string {
	if b := path.Base(d.path); b != "." && b != "/" {
		return b
	}
	return "(top)"
}

// span is a half-open range of lines [first, end) with a label.
type span struct {
	first, end int
	label      string
}

// lineCuts returns the start offsets of the lines in [a, b) that keep(line)
// accepts, excluding line a itself.
func (d *doc) lineCuts(a, b int, keep func(l int) bool) []int {
	var cuts []int
	for l := a + 1; l < b; l++ {
		if keep(l) {
			cuts = append(cuts, d.lines[l])
		}
	}
	return cuts
}

// indent returns the number of leading spaces and tabs of line l.
func (d *doc) indent(l int) int {
	b := d.line(l)
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\t') {
		n++
	}
	return n
}
