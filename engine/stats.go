package engine

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/context-ls/context-ls/store"
)

// Stats describes the index of one workspace.
type Stats struct {
	Root        string         `json:"root"`
	DBPath      string         `json:"dbPath"`
	Files       int            `json:"files"`
	Symbols     int            `json:"symbols"`
	Chunks      int            `json:"chunks"`
	Lines       int            `json:"lines"`
	Languages   map[string]int `json:"languages"` // files per language
	DBSizeBytes int64          `json:"dbSizeBytes"`
	LastIndex   string         `json:"lastIndex,omitempty"` // RFC 3339, empty if never completed
	// Indexing reports a running or the last bootstrap: files done of total.
	Indexing   IndexingState  `json:"indexing"`
	Embeddings EmbeddingStats `json:"embeddings"`
	Queries    QueryStats     `json:"queries"`
	Recent     []string       `json:"recent,omitempty"` // recent activity, newest last
	// Storage says whether the index can be written (a full disk stops
	// writes; queries keep answering from the index as it is).
	Storage StorageHealth `json:"storage"`
}

// IndexingState tells how complete the index is.
type IndexingState struct {
	Running  bool    `json:"running"`
	Done     int     `json:"done"`
	Total    int     `json:"total"`
	Complete float64 `json:"complete"` // 0..1
	// Bytes and BytesTotal, FilesPerSecond and EtaSeconds as in Progress.
	Bytes          int64   `json:"bytes"`
	BytesTotal     int64   `json:"bytesTotal"`
	FilesPerSecond float64 `json:"filesPerSecond"`
	EtaSeconds     float64 `json:"etaSeconds"`
}

// QueryStats summarises query latency since the engine opened.
type QueryStats struct {
	Count int     `json:"count"`
	P50Ms float64 `json:"p50Ms"`
	P95Ms float64 `json:"p95Ms"`
}

// statsState is the engine's in-memory bookkeeping for Stats.
type statsState struct {
	mu       sync.Mutex
	lat      []time.Duration // ring of recent query latencies
	latNext  int
	queries  int
	recent   []string
	indexing IndexingState
}

const latencyWindow = 1000

func (st *statsState) init() { st.lat = make([]time.Duration, 0, latencyWindow) }

func (st *statsState) recordQuery(d time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.queries++
	if len(st.lat) < latencyWindow {
		st.lat = append(st.lat, d)
	} else {
		st.lat[st.latNext] = d
		st.latNext = (st.latNext + 1) % latencyWindow
	}
}

func (st *statsState) note(format string, args ...any) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.recent = append(st.recent, time.Now().Format("15:04:05 ")+fmt.Sprintf(format, args...))
	if len(st.recent) > 20 {
		st.recent = st.recent[len(st.recent)-20:]
	}
}

func (st *statsState) recordIndex(r IndexResult) {
	st.note("indexed %d files (%d unchanged, %d deleted) in %s", r.Indexed, r.Unchanged, r.Deleted, r.Duration.Round(time.Millisecond))
}

func (st *statsState) setIndexing(s IndexingState) {
	st.mu.Lock()
	st.indexing = s
	st.mu.Unlock()
}

// Stats computes the index statistics from the snapshot.
func (s *Snapshot) Stats() (Stats, error) {
	st := Stats{Root: s.e.ws.Root(), DBPath: s.e.dbDir, Languages: map[string]int{}}
	err := s.st.FileHeads(func(rec store.FileRecord, chunks int) bool {
		st.Files++
		st.Symbols += rec.Symbols
		st.Chunks += chunks
		st.Lines += rec.Lines
		st.Languages[rec.Language]++
		return true
	})
	if err != nil {
		return st, err
	}
	st.DBSizeBytes = s.e.db.DiskSize() + store.DirBytes(s.e.text.Dir())
	if v, err := s.e.db.Meta("lastIndex"); err == nil {
		st.LastIndex = v
	}
	s.e.stats.mu.Lock()
	st.Indexing = s.e.stats.indexing
	if !st.Indexing.Running && st.LastIndex != "" {
		st.Indexing.Complete = 1
	}
	lat := append([]time.Duration(nil), s.e.stats.lat...)
	st.Queries.Count = s.e.stats.queries
	st.Recent = append([]string(nil), s.e.stats.recent...)
	s.e.stats.mu.Unlock()
	st.Queries.P50Ms, st.Queries.P95Ms = percentileMs(lat, 0.50), percentileMs(lat, 0.95)
	st.Embeddings = s.e.emb.stats()
	st.Storage = s.e.StorageHealth()
	return st, nil
}

// percentileMs returns the q-quantile of ds in milliseconds (nearest rank).
func percentileMs(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	sorted := append([]time.Duration(nil), ds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	i := int(q*float64(len(sorted))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return float64(sorted[i].Microseconds()) / 1000
}
