package chunking

import (
	"bytes"
	"strings"
)

// mdHeading is one ATX or setext heading.
type mdHeading struct {
	line  int // first line (the text line of a setext heading)
	level int
	title string
}

// mdSection is a heading with its subsections.
type mdSection struct {
	h        mdHeading
	end      int // line after the section
	label    string
	children []*mdSection
}

// markdownStructure scans the structure of a Markdown file: its headings and which
// lines belong to fenced code blocks (fence[l] is the line index of the
// opening fence line for every line of a fence, -1 elsewhere).
func (d *doc) markdownStructure() (heads []mdHeading, fence []int) {
	n := d.numLines()
	fence = make([]int, n)
	for i := range fence {
		fence[i] = -1
	}
	start := 0
	if fm := d.frontMatterEnd(); fm > 0 {
		start = fm
	}
	var fChar byte
	fLen, fOpen := 0, -1
	prevPara := false // line l-1 could be the text of a setext heading
	for l := start; l < n; l++ {
		b := d.line(l)
		if fOpen >= 0 {
			fence[l] = fOpen
			if c, k, rest := fenceMarker(b); c == fChar && k >= fLen && blankBytes(rest) {
				fOpen = -1
			}
			prevPara = false
			continue
		}
		if c, k, rest := fenceMarker(b); k > 0 && !(c == '`' && bytes.IndexByte(rest, '`') >= 0) {
			fChar, fLen, fOpen = c, k, l
			fence[l] = l
			prevPara = false
			continue
		}
		if level, title, ok := atxHeading(b); ok {
			heads = append(heads, mdHeading{line: l, level: level, title: title})
			prevPara = false
			continue
		}
		if level := setextUnderline(b); level > 0 && prevPara {
			heads = append(heads, mdHeading{line: l - 1, level: level, title: string(bytes.TrimSpace(d.line(l - 1)))})
			prevPara = false
			continue
		}
		// A setext heading's text is a single paragraph line that follows a
		// blank line, a heading, a fence or the start of the file.
		startsPara := l == start || d.blank(l-1) || fence[l-1] >= 0 ||
			(len(heads) > 0 && heads[len(heads)-1].line >= l-1)
		prevPara = !blankBytes(b) && d.indent(l) < 4 && startsPara && !listOrQuote(b)
	}
	return heads, fence
}

// frontMatterEnd returns the line after a leading "---" … "---" (or "...")
// YAML front matter block, or 0 when there is none.
func (d *doc) frontMatterEnd() int {
	if d.numLines() == 0 || string(bytes.TrimRight(d.line(0), " \t")) != "---" {
		return 0
	}
	for l := 1; l < d.numLines(); l++ {
		if t := string(bytes.TrimRight(d.line(l), " \t")); t == "---" || t == "..." {
			return l + 1
		}
	}
	return 0
}

// fenceMarker reports a fence line: up to three spaces, then three or more
// backticks or tildes. It returns the fence character, the run length (0 when
// the line is no fence) and the rest of the line.
func fenceMarker(b []byte) (c byte, n int, rest []byte) {
	i := 0
	for i < len(b) && i < 3 && b[i] == ' ' {
		i++
	}
	if i == len(b) || (b[i] != '`' && b[i] != '~') {
		return 0, 0, nil
	}
	c = b[i]
	j := i
	for j < len(b) && b[j] == c {
		j++
	}
	if j-i < 3 {
		return 0, 0, nil
	}
	return c, j - i, b[j:]
}

// atxHeading parses "## Title ##" with up to three spaces of indentation.
func atxHeading(b []byte) (level int, title string, ok bool) {
	i := 0
	for i < len(b) && i < 3 && b[i] == ' ' {
		i++
	}
	j := i
	for j < len(b) && b[j] == '#' {
		j++
	}
	level = j - i
	if level < 1 || level > 6 || (j < len(b) && b[j] != ' ' && b[j] != '\t') {
		return 0, "", false
	}
	t := bytes.TrimSpace(b[j:])
	// A closing sequence of #s is dropped when preceded by a space.
	if k := len(bytes.TrimRight(t, "#")); k < len(t) && (k == 0 || t[k-1] == ' ' || t[k-1] == '\t') {
		t = bytes.TrimSpace(t[:k])
	}
	return level, string(t), true
}

