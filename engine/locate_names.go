package engine

// The evidence of the code the text names: files defining its names
// (name), holding its literals and undefined compound names verbatim
// (literal, used), defining the kin of those names (kin), calling the
// names it uses (caller). See locate.go for how the legs add up.

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/context-ls/context-ls/querytext"
	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/symbols"
)

// addNames credits the files that define the names the text uses, and
// returns the compound names (snake_case, camelCase) nothing defines: a
// nested function, an attribute, a key of a mapping, found where the code
// uses them (the used part). A member nothing defines of a type that is
// defined names the type, as surely: the qualifier is the text's word too.
func (l *locator) addNames(names []querytext.Name) (used []string, err error) {
	if len(names) > locMaxNames {
		names = names[:locMaxNames]
	}
	for _, n := range names {
		defs, err := l.qc.s.nameDefs(n.Text, l.req.Languages, n.Type)
		if err != nil {
			return nil, err
		}
		qual, bare := splitQualified(n.Text)
		if len(defs) == 0 && !n.Type && isCompound(bare) {
			used = append(used, bare)
		}
		owner := false
		if len(defs) == 0 && qual != "" {
			// A member nothing defines, of a type that is defined
			// (Command.ArgValidator): the change adds it to the type.
			if defs, err = l.qc.s.nameDefs(qual, l.req.Languages, true); err != nil {
				return nil, err
			}
			owner = true
		}
		files := map[string]bool{}
		for _, d := range defs {
			if matchPaths(l.req.Paths, d.path) {
				files[d.path] = true
			}
		}
		if len(files) == 0 {
			continue
		}
		if !owner && !n.Type && isCompound(bare) {
			l.defined = append(l.defined, definedName{n.Weight, bare, files})
		}
		spec := 1 / float64(len(files))
		// A function given only by stack frames of files the workspace
		// holds: each frame names its definition by its line (addPaths,
		// fileDefs.frameUnit), not every definition of that name — a
		// frame "in convert" is not every converter of its module.
		located := len(n.Frames) > 0 && slices.ContainsFunc(n.Frames, func(p string) bool {
			return len(l.frameFile(p).files) > 0
		})
		for _, d := range defs {
			if !files[d.path] {
				continue
			}
			f := l.file(d.path)
			w := locWeights.name * n.Weight * d.quality * spec * f.prior
			f.add("name", w)
			f.chunks[d.chunk] += w
			if (!n.Type || len(defs) == 1) && !located {
				f.named = append(f.named, namedLine{line: d.line, sure: n.Weight * d.quality * spec * f.prior})
			}
		}
	}
	return used, nil
}

// addCallers credits the files that call a compound name of the text that
// is defined (addNames keeps them), other than the files defining it: each
// caller gains the kind's weight × the name's sureness ÷ the number of
// callers. A description names the function whose behaviour changes, and
// the change is often made where it is called ("add the flag to setFlags
// if set by PostParse" changes the one caller of PostParse). Plain words
// that are also names (name, call, render) are left out: their callers are
// everywhere. So are the functions of a traceback's frames: their callers
// are the outer frames, which the path evidence already weighs below the
// innermost. Callers are read from the graph's reverse index, by name.
func (l *locator) addCallers(paths []querytext.Path) error {
	done := map[string]bool{}
	for _, p := range paths {
		if p.Frame >= 0 && p.Func != "" {
			_, bare := splitQualified(p.Func)
			done[bare] = true
		}
	}
	for _, d := range l.defined {
		if done[d.bare] {
			continue
		}
		done[d.bare] = true
		callers := map[string]bool{}
		err := l.qc.s.st.Reverse(d.bare, func(p string, _ []byte) bool {
			if !d.files[p] && matchPaths(l.req.Paths, p) {
				callers[p] = true
			}
			return true
		})
		if err != nil {
			return err
		}
		for p := range callers {
			f := l.file(p)
			f.add("caller", locWeights.caller*d.sure/float64(len(callers))*f.prior)
		}
	}
	return nil
}

// kinDepth is how many chunks the names leg reads for the kin of one name.
const kinDepth = 100

