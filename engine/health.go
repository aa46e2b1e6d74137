package engine

import (
	"context"
	"errors"

	"github.com/context-ls/context-ls/internal/logcap"
	"github.com/context-ls/context-ls/store"
)

// StorageHealth is store.Health: whether the index can be written.
type StorageHealth = store.Health

// StorageHealth states.
const (
	StorageOK       = store.HealthOK
	StorageDiskFull = store.HealthDiskFull
	StorageFailed   = store.HealthFailed
	StorageDamaged  = store.HealthDamaged
)

// StorageHealth checks the index's disk now: StorageOK, StorageDiskFull
// (writes are refused until space is freed; queries answer from the index
// as it is), StorageFailed (the store failed inside a write and answers
// from its last snapshot until the process reopens it) or StorageDamaged
// (a read met corrupt data; rebuilt when next opened), with a one-line
// message naming the disk and the index directory, and the free space.
func (e *Engine) StorageHealth() StorageHealth { return e.db.Health() }

// beginWrite is called before every write path: it refuses when the
// store has failed and, when the text index stopped on an error (a full
// disk), catches it up first if writes are admitted again.
func (e *Engine) beginWrite(ctx context.Context) error {
	if err := e.db.Failed(); err != nil {
		return e.noteStorage(err)
	}
	if err := e.resumeText(ctx); err != nil {
		return e.noteStorage(err)
	}
	return nil
}

// noteStorage reports err once per episode when it is a full disk or a
// store failure (the log and Stats' recent activity say it; front ends
// show StorageHealth); given the nil of a write that succeeded, it notes
// that writes resumed. It returns err.
func (e *Engine) noteStorage(err error) error {
	switch {
	case err == nil:
		if e.storageNoted.Swap(false) {
			e.log.Info("index writes resumed")
			e.stats.note("index writes resumed")
			if e.onStorage != nil {
				e.onStorage(StorageHealth{State: StorageOK, FreeBytes: -1})
			}
		}
	case errors.Is(err, ErrDiskFull) || e.db.Failed() != nil:
		if !e.storageNoted.Swap(true) {
			msg := logcap.String(err.Error())
			e.log.Info("index writes stopped", "err", msg)
			e.stats.note("index writes stopped: %s", msg)
			if e.onStorage != nil {
				h := e.db.Health()
				if h.State == StorageOK {
					h.State, h.Message = StorageDiskFull, msg
				}
				e.onStorage(h)
			}
		}
	}
	return err
}
