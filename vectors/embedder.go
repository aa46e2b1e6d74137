package vectors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	ort "github.com/yalue/onnxruntime_go"
)

// InputKind says what a text is embedded as.
type InputKind int

const (
	// Document is a text to be found (a chunk).
	Document InputKind = iota
	// Query is a search query; the model's QueryPrefix is prepended.
	Query
)

// String returns "document" or "query".
func (k InputKind) String() string {
	switch k {
	case Document:
		return "document"
	case Query:
		return "query"
	}
	return "InputKind(" + strconv.Itoa(int(k)) + ")"
}

// DefaultIntraOpThreads is the ONNX Runtime intra-op thread count used when
// Options.IntraOpThreads is 0. One thread beat two on the project's shared
// 2-core machine for both use-lite (49.7 vs 17.6 chunks/s, batch 32) and the
// MiniLM architecture (10.3 vs 6.5 chunks/s), measured with
// BenchmarkEmbedPipelineVsBare under load; DEPENDENCY-FACTS found the same
// for use-lite on a quiet machine. The second core is better spent
// tokenizing the next batch, which the Embedder does concurrently.
const DefaultIntraOpThreads = 1

// DefaultMaxBatchTokens is the default bound on padded tokens (batch rows ×
// longest row) per ONNX Runtime run.
const DefaultMaxBatchTokens = 8192

// maxBatchRows caps the rows of one run, so short texts do not make huge
// batches and cancellation stays responsive.
const maxBatchRows = 128

// Options tune an Embedder.
type Options struct {
	// RuntimePath is the configured ONNX Runtime library (file or
	// directory), passed to FindRuntime; "" uses the environment variable and
	// the default cache.
	RuntimePath string
	// IntraOpThreads is ONNX Runtime's intra-op thread count; 0 means
	// DefaultIntraOpThreads.
	IntraOpThreads int
	// MaxBatchTokens bounds padded tokens per run; 0 means
	// DefaultMaxBatchTokens. It is raised to the model's MaxSeq if smaller.
	MaxBatchTokens int
}

// Embedder embeds texts with one model. Its methods are safe for concurrent
// use; Embed calls run one at a time.
type Embedder struct {
	spec      ModelSpec
	id        string
	tok       *Tokenizer
	padID     int64
	tokenOut  bool // output is [batch, seq, dim] (mean/CLS pooling)
	maxTokens int
	maxRows   int
	threads   int

	mu      sync.Mutex
	closed  bool
	session *ort.DynamicAdvancedSession
	runOpts *ort.RunOptions
	// Backing memory of the tensors, allocated once and shared by every
	// shape: one batch runs at a time.
	inputBufs [][]int64 // parallel to spec.Inputs
	outBuf    []float32
	shapes    map[[2]int]*shapeTensors
	shapeLRU  [][2]int
}

// shapeTensors are the ONNX values of one batch shape, reused across runs.
type shapeTensors struct {
	inputs []ort.Value
	output []ort.Value
}

const maxCachedShapes = 16

