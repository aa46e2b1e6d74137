package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/context-ls/context-ls/internal/logcap"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/workspace"
	"go.lsp.dev/protocol"
)

// DefaultClientRequestTimeout is the default Options.ClientRequestTimeout.
const DefaultClientRequestTimeout = 10 * time.Second

// Options configure Serve.
type Options struct {
	// Name and Version are reported as serverInfo.
	Name    string
	Version string
	// Logger receives the server's logs; nil logs text to os.Stderr,
	// filtered by the logLevel setting. stdout is never written.
	Logger *slog.Logger
	// Backend is the session: *session.Session in context-ls serve.
	Backend Backend
	// RequestTimeout is the deadline of a read-only request
	// (jsonrpc.DefaultRequestTimeout when zero); MethodTimeouts overrides
	// it per method, and a Command's Timeout per command.
	RequestTimeout time.Duration
	MethodTimeouts map[string]time.Duration
	// MaxConcurrent bounds the read-only requests running at once
	// (2×GOMAXPROCS, at least 4, when zero).
	MaxConcurrent int
	// MaxMessageBytes bounds one incoming message
	// (jsonrpc.DefaultMaxMessageBytes when zero); larger messages are
	// dropped with a ParseError.
	MaxMessageBytes int64
	// ShutdownTimeout bounds how long shutdown waits for in-flight requests
	// and how long Serve waits for handlers when it stops
	// (jsonrpc.DefaultShutdownTimeout when zero).
	ShutdownTimeout time.Duration
	// ClientRequestTimeout bounds the wait for the client's answer to
	// workspace/configuration and window/workDoneProgress/create
	// (DefaultClientRequestTimeout when zero).
	ClientRequestTimeout time.Duration

	// commands replaces the command table (tests only).
	commands []Command
}

// clientCapabilities is the part of the client's capabilities the server
// uses. Decoding only this part keeps initialize working with clients whose
// capabilities go beyond what go.lsp.dev/protocol v0.12.0 describes.
type clientCapabilities struct {
	Workspace struct {
		Configuration         bool `json:"configuration"`
		WorkspaceFolders      bool `json:"workspaceFolders"`
		DidChangeWatchedFiles struct {
			DynamicRegistration bool `json:"dynamicRegistration"`
		} `json:"didChangeWatchedFiles"`
	} `json:"workspace"`
	Window struct {
		WorkDoneProgress bool `json:"workDoneProgress"`
	} `json:"window"`
	TextDocument struct {
		DocumentSymbol struct {
			HierarchicalDocumentSymbolSupport bool `json:"hierarchicalDocumentSymbolSupport"`
		} `json:"documentSymbol"`
	} `json:"textDocument"`
}

// initializeParams is the part of InitializeParams the server uses.
type initializeParams struct {
	ProcessID             *int64                     `json:"processId"`
	ClientInfo            *protocol.ClientInfo       `json:"clientInfo"`
	RootPath              string                     `json:"rootPath"`
	RootURI               string                     `json:"rootUri"`
	InitializationOptions json.RawMessage            `json:"initializationOptions"`
	Capabilities          clientCapabilities         `json:"capabilities"`
	WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
}

// serverCapabilities is what the server advertises.
type serverCapabilities struct {
	TextDocumentSync        *protocol.TextDocumentSyncOptions     `json:"textDocumentSync"`
	DefinitionProvider      bool                                  `json:"definitionProvider,omitempty"`
	ReferencesProvider      bool                                  `json:"referencesProvider,omitempty"`
	ImplementationProvider  bool                                  `json:"implementationProvider,omitempty"`
	HoverProvider           bool                                  `json:"hoverProvider,omitempty"`
	DocumentSymbolProvider  bool                                  `json:"documentSymbolProvider,omitempty"`
	WorkspaceSymbolProvider bool                                  `json:"workspaceSymbolProvider,omitempty"`
	CallHierarchyProvider   bool                                  `json:"callHierarchyProvider,omitempty"`
	ExecuteCommandProvider  *executeCommandOptions                `json:"executeCommandProvider,omitempty"`
	Workspace               *protocol.ServerCapabilitiesWorkspace `json:"workspace,omitempty"`
}

