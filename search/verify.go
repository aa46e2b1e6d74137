package search

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// damagedMarker in the index directory makes Open rebuild the index from
// scratch (the caller re-feeds it). It holds the reason, one line.
const damagedMarker = "DAMAGED"

// MarkDamaged records that the text index in dir cannot be trusted: the
// next Open starts it empty.
func MarkDamaged(dir, reason string) error {
	if err := os.WriteFile(filepath.Join(dir, damagedMarker), []byte(reason+"\n"), 0o644); err != nil {
		return fmt.Errorf("mark text index damaged: %w", err)
	}
	return nil
}

// damagedReason returns the reason recorded by MarkDamaged, or "".
func damagedReason(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, damagedMarker))
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
}

// Verify checks the files of the text index: every segment must match the
// CRC-32 its footer records over the rest of the file (bleve checks it
// only when it merges segments, so a damaged segment otherwise answers
// queries with wrong postings or fails them). It returns what is wrong,
// nothing when the index is intact. Only the segments of the index's
// current snapshot are read, and the snapshot is held meanwhile: a file
// that bleve's persister or merger is still writing is not one of them
// (it was once taken for a damaged segment, and the index marked for a
// rebuild), and none of them is removed while it is read.
func (x *Index) Verify() ([]string, error) {
	snap, err := x.snapshot()
	if err != nil {
		return nil, fmt.Errorf("verify text index: %w", err)
	}
	defer snap.Close()
	var segs []string
	for _, ss := range snap.Segments() {
		if p, ok := ss.Segment().(interface{ Path() string }); ok && p.Path() != "" {
			segs = append(segs, p.Path())
		}
	}
	sort.Strings(segs)
	var problems []string
	for _, p := range segs {
		ok, err := segmentIntact(p)
		switch {
		case err != nil:
			return problems, fmt.Errorf("verify text index: %w", err)
		case !ok:
			problems = append(problems, fmt.Sprintf("text index segment %s: checksum mismatch", filepath.Base(p)))
		}
	}
	return problems, nil
}

// segmentIntact reports whether a zap segment file matches its CRC: the
// last 4 bytes (big-endian) are the CRC-32 (IEEE) of everything before.
func segmentIntact(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() < 4 {
		return false, nil
	}
	h := crc32.NewIEEE()
	if _, err := io.CopyN(h, f, st.Size()-4); err != nil {
		return false, err
	}
	var tail [4]byte
	if _, err := io.ReadFull(f, tail[:]); err != nil {
		return false, err
	}
	return binary.BigEndian.Uint32(tail[:]) == h.Sum32(), nil
}
