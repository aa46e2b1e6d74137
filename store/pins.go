package store

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble"
)

// Pins: the files and line ranges a user pinned into every context pack of
// the workspace, under p/<ord:8> in the order they were pinned, each a JSON
// object (path, startLine, endLine) that no schema version changes. Every
// change is one synced Pebble write, so a crash leaves the list as it was
// before the change or after it.
//
// Pins are the user's, not derived from the workspace, so they outlive the
// index's data: a wipe (another schema version) keeps them like the
// embedding cache, and a store marked damaged writes them to savedPinsFile
// beside its marker, from which the store that starts over takes them
// back. Pins were kept in a file, pins.json, before they were kept here:
// Options.LegacyPins names it, and Open adds its pins once and removes it.

// Pin is a pinned file or line range.
type Pin struct {
	// Path is workspace-relative and slash-separated.
	Path string `json:"path"`
	// StartLine and EndLine are 1-based and inclusive; both 0 pin the
	// whole file.
	StartLine int `json:"startLine,omitempty"`
	EndLine   int `json:"endLine,omitempty"`
}

// String is "path" or "path:a-b".
func (p Pin) String() string {
	if p.StartLine == 0 {
		return p.Path
	}
	return fmt.Sprintf("%s:%d-%d", p.Path, p.StartLine, p.EndLine)
}

// savedPinsFile holds, in the store directory, the pins of a store marked
// damaged until the store that starts over has taken them back.
const savedPinsFile = "PINS.json"

// pinFile is the layout of pins.json and of savedPinsFile.
type pinFile struct {
	Version int   `json:"version"`
	Pins    []Pin `json:"pins"`
}

func pinKey(ord uint64) []byte { return binary.BigEndian.AppendUint64([]byte("p/"), ord) }

// storedPin is a pin with its key's ordinal.
type storedPin struct {
	Pin
	ord uint64
}

// scanPins reads every pin of r in the order they were pinned; bad is
// the first pin record that does not decode (left out).
func scanPins(r pebble.Reader) (pins []storedPin, bad, err error) {
	lo, hi := prefixRange([]byte("p/"))
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		p, err := decodePin(it.Key(), it.Value())
		if err != nil {
			bad = cmp.Or(bad, err)
			continue
		}
		pins = append(pins, p)
	}
	return pins, bad, it.Error()
}

// readPins reads the pins of r (the store or one of its snapshots). A pin
// record that does not decode is damage: the store is marked for a
// rebuild (which takes back the other pins) and the others are read.
func (db *DB) readPins(r pebble.Reader) ([]storedPin, error) {
	pins, bad, err := scanPins(r)
	if bad != nil {
		db.noteDamage(bad)
	}
	if err != nil {
		return nil, fmt.Errorf("read pins: %w", db.noteRead(err))
	}
	return pins, nil
}

func decodePin(k, v []byte) (storedPin, error) {
	if len(k) != 10 {
		return storedPin{}, fmt.Errorf("malformed pin key %q", k)
	}
	p := storedPin{ord: binary.BigEndian.Uint64(k[2:])}
	if err := json.Unmarshal(v, &p.Pin); err != nil || p.Path == "" {
		return storedPin{}, fmt.Errorf("pin %d: %q does not decode", p.ord, v)
	}
	return p, nil
}

func pinList(stored []storedPin) []Pin {
	out := make([]Pin, len(stored))
	for i, p := range stored {
		out[i] = p.Pin
	}
	return out
}

// Pins returns the pins in the order they were pinned. While the pins of a
// pin file wait to be taken in (TakePins), it fails with why they do.
func (db *DB) Pins() ([]Pin, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.pinsPending(); err != nil {
		return nil, err
	}
	stored, err := db.readPins(db.db)
	if err != nil {
		return nil, err
	}
	return pinList(stored), nil
}

// Pins returns the snapshot's pins in the order they were pinned. While
// the pins of a pin file wait to be taken in (TakePins), it fails with why
// they do.
func (s *Snapshot) Pins() ([]Pin, error) {
	if err := s.db.pinsPending(); err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	stored, err := s.db.readPins(s.s)
	if err != nil {
		return nil, err
	}
	return pinList(stored), nil
}

// AddPins pins each of pins not pinned already, after the others, in one
// synced write, and returns how many it added. Like every change of the
// pins, it fails while the pins of a pin file wait to be taken in.
func (db *DB) AddPins(pins ...Pin) (int, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.pinsPending(); err != nil {
		return 0, err
	}
	return db.addPinsLocked(pins)
}

