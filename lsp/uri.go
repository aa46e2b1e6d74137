package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// URIToPath converts a file URI to an absolute, cleaned file path. Other
// schemes, remote hosts and relative paths fail with ErrUnsupportedURI.
func URIToPath(uri string) (string, error) {
	if uri == "" {
		return "", fmt.Errorf("empty URI: %w", ErrUnsupportedURI)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("%q: %w: %w", truncate(uri, 200), ErrUnsupportedURI, err)
	}
	if !strings.EqualFold(u.Scheme, "file") {
		return "", fmt.Errorf("%q: scheme %q is not \"file\": %w", truncate(uri, 200), u.Scheme, ErrUnsupportedURI)
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", fmt.Errorf("%q: remote host %q: %w", truncate(uri, 200), u.Host, ErrUnsupportedURI)
	}
	p := u.Path
	if u.Opaque != "" {
		return "", fmt.Errorf("%q: not an absolute file URI: %w", truncate(uri, 200), ErrUnsupportedURI)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%q: path contains NUL: %w", truncate(uri, 200), ErrUnsupportedURI)
	}
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // "/C:/x" → "C:/x"
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q: path %q is not absolute: %w", truncate(uri, 200), p, ErrUnsupportedURI)
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
