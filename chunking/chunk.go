// Package chunking cuts files into the retrieval units of the index: one chunk
// per definition for code (large bodies split on statement boundaries, small
// neighbours merged), headings for Markdown, top-level keys for YAML and TOML,
// statements for SQL and line windows for other text. Every chunk carries its
// location and a token count calibrated against the embedding tokenizer.
package chunking

import "strings"

// Version is the chunker version. It is part of the embedding-cache key (model
// + chunker version + text): bump it whenever chunk boundaries, labels or text
// change for the same input.
const Version = 1

// Chunk is one retrieval unit.
type Chunk struct {
	// Path is slash-separated and relative to the workspace root.
	Path     string `json:"path"`
	Language string `json:"language"`
	// Kind is a symbol kind ("function", "method", "class" …) for code, or one
	// of the Kind* constants below.
	Kind string `json:"kind"`
	// Label names the chunk: "Type.Method", a Markdown heading, a key.
	Label string `json:"label"`
	// Parent is the label of the whole definition when this chunk is one part
	// of a split body; Part counts from 1 of Parts.
	Parent string `json:"parent,omitempty"`
	Part   int    `json:"part,omitempty"`
	Parts  int    `json:"parts,omitempty"`
	// Context is what a part after the first needs to be read alone: the
	// signature of the split definition, the heading of a Markdown section,
	// the key or table of a YAML or TOML entry, the head of a SQL statement.
	// Text never includes it (Text is always the exact source slice);
	// consumers that embed or show a part prepend it.
	Context string `json:"context,omitempty"`
	// Symbols lists the qualified names of the definitions the chunk covers
	// (more than one for merged declarations).
	Symbols []string `json:"symbols,omitempty"`
	// StartLine and EndLine are 1-based and inclusive.
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
	// StartByte and EndByte delimit Text in the file.
	StartByte int    `json:"startByte"`
	EndByte   int    `json:"endByte"`
	Text      string `json:"text"`
	// Tokens is the chunk's size in embedding-tokenizer tokens (estimated).
	Tokens int `json:"tokens"`
}

// ValidText returns Text with every invalid UTF-8 sequence replaced by U+FFFD.
// Text itself is always the exact source slice src[StartByte:EndByte], so it
// may hold invalid UTF-8 when the file does; use ValidText where valid UTF-8
// is required (JSON, the embedding tokenizer). The replacement characters
// count as nothing in Tokens, as they do in the tokenizer.
func (c Chunk) ValidText() string {
	return strings.ToValidUTF8(c.Text, "\uFFFD")
}

// Kinds of chunks that are not code definitions.
const (
	KindDeclarations    = "declarations"     // merged small top-level declarations
	KindFileHeader      = "file_header"      // package clause, imports, file comment
	KindMarkdownSection = "markdown_section" // a heading and its body
	KindYAMLKey         = "yaml_key"
	KindTOMLTable       = "toml_table"
	KindSQLStatement    = "sql_statement"
	KindText            = "text" // a window of lines
	KindData            = "data" // a window of lines of a data file (IsData)
)
