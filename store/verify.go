package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"

	"github.com/context-ls/context-ls/symbols"
)

// ErrDamaged marks errors that say the index's files are corrupt (Pebble
// found a block whose checksum does not match, or a record that does not
// decode). The directory is then marked for a rebuild: the next Open
// starts it empty and the caller re-indexes.
var ErrDamaged = errors.New("index damaged")

// damagedMarker is the file whose presence in the store directory makes
// Open start the store empty. It holds the reason, one line.
const damagedMarker = "DAMAGED"

// Damaged returns the first corruption a read of this store met, or nil.
func (db *DB) Damaged() error {
	if p := db.corrupt.Load(); p != nil {
		return *p
	}
	return nil
}

// noteRead returns err; when it says data on disk is corrupt, the store
// records it (Damaged, Health) and marks its directory for a rebuild at
// the next Open.
func (db *DB) noteRead(err error) error {
	if err == nil || !pebble.IsCorruptionError(err) {
		return err
	}
	return db.noteDamage(err)
}

// noteDamage marks the store damaged because of err (a corrupt block, a
// lost key) and returns err wrapped in ErrDamaged.
func (db *DB) noteDamage(err error) error {
	err = fmt.Errorf("%w: %w", ErrDamaged, err)
	if db.corrupt.CompareAndSwap(nil, &err) {
		db.MarkDamaged(err.Error())
	}
	return err
}

// MarkDamaged records that the store cannot be trusted (reason, one line):
// the next Open deletes its files and starts empty. It is written beside
// Pebble's files, so it is honoured by whichever process opens the index
// next.
func (db *DB) MarkDamaged(reason string) error {
	if !db.onDisk {
		return nil // an in-memory store dies with its process
	}
	// The pins go first: the store that starts over takes them back (and
	// every pin change from now on saves them again).
	db.marked.Store(true)
	if err := db.savePins(); err != nil {
		return fmt.Errorf("mark index damaged: %w", err)
	}
	if err := os.WriteFile(filepath.Join(db.dir, damagedMarker), []byte(reason+"\n"), 0o644); err != nil {
		return fmt.Errorf("mark index damaged: %w", err)
	}
	return nil
}

// clearDamaged deletes the files of a store directory marked damaged,
// holding Pebble's directory lock so no other process is using them, and
// returns the lock (for pebble.Options.Lock) and the recorded reason; it
// returns a nil lock when the directory is not marked.
func clearDamaged(fs vfs.FS, dir string) (*pebble.Lock, string, error) {
	reason, err := os.ReadFile(filepath.Join(dir, damagedMarker))
	if err != nil {
		return nil, "", nil
	}
	lock, err := pebble.LockDirectory(dir, fs)
	if err != nil {
		if isLockErr(err) {
			return nil, "", fmt.Errorf("open index %s: %w", dir, ErrLocked)
		}
		return nil, "", fmt.Errorf("lock damaged index %s: %w", dir, err)
	}
	names, err := fs.List(dir)
	if err != nil {
		lock.Close()
		return nil, "", fmt.Errorf("list damaged index %s: %w", dir, err)
	}
	for _, n := range names {
		if n == "LOCK" || n == damagedMarker || n == savedPinsFile {
			continue
		}
		if err := fs.RemoveAll(fs.PathJoin(dir, n)); err != nil {
			lock.Close()
			return nil, "", fmt.Errorf("clear damaged index %s: %w", dir, err)
		}
	}
	// The marker goes last: a crash before leaves the directory marked.
	if err := fs.Remove(fs.PathJoin(dir, damagedMarker)); err != nil {
		lock.Close()
		return nil, "", fmt.Errorf("clear damaged index %s: %w", dir, err)
	}
	// A read's reason starts with ErrDamaged's text: the reason is what
	// was found.
	return lock, strings.TrimPrefix(string(bytes.TrimSpace(reason)), ErrDamaged.Error()+": "), nil
}

// VerifyReport says what Verify read and what it found wrong.
type VerifyReport struct {
	Keys   int `json:"keys"`
	Files  int `json:"files"`
	Chunks int `json:"chunks"`
	// Problems lists what is wrong, at most maxProblems of them; Damaged
	// is set when there is any.
	Problems []string `json:"problems,omitempty"`
	Damaged  bool     `json:"damaged"`
}

const maxProblems = 10