// setextUnderline returns 1 for a "===" line, 2 for a "---" line, else 0.
func setextUnderline(b []byte) int {
	t := bytes.TrimRight(b, " \t")
	i := 0
	for i < len(t) && i < 3 && t[i] == ' ' {
		i++
	}
	t = t[i:]
	if len(t) == 0 || (t[0] != '=' && t[0] != '-') {
		return 0
	}
	for _, c := range t {
		if c != t[0] {
			return 0
		}
	}
	if t[0] == '=' {
		return 1
	}
	return 2
}

// listOrQuote reports lines starting a list item, block quote or table row,
// which cannot be the text of a setext heading here.
func listOrQuote(b []byte) bool {
	t := bytes.TrimLeft(b, " \t")
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case '>', '|':
		return true
	case '-', '*', '+':
		return len(t) == 1 || t[1] == ' ' || t[1] == '\t'
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')')
}

// markdown chunks a Markdown file by sections (see Text).
func (d *doc) markdown() []Chunk {
	n := d.numLines()
	if n == 0 {
		return nil
	}
	heads, fence := d.markdownStructure()

	// Build the section tree with a stack of open sections.
	var roots []*mdSection
	var stack []*mdSection
	for i, h := range heads {
		end := n
		for _, nx := range heads[i+1:] {
			if nx.level <= h.level {
				end = nx.line
				break
			}
		}
		for len(stack) > 0 && stack[len(stack)-1].h.level >= h.level {
			stack = stack[:len(stack)-1]
		}
		s := &mdSection{h: h, end: end, label: h.title}
		if len(stack) > 0 {
			p := stack[len(stack)-1]
			s.label = p.label + " > " + h.title
			p.children = append(p.children, s)
		} else {
			roots = append(roots, s)
		}
		stack = append(stack, s)
	}

	var out []Chunk
	first := n
	if len(heads) > 0 {
		first = heads[0].line
	}
	out = append(out, d.mdBody(d.fileLabel(), "", 0, first, fence)...)
	for _, s := range roots {
		out = append(out, d.mdSection(s, fence)...)
	}
	return out
}

// mdSection emits a section whole when it fits, else its own body and then
// each subsection.
func (d *doc) mdSection(s *mdSection, fence []int) []Chunk {
	a, b := d.lines[s.h.line], d.lineStart(s.end)
	if len(s.children) == 0 || d.units(a, b) <= d.opts.MaxTokens*tokenUnit {
		return d.mdBody(s.label, d.headingContext(s.h), s.h.line, s.end, fence)
	}
	out := d.mdBody(s.label, d.headingContext(s.h), s.h.line, s.children[0].h.line, fence)
	for _, c := range s.children {
		out = append(out, d.mdSection(c, fence)...)
	}
	return out
}

// mdBody chunks lines [a, b) of one section body, split on paragraph
// boundaries (a blank line outside a fence, or a fence's edges) when needed;
// context is the section's heading line, given to parts after the first.
func (d *doc) mdBody(label, context string, a, b int, fence []int) []Chunk {
	if a >= b {
		return nil
	}
	s, e := d.lines[a], d.lineStart(b)
	if d.units(s, e) <= d.opts.MaxTokens*tokenUnit {
		if c, ok := d.emit(KindMarkdownSection, label, s, e); ok {
			return []Chunk{c}
		}
		return nil
	}
	inFence := func(l int) bool { return l < len(fence) && fence[l] >= 0 && fence[l] != l }
	cuts := d.lineCuts(a, b, func(l int) bool {
		if d.blank(l) || inFence(l) {
			return false
		}
		opens := fence[l] == l
		return opens || d.blank(l-1) || (inFence(l-1) || fence[l-1] == l-1)
	})
	refine := func(s, e int) []int {
		l := d.lineOf(s)
		for l < len(fence) && d.blank(l) && d.lines[l] < e {
			l++
		}
		if l < len(fence) && fence[l] == l {
			return nil // a fenced code block is never cut
		}
		return d.textCuts(s, e)
	}
	return d.parts(KindMarkdownSection, label, context, d.pack(s, e, cuts, packing{refine: refine}))
}

// headingContext renders a heading as an ATX line for the Context of parts.
func (d *doc) headingContext(h mdHeading) string {
	return strings.Repeat("#", h.level) + " " + h.title
}
