package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/cockroachdb/pebble"

	"github.com/context-ls/context-ls/symbols"
)

// Snapshot is an immutable point-in-time view of the index. It is safe for
// concurrent use; Release it when done.
type Snapshot struct {
	db *DB
	s  *pebble.Snapshot
	// err is set on a snapshot of a failed store: every read returns it.
	err error
}

// Release frees the snapshot. Once the store has failed inside Pebble the
// snapshot is left to the garbage collector: closing it would wait for
// the locks the failed write holds.
func (s *Snapshot) Release() {
	if s.s != nil && s.db.failure() == nil {
		s.s.Close()
	}
}

// get reads one key.
func (s *Snapshot) get(key []byte) ([]byte, io.Closer, error) {
	if s.err != nil {
		return nil, nil, s.err
	}
	return s.s.Get(key)
}

// read reads and decodes one key of the snapshot (ErrNotFound when absent).
func (s *Snapshot) read(key []byte, decode func([]byte) error) error {
	if s.err != nil {
		return s.err
	}
	return s.db.noteRead(readKey(s.s, key, decode))
}

// File returns the record of path, or ErrNotFound.
func (s *Snapshot) File(path string) (FileRecord, error) {
	if s.err != nil {
		return FileRecord{}, s.err
	}
	rec, err := getFile(s.s, path)
	return rec, s.db.noteRead(err)
}

// DefinitionNames returns the lower-cased names of path's definitions, in
// their order (from the file's k/ key, without decoding its symbols), or
// ErrNotFound.
func (s *Snapshot) DefinitionNames(path string) ([]string, error) {
	if s.err != nil {
		return nil, s.err
	}
	keys, err := getWritten(s.s, path)
	return keys.Names, s.db.noteRead(err)
}

// Files calls fn for every indexed file in path order; fn returning false stops.
func (s *Snapshot) Files(fn func(FileRecord) bool) error {
	return s.scan([]byte("f/"), func(k, v []byte) (bool, error) {
		var rec FileRecord
		if _, err := decodeFileRecord(v, &rec, false); err != nil {
			return false, fmt.Errorf("decode file record %q: %w", k, err)
		}
		return fn(rec), nil
	})
}

// FileHeads calls fn for every indexed file in path order with the head of
// its record (Chunks left nil) and its number of chunks; fn returning
// false stops. It is the cheap scan: a re-index's check for changes and
// the statistics read only this, from the h/ keys, which hold no chunk
// lists.
func (s *Snapshot) FileHeads(fn func(rec FileRecord, chunks int) bool) error {
	return s.scan([]byte("h/"), func(k, v []byte) (bool, error) {
		var rec FileRecord
		n, err := decodeFileRecord(v, &rec, true)
		if err != nil {
			return false, fmt.Errorf("decode file record %q: %w", k, err)
		}
		return fn(rec, n), nil
	})
}

// Overlays returns the paths whose record holds an editor buffer rather
// than the file on disk, in path order. It reads only those (usually none).
func (s *Snapshot) Overlays() ([]string, error) {
	var out []string
	err := s.scan([]byte("o/"), func(k, _ []byte) (bool, error) {
		out = append(out, string(k[len("o/"):]))
		return true, nil
	})
	return out, err
}

// Symbols returns the definitions of path in source order.
func (s *Snapshot) Symbols(path string) ([]symbols.Symbol, error) {
	var out []symbols.Symbol
	err := s.scan(symbolPrefix(path), func(_, v []byte) (bool, error) {
		var sym symbols.Symbol
		if err := decodeSymbol(v, &sym); err != nil {
			return false, fmt.Errorf("decode symbol of %s: %w", path, err)
		}
		out = append(out, sym)
		return true, nil
	})
	return out, err
}

// Symbol returns the ord-th definition of path.
func (s *Snapshot) Symbol(path string, ord int) (symbols.Symbol, error) {
	var sym symbols.Symbol
	err := s.read(symbolKey(path, ord), func(b []byte) error { return decodeSymbol(b, &sym) })
	return sym, err
}

// SymbolRef locates one definition and the chunk that holds it.
type SymbolRef struct {
	Path  string
	Ord   int
	Chunk ChunkID // 0 when no chunk holds the definition
}

func chunkOf(v []byte) ChunkID {
	if len(v) != 8 {
		return 0
	}
	return ChunkID(binary.BigEndian.Uint64(v))
}

// SymbolsNamed returns the definitions whose name equals name, ignoring case.
func (s *Snapshot) SymbolsNamed(name string) ([]SymbolRef, error) {
	prefix := append([]byte("n/"), lower(name)...)
	prefix = append(prefix, 0)
	var out []SymbolRef
	err := s.scan(prefix, func(k, v []byte) (bool, error) {
		rest := k[len(prefix):]
		i := bytes.IndexByte(rest, 0)
		if i < 0 || len(rest) != i+5 {
			return false, fmt.Errorf("malformed name key %q", k)
		}
		out = append(out, SymbolRef{Path: string(rest[:i]), Ord: int(binary.BigEndian.Uint32(rest[i+1:])), Chunk: chunkOf(v)})
		return true, nil
	})
	return out, err
}