func (db *DB) addPinsLocked(pins []Pin) (n int, err error) {
	if db.db == nil {
		return 0, ErrClosed
	}
	stored, err := db.readPins(db.db)
	if err != nil {
		return 0, err
	}
	have := map[Pin]bool{}
	next := uint64(1)
	for _, p := range stored {
		have[p.Pin] = true
		next = p.ord + 1
	}
	var kvs []kv
	for _, p := range pins {
		if have[p] {
			continue
		}
		have[p] = true
		v, err := json.Marshal(p)
		if err != nil {
			return 0, fmt.Errorf("pin %s: %w", p, err)
		}
		kvs = append(kvs, kv{pinKey(next), v})
		next++
	}
	if len(kvs) == 0 {
		return 0, nil
	}
	err = db.writePins(func(b *pebble.Batch) error {
		for _, x := range kvs {
			if err := b.Set(x.key, x.value, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(kvs), nil
}

// RemovePin unpins p, in one synced write; it reports false when p is not
// pinned.
func (db *DB) RemovePin(p Pin) (bool, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.pinsPending(); err != nil {
		return false, err
	}
	if db.db == nil {
		return false, ErrClosed
	}
	stored, err := db.readPins(db.db)
	if err != nil {
		return false, err
	}
	for _, q := range stored {
		if q.Pin == p {
			return true, db.writePins(func(b *pebble.Batch) error { return b.Delete(pinKey(q.ord), nil) })
		}
	}
	return false, nil
}

// ClearPins unpins everything, in one synced write.
func (db *DB) ClearPins() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.pinsPending(); err != nil {
		return err
	}
	if db.db == nil {
		return ErrClosed
	}
	lo, hi := prefixRange([]byte("p/"))
	return db.writePins(func(b *pebble.Batch) error { return b.DeleteRange(lo, hi, nil) })
}

// writePins commits the changes fill makes to the pins in one synced
// batch (under db.mu). A store marked damaged saves its pins again for
// the store that starts over.
func (db *DB) writePins(fill func(*pebble.Batch) error) (err error) {
	if err := db.room(256); err != nil {
		return err
	}
	defer db.recoverWrite(&err)
	b := db.db.NewBatch()
	defer b.Close()
	if err := fill(b); err != nil {
		return err
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("write pins: %w", err)
	}
	if db.marked.Load() {
		return db.savePins()
	}
	return nil
}

// pinFiles are the files whose pins Open adds to the store: the legacy
// pins.json and the pins saved from a damaged store.
func (db *DB) pinFiles() []string {
	files := []string{db.legacyPins}
	if db.onDisk {
		files = append(files, filepath.Join(db.dir, savedPinsFile))
	}
	return files
}

// importPins adds the pins of every pin file that exists and removes the
// file once they are stored (under db.mu). A file whose pins cannot be
// added (it does not decode, the disk is full) is left as it is, and pin
// operations fail with the reason until TakePins succeeds: a crash after
// the pins are stored and before the file is removed adds nothing twice.
func (db *DB) importPins() error {
	for _, file := range db.pinFiles() {
		if file == "" {
			continue
		}
		if err := db.importPinFile(file); err != nil {
			err = fmt.Errorf("pins in %s not yet taken into the index: %w", file, err)
			db.pinsErr.Store(&err)
			return err
		}
	}
	db.pinsErr.Store(nil)
	return nil
}

func (db *DB) importPinFile(file string) error {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var f pinFile
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("%w (fix or remove the file)", err)
	}
	if f.Version != 1 {
		return fmt.Errorf("unknown version %d (fix or remove the file)", f.Version)
	}
	for _, p := range f.Pins {
		if p.Path == "" {
			return fmt.Errorf("a pin without a path (fix or remove the file)")
		}
	}
	if _, err := db.addPinsLocked(f.Pins); err != nil {
		return err
	}
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// pinsPending returns why the pins of a pin file wait to be taken in, or
// nil.
func (db *DB) pinsPending() error {
	if p := db.pinsErr.Load(); p != nil {
		return *p
	}
	return nil
}

// TakePins tries again to take in the pins of the pin files Open could
// not take in (one that did not decode and was fixed since, a disk that
// was full); it reports whether it took any file in, and returns why the
// others still wait, or nil.
func (db *DB) TakePins() (bool, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.pinsPending() == nil {
		return false, nil
	}
	err := db.importPins()
	return err == nil, err
}

// savePins writes the pins the store still holds to savedPinsFile (a
// temporary file renamed over it), for the store that starts over when a
// damaged one is opened next. A pin that cannot be read is lost with the
// store.
func (db *DB) savePins() error {
	if !db.onDisk || db.db == nil || db.failure() != nil {
		return nil
	}
	db.savingPins.Lock()
	defer db.savingPins.Unlock()
	stored, _, err := scanPins(db.db)
	if err != nil {
		return nil
	}
	if len(stored) == 0 {
		if err := os.Remove(filepath.Join(db.dir, savedPinsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("save pins: %w", err)
		}
		return nil
	}
	data, err := json.MarshalIndent(pinFile{Version: 1, Pins: pinList(stored)}, "", "  ")
	if err != nil {
		return fmt.Errorf("save pins: %w", err)
	}
	f, err := os.CreateTemp(db.dir, savedPinsFile+".*")
	if err != nil {
		return fmt.Errorf("save pins: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(append(data, '\n'))
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, filepath.Join(db.dir, savedPinsFile))
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("save pins: %w", werr)
	}
	return nil
}
