package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/context-ls/context-ls/service"
	"github.com/context-ls/context-ls/share"
)

// The subcommands of the service's operations, built from its table: one
// flag per request argument, named after it (minScore is --min-score),
// with its description, its rules and its default; the words after the
// flags fill the operation's positional argument (QUERY, TARGET …). Only
// the flags given are sent: the service applies the defaults and checks
// the values, once for every front end.

func init() {
	for _, o := range service.Ops {
		if o.CLI {
			register(opCommand(o))
		}
	}
}

// opCommand is the subcommand of an operation.
func opCommand(o *service.Op) command {
	usage := []string{"[--root DIR]"}
	for _, f := range service.Fields(o.Request) {
		if f.Name == o.Args.Field {
			continue
		}
		usage = append(usage, "[--"+flagName(f.Name)+flagArg(f)+"]")
	}
	usage = append(usage, "[--json]")
	if o.Args.Name != "" {
		usage = append(usage, "["+o.Args.Name+"]")
	} else {
		usage = append(usage, "[DIR]") // the workspace root, as --root
	}
	return command{name: o.Name, usage: strings.Join(usage, " "), summary: strings.ToLower(o.Title[:1]) + o.Title[1:],
		doc: o.Doc, run: func(ctx context.Context, env *cliEnv, args []string) error { return runOpCommand(ctx, env, o, args) }}
}

// flagName is an argument's flag: its name in kebab case.
func flagName(arg string) string {
	var b strings.Builder
	for i, r := range arg {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// flagArg names a flag's value in usage (nothing for a switch).
func flagArg(f service.Field) string {
	switch f.Type.Kind() {
	case reflect.Bool, reflect.Pointer:
		return ""
	case reflect.Int, reflect.Float64:
		return " N"
	case reflect.Slice:
		return " " + strings.ToUpper(flagName(f.Name)) + ",…"
	}
	return " " + strings.ToUpper(flagName(f.Name))
}

// argFlag is the flag of one request argument: it records the JSON value
// given, and whether one was.
type argFlag struct {
	f   service.Field
	raw json.RawMessage
	set bool
}

func (a *argFlag) String() string {
	if a == nil || !a.set {
		return ""
	}
	return string(a.raw)
}

func (a *argFlag) IsBoolFlag() bool {
	k := a.f.Type.Kind()
	return k == reflect.Bool || k == reflect.Pointer
}

func (a *argFlag) Set(v string) error {
	var val any
	switch a.f.Type.Kind() {
	case reflect.String:
		val = v
	case reflect.Bool, reflect.Pointer:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		val = b
	case reflect.Int:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("want an integer")
		}
		val = n
	case reflect.Float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return fmt.Errorf("want a number")
		}
		val = x
	case reflect.Slice:
		var list []string
		if a.set {
			_ = json.Unmarshal(a.raw, &list)
		}
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				list = append(list, p)
			}
		}
		val = list
	}
	raw, err := json.Marshal(val)
	if err != nil {
		return err
	}
	a.raw, a.set = raw, true
	return nil
}

// help is the flag's description: the argument's, its rules and default.
func (a *argFlag) help() string {
	notes := a.f.Notes()
	if a.f.Type.Kind() == reflect.Slice {
		notes = strings.TrimPrefix(notes+"; repeatable, or comma-separated", "; ")
	}
	if notes == "" {
		return a.f.Desc
	}
	return a.f.Desc + " (" + notes + ")"
}

// targetFields are the request arguments a TARGET fills.
var targetFields = []string{"file", "line", "column", "symbol"}

// runOpCommand parses an operation's flags and words into its JSON
// request, runs it and prints the result.
func runOpCommand(ctx context.Context, env *cliEnv, o *service.Op, args []string) error {
	fs := env.flags(true)
	var flags []*argFlag
	for _, f := range service.Fields(o.Request) {
		if f.Name == o.Args.Field {
			continue
		}
		a := &argFlag{f: f}
		fs.Var(a, flagName(f.Name), a.help())
		flags = append(flags, a)
	}
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	req := map[string]json.RawMessage{}
	for _, a := range flags {
		if a.set {
			req[a.f.Name] = a.raw
		}
	}
	names := argNames{op: o}
	switch {
	case o.Args.Name == "":
		if err := env.rootArg(fs, rest); err != nil {
			return err
		}
	case o.Args.One && len(rest) > 1:
		return usagef("at most one %s", o.Args.Name)
	case o.Args.Field != "":
		if words := strings.TrimSpace(strings.Join(rest, " ")); words != "" {
			req[o.Args.Field], _ = json.Marshal(words)
		}
	default: // a TARGET, unless flags name the target
		names.target = true
		for _, name := range targetFields {
			if _, ok := req[name]; ok {
				names.target = false
			}
		}
		if !names.target && len(rest) > 0 {
			return usagef("give a TARGET or --file/--symbol, not both")
		}
		if len(rest) == 1 {
			t, err := service.ParseTarget(rest[0])
			if err != nil {
				return names.error(err)
			}
			for name, v := range map[string]any{"file": t.File, "line": t.Line, "column": t.Column, "symbol": t.Symbol} {
				if !reflect.ValueOf(v).IsZero() {
					req[name], _ = json.Marshal(v)
				}
			}
		}
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if err := o.Check(raw); err != nil {
		return names.error(err)
	}
	var res any
	var owner *share.OwnerInfo
	if o == service.OpFiles {
		res, err = listFiles(ctx, env, raw)
	} else {
		res, owner, err = runOp(ctx, env, o, raw)
	}
	if err != nil {
		return names.error(err)
	}
	if env.jsonOut {
		return env.printJSON(res)
	}
	if p, ok := printers[o.Name]; ok {
		return p(env, res, owner)
	}
	fmt.Fprint(env.stdout, service.Text(res))
	return nil
}

// argNames names a request argument the way the command line spells it.
type argNames struct {
	op *service.Op
	// target: the target's arguments came from a TARGET (or from nothing).
	target bool
}

// error names the argument of an invalid-argument error as the command
// line spells it: --k for k, QUERY for the words that fill query, TARGET
// for what a TARGET fills.
func (n argNames) error(err error) error {
	var se *service.Error
	if !errors.As(err, &se) || se.Code != service.CodeInvalid || se.Field == "" {
		return err
	}
	name, suffix := se.Field, ""
	if i := strings.IndexAny(name, ".["); i > 0 {
		name, suffix = name[:i], name[i:]
	}
	spelled := "--" + flagName(name)
	switch {
	case name == n.op.Args.Field || name == "target":
		spelled = n.op.Args.Name
	case n.target && slices.Contains(targetFields, name):
		spelled = "TARGET"
	}
	return &service.Error{Code: se.Code, Message: spelled + suffix + ": " + se.Message}
}

// usageText is a command's -h: its usage, what it does and its flags.
func usageText(env *cliEnv, fs *flag.FlagSet) {
	c := env.cmd
	fmt.Fprintf(env.stderr, "usage: context-ls %s %s\n\n", c.name, c.usage)
	if c.doc != "" {
		fmt.Fprintf(env.stderr, "%s\n\nflags:\n", c.doc)
	} else {
		fmt.Fprintf(env.stderr, "%s\n\nflags:\n", c.summary)
	}
	fs.SetOutput(env.stderr)
	fs.PrintDefaults()
}
