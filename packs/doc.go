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
//   - agent items compete for the rest of the budget: the budget is split
//     across sources by the task's priorities, items are picked greedily by
//     value per token where value is their maximal-marginal-relevance score
//     (so a second snippet from an already chosen file is worth less), and
//     share a source leaves unused flows to the others;
//   - items too long for their place are shortened structurally: signatures
//     and doc comments stay, function bodies become one marked "…" line, and
//     lines are never cut in half.
//
// The rendered text (markdown, xml, json or plain) never exceeds the budget:
// its token count, headers and fences included, is at most Request.Budget.
//
// Token counts come from CountTokens, which is chunking.CountTokens: a
// calibrated estimate of the MiniLM WordPiece tokenizer used by the
// embedder, not the tokenizer itself (mean absolute error 3.3% per chunk,
// p95 9.1%, on held-out standard library code).
//
// The package is pure: it imports neither the engine nor the store, and it
// does no I/O except CoChanged, which runs git.
package packs
