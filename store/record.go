package store

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// File records are stored in a compact binary form: a scan of every record
// (the unchanged-tree check of a re-index, statistics) decodes only the
// head — path, size, mtime, hash, counts — instead of parsing JSON, and the
// lists only an update needs (the names and callees whose keys it must
// delete) live under a key of their own (k/, writtenKeys), so such a scan
// reads about 150 bytes per file instead of over a kilobyte.
//
//	f/<path>
//	byte    format (fileRecordFormat)
//	head    Path, Language, Hash, Note, Indexer (uvarint length + bytes);
//	        Size, ModTime, IndexedAt (varint); Seq, Lines, Symbols (uvarint);
//	        Overlay (one byte); len(Chunks) (uvarint)
//	chunks  8 bytes each, big-endian
//
//	h/<path>
//	the same, up to the number of chunks (no chunk ids)
//
//	k/<path>
//	byte    format (fileRecordFormat)
//	names   uvarint count, then strings
//	callees uvarint count, then strings

const fileRecordFormat = 2

var errRecordShort = errors.New("truncated file record")

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, list []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(list)))
	for _, s := range list {
		b = appendString(b, s)
	}
	return b
}

// encodeFileRecord returns the stored form of rec (f/).
func encodeFileRecord(rec *FileRecord) []byte { return encodeRecord(rec, true) }

// encodeFileHead returns rec's head (h/): the record up to the number of
// chunks, without their ids; decodeFileRecord reads it with headOnly.
func encodeFileHead(rec *FileRecord) []byte { return encodeRecord(rec, false) }

func encodeRecord(rec *FileRecord, chunks bool) []byte {
	n := 64 + len(rec.Path) + len(rec.Language) + len(rec.Hash) + len(rec.Note) + len(rec.Indexer) + 8*len(rec.Chunks)
	b := make([]byte, 0, n)
	b = append(b, fileRecordFormat)
	for _, s := range []string{rec.Path, rec.Language, rec.Hash, rec.Note, rec.Indexer} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(b, rec.Size)
	b = binary.AppendVarint(b, rec.ModTime)
	b = binary.AppendVarint(b, rec.IndexedAt)
	b = binary.AppendUvarint(b, rec.Seq)
	b = binary.AppendUvarint(b, uint64(rec.Lines))
	b = binary.AppendUvarint(b, uint64(rec.Symbols))
	b = append(b, boolByte(rec.Overlay))
	b = binary.AppendUvarint(b, uint64(len(rec.Chunks)))
	if !chunks {
		return b
	}
	for _, id := range rec.Chunks {
		b = binary.BigEndian.AppendUint64(b, uint64(id))
	}
	return b
}

// writtenKeys lists the keys of a file version that its record cannot
// derive: Names[i] is the lower-cased name of symbol i (its n/ key) and
// Callees[i] the callee of reverse entry i (its r/ key). With them an
// update deletes exactly the keys the previous version wrote, with point
// deletes (range deletions per name left a million range tombstones after
// a full re-index, and every read paid for them).
type writtenKeys struct {
	Names   []string
	Callees []string
}

func encodeWrittenKeys(k *writtenKeys) []byte {
	n := 8
	for _, s := range k.Names {
		n += len(s) + 2
	}
	for _, s := range k.Callees {
		n += len(s) + 2
	}
	b := append(make([]byte, 0, n), fileRecordFormat)
	b = appendStrings(b, k.Names)
	return appendStrings(b, k.Callees)
}

func decodeWrittenKeys(b []byte) (writtenKeys, error) {
	var k writtenKeys
	if len(b) == 0 || b[0] != fileRecordFormat {
		return k, fmt.Errorf("written-keys format %v: not %d", firstByte(b), fileRecordFormat)
	}
	r := recordReader{b: b[1:]}
	k.Names = r.strings()
	k.Callees = r.strings()
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d bytes after the written keys", len(r.b))
	}
	return k, r.err
}

// recordReader decodes the fields of a stored record in order; the first
// error sticks.
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errRecordShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errRecordShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a list length, refusing one the remaining bytes cannot hold
// (each element takes at least min bytes).
func (r *recordReader) count(min int) int {
	v := r.uvarint()
	if r.err == nil && v > uint64(len(r.b)/min) {
		r.err = errRecordShort
		return 0
	}
	return int(v)
}

func (r *recordReader) string() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = errRecordShort
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// strings reads a uvarint count and that many strings (nil for none).
func (r *recordReader) strings() []string {
	n := r.count(1)
	if n == 0 {
		return nil
	}
	list := make([]string, n)
	for i := range list {
		list[i] = r.string()
	}
	return list
}

// fixed reads n bytes as they are (nil once an error stuck).
func (r *recordReader) fixed(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.err = errRecordShort
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *recordReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.err = errRecordShort
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// decodeFileRecord decodes a stored record (f/) or head (h/, headOnly)
// into rec. With headOnly the chunk list is not read (rec.Chunks stays
// nil); the number of chunks is returned either way.
func decodeFileRecord(b []byte, rec *FileRecord, headOnly bool) (chunks int, err error) {
	if len(b) == 0 || b[0] != fileRecordFormat {
		return 0, fmt.Errorf("file record format %v: not %d", firstByte(b), fileRecordFormat)
	}
	r := recordReader{b: b[1:]}
	rec.Path = r.string()
	rec.Language = r.string()
	rec.Hash = r.string()
	rec.Note = r.string()
	rec.Indexer = r.string()
	rec.Size = r.varint()
	rec.ModTime = r.varint()
	rec.IndexedAt = r.varint()
	rec.Seq = r.uvarint()
	rec.Lines = int(r.uvarint())
	rec.Symbols = int(r.uvarint())
	rec.Overlay = r.byte() == 1
	if headOnly { // a head (h/) holds the count without the ids
		return int(r.uvarint()), r.err
	}
	chunks = r.count(8)
	if r.err != nil {
		return chunks, r.err
	}
	rec.Chunks = make([]ChunkID, chunks)
	for i := range rec.Chunks {
		rec.Chunks[i] = ChunkID(binary.BigEndian.Uint64(r.b[8*i:]))
	}
	r.b = r.b[8*chunks:]
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d bytes after the file record", len(r.b))
	}
	return chunks, r.err
}

func firstByte(b []byte) any {
	if len(b) == 0 {
		return "empty"
	}
	return b[0]
}
