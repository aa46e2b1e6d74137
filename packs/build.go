package packs

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/context-ls/context-ls/symbols"
)

// Tuning of the selection. They are constants, not Request fields, because
// they follow from how packs are read rather than from a user's taste.
const (
	// maxItemShare is the largest part of the budget one agent item may
	// take in full; longer items are shortened to it. The first agent item
	// (the best) may take firstItemShare: the budget is spent down the
	// ranking. A class shown without its methods (Candidate.Members) takes
	// at most membersItemShare: its methods are items of their own. Set on
	// the development change descriptions (go run ./bench spans): at 0.4
	// for every item, the definition the change edits was shown in full
	// less often at 2,000 tokens; a first share of 0.7 to 0.8 shows more of
	// a long best function than 0.6 (coverage at 2,000 0.465 → 0.486, the
	// same at 4,000).
	maxItemShare     = 0.5
	firstItemShare   = 0.75
	membersItemShare = 0.15
	// minItemTokens keeps the per-item limit useful for tiny budgets.
	minItemTokens = 120
	// holdTokens is what each chosen item still to come keeps back when
	// the budget is handed out again in score order (respend): enough for a
	// shortened item to clear minItemTokens, as shortening lands under its
	// target.
	holdTokens = minItemTokens * 3 / 2
	// summaryMinTokens: items smaller than this are not summarised.
	summaryMinTokens = 100
	// summaryMaxShare: a summary is only offered when it costs at most this
	// share of the full item.
	summaryMaxShare = 0.6
	// sameFileSimilarity is the MMR similarity of two snippets of the same
	// file, so a pack spreads over files before it piles up in one. With
	// items that are whole definitions it is high: the files a change
	// touches are among the best few (file recall of a 4,000-token pack
	// 0.85 at 0.25, 0.93 at 0.8), and the best file's best definitions still
	// come first.
	sameFileSimilarity = 0.8
	// dominancePower: a file whose best candidate outscores every other
	// file's is spread from less: its snippets' similarity is
	// sameFileSimilarity × (the best other file's score ÷ its own) to this
	// power. When the evidence points at one file, its next definition is
	// worth more than a weak one elsewhere (a 0.3 method of the best file
	// lost to a 0.04 function of another); when files are close, the pack
	// still spreads. Set on go run ./bench spans and the other
	// repositories' rows (with the weaker items of a file giving way in
	// respend): at 0.25 coverage at 2,000 tokens 0.507 → 0.528 (0.513 →
	// 0.519 elsewhere), at 4,000 the same (0.649 → 0.656 elsewhere), file
	// recall at 4,000 0.927 → 0.920; at 0.5 and 1 coverage at 4,000 fell.
	dominancePower = 0.25
	// valueFloor keeps a redundant item's value positive (a small share of
	// its relevance) so leftover budget is still used.
	valueFloor = 0.02
)

// Build selects candidates into a pack that fits req.Budget and renders it.
//
// Always items are taken first, then manual items, each group by score and
// each item while it fits (shortened if only that makes it fit). When the
// always items alone exceed the budget, the ones that do not fit are
// dropped — counted in Dropped and named in Notes — and nothing else is
// taken. Agent items then fill the rest as described in the package
// documentation. Candidates are validated: an unknown source or include
// mode, an empty path, a bad line range or a NaN score is an error wrapping
// ErrCandidate; text that is not UTF-8 is repaired, and binary text (NUL
// bytes) is skipped with a note.
func Build(req Request, cands []Candidate) (Pack, error) {
	return BuildContext(context.Background(), req, cands)
}

// BuildContext is Build with a context that bounds the parsing done to
// shorten over-long items.
func BuildContext(ctx context.Context, req Request, cands []Candidate) (Pack, error) {
	began := time.Now()
	st, err := req.normalize()
	if err != nil {
		return Pack{}, err
	}
	b := &builder{st: st, short: &shortener{ctx: ctx, weight: req.LineWeight}}
	defer b.short.close()
	if err := b.prepare(cands); err != nil {
		return Pack{}, err
	}
	b.overhead = CountTokens(renderWrap(costFormat(st.format), true)) + CountTokens(renderWrap(costFormat(st.format), false))
	b.remaining = st.budget - b.overhead
	b.selectFixed(ModeAlways)
	b.selectFixed(ModeManual)
	b.selectAgents()
	pack, err := b.finish()
	if err != nil {
		return Pack{}, err
	}
	pack.LatencyMs = float64(time.Since(began).Microseconds()) / 1000
	return pack, nil
}

