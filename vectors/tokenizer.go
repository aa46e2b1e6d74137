package vectors

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
	"golang.org/x/text/unicode/norm"
)

// Tokenizer turns text into model input ids with a HuggingFace tokenizer.json
// (WordPiece for the BERT family, Unigram for use-lite), through
// github.com/sugarme/tokenizer with these guards and fixes:
//
//   - truncation is set to the model's MaxSeq and keeps the head of the text
//     (chunks put the signature and doc first); padding is off, the Embedder
//     pads each batch to its longest item;
//   - invalid UTF-8 is replaced before encoding, and a panic inside the
//     tokenizer becomes an error wrapping ErrTokenize;
//   - long texts are cut to a window that still yields MaxSeq tokens, so a
//     1 MB input costs what its head costs (at most maxWindow bytes are
//     looked at);
//   - a Unigram tokenizer without pre-tokenizer (use-lite) is fed the text in
//     space-delimited pieces: the library's Viterbi is super-linear in the
//     input length (16 KB took 10 s), and since no piece of such a
//     vocabulary contains an inner U+2581, the concatenated ids are those
//     of the whole text;
//   - the normalisation the library gets wrong is done here first: NFKC
//     (use-lite), and for BERT normalizers the control-character cleanup,
//     Unicode whitespace, lower-casing and accent stripping of the reference
//     implementation.
//
// A Tokenizer is safe for concurrent use.
type Tokenizer struct {
	tk       *tokenizer.Tokenizer
	maxSeq   int
	nSpecial int // tokens the post-processor adds ([CLS] … [SEP])
	nfkc     bool
	bert     *bertNormalizer
	vocab    int
	// pieceWise: encode the text in space-delimited pieces (see above).
	pieceWise bool
}

// maxWindow bounds the bytes of one text the tokenizer looks at.
const maxWindow = 64 << 10

// pieceBytes is the target size of one piece in pieceWise mode.
const pieceBytes = 128

// bertNormalizer mirrors the BertNormalizer settings of a tokenizer.json.
type bertNormalizer struct {
	cleanText    bool
	chinese      bool
	lowercase    bool
	stripAccents bool
}

// Encoded is one tokenized text.
type Encoded struct {
	IDs   []int64
	Types []int64
}

