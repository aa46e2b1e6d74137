package packs

import (
	"context"
	"fmt"
	"math"
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
	// take in full; longer items are shortened to it.
	maxItemShare = 0.4
	// minItemTokens keeps the per-item limit useful for tiny budgets.
	minItemTokens = 120
	// shortenedValue is the part of an item's value a copy shortened to fit
	// the per-item limit keeps.
	shortenedValue = 0.8
	// summaryValue is the part of an item's value its summary — every body
	// elided, signatures and doc comments kept — keeps.
	summaryValue = 0.6
	// summaryMinTokens: items smaller than this are not summarised.
	summaryMinTokens = 100
	// summaryMaxShare: a summary is only offered when it costs at most this
	// share of the full item.
	summaryMaxShare = 0.6
	// sameFileSimilarity is the MMR similarity of two snippets of the same
	// file, so a pack spreads over files before it piles up in one. It is
	// kept low: the best file usually holds several of the parts a reader
	// needs (measured with go run ./bench pack).
	sameFileSimilarity = 0.25
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
	b := &builder{st: st, short: &shortener{ctx: ctx}}
	defer b.short.close()
	if err := b.prepare(cands); err != nil {
		return Pack{}, err
	}
	b.overhead = CountTokens(renderWrap(st.format, true)) + CountTokens(renderWrap(st.format, false))
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

	// The summary: every function body elided (see summaryValue).
	summary     string
	summaryCost int
	summaryDone bool

	selected  bool
	useFit    bool // the selected text is the fitted copy
	isSummary bool // the selected text is the summary
	dup       bool // a duplicate, or covered by a selected item
	missed    bool // left out at least once for lack of budget
	value     float64
	maxSim    float64 // largest similarity to a selected agent item
	fitsQuota bool
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
		b.cands = append(b.cands, &cand{Candidate: c, idx: i, modeRank: modeRank(c.IncludeMode)})
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

// similarity is the MMR similarity: content similarity, raised to
// sameFileSimilarity for two snippets of one file.
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
	if a.Path == b.Path && s < sameFileSimilarity {
		s = sameFileSimilarity
	}
	return s
}

// itemCost is the number of tokens c adds to the rendered pack with text.
// One token is added for the rounding of the estimate at piece borders.
func (b *builder) itemCost(c *cand, text string) int {
	return CountTokens(renderItem(b.st.format, b.toItem(c, text))) + 1
}

func (b *builder) toItem(c *cand, text string) Item {
	return Item{
		Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Symbol: c.Symbol, Kind: c.Kind,
		IncludeMode: c.IncludeMode, Reason: c.Reason, Score: math.Round(c.Score*1000) / 1000,
		Tokens: CountTokens(text), Text: text, Language: c.Language, Source: c.Source,
	}
}

// shortened returns c's text shortened so its item costs at most limit.
func (b *builder) shortened(c *cand, limit int) (string, int, bool) {
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
	if c.Excerpt {
		return false
	}
	for _, s := range b.selected {
		if s.Path == c.Path && !s.useFit && !s.isSummary && !s.Excerpt && s.StartLine <= c.StartLine && c.EndLine <= s.EndLine {
			return true
		}
	}
	return false
}