// cand is a candidate during selection.
type cand struct {
	Candidate
	idx      int
	modeRank int // 0 always, 1 manual, 2 agent
	shingles []uint64

	// The full text's rendered cost, and the copy shortened to fit the
	// per-item limit (or what was left of the budget) once made.
	fullCost int
	fit      string
	fitCost  int
	fitDone  bool
	shortFor map[int]shortenedText // shortened's answers, by limit

	// The summary: every function body elided, taken when nothing else fits.
	summary     string
	summaryCost int
	summaryDone bool

	elided    bool // shown without its members (Candidate.Members)
	selected  bool
	useFit    bool // the selected text is the fitted copy
	isSummary bool // the selected text is the summary
	dup       bool // a duplicate, or covered by a selected item
	missed    bool // left out at least once for lack of budget
	value     float64
	maxSim    float64 // largest similarity to a selected agent item
	fitsQuota bool
	// sameFile is the MMR similarity of two agent snippets of this file,
	// set by dominance.
	sameFile float64
}

type builder struct {
	st        settings
	short     *shortener
	cands     []*cand
	overhead  int
	remaining int
	selected  []*cand // in selection order
	notes     []string
	droppedAl int // always items over budget
}

func modeRank(m string) int {
	switch m {
	case ModeAlways:
		return 0
	case ModeManual:
		return 1
	}
	return 2
}

// prepare validates and cleans the candidates, removes exact and near
// duplicates and computes the full cost of each.
func (b *builder) prepare(in []Candidate) error {
	binary := 0
	for i, c := range in {
		if strings.TrimSpace(c.Path) == "" {
			return fmt.Errorf("candidate %d: empty path: %w", i, ErrCandidate)
		}
		if strings.ContainsRune(c.Path, 0) || !utf8.ValidString(c.Path) {
			return fmt.Errorf("candidate %d: path %q is not valid text: %w", i, c.Path, ErrCandidate)
		}
		if c.StartLine < 1 || c.EndLine < c.StartLine {
			return fmt.Errorf("candidate %d (%s): line range %d-%d: %w", i, c.Path, c.StartLine, c.EndLine, ErrCandidate)
		}
		if math.IsNaN(c.Score) || math.IsInf(c.Score, 0) {
			return fmt.Errorf("candidate %d (%s): score %v: %w", i, c.Path, c.Score, ErrCandidate)
		}
		c.Score = math.Max(0, math.Min(1, c.Score))
		switch c.IncludeMode {
		case "":
			c.IncludeMode = ModeAgent
		case ModeAlways, ModeManual, ModeAgent:
		default:
			return fmt.Errorf("candidate %d (%s): include mode %q: %w", i, c.Path, c.IncludeMode, ErrCandidate)
		}
		if c.Source == "" {
			c.Source = map[string]string{ModeAlways: SourceAlways, ModeManual: SourcePinned, ModeAgent: SourceQuery}[c.IncludeMode]
		}
		if !isSource(c.Source) {
			return fmt.Errorf("candidate %d (%s): source %q: %w", i, c.Path, c.Source, ErrCandidate)
		}
		if strings.ContainsRune(c.Text, 0) {
			binary++
			continue
		}
		// Line endings become "\n": renderers and XML readers agree on
		// them, and a CRLF copy of a file de-duplicates with the original.
		c.Text = crlf.Replace(strings.ToValidUTF8(c.Text, "\uFFFD"))
		if strings.TrimSpace(c.Text) == "" {
			continue
		}
		if !strings.HasSuffix(c.Text, "\n") {
			c.Text += "\n"
		}
		if c.Language == "" {
			if l := symbols.ForPath(c.Path); l != nil {
				c.Language = l.Name
			}
		}
		c.Symbol = oneLine(c.Symbol)
		c.Kind = oneLine(c.Kind)
		c.Reason = oneLine(c.Reason)
		b.cands = append(b.cands, &cand{Candidate: c, idx: i, modeRank: modeRank(c.IncludeMode), elided: c.Members})
	}
	if binary > 0 {
		b.notes = append(b.notes, fmt.Sprintf("skipped %d binary candidate(s)", binary))
	}
	// Best first: stronger include mode, higher score, earlier input.
	sort.SliceStable(b.cands, func(i, j int) bool {
		x, y := b.cands[i], b.cands[j]
		if x.modeRank != y.modeRank {
			return x.modeRank < y.modeRank
		}
		return x.Score > y.Score
	})
	seen := map[[32]byte]bool{}
	kept := b.cands[:0]
	for _, c := range b.cands {
		h := contentHash(c.Text)
		if seen[h] {
			continue
		}
		seen[h] = true
		kept = append(kept, c)
	}
	b.cands = kept
	for _, c := range b.cands {
		if c.Embedding == nil {
			c.shingles = shingles(c.Text)
		}
	}
	// Near duplicates: a candidate close to a better one is dropped.
	kept = b.cands[:0]
	for _, c := range b.cands {
		dup := false
		for _, k := range kept {
			if contentSimilarity(c, k) >= NearDuplicate {
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, c)
		}
	}
	b.cands = kept
	for _, c := range b.cands {
		c.fullCost = b.itemCost(c, c.Text)
	}
	return nil
}

