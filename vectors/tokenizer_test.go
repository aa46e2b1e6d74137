package vectors

import (
	"bufio"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/context-ls/context-ls/internal/testutil"

	"golang.org/x/text/unicode/norm"
)

// Tokenizer parity: the expected ids in testdata/tokenizer_parity.golden.json
// come from the small reference implementations below (BERT basic tokenizer +
// WordPiece from vocab.txt; SentencePiece-style Unigram Viterbi from the
// tokenizer.json scores), written from the algorithms' descriptions and
// independent of github.com/sugarme/tokenizer. `go test -run Parity -update`
// rewrites the file from the references.

type parityCase struct {
	Text string  `json:"text"`
	IDs  []int64 `json:"ids"`
}

type parityGolden struct {
	MiniLM  []parityCase `json:"all-MiniLM-L6-v2"`
	UseLite []parityCase `json:"use-lite"`
}

var miniLMParityTexts = []string{
	"Hello, world!",
	"func (s *Server) Close() error { return nil }",
	"// ReadFile reads the named file and returns the contents.",
	"Café naïve résumé",
	"a\u00a0b",
	"\ufeffpackage main",
	"中文 tokens",
	"snake_case_identifier and CamelCaseIdentifier",
	`x := map[string]int{"a": 1}`,
	"tab\tseparated\nlines\r\n",
	strings.Repeat("a", 120) + " tail",
	"unaffable ¿Qué? ¡Sí!",
}

var useLiteParityTexts = []string{
	"The cat sat on the mat.",
	"How do I open a file in Go?",
	"func (s *Server) Close() error { return nil }",
	"ReadFile reads the named file and returns the contents.",
	"Ｆｕｌｌｗｉｄｔｈ letters",
	"unknown ☃ snowman",
	"tabs\tand\nnewlines",
	"i18n and l10n: naïve café",
}

// TestTokenizerParity checks Tokenizer against the ids of the reference
// tokenizers, checked in as testdata/tokenizer_parity.golden.json: for
// all-MiniLM-L6-v2 always, for use-lite when ../shared has it.
func TestTokenizerParity(t *testing.T) {
	want := readParityGolden(t)
	for _, tc := range []struct {
		model string
		cases []parityCase
	}{{miniLM, want.MiniLM}, {"use-lite", want.UseLite}} {
		t.Run(tc.model, func(t *testing.T) {
			tok, err := LoadTokenizer(tokenizerFile(t, tc.model), 512)
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.cases) == 0 {
				t.Fatal("no golden cases")
			}
			for _, c := range tc.cases {
				got, err := tok.Encode(c.Text)
				if err != nil {
					t.Errorf("Encode(%q): %v", c.Text, err)
					continue
				}
				if !slices.Equal(got.IDs, c.IDs) {
					t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got.IDs, c.IDs)
				}
			}
		})
	}
}