// addKin credits the files that define the kin of the compound names of
// the text that nothing defines (used): the definitions whose name begins
// with the same word, other than the name itself (EnableCaseInsensitive →
// EnablePrefixMatching, EnableCommandSorting). A change that adds a name
// most often adds it beside its kin: a new option beside the options, a
// new hook beside the hooks. Each file gains the kind's weight × the
// name's sureness × its share of the kin definitions found; the names leg
// of the text index (a definition's name words) proposes the chunks.
func (l *locator) addKin(ctx context.Context, names []querytext.Name, used []string, tq func(string, int) search.Query) error {
	undefined := map[string]bool{}
	for _, u := range used {
		undefined[u] = true
	}
	if len(names) > locMaxNames {
		names = names[:locMaxNames]
	}
	done := map[string]bool{}
	for _, n := range names {
		_, bare := splitQualified(n.Text)
		if !undefined[bare] || done[bare] {
			continue
		}
		done[bare] = true
		words := nameWords(bare)
		if len(words) < 2 || len(words[0]) < 3 || search.IsStopWord(words[0]) {
			continue
		}
		first := words[0]
		hits, err := l.qc.s.e.text.SearchNames(ctx, tq(first, kinDepth))
		if err != nil {
			return err
		}
		per := map[string]float64{}
		total := 0.0
		for _, h := range hits {
			c, ok := l.qc.chunk(h.ID)
			if !ok || !matchPaths(l.req.Paths, c.Path) {
				continue
			}
			for _, sym := range c.Symbols {
				_, name := splitQualified(sym)
				if ws := nameWords(name); len(ws) >= 2 && ws[0] == first && !strings.EqualFold(name, bare) {
					per[c.Path]++
					total++
				}
			}
		}
		for p, k := range per {
			f := l.file(p)
			f.add("kin", locWeights.kin*n.Weight*k/total*f.prior)
		}
	}
	return nil
}

