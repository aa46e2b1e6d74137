package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/context-ls/context-ls/internal/logcap"

	"github.com/context-ls/context-ls/lsp/jsonrpc"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
	"go.lsp.dev/protocol"
)

// Command is one custom command of workspace/executeCommand. The table of
// commands drives dispatch, the advertised command list and
// docs/commands.md.
type Command struct {
	// Name is the command identifier ("contextLs.status").
	Name string
	// Title is the one-line description shown in the docs.
	Title string
	// Args is the zero value of the argument struct; the command's single
	// argument object is decoded into a fresh value of its type, unknown
	// fields rejected.
	Args any
	// Result is the zero value of the result type (for the docs).
	Result any
	// Timeout overrides the request deadline for this command.
	Timeout time.Duration
	// Run executes the command; args has Args's type.
	Run func(ctx context.Context, env *CommandEnv, args any) (any, error)
}

// NewCommand builds a typed Command. A must be a struct type.
func NewCommand[A, R any](name, title string, run func(ctx context.Context, env *CommandEnv, args A) (R, error)) Command {
	var a A
	var r R
	return Command{
		Name: name, Title: title, Args: a, Result: r,
		Run: func(ctx context.Context, env *CommandEnv, args any) (any, error) {
			typed, ok := args.(A)
			if !ok {
				return nil, fmt.Errorf("%s: arguments of type %T, want %T", name, args, a)
			}
			return run(ctx, env, typed)
		},
	}
}

// commandTable is the server's command table. Engine-backed commands
// need folders opened by a [Backend]; with another backend they answer
// an error saying so.
func commandTable() []Command {
	return []Command{
		NewCommand("contextLs.status",
			"Report the server's state: workspace folders, open documents, settings in effect and who watches files.",
			runStatus),
		NewCommand("contextLs.search",
			"Ranked, located search over every workspace folder (BM25, symbol names and file evidence fused); each hit carries its snippet and exact location.",
			runSearch),
		NewCommand("contextLs.definition",
			"Definitions of the identifier at a position inside a snippet returned by another command, answered like textDocument/definition.",
			runSnippetDefinition),
		NewCommand("contextLs.stats",
			"Per folder: index size and completeness, languages, embeddings state, search latency, cache hit rate, pack size and recent activity; plus recent reindex jobs.",
			runStats),
		NewCommand("contextLs.reindex",
			"Parse and write again every selected file (all folders by default) in a background job reported with $/progress; refuses without confirm: true; dryRun lists the files instead.",
			runReindex),
		NewCommand("contextLs.callers",
			"Definitions that call the definition at a place (or a call site's callee, or every definition of a symbol name), best first, with the call sites and how each call was resolved.",
			runCallers),
		NewCommand("contextLs.callees",
			"Definitions the definition at a place (or named by symbol) calls, best first, with the call sites and the calls that match nothing in the workspace.",
			runCallees),
		NewCommand("contextLs.tests",
			"Tests that exercise the definition at a place or named by symbol: calling it directly, within two hops, or by naming convention.",
			runTests),
		NewCommand("contextLs.contextPack",
			"A token-budgeted context pack for a query and/or a place (selection, definition at a position, symbol, or a whole document): the most relevant snippets from search, definitions, the code graph, similar code, docs, co-changes and pins, rendered, each with its location.",
			runContextPack),
		NewCommand("contextLs.relatedContext",
			"What bears on a place, best first, without a budget: the definitions it uses, its callers, callees and tests, similar code, docs and co-changed files, with locations, reasons and text.",
			runRelated),
		NewCommand("contextLs.pin",
			"Pin a selection's lines, a definition or a whole document so that every context pack of its folder includes it; answers the folder's pins.",
			runPin),
		NewCommand("contextLs.unpin",
			"Remove a pin (named as contextLs.pin names it), or every pin of a folder with all; answers the folder's pins.",
			runUnpin),
		NewCommand("contextLs.pins",
			"List a folder's pins: what every context pack includes, with the tokens each adds.",
			runPins),
		NewCommand("contextLs.similar",
			"Snippets whose embeddings are nearest to a text, a selection, the definition at a position or a symbol's definition; fails saying why when embeddings are off or unavailable.",
			runSimilar),
	}
}

