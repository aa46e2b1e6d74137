package packs

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Sources of candidates: where the engine found a snippet.
const (
	SourceQuery      = "query"      // a search hit for the query
	SourceDefinition = "definition" // the definition of a symbol the selection uses
	SourceCaller     = "caller"     // a function calling the selection
	SourceCallee     = "callee"     // a function the selection calls
	SourceTest       = "test"       // a test exercising the selection
	SourceSimilar    = "similar"    // code similar to the selection
	SourceDoc        = "doc"        // a documentation section mentioning it
	SourceCochange   = "cochange"   // a file changed together with it in git
	SourcePinned     = "pinned"     // pinned by the user
	SourceAlways     = "always"     // a rules file or a configured path
	SourceSelection  = "selection"  // the selected code the pack is about
)

// Sources lists every valid Candidate.Source.
var Sources = []string{
	SourceQuery, SourceDefinition, SourceCaller, SourceCallee, SourceTest,
	SourceSimilar, SourceDoc, SourceCochange, SourcePinned, SourceAlways,
	SourceSelection,
}

// Include modes: why an item is in a pack.
const (
	// ModeAlways items (files under .context-ls/rules/ and configured
	// paths) are taken first, while they fit.
	ModeAlways = "always"
	// ModeManual items (pinned by the user) are taken next, while they fit.
	ModeManual = "manual"
	// ModeAgent items are chosen by relevance; the default.
	ModeAgent = "agent"
)

// Task types. They select the budget split across sources.
const (
	TaskAnalysis       = "analysis"
	TaskImplementation = "implementation"
	TaskReview         = "review"
	TaskTesting        = "testing"
	TaskDocumentation  = "documentation"
	TaskBugfix         = "bugfix"
)

// Output formats of the rendered pack.
const (
	FormatMarkdown = "markdown"
	FormatXML      = "xml"
	FormatJSON     = "json"
	FormatPlain    = "plain"
)

// Formats lists the valid Request.Format values.
var Formats = []string{FormatMarkdown, FormatXML, FormatJSON, FormatPlain}

// Defaults applied by Build to zero fields of a Request.
const (
	DefaultIncludeScore = 0.7
	DefaultTopN         = 25 // 20 → 25: coverage at 4,000 tokens 0.676 → 0.683 (go run ./bench spans), nothing else moved
	DefaultMMRLambda    = 0.7
	DefaultTask         = TaskAnalysis
	DefaultFormat       = FormatMarkdown
	// NearDuplicate is the similarity at or above which two candidates are
	// near duplicates and only the better one is kept.
	NearDuplicate = 0.9
)

// Errors returned by Build; check them with errors.Is.
var (
	ErrBudget    = errors.New("packs: budget must be a positive number of tokens")
	ErrFormat    = errors.New("packs: unknown format")
	ErrTask      = errors.New("packs: unknown task type")
	ErrRequest   = errors.New("packs: invalid request")
	ErrCandidate = errors.New("packs: invalid candidate")
)

// Candidate is one snippet offered to Build, in editor terms.
type Candidate struct {
	// Path is slash-separated and relative to the workspace root.
	Path string
	// StartLine and EndLine are 1-based and inclusive.
	StartLine, EndLine int
	// Symbol is the qualified name of the definition the snippet shows, if
	// any; Kind its kind ("function", "markdown_section" …).
	Symbol, Kind string
	// Language names the language for fences and structural shortening
	// ("go", "python" …); empty means plain text.
	Language string
	// Text is the snippet itself: exactly lines StartLine..EndLine.
	Text string
	// Tokens is the caller's count for Text. Build recounts after scrubbing
	// and ignores it; it is kept for callers that pass candidates around.
	Tokens int
	// Score is the relevance in [0, 1].
	Score float64
	// Source is one of the Source* constants.
	Source string
	// Reason explains the inclusion to a reader: "query match",
	// "caller of X", "test of Y", "pinned", "similar to selection",
	// "co-changed with F".
	Reason string
	// IncludeMode is ModeAlways, ModeManual or ModeAgent ("" means agent).
	IncludeMode string
	// Members marks a class or type shown without its methods (each run of
	// their lines is one "… N lines elided" line): they are candidates of
	// their own, and it covers none of them.
	Members bool
	// Embedding, when set on two candidates of the same dimension, replaces
	// shingle similarity for near-duplicate removal and MMR with cosine
	// similarity. It is the hook for embedding similarity.
	Embedding []float32
}