func (r *VerifyReport) problem(format string, args ...any) {
	r.Damaged = true
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// Verify reads every key of the store — Pebble checks the checksum of
// every block it reads from disk — decodes every file, chunk and symbol
// record, and checks that each file's chunks are all there. When it finds
// damage the directory is marked for a rebuild at the next Open (see
// MarkDamaged). It stops early only when ctx ends.
func (db *DB) Verify(ctx context.Context) (VerifyReport, error) {
	var r VerifyReport
	if err := db.failure(); err != nil {
		return r, err
	}
	snap := db.Snapshot()
	defer snap.Release()
	it, err := snap.s.NewIter(nil)
	if err != nil {
		return r, fmt.Errorf("verify %s: %w", db.dir, err)
	}
	want := map[ChunkID]string{} // chunk → the file that lists it
	meta, text := map[ChunkID]bool{}, map[ChunkID]bool{}
	// Keys counted per file, to hold against what its record says it
	// wrote: a block Pebble lost in a compaction (it compacts a table
	// holding a corrupt block without an error, leaving that block's
	// keys out) leaves no checksum to fail, only keys missing.
	records := map[string]FileRecord{}
	written := map[string]writtenKeys{}
	heads := map[string]bool{}
	symbolKeys, nameKeys, reverseKeys := map[string]int{}, map[string]int{}, map[string]int{}
	for ok := it.First(); ok; ok = it.Next() {
		if r.Keys%4096 == 0 {
			if err := ctx.Err(); err != nil {
				it.Close()
				return r, err
			}
		}
		r.Keys++
		k, v := it.Key(), it.Value()
		if len(k) < 2 || k[1] != '/' {
			r.problem("unknown key %q", k)
			continue
		}
		switch k[0] {
		case 'f':
			r.Files++
			var rec FileRecord
			if _, err := decodeFileRecord(v, &rec, false); err != nil {
				r.problem("file record %q: %v", k[2:], err)
				continue
			}
			for _, id := range rec.Chunks {
				want[id] = rec.Path
			}
			rec.Chunks = nil // only the counts are kept
			records[rec.Path] = rec
		case 'h':
			var rec FileRecord
			if _, err := decodeFileRecord(v, &rec, true); err != nil {
				r.problem("file head %q: %v", k[2:], err)
				continue
			}
			heads[string(k[2:])] = true
		case 'k':
			keys, err := decodeWrittenKeys(v)
			if err != nil {
				r.problem("written keys %q: %v", k[2:], err)
				continue
			}
			written[string(k[2:])] = keys
		case 'c', 'x':
			if len(k) != 10 {
				r.problem("malformed chunk key %q", k)
				continue
			}
			id := ChunkID(binary.BigEndian.Uint64(k[2:]))
			var err error
			if k[0] == 'c' {
				r.Chunks++
				meta[id] = true
				var c ChunkRecord
				err = decodeChunkMeta(v, id, &c)
			} else {
				text[id] = true
				_, _, err = decodeChunkText(v)
			}
			if err != nil {
				r.problem("chunk %s: %v", id, err)
			}
		case 's':
			var s symbols.Symbol
			if err := decodeSymbol(v, &s); err != nil {
				r.problem("symbol %q: %v", k[2:], err)
			}
			if i := bytes.IndexByte(k[2:], 0); i >= 0 {
				symbolKeys[string(k[2:2+i])]++
			}
		case 'u':
			if err := decodeUnindexed(v, &Unindexed{}); err != nil {
				r.problem("unindexed file %q: %v", k[2:], err)
			}
		case 'p':
			if _, err := decodePin(k, v); err != nil {
				r.problem("%v", err)
			}
		case 'n', 'r':
			// n/<name>\x00<path>\x00<ord:4>, r/ alike: the path ends 5
			// bytes from the end (the ordinal may hold NUL bytes).
			i := bytes.IndexByte(k[2:], 0)
			if i < 0 || len(k) < 2+i+1+5 {
				r.problem("malformed key %q", k)
				continue
			}
			path := string(k[2+i+1 : len(k)-5])
			if k[0] == 'n' {
				nameKeys[path]++
			} else {
				reverseKeys[path]++
			}
		}
	}
	if err := it.Close(); err != nil {
		r.problem("%v", err)
	}
	for id, path := range want {
		if !meta[id] || !text[id] {
			r.problem("chunk %s of %s is missing", id, path)
		}
	}
	orphanChunks := 0
	for id := range meta {
		if _, ok := want[id]; !ok {
			orphanChunks++
		}
	}
	if orphanChunks > 0 {
		r.problem("%d chunks stored without a file record that lists them", orphanChunks)
	}
	paths := make([]string, 0, len(records))
	for path := range records {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		rec := records[path]
		if !heads[path] {
			r.problem("%s: the head of its record is missing", path)
		}
		keys, ok := written[path]
		if !ok {
			r.problem("%s: the list of its keys is missing", path)
			continue
		}
		if symbolKeys[path] != rec.Symbols || nameKeys[path] != len(keys.Names) || reverseKeys[path] != len(keys.Callees) {
			r.problem("%s: %d definitions, %d names and %d call entries stored, its record says %d, %d and %d",
				path, symbolKeys[path], nameKeys[path], reverseKeys[path], rec.Symbols, len(keys.Names), len(keys.Callees))
		}
	}
	var orphans []string
	for _, counts := range []map[string]int{symbolKeys, nameKeys, reverseKeys} {
		for path := range counts {
			if _, ok := records[path]; !ok {
				orphans = append(orphans, path)
			}
		}
	}
	for path := range written {
		if _, ok := records[path]; !ok {
			orphans = append(orphans, path)
		}
	}
	for path := range heads {
		if _, ok := records[path]; !ok {
			orphans = append(orphans, path)
		}
	}
	sort.Strings(orphans)
	for i, path := range orphans {
		if i == 0 || orphans[i-1] != path {
			r.problem("%s: entries stored without its file record", path)
		}
	}
	if r.Damaged {
		reason := "verify: " + r.Problems[0]
		err := fmt.Errorf("%w: %s", ErrDamaged, reason)
		db.corrupt.CompareAndSwap(nil, &err)
		if merr := db.MarkDamaged(reason); merr != nil {
			return r, merr
		}
	}
	return r, nil
}
