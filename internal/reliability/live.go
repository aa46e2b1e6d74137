package reliability

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/context-ls/context-ls/workspace"
)

// watchingClient is the capabilities of an editor that watches files and
// reports changes (didChangeWatchedFiles), as VS Code does.
var watchingClient = map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}

// symbolFound reports whether a search on the server finds the definition
// name first.
func (s *serve) symbolFound(name string) bool {
	var res struct{ Hits []struct{ Symbol string } }
	_, err := s.command("contextLs.search", map[string]any{"query": name}, &res)
	return err == nil && len(res.Hits) > 0 && res.Hits[0].Symbol == name
}

// scanDone reports whether the server's scan of its folder has ended.
func (s *serve) scanDone() bool {
	var st struct {
		Folders []struct {
			Indexing struct {
				State   string `json:"state"`
				Running bool   `json:"running"`
			} `json:"indexing"`
		} `json:"folders"`
	}
	_, err := s.command("contextLs.stats", map[string]any{}, &st)
	return err == nil && len(st.Folders) == 1 && st.Folders[0].Indexing.State == "done" && !st.Folders[0].Indexing.Running
}

// changed reports files changed on disk, as a watching editor does.
func (s *serve) changed(paths ...string) {
	var changes []map[string]any
	for _, p := range paths {
		changes = append(changes, map[string]any{"uri": workspace.PathToURI(p), "type": 2})
	}
	s.c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": changes})
}

// poll calls cond every 50 ms until it holds or within has passed.
func poll(within time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(within); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// EditsDuringScan runs issue 29's item 5a: a language server starts on a
// workspace of files Go files (no index yet: its first scan takes
// seconds), and while it scans, a file is saved with a new definition and
// reported changed. Once the scan is over, a search must find the
// definition within a few seconds. It returns the trials whose edit was
// never seen.
func (b Bin) EditsDuringScan(work string, files, trials int, clientWatches bool) (missed []string, err error) {
	caps := map[string]any{}
	if clientWatches {
		caps = watchingClient
	}
	root := filepath.Join(work, "scan-edits")
	if err := WriteFiles(root, Repo(files)); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(29))
	for i := 0; i < trials; i++ {
		ix := Index{root, filepath.Join(work, fmt.Sprintf("scan-edits-db-%d", i))}
		s, err := b.startServeWith(ix, caps)
		if err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(200+rng.Intn(1500)) * time.Millisecond)
		n := rng.Intn(files)
		rel := fmt.Sprintf("pkg%02d/f%04d.go", n%40, n)
		path := filepath.Join(root, rel)
		old, err := os.ReadFile(path)
		if err != nil {
			s.stop()
			return nil, err
		}
		name := fmt.Sprintf("ZzSavedDuringScan%d", i)
		if err := os.WriteFile(path, append(old, "\nfunc "+name+"() {}\n"...), 0o644); err != nil {
			s.stop()
			return nil, err
		}
		scanning := !s.scanDone()
		if clientWatches {
			s.changed(path)
		}
		ok := poll(time.Minute, s.scanDone) && poll(5*time.Second, func() bool { return s.symbolFound(name) })
		if !ok {
			missed = append(missed, fmt.Sprintf("trial %d: %s saved in %s (the scan still running: %v) never found", i, name, rel, scanning))
		}
		s.shutdown()
		s.stop()
		os.RemoveAll(ix.DB)
	}
	return missed, nil
}