// Argument shapes shared by commands. They serialise exactly like the LSP
// types of the same names.
type (
	// TextDocumentArg names a document.
	TextDocumentArg struct {
		URI string `json:"uri" desc:"file URI of the document"`
	}
	// PositionArg is an LSP position.
	PositionArg struct {
		Line      uint32 `json:"line" desc:"0-based line"`
		Character uint32 `json:"character" desc:"0-based offset in the line, in UTF-16 code units"`
	}
	// RangeArg is an LSP range.
	RangeArg struct {
		Start PositionArg `json:"start" desc:"first position"`
		End   PositionArg `json:"end" desc:"position just after the range"`
	}
	// LocationResult is an LSP Location: every result item of a
	// place-based command carries one.
	LocationResult struct {
		URI   string   `json:"uri" desc:"file URI"`
		Range RangeArg `json:"range" desc:"the span in the file"`
	}
)

// PlaceArgs is the argument convention of every place-based command:
// textDocument (or a bare uri) with a position, or a symbol; a selection
// adds range. Embed it in a command's argument struct.
type PlaceArgs struct {
	TextDocument *TextDocumentArg `json:"textDocument,omitempty" desc:"the document (TextDocumentPositionParams shape)"`
	URI          string           `json:"uri,omitempty" desc:"the document URI; shorthand for textDocument.uri"`
	Position     *PositionArg     `json:"position,omitempty" desc:"the place in the document; required with a document unless range is given"`
	Range        *RangeArg        `json:"range,omitempty" desc:"a selection in the document"`
	Symbol       string           `json:"symbol,omitempty" desc:"a symbol name (Name or Container.Name) instead of a document place"`
}

// CommandEnv gives a running command what it needs from the session.
type CommandEnv struct {
	s        *server
	token    json.RawMessage
	progress *progress
	loc      *locator
}

// place is a command's place in service terms: the document's folder and
// service (nil for a symbol alone: every folder is asked) and the
// selection.
type place struct {
	doc *doc
	sel service.Selection
	// start is the position of a selection's start (graph commands take
	// the definition or call there).
	start service.Target
}

// release ends the use of the place's service.
func (p place) release() {
	if p.doc != nil {
		p.doc.release()
	}
}