// LoadTokenizer loads tokenizer.json at path for sequences of at most maxSeq
// tokens (special tokens included).
func LoadTokenizer(path string, maxSeq int) (tok *Tokenizer, err error) {
	if maxSeq < 2 {
		return nil, fmt.Errorf("load tokenizer %s: max sequence %d too small", path, maxSeq)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %s", ErrModelMissing, path)
		}
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	var cfg struct {
		Normalizer    json.RawMessage `json:"normalizer"`
		PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
		PostProcessor json.RawMessage `json:"post_processor"`
		Model         struct {
			Type string `json:"type"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	t := &Tokenizer{maxSeq: maxSeq}
	if err := t.readNormalizer(cfg.Normalizer); err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	defer func() {
		if r := recover(); r != nil {
			tok, err = nil, fmt.Errorf("load tokenizer %s: %w: panic: %v", path, ErrTokenize, r)
		}
	}()
	tk, err := pretrained.FromReader(strings.NewReader(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	if pp := tk.GetPostProcessor(); pp != nil {
		t.nSpecial = pp.AddedTokens(false)
	}
	if t.nSpecial >= maxSeq {
		return nil, fmt.Errorf("load tokenizer %s: %d special tokens leave no room in %d", path, t.nSpecial, maxSeq)
	}
	// Explicit truncation: keep the head, maxSeq tokens with the specials.
	// No padding: the tokenizer.json of MiniLM pads to a fixed 128, the
	// Embedder pads to the longest item of each batch instead.
	tk.WithTruncation(&tokenizer.TruncationParams{MaxLength: maxSeq, Strategy: tokenizer.LongestFirst, Stride: 0})
	tk.WithPadding(nil)
	t.tk = tk
	t.vocab = tk.GetVocabSize(true)
	t.pieceWise = cfg.Model.Type == "Unigram" && isNull(cfg.PreTokenizer) && isNull(cfg.PostProcessor) && !innerMetaspace(tk)
	return t, nil
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// innerMetaspace reports whether a vocabulary piece has U+2581 after its
// first character (then pieces can span words and pieceWise is wrong).
func innerMetaspace(tk *tokenizer.Tokenizer) bool {
	for piece := range tk.GetVocab(false) {
		if _, size := utf8.DecodeRuneInString(piece); strings.Contains(piece[size:], "\u2581") {
			return true
		}
	}
	return false
}

// readNormalizer records which normalisation steps to do before the library.
func (t *Tokenizer) readNormalizer(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var n struct {
		Type         string            `json:"type"`
		Normalizers  []json.RawMessage `json:"normalizers"`
		CleanText    *bool             `json:"clean_text"`
		Chinese      *bool             `json:"handle_chinese_chars"`
		Lowercase    *bool             `json:"lowercase"`
		StripAccents *bool             `json:"strip_accents"`
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("normalizer: %w", err)
	}
	switch n.Type {
	case "Sequence":
		for _, sub := range n.Normalizers {
			if err := t.readNormalizer(sub); err != nil {
				return err
			}
		}
	case "NFKC":
		t.nfkc = true
	case "BertNormalizer":
		b := &bertNormalizer{cleanText: true, chinese: true, lowercase: true}
		if n.CleanText != nil {
			b.cleanText = *n.CleanText
		}
		if n.Chinese != nil {
			b.chinese = *n.Chinese
		}
		if n.Lowercase != nil {
			b.lowercase = *n.Lowercase
		}
		// strip_accents null follows lowercase, as in the reference.
		b.stripAccents = b.lowercase
		if n.StripAccents != nil {
			b.stripAccents = *n.StripAccents
		}
		t.bert = b
	}
	return nil
}

// MaxSeq returns the longest sequence Encode produces.
func (t *Tokenizer) MaxSeq() int { return t.maxSeq }

// Prepare returns text as the library will see it: valid UTF-8 and
// pre-normalised. Encode calls it; it is exported for tests and callers that
// hash the exact model input.
func (t *Tokenizer) Prepare(text string) string {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, " ")
	}
	if t.nfkc && !norm.NFKC.IsNormalString(text) {
		text = norm.NFKC.String(text)
	}
	if t.bert != nil {
		text = t.bert.apply(text)
	}
	return text
}

// apply performs the BERT normalisation the reference does and the library
// gets wrong or could crash on (sugarme's clean-up of leading control
// characters goes through a log.Fatal path).
func (b *bertNormalizer) apply(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	changed := false
	for _, r := range s {
		switch {
		case b.cleanText && (r == 0 || r == utf8.RuneError || isBertControl(r)):
			changed = true
			continue
		case b.cleanText && r != ' ' && isBertSpace(r):
			sb.WriteByte(' ')
			changed = true
			continue
		}
		sb.WriteRune(r)
	}
	if changed {
		s = sb.String()
	}
	if b.lowercase {
		s = strings.ToLower(s)
	}
	if b.stripAccents && !isASCII(s) {
		d := norm.NFD.String(s)
		sb.Reset()
		sb.Grow(len(d))
		for _, r := range d {
			if !unicode.Is(unicode.Mn, r) {
				sb.WriteRune(r)
			}
		}
		s = sb.String()
	}
	return s
}

func isBertControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf)
}

func isBertSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Encode tokenizes text, keeping the head when it is longer than MaxSeq. Errors
// (including recovered tokenizer panics) wrap ErrTokenize.
func (t *Tokenizer) Encode(text string) (Encoded, error) {
	text = t.Prepare(text)
	if t.pieceWise {
		return t.encodePieces(text)
	}
	// Bytes per token is at least one for these vocabularies (special tokens
	// aside), so a window of 8 bytes per token usually holds enough text; the
	// window doubles when it does not. Windows end at a space, where both
	// WordPiece (pre-split on whitespace) and this Unigram vocabulary (no
	// piece contains an inner U+2581) start a new token, so the head's
	// tokens are the same as for the whole text.
	window := max(t.maxSeq*8, 1024)
	for {
		part, cut := headWindow(text, window)
		enc, err := t.encodeSafe(part)
		if err != nil {
			return Encoded{}, err
		}
		if !cut || len(enc.Overflowing) > 0 || window >= maxWindow {
			return toEncoded(enc, t.maxSeq), nil
		}
		window = min(window*2, maxWindow)
	}
}

// encodePieces encodes text piece by piece until maxSeq ids are collected.
// Pieces end before a space, which is dropped: the library's Prepend
// normaliser gives every piece a leading U+2581, which stands for the text
// start on the first piece and for the dropped space on the others. A run
// of more than 4*pieceBytes bytes without a space is cut anyway (then one
// extra U+2581 appears at the cut: such inputs are not prose or code).
func (t *Tokenizer) encodePieces(text string) (Encoded, error) {
	var out Encoded
	rest := text
	for len(rest) > 0 && len(out.IDs) < t.maxSeq {
		var piece string
		piece, rest = nextPiece(rest, pieceBytes)
		enc, err := t.encodeSafe(piece)
		if err != nil {
			return Encoded{}, err
		}
		e := toEncoded(enc, t.maxSeq-len(out.IDs))
		out.IDs = append(out.IDs, e.IDs...)
		out.Types = append(out.Types, e.Types...)
	}
	return out, nil
}

// nextPiece splits s into a non-empty head of about n bytes ending before a
// space, and the rest after that space.
func nextPiece(s string, n int) (string, string) {
	if len(s) <= n {
		return s, ""
	}
	for i := min(n, len(s)-1); i >= 1; i-- {
		if s[i] == ' ' {
			return s[:i], s[i+1:]
		}
	}
	limit := min(4*n, len(s)-1)
	for i := n + 1; i <= limit; i++ {
		if s[i] == ' ' {
			return s[:i], s[i+1:]
		}
	}
	if len(s) <= 4*n {
		return s, ""
	}
	cut := 4 * n
	for cut > 1 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], s[cut:]
}

// headWindow returns the head of s of at most n bytes, ending before a space
// when one is near the limit, and whether s was cut.
func headWindow(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	// Prefer a cut at a space within the last 256 bytes.
	for i := cut; i > 0 && i > cut-256; i-- {
		if s[i] == ' ' || s[i] == '\n' || s[i] == '\t' {
			return s[:i], true
		}
	}
	return s[:cut], true
}

func (t *Tokenizer) encodeSafe(text string) (enc *tokenizer.Encoding, err error) {
	defer func() {
		if r := recover(); r != nil {
			enc, err = nil, fmt.Errorf("%w: panic: %v", ErrTokenize, r)
		}
	}()
	enc, err = t.tk.EncodeSingle(text, true)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenize, err)
	}
	if enc == nil {
		return nil, fmt.Errorf("%w: no encoding", ErrTokenize)
	}
	return enc, nil
}

func toEncoded(enc *tokenizer.Encoding, maxSeq int) Encoded {
	n := min(len(enc.Ids), maxSeq)
	out := Encoded{IDs: make([]int64, n), Types: make([]int64, n)}
	for i := 0; i < n; i++ {
		out.IDs[i] = int64(enc.Ids[i])
		if i < len(enc.TypeIds) {
			out.Types[i] = int64(enc.TypeIds[i])
		}
	}
	return out
}