// Request says how to build a pack. Zero fields take the defaults.
type Request struct {
	// Budget is the most tokens the rendered Text may have; required.
	Budget int
	// Format is one of Formats; default markdown.
	Format string
	// Task selects the budget split; default analysis. A task not built in
	// is valid when Priorities defines it.
	Task string
	// IncludeScore: agent items scoring at or above it are taken (budget
	// permitting) regardless of TopN; default 0.7. Negative means 0.
	IncludeScore float64
	// TopN bounds the agent items in the pack: items below IncludeScore
	// are only taken while fewer than TopN agent items are in it; default 20.
	TopN int
	// Priorities maps a task to the share of the agent budget each source
	// gets. An entry replaces the built-in shares of that task; shares are
	// normalised over the sources that have candidates, so the share of a
	// source without candidates flows to the others.
	Priorities map[string]map[string]float64
	// MMRLambda trades relevance (1) against diversity across files and
	// content (0); default 0.7.
	MMRLambda float64
	// ScrubPatterns are extra regular expressions (RE2 syntax) whose
	// matches are redacted in addition to the built-in secret rules.
	ScrubPatterns []string
	// LineWeight, when set, says how much a line of code bears on the
	// request (0: nothing; the engine counts the query's words in it).
	// Shortening then keeps the lines that bear on it rather than the
	// first ones.
	LineWeight func(line string) float64 `json:"-"`
}

// Item is one snippet in a pack. Its JSON is the pack's public item shape.
type Item struct {
	Path        string  `json:"path"`
	StartLine   int     `json:"startLine"`
	EndLine     int     `json:"endLine"`
	Symbol      string  `json:"symbol"`
	Kind        string  `json:"kind"`
	IncludeMode string  `json:"includeMode"`
	Reason      string  `json:"reason"`
	Score       float64 `json:"score"`
	// Tokens counts Text (scrubbed, possibly shortened).
	Tokens int    `json:"tokens"`
	Text   string `json:"text"`

	// Language and Source are kept for renderers and callers; they are not
	// part of the JSON shape.
	Language string `json:"-"`
	Source   string `json:"-"`
	// Shortened reports that function bodies were elided or trailing lines
	// cut to make the item fit.
	Shortened bool `json:"-"`
}

// Pack is a built context pack.
type Pack struct {
	// Tokens is the token count of Text (for json, of its items as markdown
	// renders them: see tokensOf); never more than Budget.
	Tokens int `json:"tokens"`
	Budget int `json:"budget"`
	// Dropped counts candidates left out because the budget ran out
	// (duplicates and items past TopN are not counted).
	Dropped int `json:"dropped"`
	// Excluded counts candidates the request left out (set by the caller
	// that filtered them).
	Excluded int `json:"excluded,omitempty"`
	// LatencyMs is the time taken to build the pack.
	LatencyMs float64 `json:"latencyMs"`
	// Items are in rendering order: grouped by file, by line within a file.
	Items []Item `json:"items"`
	// Text is the rendered pack in the requested format.
	Text string `json:"text"`
	// Notes tell what the pack could not do (a source that was skipped,
	// always-items over budget); empty when all went to plan.
	Notes []string `json:"notes,omitempty"`
	// Format is the format Text is rendered in (the request's, or the
	// default); it is not part of the JSON shape.
	Format string `json:"-"`
}

// defaultPriorities are the built-in shares of the agent budget per task.
// Each row sums to 1.
var defaultPriorities = map[string]map[string]float64{
	TaskAnalysis: {
		SourceQuery: 0.30, SourceDefinition: 0.20, SourceCaller: 0.12, SourceCallee: 0.12,
		SourceDoc: 0.08, SourceSimilar: 0.07, SourceTest: 0.06, SourceCochange: 0.05,
	},
	TaskImplementation: {
		SourceQuery: 0.28, SourceDefinition: 0.25, SourceCallee: 0.12, SourceSimilar: 0.12,
		SourceCaller: 0.08, SourceTest: 0.07, SourceDoc: 0.05, SourceCochange: 0.03,
	},
	TaskReview: {
		SourceCaller: 0.25, SourceQuery: 0.15, SourceDefinition: 0.15, SourceTest: 0.15,
		SourceCochange: 0.12, SourceCallee: 0.08, SourceSimilar: 0.05, SourceDoc: 0.05,
	},
	TaskTesting: {
		SourceTest: 0.35, SourceDefinition: 0.18, SourceQuery: 0.15, SourceCallee: 0.12,
		SourceCaller: 0.08, SourceSimilar: 0.07, SourceDoc: 0.03, SourceCochange: 0.02,
	},
	TaskDocumentation: {
		SourceDoc: 0.35, SourceQuery: 0.20, SourceDefinition: 0.20, SourceCaller: 0.08,
		SourceCallee: 0.05, SourceTest: 0.05, SourceSimilar: 0.04, SourceCochange: 0.03,
	},
	TaskBugfix: {
		SourceQuery: 0.25, SourceDefinition: 0.18, SourceCaller: 0.15, SourceCallee: 0.12,
		SourceTest: 0.12, SourceCochange: 0.10, SourceSimilar: 0.05, SourceDoc: 0.03,
	},
}