var crlf = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// oneLine makes a label safe for a one-line header.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\t' || r < 0x20 || r == 0x7f
	}), " ")
}

// contentSimilarity is the cosine of the embeddings when both have one of
// the same size, else the Jaccard similarity of their shingles. It is only
// exact at or above NearDuplicate; below it may report 0.
func contentSimilarity(a, b *cand) float64 {
	if s, ok := cosine(a.Embedding, b.Embedding); ok {
		return s
	}
	if a.shingles == nil {
		a.shingles = shingles(a.Text)
	}
	if b.shingles == nil {
		b.shingles = shingles(b.Text)
	}
	// Jaccard ≤ min/max of the set sizes: skip pairs that cannot be close.
	la, lb := len(a.shingles), len(b.shingles)
	if la > lb {
		la, lb = lb, la
	}
	if float64(la) < NearDuplicate*float64(lb) {
		return 0 // too different in size to be near duplicates
	}
	return Jaccard(a.shingles, b.shingles)
}

// similarity is the MMR similarity of two agent candidates: content
// similarity, raised to their file's same-file similarity (dominance) for
// two snippets of one file.
func similarity(a, b *cand) float64 {
	s := 0.0
	if a.Embedding != nil && b.Embedding != nil {
		if c, ok := cosine(a.Embedding, b.Embedding); ok {
			s = c
		}
	} else {
		if a.shingles == nil {
			a.shingles = shingles(a.Text)
		}
		if b.shingles == nil {
			b.shingles = shingles(b.Text)
		}
		s = Jaccard(a.shingles, b.shingles)
	}
	if a.Path == b.Path && s < a.sameFile {
		s = a.sameFile
	}
	return s
}

// dominance sets each agent candidate's same-file similarity: lower for a
// file whose best candidate outscores every other file's (dominancePower),
// sameFileSimilarity for the others.
func dominance(agents []*cand) {
	best := map[string]float64{}
	first, second := "", ""
	for _, c := range agents {
		best[c.Path] = max(best[c.Path], c.Score)
	}
	for p, v := range best {
		switch {
		case first == "" || v > best[first] || v == best[first] && p < first:
			first, second = p, first
		case second == "" || v > best[second] || v == best[second] && p < second:
			second = p
		}
	}
	for _, c := range agents {
		c.sameFile = sameFileSimilarity
		if c.Path == first && best[first] > 0 {
			ratio := 0.0
			if second != "" {
				ratio = best[second] / best[first]
			}
			c.sameFile = sameFileSimilarity * math.Pow(min(ratio, 1), dominancePower)
		}
	}
}

