// Package vectors turns text into embedding vectors and searches them.
//
// It owns four things:
//
//   - the model registry ([Models], [Lookup], [Pull], [Verify]): which sentence
//     encoders context-ls knows, where their files come from and their pinned
//     checksums;
//   - the ONNX Runtime binding ([FindRuntime]): the shared library is loaded
//     at run time, once per process;
//   - the release archive's layout ([BundleDir]): a runtime in lib/ and models
//     in models/ beside the binary are found before the user cache
//     ([RuntimePlaces], [ResolveModel]);
//   - the [Embedder]: tokenizer + batched ONNX inference + pooling +
//     L2 normalisation, so that the cosine of two vectors is their dot product;
//   - the in-memory [Index]: int8-quantised vectors keyed by uint64 ids, with
//     immutable snapshots ([IndexView]) that answer exact top-k queries while
//     the index keeps changing.
//
// Pebble is the source of truth for vectors (ARCHITECTURE.md): the engine
// stores each vector with [EncodeVector] and rebuilds the Index from them.
package vectors
