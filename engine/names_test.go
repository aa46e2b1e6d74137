package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// scanWorkspaceSymbols is WorkspaceSymbols without the name table: the
// candidates from a scan of every n/ key of the snapshot (the ranking that
// follows is shared). The table must give the same answers.
func scanWorkspaceSymbols(s *Snapshot, query string, limit int) ([]SymbolInfo, error) {
	q := strings.ToLower(strings.TrimSpace(query))
	var cands []nameCand
	err := s.st.DistinctNames(func(name []byte) bool {
		if sc := fuzzyScore(q, string(name)); sc > 0 {
			cands = append(cands, nameCand{string(name), sc})
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return s.rankNamed(query, limit, cands)
}

var nameQueries = []string{"parse", "Parse", "pr", "config", "load", "x", "e", "newserver", "ns", "handle_request", "hr", "zz", "Gone", "renamed", "Extra", "extra12", "nothing-matches"}

// checkAgainstScan compares WorkspaceSymbols with the full scan for every
// query, at two limits (the cut-off after 4·limit definitions matters).
func checkAgainstScan(t *testing.T, e *Engine, when string) {
	t.Helper()
	s := e.Snapshot()
	defer s.Release()
	for _, q := range nameQueries {
		for _, limit := range []int{3, 100} {
			got, err := s.WorkspaceSymbols(context.Background(), q, limit)
			if err != nil {
				t.Fatalf("%s: WorkspaceSymbols(%q): %v", when, q, err)
			}
			want, err := scanWorkspaceSymbols(s, q, limit)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: WorkspaceSymbols(%q, %d) = %v, want (full scan) %v", when, q, limit, symNames(got), symNames(want))
			}
		}
	}
}

func symNames(syms []SymbolInfo) []string {
	var out []string
	for _, s := range syms {
		out = append(out, s.Path+":"+s.Name)
	}
	return out
}

func hasSymbol(t *testing.T, e *Engine, query, path, name string) bool {
	t.Helper()
	s := e.Snapshot()
	defer s.Release()
	got, err := s.WorkspaceSymbols(context.Background(), query, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, si := range got {
		if si.Path == path && si.Name == name {
			return true
		}
	}
	return false
}

// TestNameTableMatchesScan: workspace symbol answers from the in-memory
// name table equal those of a full scan of the name keys, after the first
// index and after edits, overlays, deletions and renames (which leave
// removed names in the table), and across merges and rebuilds of it.
func TestNameTableMatchesScan(t *testing.T) {
	files := map[string]string{
		"server/server.go": "package server\n\n// NewServer makes one.\nfunc NewServer() *Server { return nil }\n\ntype Server struct{}\n\nfunc (s *Server) HandleRequest() {}\nfunc (s *Server) Parse() {}\n",
		"config/load.go":   "package config\n\nfunc Load() {}\nfunc LoadConfig() {}\nfunc parseConfig() {}\n\ntype Config struct{ Path string }\n",
		"parse/parse.go":   "package parse\n\nfunc Parse() {}\nfunc ParseExpr() {}\nfunc parseRequest() {}\nfunc PR() {}\n",
		"py/handler.py":    "def handle_request(req):\n    return parse(req)\n\n\ndef parse(req):\n    return req\n\n\nclass Parser:\n    def parse(self):\n        pass\n",
		"gone/gone.go":     "package gone\n\nfunc Gone() {}\nfunc GoneToo() {}\n",
		"old/name.go":      "package old\n\nfunc BeforeRename() {}\n",
	}
	e, root := indexedEngine(t, files)
	defer e.Close()
	ctx := context.Background()
	checkAgainstScan(t, e, "after the first index")
	if e.nameTab.state != namesBuilt {
		t.Fatalf("the name table was not built by a query")
	}

	// An editor buffer adds and removes definitions.
	buf := "package server\n\nfunc NewServer() *Server { return nil }\n\ntype Server struct{}\n\nfunc (s *Server) Renamed() {}\nfunc ZZTop() {}\n"
	if err := e.UpdateOverlay(ctx, "server/server.go", []byte(buf)); err != nil {
		t.Fatal(err)
	}
	if !hasSymbol(t, e, "zz", "server/server.go", "ZZTop") || hasSymbol(t, e, "handlerequest", "server/server.go", "HandleRequest") {
		t.Fatalf("the overlay's names are not what workspace symbols show")
	}
	checkAgainstScan(t, e, "after an overlay")

	// A deleted file's names go (they stay in the table, and resolve to nothing).
	if err := os.RemoveAll(filepath.Join(root, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := e.Refresh(ctx, []string{"gone/gone.go"}); err != nil {
		t.Fatal(err)
	}
	if hasSymbol(t, e, "gone", "gone/gone.go", "Gone") {
		t.Fatalf("a deleted file's definition is still shown")
	}
	checkAgainstScan(t, e, "after a deletion")

	// A rename: the old path goes, the new one comes with a new name.
	if err := os.Remove(filepath.Join(root, "old/name.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "renamed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "renamed/name.go"), []byte("package renamed\n\nfunc AfterRename() {}\nfunc Gone() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.Refresh(ctx, []string{"old/name.go", "renamed/name.go"}); err != nil {
		t.Fatal(err)
	}
	if !hasSymbol(t, e, "afterrename", "renamed/name.go", "AfterRename") || hasSymbol(t, e, "beforerename", "old/name.go", "BeforeRename") {
		t.Fatalf("a renamed file's definitions are not where they moved")
	}
	checkAgainstScan(t, e, "after a rename")

	// Enough new names to merge them into the sorted list, then enough to
	// drop the table, which the next query builds again.
	for round, n := range []int{mergeExtra + 10, 4200} {
		var b strings.Builder
		b.WriteString("package extra\n\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "func Extra%d_%d() {}\n", round, i)
		}
		if err := e.UpdateOverlay(ctx, "extra/extra.go", []byte(b.String())); err != nil {
			t.Fatal(err)
		}
		if round == 0 && (e.nameTab.state != namesBuilt || len(e.nameTab.extra) != 0) {
			t.Fatalf("added names were not merged: state %d, %d apart", e.nameTab.state, len(e.nameTab.extra))
		}
		if round == 1 && e.nameTab.state != namesNone {
			t.Fatalf("the table was not dropped after %d added names", e.nameTab.added)
		}
		checkAgainstScan(t, e, fmt.Sprintf("after %d added names", n))
		if !hasSymbol(t, e, fmt.Sprintf("extra%d_%d", round, n-1), "extra/extra.go", fmt.Sprintf("Extra%d_%d", round, n-1)) {
			t.Fatalf("round %d: the last added name is not found", round)
		}
	}
}

// TestNameListMerge: the sorted list stays sorted and distinct.
func TestNameListMerge(t *testing.T) {
	var b nameListBuilder
	for _, n := range []string{"b", "d", "f"} {
		b.add(n)
	}
	l := b.list().merge([]string{"e", "a", "g", "c"})
	var got []string
	for i := 0; i < l.len(); i++ {
		got = append(got, l.at(i))
	}
	if want := []string{"a", "b", "c", "d", "e", "f", "g"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
	for _, n := range []string{"a", "d", "g"} {
		if !l.has(n) {
			t.Errorf("has(%q) false", n)
		}
	}
	for _, n := range []string{"", "aa", "h"} {
		if l.has(n) {
			t.Errorf("has(%q) true", n)
		}
	}
}

// TestNameTableConcurrentWrites: names written while the table is being
// built are not lost (the build and the writes race; the final answers
// equal the full scan's).
func TestNameTableConcurrentWrites(t *testing.T) {
	e, _ := indexedEngine(t, map[string]string{"a/a.go": "package a\n\nfunc Base() {}\n"})
	defer e.Close()
	ctx := context.Background()
	const writes = 40
	done := make(chan error, 1)
	go func() {
		var b strings.Builder
		b.WriteString("package c\n\n")
		for i := 0; i < writes; i++ {
			fmt.Fprintf(&b, "func Conc%d() {}\n", i)
			if err := e.UpdateOverlay(ctx, fmt.Sprintf("c/c%d.go", i%3), []byte(b.String())); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		default:
		}
		e.nameTab.mu.Lock()
		if e.nameTab.state == namesBuilt {
			e.nameTab.state, e.nameTab.base, e.nameTab.extra = namesNone, nameList{}, nil // build again
		}
		e.nameTab.mu.Unlock()
		s := e.Snapshot()
		if _, err := s.WorkspaceSymbols(ctx, "conc", 100); err != nil {
			t.Fatal(err)
		}
		s.Release()
	}
	checkAgainstScan(t, e, "after concurrent writes")
	last := fmt.Sprintf("c/c%d.go", (writes-1)%3) // the last write holds every name
	for i := 0; i < writes; i++ {
		name := fmt.Sprintf("Conc%d", i)
		if !hasSymbol(t, e, strings.ToLower(name), last, name) {
			t.Fatalf("%s is missing after concurrent writes", name)
		}
	}
}

// TestNameTableBuildCancelled: a build whose context ends leaves no table
// (the next query builds it).
func TestNameTableBuildCancelled(t *testing.T) {
	e, _ := indexedEngine(t, map[string]string{"a/a.go": "package a\n\nfunc Base() {}\n"})
	defer e.Close()
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.PrepareSymbols(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("PrepareSymbols with an ended context: %v", err)
	}
	if e.nameTab.state != namesNone {
		t.Fatalf("a cancelled build left state %d", e.nameTab.state)
	}
	if !hasSymbol(t, e, "base", "a/a.go", "Base") {
		t.Fatalf("the next query found nothing")
	}
}