// itemCost is the number of tokens c adds to the pack with text, as
// costFormat renders it. One token is added for the rounding of the
// estimate at piece borders.
func (b *builder) itemCost(c *cand, text string) int {
	return CountTokens(renderItem(costFormat(b.st.format), b.toItem(c, text))) + 1
}

// costFormat is the rendering a format's budget counts: xml's own (its
// tags are what a prompt holds, about 20 tokens an item more than
// markdown's header and fence), markdown's for the others — plain is
// markdown without fences, and json's items reach a model as their header
// and text. So markdown, plain and json packs carry the same items for the
// same budget; an xml pack of many small items holds a few less.
func costFormat(format string) string {
	if format == FormatXML {
		return FormatXML
	}
	return FormatMarkdown
}

// tokensOf is what a pack of items in format costs against the budget: the
// rendered text, except for json, whose items are taken apart by a program
// and reach a model as their header and text — as markdown renders them —,
// not with the JSON syntax and metadata around them.
func tokensOf(format, text string, items []Item) int {
	if format == FormatJSON {
		return CountTokens(render(FormatMarkdown, items))
	}
	return CountTokens(text)
}

func (b *builder) toItem(c *cand, text string) Item {
	return Item{
		Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Symbol: c.Symbol, Kind: c.Kind,
		IncludeMode: c.IncludeMode, Reason: c.Reason, Score: math.Round(c.Score*1000) / 1000,
		Tokens: CountTokens(text), Text: text, Language: c.Language, Source: c.Source,
	}
}

// shortened returns c's text shortened so its item costs at most limit.
// The answer is kept per limit: respend asks again for most items.
func (b *builder) shortened(c *cand, limit int) (string, int, bool) {
	if r, ok := c.shortFor[limit]; ok {
		return r.text, r.cost, r.ok
	}
	text, cost, ok := b.shorten(c, limit)
	if c.shortFor == nil {
		c.shortFor = map[int]shortenedText{}
	}
	c.shortFor[limit] = shortenedText{text, cost, ok}
	return text, cost, ok
}

type shortenedText struct {
	text string
	cost int
	ok   bool
}

func (b *builder) shorten(c *cand, limit int) (string, int, bool) {
	header := c.fullCost - CountTokens(c.Text)
	target := limit - header
	if target <= 0 {
		return "", 0, false
	}
	text, ok := b.short.shorten(c.Language, c.Text, target)
	if !ok || text == c.Text {
		return "", 0, false
	}
	cost := b.itemCost(c, text)
	if cost > limit {
		return "", 0, false
	}
	return text, cost, true
}

// covered reports whether a selected, unshortened item of the same file
// already shows c's lines.
func (b *builder) covered(c *cand) bool {
	for _, s := range b.selected {
		if s.Path == c.Path && !s.useFit && !s.isSummary && !s.elided && s.StartLine <= c.StartLine && c.EndLine <= s.EndLine {
			return true
		}
	}
	return false
}

// take selects c in the given form (whole, fitted or summary), first
// releasing selected items of the same file whose lines c shows in full.
func (b *builder) take(c *cand, fit, summary bool) {
	if !fit && !summary && !c.elided {
		kept := b.selected[:0]
		for _, s := range b.selected {
			if s.Path == c.Path && s.StartLine >= c.StartLine && s.EndLine <= c.EndLine {
				s.selected, s.dup = false, true
				b.remaining += s.cost()
				if s.modeRank < c.modeRank {
					c.modeRank, c.IncludeMode = s.modeRank, s.IncludeMode
				}
				continue
			}
			kept = append(kept, s)
		}
		b.selected = kept
	}
	c.selected, c.useFit, c.isSummary = true, fit, summary
	b.remaining -= c.cost()
	b.selected = append(b.selected, c)
}