// executeCommandOptions adds workDoneProgress, which the protocol package's
// ExecuteCommandOptions lacks.
type executeCommandOptions struct {
	Commands         []string `json:"commands"`
	WorkDoneProgress bool     `json:"workDoneProgress"`
}

type initializeResult struct {
	Capabilities serverCapabilities   `json:"capabilities"`
	ServerInfo   *protocol.ServerInfo `json:"serverInfo,omitempty"`
}

// folder is one workspace folder.
type folder struct {
	uri  string
	root string
	name string

	opened    bool  // OpenFolder succeeded and CloseFolder has not run
	err       error // why the folder is unavailable
	stopWatch func()
	progress  *progress
}

// server is one client session: the lifecycle and feature handlers over
// a jsonrpc connection, the session behind them.
type server struct {
	opts    Options
	rpc     *jsonrpc.Server
	log     *logger
	backend Backend
	docs    *documentStore
	tokens  progressTokens

	commands     []Command
	commandIndex map[string]int

	// Session state, written on the ordered queue.
	mu           sync.RWMutex
	caps         clientCapabilities
	folders      []*folder
	baseSettings session.Settings // defaults + initializationOptions
	settings     session.Settings // in effect
	reportedKeys map[string]bool
	watchMode    string // "client", "server" or "none"
}

// stdio joins os.Stdin and os.Stdout.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return errors.Join(os.Stdin.Close(), os.Stdout.Close()) }

// Stdio returns the process's stdin and stdout as one stream for Serve.
func Stdio() io.ReadWriteCloser { return stdio{} }

// Serve runs a language server session over rwc until the client sends
// exit, the stream ends or ctx is cancelled, and returns the process exit
// code: 0 after shutdown then exit, 1 otherwise. rwc is closed on return.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) (exitCode int) {
	s := newServer(ctx, rwc, opts)
	return s.rpc.Run(s.closeAllFolders)
}

func newServer(ctx context.Context, rwc io.ReadWriteCloser, opts Options) *server {
	if opts.ClientRequestTimeout <= 0 {
		opts.ClientRequestTimeout = DefaultClientRequestTimeout
	}
	if opts.Name == "" {
		opts.Name = "context-ls"
	}
	s := &server{
		opts:         opts,
		log:          newLogger(opts.Logger, os.Stderr),
		backend:      opts.Backend,
		docs:         newDocumentStore(),
		baseSettings: session.ApplyEnv(session.DefaultSettings()),
		reportedKeys: make(map[string]bool),
		watchMode:    "none",
	}
	s.settings = s.baseSettings
	s.rpc = jsonrpc.NewServer(ctx, rwc, jsonrpc.Options{
		Logger: s.log, RequestTimeout: opts.RequestTimeout, MethodTimeouts: opts.MethodTimeouts,
		MaxConcurrent: opts.MaxConcurrent, MaxMessageBytes: opts.MaxMessageBytes, ShutdownTimeout: opts.ShutdownTimeout,
	})
	s.log.send = s.rpc.Notify
	s.commands = commandTable()
	if opts.commands != nil {
		s.commands = opts.commands
	}
	s.commandIndex = make(map[string]int, len(s.commands))
	for i, c := range s.commands {
		s.commandIndex[c.Name] = i
	}
	s.rpc.Handle(s.methodTable())
	if s.backend != nil {
		s.backend.OnStorage(s.storageChanged)
	}
	return s
}

