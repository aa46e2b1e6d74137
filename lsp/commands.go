package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/context-ls/context-ls/internal/logcap"
	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"go.lsp.dev/protocol"
)

// The custom commands of workspace/executeCommand: one per operation of
// the service's table that has a command name (service.Op.Command), plus
// two about the language server itself (contextLs.status, and
// contextLs.definition inside a snippet). A command takes one argument
// object: the operation's arguments under their one name, except that a
// place in a document is given the LSP way (placeArgs) and converted
// here; the service checks the arguments, applies the defaults and runs
// the operation across the workspace folders (service.CallFolders). The
// answer is the operation's result with an LSP location added to every
// location in it (locate).

// Command is one custom command.
type Command struct {
	// Name is the command identifier ("contextLs.status").
	Name string
	// Title is the one-line description shown in the docs.
	Title string
	// Op is the service operation the command runs (nil for the server's
	// own commands).
	Op *service.Op
	// Args and Result are the zero values of a server command's argument
	// and result types (for decoding and the docs).
	Args, Result any
	// Timeout overrides the request deadline for this command.
	Timeout time.Duration
	// run executes a server command; args has Args's type.
	run func(ctx context.Context, env *CommandEnv, args any) (any, error)
}

// NewCommand builds a command of the server itself. A must be a struct
// type.
func NewCommand[A, R any](name, title string, run func(ctx context.Context, env *CommandEnv, args A) (R, error)) Command {
	var a A
	var r R
	return Command{
		Name: name, Title: title, Args: a, Result: r,
		run: func(ctx context.Context, env *CommandEnv, args any) (any, error) { return run(ctx, env, args.(A)) },
	}
}

// commandTable is the server's command table: the service's operations
// that have a command name, then the server's own.
func commandTable() []Command {
	var out []Command
	for _, o := range service.Ops {
		if o.Command != "" {
			out = append(out, Command{Name: o.Command, Title: o.Doc, Op: o})
		}
	}
	return append(out,
		NewCommand("contextLs.status",
			"Report the server's state: workspace folders, open documents, settings in effect and who watches files.",
			runStatus),
		NewCommand("contextLs.definition",
			"Definitions of the identifier at a position inside a snippet returned by another command, answered like textDocument/definition.",
			runSnippetDefinition),
	)
}

// placeArgs are the arguments naming a place the LSP way, which an
// operation's request names by file, line, column and lines: the document
// as textDocument (or a bare uri) with a position, a selection adding a
// range. symbol, the other way to name a definition, is the operation's
// own argument.
type placeArgs struct {
	TextDocument *textDocumentArg `json:"textDocument,omitempty" desc:"the document (TextDocumentPositionParams shape)"`
	URI          string           `json:"uri,omitempty" desc:"the document URI; shorthand for textDocument.uri"`
	Position     *positionArg     `json:"position,omitempty" desc:"a place in the document (0-based line, UTF-16 character): the definition there, a call there, or its line"`
	Range        *rangeArg        `json:"range,omitempty" desc:"a selection in the document: its lines (an operation about one definition takes the one at its start)"`
}

type (
	// textDocumentArg names a document.
	textDocumentArg struct {
		URI string `json:"uri" desc:"file URI of the document"`
	}
	// positionArg is an LSP position.
	positionArg struct {
		Line      uint32 `json:"line" desc:"0-based line"`
		Character uint32 `json:"character" desc:"0-based offset in the line, in UTF-16 code units"`
	}
	// rangeArg is an LSP range.
	rangeArg struct {
		Start positionArg `json:"start" desc:"first position"`
		End   positionArg `json:"end" desc:"position just after the range"`
	}
	// locationArg is an LSP Location.
	locationArg struct {
		URI   string   `json:"uri" desc:"file URI"`
		Range rangeArg `json:"range" desc:"the span in the file"`
	}
)

// placeFields are the request arguments a place fills.
var placeFields = []string{"file", "line", "column", "lines"}

// takesPlace reports whether an operation's request has the arguments a
// place fills (file and line).
func takesPlace(o *service.Op) bool {
	return hasField(o, "file") && hasField(o, "line")
}

func hasField(o *service.Op, name string) bool {
	for _, f := range service.Fields(o.Request) {
		if f.Name == name {
			return true
		}
	}
	return false
}

// CommandEnv gives a running command what it needs from the session.
type CommandEnv struct {
	s        *server
	token    json.RawMessage
	progress *progress
	// jobs report progress past the command (a reindex job per folder).
	jobsMu sync.Mutex
	jobs   map[string]*progress
}