func (c *cand) cost() int {
	switch {
	case c.isSummary:
		return c.summaryCost
	case c.useFit:
		return c.fitCost
	}
	return c.fullCost
}

func (c *cand) text() string {
	switch {
	case c.isSummary:
		return c.summary
	case c.useFit:
		return c.fit
	}
	return c.Text
}

// selectFixed takes the always or manual items, best first, while they fit.
func (b *builder) selectFixed(mode string) {
	missed := 0
	for _, c := range b.cands {
		if c.IncludeMode != mode || c.selected || c.dup {
			continue
		}
		if b.covered(c) {
			c.dup = true
			continue
		}
		if c.fullCost <= b.remaining {
			b.take(c, false, false)
			continue
		}
		if text, cost, ok := b.shortened(c, b.remaining); ok {
			c.fit, c.fitCost, c.fitDone = text, cost, true
			b.take(c, true, false)
			continue
		}
		c.missed = true
		missed++
	}
	if missed > 0 {
		b.notes = append(b.notes, fmt.Sprintf("%d %s item(s) did not fit the budget of %d tokens and were dropped", missed, mode, b.st.budget))
	}
}

// selectAgents fills the rest of the budget with agent items, best first:
// at each step the candidate of highest maximal marginal relevance (its
// score, less its similarity to what is already in) that can still be
// taken. Items scoring at least IncludeScore come first, whatever TopN; the
// others are taken while fewer than TopN agent items are in the pack, first
// within each source's share of the budget, then without shares. An item is
// taken whole when it is within its limit and fits what is left, else
// shortened to that (focused on the lines that bear on the request when
// LineWeight is set), else as its summary (bodies elided) when that fits.
// The first agent item may take firstItemShare of the budget, the others
// maxItemShare (or, up to half of themselves, what the items before them
// left of firstItemShare). Once chosen, the items are taken again in score
// order (respend): the budget is spent down the ranking, so the best item
// keeps its lines and the weaker ones give way.
func (b *builder) selectAgents() {
	var agents []*cand
	for _, c := range b.cands {
		if c.IncludeMode == ModeAgent && !c.dup {
			agents = append(agents, c)
		}
	}
	if len(agents) == 0 {
		return
	}
	dominance(agents)
	share := func(s float64) int { return int(math.Max(float64(minItemTokens), s*float64(b.st.budget))) }
	// limit is what c may take now: the first agent item firstItemShare,
	// the others maxItemShare — or what the items taken before them left
	// of firstItemShare, up to half of themselves: a long definition
	// after a few small better ones is shown at least half, not cut to
	// a fragment — a class without its methods at most membersItemShare.
	limit := func(c *cand) int {
		n, spent := b.agentItems()
		lim := max(share(maxItemShare), min(share(firstItemShare)-spent, c.fullCost/2))
		if n == 0 {
			lim = share(firstItemShare)
		}
		if c.elided {
			lim = min(lim, share(membersItemShare))
		}
		return lim
	}
	// pick takes the best candidate eligible for room(c) tokens, and
	// reports whether one was taken.
	pick := func(eligible func(c *cand) bool, room func(c *cand) int, fitRoom bool) (*cand, int, bool) {
		for {
			var best *cand
			bestValue := 0.0
			for _, c := range agents {
				if c.selected || c.dup || c.missed || !eligible(c) {
					continue
				}
				if v := b.mmr(c); best == nil || v > bestValue {
					best, bestValue = c, v
				}
			}
			if best == nil {
				return nil, 0, false
			}
			if b.covered(best) {
				best.dup = true
				continue
			}
			before := b.remaining
			if b.takeBest(best, limit(best), room(best), fitRoom) {
				best.value = bestValue
				b.updateSimilarity(agents, best)
				return best, before - b.remaining, true
			}
			best.missed = true
		}
	}
	all := func(*cand) int { return b.remaining }
	for {
		if _, _, ok := pick(func(c *cand) bool { return c.Score >= b.st.includeScore }, all, true); !ok {
			break
		}
	}
	// The rest, within the source shares, then freely.
	present := map[string]bool{}
	for _, c := range agents {
		if !c.selected && !c.dup && !c.missed {
			present[c.Source] = true
		}
	}
	sum := 0.0
	for src, v := range b.st.shares {
		if present[src] {
			sum += v
		}
	}
	quota := map[string]int{}
	if sum > 0 {
		for src, v := range b.st.shares {
			if present[src] {
				quota[src] = int(float64(b.remaining) * v / sum)
			}
		}
	}
	rest := func(c *cand) bool { n, _ := b.agentItems(); return n < b.st.topN }
	for {
		c, spent, ok := pick(func(c *cand) bool { return rest(c) && quota[c.Source] > 0 },
			func(c *cand) int { return min(b.remaining, quota[c.Source]) }, false)
		if !ok {
			break
		}
		quota[c.Source] -= spent
	}
	// What the shares held back is not missed for good.
	for _, c := range agents {
		if !c.selected && c.missed && c.Score < b.st.includeScore {
			c.missed = false
		}
	}
	for {
		if _, _, ok := pick(rest, all, true); !ok {
			break
		}
	}
	// The items are chosen; their lines are now handed out again, best
	// first, and what is left goes to more items.
	b.respend(limit)
	b.repairRank(limit)
	for {
		if _, _, ok := pick(rest, all, true); !ok {
			break
		}
	}
}

