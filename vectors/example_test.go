package vectors_test

import (
	"fmt"

	"github.com/context-ls/context-ls/vectors"
)

// An Index takes vectors by id; a snapshot answers queries and stays
// unchanged while the index moves on.
func ExampleIndex() {
	idx, err := vectors.NewIndex("demo@0", 3)
	if err != nil {
		panic(err)
	}
	idx.Add(1, vectors.Normalize([]float32{1, 0, 0}))
	idx.Add(2, vectors.Normalize([]float32{1, 1, 0}))
	idx.Add(3, vectors.Normalize([]float32{0, 0, 1}))

	view := idx.Snapshot()
	idx.Remove(2) // the view still holds 2

	q := vectors.Normalize([]float32{1, 0.9, 0})
	for _, h := range view.Search(q, 2, nil) {
		fmt.Printf("%d %.3f\n", h.ID, h.Score)
	}
	fmt.Println(view.Len(), idx.Len())
	// Output:
	// 2 0.999
	// 1 0.743
	// 3 2
}

// Vectors are stored in Pebble in their quantised form.
func ExampleEncodeVector() {
	b, err := vectors.EncodeVector([]float32{0.5, -0.25, 0.125})
	if err != nil {
		panic(err)
	}
	v, err := vectors.DecodeVector(b)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d bytes: %.4f\n", len(b), v)
	// Output: 10 bytes: [0.5000 -0.2500 0.1249]
}
