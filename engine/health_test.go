package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/store"
	"github.com/context-ls/context-ls/workspace"
)

// TestDiskFullStopsWritesAndRecovers: with the disk full, indexing and
// overlay updates fail with ErrDiskFull and write nothing, queries keep
// answering from the index as it was, Stats says why; once space is back
// the next run completes and the index equals one built without trouble.
func TestDiskFullStopsWritesAndRecovers(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		files["pkg/f"+strconv.Itoa(i)+".go"] = "package pkg\n\n// Handler" + strconv.Itoa(i) +
			" serves request kind " + strconv.Itoa(i) + ".\nfunc Handler" + strconv.Itoa(i) + "() int { return " + strconv.Itoa(i) + " }\n"
	}
	root := testutil.WriteTree(t, files)
	ctx := context.Background()
	// The disk fills after a number of space checks: the run stops part
	// way, some files written to the store and not to the text index.
	var checks, budget atomic.Int64
	budget.Store(1 << 40)
	freeSpace := func(string) (int64, error) {
		if checks.Add(1) > budget.Load() {
			return 1 << 19, nil
		}
		return 1 << 40, nil
	}
	var events []string
	var eventsMu sync.Mutex
	opts := Options{DBDir: t.TempDir(), Config: workspace.DefaultConfig(), Workers: 2,
		store: store.Options{FreeSpace: freeSpace, MinFree: 1 << 20},
		OnStorage: func(h StorageHealth) {
			eventsMu.Lock()
			events = append(events, h.State)
			eventsMu.Unlock()
		}}
	e, err := Open(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}

	for i := 40; i < 80; i++ {
		files["pkg/f"+strconv.Itoa(i)+".go"] = "package pkg\n\n// Worker" + strconv.Itoa(i) + " runs job " + strconv.Itoa(i) + ".\nfunc Worker" + strconv.Itoa(i) + "() {}\n"
	}
	for i := 40; i < 80; i++ {
		rel := "pkg/f" + strconv.Itoa(i) + ".go"
		if err := os.WriteFile(filepath.Join(root, rel), []byte(files[rel]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	budget.Store(checks.Load() + 20)
	_, err = e.Index(ctx, nil)
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("Index on a full disk: %v, want ErrDiskFull", err)
	}
	if err := e.UpdateOverlay(ctx, "pkg/f1.go", []byte("package pkg\n\nfunc Edited() {}\n")); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("overlay on a full disk: %v, want ErrDiskFull", err)
	}
	if hits := query(t, e, "Handler7"); len(hits) == 0 || hits[0].Symbol != "Handler7" {
		t.Fatalf("query on a full disk: %v", hitPaths(hits))
	}
	snap := e.Snapshot()
	st, err := snap.Stats()
	snap.Release()
	if err != nil || st.Storage.State != StorageDiskFull || !strings.Contains(st.Storage.Message, opts.DBDir) {
		t.Fatalf("stats on a full disk: %+v, %v", st.Storage, err)
	}
	if st.Files <= 40 || st.Files >= 80 {
		t.Fatalf("%d files in the index after a run stopped by a full disk, want some of the 40 new ones", st.Files)
	}

	budget.Store(1 << 40)
	e.ClearOverlay(ctx, "pkg/f1.go")
	res, err := e.Index(ctx, nil)
	if err != nil {
		t.Fatalf("Index after space returned: %v", err)
	}
	if res.Files != 80 {
		t.Fatalf("index after recovery: %+v", res)
	}
	if h := e.StorageHealth(); h.State != StorageOK {
		t.Fatalf("health after recovery: %+v", h)
	}
	eventsMu.Lock()
	if !reflect.DeepEqual(events, []string{StorageDiskFull, StorageOK}) {
		t.Errorf("OnStorage heard %v, want one diskFull then one ok (once per episode)", events)
	}
	eventsMu.Unlock()
	clean := openTest(t, root, t.TempDir())
	defer clean.Close()
	if _, err := clean.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Handler7", "runs job 55", "Worker79", "serves request"} {
		if a, b := hitPaths(query(t, clean, q)), hitPaths(query(t, e, q)); !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: recovered index %v != clean %v", q, b, a)
		}
	}
	for _, rel := range []string{"pkg/f1.go", "pkg/f45.go"} {
		textMatchesStore(t, e, rel)
	}
}
