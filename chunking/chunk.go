// Package chunking cuts files into the retrieval units of the index: one chunk
// per definition for code (large bodies split on statement boundaries, small
// neighbours merged), headings for Markdown, top-level keys for YAML and TOML,
// statements for SQL and line windows for other text. Every chunk carries its
// location and a token count calibrated against the embedding tokenizer.
package chunking

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

// Kinds of chunks that are not code definitions.
const (
	KindDeclarations    = "declarations"     // merged small top-level declarations
	KindFileHeader      = "file_header"      // package clause, imports, file comment
	KindMarkdownSection = "markdown_section" // a heading and its body
	KindYAMLKey         = "yaml_key"
	KindTOMLTable       = "toml_table"
	KindSQLStatement    = "sql_statement"
	KindText            = "text" // a window of lines
)