// Tasks lists the built-in task types.
var Tasks = []string{TaskAnalysis, TaskImplementation, TaskReview, TaskTesting, TaskDocumentation, TaskBugfix}

// settings is a validated Request with defaults applied.
type settings struct {
	budget       int
	format       string
	task         string
	includeScore float64
	topN         int
	lambda       float64
	shares       map[string]float64 // raw shares of the task
	scrub        *Scrubber
}

func isSource(s string) bool {
	for _, v := range Sources {
		if v == s {
			return true
		}
	}
	return false
}

func isFormat(s string) bool {
	for _, v := range Formats {
		if v == s {
			return true
		}
	}
	return false
}

// normalize validates req and applies the defaults.
func (req Request) normalize() (settings, error) {
	s := settings{budget: req.Budget, format: strings.ToLower(strings.TrimSpace(req.Format)),
		task: strings.ToLower(strings.TrimSpace(req.Task)), includeScore: req.IncludeScore,
		topN: req.TopN, lambda: req.MMRLambda}
	if s.budget <= 0 {
		return s, fmt.Errorf("budget %d: %w", req.Budget, ErrBudget)
	}
	if s.format == "" {
		s.format = DefaultFormat
	}
	if !isFormat(s.format) {
		return s, fmt.Errorf("%q (want one of %s): %w", req.Format, strings.Join(Formats, ", "), ErrFormat)
	}
	if s.task == "" {
		s.task = DefaultTask
	}
	if math.IsNaN(s.includeScore) || math.IsInf(s.includeScore, 0) {
		return s, fmt.Errorf("includeScore %v: %w", req.IncludeScore, ErrRequest)
	}
	if s.includeScore == 0 {
		s.includeScore = DefaultIncludeScore
	}
	if s.includeScore < 0 {
		s.includeScore = 0
	}
	if s.topN < 0 {
		return s, fmt.Errorf("topN %d is negative: %w", req.TopN, ErrRequest)
	}
	if s.topN == 0 {
		s.topN = DefaultTopN
	}
	if math.IsNaN(s.lambda) || s.lambda < 0 || s.lambda > 1 {
		return s, fmt.Errorf("mmrLambda %v outside [0, 1]: %w", req.MMRLambda, ErrRequest)
	}
	if s.lambda == 0 {
		s.lambda = DefaultMMRLambda
	}
	row, ok := req.Priorities[s.task]
	if !ok {
		row, ok = defaultPriorities[s.task]
	}
	if !ok {
		return s, fmt.Errorf("%q (built in: %s): %w", req.Task, strings.Join(Tasks, ", "), ErrTask)
	}
	// Validate every configured task, not only the one in use, so a typo in
	// the configuration is reported the first time a pack is built.
	for task, r := range req.Priorities {
		if err := checkShares(task, r); err != nil {
			return s, err
		}
	}
	s.shares = row
	sc, err := NewScrubber(req.ScrubPatterns)
	if err != nil {
		return s, fmt.Errorf("scrub patterns: %w", err)
	}
	s.scrub = sc
	return s, nil
}

func checkShares(task string, row map[string]float64) error {
	keys := make([]string, 0, len(row))
	for k := range row {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, src := range keys {
		v := row[src]
		if !isSource(src) {
			return fmt.Errorf("priorities of task %q: unknown source %q: %w", task, src, ErrRequest)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("priorities of task %q: share %v of %q: %w", task, v, src, ErrRequest)
		}
	}
	return nil
}
