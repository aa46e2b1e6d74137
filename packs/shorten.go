package packs

import (
	"container/heap"
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/context-ls/context-ls/symbols"
)

// maxStructuralBytes bounds the snippets shortened structurally; bigger
// ones are generated or data and are cut by lines.
const maxStructuralBytes = 256 << 10

// parseTimeout bounds one parse of a snippet: tree-sitter's error recovery
// can be slow on text that is not code at all, and a pack must stay fast.
const parseTimeout = 100 * time.Millisecond

// braceComment maps the languages whose function bodies are brace blocks
// to their line comment marker (each language's symbols.Language says);
// indented bodies (Python) are handled on their own.
var braceComment = func() map[string]string {
	m := map[string]string{}
	for _, l := range symbols.All() {
		if l.Bodies == symbols.BraceBodies {
			m[l.Name] = l.LineComment
		}
	}
	return m
}()

// LineComment returns the line comment marker of a language ("//", "#",
// "--"), or "" for prose and unknown languages.
func LineComment(lang string) string {
	if l := symbols.ByName(lang); l != nil {
		return l.LineComment
	}
	return ""
}

// shortener makes over-long snippets fit: first structurally (function
// bodies elided, signatures and doc comments kept), then by whole lines.
// It owns a tree-sitter parser, made on first use, and is not safe for
// concurrent use.
type shortener struct {
	ctx context.Context
	p   *symbols.Parser
	// weight says how much a line bears on the request (Request.LineWeight);
	// nil: every line alike.
	weight func(line string) float64
	// parsed keeps the function bodies of each text parsed (bodies).
	parsed map[bodiesKey]parsedBodies
}

func (s *shortener) close() {
	if s.p != nil {
		s.p.Close()
		s.p = nil
	}
}

// shorten returns text reduced to at most target tokens and whether it
// could. Bodies are elided first; when that is not enough (or the language
// has no structure to use) trailing whole lines are cut and replaced by a
// marked "…" line. A line is never cut in half, so a snippet whose first
// line alone exceeds target cannot be shortened.
//
// With line weights, the lines that bear on the request are what is kept:
// only the bodies of functions none of whose lines bear on it are elided,
// then the remaining lines are chosen around the ones that do (focusLines).
func (s *shortener) shorten(lang, text string, target int) (string, bool) {
	if target <= 0 {
		return "", false
	}
	if CountTokens(text) <= target {
		return text, true
	}
	if s.weight != nil && s.bears(text) {
		if out, ok := s.elideBodiesWhere(lang, text, target, s.idle); ok {
			if CountTokens(out) <= target {
				return out, true
			}
			text = out
		}
		return focusLines(lang, text, target, s.weight)
	}
	if out, ok := s.elideBodies(lang, text, target); ok {
		if CountTokens(out) <= target {
			return out, true
		}
		text = out
	}
	return truncateLines(lang, text, target)
}

// bears reports whether some line of text bears on the request.
func (s *shortener) bears(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if s.weight(l) > 0 {
			return true
		}
	}
	return false
}

// idle reports lines of which none bears on the request.
func (s *shortener) idle(lines []string) bool {
	for _, l := range lines {
		if s.weight(l) > 0 {
			return false
		}
	}
	return true
}

// region is a run of whole lines [first, last] (0-based) to replace by one
// marker line.
type region struct {
	first, last int
	marker      string
	gain        int // tokens saved, roughly
	// safe: the elided lines are exactly the inside of a block ("{" ends
	// the line before, "}" starts the line after; or a Python suite from
	// its first statement), so the result parses without checking.
	safe bool
}

// elideBodies replaces function bodies, largest first, until text fits
// target or no body is left. It reports false when the text does not parse
// cleanly or nothing could be elided; the result always parses without
// errors.
func (s *shortener) elideBodies(lang, text string, target int) (string, bool) {
	return s.elideBodiesWhere(lang, text, target, nil)
}

