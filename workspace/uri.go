package workspace

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrUnsupportedURI is returned for a URI that is not an absolute local
// file URI.
var ErrUnsupportedURI = errors.New("unsupported URI")

// URIToPath converts a file URI to an absolute, cleaned file path. Other
// schemes, remote hosts and relative paths fail with ErrUnsupportedURI.
func URIToPath(uri string) (string, error) {
	shown := uri
	if len(shown) > 200 {
		shown = strings.ToValidUTF8(shown[:200], "") + "…"
	}
	if uri == "" {
		return "", fmt.Errorf("empty URI: %w", ErrUnsupportedURI)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("%q: %w: %w", shown, ErrUnsupportedURI, err)
	}
	if !strings.EqualFold(u.Scheme, "file") {
		return "", fmt.Errorf("%q: scheme %q is not \"file\": %w", shown, u.Scheme, ErrUnsupportedURI)
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", fmt.Errorf("%q: remote host %q: %w", shown, u.Host, ErrUnsupportedURI)
	}
	p := u.Path
	if u.Opaque != "" {
		return "", fmt.Errorf("%q: not an absolute file URI: %w", shown, ErrUnsupportedURI)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%q: path contains NUL: %w", shown, ErrUnsupportedURI)
	}
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // "/C:/x" → "C:/x"
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q: path %q is not absolute: %w", shown, p, ErrUnsupportedURI)
	}
	return filepath.Clean(p), nil
}

// PathToURI converts an absolute file path to a file URI.
func PathToURI(path string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" && len(p) >= 2 && p[1] == ':' {
		p = "/" + p
	}
	u := url.URL{Scheme: "file", Path: p}
	return u.String()
}
