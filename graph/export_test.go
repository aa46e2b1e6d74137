package graph

// Internals the external tests (package graph_test) check.

// SiteMagic is the first byte of an encoded site.
const SiteMagic = siteMagic

// ClearMemberAt drops what an encoding leaves out (only a spliced
// extraction reads it), so an extracted graph compares with its decoding.
func ClearMemberAt(g *FileGraph) { g.memberAt = nil }
