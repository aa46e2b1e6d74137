//go:build amd64 && !purego

package vectors

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel; tests switch it off to compare with
// the portable one.
var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func dotI16I8AVX2(q *int16, v *int8, n int) int32

// dotQuery is the dot product of a query (int8 codes widened to int16) and
// one stored int8 vector of the same length.
func dotQuery(q []int16, v []int8) int32 {
	n := len(q)
	v = v[:n]
	if !useAVX2 || n < 16 {
		return dotQueryGo(q, v)
	}
	m := n &^ 15
	s := dotI16I8AVX2(&q[0], &v[0], m)
	if m < n {
		s += dotQueryGo(q[m:], v[m:])
	}
	return s
}