// Open loads the model spec from dir (which holds the spec's files) and
// prepares an ONNX Runtime session. Missing files give an error wrapping
// ErrModelMissing; a missing or unloadable runtime library one wrapping
// ErrRuntimeUnavailable; a model whose inputs or outputs differ from the spec
// one wrapping ErrModelMismatch.
func Open(spec ModelSpec, dir string, opts Options) (*Embedder, error) {
	spec = cloneSpec(spec)
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	modelPath := filepath.Join(dir, ModelFileName)
	tokPath := filepath.Join(dir, TokenizerFileName)
	var missing []string
	for _, p := range []string{modelPath, tokPath} {
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: model %s: %s", ErrModelMissing, spec.Name, strings.Join(missing, ", "))
	}
	libPath, err := FindRuntime(opts.RuntimePath)
	if err != nil {
		return nil, err
	}
	if err := ensureRuntime(libPath); err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(tokPath, spec.MaxSeq)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", spec.Name, err)
	}
	_, sum, err := hashFile(modelPath)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", spec.Name, err)
	}

	e := &Embedder{
		spec:      spec,
		id:        spec.Name + "@" + sum[:16],
		tok:       tok,
		tokenOut:  spec.Pooling != PoolingModel,
		maxTokens: opts.MaxBatchTokens,
		maxRows:   maxBatchRows,
		threads:   opts.IntraOpThreads,
		shapes:    make(map[[2]int]*shapeTensors),
	}
	if e.maxTokens <= 0 {
		e.maxTokens = DefaultMaxBatchTokens
	}
	e.maxTokens = max(e.maxTokens, spec.MaxSeq)
	if e.threads <= 0 {
		e.threads = DefaultIntraOpThreads
	}
	if id, ok := tok.tk.TokenToId("[PAD]"); ok {
		e.padID = int64(id)
	}
	if err := e.checkModel(modelPath); err != nil {
		return nil, err
	}
	if err := e.newSession(modelPath); err != nil {
		return nil, err
	}
	return e, nil
}

// checkModel compares the graph's inputs and outputs with the spec.
func (e *Embedder) checkModel(modelPath string) error {
	// A session without graph optimisations loads several times faster and
	// is enough to read the declared inputs and outputs.
	so, err := ort.NewSessionOptions()
	if err != nil {
		return fmt.Errorf("open %s: session options: %w", e.spec.Name, err)
	}
	defer so.Destroy()
	if err := so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelDisableAll); err != nil {
		return fmt.Errorf("open %s: session options: %w", e.spec.Name, err)
	}
	ins, outs, err := ort.GetInputOutputInfoWithOptions(modelPath, so)
	if err != nil {
		return fmt.Errorf("%w: %s: reading the graph: %w", ErrModelMismatch, e.spec.Name, err)
	}
	var problems []string
	have := map[string]ort.InputOutputInfo{}
	for _, in := range ins {
		have[in.Name] = in
	}
	for _, name := range e.spec.Inputs {
		in, ok := have[name]
		switch {
		case !ok:
			problems = append(problems, "no input "+name)
		case in.DataType != ort.TensorElementDataTypeInt64:
			problems = append(problems, fmt.Sprintf("input %s is %s, want int64", name, in.DataType))
		}
		delete(have, name)
	}
	for name := range have {
		problems = append(problems, "input "+name+" is not in the spec")
	}
	var out *ort.InputOutputInfo
	for i := range outs {
		if outs[i].Name == e.spec.Output {
			out = &outs[i]
		}
	}
	wantRank := 2
	if e.tokenOut {
		wantRank = 3
	}
	switch {
	case out == nil:
		names := make([]string, len(outs))
		for i, o := range outs {
			names[i] = o.Name
		}
		problems = append(problems, fmt.Sprintf("no output %s (outputs: %s)", e.spec.Output, strings.Join(names, ", ")))
	case out.DataType != ort.TensorElementDataTypeFloat:
		problems = append(problems, fmt.Sprintf("output %s is %s, want float", out.Name, out.DataType))
	case len(out.Dimensions) != wantRank:
		problems = append(problems, fmt.Sprintf("output %s has rank %d, want %d for %s pooling", out.Name, len(out.Dimensions), wantRank, e.spec.Pooling))
	default:
		if d := out.Dimensions[len(out.Dimensions)-1]; d > 0 && int(d) != e.spec.Dim {
			problems = append(problems, fmt.Sprintf("output %s has dimension %d, want %d", out.Name, d, e.spec.Dim))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s: %s", ErrModelMismatch, e.spec.Name, strings.Join(problems, "; "))
	}
	return nil
}

