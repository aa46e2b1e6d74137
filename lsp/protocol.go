package lsp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/context-ls/context-ls/service"
	"go.lsp.dev/protocol"
)

// The command contract as the language server's clients read it, generated
// from the command table (and through it the service's table of
// operations): docs/commands.md for people, protocol.ts for the VS Code
// extension and protocol.lua for the Neovim plugin. A test regenerates them
// and fails when a committed file differs (-update rewrites them).

// generatedBy heads every generated file.
const generatedBy = "Generated from service/ops.go and lsp/commands.go by `go test ./lsp -run TestGenerated -update`; do not edit."

// conventions is the prose of docs/commands.md about arguments and
// results.
const conventions = `Commands run through ` + "`workspace/executeCommand`" + ` with at most one argument: a
JSON object of the command's arguments, each under the one name it has on every door (the
CLI's flag is the same name in kebab case, the MCP tool's argument the same name). Unknown
arguments, wrong types, values out of range and unknown commands are answered with
InvalidParams (-32602) naming the argument or command; an absent argument takes its default.

A command about a place takes it the LSP way (the place arguments below): the document as
` + "`textDocument: {uri}`" + ` (or a bare ` + "`uri`" + `) with a ` + "`position`" + ` (the
TextDocumentPositionParams shape), a selection adding ` + "`range`" + `; or a ` + "`symbol`" + `
name instead. Positions are LSP positions: 0-based lines and UTF-16 character offsets.

Every command answers across the workspace folders: a place's command its document's
folder, a symbol every folder (their answers merged), a search every folder (hits merged
by score); ` + "`folder`" + ` (a folder URI) restricts any command to one folder, and a command
answered by one folder names it in ` + "`folder`" + `. A command answered by every folder
apart (stats, reindex) answers ` + "`{folders: [...]}`" + `, one answer per folder, each with its
` + "`folder`" + `.

Results are the service's, as the CLI prints with ` + "`--json`" + ` and the MCP tools return:
workspace-relative paths, 1-based lines and character columns. The language server adds to
every location in them (an object with ` + "`uri`" + ` and ` + "`startLine`" + `) its LSP form,
` + "`location: {uri, range}`" + ` (0-based lines, UTF-16 units).

A client may send a ` + "`workDoneToken`" + ` with the request; long commands (a reindex job)
report progress on it.`

// CommandsMarkdown renders the command reference (docs/commands.md).
func CommandsMarkdown(cmds []Command) string {
	var b strings.Builder
	b.WriteString("# context-ls commands\n\n<!-- " + generatedBy + " -->\n\n")
	b.WriteString(conventions)
	b.WriteString("\n\n## Place arguments\n\n")
	writeFields(&b, reflect.TypeFor[placeArgs](), false)
	b.WriteString("\n## Location\n\nThe LSP form of a location, added as `location` to every location of a result.\n\n")
	writeFields(&b, reflect.TypeFor[locationArg](), false)
	b.WriteString("\n## Commands\n")
	for _, c := range sortedCommands(cmds) {
		fmt.Fprintf(&b, "\n### `%s`\n\n%s\n\n", c.Name, c.Title)
		if c.Op == nil {
			b.WriteString("**Arguments**")
			if countFields(reflect.TypeOf(c.Args)) == 0 {
				b.WriteString(": none.\n\n")
			} else {
				b.WriteString("\n\n")
				writeFields(&b, reflect.TypeOf(c.Args), false)
				b.WriteString("\n")
			}
			writeResult(&b, reflect.TypeOf(c.Result), "")
			continue
		}
		writeArguments(&b, c.Op)
		switch c.Op.Scope {
		case service.ScopeEach:
			writeResult(&b, c.Op.Result, "One answer per folder: `{folders: [...]}`, each the operation's answer below with its folder's URI in `folder`.")
		default:
			writeResult(&b, c.Op.Result, "")
		}
	}
	return b.String()
}

