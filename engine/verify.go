package engine

import (
	"context"
	"fmt"

	"github.com/context-ls/context-ls/search"
	"github.com/context-ls/context-ls/store"
)

// VerifyReport says what Engine.Verify read and what it found.
type VerifyReport struct {
	Store store.VerifyReport `json:"store"`
	Text  TextVerifyReport   `json:"text"`
	// Rebuild names what is marked to be rebuilt when the index is next
	// opened: "store" (everything is re-indexed from disk) or "text" (the
	// text index is re-fed from the store); empty when nothing is damaged.
	Rebuild string `json:"rebuild,omitempty"`
}

// TextVerifyReport is the text index's part of a VerifyReport.
type TextVerifyReport struct {
	Docs      uint64   `json:"docs"`
	Watermark uint64   `json:"watermark"`
	Problems  []string `json:"problems,omitempty"`
}

// Damaged reports whether Verify found anything wrong.
func (r VerifyReport) Damaged() bool { return r.Rebuild != "" }

// Problem returns the first problem found, or "".
func (r VerifyReport) Problem() string {
	switch {
	case len(r.Store.Problems) > 0:
		return r.Store.Problems[0]
	case len(r.Text.Problems) > 0:
		return r.Text.Problems[0]
	}
	return ""
}

// Verify reads the whole index and checks it: the store (Pebble checks
// every block's checksum as it reads it; every record must decode and
// every file's chunks be present) and the text index (every segment's
// checksum, one document per stored chunk, its watermark at the store's
// sequence). What is damaged is marked to be rebuilt when the index is
// next opened (Open then starts it empty; an Index run re-indexes); until
// then the engine answers from what it has. Damage found when this engine
// opened the index (Damaged), which no index run has rebuilt yet, is
// reported too.
func (e *Engine) Verify(ctx context.Context) (VerifyReport, error) {
	var r VerifyReport
	if err := e.flushText(); err != nil {
		r.Text.Problems = append(r.Text.Problems, "text index behind the store: "+err.Error())
	}
	var err error
	if r.Store, err = e.db.Verify(ctx); err != nil {
		return r, err
	}
	if e.rebuilding.Load() && !r.Store.Damaged {
		// Damage found before this check, when the index was opened: it
		// started over, and no index run has rebuilt it yet.
		r.Store.Damaged = true
		r.Store.Problems = append([]string{e.damaged}, r.Store.Problems...)
	}
	problems, err := e.text.Verify()
	if err != nil {
		return r, err
	}
	r.Text.Problems = append(r.Text.Problems, problems...)
	if r.Text.Docs, err = e.text.DocCount(); err != nil {
		r.Text.Problems = append(r.Text.Problems, "text index unreadable: "+err.Error())
	} else if int(r.Text.Docs) != r.Store.Chunks && !r.Store.Damaged {
		r.Text.Problems = append(r.Text.Problems, fmt.Sprintf("text index holds %d documents for %d stored chunks", r.Text.Docs, r.Store.Chunks))
	}
	if r.Text.Watermark, err = e.text.Watermark(); err != nil {
		r.Text.Problems = append(r.Text.Problems, "text index watermark unreadable: "+err.Error())
	} else if seq := e.db.Seq(); r.Text.Watermark != seq {
		r.Text.Problems = append(r.Text.Problems, fmt.Sprintf("text index at change %d, store at %d", r.Text.Watermark, seq))
	}
	switch {
	case r.Store.Damaged:
		r.Rebuild = "store" // store.Verify marked it; the text index follows it
	case len(r.Text.Problems) > 0:
		r.Rebuild = "text"
	default:
		return r, nil
	}
	if err := search.MarkDamaged(e.text.Dir(), r.Problem()); err != nil {
		return r, err
	}
	e.log.Info("index damaged; rebuilt when next opened", "part", r.Rebuild, "problem", r.Problem())
	e.stats.note("index damaged (%s): %s; rebuilt when next opened", r.Rebuild, r.Problem())
	return r, nil
}