// TestTokenizerReferences checks that the reference tokenizers, built from
// the vocabularies in ../shared/models, still produce the checked-in
// golden ids; with -update it rewrites the golden from them.
func TestTokenizerReferences(t *testing.T) {
	refBert := loadRefWordPiece(t, filepath.Join(sharedModel(t, miniLM), "vocab.txt"))
	refUni := loadRefUnigram(t, tokenizerFile(t, "use-lite"))

	computed := parityGolden{}
	for _, s := range miniLMParityTexts {
		computed.MiniLM = append(computed.MiniLM, parityCase{s, refBert.encode(s)})
	}
	for _, s := range useLiteParityTexts {
		computed.UseLite = append(computed.UseLite, parityCase{s, refUni.encode(s)})
	}
	if *testutil.Update {
		data, err := json.MarshalIndent(computed, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		// One line per id list.
		data = regexp.MustCompile(`\[[\s\d,]*\]`).ReplaceAllFunc(data, func(b []byte) []byte {
			return regexp.MustCompile(`\s+`).ReplaceAll(b, nil)
		})
		if err := os.WriteFile(parityGoldenFile, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readParityGolden(t)
	if !slices.EqualFunc(computed.MiniLM, want.MiniLM, caseEqual) || !slices.EqualFunc(computed.UseLite, want.UseLite, caseEqual) {
		t.Fatalf("reference tokenizers disagree with %s (run with -update if the texts changed)", parityGoldenFile)
	}
}

// parityGoldenFile holds the reference tokenizers' ids of the parity texts.
var parityGoldenFile = filepath.Join("testdata", "tokenizer_parity.golden.json")

func readParityGolden(t *testing.T) parityGolden {
	t.Helper()
	data, err := os.ReadFile(parityGoldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var g parityGolden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func caseEqual(a, b parityCase) bool { return a.Text == b.Text && slices.Equal(a.IDs, b.IDs) }

// refWordPiece is a reference BERT tokenizer (uncased): clean-up, CJK
// spacing, lower-casing, accent stripping, whitespace and punctuation
// splitting, then greedy longest-match-first WordPiece with "##".
type refWordPiece struct {
	vocab map[string]int64
}

func loadRefWordPiece(t *testing.T, path string) *refWordPiece {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := &refWordPiece{vocab: map[string]int64{}}
	sc := bufio.NewScanner(f)
	var i int64
	for sc.Scan() {
		r.vocab[strings.TrimRight(sc.Text(), "\r")] = i
		i++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *refWordPiece) encode(text string) []int64 {
	var cleaned []rune
	for _, c := range text {
		switch {
		case c == 0 || c == 0xfffd || (c != '\t' && c != '\n' && c != '\r' && (unicode.Is(unicode.Cc, c) || unicode.Is(unicode.Cf, c))):
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || unicode.Is(unicode.Zs, c):
			cleaned = append(cleaned, ' ')
		case (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0xf900 && c <= 0xfaff) ||
			(c >= 0x20000 && c <= 0x2a6df) || (c >= 0x2a700 && c <= 0x2ceaf) || (c >= 0x2f800 && c <= 0x2fa1f):
			cleaned = append(cleaned, ' ', c, ' ')
		default:
			cleaned = append(cleaned, c)
		}
	}
	s := strings.ToLower(string(cleaned))
	var stripped []rune
	for _, c := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, c) {
			stripped = append(stripped, c)
		}
	}
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = nil
		}
	}
	for _, c := range stripped {
		switch {
		case c == ' ':
			flush()
		case isRefPunct(c):
			flush()
			words = append(words, string(c))
		default:
			cur = append(cur, c)
		}
	}
	flush()
	ids := []int64{r.vocab["[CLS]"]}
	for _, w := range words {
		ids = append(ids, r.wordPiece(w)...)
	}
	return append(ids, r.vocab["[SEP]"])
}

func isRefPunct(c rune) bool {
	return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) || unicode.IsPunct(c)
}

func (r *refWordPiece) wordPiece(w string) []int64 {
	runes := []rune(w)
	if len(runes) > 100 {
		return []int64{r.vocab["[UNK]"]}
	}
	var out []int64
	for start := 0; start < len(runes); {
		end := len(runes)
		found := int64(-1)
		for ; end > start; end-- {
			piece := string(runes[start:end])
			if start > 0 {
				piece = "##" + piece
			}
			if id, ok := r.vocab[piece]; ok {
				found = id
				break
			}
		}
		if found < 0 {
			return []int64{r.vocab["[UNK]"]}
		}
		out = append(out, found)
		start = end
	}
	return out
}

// refUnigram is a reference Unigram tokenizer as use-lite's original: NFKC,
// U+2581 prefix and spaces, Viterbi over the piece scores; a position where no
// one-character piece starts may use the unknown id 0 (score: lowest piece
// score - 10), and runs of unknowns merge.
type refUnigram struct {
	pieces   map[string]pieceScore
	maxLen   int // in runes
	unkScore float64
}

type pieceScore struct {
	id    int64
	score float64
}

func loadRefUnigram(t *testing.T, path string) *refUnigram {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Model struct {
			Vocab [][2]any `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	r := &refUnigram{pieces: map[string]pieceScore{}}
	minScore := math.Inf(1)
	for i, v := range cfg.Model.Vocab {
		p, score := v[0].(string), v[1].(float64)
		r.pieces[p] = pieceScore{int64(i), score}
		r.maxLen = max(r.maxLen, utf8.RuneCountInString(p))
		minScore = math.Min(minScore, score)
	}
	r.unkScore = minScore - 10
	return r
}

func (r *refUnigram) encode(text string) []int64 {
	text = norm.NFKC.String(text)
	if text == "" {
		return nil
	}
	runes := []rune("\u2581" + strings.ReplaceAll(text, " ", "\u2581"))
	n := len(runes)
	best := make([]float64, n+1)
	from := make([]int, n+1)
	id := make([]int64, n+1)
	for i := 1; i <= n; i++ {
		best[i] = math.Inf(-1)
	}
	for start := 0; start < n; start++ {
		if math.IsInf(best[start], -1) {
			continue
		}
		single := false
		for l := 1; l <= r.maxLen && start+l <= n; l++ {
			p, ok := r.pieces[string(runes[start:start+l])]
			if !ok {
				continue
			}
			if l == 1 {
				single = true
			}
			if s := best[start] + p.score; s > best[start+l] {
				best[start+l], from[start+l], id[start+l] = s, start, p.id
			}
		}
		if !single {
			if s := best[start] + r.unkScore; s > best[start+1] {
				best[start+1], from[start+1], id[start+1] = s, start, 0
			}
		}
	}
	var rev []int64
	for end := n; end > 0; end = from[end] {
		rev = append(rev, id[end])
	}
	var out []int64
	for i := len(rev) - 1; i >= 0; i-- {
		if rev[i] == 0 && len(out) > 0 && out[len(out)-1] == 0 {
			continue
		}
		out = append(out, rev[i])
	}
	return out
}

// TestTokenizerLongText checks that the windowed (WordPiece) and piece-wise
// (Unigram) encodings of a long text equal the head of the library's
// encoding of the whole text in one call.
func TestTokenizerLongText(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(goroot(t), "src", "net", "http", "server.go"))
	if err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		model    string
		nSpecial int
		size     int // the library's Unigram is super-linear: keep its text short
		maxSeqs  []int
	}{
		{miniLM, 2, 24000, []int{16, 128, 512, 4000}},
		{"use-lite", 0, 2500, []int{16, 128, 512, 4000}},
	} {
		t.Run(tc.model, func(t *testing.T) {
			text := strings.ToValidUTF8(string(src[:tc.size]), "")
			path := tokenizerFile(t, tc.model)
			whole, err := LoadTokenizer(path, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := whole.encodeSafe(whole.Prepare(text))
			if err != nil {
				t.Fatal(err)
			}
			want := toEncoded(enc, 1<<20)
			for _, maxSeq := range tc.maxSeqs {
				tok, err := LoadTokenizer(path, maxSeq)
				if err != nil {
					t.Fatal(err)
				}
				got, err := tok.Encode(text)
				if err != nil {
					t.Fatal(err)
				}
				if n := min(maxSeq, len(want.IDs)); len(got.IDs) != n {
					t.Fatalf("maxSeq %d: %d ids, want %d", maxSeq, len(got.IDs), n)
				}
				if len(got.IDs) == len(want.IDs) {
					if !slices.Equal(got.IDs, want.IDs) {
						t.Errorf("maxSeq %d: ids differ from the whole-text encoding", maxSeq)
					}
					continue
				}
				head := want.IDs[:maxSeq-tc.nSpecial/2]
				if !slices.Equal(got.IDs[:len(head)], head) {
					t.Errorf("maxSeq %d: head differs from the whole-text encoding", maxSeq)
				}
				if tc.nSpecial == 2 && got.IDs[maxSeq-1] != want.IDs[len(want.IDs)-1] {
					t.Errorf("maxSeq %d: last id %d, want [SEP] %d", maxSeq, got.IDs[maxSeq-1], want.IDs[len(want.IDs)-1])
				}
			}
		})
	}
}

func TestNextPiece(t *testing.T) {
	long := strings.Repeat("x", 600)
	tests := []struct {
		in, head, rest string
	}{
		{"short", "short", ""},
		{"short text", "short", "text"},
		{"aaaa bbbb cccc", "aaaa", "bbbb cccc"},
		{"aaaa  bbbb", "aaaa ", "bbbb"},
		{" aaaaaaa", " aaaaaaa", ""},
		{"aaaaaaaaaaaa bb", "aaaaaaaaaaaa", "bb"},
		{long + " z", long[:32], long[32:] + " z"},
	}
	for _, tc := range tests {
		head, rest := nextPiece(tc.in, 8)
		if head != tc.head || rest != tc.rest {
			t.Errorf("nextPiece(%.20q) = %.20q, %.20q; want %.20q, %.20q", tc.in, head, rest, tc.head, tc.rest)
		}
	}
}

func goroot(t testing.TB) string {
	t.Helper()
	out, err := runGoEnv("GOROOT")
	if err != nil || out == "" {
		t.Skipf("no GOROOT: %v", err)
	}
	return out
}

func TestTokenizerBadInput(t *testing.T) {
	tok, err := LoadTokenizer(tokenizerFile(t, miniLM), 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"\xff\xfe\xfd invalid utf-8 \xc3\x28",
		"\x00\x01\x02 leading controls",
		"\x00\x00",
		"\ufeff",
		strings.Repeat("\u0301", 50),
		strings.Repeat("x", maxWindow+1000),
	} {
		enc, err := tok.Encode(s)
		if err != nil {
			t.Errorf("Encode(%.20q) = %v", s, err)
			continue
		}
		if len(enc.IDs) < 2 || len(enc.IDs) > 64 {
			t.Errorf("Encode(%.20q): %d ids", s, len(enc.IDs))
		}
	}
	if _, err := LoadTokenizer(filepath.Join(t.TempDir(), "missing.json"), 64); !errors.Is(err, ErrModelMissing) {
		t.Errorf("LoadTokenizer(missing) = %v", err)
	}
	bad := filepath.Join(t.TempDir(), "tokenizer.json")
	os.WriteFile(bad, []byte(`{"model": {"type": "Nonsense"}}`), 0o644)
	if _, err := LoadTokenizer(bad, 64); err == nil {
		t.Error("LoadTokenizer(nonsense) succeeded")
	}
	os.WriteFile(bad, []byte(`{"model": `), 0o644)
	if _, err := LoadTokenizer(bad, 64); err == nil {
		t.Error("LoadTokenizer(truncated json) succeeded")
	}
}

func FuzzTokenizerEncode(f *testing.F) {
	for _, s := range append(append([]string{}, miniLMParityTexts...), useLiteParityTexts...) {
		f.Add(s)
	}
	f.Add("\xff\x00\u2581\u3000:x")
	paths := []string{tokenizerFile(f, miniLM)}
	if dir, ok := sharedModelDir(f, "use-lite"); ok {
		paths = append(paths, filepath.Join(dir, TokenizerFileName))
	}
	var toks []*Tokenizer
	for _, p := range paths {
		tok, err := LoadTokenizer(p, 64)
		if err != nil {
			f.Fatal(err)
		}
		toks = append(toks, tok)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range toks {
			enc, err := tok.Encode(s)
			if err != nil {
				if !errors.Is(err, ErrTokenize) {
					t.Fatalf("Encode(%q) = %v, not ErrTokenize", s, err)
				}
				continue
			}
			if len(enc.IDs) > 64 || len(enc.IDs) != len(enc.Types) {
				t.Fatalf("Encode(%q): %d ids, %d types", s, len(enc.IDs), len(enc.Types))
			}
			for _, id := range enc.IDs {
				if id < 0 || int(id) >= tok.vocab {
					t.Fatalf("Encode(%q): id %d outside the vocabulary", s, id)
				}
			}
		}
	})
}
