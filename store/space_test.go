package store

import (
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/vfs"
)

// freeSpace is a FreeSpace function whose answer a test sets.
type freeSpace struct{ n atomic.Int64 }

func (f *freeSpace) get(string) (int64, error) { return f.n.Load(), nil }

func TestGuardRefusesWritesBeforePebble(t *testing.T) {
	free := &freeSpace{}
	free.n.Store(64 << 20)
	db, err := Open("idx", Options{FS: vfs.NewMem(), FreeSpace: free.get, MinFree: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, _, err := db.PutFile(fileData("a.go", []string{"A"}, "func ")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPins(pinA); err != nil {
		t.Fatal(err)
	}
	if h := db.Health(); h.State != HealthOK || h.FreeBytes != 64<<20 {
		t.Fatalf("health with room: %+v", h)
	}
	seq := db.Seq()

	free.n.Store(31 << 20)
	_, _, err = db.PutFile(fileData("b.go", []string{"B"}, "func "))
	var full *DiskFullError
	if !errors.Is(err, ErrDiskFull) || !errors.As(err, &full) {
		t.Fatalf("PutFile on a full disk: %v, want ErrDiskFull", err)
	}
	if full.Free != 31<<20 || full.Need < 32<<20 || !strings.Contains(err.Error(), "idx") {
		t.Fatalf("error %+v (%v) does not say the space and the directory", full, err)
	}
	for name, write := range map[string]func() error{
		"DeleteFile": func() error { _, _, err := db.DeleteFile("a.go"); return err },
		"TouchFile":  func() error { return db.TouchFile("a.go", 1, 2) },
		"SetMeta":    func() error { return db.SetMeta("k", "v") },
		"PutVectors": func() error { return db.PutVectors("m", []Recipe{{1}}, [][]byte{{1, 2}}) },
		"TrimLog":    func() error { return db.TrimLog(seq) },
		"AddPins":    func() error { _, err := db.AddPins(pinB); return err },
		"RemovePin":  func() error { _, err := db.RemovePin(pinA); return err },
	} {
		if err := write(); !errors.Is(err, ErrDiskFull) {
			t.Errorf("%s on a full disk: %v, want ErrDiskFull", name, err)
		}
	}
	if h := db.Health(); h.State != HealthDiskFull || !strings.Contains(h.Message, "idx") {
		t.Fatalf("health on a full disk: %+v", h)
	}
	snap := db.Snapshot()
	if _, err := snap.File("b.go"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused file is in the index: %v", err)
	}
	if rec, err := snap.File("a.go"); err != nil || rec.Size == 1 {
		t.Fatalf("the previous version is gone or touched: %+v %v", rec, err)
	}
	pins, err := snap.Pins()
	wantPins(t, "pins after refused changes", pins, err, pinA)
	snap.Release()
	if db.Seq() != seq {
		t.Fatalf("seq moved from %d to %d on refused writes", seq, db.Seq())
	}

	free.n.Store(40 << 20) // space is back
	if _, _, err := db.PutFile(fileData("b.go", []string{"B"}, "func ")); err != nil {
		t.Fatalf("PutFile after space returned: %v", err)
	}
	if h := db.Health(); h.State != HealthOK {
		t.Fatalf("health after space returned: %+v", h)
	}
}

func TestOpenOnFullDisk(t *testing.T) {
	dir := t.TempDir()
	free := &freeSpace{}
	if _, err := Open(dir, Options{FreeSpace: free.get}); !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("new index on a full disk: %v, want ErrDiskFull naming %s", err, dir)
	}

	free.n.Store(2 * DefaultMinFree)
	db, err := Open(dir, Options{FreeSpace: free.get})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.PutFile(fileData("a.go", []string{"A"}, "func ")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Too full even to open for writing: read-only, readable.
	free.n.Store(0)
	db, err = Open(dir, Options{FreeSpace: free.get})
	if err != nil {
		t.Fatalf("existing index on a full disk: %v", err)
	}
	snap := db.Snapshot()
	if _, err := snap.File("a.go"); err != nil {
		t.Fatalf("read-only index does not answer: %v", err)
	}
	snap.Release()
	if _, _, err := db.PutFile(fileData("b.go", []string{"B"}, "func ")); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("write to a read-only index: %v, want ErrDiskFull", err)
	}
	if err := db.Sync(); err != nil {
		t.Fatalf("Sync of a read-only index: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	free.n.Store(2 * DefaultMinFree) // space is back: writable again
	db, err = Open(dir, Options{FreeSpace: free.get})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, _, err := db.PutFile(fileData("b.go", []string{"B"}, "func ")); err != nil {
		t.Fatalf("write after space returned: %v", err)
	}
}

// enospcFS fails every write once full is set, as a full disk does.
type enospcFS struct {
	vfs.FS
	full *atomic.Bool
}

func (fs enospcFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return enospcFile{f, fs.full}, nil
}

func (fs enospcFS) Create(name string) (vfs.File, error) {
	if fs.full.Load() {
		return nil, &osPathError{"create", name}
	}
	return fs.wrap(fs.FS.Create(name))
}

func (fs enospcFS) ReuseForWrite(oldname, newname string) (vfs.File, error) {
	return fs.wrap(fs.FS.ReuseForWrite(oldname, newname))
}

type enospcFile struct {
	vfs.File
	full *atomic.Bool
}

func (f enospcFile) Write(p []byte) (int, error) {
	if f.full.Load() {
		return 0, &osPathError{"write", "log"}
	}
	return f.File.Write(p)
}

func (f enospcFile) Sync() error {
	if f.full.Load() {
		return &osPathError{"sync", "log"}
	}
	return f.File.Sync()
}

type osPathError struct{ op, path string }

func (e *osPathError) Error() string { return e.op + " " + e.path + ": " + syscall.ENOSPC.Error() }
func (e *osPathError) Unwrap() error { return syscall.ENOSPC }

var _ io.Writer = enospcFile{}

// TestPebbleFailureIsAnErrorNotAHang: when the disk fills behind the
// guard's back, Pebble panics inside the write (holding its locks); the
// store turns the panic into ErrDiskFull, keeps answering from older
// snapshots, and Close returns instead of waiting for those locks.
func TestPebbleFailureIsAnErrorNotAHang(t *testing.T) {
	var full atomic.Bool
	db, err := Open("idx", Options{FS: enospcFS{vfs.NewMem(), &full}, MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.PutFile(fileData("a.go", []string{"A"}, "func ")); err != nil {
		t.Fatal(err)
	}
	old := db.Snapshot()
	full.Store(true)
	big := strings.Repeat("x", 1<<20)
	for i := 0; i < 100 && err == nil; i++ {
		_, _, err = db.PutFile(fileData("b.go", []string{"B"}, big))
		if err == nil {
			err = db.Sync()
		}
	}
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("writes on a full disk: %v, want ErrDiskFull", err)
	}
	if db.Failed() == nil {
		t.Fatalf("store not marked failed after %v", err)
	}
	t.Logf("failure: %v", err)
	if _, err := old.File("a.go"); err != nil {
		t.Fatalf("older snapshot does not answer: %v", err)
	}
	if _, err := db.Snapshot().File("a.go"); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("new snapshot of a failed store: %v, want the failure", err)
	}
	if h := db.Health(); h.State != HealthFailed && h.State != HealthDiskFull {
		t.Fatalf("health of a failed store: %+v", h)
	}
	done := make(chan error, 1)
	go func() { old.Release(); done <- db.Close() }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrDiskFull) {
			t.Fatalf("Close of a failed store: %v, want ErrDiskFull", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close of a failed store hangs")
	}
}