// take selects c in the given form (whole, fitted or summary), first
// releasing selected items of the same file whose lines c shows in full.
func (b *builder) take(c *cand, fit, summary bool) {
	if !fit && !summary && !c.Excerpt {
		kept := b.selected[:0]
		for _, s := range b.selected {
			if s.Path == c.Path && !s.Excerpt && s.StartLine >= c.StartLine && s.EndLine <= c.EndLine {
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

// selectAgents fills the rest of the budget with agent items. Items
// scoring at least IncludeScore are taken first, in MMR order, while they
// fit (shortened when that makes them fit). The others compete for the
// remaining TopN places: greedily by MMR value per token, first within
// each source's share of the budget, then without shares.
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
	limit := int(math.Max(float64(minItemTokens), maxItemShare*float64(b.st.budget)))
	count := 0 // agent items in the pack

	// High scorers, best MMR value first.
	for {
		var best *cand
		bestValue := 0.0
		for _, c := range agents {
			if c.selected || c.dup || c.missed || c.Score < b.st.includeScore {
				continue
			}
			if v := b.mmr(c); best == nil || v > bestValue {
				best, bestValue = c, v
			}
		}
		if best == nil {
			break
		}
		if b.covered(best) {
			best.dup = true
			continue
		}
		short, _, ok := b.variant(best, limit, b.remaining)
		if !ok {
			// Too long for what is left even at the per-item limit:
			// shorten it to what is left.
			if text, cost, fits := b.shortened(best, b.remaining); fits {
				best.fit, best.fitCost, best.fitDone = text, cost, true
				short, ok = true, true
			}
		}
		if !ok {
			best.missed = true
			continue
		}
		b.take(best, short, false)
		count = b.agentCount()
		b.updateSimilarity(agents, best)
	}

	// The rest, by value per token within the source shares, then freely.
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
	// Multiple-choice knapsack, greedily: an item can be taken whole (or
	// shortened to the per-item limit), or as its summary and upgraded to
	// whole later; at each step the option adding most value per token wins.
	for pass := 0; pass < 2; pass++ {
		useQuota := pass == 0
		roomFor := func(c *cand) int {
			if useQuota {
				return min(b.remaining, quota[c.Source])
			}
			return b.remaining
		}
		for {
			// The best option without new summaries (none is made with an
			// infinite bar) is a density the step's winner must reach: a
			// summary that cannot is not made (see bestOption).
			floor := -1.0
			for _, c := range agents {
				if !c.dup {
					if opt, ok, _ := b.bestOption(c, limit, roomFor(c), count, math.Inf(1)); ok {
						floor = max(floor, opt.density)
					}
				}
			}
			var best *cand
			var bestOpt option
			for _, c := range agents {
				if c.dup {
					continue
				}
				room := roomFor(c)
				beat := floor // the density an option of c must pass to win this step
				if best != nil {
					beat = max(beat, bestOpt.density)
				}
				opt, ok, pruned := b.bestOption(c, limit, room, count, beat)
				if !ok && !pruned {
					if !c.selected && !useQuota && c.Score < b.st.includeScore && count < b.st.topN {
						c.missed = true
					}
					continue
				}
				if ok && (best == nil || opt.density > bestOpt.density) {
					best, bestOpt = c, opt
				}
			}
			if best == nil {
				break
			}
			before := b.remaining
			if bestOpt.upgrade {
				best.isSummary, best.useFit = false, bestOpt.short
				b.remaining -= bestOpt.cost
			} else {
				if b.covered(best) {
					best.dup = true
					continue
				}
				best.value = b.mmr(best)
				b.take(best, bestOpt.short, bestOpt.summary)
				count = b.agentCount()
				b.updateSimilarity(agents, best)
			}
			if useQuota {
				quota[best.Source] -= before - b.remaining
			}
		}
	}
}

// option is one way to spend tokens on a candidate in the competition.
type option struct {
	cost    int     // tokens added
	density float64 // value added per token
	short   bool    // the fitted copy, shortened to the per-item limit
	summary bool    // the summary
	upgrade bool    // a selected summary becomes the whole (or fitted) item
}

// bestOption returns the option for c that adds most value per token
// within room: take it whole (or shortened to limit), take its summary,
// or — when its summary is in the pack — upgrade it to whole. Making a
// summary parses the code, so it is left for later (pruned) while even the
// cheapest summary c could have would not pass beat, the density of the
// best option of this step so far, nor c's other option: c cannot win this
// step either way (on the stdlib dev queries 1 in 17 summaries made was
// taken).
func (b *builder) bestOption(c *cand, limit, room, count int, beat float64) (opt option, ok, pruned bool) {
	if c.selected {
		if !c.isSummary {
			return option{}, false, false
		}
		short, cost, ok := b.variant(c, limit, room+c.summaryCost)
		if !ok {
			return option{}, false, false
		}
		extra := cost - c.summaryCost
		if extra <= 0 || extra > room {
			return option{}, false, false
		}
		gain := 1 - summaryValue
		if short {
			gain = shortenedValue - summaryValue
		}
		if gain <= 0 {
			return option{}, false, false
		}
		return option{cost: extra, density: gain * c.value / float64(extra), short: short, upgrade: true}, true, false
	}
	if c.Score >= b.st.includeScore || count >= b.st.topN {
		return option{}, false, false
	}
	v := b.mmr(c)
	var best option
	found := false
	if short, cost, ok := b.variant(c, limit, room); ok {
		val := v
		if short {
			val *= shortenedValue
		}
		best, found = option{cost: cost, density: val / float64(cost), short: short}, true
	}
	if !c.summaryDone && c.fullCost >= summaryMinTokens {
		bar := beat
		if found {
			bar = max(bar, best.density)
		}
		if bar >= 0 && v*summaryValue/float64(b.summaryFloor(c)) <= bar {
			return best, found, true
		}
	}
	if b.summarise(c) && c.summaryCost <= room {
		d := v * summaryValue / float64(c.summaryCost)
		if !found || d > best.density {
			best, found = option{cost: c.summaryCost, density: d, summary: true}, true
		}
	}
	return best, found, false
}

// summaryFloor is a lower bound of the cost of c's summary: the item's
// header and the lines eliding bodies always keeps — up to the first line
// with a "{" in a brace language (a body's lines start after its opening
// brace: doc comment and signature stay), else the first line.
func (b *builder) summaryFloor(c *cand) int {
	kept, _, _ := strings.Cut(c.Text, "\n")
	if _, brace := braceComment[c.Language]; brace {
		if i := strings.IndexByte(c.Text, '{'); i >= 0 {
			end := strings.IndexByte(c.Text[i:], '\n')
			if end < 0 {
				end = len(c.Text) - i
			}
			kept = c.Text[:i+end]
		}
	}
	header := c.fullCost - CountTokens(c.Text)
	return max(1, header-2+CountTokens(kept))
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

func (b *builder) agentCount() int {
	n := 0
	for _, s := range b.selected {
		if s.IncludeMode == ModeAgent {
			n++
		}
	}
	return n
}

// variant picks the copy of c to offer: the full text when it is within
// the per-item limit and fits room, else the shortened copy if that fits.
func (b *builder) variant(c *cand, limit, room int) (short bool, cost int, ok bool) {
	if c.fullCost <= limit && c.fullCost <= room {
		return false, c.fullCost, true
	}
	if !c.fitDone {
		c.fitDone = true
		c.fit, c.fitCost, _ = b.shortened(c, limit)
	}
	if c.fit != "" && c.fitCost <= room {
		return true, c.fitCost, true
	}
	return false, 0, false
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
			out[i].Shortened = c.useFit || c.isSummary
		}
		text := render(b.st.format, out)
		n := CountTokens(text)
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
