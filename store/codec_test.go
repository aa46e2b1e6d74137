package store

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/chunking"
	"github.com/context-ls/context-ls/symbols"
)

func randText(rng *rand.Rand) string {
	const alphabet = "ab\n\t \"\\é\x00\xff{}"
	var b strings.Builder
	for n := rng.Intn(12); n > 0; n-- {
		b.WriteByte(alphabet[rng.Intn(len(alphabet))])
	}
	return b.String()
}

// randInt covers zero, small, large and negative values (a malformed span
// must still round-trip).
func randInt(rng *rand.Rand) int {
	switch rng.Intn(4) {
	case 0:
		return 0
	case 1:
		return rng.Intn(200)
	case 2:
		return rng.Int()
	}
	return -rng.Intn(1 << 40)
}

func randSpan(rng *rand.Rand) symbols.Span {
	return symbols.Span{StartByte: randInt(rng), EndByte: randInt(rng),
		Start: symbols.Point{Line: randInt(rng), Column: randInt(rng)},
		End:   symbols.Point{Line: randInt(rng), Column: randInt(rng)}}
}

func TestSymbolRecordRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		in := symbols.Symbol{Name: randText(rng), Kind: symbols.Kind(randText(rng)), Container: randText(rng),
			Signature: randText(rng), Doc: randText(rng), Span: randSpan(rng), DocSpan: randSpan(rng),
			NameSpan: randSpan(rng), Exported: rng.Intn(2) == 1, Parent: randInt(rng)}
		var out symbols.Symbol
		if err := decodeSymbol(encodeSymbol(&in), &out); err != nil || !reflect.DeepEqual(in, out) {
			t.Fatalf("symbol round trip:\n in %+v\nout %+v (%v)", in, out, err)
		}
	}
}

func TestChunkRecordRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		in := ChunkRecord{ID: ChunkID(rng.Uint64()), Chunk: chunking.Chunk{Path: randText(rng), Language: randText(rng),
			Kind: randText(rng), Label: randText(rng), Parent: randText(rng), Part: randInt(rng), Parts: randInt(rng),
			Context: randText(rng), StartLine: randInt(rng), EndLine: randInt(rng), StartByte: randInt(rng),
			EndByte: randInt(rng), Tokens: randInt(rng)}}
		for n := rng.Intn(3); n > 0; n-- {
			in.Symbols = append(in.Symbols, randText(rng))
		}
		rng.Read(in.Recipe[:])
		var out ChunkRecord
		if err := decodeChunkMeta(encodeChunkMeta(&in), in.ID, &out); err != nil || !reflect.DeepEqual(in, out) {
			t.Fatalf("chunk round trip:\n in %+v\nout %+v (%v)", in, out, err)
		}
		text, summary := randText(rng), randText(rng)
		gotText, gotSummary, err := decodeChunkText(encodeChunkText(text, summary))
		if err != nil || gotText != text || gotSummary != summary {
			t.Fatalf("chunk text round trip: %q %q → %q %q (%v)", text, summary, gotText, gotSummary, err)
		}
	}
}

// FuzzRecordDecoders: no input makes a decoder panic, and whatever decodes
// encodes to bytes that decode to the same record.
func FuzzRecordDecoders(f *testing.F) {
	f.Add(encodeSymbol(&symbols.Symbol{Name: "Open", Kind: symbols.KindFunction, Parent: -1}))
	f.Add(encodeChunkMeta(&ChunkRecord{Chunk: chunking.Chunk{Path: "a.go", Symbols: []string{"A"}}}))
	f.Add(encodeChunkText("func A() {}\n", "A does"))
	f.Add([]byte{codecFormat, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		var s, s2 symbols.Symbol
		if decodeSymbol(b, &s) == nil {
			if err := decodeSymbol(encodeSymbol(&s), &s2); err != nil || !reflect.DeepEqual(s, s2) {
				t.Errorf("symbol %+v re-decodes as %+v (%v)", s, s2, err)
			}
		}
		var c, c2 ChunkRecord
		if decodeChunkMeta(b, 7, &c) == nil {
			if err := decodeChunkMeta(encodeChunkMeta(&c), 7, &c2); err != nil || !reflect.DeepEqual(c, c2) {
				t.Errorf("chunk %+v re-decodes as %+v (%v)", c, c2, err)
			}
		}
		if text, summary, err := decodeChunkText(b); err == nil {
			if t2, s2, err := decodeChunkText(encodeChunkText(text, summary)); err != nil || t2 != text || s2 != summary {
				t.Errorf("chunk text %q %q re-decodes as %q %q (%v)", text, summary, t2, s2, err)
			}
		}
	})
}

// TestUnindexedRecord: a u/ record round-trips, and a truncated one or one
// with bytes left over is refused.
func TestUnindexedRecord(t *testing.T) {
	in := Unindexed{Size: 1234, MTime: -5, Recipe: 0xfeedface12345678}
	b := encodeUnindexed(in)
	var out Unindexed
	if err := decodeUnindexed(b, &out); err != nil || out != in {
		t.Fatalf("round trip = %+v, %v; want %+v", out, err, in)
	}
	for _, bad := range [][]byte{b[:len(b)-1], append(append([]byte{}, b...), 0), nil} {
		if err := decodeUnindexed(bad, &Unindexed{}); err == nil {
			t.Errorf("decodeUnindexed(%x) accepted a malformed record", bad)
		}
	}
}