// runOperation runs a service operation with the command's argument
// object: the place converted, the operation run across the folders, its
// locations given LSP ranges.
func (e *CommandEnv) runOperation(ctx context.Context, o *service.Op, raw json.RawMessage) (json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if len(raw) > 0 && !session.IsNull(raw) {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, jsonrpc.InvalidParams("arguments[0]: must be an object")
		}
	}
	doc, err := e.place(o, args)
	if err != nil {
		return nil, err
	}
	if doc != "" {
		if err := e.s.backend.Sync(ctx, doc, session.NeedText); err != nil {
			return nil, err
		}
	} else if err := e.s.syncAll(ctx, session.NeedText); err != nil {
		return nil, err
	}
	req, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	ctx = service.WithProgress(ctx, e.jobProgress)
	res, err := e.s.callFolders(ctx, o.Name, req)
	if err != nil {
		return nil, e.argError(err, doc != "")
	}
	return e.s.newLocator().locate(res)
}

// place converts the place arguments of args, in place, to the request's
// file (absolute), line, column and lines; it returns the document's path
// ("" when none is given).
func (e *CommandEnv) place(o *service.Op, args map[string]json.RawMessage) (string, error) {
	var a placeArgs
	given := false
	for _, k := range []string{"textDocument", "uri", "position", "range"} {
		if v, ok := args[k]; ok {
			given = true
			delete(args, k)
			if err := json.Unmarshal(v, fieldOf(&a, k)); err != nil {
				return "", argTypeError("arguments[0]."+k, err)
			}
		}
	}
	if !given {
		return "", nil
	}
	if !takesPlace(o) {
		return "", jsonrpc.InvalidParams("arguments[0]: %s takes no place in a document", o.Command)
	}
	for _, k := range placeFields {
		if _, ok := args[k]; ok {
			return "", jsonrpc.InvalidParams("arguments[0].%s: give a place as textDocument, position and range", k)
		}
	}
	uri := a.URI
	if a.TextDocument != nil {
		if a.TextDocument.URI == "" {
			return "", jsonrpc.InvalidParams("arguments[0].textDocument.uri: required")
		}
		if uri != "" && uri != a.TextDocument.URI {
			return "", jsonrpc.InvalidParams("arguments[0].uri: disagrees with textDocument.uri")
		}
		uri = a.TextDocument.URI
	}
	if uri == "" {
		return "", jsonrpc.InvalidParams("arguments[0].textDocument.uri: required with position or range")
	}
	if _, ok := args["symbol"]; ok {
		return "", jsonrpc.InvalidParams("arguments[0].symbol: give a symbol or a document, not both")
	}
	path, err := docPath("arguments[0].textDocument.uri", uri)
	if err != nil {
		return "", err
	}
	set := func(k string, v any) { args[k], _ = json.Marshal(v) }
	set("file", path)
	switch {
	case a.Range != nil && a.Range.Start != a.Range.End && hasField(o, "lines"):
		start, _, err := e.s.charPosition("arguments[0].textDocument.uri", path, protocol.Position(a.Range.Start))
		end, endCol, err2 := e.s.charPosition("arguments[0].textDocument.uri", path, protocol.Position(a.Range.End))
		if err = errors.Join(err, err2); err != nil && !fileGone(path) {
			return "", err
		} else if err != nil {
			// The file is gone: its lines are still a selection (to unpin a
			// pin of them, say); the service says what else cannot be done.
			start, end, endCol = int(a.Range.Start.Line)+1, int(a.Range.End.Line)+1, int(a.Range.End.Character)+1
		}
		if end < start {
			return "", jsonrpc.InvalidParams("arguments[0].range: end before start")
		}
		if endCol == 1 && end > start {
			end-- // a selection ending at the start of a line leaves that line out
		}
		set("lines", fmt.Sprintf("%d-%d", start, end))
	case a.Position != nil || a.Range != nil:
		at := a.Position
		if at == nil {
			at = &a.Range.Start // a selection stands for the definition (or call) at its start
		}
		line, col, err := e.s.charPosition("arguments[0].textDocument.uri", path, protocol.Position(*at))
		if err != nil {
			return "", err
		}
		set("line", line)
		set("column", col)
	}
	return path, nil
}

// fieldOf returns the field of a that the argument k decodes into.
func fieldOf(a *placeArgs, k string) any {
	switch k {
	case "textDocument":
		return &a.TextDocument
	case "uri":
		return &a.URI
	case "position":
		return &a.Position
	}
	return &a.Range
}

// argTypeError is the InvalidParams error of an argument (path) that does
// not decode: what was expected where.
func argTypeError(path string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			path += "." + te.Field
		}
		return jsonrpc.InvalidParams("%s: expected %s", path, jsonrpc.JSONTypeName(te.Type))
	}
	return jsonrpc.InvalidParams("%s: %v", path, err)
}

