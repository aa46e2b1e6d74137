package packing

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/context-ls/context-ls/internal/testutil"
	"github.com/context-ls/context-ls/packs"
)

// compositionCase is one pack of the composition fixture and the rules it
// must keep besides its golden item list.
type compositionCase struct {
	name   string
	req    Request
	check  func(t *testing.T, p packs.Pack)
	budget int
}

// TestPackComposition pins how a pack spends its budget, on the fixture in
// testdata/packs/composition.txtar: each case's items (in every format the
// same) are recorded in testdata/packs/NAME.golden — review a change, then
// accept it with go test ./engine/packing -run TestPackComposition -update — and
// its rules are checked whatever the golden says.
func TestPackComposition(t *testing.T) {
	files := readTxtar(t, filepath.Join("testdata", "packs", "composition.txtar"))
	e, _ := indexedEngine(t, files)
	defer e.Close()
	cases := []compositionCase{
		{
			name: "edited-method", budget: 1200,
			req: Request{Query: "Cart.total ignores the discount code when the cart holds a gift card: the gift card is applied to the total before the discount"},
			check: func(t *testing.T, p packs.Pack) {
				total := itemNamed(p, "Cart.total")
				if total == nil || total.Shortened {
					t.Errorf("Cart.total, the definition the text is about, is not in whole: %+v", total)
				}
				if itemNamed(p, "apply_discount") == nil {
					t.Errorf("apply_discount, which Cart.total calls, is not in the pack")
				}
				if cart := itemNamed(p, "Cart"); cart != nil && (strings.Contains(cart.Text, "def total") || !strings.Contains(cart.Text, "lines elided")) {
					t.Errorf("the class Cart is shown with its methods:\n%s", cart.Text)
				} else if cart != nil {
					// Methods that follow one another are one marker, not one
					// each with the blank lines between them kept.
					prevMarker := false
					for l := range strings.Lines(cart.Text) {
						switch {
						case strings.TrimSpace(l) == "":
						case strings.Contains(l, "lines elided"):
							if prevMarker {
								t.Errorf("two markers with only blank lines between them:\n%s", cart.Text)
							}
							prevMarker = true
						default:
							prevMarker = false
						}
					}
				}
				code, prose := 0, 0
				for _, it := range p.Items {
					if strings.HasSuffix(it.Path, ".py") {
						code += it.Tokens
					} else {
						prose += it.Tokens
					}
				}
				if prose >= code {
					t.Errorf("prose and configuration take %d tokens, code %d", prose, code)
				}
			},
		},
		{
			name: "class-method", budget: 600,
			req: Request{Query: "DiscountRule.__str__ shows the percentage twice"},
			check: func(t *testing.T, p packs.Pack) {
				// The items showing each __str__ (a small class is one item
				// with its methods).
				right := itemShowing(p, "shop/discounts.py", "return f\"{self.code}")
				wrong := itemShowing(p, "shop/discounts.py", "return f\"{self.country}")
				if right == nil {
					t.Fatalf("DiscountRule.__str__ is not in the pack")
				}
				if wrong != nil && wrong.Score >= right.Score {
					t.Errorf("TaxRule.__str__'s item scores %.3f, DiscountRule.__str__'s %.3f", wrong.Score, right.Score)
				}
			},
		},
		{
			name: "class-used-by-best", budget: 1500,
			req: Request{Query: "scan_basket builds the basket from the scanned skus"},
			check: func(t *testing.T, p packs.Pack) {
				if it := itemNamed(p, "scan_basket"); it == nil || it.Shortened {
					t.Errorf("scan_basket, the function the text is about, is not in whole: %+v", it)
				}
				for _, it := range p.Items {
					if it.Symbol == "Cart" && strings.Contains(it.Text, "def total") {
						t.Errorf("the class Cart, which scan_basket uses, is shown with its methods (%s):\n%s", it.Reason, it.Text)
					}
				}
			},
		},
		{
			name: "callee-of-selection", budget: 300,
			req: Request{Selections: []Selection{{Path: "shop/calls.go", StartLine: 4, EndLine: 6}}},
			check: func(t *testing.T, p packs.Pack) {
				if it := itemNamed(p, "PriceWithTax"); it == nil || it.Shortened {
					t.Errorf("the callee PriceWithTax is not in whole: %+v", it)
				}
				if p.Dropped != 0 {
					t.Errorf("%d dropped in a pack with room", p.Dropped)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var golden strings.Builder
			var first []string
			for _, format := range packs.Formats {
				req := c.req
				req.Budget, req.Format = c.budget, format
				s := e.Snapshot()
				p, err := Pack(t.Context(), s, req)
				s.Release()
				if err != nil {
					t.Fatal(err)
				}
				if p.Tokens > c.budget {
					t.Errorf("%s: %d tokens, budget %d", format, p.Tokens, c.budget)
				}
				items := itemLines(p)
				for _, it := range p.Items {
					if n := linesShown(it.Text); n != it.EndLine-it.StartLine+1 {
						t.Errorf("%s: %s:%d-%d stands for %d lines (markers counted)", format, it.Path, it.StartLine, it.EndLine, n)
					}
				}
				switch format {
				case packs.FormatMarkdown:
					first = items
					fmt.Fprintf(&golden, "budget %d: %d tokens, %d dropped\n%s", c.budget, p.Tokens, p.Dropped, strings.Join(items, ""))
					c.check(t, p)
				case packs.FormatJSON, packs.FormatPlain:
					if strings.Join(items, "") != strings.Join(first, "") {
						t.Errorf("%s carries other items than markdown:\n%s\nmarkdown:\n%s", format, strings.Join(items, ""), strings.Join(first, ""))
					}
				}
			}
			testutil.Golden(t, filepath.Join("testdata", "packs", c.name+".golden"), []byte(golden.String()))
		})
	}
}

// itemLines renders a pack's items one a line: place, symbol, kind, reason,
// and whether it was shortened.
func itemLines(p packs.Pack) []string {
	var out []string
	for _, it := range p.Items {
		short := ""
		if it.Shortened {
			short = " (shortened)"
		}
		out = append(out, fmt.Sprintf("%s:%d-%d %s (%s) · %s%s\n", it.Path, it.StartLine, it.EndLine, it.Symbol, it.Kind, it.Reason, short))
	}
	return out
}

// linesShown counts the source lines a text stands for: its lines, each
// elision marker as the lines it says it hides.
func linesShown(text string) int {
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if m := regexp.MustCompile(`… (\d+) (?:more )?lines? (?:elided|cut)`).FindStringSubmatch(l); m != nil {
			k, _ := strconv.Atoi(m[1])
			n += k
			continue
		}
		n++
	}
	return n
}

// itemShowing returns the item of path whose text holds text.
func itemShowing(p packs.Pack, path, text string) *packs.Item {
	for i := range p.Items {
		if p.Items[i].Path == path && strings.Contains(p.Items[i].Text, text) {
			return &p.Items[i]
		}
	}
	return nil
}

func itemNamed(p packs.Pack, symbol string) *packs.Item {
	for i := range p.Items {
		if p.Items[i].Symbol == symbol {
			return &p.Items[i]
		}
	}
	return nil
}

// readTxtar reads a txtar-style archive (a comment, then "-- name --"
// sections) into file contents by name.
func readTxtar(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	name := ""
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") {
			name = strings.TrimSuffix(strings.TrimPrefix(trimmed, "-- "), " --")
			files[name] = ""
			continue
		}
		if name != "" {
			files[name] += line
		}
	}
	return files
}