// respend takes the chosen agent items again in score order, each source's
// items within what that source spent (so the task's shares hold), each
// item whole when within its limit and the room, else shortened to that.
// The selection above is made in MMR order, which puts a definition of an
// already-shown file after weaker ones of other files: taken in that order,
// the weaker item kept its body and the better one got what was left, often
// its signature alone. Each item still to come keeps holdTokens (or its
// cost, if less) back, so none chosen is dropped and the pack keeps its
// files — unless it is a weaker item of the same file as one that would be
// cut short: those give way, weakest first, when that shows the better
// one whole (a file's edited method whole rather than it cut and five
// small neighbours kept). What a source does not spend again is left for
// more items.
func (b *builder) respend(limit func(*cand) int) {
	bySource := map[string][]*cand{}
	var sources []string
	kept := b.selected[:0]
	for _, c := range b.selected {
		if c.IncludeMode != ModeAgent {
			kept = append(kept, c)
			continue
		}
		if bySource[c.Source] == nil {
			sources = append(sources, c.Source)
		}
		bySource[c.Source] = append(bySource[c.Source], c)
	}
	b.selected = kept
	// Each source's pool is what its items cost; they are all given back
	// first, so a whole item taken from one source can release another's.
	pools := map[string]int{}
	hold := map[*cand]int{}
	for _, src := range sources {
		for _, c := range bySource[src] {
			pools[src] += c.cost()
			hold[c] = min(c.cost(), holdTokens)
			b.remaining += c.cost()
			c.selected, c.useFit, c.isSummary = false, false, false
		}
	}
	for _, src := range sources {
		again := bySource[src]
		sort.SliceStable(again, func(i, j int) bool { return again[i].Score > again[j].Score })
	}
	// The source of the best item first: the first item taken may take
	// firstItemShare.
	sort.SliceStable(sources, func(i, j int) bool { return bySource[sources[i]][0].Score > bySource[sources[j]][0].Score })
	for _, src := range sources {
		again := bySource[src]
		held := 0
		for _, c := range again {
			held += hold[c]
		}
		pool := pools[src]
		room := func() int { return min(b.remaining, pool-held) }
		gaveWay := map[*cand]bool{}
		for i, c := range again {
			if gaveWay[c] {
				continue
			}
			held -= hold[c]
			if c.dup { // released by a whole item taken before it
				continue
			}
			// Weaker items of its file still to come give way, weakest
			// first, when that lets an item within its limit be shown
			// whole.
			if c.fullCost <= limit(c) && c.fullCost > room() {
				var weaker []*cand
				freed := 0
				for _, w := range again[i+1:] {
					if w.Path == c.Path && !w.dup && !gaveWay[w] {
						weaker = append(weaker, w)
						freed += hold[w]
					}
				}
				if c.fullCost <= min(b.remaining, pool-held+freed) {
					for k := len(weaker) - 1; c.fullCost > room(); k-- {
						held -= hold[weaker[k]]
						gaveWay[weaker[k]], weaker[k].missed = true, true
					}
				}
			}
			if b.takeBest(c, limit(c), room(), true) {
				pool -= c.cost()
			} else {
				c.missed = true
			}
		}
	}
}

