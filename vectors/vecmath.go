package vectors

import "math"

// Dot returns the dot product of a and b over their common length. For
// L2-normalised vectors (everything the Embedder returns) it is the cosine.
func Dot(a, b []float32) float32 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Cosine returns the cosine similarity of a and b (0 if either is zero).
func Cosine(a, b []float32) float32 {
	na, nb := Norm(a), Norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	return Dot(a, b) / (na * nb)
}

// Norm returns the Euclidean length of v.
func Norm(v []float32) float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return float32(math.Sqrt(s))
}

// Normalize scales v in place to unit length; a zero vector is left as is.
// It returns v.
func Normalize(v []float32) []float32 {
	n := Norm(v)
	if n == 0 || math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return v
	}
	inv := 1 / n
	for i := range v {
		v[i] *= inv
	}
	return v
}

// poolMean writes into dst the mean of the token vectors of one row of a
// [seq, dim] block whose attention mask is mask (1 = token). A row without
// tokens gives a zero vector.
func poolMean(dst []float32, block []float32, mask []int64, dim int) {
	clear(dst)
	count := 0
	for s, m := range mask {
		if m == 0 {
			continue
		}
		count++
		tok := block[s*dim : s*dim+dim]
		for j, x := range tok {
			dst[j] += x
		}
	}
	if count == 0 {
		return
	}
	inv := 1 / float32(count)
	for j := range dst {
		dst[j] *= inv
	}
}
