package store

import (
	"bytes"

	"github.com/cockroachdb/pebble"
)

// Editor buffers are indexed again at every edit, and between two versions
// of a large file most of its keys keep their values: an edit of
// net/http/server.go changes a few of its 2,200 keys. Rewriting them all
// cost a Pebble batch of 4,000 operations per keystroke, memtable flushes
// every few dozen edits and compactions that rewrote the index's bottom
// levels while the user typed. So the store keeps, for a file whose
// current version is an editor buffer, the keys and values that version
// wrote, and writes the file's next version as the difference: keys with
// an unchanged value are not written, keys the new version no longer has
// are deleted. The batch leaves the state a full rewrite leaves, and is
// still one batch. The kept copy is used only while the store's record of
// the file is the version it was made for (same sequence number, still a
// buffer), and only for another buffer version: any other write or
// deletion of the file drops it.

// maxKept bounds the files whose last version is kept (open buffers
// with edits; each copy is about the size of its file's index data).
const maxKept = 16

// keptFile is what one version of a file wrote under its own keys.
type keptFile struct {
	seq uint64
	kv  map[string][]byte
}

// keptVersion returns the kept copy of path's current version and the
// chunk ids of that version, or nil when there is none to trust (the full
// rewrite then reads the record again and says what is wrong); under
// db.mu. Only a buffer's next version is written as a difference.
func (db *DB) keptVersion(path string) (*keptFile, []ChunkID) {
	k := db.kept[path]
	if k == nil {
		return nil, nil
	}
	old, err := db.getFile(path)
	if err != nil || old.Seq != k.seq || !old.Overlay {
		delete(db.kept, path)
		return nil, nil
	}
	return k, old.Chunks
}

// diff adds to b what turns the kept version's keys into kvs.
func (k *keptFile) diff(b *pebble.Batch, kvs []kv) error {
	for _, x := range kvs {
		if v, ok := k.kv[string(x.key)]; ok && bytes.Equal(v, x.value) {
			continue
		}
		if err := b.Set(x.key, x.value, nil); err != nil {
			return err
		}
	}
	written := keySet(kvs, 0)
	for key := range k.kv {
		if !written[key] {
			if err := b.Delete([]byte(key), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// keep records what data's version (committed as seq) wrote, when it is
// an editor buffer; under db.mu.
func (db *DB) keep(data *FileData, seq uint64, kvs []kv) {
	path := data.File.Path
	if !data.File.Overlay {
		delete(db.kept, path)
		return
	}
	if db.kept == nil {
		db.kept = map[string]*keptFile{}
	}
	if _, ok := db.kept[path]; !ok && len(db.kept) >= maxKept {
		for p := range db.kept { // any other: its next edit is a full rewrite
			delete(db.kept, p)
			break
		}
	}
	m := make(map[string][]byte, len(kvs))
	for _, x := range kvs {
		m[string(x.key)] = x.value
	}
	db.kept[path] = &keptFile{seq: seq, kv: m}
}

// forget drops the kept copy of path; under db.mu.
func (db *DB) forget(path string) { delete(db.kept, path) }