// storageChanged tells the user, once per episode, that a folder's index
// stopped accepting writes (a full disk) or accepts them again.
func (s *server) storageChanged(root, state, message string) {
	if state == "ok" {
		s.showMessage(protocol.MessageTypeInfo, fmt.Sprintf("context-ls: the index of %s is written again; edits are indexed.", root))
		return
	}
	s.showMessage(protocol.MessageTypeError, fmt.Sprintf("context-ls: the index of %s cannot be written (%s); answers come from the index as it was, and edits are not indexed until this is fixed.", root, message))
}

// methodTable is the handler table.
func (s *server) methodTable() map[string]jsonrpc.Method {
	m := map[string]jsonrpc.Method{
		"initialize":  jsonrpc.Request(true, s.initialize),
		"shutdown":    jsonrpc.Request(true, s.shutdownRequest),
		"initialized": jsonrpc.Notification(s.initialized),

		"textDocument/didOpen":   jsonrpc.Notification(s.didOpen),
		"textDocument/didChange": jsonrpc.Notification(s.didChange),
		"textDocument/didClose":  jsonrpc.Notification(s.didClose),
		"textDocument/didSave":   jsonrpc.Notification(s.didSave),

		"workspace/didChangeConfiguration":    jsonrpc.Notification(s.didChangeConfiguration),
		"workspace/didChangeWatchedFiles":     jsonrpc.Notification(s.didChangeWatchedFiles),
		"workspace/didChangeWorkspaceFolders": jsonrpc.Notification(s.didChangeWorkspaceFolders),

		"textDocument/definition":           jsonrpc.Request(false, s.definition),
		"textDocument/references":           jsonrpc.Request(false, s.references),
		"textDocument/implementation":       jsonrpc.Request(false, s.implementation),
		"textDocument/hover":                jsonrpc.Request(false, s.hover),
		"textDocument/documentSymbol":       jsonrpc.Request(false, s.documentSymbol),
		"workspace/symbol":                  jsonrpc.Request(false, s.workspaceSymbol),
		"textDocument/prepareCallHierarchy": jsonrpc.Request(false, s.prepareCallHierarchy),
		"callHierarchy/incomingCalls":       jsonrpc.Request(false, s.incomingCalls),
		"callHierarchy/outgoingCalls":       jsonrpc.Request(false, s.outgoingCalls),
	}
	exec := jsonrpc.Request(false, s.executeCommand)
	exec.TimeoutOf = s.commandTimeout
	m["workspace/executeCommand"] = exec
	return m
}

// ctx is the session's context: it ends when the session stops.
func (s *server) ctx() context.Context { return s.rpc.Context() }

func (p *initializeParams) Validate() error {
	for i, f := range p.WorkspaceFolders {
		if f.URI == "" {
			return fmt.Errorf("workspaceFolders[%d].uri: required", i)
		}
	}
	return nil
}

// initialize handles the initialize request.
func (s *server) initialize(ctx context.Context, p initializeParams) (initializeResult, error) {
	base, issues := session.ParseSettings(session.DefaultSettings(), p.InitializationOptions)
	folders := s.initialFolders(p)
	s.mu.Lock()
	s.caps = p.Capabilities
	s.folders = folders
	s.baseSettings = base
	s.settings = session.ApplyEnv(base)
	s.mu.Unlock()
	s.log.setLevel(s.currentSettings().LogLevel)
	s.reportSettingsIssues(issues)
	client := "unknown client"
	if p.ClientInfo != nil {
		client = strings.TrimSpace(p.ClientInfo.Name + " " + p.ClientInfo.Version)
	}
	s.log.Info("initialize", "client", client, "folders", len(folders))
	s.rpc.Initialized()
	return initializeResult{
		Capabilities: s.capabilities(),
		ServerInfo:   &protocol.ServerInfo{Name: s.opts.Name, Version: s.opts.Version},
	}, nil
}

