package store

import (
	"reflect"
	"testing"
)

func TestFileRecordRoundTrip(t *testing.T) {
	recs := []FileRecord{
		{Path: "a/b.go", Language: "go", Size: 1234, ModTime: -5, Hash: "00ff", Overlay: true, Seq: 1 << 40,
			IndexedAt: 1700000000000000000, Lines: 42, Symbols: 3, Chunks: []ChunkID{1, 1<<64 - 1},
			Note: "parse error", Indexer: "chunk1"},
		{Path: "empty"},
	}
	for _, want := range recs {
		b := encodeFileRecord(&want)
		var got FileRecord
		n, err := decodeFileRecord(b, &got, false)
		if err != nil || n != len(want.Chunks) {
			t.Fatalf("decode %s: %d chunks, %v", want.Path, n, err)
		}
		if len(want.Chunks) == 0 {
			want.Chunks = []ChunkID{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
		}
		var head FileRecord
		n, err = decodeFileRecord(b, &head, true)
		if err != nil || n != len(want.Chunks) || head.Chunks != nil {
			t.Errorf("head of %s: %+v, %d chunks, %v", want.Path, head, n, err)
		}
		head.Chunks = want.Chunks
		if !reflect.DeepEqual(head, want) {
			t.Errorf("head:\n got %+v\nwant %+v", head, want)
		}
		var h FileRecord
		n, err = decodeFileRecord(encodeFileHead(&want), &h, true)
		h.Chunks = want.Chunks
		if err != nil || n != len(want.Chunks) || !reflect.DeepEqual(h, want) {
			t.Errorf("stored head of %s: %+v, %d chunks, %v", want.Path, h, n, err)
		}
		// Every truncation, and trailing bytes, are errors, never a panic
		// or a silently shorter record.
		for i := range b {
			var r FileRecord
			if _, err := decodeFileRecord(b[:i], &r, false); err == nil {
				t.Errorf("%s truncated to %d bytes decoded", want.Path, i)
			}
		}
		var r FileRecord
		if _, err := decodeFileRecord(append(b, 0), &r, false); err == nil {
			t.Errorf("%s with a trailing byte decoded", want.Path)
		}
	}
	var r FileRecord
	if _, err := decodeFileRecord([]byte(`{"path":"a.go"}`), &r, false); err == nil {
		t.Error("a JSON record (older schema) decoded")
	}
}

func TestWrittenKeysRoundTrip(t *testing.T) {
	for _, want := range []writtenKeys{
		{Names: []string{"x", "", "ünï"}, Callees: []string{"fmt.Println"}},
		{},
	} {
		b := encodeWrittenKeys(&want)
		got, err := decodeWrittenKeys(b)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("round trip: got %+v, %v; want %+v", got, err, want)
		}
		for i := range b {
			if _, err := decodeWrittenKeys(b[:i]); err == nil {
				t.Errorf("%+v truncated to %d bytes decoded", want, i)
			}
		}
		if _, err := decodeWrittenKeys(append(b, 0)); err == nil {
			t.Errorf("%+v with a trailing byte decoded", want)
		}
	}
}