// elideBodiesWhere is elideBodies restricted to the bodies whose lines
// elidable accepts (nil: every body).
func (s *shortener) elideBodiesWhere(lang, text string, target int, elidable func(lines []string) bool) (string, bool) {
	l := symbols.ByName(lang)
	_, brace := braceComment[lang]
	if !l.HasGrammar() || (!brace && l.Bodies != symbols.IndentedBodies) || len(text) > maxStructuralBytes {
		return "", false
	}
	lines := strings.SplitAfter(text, "\n")
	all, ok := s.bodies(l, text, lines)
	if !ok {
		return "", false
	}
	regions := append([]region(nil), all...)
	if elidable != nil {
		kept := regions[:0]
		for _, r := range regions {
			if elidable(lines[r.first : r.last+1]) {
				kept = append(kept, r)
			}
		}
		regions = kept
	}
	if len(regions) == 0 {
		return "", false
	}
	sort.SliceStable(regions, func(i, j int) bool { return regions[i].gain > regions[j].gain })

	// Take regions largest first until the estimate fits, then check the
	// result parses; if it does not, add regions one at a time instead,
	// keeping only those that leave the code parseable.
	total := CountTokens(text)
	var chosen []region
	est := total
	for _, r := range regions {
		if est <= target {
			break
		}
		chosen = append(chosen, r)
		est -= r.gain
	}
	out := applyRegions(lines, chosen)
	if allSafe(chosen) || s.parsesClean(l, out) {
		return out, true
	}
	var kept []region
	for _, r := range regions {
		try := append(append([]region(nil), kept...), r)
		cand := applyRegions(lines, try)
		if !s.parsesClean(l, cand) {
			continue
		}
		kept = try
		out = cand
		if CountTokens(out) <= target {
			break
		}
	}
	if len(kept) == 0 {
		return "", false
	}
	return out, true
}

// bodies returns the function bodies of text (a snippet in language l,
// split into lines) as elision regions, and false when it does not parse
// cleanly. Parsed once per text: a pack shortens an item for several
// targets and summarises it too.
func (s *shortener) bodies(l *symbols.Language, text string, lines []string) ([]region, bool) {
	key := bodiesKey{l.Name, text}
	if b, ok := s.parsed[key]; ok {
		return b.regions, b.ok
	}
	var regions []region
	root, ok := s.parse(l, text)
	if ok {
		collectBodies(root.node, l.Name, lines, &regions)
		root.close()
	}
	if s.parsed == nil {
		s.parsed = map[bodiesKey]parsedBodies{}
	}
	s.parsed[key] = parsedBodies{regions, ok}
	return regions, ok
}

// bodiesKey is a text in a language; the text is not copied into the key.
type bodiesKey struct{ lang, text string }

type parsedBodies struct {
	regions []region
	ok      bool
}

func allSafe(rs []region) bool {
	for _, r := range rs {
		if !r.safe {
			return false
		}
	}
	return true
}

// collectBodies appends an elision region for every outermost function
// body under n.
func collectBodies(n *sitter.Node, lang string, lines []string, out *[]region) {
	count := int(n.NamedChildCount())
	for i := 0; i < count; i++ {
		c := n.NamedChild(i)
		if isFunctionNode(c.Type()) {
			if body := c.ChildByFieldName("body"); body != nil {
				if r, ok := bodyRegion(c, body, lang, lines); ok {
					*out = append(*out, r)
				}
				continue
			}
		}
		collectBodies(c, lang, lines, out)
	}
}

// isFunctionNode reports whether a node type is a function, method,
// constructor or function literal across the supported grammars.
func isFunctionNode(t string) bool {
	switch t {
	case "function_declaration", "method_declaration", "func_literal", "function_definition",
		"method_definition", "function_expression", "function", "generator_function_declaration",
		"generator_function", "arrow_function", "constructor_declaration", "function_item",
		"local_function_statement", "method", "singleton_method":
		return true
	}
	return false
}