// sortedCommands sorts commands by name.
func sortedCommands(cmds []Command) []Command {
	sorted := append([]Command(nil), cmds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	return sorted
}

// byKey sorts commands by their key in the editors' tables.
func byKey(cmds []Command) []Command {
	sorted := append([]Command(nil), cmds...)
	sort.Slice(sorted, func(i, j int) bool { return commandKey(sorted[i]) < commandKey(sorted[j]) })
	return sorted
}

// writeArguments documents an operation's arguments on the language
// server: the place arguments for those a place fills, then the others
// with their rules.
func writeArguments(b *strings.Builder, o *service.Op) {
	fields := commandFields(o)
	if len(fields) == 0 && !takesPlace(o) {
		b.WriteString("**Arguments**: none (besides `folder`).\n\n")
		return
	}
	b.WriteString("**Arguments**")
	if takesPlace(o) {
		b.WriteString(" (and the place arguments)")
	}
	b.WriteString("\n\n| argument | type | description |\n|---|---|---|\n")
	for _, f := range fields {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", f.Name, argType(f), escapeCell(f.Desc+ruleText(f)))
	}
	b.WriteString("\n")
}

// commandFields are an operation's arguments on the language server: its
// request's, those a place fills left out.
func commandFields(o *service.Op) []service.Field {
	var out []service.Field
	for _, f := range service.Fields(o.Request) {
		if takesPlace(o) && slices.Contains(placeFields, f.Name) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// argType names an argument's JSON type.
func argType(f service.Field) string {
	t := describeType(f.Type)
	if f.Rules.Required {
		return t + ", required"
	}
	return t
}

// ruleText says an argument's rules after its description.
func ruleText(f service.Field) string {
	if n := f.Notes(); n != "" {
		return " (" + n + ")"
	}
	return ""
}

func writeResult(b *strings.Builder, t reflect.Type, note string) {
	b.WriteString("**Result**")
	if deref(t).Kind() != reflect.Struct {
		fmt.Fprintf(b, ": %s.\n", describeType(t))
		return
	}
	if note != "" {
		b.WriteString(". " + note)
	}
	b.WriteString("\n\n")
	writeFields(b, t, true)
}

// docField is one row of a field table.
type docField struct {
	path, typ, doc string
}

// writeFields writes the field table of struct t; located: a service
// location gains its LSP location row.
func writeFields(b *strings.Builder, t reflect.Type, located bool) {
	var rows []docField
	collectFields(&rows, deref(t), "", located, map[reflect.Type]bool{})
	b.WriteString("| field | type | description |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", r.path, r.typ, escapeCell(r.doc))
	}
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func countFields(t reflect.Type) int {
	var rows []docField
	collectFields(&rows, deref(t), "", false, map[reflect.Type]bool{})
	return len(rows)
}

var locationType = reflect.TypeFor[service.Location]()

// collectFields lists the JSON fields of struct t, nested structs and
// arrays of structs included, with dotted paths ("folders[].uri").
func collectFields(rows *[]docField, t reflect.Type, prefix string, located bool, visiting map[reflect.Type]bool) {
	if t == nil || t.Kind() != reflect.Struct || visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	for _, f := range jsonFields(t) {
		typ := describeType(f.Type)
		if f.optional {
			typ += ", optional"
		}
		path := prefix + f.name
		*rows = append(*rows, docField{path: path, typ: typ, doc: f.Tag.Get("desc")})
		inner := deref(f.Type)
		switch {
		case inner.Kind() == reflect.Struct && !isOpaqueJSON(inner):
			collectFields(rows, inner, path+".", located, visiting)
		case inner.Kind() == reflect.Slice || inner.Kind() == reflect.Array:
			if el := deref(inner.Elem()); el.Kind() == reflect.Struct && !isOpaqueJSON(el) {
				collectFields(rows, el, path+"[].", located, visiting)
			}
		}
	}
	if located && hasLocation(t) {
		*rows = append(*rows, docField{path: prefix + "location", typ: "Location",
			doc: "the same span as an LSP location (added by the language server)"})
		if hasNameRange(t) {
			*rows = append(*rows, docField{path: prefix + "nameLocation", typ: "Location",
				doc: "nameRange as an LSP location (added by the language server)"})
		}
	}
}

// hasLocation reports whether t is or embeds a service location.
func hasLocation(t reflect.Type) bool {
	if t == locationType {
		return true
	}
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Anonymous && f.Type == locationType {
			return true
		}
	}
	return false
}

// hasNameRange reports whether t has a definition's name range.
func hasNameRange(t reflect.Type) bool {
	f, ok := t.FieldByName("NameRange")
	return ok && f.Type == reflect.TypeFor[service.Range]()
}

// jsonField is a serialised field of a struct, embedded structs
// flattened.
type jsonField struct {
	reflect.StructField
	name     string
	optional bool
}

// jsonFields lists the fields encoding/json writes for struct t, in order.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
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
			out = append(out, jsonFields(deref(f.Type))...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(","+opts+",", ",omitempty,") || f.Type.Kind() == reflect.Pointer
		out = append(out, jsonField{StructField: f, name: name, optional: optional})
	}
	return out
}

// isOpaqueJSON reports types that marshal themselves.
func isOpaqueJSON(t reflect.Type) bool {
	m := reflect.TypeFor[json.Marshaler]()
	return t.Implements(m) || reflect.PointerTo(t).Implements(m)
}

// describeType names the JSON shape of a Go type.
func describeType(t reflect.Type) string {
	if t == nil {
		return "null"
	}
	t = deref(t)
	if t == reflect.TypeFor[json.RawMessage]() {
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

// ---------------------------------------------------------------------------
// protocol.ts and protocol.lua

// tsNames renames Go types whose names the editors' own types take: the
// service's location and range are not the LSP's.
var tsNames = map[reflect.Type]string{
	locationType:                         "Located",
	reflect.TypeFor[service.Range]():     "LineRange",
	reflect.TypeFor[protocol.Location](): "Location",
	reflect.TypeFor[protocol.Range]():    "Range",
	reflect.TypeFor[protocol.Position](): "Position",
}

// tsName is the TypeScript name of a struct type.
func tsName(t reflect.Type) string {
	if n, ok := tsNames[t]; ok {
		return n
	}
	return t.Name()
}

// argsName is the TypeScript name of a command's arguments.
func argsName(c Command) string {
	if c.Op == nil {
		return strings.TrimSuffix(reflect.TypeOf(c.Args).Name(), "Args") + "Args"
	}
	return exported(c.Op.Name) + "Args"
}

// answerName is the TypeScript name of a command's answer.
func answerName(c Command) string {
	if c.Op == nil {
		return exported(commandKey(c)) + "Answer"
	}
	return exported(c.Op.Name) + "Answer"
}

func exported(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// commandKey is the key of a command in the editors' tables: its
// operation's name, or the command's own after "contextLs.".
func commandKey(c Command) string {
	if c.Op != nil {
		return c.Op.Name
	}
	return strings.TrimPrefix(c.Name, "contextLs.")
}

// TypeScript renders the command contract for the VS Code extension
// (editors/vscode/src/protocol.ts).
func TypeScript(cmds []Command) string {
	cmds = byKey(cmds)
	var b strings.Builder
	b.WriteString("// " + generatedBy + "\n// The server's command contract (docs/commands.md) as TypeScript types. Plain JSON shapes, no 'vscode'.\n\n")
	b.WriteString("/** Command identifiers of workspace/executeCommand, by operation. */\nexport const Commands = {\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %s: '%s',\n", commandKey(c), c.Name)
	}
	b.WriteString("} as const;\n\n")
	b.WriteString("/** Argument rules: the range and default of every numeric argument, by operation. */\nexport const Limits = {\n")
	for _, c := range cmds {
		if lim := limits(c); lim != "" {
			fmt.Fprintf(&b, "  %s: { %s },\n", commandKey(c), lim)
		}
	}
	b.WriteString("} as const;\n\n")
	b.WriteString(`/** The place arguments: a document position, or a selection. */
export interface PlaceArgs {
  textDocument?: { uri: string };
  uri?: string;
  position?: Position;
  range?: Range;
}

/** What an answer of one workspace folder adds: that folder's URI. */
export interface InFolder {
  folder?: string;
}

/** The answer of a command answered by every folder apart. */
export interface PerFolder<T> {
  folders: (T & { folder: string })[];
}

/** Work-done progress values ($/progress). */
export type ProgressValue =
  | { kind: 'begin'; title: string; message?: string; percentage?: number; cancellable?: boolean }
  | { kind: 'report'; message?: string; percentage?: number }
  | { kind: 'end'; message?: string };
`)
	types := map[reflect.Type]bool{}
	var order []reflect.Type
	var need func(t reflect.Type)
	need = func(t reflect.Type) {
		t = deref(t)
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			need(t.Elem())
			return
		case reflect.Struct:
		default:
			return
		}
		if types[t] || isOpaqueJSON(t) {
			return
		}
		types[t] = true
		order = append(order, t)
		for i := 0; i < t.NumField(); i++ {
			need(t.Field(i).Type)
		}
	}
	need(reflect.TypeFor[protocol.Location]())
	for _, c := range cmds {
		if c.Op == nil {
			need(reflect.TypeOf(c.Args))
			need(reflect.TypeOf(c.Result))
			continue
		}
		for _, f := range commandFields(c.Op) {
			need(f.Type)
		}
		need(c.Op.Result)
	}
	sort.Slice(order, func(i, j int) bool { return tsName(order[i]) < tsName(order[j]) })
	for _, t := range order {
		writeInterface(&b, t)
	}
	for _, c := range cmds {
		if c.Op == nil {
			continue
		}
		fmt.Fprintf(&b, "\n/** Arguments of %s. */\nexport interface %s", c.Name, argsName(c))
		if takesPlace(c.Op) {
			b.WriteString(" extends PlaceArgs")
		}
		b.WriteString(" {\n")
		for _, f := range commandFields(c.Op) {
			writeTSField(&b, f.Name, f.Desc+ruleText(f), f.Type, !f.Rules.Required)
		}
		b.WriteString("  /** URI of the workspace folder to ask (default: as the command's scope says) */\n  folder?: string;\n}\n")
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "\n/** The answer of %s. */\nexport type %s = %s;\n", c.Name, answerName(c), answerType(c))
	}
	return b.String()
}

// answerType is the TypeScript type of a command's answer.
func answerType(c Command) string {
	if c.Op == nil {
		return tsType(reflect.TypeOf(c.Result))
	}
	res := tsName(c.Op.Result)
	switch c.Op.Scope {
	case service.ScopeEach:
		return "PerFolder<" + res + ">"
	default:
		return res + " & InFolder"
	}
}

// limits renders the rules of a command's numeric arguments.
func limits(c Command) string {
	if c.Op == nil {
		return ""
	}
	var parts []string
	for _, f := range commandFields(c.Op) {
		r := f.Rules
		if r.Min == nil && r.Max == nil {
			continue
		}
		var kv []string
		if r.Min != nil {
			kv = append(kv, "min: "+num(*r.Min))
		}
		if r.Max != nil {
			kv = append(kv, "max: "+num(*r.Max))
		}
		if d := f.DefaultValue(); d != nil {
			kv = append(kv, fmt.Sprintf("default: %v", d))
		}
		parts = append(parts, f.Name+": { "+strings.Join(kv, ", ")+" }")
	}
	return strings.Join(parts, ", ")
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// writeInterface writes one struct type as a TypeScript interface:
// embedded structs are extended, and a service location gains its LSP
// location.
func writeInterface(b *strings.Builder, t reflect.Type) {
	var extends []string
	fmt.Fprintf(b, "\nexport interface %s", tsName(t))
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Anonymous && f.Tag.Get("json") == "" && deref(f.Type).Kind() == reflect.Struct {
			extends = append(extends, tsName(deref(f.Type)))
		}
	}
	if len(extends) > 0 {
		b.WriteString(" extends " + strings.Join(extends, ", "))
	}
	b.WriteString(" {\n")
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous && f.Tag.Get("json") == "" && deref(f.Type).Kind() == reflect.Struct {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(","+opts+",", ",omitempty,") || f.Type.Kind() == reflect.Pointer
		writeTSField(b, name, f.Tag.Get("desc"), f.Type, optional)
	}
	if t == locationType {
		writeTSField(b, "location", "the same span as an LSP location (added by the language server)", reflect.TypeFor[protocol.Location](), false)
	}
	if hasLocation(t) && hasNameRange(t) {
		writeTSField(b, "nameLocation", "nameRange as an LSP location (added by the language server)", reflect.TypeFor[protocol.Location](), false)
	}
	b.WriteString("}\n")
}

func writeTSField(b *strings.Builder, name, desc string, t reflect.Type, optional bool) {
	if desc != "" {
		fmt.Fprintf(b, "  /** %s */\n", strings.ReplaceAll(desc, "*/", "* /"))
	}
	q := ""
	if optional {
		q = "?"
	}
	fmt.Fprintf(b, "  %s%s: %s;\n", name, q, tsType(t))
}

// tsType is the TypeScript type of a Go type.
func tsType(t reflect.Type) string {
	if t == nil {
		return "null"
	}
	t = deref(t)
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return tsType(t.Elem()) + "[]"
	case reflect.Map:
		return "Record<string, " + tsType(t.Elem()) + ">"
	case reflect.Struct:
		if isOpaqueJSON(t) {
			return "unknown"
		}
		return tsName(t)
	}
	return "unknown"
}

