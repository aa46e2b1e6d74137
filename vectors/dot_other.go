//go:build !amd64 || purego

package vectors

// useAVX2 is always false off amd64.
var useAVX2 = false

// dotQuery is the dot product of a query (int8 codes widened to int16) and
// one stored int8 vector of the same length.
func dotQuery(q []int16, v []int8) int32 { return dotQueryGo(q, v[:len(q)]) }