// RemovedAfterSave runs issue 29's item 5b: a definition typed in an
// editor buffer and saved, then removed from the file on disk by another
// writer a moment later (reported changed), must leave the index.
func (b Bin) RemovedAfterSave(work string, trials int) (stale []string, err error) {
	root := filepath.Join(work, "removed-after-save")
	if err := WriteFiles(root, Repo(200)); err != nil {
		return nil, err
	}
	ix := Index{root, filepath.Join(work, "removed-after-save-db")}
	s, err := b.startServeWith(ix, watchingClient)
	if err != nil {
		return nil, err
	}
	defer s.stop()
	if !poll(time.Minute, s.scanDone) {
		return nil, fmt.Errorf("the server never finished its scan: %s", s.stderr.String())
	}
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < trials; i++ {
		rel := fmt.Sprintf("pkg%02d/f%04d.go", i%40, i)
		path := filepath.Join(root, rel)
		old, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("ZzTypedAndSaved%d", i)
		text := string(old) + "\nfunc " + name + "() {}\n"
		uri := workspace.PathToURI(path)
		s.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": string(old)}})
		s.c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []map[string]any{{"text": text}}})
		if !s.symbolFound(name) {
			return nil, fmt.Errorf("trial %d: the typed definition %s is not found", i, name)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return nil, err
		}
		s.c.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
		s.changed(path)
		time.Sleep(time.Duration(100+rng.Intn(1000)) * time.Millisecond)
		// Another writer restores the file. The editor, whose buffer is
		// not dirty, reloads it (one trial in two) or closes it.
		if err := os.WriteFile(path, old, 0o644); err != nil {
			return nil, err
		}
		s.changed(path)
		if i%2 == 0 {
			s.c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3}, "contentChanges": []map[string]any{{"text": string(old)}}})
		}
		s.c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
		if !poll(5*time.Second, func() bool { return !s.symbolFound(name) }) {
			stale = append(stale, fmt.Sprintf("trial %d: %s removed from %s on disk, still found", i, name, rel))
		}
	}
	return stale, nil
}

// trim shortens s for a message.
func trim(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// EditWhileDiskFull runs issue 29's item 5c: a language server on a disk
// below the index's reserve is told a file changed on disk (it cannot
// index it); once space is freed, the change must be indexed without a
// restart. It needs root for the tmpfs (ErrNoTmpfs otherwise) and returns
// how long the change took to appear after space was freed.
func (b Bin) EditWhileDiskFull(work string) (time.Duration, error) {
	disk := filepath.Join(work, "edit-disk")
	unmount, err := MountTmpfs(disk, 128<<20+64<<20)
	if err != nil {
		return 0, err
	}
	defer unmount()
	root := filepath.Join(work, "edit-full-repo")
	if err := WriteFiles(root, Repo(100)); err != nil {
		return 0, err
	}
	ix := Index{root, disk}
	if res := b.Run(ix.Args("index")...); res.Code != 0 {
		return 0, fmt.Errorf("index: %s", res)
	}
	unfill, err := Fill(disk, 128<<20-8<<20)
	if err != nil {
		return 0, err
	}
	s, err := b.startServeWith(ix, watchingClient)
	if err != nil {
		unfill()
		return 0, err
	}
	defer s.stop()
	if !poll(time.Minute, s.scanDone) {
		unfill()
		return 0, fmt.Errorf("the server never finished its scan: %s", trim(s.stderr.String()))
	}
	path := filepath.Join(root, "pkg01/f0001.go")
	old, err := os.ReadFile(path)
	if err != nil {
		unfill()
		return 0, err
	}
	if err := os.WriteFile(path, append(old, "\nfunc ZzAfterSpaceReturns() {}\n"...), 0o644); err != nil {
		unfill()
		return 0, err
	}
	s.changed(path)
	time.Sleep(time.Second)
	if s.symbolFound("ZzAfterSpaceReturns") {
		unfill()
		return 0, fmt.Errorf("indexed on a full disk: the disk was not full enough")
	}
	if err := unfill(); err != nil {
		return 0, err
	}
	freed := time.Now()
	if !poll(time.Minute, func() bool { return s.symbolFound("ZzAfterSpaceReturns") }) {
		return 0, fmt.Errorf("a file changed while the disk was full was not indexed a minute after space was freed: %s", trim(s.stderr.String()))
	}
	return time.Since(freed), nil
}