func (e *Embedder) newSession(modelPath string) (err error) {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return fmt.Errorf("open %s: session options: %w", e.spec.Name, err)
	}
	defer so.Destroy()
	for _, set := range []func() error{
		func() error { return so.SetIntraOpNumThreads(e.threads) },
		func() error { return so.SetInterOpNumThreads(1) },
		func() error { return so.SetExecutionMode(ort.ExecutionModeSequential) },
		func() error { return so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll) },
	} {
		if err := set(); err != nil {
			return fmt.Errorf("open %s: session options: %w", e.spec.Name, err)
		}
	}
	e.session, err = ort.NewDynamicAdvancedSession(modelPath, e.spec.Inputs, []string{e.spec.Output}, so)
	if err != nil {
		return fmt.Errorf("open %s: creating the session: %w", e.spec.Name, err)
	}
	e.runOpts, err = ort.NewRunOptions()
	if err != nil {
		e.session.Destroy()
		e.session = nil
		return fmt.Errorf("open %s: run options: %w", e.spec.Name, err)
	}
	return nil
}

// ModelID identifies the model for cache keys: the spec name and the first
// 16 hex digits of the model file's sha256, e.g. "use-lite@9f21c35e029fb550".
func (e *Embedder) ModelID() string { return e.id }

// Dim returns the length of the vectors.
func (e *Embedder) Dim() int { return e.spec.Dim }

// Spec returns the model's spec.
func (e *Embedder) Spec() ModelSpec { return cloneSpec(e.spec) }

// Tokenizer returns the model's tokenizer.
func (e *Embedder) Tokenizer() *Tokenizer { return e.tok }

// Close releases the session. Later calls to Embed fail with ErrClosed.
func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	for _, key := range e.shapeLRU {
		e.shapes[key].destroy()
	}
	e.shapes, e.shapeLRU = nil, nil
	var errs []error
	if e.runOpts != nil {
		errs = append(errs, e.runOpts.Destroy())
	}
	if e.session != nil {
		errs = append(errs, e.session.Destroy())
	}
	e.inputBufs, e.outBuf = nil, nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close %s: %w", e.spec.Name, err)
	}
	return nil
}

func (st *shapeTensors) destroy() {
	for _, v := range st.inputs {
		v.Destroy()
	}
	for _, v := range st.output {
		v.Destroy()
	}
}

// ItemError is the failure of one text of an Embed call.
type ItemError struct {
	Index int
	Err   error
}

// EmbedError reports texts that could not be embedded (their vectors are
// nil); the other vectors of the call are valid. It unwraps to the item
// errors, so errors.Is(err, ErrTokenize) works.
type EmbedError struct {
	Items []ItemError
}

// Error summarises the failed items.
func (e *EmbedError) Error() string {
	if len(e.Items) == 1 {
		return fmt.Sprintf("embed: text %d: %v", e.Items[0].Index, e.Items[0].Err)
	}
	return fmt.Sprintf("embed: %d texts failed; first: text %d: %v", len(e.Items), e.Items[0].Index, e.Items[0].Err)
}

// Unwrap returns the item errors.
func (e *EmbedError) Unwrap() []error {
	out := make([]error, len(e.Items))
	for i, it := range e.Items {
		out[i] = it.Err
	}
	return out
}

// batch is a group of tokenized texts run together.
type batch struct {
	rows   []int // indexes into the Embed texts
	enc    []Encoded
	maxLen int
}

