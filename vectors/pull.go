package vectors

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// httpClient downloads model files. Tests replace it with the client of an
// httptest TLS server.
var httpClient = &http.Client{
	Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   30 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		ForceAttemptHTTP2:     true,
	},
	// No overall timeout: files are large; cancel with the context.
}

// maxUnpinnedDownload caps files whose size is not pinned.
const maxUnpinnedDownload = 4 << 30

// Pull downloads the files of spec into dir (created if needed). A file that
// is already present with the pinned size and checksum is kept. Each download
// goes to a temporary file in dir, is checked against the pinned size and
// sha256 and is then renamed into place, so dir never holds a partial or
// unverified file under its final name. progress, if not nil, is called as
// bytes arrive with the file name, bytes done and the total (-1 if unknown).
//
// Files without a URL (use-lite ships beside the checkout) cannot be pulled:
// if absent, the error wraps ErrModelMissing. Checksum failures wrap
// ErrChecksum. Only https URLs are accepted.
func Pull(ctx context.Context, spec ModelSpec, dir string, progress func(file string, done, total int64)) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("pull %s: %w", spec.Name, err)
	}
	for _, f := range spec.Files {
		path := filepath.Join(dir, f.Name)
		size, sum, err := hashFile(path)
		switch {
		case err == nil:
			problem := checkFile(f, size, sum)
			if problem == "" || problem == noPinnedChecksum {
				continue // present and valid, or nothing pinned to compare with
			}
			if f.URL == "" {
				return fmt.Errorf("%w: %s: %s, and the file has no download URL", ErrChecksum, path, problem)
			}
			// Present but wrong: fetch it again (the rename replaces it).
		case errors.Is(err, os.ErrNotExist):
			if f.URL == "" {
				return fmt.Errorf("%w: %s (model %s has no download URL: put its files in %s)", ErrModelMissing, path, spec.Name, dir)
			}
		default:
			return fmt.Errorf("pull %s: %w", spec.Name, err)
		}
		if err := download(ctx, f, path, progress); err != nil {
			return fmt.Errorf("pull %s: %w", spec.Name, err)
		}
	}
	return nil
}

// download fetches f.URL into path through a verified temporary file.
func download(ctx context.Context, f ModelFile, path string, progress func(string, int64, int64)) (err error) {
	u, err := url.Parse(f.URL)
	if err != nil {
		return fmt.Errorf("%s: bad URL: %w", f.Name, err)
	}
	if u.Scheme != "https" {
		return fmt.Errorf("%s: refusing non-HTTPS URL %s", f.Name, f.URL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s: download: %w", f.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: download %s: HTTP %s", f.Name, f.URL, resp.Status)
	}
	total := f.Size
	if total <= 0 {
		total = resp.ContentLength // -1 if unknown
	}
	if f.Size > 0 && resp.ContentLength >= 0 && resp.ContentLength != f.Size {
		return fmt.Errorf("%w: %s: server announces %d bytes, want %d", ErrChecksum, f.Name, resp.ContentLength, f.Size)
	}
	limit := int64(maxUnpinnedDownload)
	if f.Size > 0 {
		limit = f.Size + 1 // one more byte detects an oversized body
	}

	tmp, err := os.CreateTemp(filepath.Dir(path), "."+f.Name+".part-*")
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	w := &progressWriter{name: f.Name, total: total, fn: progress}
	n, err := io.Copy(io.MultiWriter(tmp, h, w), io.LimitReader(resp.Body, limit))
	if err != nil {
		return fmt.Errorf("%s: download: %w", f.Name, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if problem := checkFile(f, n, sum); problem != "" && problem != noPinnedChecksum {
		return fmt.Errorf("%w: %s from %s: %s (download discarded)", ErrChecksum, f.Name, f.URL, problem)
	}
	if n >= maxUnpinnedDownload {
		return fmt.Errorf("%s: larger than %d bytes (download discarded)", f.Name, int64(maxUnpinnedDownload))
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return nil
}

type progressWriter struct {
	name  string
	done  int64
	total int64
	fn    func(string, int64, int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	if p.fn != nil {
		p.fn(p.name, p.done, p.total)
	}
	return len(b), nil
}