// nameWords splits a name into its lower-case words, on _, -, . and
// camelCase (EnableCaseInsensitive → enable, case, insensitive).
func nameWords(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
		}
		cur = cur[:0]
	}
	prevLower := false
	for _, r := range name {
		switch {
		case unicode.IsUpper(r) && prevLower:
			flush()
			cur = append(cur, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		default:
			flush()
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return out
}

// isCompound reports an identifier no English word spells: snake_case,
// camelCase, a leading underscore.
func isCompound(name string) bool {
	core := strings.Trim(name, "_")
	if core == "" || strings.ContainsAny(core, ". ") {
		return false
	}
	if core != name || strings.Contains(core, "_") {
		return true
	}
	lower := false
	for _, r := range core {
		if unicode.IsLower(r) {
			lower = true
		} else if unicode.IsUpper(r) && lower {
			return true
		}
	}
	return false
}

// nameDef is a definition a name of the text may mean, with how well the
// name's qualifiers fit it (1: all of them, or none given).
type nameDef struct {
	path, chunk string
	line        int // 1-based line of the definition's name
	quality     float64
}

// nameDefs returns the definitions a name of the text may mean:
// "Context.call" the method call of a Context class, "jinja2.runtime" the
// module jinja2/runtime.py, "click.echo" echo of the click package. When a
// qualifier matches some definitions, the others are dropped; when it
// matches none (a variable: app.name), all count at half quality. With
// types, only definitions of types count (a capitalised word of a
// sentence: "the Flag" is the type Flag, or nothing of the code).
func (s *Snapshot) nameDefs(name string, langs []string, types bool) ([]nameDef, error) {
	qual, bare := splitQualified(name)
	if bare == "" {
		return nil, nil
	}
	refs, err := s.st.SymbolsNamed(bare)
	if err != nil {
		return nil, err
	}
	var exact, loose []nameDef
	for _, ref := range refs {
		if ref.Chunk == 0 {
			continue
		}
		si, err := s.symbolAt(ref)
		if err != nil || len(langs) > 0 && !contains(langs, si.Language) || types && !isTypeKind(si.Kind) {
			continue
		}
		d := nameDef{path: ref.Path, chunk: ref.Chunk.String(), line: si.NameSpan.Start.Line + 1, quality: 1}
		if qual == "" || qualifierMatches(qual, si) {
			exact = append(exact, d)
		} else {
			d.quality = 0.5
			loose = append(loose, d)
		}
	}
	if len(exact) > 0 {
		return exact, nil
	}
	return loose, nil
}

// isTypeKind reports the kinds of definition that are types.
func isTypeKind(k symbols.Kind) bool {
	switch k {
	case symbols.KindClass, symbols.KindStruct, symbols.KindInterface, symbols.KindTrait,
		symbols.KindEnum, symbols.KindType:
		return true
	}
	return false
}

// litKind is what a literal is.
type litKind int

const (
	// litQuoted: words quoted in the text, an option, a name.
	litQuoted litKind = iota
	// litPrinted: a message the program printed.
	litPrinted
	// litLabel: a heading or label the program printed ("Flags:"),
	// matched as printed, colon included.
	litLabel
)

// addLiterals credits the files whose code holds a quoted message or an
// option verbatim (the longest run of the literal's words, in order): BM25
// finds candidates, the chunk text decides.
func (l *locator) addLiterals(ctx context.Context, kind string, lits []string, how litKind, weight float64, tq func(string, int) search.Query) error {
	if len(lits) > locMaxLits {
		lits = lits[:locMaxLits]
	}
	type part struct {
		lit      string
		share    float64 // of the literal's credit
		template bool    // a run between a message's quoted values
	}
	var parts []part
	for _, lit := range lits {
		if how == litLabel {
			parts = append(parts, part{lit, 1, false})
			continue
		}
		runs := templateParts(lit)
		total := 0
		for _, r := range runs {
			total += len(words(r))
		}
		for _, r := range runs {
			if n := len(words(r)); n > 0 {
				parts = append(parts, part{r, float64(n) / float64(total), r != lit})
			}
		}
	}
	deepLeft := locDeepLitReads
	for _, pt := range parts {
		depth := locLitDepth
		if how == litLabel || pt.template {
			// BM25 cannot rank these: a label's words are common ones
			// and its colon decides; the tests and docs quoting a whole
			// message outrank the code holding its template.
			depth = max(locLitDepth, min(locDeepLitDepth, deepLeft))
			deepLeft -= depth
		}
		found, err := l.literalMatches(ctx, pt.lit, how == litLabel, tq(pt.lit, depth))
		if err != nil {
			return err
		}
		files := map[string]bool{}
		for _, m := range found {
			files[m.path] = true
		}
		if len(files) == 0 {
			continue
		}
		spec := 1 / float64(len(files))
		if how != litQuoted {
			// A message the program printed is as specific as the
			// files of code that hold it: the page of docs explaining
			// an error does not halve the credit of the code raising it.
			code := 0
			for p := range files {
				if isCode(classOf(p)) {
					code++
				}
			}
			if code > 0 {
				spec = 1 / float64(code)
			}
		}
		best := map[string]float64{}
		for _, m := range found {
			f := l.file(m.path)
			w := weight * pt.share * m.frac * spec * f.prior
			f.chunks[m.chunk] += w
			best[m.path] = max(best[m.path], w)
			if how != litQuoted && isCode(classOf(m.path)) {
				// The definition that prints it is named by it: the
				// message is the program's, and only it prints it.
				f.named = append(f.named, namedLine{line: m.line, sure: m.frac * spec * f.prior, printed: true})
			}
		}
		for p, w := range best {
			l.file(p).add(kind, w)
		}
	}
	return nil
}

// litMatch is a chunk holding a literal.
type litMatch struct {
	path, chunk string
	frac        float64 // of the literal's words, in the run found
	line        int     // where the run starts
}

// literalMatches returns the chunks among the hits of q that hold lit: the
// longest run of its words in order, at least three of them or all; a label
// as it is printed.
func (l *locator) literalMatches(ctx context.Context, lit string, label bool, q search.Query) ([]litMatch, error) {
	want := words(lit)
	if len(want) == 0 {
		return nil, nil
	}
	need := min(len(want), 3)
	hits, err := l.qc.s.e.text.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	var found []litMatch
	for _, h := range hits {
		meta, ok := l.qc.chunk(h.ID)
		if !ok || !matchPaths(l.req.Paths, meta.Path) {
			continue
		}
		c, err := l.qc.s.st.Chunk(meta.ID)
		if err != nil {
			return nil, err
		}
		at := -1
		if label {
			if at = labelAt(c.Text, lit); at < 0 {
				continue // a label ("Flags:") is its printed text, not its word
			}
		}
		run, line := runIn(want, c.Text)
		if run < need {
			continue
		}
		if at >= 0 {
			line = strings.Count(c.Text[:at], "\n")
		}
		found = append(found, litMatch{c.Path, h.ID, float64(run) / float64(len(want)), c.StartLine + line})
	}
	return found, nil
}

// labelAt returns where text prints label as a heading, or -1: after a
// line's start, a quote or a space, and before a line's end, a template
// ("Usage:{{"), an escape or a closing quote; not a key with its value
// ("Flags: []*Flag{…}") nor the tail of a longer word ("VisibleFlags:").
func labelAt(text, label string) int {
	for from := 0; ; {
		i := strings.Index(text[from:], label)
		if i < 0 {
			return -1
		}
		i += from
		before, after := byte('\n'), byte('\n')
		if i > 0 {
			before = text[i-1]
		}
		if j := i + len(label); j < len(text) {
			after = text[j]
		}
		if strings.IndexByte("\n\t \"'`", before) >= 0 && strings.IndexByte("\n\r{\\\"'`%", after) >= 0 {
			return i
		}
		from = i + 1
	}
}

// templateParts splits a message at the values quoted in it and the words
// holding digits: the code
// holds the message as a template ("Invalid value for {hint}: {value!r}
// is not a valid integer."), so the runs of words between the values are
// what it holds verbatim. Runs of fewer than three words are dropped; a
// message with no quoted value, or no such run, is one part.
func templateParts(msg string) []string {
	var out []string
	rest := msg
	for {
		a, b := quotedValue(rest)
		if c, d := numberValue(rest); c >= 0 && (a < 0 || c < a) {
			a, b = c, d
		}
		run := rest
		if a >= 0 {
			run = rest[:a]
		}
		if len(words(run)) >= 3 {
			out = append(out, strings.TrimSpace(run))
		}
		if a < 0 {
			break
		}
		rest = rest[b:]
	}
	if len(out) == 0 || len(out) == 1 && out[0] == strings.TrimSpace(msg) {
		return []string{msg}
	}
	return out
}

// numberValue returns the bounds of the first number of s ("30.0s", "404",
// "127.0.0.1:5432": a word that starts with a digit or is mostly digits), or
// -1: a value the message was formatted with, unquoted. A word with a digit
// inside ("base64", "HTTP/2", "utf-8") is a word of the message.
func numberValue(s string) (start, end int) {
	for i := 0; i < len(s); {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' {
			j++
		}
		if w := s[i:j]; w != "" {
			digits := 0
			for k := 0; k < len(w); k++ {
				if w[k] >= '0' && w[k] <= '9' {
					digits++
				}
			}
			if w[0] >= '0' && w[0] <= '9' || digits*2 > len(w) {
				return i, j
			}
		}
		i = j
	}
	return -1, -1
}

// quotedValue returns the bounds of the first value quoted in s ('x',
// "--count", `a.b`), or -1: a quote that opens a word and one that closes
// it, so the apostrophes of "can't" and "doesn't" quote nothing.
func quotedValue(s string) (start, end int) {
	isWord := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := 0; i < len(s); i++ {
		q := s[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); isWord(r) {
			continue
		}
		for j := i + 1; j < len(s) && s[j] != '\n'; j++ {
			if r, _ := utf8.DecodeRuneInString(s[j+1:]); s[j] == q && !isWord(r) {
				return i, j + 1
			}
		}
	}
	return -1, -1
}

// words returns the lower-case words of s (letters, digits, _), the unit of
// verbatim matching.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	})
}

// runIn returns the length of the longest run of consecutive words of want
// that appears, consecutively, in text, and the 0-based line of text where
// it starts.
func runIn(want []string, text string) (run, line int) {
	prev := make([]int, len(want)+1)
	cur := make([]int, len(want)+1)
	var starts []int // the line of each word read
	for n, l := range strings.Split(text, "\n") {
		for _, h := range words(l) {
			starts = append(starts, n)
			for j, w := range want {
				if h == w {
					cur[j+1] = prev[j] + 1
					if cur[j+1] > run {
						run, line = cur[j+1], starts[len(starts)-cur[j+1]]
					}
				} else {
					cur[j+1] = 0
				}
			}
			prev, cur = cur, prev
		}
	}
	return run, line
}
