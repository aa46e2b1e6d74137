package store

import (
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble"
)

// Files the walk read and found in no indexed language. A file with an
// extension is judged by its name; one without (Kconfig, TODO, a script
// with or without a shebang) needs its first bytes read. The Linux kernel
// has 3,300 such files that no language takes, and every fresh process
// read them all again before its first answer. Their size and
// modification time when judged are kept under u/<path>, with the
// caller's recipe of the judgement (its languages): a file that still has
// them, judged by the same recipe, is not read again.

// Unindexed is one file read and found in no indexed language.
type Unindexed struct {
	Path        string
	Size, MTime int64
	Recipe      uint64 // what decided: the caller's languages and their rules
}

func unindexedKey(path string) []byte { return append([]byte("u/"), path...) }

func encodeUnindexed(u Unindexed) []byte {
	b := binary.AppendVarint(nil, u.Size)
	b = binary.AppendVarint(b, u.MTime)
	return binary.BigEndian.AppendUint64(b, u.Recipe)
}

func decodeUnindexed(v []byte, u *Unindexed) error {
	r := recordReader{b: v}
	u.Size, u.MTime = r.varint(), r.varint()
	if recipe := r.fixed(8); recipe != nil {
		u.Recipe = binary.BigEndian.Uint64(recipe)
	}
	return r.end("unindexed-file record")
}

// Unindexed calls fn for every file recorded as read and found in no
// indexed language, in path order, until fn returns false.
func (s *Snapshot) Unindexed(fn func(Unindexed) bool) error {
	return s.scan([]byte("u/"), func(k, v []byte) (bool, error) {
		u := Unindexed{Path: string(k[2:])}
		if err := decodeUnindexed(v, &u); err != nil {
			return false, fmt.Errorf("%q: %w", k, err)
		}
		return fn(u), nil
	})
}

// SetUnindexed records the files in add and forgets those in remove, in
// one batch. The records are hints (a lost one costs a read), so the
// batch is not synced.
func (db *DB) SetUnindexed(add []Unindexed, remove []string) (err error) {
	if len(add) == 0 && len(remove) == 0 {
		return nil
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.db == nil {
		return ErrClosed
	}
	if err := db.room(int64(32 * (len(add) + len(remove)))); err != nil {
		return err
	}
	defer db.recoverWrite(&err)
	b := db.db.NewBatch()
	defer b.Close()
	for _, u := range add {
		if err := b.Set(unindexedKey(u.Path), encodeUnindexed(u), nil); err != nil {
			return err
		}
	}
	for _, p := range remove {
		if err := b.Delete(unindexedKey(p), nil); err != nil {
			return err
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("record unindexed files: %w", err)
	}
	return nil
}
