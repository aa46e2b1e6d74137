// Package manifest is a fixture: a type reached through an alias.
package manifest

// Version lists levels.
type Version struct {
	Levels [7]LevelMetadata
}

// LevelMetadata is one level.
type LevelMetadata struct{ n int }

// Iter iterates a level.
func (l *LevelMetadata) Iter() LevelIterator { return LevelIterator{} }

// LevelIterator walks files.
type LevelIterator struct{}

// Next steps.
func (i LevelIterator) Next() bool { return false }