// bodyRegion returns the lines of body to elide and their marker.
func bodyRegion(fn, body *sitter.Node, lang string, lines []string) (region, bool) {
	startRow := int(body.StartPoint().Row)
	endRow := int(body.EndPoint().Row)
	if body.EndPoint().Column == 0 && endRow > startRow {
		endRow-- // a block ending at the start of the next line
	}
	if endRow >= len(lines) {
		endRow = len(lines) - 1
	}
	var first, last int
	var marker string
	var safe bool
	if symbols.ByName(lang).Bodies == symbols.IndentedBodies {
		if startRow <= int(fn.StartPoint().Row) {
			return region{}, false // "def f(): return x" on one line
		}
		first, last = startRow, endRow
		if doc := pythonDocstring(body); doc != nil {
			first = int(doc.EndPoint().Row) + 1
		}
		marker = leadingSpace(lines[startRow]) + "...  # … %d lines elided\n"
		safe = true
	} else {
		bt := body.Type()
		if !strings.HasSuffix(bt, "block") && bt != "statement_block" && bt != "compound_statement" &&
			bt != "constructor_body" && bt != "function_body" {
			return region{}, false // an expression body: "x => x + 1"
		}
		first, last = startRow+1, endRow-1
		indent := ""
		for i := first; i <= last; i++ {
			if strings.TrimSpace(lines[i]) != "" {
				indent = leadingSpace(lines[i])
				break
			}
		}
		if indent == "" {
			indent = leadingSpace(lines[startRow]) + "\t"
		}
		marker = indent + braceComment[lang] + " … %d lines elided\n"
		safe = strings.HasSuffix(strings.TrimSpace(lines[startRow]), "{") &&
			strings.HasPrefix(strings.TrimSpace(lines[endRow]), "}")
	}
	if last-first+1 < 2 {
		return region{}, false
	}
	marker = fmt.Sprintf(marker, sourceLines(lines[first:last+1]))
	gain := CountTokens(strings.Join(lines[first:last+1], "")) - CountTokens(marker)
	if gain <= 0 {
		return region{}, false
	}
	return region{first: first, last: last, marker: marker, gain: gain, safe: safe}, true
}

// pythonDocstring returns the docstring statement opening a body, or nil.
func pythonDocstring(body *sitter.Node) *sitter.Node {
	count := int(body.NamedChildCount())
	for i := 0; i < count; i++ {
		st := body.NamedChild(i)
		if st.Type() == "comment" {
			continue
		}
		if st.Type() == "expression_statement" && st.NamedChildCount() == 1 && st.NamedChild(0).Type() == "string" {
			return st
		}
		return nil
	}
	return nil
}

func leadingSpace(line string) string {
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// applyRegions rebuilds the text from lines with each region replaced by
// its marker. Regions never overlap.
func applyRegions(lines []string, rs []region) string {
	sorted := append([]region(nil), rs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].first < sorted[j].first })
	var b strings.Builder
	next := 0
	for _, r := range sorted {
		for i := next; i < r.first; i++ {
			b.WriteString(lines[i])
		}
		b.WriteString(r.marker)
		next = r.last + 1
	}
	for i := next; i < len(lines); i++ {
		b.WriteString(lines[i])
	}
	return b.String()
}

// parsed is a syntax tree borrowed from a symbols.File.
type parsed struct {
	f    *symbols.File
	node *sitter.Node
}

func (p parsed) close() { p.f.Close() }

// parse parses text and returns its root if it has no syntax errors.
func (s *shortener) parse(l *symbols.Language, text string) (parsed, bool) {
	if s.p == nil {
		s.p = symbols.NewParser()
		s.p.SetTimeout(parseTimeout)
	}
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	f, err := s.p.Parse(ctx, l, []byte(text))
	if err != nil {
		return parsed{}, false
	}
	root := f.Tree.RootNode()
	if root.HasError() {
		f.Close()
		return parsed{}, false
	}
	return parsed{f: f, node: root}, true
}

func (s *shortener) parsesClean(l *symbols.Language, text string) bool {
	p, ok := s.parse(l, text)
	if ok {
		p.close()
	}
	return ok
}