// resolvePlace checks place arguments and converts them to a selection
// of the service: a symbol; a document with a non-empty range (its lines)
// or a position (the definition there, or its line); a document alone (the
// whole file). Errors are InvalidParams naming the field.
func (e *CommandEnv) resolvePlace(ctx context.Context, a PlaceArgs) (place, error) {
	uri := a.URI
	if a.TextDocument != nil {
		if a.TextDocument.URI == "" {
			return place{}, jsonrpc.InvalidParams("arguments[0].textDocument.uri: required")
		}
		if uri != "" && uri != a.TextDocument.URI {
			return place{}, jsonrpc.InvalidParams("arguments[0].uri: disagrees with textDocument.uri")
		}
		uri = a.TextDocument.URI
	}
	if uri == "" {
		switch {
		case a.Symbol != "" && (a.Position != nil || a.Range != nil):
			return place{}, jsonrpc.InvalidParams("arguments[0].textDocument.uri: required with position or range")
		case a.Symbol != "":
			return place{sel: service.Selection{Target: service.Target{Symbol: a.Symbol}}}, nil
		case a.Position != nil || a.Range != nil:
			return place{}, jsonrpc.InvalidParams("arguments[0].textDocument.uri: required with position or range")
		default:
			return place{}, jsonrpc.InvalidParams("arguments[0].textDocument: required (with position), or symbol")
		}
	}
	if a.Symbol != "" {
		return place{}, jsonrpc.InvalidParams("arguments[0].symbol: give a symbol or a document, not both")
	}
	d, err := e.s.document("arguments[0].textDocument.uri", uri)
	if err != nil {
		return place{}, err
	}
	if err := e.s.backend.Sync(ctx, d.path, session.NeedText); err != nil {
		d.release()
		return place{}, err
	}
	p := place{doc: d, sel: service.Selection{Target: service.Target{File: d.rel}}}
	switch {
	case a.Range != nil && (a.Range.Start != a.Range.End):
		start, startCol, err := e.s.charPosition("arguments[0].textDocument.uri", d.path, protocol.Position(a.Range.Start))
		end, endCol, err2 := e.s.charPosition("arguments[0].textDocument.uri", d.path, protocol.Position(a.Range.End))
		if err = errors.Join(err, err2); err != nil && !fileGone(d.path) {
			d.release()
			return place{}, err
		} else if err != nil {
			// The file is gone: its lines are still a selection (to unpin a
			// pin of them, say); the service says what else cannot be done.
			start, startCol = int(a.Range.Start.Line)+1, 0
			end, endCol = int(a.Range.End.Line)+1, int(a.Range.End.Character)+1
		}
		if end < start {
			d.release()
			return place{}, jsonrpc.InvalidParams("arguments[0].range: end before start")
		}
		if endCol == 1 && end > start {
			end-- // a selection ending at the start of a line leaves that line out
		}
		p.sel.Lines = fmt.Sprintf("%d-%d", start, end)
		p.start = service.Target{File: d.rel, Line: start, Column: startCol}
	case a.Position != nil || a.Range != nil:
		at := a.Position
		if at == nil {
			at = &a.Range.Start
		}
		if p.sel.Line, p.sel.Column, err = e.s.charPosition("arguments[0].textDocument.uri", d.path, protocol.Position(*at)); err != nil {
			d.release()
			return place{}, err
		}
	}
	return p, nil
}

