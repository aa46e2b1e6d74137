package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

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
			"Remove a pin (named as contextLs.pin names it); answers the folder's pins.",
			runUnpin),
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
		URI string `json:"uri" doc:"file URI of the document"`
	}
	// PositionArg is an LSP position.
	PositionArg struct {
		Line      uint32 `json:"line" doc:"0-based line"`
		Character uint32 `json:"character" doc:"0-based offset in the line, in UTF-16 code units"`
	}
	// RangeArg is an LSP range.
	RangeArg struct {
		Start PositionArg `json:"start" doc:"first position"`
		End   PositionArg `json:"end" doc:"position just after the range"`
	}
	// LocationResult is an LSP Location: every result item of a
	// place-based command carries one.
	LocationResult struct {
		URI   string   `json:"uri" doc:"file URI"`
		Range RangeArg `json:"range" doc:"the span in the file"`
	}
)

// PlaceArgs is the argument convention of every place-based command:
// textDocument (or a bare uri) with a position, or a symbol; a selection
// adds range. Embed it in a command's argument struct.
type PlaceArgs struct {
	TextDocument *TextDocumentArg `json:"textDocument,omitempty" doc:"the document (TextDocumentPositionParams shape)"`
	URI          string           `json:"uri,omitempty" doc:"the document URI; shorthand for textDocument.uri"`
	Position     *PositionArg     `json:"position,omitempty" doc:"the place in the document; required with a document unless range is given"`
	Range        *RangeArg        `json:"range,omitempty" doc:"a selection in the document"`
	Symbol       string           `json:"symbol,omitempty" doc:"a symbol name (Name or Container.Name) instead of a document place"`
}

// ResolvedPlace is PlaceArgs in engine terms.
type ResolvedPlace struct {
	// Folder is the folder of Path; nil for a symbol without a document.
	Folder FolderHandle
	// Path is the absolute file path; empty for a symbol alone.
	Path string
	// Point is the position, Range the selection; nil when not given.
	Point  *Point
	Range  *Range
	Symbol string
}

// CommandEnv gives a running command what it needs from the session.
type CommandEnv struct {
	s        *server
	token    json.RawMessage
	progress *progress
}

// Features returns the backend hooks.
func (e *CommandEnv) Features() Features { return e.s.opts.Features }

// Folders returns the handles of the open workspace folders, in order.
func (e *CommandEnv) Folders() []FolderHandle {
	var out []FolderHandle
	for _, f := range e.s.openFolders() {
		out = append(out, f.handle)
	}
	return out
}

// ResolvePlace checks place arguments and converts them to engine terms.
// Errors are InvalidParams naming the field.
func (e *CommandEnv) ResolvePlace(a PlaceArgs) (ResolvedPlace, error) {
	uri := a.URI
	if a.TextDocument != nil {
		if a.TextDocument.URI == "" {
			return ResolvedPlace{}, invalidParams("textDocument.uri: required")
		}
		if uri != "" && uri != a.TextDocument.URI {
			return ResolvedPlace{}, invalidParams("uri: disagrees with textDocument.uri")
		}
		uri = a.TextDocument.URI
	}
	out := ResolvedPlace{Symbol: a.Symbol}
	if uri == "" {
		switch {
		case a.Symbol != "":
			if a.Position != nil || a.Range != nil {
				return ResolvedPlace{}, invalidParams("textDocument.uri: required with position or range")
			}
			return out, nil
		case a.Position != nil || a.Range != nil:
			return ResolvedPlace{}, invalidParams("textDocument.uri: required with position or range")
		default:
			return ResolvedPlace{}, invalidParams("textDocument: required (with position), or symbol")
		}
	}
	if a.Position == nil && a.Range == nil && a.Symbol == "" {
		return ResolvedPlace{}, invalidParams("position: required with a document (or give range or symbol)")
	}
	path, err := docPath("textDocument.uri", uri)
	if err != nil {
		return ResolvedPlace{}, err
	}
	_, h, err := e.s.folderFor(path)
	if err != nil {
		return ResolvedPlace{}, err
	}
	m, err := e.s.mapperFor(path)
	if err != nil {
		return ResolvedPlace{}, fmt.Errorf("mapping the position: %w", err)
	}
	out.Folder, out.Path = h, path
	if a.Position != nil {
		pt := m.PositionPoint(protocol.Position{Line: a.Position.Line, Character: a.Position.Character})
		out.Point = &pt
	}
	if a.Range != nil {
		r := m.RangeFromProtocol(protocol.Range{
			Start: protocol.Position{Line: a.Range.Start.Line, Character: a.Range.Start.Character},
			End:   protocol.Position{Line: a.Range.End.Line, Character: a.Range.End.Character},
		})
		if r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Column < r.Start.Column {
			return ResolvedPlace{}, invalidParams("range: end before start")
		}
		out.Range = &r
	}
	return out, nil
}

