package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestReleaseArchive unpacks the release archive of this platform (make
// dist; $CONTEXT_LS_DIST names its directory, make test-dist sets it) into
// an empty directory, checks how it was packed (sorted entries, owner 0, one
// time, every file listed in SHA256SUMS with its checksum) and runs
// bin/context-ls doctor and search there with no environment but an empty
// HOME: the runtime and the model (when the archive carries one) are found
// beside the binary, and search answers with vector evidence.
func TestReleaseArchive(t *testing.T) {
	dist := os.Getenv("CONTEXT_LS_DIST")
	if dist == "" {
		t.Skip("CONTEXT_LS_DIST is not set: make test-dist builds the archive (make dist) and runs this test on it")
	}
	platform := map[string]string{"linux/amd64": "linux-x64", "linux/arm64": "linux-arm64", "darwin/arm64": "darwin-arm64"}[runtime.GOOS+"/"+runtime.GOARCH]
	archive := filepath.Join(dist, "context-ls-"+platform+".tar.gz")
	if _, err := os.Stat(archive); err != nil {
		t.Fatalf("no release archive for %s: %v (run make dist)", platform, err)
	}
	dir := t.TempDir()
	names := unpack(t, archive, dir)
	top := "context-ls-" + platform
	if !sort.StringsAreSorted(names) {
		t.Errorf("archive entries are not sorted by name")
	}
	root := filepath.Join(dir, top)
	checkSums(t, root)

	home := filepath.Join(dir, "home")
	ws := filepath.Join(dir, "shop")
	os.MkdirAll(home, 0o755)
	writeFiles(t, ws, repo)
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(filepath.Join(root, "bin", "context-ls"), args...)
		cmd.Dir = ws
		cmd.Env = []string{"HOME=" + home}
		return runCmd(t, cmd)
	}

	_, hasModel := os.Stat(filepath.Join(root, "models", "use-lite", "model.onnx"))
	out, errOut, code := run("doctor", "--json")
	if code != 0 {
		t.Fatalf("doctor: exit %d: %s\n%s", code, errOut, out)
	}
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	status := map[string]doctorCheck{}
	for _, c := range rep.Checks {
		status[c.Name] = c
	}
	if c := status["runtime"]; c.Status != checkOK || !strings.Contains(c.Summary, filepath.Join(root, "lib")) || !strings.Contains(c.Summary, "beside the binary") {
		t.Errorf("doctor's runtime: %+v, want the archive's lib/ loaded", c)
	}
	if hasModel == nil {
		if c := status["model"]; c.Status != checkOK || !strings.Contains(c.Summary, "beside the binary") {
			t.Errorf("doctor's model: %+v, want use-lite from the archive, checked", c)
		}
	} else {
		t.Logf("the archive carries no model: search is checked without vectors")
	}
	if !strings.HasPrefix(rep.Version, "0.") || rep.Version == "dev" {
		t.Errorf("doctor's version %q: want the release version", rep.Version)
	}

	type hits struct {
		Hits []struct {
			Path    string   `json:"path"`
			Symbol  string   `json:"symbol"`
			Sources []string `json:"sources"`
		} `json:"hits"`
	}
	search := func() hits {
		t.Helper()
		out, errOut, code := run("search", "--json", "retry a failed upload with backoff")
		if code != 0 {
			t.Fatalf("search: exit %d: %s", code, errOut)
		}
		if strings.Contains(errOut, "WARN") || strings.Contains(errOut, "note:") {
			t.Errorf("search with everything in place printed %q", errOut)
		}
		var res hits
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Hits) == 0 {
			t.Fatalf("search --json: %v\n%s", err, out)
		}
		if res.Hits[0].Symbol != "RetryUpload" {
			t.Errorf("first hit %+v, want RetryUpload", res.Hits[0])
		}
		return res
	}
	// The first search indexes the workspace (words, names, graph); index
	// also embeds it, and the next search has the vector leg.
	start := time.Now()
	search()
	t.Logf("first search in a new workspace, the index built: %v", time.Since(start).Round(time.Millisecond))
	if _, errOut, code := run("index"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errOut)
	}
	res := search()
	if hasModel == nil && !strings.Contains(strings.Join(res.Hits[0].Sources, " "), "vector") {
		t.Errorf("first hit's evidence %v after index: want vector evidence from the archive's model", res.Hits[0].Sources)
	}
}

// unpack extracts a .tar.gz into dir and returns its entry names, checking
// that every entry has owner and group 0 and one modification time.
func unpack(t *testing.T, archive, dir string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" {
		t.Errorf("gzip header has a name %q or time %v", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var names []string
	var mtime time.Time
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, strings.TrimSuffix(h.Name, "/"))
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: owner %d:%d, want 0:0", h.Name, h.Uid, h.Gid)
		}
		if mtime.IsZero() {
			mtime = h.ModTime
		} else if !h.ModTime.Equal(mtime) {
			t.Errorf("%s: time %v, want every entry at %v", h.Name, h.ModTime, mtime)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Fatalf("entry %q leaves the directory", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			os.MkdirAll(filepath.Dir(p), 0o755)
			w, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(w, tr); err != nil {
				t.Fatal(err)
			}
			w.Close()
		default:
			t.Errorf("%s: unexpected entry type %c", h.Name, h.Typeflag)
		}
	}
	return names
}

// checkSums holds every file of root against its SHA256SUMS, and the list
// against the files.
func checkSums(t *testing.T, root string) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", sc.Text())
		}
		listed[name] = true
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%s listed but not readable: %v", name, err)
			continue
		}
		if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", name, got, sum)
		}
	}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			if rel != "SHA256SUMS" && !listed[filepath.ToSlash(rel)] {
				t.Errorf("%s is not in SHA256SUMS", rel)
			}
		}
		return nil
	})
	for _, want := range []string{"bin/context-ls", "lib/libonnxruntime.so.1", "THIRD-PARTY-NOTICES.md", "licenses/onnxruntime/LICENSE", "licenses/gitleaks/LICENSE"} {
		if !listed[want] {
			t.Errorf("the archive lacks %s", want)
		}
	}
}