// Chunk returns a chunk by id, text included, or ErrNotFound.
func (s *Snapshot) Chunk(id ChunkID) (ChunkRecord, error) {
	c, err := s.ChunkMeta(id)
	if err != nil {
		return c, err
	}
	err = s.read(chunkTextKey(id), func(b []byte) (err error) {
		c.Text, c.Summary, err = decodeChunkText(b)
		return err
	})
	if err != nil {
		return c, fmt.Errorf("text of chunk %s: %w", id, err)
	}
	return c, nil
}

// ChunkMeta returns a chunk by id without its Text and Summary (cheaper:
// what ranking needs), or ErrNotFound.
func (s *Snapshot) ChunkMeta(id ChunkID) (ChunkRecord, error) {
	var c ChunkRecord
	err := s.read(chunkKey(id), func(b []byte) error { return decodeChunkMeta(b, id, &c) })
	return c, err
}

// Graph returns the encoded graph edges of path (nil if none).
func (s *Snapshot) Graph(path string) ([]byte, error) {
	v, closer, err := s.get(graphKey(path))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, s.db.noteRead(err)
	}
	defer closer.Close()
	return append([]byte(nil), v...), nil
}

// Reverse calls fn for every reverse-index entry of callee (lower-cased).
func (s *Snapshot) Reverse(callee string, fn func(path string, value []byte) bool) error {
	prefix := append([]byte("r/"), lower(callee)...)
	prefix = append(prefix, 0)
	return s.scan(prefix, func(k, v []byte) (bool, error) {
		rest := k[len(prefix):]
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return false, fmt.Errorf("malformed reverse key %q", k)
		}
		return fn(string(rest[:i]), v), nil
	})
}

// Vector returns a cached embedding, or ErrNotFound.
func (s *Snapshot) Vector(model string, r Recipe) ([]byte, error) {
	v, closer, err := s.get(vectorKey(model, r))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, s.db.noteRead(err)
	}
	defer closer.Close()
	return append([]byte(nil), v...), nil
}

// Changes calls fn for every change-log entry after seq, in order.
func (s *Snapshot) Changes(after uint64, fn func(seq uint64, path string) bool) error {
	if s.err != nil {
		return s.err
	}
	it, err := s.s.NewIter(&pebble.IterOptions{LowerBound: logKey(after + 1), UpperBound: []byte("l0")})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) != 10 {
			return fmt.Errorf("malformed log key %q", k)
		}
		if !fn(binary.BigEndian.Uint64(k[2:]), string(it.Value())) {
			break
		}
	}
	return s.db.noteRead(it.Error())
}

func (s *Snapshot) scan(prefix []byte, fn func(k, v []byte) (bool, error)) error {
	if s.err != nil {
		return s.err
	}
	lo, hi := prefixRange(prefix)
	it, err := s.s.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		cont, err := fn(it.Key(), it.Value())
		if err != nil {
			return err
		}
		if !cont {
			break
		}
	}
	return s.db.noteRead(it.Error())
}

// NewChunkID derives a chunk's id from its path and what the derived
// indexes hold of it — the text index's document and the embedded text:
// its text, label, names, summary … given as parts — and not from its
// place: a chunk that only moved (an edit above it) keeps its id, and with
// it its text-index document and vector, while any other change yields a
// new id (stale derived-index entries then resolve to nothing). Where a
// chunk is, its record in the store says. Chunks of one file with the
// same parts are told apart with Nth.
func NewChunkID(path string, parts ...string) ChunkID {
	h := sha256.New()
	h.Write([]byte(path))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return ChunkID(binary.BigEndian.Uint64(h.Sum(nil)[:8]))
}

// Nth is the id of the n-th (from 1) further chunk of a file with the
// same parts as the one of id.
func (id ChunkID) Nth(n int) ChunkID {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(id))
	binary.BigEndian.PutUint64(b[8:], uint64(n))
	sum := sha256.Sum256(b[:])
	return ChunkID(binary.BigEndian.Uint64(sum[:8]))
}

// NewRecipe hashes what an embedding depends on besides the model.
func NewRecipe(chunkerVersion int, text string) Recipe {
	h := sha256.New()
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], uint64(chunkerVersion))
	h.Write(v[:])
	h.Write([]byte(text))
	var r Recipe
	copy(r[:], h.Sum(nil))
	return r
}

// ContentHash is the FileRecord.Hash of content.
func ContentHash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:16])
}

func dirKey(root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Base(root) + "-" + hex.EncodeToString(sum[:6])
}
