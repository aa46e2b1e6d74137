package engine

import (
	"fmt"

	"github.com/context-ls/context-ls/store"
)

// Pin is a pinned file or line range; pins go into every pack of the
// workspace as manual items. They are kept in the store (store/pins.go),
// which took in the pins.json of the index directory where they were kept
// before.
type Pin = store.Pin

// legacyPinsFile is where the index directory kept its pins before the
// store did.
const legacyPinsFile = "pins.json"

// Pins returns the workspace's pins in the order they were pinned.
func (e *Engine) Pins() ([]Pin, error) {
	if err := e.takePins(); err != nil {
		return nil, err
	}
	return e.db.Pins()
}

// Pins returns the pins of the snapshot, in the order they were pinned.
func (s *Snapshot) Pins() ([]Pin, error) { return s.st.Pins() }

// takePins takes in the pins of a pins.json the store could not take in
// when it opened (fixed since, or the disk had no room), before a pin
// operation; the next snapshot holds them.
func (e *Engine) takePins() error {
	taken, err := e.db.TakePins()
	if taken {
		e.changed()
	}
	return err
}

// Pin adds a pin (the path is canonicalised; pinning twice is a no-op).
func (e *Engine) Pin(p Pin) error {
	p, err := e.checkPin(p)
	if err != nil {
		return err
	}
	if err := e.takePins(); err != nil {
		return err
	}
	if _, err := e.db.AddPins(p); err != nil {
		return err
	}
	e.changed()
	return nil
}

// UnpinAll removes every pin.
func (e *Engine) UnpinAll() error {
	if err := e.takePins(); err != nil {
		return err
	}
	if err := e.db.ClearPins(); err != nil {
		return err
	}
	e.changed()
	return nil
}

// Unpin removes a pin; it fails with ErrNotPinned when there is none.
func (e *Engine) Unpin(p Pin) error {
	p, err := e.checkPin(p)
	if err != nil {
		return err
	}
	if err := e.takePins(); err != nil {
		return err
	}
	removed, err := e.db.RemovePin(p)
	if err != nil {
		return err
	}
	if !removed {
		return fmt.Errorf("%s: %w", p, ErrNotPinned)
	}
	e.changed()
	return nil
}

func (e *Engine) checkPin(p Pin) (Pin, error) {
	rel, err := e.ws.Resolve(p.Path)
	if err != nil {
		return p, fmt.Errorf("pin: %w", err)
	}
	if rel == "." {
		return p, fmt.Errorf("pin: %q is the workspace root, not a file: %w", p.Path, ErrBadSelection)
	}
	p.Path = rel
	if (p.StartLine == 0) != (p.EndLine == 0) || p.StartLine < 0 || p.EndLine < p.StartLine {
		return p, fmt.Errorf("pin %s: line range %d-%d: %w", rel, p.StartLine, p.EndLine, ErrBadSelection)
	}
	return p, nil
}
