package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/context-ls/context-ls/graph"
)

// Graph neighbours: a change rarely stays in one file. A compiler and the
// environment it reads, a command and the helper it calls, a module and the
// module that imports it change together. Once every other kind of
// evidence is in, each of the best files gains a share of the mean score of
// the best files it is linked to in the index's graph: it imports or is
// imported by one of them, or defines a name one of them calls (or calls a
// name one of them defines). The mean, not the sum: a hub every file
// imports gains no more than a file linked to one strong candidate.
//
// Issue-like text only: a description of a change spans the files it
// touches, while a question asks for one thing in one place (and on the Go
// standard library, whose files hold thousands of calls, reading ten
// graphs cost a question about half again its CPU time).
//
// Only the best files take part, and only files with evidence of their own
// gain: the graph reorders what the text found, it finds nothing the text
// never pointed at. Set on ../shared/eval (localisation, share 0.3 over the
// best 10 files: Acc@3 0.767 → 0.787, MRR 0.835 → 0.837, Acc@1 and Acc@5
// unchanged). A share lent by the top file alone, or a sum instead of a
// mean, lifted hubs over the right file (Acc@1 0.613 → 0.56); in these
// small repositories most files of a package are linked, so the signal is
// weak. Once hits were definitions, 0.4 ranked them better than 0.3
// (go run ./bench spans: function Acc@10 0.620 → 0.627, coverage at
// 2,000 / 4,000 tokens 0.493 / 0.690 → 0.507 / 0.697; on 180 commits of
// six other repositories, scripts/history-rows.py, function Acc@10 0.584
// → 0.591, file Acc@5 0.839 → 0.833); 0.2 lost on both, 0.5 and 0.6 gave
// back the coverage.
const (
	// neighbourDepth is how many of the best files lend and gain.
	neighbourDepth = 10
	// neighbourShare is the share of the linked files' mean score (each
	// without its path prior; the gain is scaled by the file's own prior).
	neighbourShare = 0.4
)

// fileLinks is what one file's graph says about its connections.
type fileLinks struct {
	module  string
	imports map[string]bool // modules imported (module and module.name)
	calls   map[string]bool // names called outside the file's own definitions, lower-cased
	defines map[string]bool // the file's definition names, lower-cased
}

// links reads the graph and the definitions of p; nil when p has no graph.
func (l *locator) links(p string) (*fileLinks, error) {
	b, err := l.qc.s.st.Graph(p)
	if err != nil || b == nil {
		return nil, err
	}
	g, err := graph.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode graph of %s: %w", p, err)
	}
	names, err := l.qc.s.st.DefinitionNames(p)
	if err != nil {
		return nil, fmt.Errorf("definition names of %s: %w", p, err)
	}
	fl := &fileLinks{module: g.Module, imports: map[string]bool{}, calls: map[string]bool{}, defines: map[string]bool{}}
	for _, n := range names {
		fl.defines[n] = true
	}
	for _, im := range g.Imports {
		fl.imports[im.Module] = true
		for _, n := range im.Names {
			fl.imports[im.Module+"."+n.Name] = true
			fl.imports[im.Module+"/"+n.Name] = true
		}
	}
	for _, c := range g.Calls {
		name := strings.ToLower(c.Name)
		if c.Recv.Kind == graph.RecvLocal || name == "" || fl.defines[name] {
			continue
		}
		fl.calls[name] = true
		if c.Recv.Module != "" {
			fl.imports[c.Recv.Module] = true
		}
	}
	return fl, nil
}

// linked reports how a and b are connected: "import" when either imports
// the other's module, "call" when either calls a name the other defines,
// "" when neither.
func linked(a, b *fileLinks) string {
	if a.module != "" && b.module != "" && a.module != b.module &&
		(a.imports[b.module] || b.imports[a.module]) {
		return "import"
	}
	for n := range a.calls {
		if b.defines[n] {
			return "call"
		}
	}
	for n := range b.calls {
		if a.defines[n] {
			return "call"
		}
	}
	return ""
}

// addNeighbours credits the best files with the scores of the best files
// they are linked to (see neighbourShare). It reads the ranking before any
// neighbour evidence, so the order of the gains does not matter.
func (l *locator) addNeighbours() error {
	var files []*fileEv
	for _, f := range l.files {
		if f.score > 0 && f.prior > 0 {
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].score != files[j].score {
			return files[i].score > files[j].score
		}
		return files[i].path < files[j].path
	})
	files = files[:min(len(files), neighbourDepth)]
	if len(files) < 2 {
		return nil
	}
	fl := make([]*fileLinks, len(files))
	for i, f := range files {
		var err error
		if fl[i], err = l.links(f.path); err != nil {
			return err
		}
	}
	gains := make([]float64, len(files))
	for i := range files {
		sum, n := 0.0, 0
		for j := range files {
			if j != i && fl[i] != nil && fl[j] != nil && linked(fl[i], fl[j]) != "" {
				sum += files[j].score / files[j].prior
				n++
			}
		}
		if n > 0 {
			gains[i] = neighbourShare * sum / float64(n) * files[i].prior
		}
	}
	for i, f := range files {
		if gains[i] > 0 {
			f.add("neighbour", gains[i])
		}
	}
	return nil
}