// truncateLines keeps the leading whole lines of text that fit target
// tokens together with a final marker line saying how many were cut.
func truncateLines(lang, text string, target int) (string, bool) {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	comment := LineComment(lang)
	markerFor := func(n int) string {
		m := fmt.Sprintf("… %d more lines cut\n", n)
		if comment != "" {
			m = comment + " " + m
		}
		return m
	}
	used := 0
	kept := 0
	for kept < len(lines) {
		t := CountTokens(lines[kept])
		if used+t+CountTokens(markerFor(len(lines)-kept-1)) > target {
			break
		}
		used += t
		kept++
	}
	if kept == 0 {
		return "", false
	}
	if kept == len(lines) {
		return text, true
	}
	var b strings.Builder
	for _, l := range lines[:kept] {
		b.WriteString(l)
	}
	if !strings.HasSuffix(lines[kept-1], "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(markerFor(sourceLines(lines[kept:])))
	out := b.String()
	// Per-line counts can round below the count of the whole; drop lines
	// until the whole fits.
	for CountTokens(out) > target && kept > 1 {
		kept--
		b.Reset()
		for _, l := range lines[:kept] {
			b.WriteString(l)
		}
		b.WriteString(markerFor(sourceLines(lines[kept:])))
		out = b.String()
	}
	if CountTokens(out) > target {
		return "", false
	}
	return out, true
}

// markerRe matches an elision marker and the number of source lines it
// stands for ("… 12 lines elided", "… 3 more lines cut").
var markerRe = regexp.MustCompile(`…\s*(\d+)\s+(?:more\s+)?lines?\s+(?:elided|cut)`)

// sourceLines is the number of source lines lines stand for: one each,
// and a marker left by an earlier shortening the number it gives — so a
// run elided again still says how many lines of the file it hides.
func sourceLines(lines []string) int {
	n := 0
	for _, l := range lines {
		if m := markerRe.FindStringSubmatch(l); m != nil {
			if k, err := strconv.Atoi(m[1]); err == nil {
				n += k
				continue
			}
		}
		n++
	}
	return n
}

// focusContext is how many lines around a line that bears on the request
// are kept with it, so it is read in its place.
const focusContext = 2

// focusLines keeps the lines of text that bear on the request (weight > 0)
// with focusContext lines around each, the first lines (a definition's
// signature) and the last, the most weight per token first (a marker's
// cost counted) while they fit target, then the lines after those already
// kept, in order, while they still fit; every run
// of lines left out becomes one marked "… N lines elided" line. It reports
// false when not even the first line fits.
func focusLines(lang, text string, target int, weight func(string) float64) (string, bool) {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	if n == 0 {
		return "", false
	}
	comment := LineComment(lang)
	marker := func(lead string, k int) string {
		m := fmt.Sprintf("… %d lines elided\n", k)
		if comment != "" {
			m = comment + " " + m
		}
		return lead + m
	}
	markerCost := CountTokens(marker("", 100))
	// Each line's priority: its own weight, else the best weight within
	// focusContext lines, a little less the farther it is.
	own := make([]float64, n)
	for i, l := range lines {
		own[i] = weight(l)
	}
	prio := make([]float64, n)
	for i := range lines {
		for j := max(0, i-focusContext); j <= min(n-1, i+focusContext); j++ {
			d := float64(abs(i - j))
			prio[i] = max(prio[i], own[j]/(1+d))
		}
	}
	head := min(n, 2)
	cost := make([]int, n)
	for i, l := range lines {
		cost[i] = CountTokens(l)
	}
	kept := make([]bool, n)
	used := 0
	runs := 1 // elided runs: at first, all of the text
	// runDelta is how many elided runs adding line i makes: it splits its
	// run in two (+1), ends a run of its own (−1), or trims a run (0).
	runDelta := func(i int) int {
		left := i > 0 && !kept[i-1]
		right := i < n-1 && !kept[i+1]
		switch {
		case left && right:
			return 1
		case !left && !right:
			return -1
		}
		return 0
	}
	add := func(i int) bool {
		delta := runDelta(i)
		if used+cost[i]+(runs+delta)*markerCost > target {
			return false
		}
		kept[i] = true
		used += cost[i]
		runs += delta
		return true
	}
	for i := 0; i < head; i++ {
		if !add(i) {
			if i == 0 {
				return "", false
			}
			break
		}
	}
	if n > head && !kept[n-1] {
		add(n - 1)
	}
	// The lines that bear on the request are then kept by what they bring
	// per token they cost, their marker counted: a line that closes a gap
	// saves one, a line in the middle of a run adds one. Each line's value
	// changes as its neighbours are kept, so the queue is re-read lazily.
	value := func(i int) float64 {
		return prio[i] / float64(max(1, cost[i]+runDelta(i)*markerCost))
	}
	q := &lineQueue{}
	for i := range lines {
		if !kept[i] && prio[i] > 0 {
			heap.Push(q, lineValue{i, value(i)})
		}
	}
	for q.Len() > 0 {
		top := heap.Pop(q).(lineValue)
		if kept[top.line] {
			continue
		}
		if v := value(top.line); v != top.value {
			heap.Push(q, lineValue{top.line, v})
			continue
		}
		if !add(top.line) {
			continue
		}
		for _, j := range []int{top.line - 1, top.line + 1} {
			if j >= 0 && j < n && !kept[j] && prio[j] > 0 {
				heap.Push(q, lineValue{j, value(j)}) // its run changed
			}
		}
	}
	// A short run left out costs about what its marker does: keep it.
	for i := 0; i < n; {
		if kept[i] {
			i++
			continue
		}
		j := i
		for j < n && !kept[j] {
			j++
		}
		if j-i <= 2 {
			for k := i; k < j; k++ {
				add(k)
			}
		}
		i = j
	}
	// Then read on after what is kept.
	for i := 1; i < n; i++ {
		if !kept[i] && kept[i-1] {
			add(i)
		}
	}
	// A marker of an earlier shortening (a class's methods) next to a run
	// left out joins it, and so does a blank line between two runs: one
	// marker says how many lines they all hide.
	gone := func(j int) bool { return j >= 0 && j < n && !kept[j] }
	isMarker := func(j int) bool { return j >= 0 && j < n && markerRe.MatchString(lines[j]) }
	for changed := true; changed; {
		changed = false
		for i := 0; i < n; i++ {
			if kept[i] && (isMarker(i) && (gone(i-1) || gone(i+1)) ||
				strings.TrimSpace(lines[i]) == "" && (gone(i-1) || isMarker(i-1)) && (gone(i+1) || isMarker(i+1))) {
				kept[i], changed = false, true
			}
		}
	}
	var b strings.Builder
	for i := 0; i < n; {
		if kept[i] {
			b.WriteString(lines[i])
			if !strings.HasSuffix(lines[i], "\n") {
				b.WriteByte('\n')
			}
			i++
			continue
		}
		j := i
		for j < n && !kept[j] {
			j++
		}
		lead := ""
		for k := i; k < j; k++ {
			if strings.TrimSpace(lines[k]) != "" {
				lead = leadingSpace(lines[k])
				break
			}
		}
		b.WriteString(marker(lead, sourceLines(lines[i:j])))
		i = j
	}
	out := b.String()
	if CountTokens(out) > target {
		// Per-line counts round below the whole: cut from the end.
		return truncateLines(lang, out, target)
	}
	return out, true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// lineValue is a line of focusLines with its value when queued.
type lineValue struct {
	line  int
	value float64
}

// lineQueue is a max-heap of lines by value, earlier lines first on ties.
type lineQueue []lineValue

func (q lineQueue) Len() int { return len(q) }
func (q lineQueue) Less(i, j int) bool {
	if q[i].value != q[j].value {
		return q[i].value > q[j].value
	}
	return q[i].line < q[j].line
}
func (q lineQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *lineQueue) Push(x any)   { *q = append(*q, x.(lineValue)) }
func (q *lineQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