// fileGone reports whether path does not exist (and is not open).
func fileGone(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// services runs fn on the service a place names: its document's folder,
// or, for a symbol alone, each open folder in turn until one knows the
// symbol (all: every folder; fn's errors of "not found" move on).
func (e *CommandEnv) services(ctx context.Context, p place, all bool, fn func(f *folder, svc *service.Service) error) error {
	if p.doc != nil {
		return fn(p.doc.f, p.doc.svc)
	}
	found := false
	var missing error
	err := e.s.eachFolder(ctx, "command", session.NeedText, func(f *folder, svc *service.Service) error {
		if found && !all {
			return nil
		}
		err := fn(f, svc)
		if errors.Is(err, service.ErrNotFound) {
			missing = err
			return nil
		}
		found = found || err == nil
		return err
	})
	if err == nil && !found && missing != nil {
		return missing
	}
	return err
}

// location converts a service location of a folder for a result.
func (e *CommandEnv) location(f *folder, l service.Location) LocationResult {
	if e.loc == nil {
		e.loc = e.s.newLocator()
	}
	r := e.loc.serviceRange(f.abs(l.Path), l.Range)
	return LocationResult{URI: string(f.fileURI(l.Path)), Range: RangeArg{
		Start: PositionArg{Line: r.Start.Line, Character: r.Start.Character},
		End:   PositionArg{Line: r.End.Line, Character: r.End.Character},
	}}
}

// argError converts a service error for a command: an argument error
// names the command's argument.
func argError(err error) error {
	var se *service.Error
	if errors.As(err, &se) && (se.Code == service.CodeInvalid || se.Code == service.CodeNotFound) {
		if se.Field == "" {
			return jsonrpc.InvalidParams("arguments[0]: %s", se.Message)
		}
		field := se.Field
		if name, ok := commandArgument[field]; ok {
			field = name
		}
		return jsonrpc.InvalidParams("arguments[0].%s: %s", field, se.Message)
	}
	return rpcError(err)
}

// commandArgument names the command argument that fills a service
// request field of another name: errors speak of what the client sent.
var commandArgument = map[string]string{
	"file": "textDocument", "lines": "range", "line": "position", "column": "position",
	"budget": "budgetTokens", "snippet": "text",
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
	args, err := decodeCommandArgs(cmd, p.Arguments)
	if err != nil {
		return nil, err
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
	return cmd.Run(ctx, env, args)
}

// decodeCommandArgs decodes the single argument object into a fresh value
// of the command's Args type.
func decodeCommandArgs(cmd Command, raw []json.RawMessage) (any, error) {
	t := reflect.TypeOf(cmd.Args)
	if t == nil {
		return nil, fmt.Errorf("command %s has no argument type", cmd.Name)
	}
	v := reflect.New(t)
	switch {
	case len(raw) > 1:
		return nil, jsonrpc.InvalidParams("arguments: %s takes one argument object, got %d arguments", cmd.Name, len(raw))
	case len(raw) == 1 && !session.IsNull(raw[0]):
		dec := json.NewDecoder(bytes.NewReader(raw[0]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v.Interface()); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				field := "arguments[0]"
				if te.Field != "" {
					field += "." + jsonPath(t, te.Field)
				}
				return nil, jsonrpc.InvalidParams("%s: expected %s", field, jsonrpc.JSONTypeName(te.Type))
			}
			if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				return nil, jsonrpc.InvalidParams("arguments[0]: unknown field %s", msg)
			}
			return nil, jsonrpc.InvalidParams("arguments[0]: %v", err)
		}
	}
	if val, ok := v.Interface().(jsonrpc.Validator); ok {
		if err := val.Validate(); err != nil {
			return nil, jsonrpc.InvalidParams("arguments[0].%v", err)
		}
	}
	return v.Elem().Interface(), nil
}

// jsonPath rewrites a field path of encoding/json, which names embedded
// structs by their Go name ("PlaceArgs.textDocument.uri"), in the client's
// terms: the JSON names only ("textDocument.uri").
func jsonPath(t reflect.Type, path string) string {
	var out []string
	for _, part := range strings.Split(path, ".") {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			out = append(out, part)
			continue
		}
		if f, ok := t.FieldByName(part); ok && f.Anonymous {
			t = f.Type
			continue
		}
		out = append(out, part)
		if f, ok := jsonField(t, part); ok {
			t = f.Type
		}
	}
	return strings.Join(out, ".")
}

// jsonField finds the field of struct t whose JSON name is name, looking
// into embedded structs.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for _, f := range reflect.VisibleFields(t) {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name || (tag == "" && strings.EqualFold(f.Name, name)) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

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

// placeConvention is the prose of docs/commands.md about arguments.
const placeConvention = `Commands run through ` + "`workspace/executeCommand`" + ` with at most one argument: a
JSON object decoded into the command's argument type. Unknown fields, wrong types and
unknown commands are answered with InvalidParams (-32602) naming the field or command.

Place-based commands share one argument shape: the document as ` + "`textDocument: {uri}`" + `
(a bare ` + "`uri`" + ` beside ` + "`position`" + ` is accepted too) with a ` + "`position`" + `
(the TextDocumentPositionParams shape), or a ` + "`symbol`" + ` name instead of a place; a
selection adds ` + "`range`" + `. Positions are LSP positions: 0-based lines and UTF-16
character offsets. Every result item of a place-based command carries an LSP ` + "`Location`" + `
(` + "`uri`" + ` and ` + "`range`" + `).

A client may send a ` + "`workDoneToken`" + ` with the request; long commands report progress on it.`

