package symbols

/*
#include <stdint.h>
#include <stdbool.h>

// Layouts and functions of tree-sitter's C API (api.h of the pinned
// go-tree-sitter module, whose C objects are linked into every binary
// that imports it).
typedef struct { uint32_t context[4]; const void *id; const void *tree; } shapeNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } shapeCursor;
extern shapeCursor ts_tree_cursor_new(shapeNode);
extern void ts_tree_cursor_delete(shapeCursor *);
extern shapeNode ts_tree_cursor_current_node(const shapeCursor *);
extern bool ts_tree_cursor_goto_parent(shapeCursor *);
extern bool ts_tree_cursor_goto_next_sibling(shapeCursor *);
extern bool ts_tree_cursor_goto_first_child(shapeCursor *);
extern bool ts_node_is_named(shapeNode);
extern uint32_t ts_node_descendant_count(shapeNode);
extern uint32_t ts_node_end_byte(shapeNode);

typedef struct { uint64_t cost; uint32_t depth; } shapeResult;

// shape measures the tree below root: cost estimates the sibling scans
// of a query over it (every anonymous node costs the number of anonymous
// siblings since the last named one), depth the nesting. It visits the
// nodes with at least small descendants and their children (the runs
// inside smaller subtrees are shorter than small, and they are at most
// small deep) and stops once cost exceeds limit or depth maxDepth.
static shapeResult shape(shapeNode root, uint32_t small, uint64_t limit, uint32_t maxDepth) {
	shapeResult r = {0, 0};
	uint64_t run = 0;
	if (ts_node_descendant_count(root) < small) return r;
	shapeCursor c = ts_tree_cursor_new(root);
	if (!ts_tree_cursor_goto_first_child(&c)) goto done;
	r.depth = 1;
	uint32_t depth = 1;
	for (;;) {
		shapeNode n = ts_tree_cursor_current_node(&c);
		if (ts_node_is_named(n)) {
			run = 0;
		} else {
			run++;
			r.cost += run;
			if (r.cost > limit) goto done;
		}
		if (ts_node_descendant_count(n) >= small && ts_tree_cursor_goto_first_child(&c)) {
			run = 0;
			if (++depth > r.depth) {
				r.depth = depth;
				if (depth > maxDepth) goto done;
			}
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (depth == 1 || !ts_tree_cursor_goto_parent(&c)) goto done;
			depth--;
			run = 0;
		}
	}
done:
	ts_tree_cursor_delete(&c);
	return r;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// A tree-sitter query over a node with a long run of anonymous children
// (tokens such as "(" or ",") is quadratic in the run's length: entering
// each child, the cursor scans the siblings after it for a named one
// (ts_tree_cursor_current_status in the pinned tree-sitter). 256 KiB of
// "(" — a flat ERROR node of 262,144 children — took 201 s to index.
// Deep trees cost the consumers that look nodes up from the root
// (chunking's statement cuts) time in proportion to their depth for
// every lookup: a Python expression nested 131,072 deep took 11 s at
// 256 KiB. checkShape refuses both before any query runs, from one walk
// of the tree's larger subtrees (3 % of the parse time of the standard
// library's net packages).

// shapeSmall is the subtree size below which the walk does not descend:
// the runs inside are shorter, and cost at most shapeSmall²/2 each.
const shapeSmall = 64

// maxDepth is the deepest nesting accepted: eight times the deepest in
// the Go standard library and the VS Code extension's node_modules (947:
// string concatenations of 940 terms in golang.org/x/text's Unicode
// tables).
const maxDepth = 8192

// scanBudget is the sibling-scan cost allowed for a source of n bytes:
// far more than ordinary code needs (net/http/server.go: 1,768 for 131
// KB; no file of the standard library or node_modules above comes near
// it), far below what a pathological run costs (64 KiB of "(": 2.1 ×
// 10⁹), and a few hundredths of a second at most.
func scanBudget(n int) uint64 { return 16*uint64(n) + 1<<24 }

// checkNesting returns an error wrapping ErrIrregular when src opens
// more than maxDepth brackets without closing them, counted without
// regard to strings and comments: tree-sitter's parse stack grows with
// every one (1 MiB of "(" peaked at 250 MB inside the parse, where no
// limit reaches it), and so would the tree's depth.
func checkNesting(lang *Language, src []byte) error {
	depth := 0
	for _, c := range src {
		switch c {
		case '(', '[', '{':
			if depth++; depth > maxDepth {
				return fmt.Errorf("parse %s: brackets nested more than %d deep: %w", lang.Name, maxDepth, ErrIrregular)
			}
		case ')', ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return nil
}

// checkShape returns an error wrapping ErrIrregular when querying tree,
// parsed from n bytes, would cost more than scanBudget(n), or when it
// nests deeper than maxDepth.
func checkShape(lang *Language, tree *sitter.Tree, n int) error {
	limit := scanBudget(n)
	root := tree.RootNode()
	r := C.shape(cNode(root), shapeSmall, C.uint64_t(limit), maxDepth)
	switch {
	case uint64(r.cost) > limit:
		return fmt.Errorf("parse %s: runs of unnamed tokens would cost a query more than %d steps for %d bytes: %w", lang.Name, limit, n, ErrIrregular)
	case r.depth > maxDepth:
		return fmt.Errorf("parse %s: nested more than %d deep: %w", lang.Name, maxDepth, ErrIrregular)
	}
	return nil
}

// cNode is the tree-sitter node n wraps: a Node begins with it
// (bindings.go of the pinned binding; TestShapeReadsTheNode holds this
// copy to the binding's own calls).
func cNode(n *sitter.Node) C.shapeNode { return *(*C.shapeNode)(unsafe.Pointer(n)) }

// endByte is n's end, read through cNode (for the test).
func endByte(n *sitter.Node) uint32 { return uint32(C.ts_node_end_byte(cNode(n))) }