// initialFolders picks the workspace folders of initialize: the folders,
// else rootUri, else rootPath.
func (s *server) initialFolders(p initializeParams) []*folder {
	var out []*folder
	seen := map[string]bool{}
	add := func(uri, name string) {
		root, err := workspace.URIToPath(uri)
		if err != nil {
			s.log.Warn("workspace folder ignored", "uri", uri, "error", err)
			return
		}
		if seen[root] {
			return
		}
		seen[root] = true
		if name == "" {
			name = filepath.Base(root)
		}
		out = append(out, &folder{uri: uri, root: root, name: name})
	}
	switch {
	case len(p.WorkspaceFolders) > 0:
		for _, f := range p.WorkspaceFolders {
			add(f.URI, f.Name)
		}
	case p.RootURI != "":
		add(p.RootURI, "")
	case p.RootPath != "":
		if abs, err := filepath.Abs(p.RootPath); err == nil {
			add(workspace.PathToURI(abs), "")
		}
	}
	return out
}

// capabilities lists what the server advertises.
func (s *server) capabilities() serverCapabilities {
	names := make([]string, len(s.commands))
	for i, c := range s.commands {
		names[i] = c.Name
	}
	caps := serverCapabilities{
		TextDocumentSync: &protocol.TextDocumentSyncOptions{
			OpenClose: true,
			Change:    protocol.TextDocumentSyncKindIncremental,
			Save:      &protocol.SaveOptions{IncludeText: false},
		},
		DefinitionProvider:      true,
		ReferencesProvider:      true,
		ImplementationProvider:  true,
		HoverProvider:           true,
		DocumentSymbolProvider:  true,
		WorkspaceSymbolProvider: true,
		CallHierarchyProvider:   true,
		Workspace: &protocol.ServerCapabilitiesWorkspace{
			WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
		},
	}
	if len(names) > 0 {
		caps.ExecuteCommandProvider = &executeCommandOptions{Commands: names, WorkDoneProgress: true}
	}
	return caps
}

// initialized handles the initialized notification: settings are pulled
// if the client supports it, folders are opened and file watching starts.
func (s *server) initialized(ctx context.Context, _ json.RawMessage) error {
	s.mu.RLock()
	pull := s.caps.Workspace.Configuration
	folders := append([]*folder(nil), s.folders...)
	s.mu.RUnlock()
	if pull {
		s.pullSettings(ctx, false)
	}
	for _, f := range folders {
		s.openFolder(ctx, f)
	}
	s.setupWatching(ctx)
	return nil
}

// shutdownRequest handles shutdown: it waits (bounded) for in-flight
// requests, then closes the folders.
func (s *server) shutdownRequest(ctx context.Context, _ json.RawMessage) (any, error) {
	s.rpc.Drain()
	s.closeAllFolders()
	return nil, nil
}

// closeAllFolders closes every open folder and stops its watcher.
func (s *server) closeAllFolders() {
	s.mu.RLock()
	folders := append([]*folder(nil), s.folders...)
	s.mu.RUnlock()
	for _, f := range folders {
		s.closeFolder(f)
	}
}

// currentSettings returns the settings in effect.
func (s *server) currentSettings() session.Settings {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.settings
}

// showMessage sends window/showMessage.
func (s *server) showMessage(t protocol.MessageType, msg string) {
	if err := s.rpc.Notify("window/showMessage", protocol.ShowMessageParams{Type: t, Message: msg}); err != nil {
		s.log.Debug("showMessage not sent", "error", err)
	}
}

// reportSettingsIssues shows settings problems: unknown keys once per key
// for the session, other problems every time.
func (s *server) reportSettingsIssues(issues []session.SettingsIssue) {
	var lines []string
	s.mu.Lock()
	for _, is := range issues {
		if is.Unknown {
			if s.reportedKeys[is.Key] {
				continue
			}
			s.reportedKeys[is.Key] = true
		}
		lines = append(lines, is.Message)
	}
	s.mu.Unlock()
	for _, l := range lines {
		s.log.Warn("settings", "problem", l)
		s.showMessage(protocol.MessageTypeWarning, "context-ls settings: "+l)
	}
}