// Embed returns one L2-normalised vector per text, in order. Texts that are
// empty or only white space get a zero vector (they carry no meaning and
// use-lite rejects them). Queries get the model's QueryPrefix. Texts are
// sorted by length and grouped into batches of at most MaxBatchTokens padded
// tokens; the next batch is tokenized while the current one runs.
//
// If some texts cannot be tokenized even after a conservative clean-up, their
// vectors are nil and the error is an *EmbedError listing them (the other
// vectors are valid). Any other error (cancelled context, runtime failure)
// returns nil vectors.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind InputKind) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	work := make([]int, 0, len(texts))
	for i, t := range texts {
		if isBlank(t) {
			out[i] = make([]float32, e.spec.Dim)
			continue
		}
		work = append(work, i)
	}
	if len(work) == 0 {
		return out, nil
	}
	prefix := ""
	if kind == Query {
		prefix = e.spec.QueryPrefix
	}
	// Longest first: similar lengths share batches (less padding), and the
	// largest batch runs first.
	sort.SliceStable(work, func(a, b int) bool { return len(texts[work[a]]) > len(texts[work[b]]) })

	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan batch, 1)
	var itemErrs []ItemError
	go func() {
		defer close(batches)
		e.produce(pctx, texts, work, prefix, batches, &itemErrs)
	}()
	var runErr error
	for b := range batches {
		if runErr != nil {
			continue // drain so the producer can finish
		}
		if err := e.run(ctx, b, out); err != nil {
			runErr = err
			cancel()
		}
	}
	if runErr != nil {
		return nil, runErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(itemErrs) > 0 {
		sort.Slice(itemErrs, func(a, b int) bool { return itemErrs[a].Index < itemErrs[b].Index })
		return out, &EmbedError{Items: itemErrs}
	}
	return out, nil
}

func isBlank(s string) bool {
	return strings.TrimFunc(s, unicode.IsSpace) == ""
}

// produce tokenizes texts[work...] in order and sends batches bounded by
// maxTokens padded tokens and maxBatchRows rows. Item errors are written to
// *errs, which the caller reads after batches is closed.
func (e *Embedder) produce(ctx context.Context, texts []string, work []int, prefix string, batches chan<- batch, errs *[]ItemError) {
	var cur batch
	flush := func() bool {
		if len(cur.rows) == 0 {
			return true
		}
		select {
		case batches <- cur:
			cur = batch{}
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, i := range work {
		if ctx.Err() != nil {
			return
		}
		enc, err := e.encode(prefix + texts[i])
		if err != nil {
			*errs = append(*errs, ItemError{Index: i, Err: err})
			continue
		}
		n := len(enc.IDs)
		if len(cur.rows) > 0 && ((len(cur.rows)+1)*max(cur.maxLen, n) > e.maxTokens || len(cur.rows) >= e.maxRows) {
			if !flush() {
				return
			}
		}
		cur.rows = append(cur.rows, i)
		cur.enc = append(cur.enc, enc)
		cur.maxLen = max(cur.maxLen, n)
	}
	flush()
}

// encode tokenizes text; when the tokenizer fails it retries once on a
// conservative version of the text (letters, digits, punctuation, symbols
// and spaces only).
func (e *Embedder) encode(text string) (Encoded, error) {
	enc, err := e.tok.Encode(text)
	if err == nil && len(enc.IDs) > 0 {
		return enc, nil
	}
	fallback := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) || r == ' ' {
			return r
		}
		return ' '
	}, text)
	if isBlank(fallback) {
		if err == nil {
			err = fmt.Errorf("%w: no tokens", ErrTokenize)
		}
		return Encoded{}, err
	}
	enc2, err2 := e.tok.Encode(fallback)
	if err2 != nil || len(enc2.IDs) == 0 {
		if err == nil {
			err = err2
		}
		if err == nil {
			err = fmt.Errorf("%w: no tokens", ErrTokenize)
		}
		return Encoded{}, err
	}
	return enc2, nil
}