// CommandsMarkdown renders the command reference (docs/commands.md).
func CommandsMarkdown(cmds []Command) string {
	var b strings.Builder
	b.WriteString("# context-ls commands\n\n")
	b.WriteString("<!-- Generated from lsp/commands.go by `go test ./lsp -run TestCommandsDoc -update`; do not edit. -->\n\n")
	b.WriteString(placeConvention)
	b.WriteString("\n\n## Place arguments\n\n")
	writeFields(&b, reflect.TypeOf(PlaceArgs{}))
	b.WriteString("\n## Location\n\n")
	writeFields(&b, reflect.TypeOf(LocationResult{}))
	sorted := append([]Command(nil), cmds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	b.WriteString("\n## Commands\n")
	if len(sorted) == 0 {
		b.WriteString("\nNo commands yet.\n")
	}
	for _, c := range sorted {
		fmt.Fprintf(&b, "\n### `%s`\n\n%s\n\n", c.Name, c.Title)
		b.WriteString("**Arguments**")
		if t := reflect.TypeOf(c.Args); t == nil || countFields(t) == 0 {
			b.WriteString(": none.\n\n")
		} else {
			b.WriteString("\n\n")
			writeFields(&b, t)
			b.WriteString("\n")
		}
		b.WriteString("**Result**")
		if t := reflect.TypeOf(c.Result); t == nil || deref(t).Kind() != reflect.Struct {
			fmt.Fprintf(&b, ": %s.\n", describeType(t))
		} else {
			b.WriteString("\n\n")
			writeFields(&b, t)
		}
	}
	return b.String()
}

// docField is one row of a field table.
type docField struct {
	path, typ, doc string
}

func writeFields(b *strings.Builder, t reflect.Type) {
	var rows []docField
	collectFields(&rows, deref(t), "", map[reflect.Type]bool{})
	b.WriteString("| field | type | description |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", r.path, r.typ, strings.ReplaceAll(r.doc, "|", "\\|"))
	}
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func countFields(t reflect.Type) int {
	var rows []docField
	collectFields(&rows, deref(t), "", map[reflect.Type]bool{})
	return len(rows)
}

// collectFields lists the JSON fields of struct t, nested structs and
// arrays of structs included, with dotted paths ("folders[].uri").
func collectFields(rows *[]docField, t reflect.Type, prefix string, visiting map[reflect.Type]bool) {
	if t == nil || t.Kind() != reflect.Struct || visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Anonymous && name == "" && deref(f.Type).Kind() == reflect.Struct {
			collectFields(rows, deref(f.Type), prefix, visiting)
			continue
		}
		if name == "" {
			name = f.Name
		}
		typ := describeType(f.Type)
		if strings.Contains(","+opts+",", ",omitempty,") || f.Type.Kind() == reflect.Pointer {
			typ += ", optional"
		}
		path := prefix + name
		*rows = append(*rows, docField{path: path, typ: typ, doc: f.Tag.Get("desc")})
		inner := deref(f.Type)
		switch {
		case inner.Kind() == reflect.Struct && !isOpaqueJSON(inner):
			collectFields(rows, inner, path+".", visiting)
		case inner.Kind() == reflect.Slice || inner.Kind() == reflect.Array:
			if el := deref(inner.Elem()); el.Kind() == reflect.Struct && !isOpaqueJSON(el) {
				collectFields(rows, el, path+"[].", visiting)
			}
		}
	}
}

// isOpaqueJSON reports types that marshal themselves.
func isOpaqueJSON(t reflect.Type) bool {
	m := reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	return t.Implements(m) || reflect.PointerTo(t).Implements(m)
}

// describeType names the JSON shape of a Go type.
func describeType(t reflect.Type) string {
	if t == nil {
		return "null"
	}
	t = deref(t)
	if t == reflect.TypeOf(json.RawMessage(nil)) {
		return "any JSON"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array of " + describeType(t.Elem())
	case reflect.Map:
		return "object of " + describeType(t.Elem())
	case reflect.Struct:
		return "object"
	default:
		return "any JSON"
	}
}
