// Package io is a fixture: the standard library as the workspace.
package io

// Closer closes.
type Closer interface {
	Close() error
}
