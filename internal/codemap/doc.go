// Package codemap holds the check that ARCHITECTURE.md's code map tells
// the truth about the packages: every package of the module (but the
// bench and script programs) has a row, and each row's imports column is
// what `go list` says the package's non-test files import from the module.
package codemap
