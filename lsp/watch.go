package lsp

import (
	"context"
	"sort"

	"github.com/context-ls/context-ls/workspace"
	"go.lsp.dev/protocol"
)

// watchRegistrationID identifies the server's didChangeWatchedFiles
// registration.
const watchRegistrationID = "context-ls/watched-files"

// setupWatching arranges to hear about file changes on disk: through the
// client when it supports dynamic registration of
// workspace/didChangeWatchedFiles, else through the backend's watcher on
// each folder. It never waits for the client: the registration's answer
// is handled on another goroutine, and a refusal falls back to the
// backend's watcher on the ordered queue.
func (s *server) setupWatching(ctx context.Context) {
	s.mu.RLock()
	dynamic := s.caps.Workspace.DidChangeWatchedFiles.DynamicRegistration
	s.mu.RUnlock()
	if !dynamic {
		s.useServerWatchers()
		return
	}
	s.mu.Lock()
	s.watchMode = "client"
	s.mu.Unlock()
	params := protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:     watchRegistrationID,
		Method: "workspace/didChangeWatchedFiles",
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{
			Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*"}},
		},
	}}}
	go func() {
		cctx, cancel := context.WithTimeout(ctx, s.opts.ClientRequestTimeout)
		defer cancel()
		if _, err := s.rpc.Call(cctx, "client/registerCapability", params); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.rpc.Enqueue(s.useServerWatchers)
			s.log.Warn("client refused to watch files; using the server's watcher", "error", err)
		}
	}()
}

// useServerWatchers switches to the backend's watcher for every folder.
func (s *server) useServerWatchers() {
	s.mu.Lock()
	s.watchMode = "server"
	folders := append([]*folder(nil), s.folders...)
	s.mu.Unlock()
	for _, f := range folders {
		s.startServerWatcher(f)
	}
}

// startServerWatcher starts the backend's watcher on one open folder (a
// folder that failed to open is not watched).
func (s *server) startServerWatcher(f *folder) {
	s.mu.RLock()
	skip := f.stopWatch != nil || !f.opened
	s.mu.RUnlock()
	if skip {
		return
	}
	var stop func()
	if err := s.rpc.Protect("StartWatcher", func() error { stop = s.backend.StartWatcher(f.root); return nil }); err != nil {
		s.log.Error("starting the file watcher", "root", f.root, "error", err)
		return
	}
	s.mu.Lock()
	f.stopWatch = stop
	s.mu.Unlock()
}

type didChangeWatchedFilesParams struct {
	Changes []protocol.FileEvent `json:"changes"`
}

// didChangeWatchedFiles forwards changed paths to the backend, sorted and
// without duplicates; non-file URIs are dropped.
func (s *server) didChangeWatchedFiles(_ context.Context, p didChangeWatchedFilesParams) error {
	seen := make(map[string]bool, len(p.Changes))
	paths := make([]string, 0, len(p.Changes))
	for _, c := range p.Changes {
		path, err := workspace.URIToPath(string(c.URI))
		if err != nil {
			s.log.Debug("watched-file event ignored", "error", err)
			continue
		}
		if !seen[path] {
			seen[path] = true
			paths = append(paths, path)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	sort.Strings(paths)
	return s.rpc.Protect("FilesChanged", func() error { s.backend.FilesChanged(paths); return nil })
}