// fileGone reports whether path does not exist (and is not open).
func fileGone(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// argError converts a service error for a command: an argument error
// names the command's argument (the place's, when the service's was filled
// from it).
func (e *CommandEnv) argError(err error, placed bool) error {
	var se *service.Error
	if !errors.As(err, &se) || (se.Code != service.CodeInvalid && se.Code != service.CodeNotFound) {
		return rpcError(err)
	}
	if se.Field == "" {
		return jsonrpc.InvalidParams("arguments[0]: %s", se.Message)
	}
	field := se.Field
	if placed {
		if name, ok := placeArgument[field]; ok {
			field = name
		}
	}
	return jsonrpc.InvalidParams("arguments[0].%s: %s", field, se.Message)
}

// placeArgument names the place argument that filled a request argument:
// errors speak of what the client sent.
var placeArgument = map[string]string{"file": "textDocument", "lines": "range", "line": "position", "column": "position"}

// jobProgress reports a long operation's progress — a reindex job, past
// the command — on the client's workDoneToken when it sent one (the first
// job's), else on a server-created token, else nowhere; each job (each
// title) has its own.
func (e *CommandEnv) jobProgress(p service.Progress) {
	e.jobsMu.Lock()
	pr, ok := e.jobs[p.Title]
	if !ok {
		if e.jobs == nil {
			e.jobs = map[string]*progress{}
		}
		if len(e.token) > 0 && !session.IsNull(e.token) && len(e.jobs) == 0 {
			pr = startProgress(e.s.ctx(), e.s.rpc, e.token, false, p.Title, "files", e.s.opts.ClientRequestTimeout)
		} else {
			pr = e.s.newServerProgress(p.Title, "files")
		}
		e.jobs[p.Title] = pr
	}
	e.jobsMu.Unlock()
	if p.End {
		pr.end(p.Message)
		return
	}
	pr.reportMessage(p.Done, p.Total, p.Message)
}

// Progress starts progress reporting for the command: on the client's
// workDoneToken when it sent one, else on a server-created token when the
// client supports that, else nowhere. It ends when the command returns;
// one call per command.
func (e *CommandEnv) Progress(title, unit string) func(done, total int) {
	if e.progress == nil {
		switch {
		case len(e.token) > 0 && !session.IsNull(e.token):
			e.progress = startProgress(e.s.ctx(), e.s.rpc, e.token, false, title, unit, e.s.opts.ClientRequestTimeout)
		default:
			e.progress = e.s.newServerProgress(title, unit)
		}
	}
	return e.progress.fn()
}

type executeCommandParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments"`
	WorkDoneToken json.RawMessage   `json:"workDoneToken"`
}

func (p *executeCommandParams) Validate() error {
	if p.Command == "" {
		return errors.New("command: required")
	}
	return nil
}

// commandTimeout is the deadline of the command named in raw params, or 0.
func (s *server) commandTimeout(raw json.RawMessage) time.Duration {
	var p struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return 0
	}
	if i, ok := s.commandIndex[p.Command]; ok {
		return s.commands[i].Timeout
	}
	return 0
}

func (s *server) executeCommand(ctx context.Context, p executeCommandParams) (any, error) {
	i, ok := s.commandIndex[p.Command]
	if !ok {
		names := make([]string, len(s.commands))
		for j, c := range s.commands {
			names[j] = c.Name
		}
		return nil, jsonrpc.InvalidParams("command: unknown command %q (known: %s)", logcap.Clip(p.Command, 100), strings.Join(names, ", "))
	}
	cmd := s.commands[i]
	if len(p.Arguments) > 1 {
		return nil, jsonrpc.InvalidParams("arguments: %s takes one argument object, got %d arguments", cmd.Name, len(p.Arguments))
	}
	var arg json.RawMessage
	if len(p.Arguments) == 1 {
		arg = p.Arguments[0]
	}
	env := &CommandEnv{s: s, token: p.WorkDoneToken}
	defer func() {
		env.progress.end("")
		if env.progress != nil && !env.progress.create {
			// Progress on the client's token ends before the response: the
			// token means nothing to the client once the request is answered.
			wctx, cancel := context.WithTimeout(s.ctx(), time.Second)
			env.progress.wait(wctx)
			cancel()
		}
	}()
	if cmd.Op != nil {
		return env.runOperation(ctx, cmd.Op, arg)
	}
	args, err := decodeCommandArgs(cmd, arg)
	if err != nil {
		return nil, err
	}
	return cmd.run(ctx, env, args)
}