// repairRank makes sure an agent item is not shown as its summary while
// weaker ones of its source keep their bodies: respend hands the budget out
// in score order, but an item still to come keeps back what it costs when
// that is little, so small weak items can stay whole beside a summarised
// better one. The weaker items of the source, weakest first, give way to
// their summaries until the better item shows at least as much as each
// weaker item keeping its body (or all it may), shortened to the room they
// free.
func (b *builder) repairRank(limit func(*cand) int) {
	var agents []*cand
	for _, c := range b.selected {
		if c.IncludeMode == ModeAgent {
			agents = append(agents, c)
		}
	}
	sort.SliceStable(agents, func(i, j int) bool { return agents[i].Score > agents[j].Score })
	for i, x := range agents {
		if !x.selected || !x.isSummary {
			continue
		}
		var give []*cand // weakest first
		for j := len(agents) - 1; j > i; j-- {
			y := agents[j]
			if y.selected && !y.isSummary && y.Source == x.Source && y.Score < x.Score && b.summarise(y) && y.summaryCost < y.cost() {
				give = append(give, y)
			}
		}
		best, free := -1, b.remaining
		for n := 0; n <= len(give); n++ {
			if n > 0 {
				free += give[n-1].cost() - give[n-1].summaryCost
			}
			_, cost, _, ok := b.body(x, limit(x), x.cost()+free, true)
			if !ok {
				continue
			}
			best = n
			kept := 0 // the most a weaker item keeping its body costs
			for _, y := range give[n:] {
				kept = max(kept, y.cost())
			}
			if cost >= kept || cost >= min(x.fullCost, limit(x)) {
				break
			}
		}
		if best < 0 {
			continue
		}
		for _, y := range give[:best] {
			b.remaining += y.cost()
			y.useFit, y.isSummary = false, true
			b.remaining -= y.cost()
		}
		b.remaining += x.cost()
		b.selected = slices.DeleteFunc(b.selected, func(s *cand) bool { return s == x })
		x.selected, x.isSummary = false, false
		if !b.takeBest(x, limit(x), b.remaining, true) {
			b.take(x, false, true) // not reached: its room was measured above
		}
	}
}

// takeBest takes c in the best form that fits room: whole when within
// limit, else shortened to limit — or to what is left, when fitRoom —, else
// its summary. It reports whether c was taken. A share's leftover is not
// worth an item cut down to it (fitRoom false): the item waits for the
// pass without shares.
func (b *builder) takeBest(c *cand, limit, room int, fitRoom bool) bool {
	if text, cost, fit, ok := b.body(c, limit, room, fitRoom); ok {
		if fit {
			c.fit, c.fitCost = text, cost
		}
		b.take(c, fit, false)
		return true
	}
	if b.summarise(c) && c.summaryCost <= room {
		b.take(c, false, true)
		return true
	}
	return false
}

// body returns the text c shows with its body in room tokens (takeBest's
// first two forms): whole when within limit, else shortened to limit (to
// what is left, when fitRoom) if that copy is worth showing — at least
// minItemTokens, or half of c. fit reports the shortened copy; ok false
// when neither fits.
func (b *builder) body(c *cand, limit, room int, fitRoom bool) (text string, cost int, fit, ok bool) {
	if c.fullCost <= limit && c.fullCost <= room {
		return c.Text, c.fullCost, false, true
	}
	target := limit
	if fitRoom {
		target = min(limit, room)
	}
	if text, cost, ok := b.shortened(c, target); ok && cost <= room && (cost >= minItemTokens || cost*2 >= c.fullCost) {
		return text, cost, true, true
	}
	return "", 0, false, false
}