// pullSettings asks the client for the "contextLs" section and applies
// it; failures keep the current settings.
func (s *server) pullSettings(ctx context.Context, notify bool) {
	cctx, cancel := context.WithTimeout(ctx, s.opts.ClientRequestTimeout)
	defer cancel()
	raw, err := s.rpc.Call(cctx, "workspace/configuration", protocol.ConfigurationParams{
		Items: []protocol.ConfigurationItem{{Section: session.SettingsSection}},
	})
	if err != nil {
		s.log.Warn("workspace/configuration failed; keeping current settings", "error", err)
		return
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) != 1 {
		s.log.Warn("workspace/configuration: expected an array of one item", "result", logcap.Clip(string(raw), 200))
		return
	}
	s.applySettings(items[0], notify)
}

// applySettings parses a settings payload over the initialization options
// and, when notify is set and something changed, tells the backend.
func (s *server) applySettings(raw json.RawMessage, notify bool) {
	s.mu.RLock()
	base := s.baseSettings
	old := s.settings
	s.mu.RUnlock()
	next, issues := session.ParseSettings(base, raw)
	next = session.ApplyEnv(next)
	s.reportSettingsIssues(issues)
	if next.Equal(old) {
		return
	}
	s.mu.Lock()
	s.settings = next
	s.mu.Unlock()
	s.log.setLevel(next.LogLevel)
	s.log.Info("settings changed")
	if notify {
		if err := s.rpc.Protect("SettingsChanged", func() error { s.backend.SettingsChanged(next); return nil }); err != nil {
			s.log.Error("SettingsChanged failed", "error", err)
		}
	}
}

type didChangeConfigurationParams struct {
	Settings json.RawMessage `json:"settings"`
}

// didChangeConfiguration applies pushed settings, or pulls them when the
// notification carries none.
func (s *server) didChangeConfiguration(ctx context.Context, p didChangeConfigurationParams) error {
	s.mu.RLock()
	pull := s.caps.Workspace.Configuration
	s.mu.RUnlock()
	empty := len(p.Settings) == 0 || session.IsNull(p.Settings) || string(p.Settings) == "{}"
	if empty && pull {
		s.pullSettings(ctx, true)
		return nil
	}
	s.applySettings(p.Settings, true)
	return nil
}

// openFolder opens one folder through the backend, with progress.
func (s *server) openFolder(ctx context.Context, f *folder) {
	settings := s.currentSettings()
	p := s.newServerProgress("Indexing "+f.name, "files")
	err := s.rpc.Protect("OpenFolder", func() error {
		return s.backend.OpenFolder(ctx, f.root, settings, p.serviceFn())
	})
	if err != nil {
		s.mu.Lock()
		f.err = fmt.Errorf("opening %s: %w", f.root, err)
		s.mu.Unlock()
		p.end("failed")
		s.log.Error("cannot open workspace folder", "root", f.root, "error", err)
		s.showMessage(protocol.MessageTypeError, fmt.Sprintf("context-ls: cannot open %s: %v", f.root, err))
		return
	}
	s.mu.Lock()
	f.opened, f.err, f.progress = true, nil, p
	s.mu.Unlock()
	p.settle()
}

// closeFolder closes one folder through the backend and stops its
// watcher and progress.
func (s *server) closeFolder(f *folder) {
	s.mu.Lock()
	stop, opened, p := f.stopWatch, f.opened, f.progress
	f.stopWatch, f.opened, f.progress = nil, false, nil
	if f.err == nil {
		f.err = fmt.Errorf("%s: closed: %w", f.root, session.ErrFolderUnavailable)
	}
	s.mu.Unlock()
	p.end("stopped")
	if stop != nil {
		if err := s.rpc.Protect("watcher stop", func() error { stop(); return nil }); err != nil {
			s.log.Error("stopping watcher", "root", f.root, "error", err)
		}
	}
	if opened {
		if err := s.rpc.Protect("CloseFolder", func() error { return s.backend.CloseFolder(f.root) }); err != nil {
			s.log.Error("closing workspace folder", "root", f.root, "error", err)
		}
	}
}

