package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestVerifyFindsDamagedSegmentAndOpenRebuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	x, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := x.NewBatch()
	for i := 0; i < 200; i++ {
		if err := b.Add(Doc{ID: fmt.Sprintf("%016x", i), Body: fmt.Sprintf("widget number %d parses input", i), Name: "Parse", Path: "p.go", Lang: "go", Kind: "function", File: "p.go"}); err != nil {
			t.Fatal(err)
		}
	}
	b.SetWatermark(7)
	if err := x.Apply(b); err != nil {
		t.Fatal(err)
	}
	if problems, err := x.Verify(); err != nil || len(problems) != 0 {
		t.Fatalf("verify of an intact index: %v %v", problems, err)
	}
	x.Close()

	segs, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	deadline := time.Now().Add(10 * time.Second)
	for len(segs) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		segs, _ = filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	}
	if len(segs) == 0 {
		t.Fatal("no segment file persisted")
	}
	f, err := os.OpenFile(segs[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte(strings.Repeat("\xa5", 200)), 64)
	f.Close()

	x, rebuilt, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := x.Verify()
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "checksum mismatch") {
		t.Fatalf("verify of a damaged segment: rebuilt %v, %v %v", rebuilt, problems, err)
	}
	if err := MarkDamaged(dir, problems[0]); err != nil {
		t.Fatal(err)
	}
	x.Close()
	x, rebuilt, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if n, _ := x.DocCount(); !rebuilt || n != 0 {
		t.Fatalf("reopened damaged index: rebuilt %v, %d documents", rebuilt, n)
	}
	if _, err := os.Stat(filepath.Join(dir, damagedMarker)); !os.IsNotExist(err) {
		t.Fatalf("marker left after the rebuild: %v", err)
	}
}
