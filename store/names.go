package store

import (
	"bytes"
	"fmt"
)

// DistinctNames calls fn for every distinct lower-cased definition name of
// the name index (the n/ keys), in lexical order, without decoding the
// definitions under it; fn returning false stops. name is valid only
// during the call. It reads every n/ key: callers keep what they derive
// (engine's name table) rather than calling it per query.
func (s *Snapshot) DistinctNames(fn func(name []byte) bool) error {
	var prev []byte
	started := false
	return s.scan([]byte("n/"), func(k, _ []byte) (bool, error) {
		rest := k[2:]
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return false, fmt.Errorf("malformed name key %q", k)
		}
		name := rest[:i]
		if started && bytes.Equal(name, prev) {
			return true, nil
		}
		started = true
		prev = append(prev[:0], name...)
		return fn(name), nil
	})
}