// newServerProgress starts a reporter on a server-created token, or
// returns nil (a no-op reporter) when the client cannot show progress.
func (s *server) newServerProgress(title, unit string) *progress {
	s.mu.RLock()
	ok := s.caps.Window.WorkDoneProgress
	s.mu.RUnlock()
	if !ok {
		return nil
	}
	return startProgress(s.ctx(), s.rpc, s.tokens.newToken("progress"), true, title, unit, s.opts.ClientRequestTimeout)
}

type didChangeWorkspaceFoldersParams struct {
	Event protocol.WorkspaceFoldersChangeEvent `json:"event"`
}

// didChangeWorkspaceFolders closes removed folders and opens added ones.
func (s *server) didChangeWorkspaceFolders(ctx context.Context, p didChangeWorkspaceFoldersParams) error {
	for _, r := range p.Event.Removed {
		root, err := workspace.URIToPath(r.URI)
		if err != nil {
			s.log.Warn("removed folder ignored", "uri", r.URI, "error", err)
			continue
		}
		s.mu.Lock()
		var gone *folder
		for i, f := range s.folders {
			if f.root == root {
				gone = f
				s.folders = append(s.folders[:i:i], s.folders[i+1:]...)
				break
			}
		}
		s.mu.Unlock()
		if gone != nil {
			s.closeFolder(gone)
		}
	}
	for _, a := range p.Event.Added {
		root, err := workspace.URIToPath(a.URI)
		if err != nil {
			s.log.Warn("added folder ignored", "uri", a.URI, "error", err)
			continue
		}
		name := a.Name
		if name == "" {
			name = filepath.Base(root)
		}
		f := &folder{uri: a.URI, root: root, name: name}
		s.mu.Lock()
		dup := false
		for _, g := range s.folders {
			dup = dup || g.root == root
		}
		if !dup {
			s.folders = append(s.folders, f)
		}
		mode := s.watchMode
		s.mu.Unlock()
		if dup {
			continue
		}
		s.openFolder(ctx, f)
		if mode == "server" {
			s.startServerWatcher(f)
		}
	}
	return nil
}

// folderFor returns the open folder containing path (the deepest one when
// folders nest).
func (s *server) folderFor(path string) (*folder, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var best *folder
	for _, f := range s.folders {
		if session.Within(path, f.root) && (best == nil || len(f.root) > len(best.root)) {
			best = f
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%s: %w", path, session.ErrNoFolder)
	}
	if !best.opened {
		err := best.err
		if err == nil {
			err = fmt.Errorf("%s: %w", best.root, session.ErrFolderUnavailable)
		}
		return best, err
	}
	return best, nil
}

// openFolders returns the open folders, in order.
func (s *server) openFolders() []*folder {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*folder
	for _, f := range s.folders {
		if f.opened {
			out = append(out, f)
		}
	}
	return out
}

// mapperFor returns the position mapper of path's current text: the open
// document's, else the file on disk.
func (s *server) mapperFor(path string) (*Mapper, error) {
	if d := s.docs.get(path); d != nil {
		return d.Mapper(), nil
	}
	text, err := readFileLimited(path, jsonrpc.DefaultMaxMessageBytes)
	if err != nil {
		return nil, err
	}
	return NewMapper(text), nil
}

// errFileTooLarge reports a file too large to map positions in.
var errFileTooLarge = errors.New("file too large")

// readFileLimited reads a regular file of at most limit bytes. The file
// is checked before it is opened: opening a FIFO would block.
func readFileLimited(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("reading %s: not a regular file", path)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("reading %s: %d bytes: %w", path, info.Size(), errFileTooLarge)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("reading %s: grew past %d bytes: %w", path, limit, errFileTooLarge)
	}
	return b, nil
}