// run executes one batch and writes its pooled, normalised vectors to out.
func (e *Embedder) run(ctx context.Context, b batch, out [][]float32) error {
	rows, seq := len(b.rows), b.maxLen
	e.ensureBuffers()
	n := rows * seq
	for k, name := range e.spec.Inputs {
		buf := e.inputBufs[k][:n]
		for r, enc := range b.enc {
			row := buf[r*seq : (r+1)*seq]
			var src []int64
			pad := int64(0)
			switch name {
			case InputIDs:
				src, pad = enc.IDs, e.padID
			case AttentionMask:
				for j := range row {
					row[j] = 0
					if j < len(enc.IDs) {
						row[j] = 1
					}
				}
				continue
			case TokenTypeIDs:
				src = enc.Types
			}
			copy(row, src)
			for j := len(src); j < seq; j++ {
				row[j] = pad
			}
		}
	}
	st, err := e.tensors(rows, seq)
	if err != nil {
		return err
	}

	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		e.runOpts.Terminate()
		close(done)
	})
	runErr := e.session.RunWithOptions(st.inputs, st.output, e.runOpts)
	if !stop() {
		<-done
		e.runOpts.UnsetTerminate()
		return ctx.Err()
	}
	if runErr != nil {
		return fmt.Errorf("embed %s: %w", e.spec.Name, runErr)
	}

	dim := e.spec.Dim
	for r, idx := range b.rows {
		v := make([]float32, dim)
		switch e.spec.Pooling {
		case PoolingMean:
			block := e.outBuf[r*seq*dim : (r+1)*seq*dim]
			// The attention mask is 1 on the first len(IDs) positions.
			poolMean(v, block, e.maskRow(r, seq, len(b.enc[r].IDs)), dim)
		case PoolingCLS:
			copy(v, e.outBuf[r*seq*dim:r*seq*dim+dim])
		case PoolingModel:
			copy(v, e.outBuf[r*dim:(r+1)*dim])
		}
		out[idx] = Normalize(v)
	}
	return nil
}

// maskRow returns the attention mask of row r (from the input buffer when
// the model has one, else built from the length).
func (e *Embedder) maskRow(r, seq, length int) []int64 {
	for k, name := range e.spec.Inputs {
		if name == AttentionMask {
			return e.inputBufs[k][r*seq : (r+1)*seq]
		}
	}
	m := make([]int64, seq)
	for j := 0; j < length && j < seq; j++ {
		m[j] = 1
	}
	return m
}

func (e *Embedder) ensureBuffers() {
	if e.inputBufs != nil {
		return
	}
	e.inputBufs = make([][]int64, len(e.spec.Inputs))
	for k := range e.inputBufs {
		e.inputBufs[k] = make([]int64, e.maxTokens)
	}
	if e.tokenOut {
		e.outBuf = make([]float32, e.maxTokens*e.spec.Dim)
	} else {
		e.outBuf = make([]float32, e.maxRows*e.spec.Dim)
	}
}

// tensors returns the ONNX values for a [rows, seq] batch, creating them on
// first use. They all view the Embedder's shared buffers.
func (e *Embedder) tensors(rows, seq int) (*shapeTensors, error) {
	key := [2]int{rows, seq}
	if st, ok := e.shapes[key]; ok {
		if i := slices.Index(e.shapeLRU, key); i >= 0 {
			e.shapeLRU = append(e.shapeLRU[:i], e.shapeLRU[i+1:]...)
		}
		e.shapeLRU = append(e.shapeLRU, key)
		return st, nil
	}
	inShape := ort.NewShape(int64(rows), int64(seq))
	st := &shapeTensors{}
	for k := range e.spec.Inputs {
		t, err := ort.NewTensor(inShape, e.inputBufs[k][:rows*seq])
		if err != nil {
			st.destroy()
			return nil, fmt.Errorf("embed %s: input tensor: %w", e.spec.Name, err)
		}
		st.inputs = append(st.inputs, t)
	}
	var outShape ort.Shape
	if e.tokenOut {
		outShape = ort.NewShape(int64(rows), int64(seq), int64(e.spec.Dim))
	} else {
		outShape = ort.NewShape(int64(rows), int64(e.spec.Dim))
	}
	t, err := ort.NewTensor(outShape, e.outBuf[:outShape.FlattenedSize()])
	if err != nil {
		st.destroy()
		return nil, fmt.Errorf("embed %s: output tensor: %w", e.spec.Name, err)
	}
	st.output = []ort.Value{t}
	if len(e.shapeLRU) >= maxCachedShapes {
		old := e.shapeLRU[0]
		e.shapes[old].destroy()
		delete(e.shapes, old)
		e.shapeLRU = e.shapeLRU[1:]
	}
	e.shapes[key] = st
	e.shapeLRU = append(e.shapeLRU, key)
	return st, nil
}
