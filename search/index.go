// Package search holds the text side of ranking: a bleve BM25 index over
// chunk text, names and paths with a code-aware analyzer, the questions the
// engine asks it (ranked chunks, names, whether a query's words occur at
// all, the indexed paths) — an unfiltered query ranked here over bleve's
// segments, term at a time, with bleve's scores (rank.go) — and maximal
// marginal relevance, which the engine uses to set near-duplicate hits
// apart.
//
// The bleve index is derived from the store: every document is a chunk whose
// id is the chunk's content-addressed id, and the index records the store's
// change-log sequence number it has applied (its watermark), so after a crash
// the engine replays only what is missing.
package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// Field names of indexed documents.
const (
	// FieldText is what BM25 ranks: the chunk text, the doc comments and
	// signatures of its definitions (again, so plain-language descriptions
	// outweigh identifiers in code), its names (twice) and its path, in one
	// field. One field, not three: bleve
	// scales a disjunction by the share of clauses matched, so separate
	// fields would reward a query word for appearing in a short path or name
	// field more than for the body text that explains it.
	FieldText = "text"
	FieldName = "name" // label and covered symbol names (the symbol leg)
	FieldLang = "lang" // language, exact
	FieldKind = "kind" // chunk kind, exact
	FieldFile = "file" // the file path, exact (to find a file's documents)
)

const watermarkKey = "watermark"

// Doc is one chunk as the text index sees it.
type Doc struct {
	ID   string `json:"-"`
	Body string `json:"-"`
	Doc  string `json:"-"` // signatures and doc comments of the chunk's definitions
	Name string `json:"name"`
	Path string `json:"-"`
	Lang string `json:"lang"`
	Kind string `json:"kind"`
	File string `json:"file"`
	// Text is derived from Body, Name and Path by Add.
	Text string `json:"text"`
}

// Index is the BM25 text index.
type Index struct {
	idx bleve.Index
	dir string
}

// Open opens the index in dir, creating it if needed. A directory that bleve
// cannot open (corrupt, or another mapping) is removed and recreated; rebuilt
// is then true and the caller must re-feed every document.
func Open(dir string) (x *Index, rebuilt bool, err error) {
	if reason := damagedReason(dir); reason != "" {
		if err := os.RemoveAll(dir); err != nil {
			return nil, false, fmt.Errorf("remove damaged text index: %w", err)
		}
		x, _, err := Open(dir)
		return x, true, err
	}
	idx, err := bleve.OpenUsing(dir, map[string]interface{}{"bolt_timeout": "1s"})
	if err == nil {
		if ok, _ := hasOurMapping(idx); ok {
			return &Index{idx: idx, dir: dir}, false, nil
		}
		idx.Close()
		err = errors.New("index mapping differs")
	}
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		rebuilt = false
	} else {
		if strings.Contains(err.Error(), "timeout") {
			return nil, false, fmt.Errorf("open text index %s: locked by another process", dir)
		}
		rebuilt = true
		if rmErr := os.RemoveAll(dir); rmErr != nil {
			return nil, false, fmt.Errorf("remove broken text index: %w", rmErr)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, false, err
	}
	idx, err = bleve.NewUsing(dir, newMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore,
		map[string]interface{}{"bolt_timeout": "1s"})
	if err != nil {
		return nil, false, fmt.Errorf("create text index %s: %w", dir, err)
	}
	if err := idx.SetInternal([]byte("mapping"), []byte(mappingVersion)); err != nil {
		idx.Close()
		return nil, false, err
	}
	return &Index{idx: idx, dir: dir}, rebuilt, nil
}

// Reset closes the index, removes it and returns a new empty one in the
// same directory; the caller re-feeds every document.
func (x *Index) Reset() (*Index, error) {
	if err := x.idx.Close(); err != nil {
		return nil, fmt.Errorf("close text index: %w", err)
	}
	if err := os.RemoveAll(x.dir); err != nil {
		return nil, fmt.Errorf("remove text index: %w", err)
	}
	nx, _, err := Open(x.dir)
	return nx, err
}

// mappingVersion changes whenever newMapping or the analyzer changes, which
// forces a rebuild of existing indexes.
const mappingVersion = "3"