// Lua renders the command contract for the Neovim plugin
// (editors/neovim/lua/context_ls/protocol.lua): the command names, the
// arguments each takes and the rules of the numeric ones.
func Lua(cmds []Command) string {
	cmds = byKey(cmds)
	var b strings.Builder
	b.WriteString("-- " + generatedBy + "\n-- The server's command contract (docs/commands.md): command names, arguments, rules.\nlocal M = {}\n\n")
	b.WriteString("-- commands maps an operation to its workspace/executeCommand name.\nM.commands = {\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %s = '%s',\n", commandKey(c), c.Name)
	}
	b.WriteString("}\n\n-- args lists the arguments of each command besides the place arguments\n-- (textDocument, uri, position, range) and folder.\nM.args = {\n")
	for _, c := range cmds {
		if c.Op == nil {
			continue
		}
		var names []string
		for _, f := range commandFields(c.Op) {
			names = append(names, "'"+f.Name+"'")
		}
		if len(names) == 0 {
			fmt.Fprintf(&b, "  %s = {},\n", c.Op.Name)
			continue
		}
		fmt.Fprintf(&b, "  %s = { %s },\n", c.Op.Name, strings.Join(names, ", "))
	}
	b.WriteString("}\n\n-- limits gives the range and default of every numeric argument.\nM.limits = {\n")
	for _, c := range cmds {
		if lim := limits(c); lim != "" {
			lim = strings.NewReplacer(": {", " = {", ": ", " = ").Replace(lim)
			fmt.Fprintf(&b, "  %s = { %s },\n", commandKey(c), lim)
		}
	}
	b.WriteString("}\n\nreturn M\n")
	return b.String()
}
