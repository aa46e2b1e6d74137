// Package packs turns ranked candidate snippets into a context pack: the
// token-budgeted, located, secret-free text an editor copies or an agent
// pastes into its prompt.
//
// Build takes candidates from every source the engine knows (query hits,
// definitions, callers, callees, tests, similar code, docs, co-changed files,
// pins and always-included files) and selects among them:
//
//   - every text is scrubbed of secrets first (see Scrubber), so nothing
//     downstream — hashes, renderers, logs — ever sees the raw value;
//   - exact duplicates (same content hash) and near duplicates (shingle or
//     embedding similarity ≥ NearDuplicate) keep only their best copy;
//   - always and manual items are taken first, in that order, while they fit;
//   - agent items are then taken best first — at each step the one of highest
//     maximal-marginal-relevance score (a second item of a file already in
//     is worth less, and less so for a file whose best item outscores every
//     other file's) — whole when within their limit and what is left, else
//     shortened to it, else as their summary: the first may take 0.75 of the
//     budget, the others 0.5. Items scoring below IncludeScore compete
//     within the task's source shares first (shares of sources without
//     candidates flow to the others), then freely, while fewer than TopN
//     are in;
//   - MMR chooses which agent items; what each source spent is then handed
//     out again among its items in score order (the same limits; each item
//     still to come keeps a little back, so none is dropped, unless weaker
//     items of its own file give way so that a better one is shown whole),
//     so the best item keeps its lines and a weaker one of another file
//     gives way while the task's shares hold; what is left takes more items;
//   - items too long for their place are shortened structurally: with
//     Request.LineWeight, function bodies none of whose lines bear on the
//     request are elided and the lines that do are kept with their context
//     and the signature (focusLines); without it, signatures and doc comments
//     stay and bodies become one marked "…" line. Lines are never cut in
//     half, and every run left out is one marked line saying how many.
//
// The rendered text (markdown, xml or plain) never exceeds the budget: its
// token count, headers and fences included, is at most Request.Budget. A
// json pack's items are what a markdown pack of the budget holds, and its
// Tokens counts them so (costFormat, tokensOf): the JSON syntax around them
// is for the program taking them apart. Markdown, plain and json packs hold
// the same items; xml's tags cost more, so an xml pack may hold fewer.
//
// Token counts come from CountTokens, which is chunking.CountTokens: a
// calibrated estimate of the MiniLM WordPiece tokenizer used by the
// embedder, not the tokenizer itself (mean absolute error 3.3% per chunk,
// p95 9.1%, on held-out standard library code).
//
// The package is pure: it imports neither the engine nor the store, and it
// does no I/O except CoChanged, which runs git.
package packs