func hasOurMapping(idx bleve.Index) (bool, error) {
	v, err := idx.GetInternal([]byte("mapping"))
	return string(v) == mappingVersion, err
}

func newMapping() mapping.IndexMapping {
	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = AnalyzerName
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	exact := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(FieldText, text())
	doc.AddFieldMappingsAt(FieldName, text())
	doc.AddFieldMappingsAt(FieldLang, exact())
	doc.AddFieldMappingsAt(FieldKind, exact())
	doc.AddFieldMappingsAt(FieldFile, exact())
	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = AnalyzerName
	m.ScoringModel = index.BM25Scoring
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	return m
}

// Close closes the index.
func (x *Index) Close() error { return x.idx.Close() }

// Settle runs the merges the index's merge policy has planned now, and
// waits for them (or ctx), so that they are not left to whichever process
// opens the index next: after a bulk run, a short-lived process (a CLI
// command) would otherwise spend its time merging segments it then
// abandons at exit.
func (x *Index) Settle(ctx context.Context) error {
	adv, err := x.idx.Advanced()
	if err != nil {
		return fmt.Errorf("text index: %w", err)
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	opts := mergeplan.DefaultMergePlanOptions
	if err := sc.ForceMerge(ctx, &opts); err != nil {
		return fmt.Errorf("text index merge: %w", err)
	}
	return nil
}

// errNoSnapshot: the index is not a scorch index (rank leaves the query to
// bleve).
var errNoSnapshot = errors.New("not a scorch index")

// reader opens bleve's reader of the index as it is now; close it when
// done.
func (x *Index) reader() (index.IndexReader, error) {
	adv, err := x.idx.Advanced()
	if err != nil {
		return nil, err
	}
	return adv.Reader()
}

// snapshot opens the index's current scorch snapshot (its segments);
// close it when done. errNoSnapshot when the index is not scorch's.
func (x *Index) snapshot() (*scorch.IndexSnapshot, error) {
	r, err := x.reader()
	if err != nil {
		return nil, err
	}
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		r.Close()
		return nil, fmt.Errorf("%w (%T)", errNoSnapshot, r)
	}
	return snap, nil
}

// Dir returns the index directory.
func (x *Index) Dir() string { return x.dir }

// DocCount returns the number of indexed chunks.
func (x *Index) DocCount() (uint64, error) { return x.idx.DocCount() }

// Watermark returns the store sequence number applied so far.
func (x *Index) Watermark() (uint64, error) {
	v, err := x.idx.GetInternal([]byte(watermarkKey))
	if err != nil || len(v) == 0 {
		return 0, err
	}
	return strconv.ParseUint(string(v), 10, 64)
}

// Batch collects changes applied atomically by Apply.
type Batch struct {
	b     *bleve.Batch
	docs  int
	bytes int64
}

// NewBatch starts a batch.
func (x *Index) NewBatch() *Batch { return &Batch{b: x.idx.NewBatch()} }

// Add indexes (or replaces) a document.
func (b *Batch) Add(d Doc) error {
	b.docs++
	d.Text = d.Body + "\n" + d.Doc + "\n" + d.Name + "\n" + d.Name + "\n" + d.Path
	b.bytes += int64(len(d.Text))
	return b.b.Index(d.ID, d)
}

// Delete removes a document.
func (b *Batch) Delete(id string) {
	b.docs++
	b.b.Delete(id)
}

// SetWatermark records that the batch brings the index up to seq.
func (b *Batch) SetWatermark(seq uint64) {
	b.b.SetInternal([]byte(watermarkKey), []byte(strconv.FormatUint(seq, 10)))
}

// Len is the number of document operations in the batch.
func (b *Batch) Len() int { return b.docs }

// Bytes is the text the batch adds, in bytes (what its segment grows with).
func (b *Batch) Bytes() int64 { return b.bytes }

// Apply commits a batch: all of it or none of it becomes visible.
func (x *Index) Apply(b *Batch) error {
	if err := x.idx.Batch(b.b); err != nil {
		return fmt.Errorf("text index batch: %w", err)
	}
	return nil
}