// decodeCommandArgs decodes a server command's argument object into a
// fresh value of its Args type, unknown fields rejected.
func decodeCommandArgs(cmd Command, raw json.RawMessage) (any, error) {
	t := reflect.TypeOf(cmd.Args)
	v := reflect.New(t)
	if len(raw) > 0 && !session.IsNull(raw) {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v.Interface()); err != nil {
			if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				return nil, jsonrpc.InvalidParams("arguments[0]: unknown field %s", msg)
			}
			return nil, argTypeError("arguments[0]", err)
		}
	}
	if val, ok := v.Interface().(jsonrpc.Validator); ok {
		if err := val.Validate(); err != nil {
			return nil, jsonrpc.InvalidParams("arguments[0].%v", err)
		}
	}
	return v.Elem().Interface(), nil
}

// ---------------------------------------------------------------------------
// The server's own commands.

// StatusArgs are the (empty) arguments of contextLs.status.
type StatusArgs struct{}

// StatusResult is the result of contextLs.status.
type StatusResult struct {
	Server    ServerStatus     `json:"server" desc:"the server"`
	Folders   []FolderStatus   `json:"folders" desc:"workspace folders, in the client's order"`
	Documents []DocumentStatus `json:"documents" desc:"open documents, sorted by path"`
	Settings  session.Settings `json:"settings" desc:"settings in effect"`
	Watching  string           `json:"watching" desc:"who reports changes on disk: client, server or none"`
}

// ServerStatus names the server.
type ServerStatus struct {
	Name    string `json:"name" desc:"server name"`
	Version string `json:"version" desc:"server version"`
}

// FolderStatus is one workspace folder's state.
type FolderStatus struct {
	URI   string `json:"uri" desc:"folder URI"`
	Path  string `json:"path" desc:"absolute folder path"`
	Name  string `json:"name" desc:"folder name"`
	State string `json:"state" desc:"open or unavailable"`
	Error string `json:"error,omitempty" desc:"why the folder is unavailable"`
}

// DocumentStatus is one open document.
type DocumentStatus struct {
	URI     string `json:"uri" desc:"document URI"`
	Version int32  `json:"version" desc:"the client's version number"`
	Bytes   int    `json:"bytes" desc:"size of the text in bytes"`
}

func runStatus(_ context.Context, env *CommandEnv, _ StatusArgs) (StatusResult, error) {
	s := env.s
	s.mu.RLock()
	res := StatusResult{
		Server:    ServerStatus{Name: s.opts.Name, Version: s.opts.Version},
		Folders:   []FolderStatus{},
		Documents: []DocumentStatus{},
		Settings:  s.settings,
		Watching:  s.watchMode,
	}
	for _, f := range s.folders {
		fs := FolderStatus{URI: f.uri, Path: f.root, Name: f.name, State: "open"}
		if !f.opened {
			fs.State = "unavailable"
			if f.err != nil {
				fs.Error = f.err.Error()
			}
		}
		res.Folders = append(res.Folders, fs)
	}
	s.mu.RUnlock()
	if res.Settings.Ignore == nil {
		res.Settings.Ignore = []string{}
	}
	for _, d := range s.docs.all() {
		res.Documents = append(res.Documents, DocumentStatus{URI: d.URI, Version: d.Version, Bytes: len(d.Text)})
	}
	return res, nil
}

// SnippetDefinitionArgs are the arguments of contextLs.definition.
type SnippetDefinitionArgs struct {
	Location *locationArg `json:"location" desc:"the snippet's location, as a command returned it"`
	Position *positionArg `json:"position" desc:"a position inside the snippet text: line counted from the snippet's first line (0), character in UTF-16 units from the start of that line of the snippet"`
}

func (a *SnippetDefinitionArgs) Validate() error {
	switch {
	case a.Location == nil || a.Location.URI == "":
		return errors.New("location.uri: required")
	case a.Position == nil:
		return errors.New("position: required")
	case a.Location.Range.End.Line < a.Location.Range.Start.Line:
		return errors.New("location.range: end before start")
	case a.Position.Line > a.Location.Range.End.Line-a.Location.Range.Start.Line:
		return fmt.Errorf("position.line: %d is past the snippet's last line %d", a.Position.Line, a.Location.Range.End.Line-a.Location.Range.Start.Line)
	}
	return nil
}

func runSnippetDefinition(ctx context.Context, env *CommandEnv, a SnippetDefinitionArgs) ([]protocol.Location, error) {
	pos := protocol.Position{Line: a.Location.Range.Start.Line + a.Position.Line, Character: a.Position.Character}
	if a.Position.Line == 0 {
		pos.Character += a.Location.Range.Start.Character
	}
	locs, err := env.s.definition(ctx, positionParams{TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(a.Location.URI)}, Position: pos})
	if err != nil {
		var re *jsonrpc.ResponseError
		if errors.As(err, &re) {
			return nil, jsonrpc.InvalidParams("arguments[0].location: %s", re.Message)
		}
		return nil, err
	}
	return locs, nil
}
