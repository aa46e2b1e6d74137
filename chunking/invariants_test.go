package chunking

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// formatChunks prints one line per chunk for golden files.
func formatChunks(chunks []Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		fmt.Fprintf(&b, "%-17s %-44q lines %3d-%-3d tokens %4d", c.Kind, c.Label, c.StartLine, c.EndLine, c.Tokens)
		if c.Parent != "" {
			fmt.Fprintf(&b, "  part %d/%d of %q", c.Part, c.Parts, c.Parent)
		}
		if c.Context != "" {
			fmt.Fprintf(&b, "  context %q", c.Context)
		}
		if len(c.Symbols) > 0 {
			fmt.Fprintf(&b, "  symbols %s", strings.Join(c.Symbols, ","))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// lineAt returns the 1-based line holding byte offset off, counted
// independently of the chunker's line index.
func lineAt(src []byte, off int) int {
	return bytes.Count(src[:off], []byte("\n")) + 1
}

// invariantErrors checks the properties every chunk list must have and
// returns one message per violation:
//   - Text is exactly src[StartByte:EndByte], non-empty, inside src;
//   - StartLine and EndLine are the lines of the first and last byte;
//   - Tokens is CountTokens(Text);
//   - chunks are ordered by start and a split unit's parts are numbered
//     1..Parts;
//   - every non-blank line of src lies in some chunk's line range.
func invariantErrors(src []byte, chunks []Chunk) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	for i, c := range chunks {
		if c.StartByte < 0 || c.EndByte > len(src) || c.StartByte >= c.EndByte {
			fail("chunk %d %q: bad byte range %d-%d of %d", i, c.Label, c.StartByte, c.EndByte, len(src))
			continue
		}
		if c.Text != string(src[c.StartByte:c.EndByte]) {
			fail("chunk %d %q: Text differs from src[%d:%d]", i, c.Label, c.StartByte, c.EndByte)
		}
		if sl, el := lineAt(src, c.StartByte), lineAt(src, c.EndByte-1); c.StartLine != sl || c.EndLine != el {
			fail("chunk %d %q: lines %d-%d, bytes say %d-%d", i, c.Label, c.StartLine, c.EndLine, sl, el)
		}
		if n := CountTokens(c.Text); c.Tokens != n {
			fail("chunk %d %q: Tokens %d, CountTokens says %d", i, c.Label, c.Tokens, n)
		}
		if i > 0 && c.StartByte < chunks[i-1].StartByte {
			fail("chunk %d %q starts at %d, before chunk %d at %d", i, c.Label, c.StartByte, i-1, chunks[i-1].StartByte)
		}
		if c.Parent != "" && (c.Parts < 2 || c.Part < 1 || c.Part > c.Parts) {
			fail("chunk %d %q: part %d of %d", i, c.Label, c.Part, c.Parts)
		}
		if c.Part > 1 && (i == 0 || chunks[i-1].Parent != c.Parent || chunks[i-1].Part != c.Part-1) {
			fail("chunk %d %q: part %d does not follow part %d of %q", i, c.Label, c.Part, c.Part-1, c.Parent)
		}
	}
	if missing := uncoveredLines(src, chunks); len(missing) > 0 {
		fail("non-blank lines not in any chunk: %v", missing[:min(len(missing), 10)])
	}
	return errs
}

// uncoveredLines returns the 1-based numbers of non-blank lines of src that
// no chunk's line range covers.
func uncoveredLines(src []byte, chunks []Chunk) []int {
	lines := bytes.Split(src, []byte("\n"))
	covered := make([]bool, len(lines)+2)
	for _, c := range chunks {
		for l := c.StartLine; l <= c.EndLine && l < len(covered); l++ {
			covered[l] = true
		}
	}
	var missing []int
	for i, l := range lines {
		if !blankBytes(l) && !covered[i+1] {
			missing = append(missing, i+1)
		}
	}
	return missing
}

// checkInvariants fails the test for every invariant violation.
func checkInvariants(t *testing.T, src []byte, chunks []Chunk) {
	t.Helper()
	for _, e := range invariantErrors(src, chunks) {
		t.Error(e)
	}
}