// DocsOf returns the ids of every document of a file (exact path).
func (x *Index) DocsOf(ctx context.Context, path string) ([]string, error) {
	t := bleve.NewTermQuery(path)
	t.SetField(FieldFile)
	var ids []string
	for from := 0; ; {
		req := bleve.NewSearchRequestOptions(t, 1000, from, false)
		req.Score = "none"
		res, err := x.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("documents of %s: %w", path, err)
		}
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		if len(res.Hits) < 1000 {
			return ids, nil
		}
		from += len(res.Hits)
	}
}

// Paths calls fn with every file path that has documents, in lexical order,
// until fn returns false. It reads the path field's term dictionary, not the
// documents: a few milliseconds for ten thousand files.
func (x *Index) Paths(fn func(path string) bool) error {
	d, err := x.idx.FieldDict(FieldFile)
	if err != nil {
		return fmt.Errorf("file paths: %w", err)
	}
	defer d.Close()
	for {
		e, err := d.Next()
		if err != nil {
			return fmt.Errorf("file paths: %w", err)
		}
		if e == nil || !fn(e.Term) {
			return nil
		}
	}
}

// Query is a text query.
type Query struct {
	Text      string
	Languages []string // restrict to these languages (exact names)
	Kinds     []string // restrict to these chunk kinds
	Limit     int
	// Repeats weighs a word by how often the text uses it (a long
	// description repeats what it is about): a term seen n times gets the
	// boost 1 + RepeatBoost·ln(n). Off, each word counts once.
	Repeats bool
}

// RepeatBoost scales the boost of a repeated word (Query.Repeats). A
// variable for tuning.
var RepeatBoost = 1.0

// Hit is a ranked document.
type Hit struct {
	ID    string
	Score float64
}

// Search ranks documents by BM25 over their text (body, names, path).
// Documents matching more of the query's distinct words rank higher.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	return x.search(ctx, q, FieldText)
}

// commonShare: a query term found in more than this share of all documents
// is left out when the query has rarer terms that occur. Its BM25 weight is
// next to nothing, but ranking walks its whole posting list: in the Go
// standard library "go" (every path ends in .go) is in 99 % of the chunks
// and made a query containing it three times slower. Not quite neutral
// (bleve's coordination factor favours documents matching more clauses),
// hence a high share: on the dev queries only "go" is left out, and their
// ranking is the same. Frequencies are counted over the whole index, so a
// query restricted to languages or kinds keeps every term (a word common
// overall may be the one that matters there).
const commonShare = 0.9

// commonMinDocs: below this many documents no term is left out (in a small
// index every posting list is short, and a frequent word may be the one
// that matters). A variable for tests.
var commonMinDocs uint64 = 10000