// summarise makes c's summary once; it reports whether c has one worth
// offering (structure to elide, and at most summaryMaxShare of the cost).
func (b *builder) summarise(c *cand) bool {
	if !c.summaryDone {
		c.summaryDone = true
		if c.fullCost >= summaryMinTokens {
			if text, ok := b.short.elideBodies(c.Language, c.Text, 0); ok {
				if cost := b.itemCost(c, text); float64(cost) <= summaryMaxShare*float64(c.fullCost) {
					c.summary, c.summaryCost = text, cost
				}
			}
		}
	}
	return c.summary != ""
}

// mmr is c's maximal marginal relevance given the items selected so far,
// floored at a small share of its relevance so it stays positive.
func (b *builder) mmr(c *cand) float64 {
	v := b.st.lambda*c.Score - (1-b.st.lambda)*c.maxSim
	return math.Max(v, valueFloor*c.Score)
}

// updateSimilarity records the similarity of the unselected agents to a
// newly selected item.
func (b *builder) updateSimilarity(agents []*cand, picked *cand) {
	for _, c := range agents {
		if !c.selected && !c.dup {
			if s := similarity(c, picked); s > c.maxSim {
				c.maxSim = s
			}
		}
	}
}

// agentItems returns how many agent items are taken so far and what they
// cost.
func (b *builder) agentItems() (n, cost int) {
	for _, s := range b.selected {
		if s.IncludeMode == ModeAgent {
			n++
			cost += s.cost()
		}
	}
	return n, cost
}

// finish scrubs the selected items, orders them by file and line, renders
// the pack and drops the least valuable items until the text fits (the
// rendering is counted afresh, so costs estimated before scrubbing do not
// matter here).
func (b *builder) finish() (Pack, error) {
	items := make([]*cand, 0, len(b.selected))
	for _, c := range b.selected {
		switch {
		case c.isSummary:
			c.summary = b.st.scrub.Scrub(c.summary)
		case c.useFit:
			c.fit = b.st.scrub.Scrub(c.fit)
		default:
			c.Text = b.st.scrub.Scrub(c.Text)
		}
		items = append(items, c)
	}
	dropped := 0
	for _, c := range b.cands {
		if !c.selected && !c.dup && c.missed {
			dropped++
		}
	}
	for {
		ordered := orderItems(items)
		out := make([]Item, len(ordered))
		for i, c := range ordered {
			out[i] = b.toItem(c, c.text())
			out[i].Shortened = c.useFit || c.isSummary || c.elided
		}
		text := render(b.st.format, out)
		n := tokensOf(b.st.format, text, out)
		if n <= b.st.budget {
			return Pack{Tokens: n, Budget: b.st.budget, Dropped: dropped, Items: out, Text: text, Notes: b.notes, Format: b.st.format}, nil
		}
		// Over budget (scrubbing lengthened an item, or the estimate
		// rounded differently over the whole): drop the weakest item.
		worst := 0
		for i, c := range items {
			w := items[worst]
			if c.modeRank > w.modeRank || (c.modeRank == w.modeRank && c.Score < w.Score) {
				worst = i
			}
		}
		items = append(items[:worst], items[worst+1:]...)
		dropped++
	}
}

// orderItems groups items by file — files with always items first, then
// manual, then by their best score — and orders each file's items by line.
func orderItems(items []*cand) []*cand {
	type fileKey struct {
		rank  int
		score float64
	}
	keys := map[string]fileKey{}
	for _, c := range items {
		k, ok := keys[c.Path]
		if !ok || c.modeRank < k.rank || (c.modeRank == k.rank && c.Score > k.score) {
			keys[c.Path] = fileKey{c.modeRank, c.Score}
		}
	}
	out := append([]*cand(nil), items...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			ka, kb := keys[a.Path], keys[b.Path]
			if ka.rank != kb.rank {
				return ka.rank < kb.rank
			}
			if ka.score != kb.score {
				return ka.score > kb.score
			}
			return a.Path < b.Path
		}
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		return a.EndLine < b.EndLine
	})
	return out
}