// Locations converts engine locations for a result, reading each file once.
func (e *CommandEnv) Locations(locs []Location) []LocationResult {
	l := e.s.newLocator()
	out := make([]LocationResult, 0, len(locs))
	for _, loc := range locs {
		pl := l.location(loc)
		out = append(out, LocationResult{URI: string(pl.URI), Range: RangeArg{
			Start: PositionArg{Line: pl.Range.Start.Line, Character: pl.Range.Start.Character},
			End:   PositionArg{Line: pl.Range.End.Line, Character: pl.Range.End.Character},
		}})
	}
	return out
}

// Progress starts progress reporting for the command: on the client's
// workDoneToken when it sent one, else on a server-created token when the
// client supports that, else nowhere. It ends when the command returns;
// one call per command.
func (e *CommandEnv) Progress(title, unit string) ProgressFunc {
	if e.progress == nil {
		switch {
		case len(e.token) > 0 && !isNull(e.token):
			e.progress = startProgress(e.s.ctx, e.s.conn, e.token, false, title, unit, e.s.opts.ClientRequestTimeout)
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

func (p *executeCommandParams) validate() error {
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
		return nil, invalidParams("command: unknown command %q (known: %s)", truncate(p.Command, 100), strings.Join(names, ", "))
	}
	cmd := s.commands[i]
	args, err := decodeCommandArgs(cmd, p.Arguments)
	if err != nil {
		return nil, err
	}
	env := &CommandEnv{s: s, token: p.WorkDoneToken}
	defer func() { env.progress.end("") }()
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
		return nil, invalidParams("arguments: %s takes one argument object, got %d arguments", cmd.Name, len(raw))
	case len(raw) == 1 && !isNull(raw[0]):
		dec := json.NewDecoder(bytes.NewReader(raw[0]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v.Interface()); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				field := "arguments[0]"
				if te.Field != "" {
					field += "." + te.Field
				}
				return nil, invalidParams("%s: expected %s", field, jsonTypeName(te.Type))
			}
			if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				return nil, invalidParams("arguments[0]: unknown field %s", msg)
			}
			return nil, invalidParams("arguments[0]: %v", err)
		}
	}
	if val, ok := v.Interface().(validator); ok {
		if err := val.validate(); err != nil {
			return nil, invalidParams("arguments[0].%v", err)
		}
	}
	return v.Elem().Interface(), nil
}

// StatusArgs are the (empty) arguments of contextLs.status.
type StatusArgs struct{}

// StatusResult is the result of contextLs.status.
type StatusResult struct {
	Server    ServerStatus     `json:"server" doc:"the server"`
	Folders   []FolderStatus   `json:"folders" doc:"workspace folders, in the client's order"`
	Documents []DocumentStatus `json:"documents" doc:"open documents, sorted by path"`
	Settings  Settings         `json:"settings" doc:"settings in effect"`
	Watching  string           `json:"watching" doc:"who reports changes on disk: client, server or none"`
}

// ServerStatus names the server.
type ServerStatus struct {
	Name    string `json:"name" doc:"server name"`
	Version string `json:"version" doc:"server version"`
}

// FolderStatus is one workspace folder's state.
type FolderStatus struct {
	URI   string `json:"uri" doc:"folder URI"`
	Path  string `json:"path" doc:"absolute folder path"`
	Name  string `json:"name" doc:"folder name"`
	State string `json:"state" doc:"open or unavailable"`
	Error string `json:"error,omitempty" doc:"why the folder is unavailable"`
}

// DocumentStatus is one open document.
type DocumentStatus struct {
	URI     string `json:"uri" doc:"document URI"`
	Version int32  `json:"version" doc:"the client's version number"`
	Bytes   int    `json:"bytes" doc:"size of the text in bytes"`
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
		*rows = append(*rows, docField{path: path, typ: typ, doc: f.Tag.Get("doc")})
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