// search ranks the documents by q's distinct analyzed words in field. Each
// word counts once ("piece by piece" must not weigh "piece" twice) unless
// q.Repeats. An unfiltered query is ranked by rank, a filtered one by bleve.
func (x *Index) search(ctx context.Context, q Query, field string) ([]Hit, error) {
	terms := queryTerms(q)
	if len(terms) == 0 {
		return nil, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	if len(q.Languages) == 0 && len(q.Kinds) == 0 {
		hits, err := x.rank(ctx, terms, field, limit)
		if !errors.Is(err, errNoSnapshot) {
			return hits, err
		}
	}
	return x.run(ctx, disjunction(terms, field), q, limit)
}

// disjunction is bleve's query for any of terms in field.
func disjunction(terms []weightedTerm, field string) query.Query {
	qs := make([]query.Query, len(terms))
	for i, t := range terms {
		tq := bleve.NewTermQuery(t.term)
		tq.SetField(field)
		tq.SetBoost(t.boost)
		qs[i] = tq
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// queryTerms returns the distinct analyzed words of q's text, in order, each
// with its boost.
func queryTerms(q Query) []weightedTerm {
	seen := map[string]int{}
	var words []string
	Terms([]byte(q.Text), func(t string, _, _ int) {
		if seen[t] == 0 {
			words = append(words, t)
		}
		seen[t]++
	})
	terms := make([]weightedTerm, len(words))
	for i, w := range words {
		terms[i] = weightedTerm{term: w, boost: 1}
		if n := seen[w]; q.Repeats && n > 1 {
			terms[i].boost = 1 + RepeatBoost*math.Log(float64(n))
		}
	}
	return terms
}

// Matches reports whether any word of text occurs in the index. An
// identifier counts as one word, found when its whole form or every one of
// its parts is: "zzqxv_nomatch_qq" is not found through "qq", while
// "parseMultipartForms" is found through its parts. Stop words do not count;
// a text of nothing else matches.
func (x *Index) Matches(ctx context.Context, text string) (bool, error) {
	r, err := x.reader()
	if err != nil {
		return false, fmt.Errorf("match: %w", err)
	}
	defer r.Close()
	var ferr error
	occurs := func(t string) bool {
		tfr, err := r.TermFieldReader(ctx, []byte(t), FieldText, false, false, false)
		if err != nil {
			ferr = err
			return false
		}
		defer tfr.Close()
		return tfr.Count() > 0
	}
	words, found := 0, false
	Units([]byte(text), func(whole string, parts []string) {
		words++
		if found || ferr != nil {
			return
		}
		found = occurs(whole)
		if !found && len(parts) > 0 {
			found = true
			for _, p := range parts {
				found = found && occurs(p)
			}
		}
	})
	if ferr != nil {
		return false, fmt.Errorf("match: %w", ferr)
	}
	return found || words == 0, nil
}

// SearchNames ranks documents by their names only (the symbol leg).
func (x *Index) SearchNames(ctx context.Context, q Query) ([]Hit, error) {
	return x.search(ctx, q, FieldName)
}

// run ranks by bleve: the query main restricted to q's languages and kinds.
func (x *Index) run(ctx context.Context, main query.Query, q Query, limit int) ([]Hit, error) {
	var must []query.Query
	must = append(must, main)
	if f := anyOf(FieldLang, q.Languages); f != nil {
		must = append(must, f)
	}
	if f := anyOf(FieldKind, q.Kinds); f != nil {
		must = append(must, f)
	}
	var qq query.Query = main
	if len(must) > 1 {
		qq = bleve.NewConjunctionQuery(must...)
	}
	// Equal scores must rank by id, so rankings do not depend on how
	// documents happen to be spread over segments (a resumed index answers
	// like an uninterrupted one). Asking bleve to sort by _id loads every
	// candidate's id (a fifth of query time), so the hits are fetched by
	// score with tieSpare more: when the hits tied with the last one kept
	// all came back (a lower score follows them, or every match did), they
	// are ordered by id here. Only a tie larger than that runs the query
	// again sorted by id — with one spare hit, ties straddled the cut in
	// nearly every query of the Go dev set, each then paying twice.
	hits, err := x.collect(ctx, qq, limit+tieSpare, false)
	if err != nil {
		return nil, err
	}
	byScoreThenID := func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	}
	if len(hits) > limit {
		last := hits[limit-1].Score
		end := limit // the end of the tie group of the last hit kept
		for end < len(hits) && hits[end].Score == last {
			end++
		}
		if end == len(hits) && len(hits) == limit+tieSpare {
			// The group may go on beyond what was fetched.
			if hits, err = x.collect(ctx, qq, limit, true); err != nil {
				return nil, err
			}
		} else {
			sort.SliceStable(hits, byScoreThenID)
		}
		hits = hits[:min(limit, len(hits))]
	}
	sort.SliceStable(hits, byScoreThenID)
	return hits, nil
}

// tieSpare is how many hits beyond the limit a search fetches to see the
// whole group of hits tied with the last one it keeps.
const tieSpare = 32

// collect runs a query for the best n hits, ordered by id within equal
// scores when byID.
func (x *Index) collect(ctx context.Context, q query.Query, n int, byID bool) ([]Hit, error) {
	req := bleve.NewSearchRequestOptions(q, n, 0, false)
	if byID {
		req.SortBy([]string{"-_score", "_id"})
	}
	res, err := x.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		hits = append(hits, Hit{ID: h.ID, Score: h.Score})
	}
	return hits, nil
}

func anyOf(field string, values []string) query.Query {
	if len(values) == 0 {
		return nil
	}
	var qs []query.Query
	for _, v := range values {
		t := bleve.NewTermQuery(v)
		t.SetField(field)
		qs = append(qs, t)
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewDisjunctionQuery(qs...)
}
