package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tool arguments and results are Go structs. Their JSON Schemas (the
// inputSchema and outputSchema of tools/list) are generated from the
// struct tags, and arguments are decoded by the same tags, so the schema an
// agent reads and the decoder that checks its call cannot drift:
//
//	json:"name,omitempty"  the property name
//	desc:"…"               its description
//	mcp:"required,min=1,max=100,default=10,enum=a|b|c,maxLen=1000"
//
// Argument fields may be string, bool, int, float64 or []string.

// argError is a bad argument: the message names the field, and the call
// answers a tool error (isError) carrying it, so that the agent can fix
// its call.
type argError struct {
	field string
	msg   string
}

func (e *argError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}

func argErrorf(field, format string, args ...any) error {
	return &argError{field: field, msg: fmt.Sprintf(format, args...)}
}

// fieldRules are the parsed mcp tag of one field.
type fieldRules struct {
	required bool
	min, max *float64
	def      string
	enum     []string
	maxLen   int
}

// argField is one argument of a tool.
type argField struct {
	name  string
	index int
	typ   reflect.Type
	desc  string
	rules fieldRules
}

func parseRules(tag string) (fieldRules, error) {
	var r fieldRules
	if tag == "" {
		return r, nil
	}
	for _, part := range strings.Split(tag, ",") {
		key, val, _ := strings.Cut(part, "=")
		switch key {
		case "required":
			r.required = true
		case "min", "max":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return r, fmt.Errorf("bad %s %q", key, val)
			}
			if key == "min" {
				r.min = &f
			} else {
				r.max = &f
			}
		case "default":
			r.def = val
		case "enum":
			r.enum = strings.Split(val, "|")
		case "maxLen":
			n, err := strconv.Atoi(val)
			if err != nil {
				return r, fmt.Errorf("bad maxLen %q", val)
			}
			r.maxLen = n
		default:
			return r, fmt.Errorf("unknown rule %q", key)
		}
	}
	return r, nil
}

// jsonName returns the JSON property name of a struct field and whether it
// has omitempty; "" means the field is not serialised.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return "", false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(","+opts+",", ",omitempty,")
}

// argFields lists the arguments of an argument struct type, in order. It
// panics on a malformed declaration: the tool table is static, and a test
// builds every tool's schema.
func argFields(t reflect.Type) []argField {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("mcp: argument type %s is not a struct", t))
	}
	var out []argField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _ := jsonName(f)
		if name == "" {
			continue
		}
		switch f.Type.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Float64:
		case reflect.Slice:
			if f.Type.Elem().Kind() != reflect.String {
				panic(fmt.Sprintf("mcp: argument %s.%s: only []string slices are supported", t, f.Name))
			}
		default:
			panic(fmt.Sprintf("mcp: argument %s.%s has unsupported type %s", t, f.Name, f.Type))
		}
		rules, err := parseRules(f.Tag.Get("mcp"))
		if err != nil {
			panic(fmt.Sprintf("mcp: argument %s.%s: %v", t, f.Name, err))
		}
		if f.Tag.Get("desc") == "" {
			panic(fmt.Sprintf("mcp: argument %s.%s has no desc tag", t, f.Name))
		}
		out = append(out, argField{name: name, index: i, typ: f.Type, desc: f.Tag.Get("desc"), rules: rules})
	}
	return out
}

// inputSchema builds the JSON Schema of an argument struct type.
func inputSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range argFields(t) {
		p := map[string]any{"description": f.desc}
		switch f.typ.Kind() {
		case reflect.String:
			p["type"] = "string"
			if len(f.rules.enum) > 0 {
				p["enum"] = f.rules.enum
			}
			if f.rules.maxLen > 0 {
				p["maxLength"] = f.rules.maxLen
			}
		case reflect.Bool:
			p["type"] = "boolean"
		case reflect.Int:
			p["type"] = "integer"
		case reflect.Float64:
			p["type"] = "number"
		case reflect.Slice:
			p["type"] = "array"
			p["items"] = map[string]any{"type": "string"}
		}
		if f.rules.min != nil {
			p["minimum"] = *f.rules.min
		}
		if f.rules.max != nil {
			p["maximum"] = *f.rules.max
		}
		if f.rules.def != "" {
			p["default"] = defaultValue(f)
		}
		if f.rules.required {
			required = append(required, f.name)
		}
		props[f.name] = p
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// defaultValue is a field's default as a JSON value.
func defaultValue(f argField) any {
	switch f.typ.Kind() {
	case reflect.Int:
		n, _ := strconv.Atoi(f.rules.def)
		return n
	case reflect.Float64:
		x, _ := strconv.ParseFloat(f.rules.def, 64)
		return x
	case reflect.Bool:
		return f.rules.def == "true"
	}
	return f.rules.def
}

// decodeArgs decodes a tools/call arguments object into dst (a pointer to
// an argument struct), applying defaults and checking every rule. Errors
// are *argError naming the field.
func decodeArgs(raw json.RawMessage, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	fields := argFields(v.Type())
	obj := map[string]json.RawMessage{}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if raw[0] != '{' {
			return argErrorf("arguments", "must be an object")
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return argErrorf("arguments", "not a valid JSON object: %v", err)
		}
	}
	byName := map[string]argField{}
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		byName[f.name] = f
		names = append(names, f.name)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := byName[k]
		if !ok {
			if len(names) == 0 {
				return argErrorf(k, "unknown argument: this tool takes no arguments")
			}
			return argErrorf(k, "unknown argument; this tool takes: %s", strings.Join(names, ", "))
		}
		if bytes.Equal(bytes.TrimSpace(obj[k]), []byte("null")) {
			delete(obj, k) // null stands for "not given"
			continue
		}
		if err := decodeField(f, obj[k], v.Field(f.index)); err != nil {
			return err
		}
	}
	for _, f := range fields {
		if _, given := obj[f.name]; given {
			continue
		}
		if f.rules.required {
			return argErrorf(f.name, "required (%s)", f.desc)
		}
		if f.rules.def != "" {
			setDefault(f, v.Field(f.index))
		}
	}
	return nil
}

func setDefault(f argField, fv reflect.Value) {
	switch d := defaultValue(f).(type) {
	case int:
		fv.SetInt(int64(d))
	case float64:
		fv.SetFloat(d)
	case bool:
		fv.SetBool(d)
	case string:
		fv.SetString(d)
	}
}

func decodeField(f argField, raw json.RawMessage, fv reflect.Value) error {
	switch f.typ.Kind() {
	case reflect.String:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return argErrorf(f.name, "must be a string, got %s", jsonKind(raw))
		}
		if err := checkString(f, f.name, s); err != nil {
			return err
		}
		fv.SetString(s)
	case reflect.Bool:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return argErrorf(f.name, "must be true or false, got %s", jsonKind(raw))
		}
		fv.SetBool(b)
	case reflect.Int:
		var x float64
		if err := json.Unmarshal(raw, &x); err != nil {
			return argErrorf(f.name, "must be an integer, got %s", jsonKind(raw))
		}
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return argErrorf(f.name, "must be an integer, got %s", raw)
		}
		if err := checkRange(f, x); err != nil {
			return err
		}
		fv.SetInt(int64(x))
	case reflect.Float64:
		var x float64
		if err := json.Unmarshal(raw, &x); err != nil {
			return argErrorf(f.name, "must be a number, got %s", jsonKind(raw))
		}
		if err := checkRange(f, x); err != nil {
			return err
		}
		fv.SetFloat(x)
	case reflect.Slice:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return argErrorf(f.name, "must be an array of strings, got %s", jsonKind(raw))
		}
		out := make([]string, 0, len(items))
		for i, it := range items {
			name := fmt.Sprintf("%s[%d]", f.name, i)
			var s string
			if err := json.Unmarshal(it, &s); err != nil || jsonKind(it) == "null" {
				return argErrorf(name, "must be a string, got %s", jsonKind(it))
			}
			if err := checkString(f, name, s); err != nil {
				return err
			}
			out = append(out, s)
		}
		fv.Set(reflect.ValueOf(out))
	}
	return nil
}

func checkString(f argField, name, s string) error {
	if f.rules.required && strings.TrimSpace(s) == "" {
		return argErrorf(name, "must not be empty")
	}
	if f.rules.maxLen > 0 && utf8.RuneCountInString(s) > f.rules.maxLen {
		return argErrorf(name, "longer than %d characters", f.rules.maxLen)
	}
	if len(f.rules.enum) > 0 {
		for _, e := range f.rules.enum {
			if s == e {
				return nil
			}
		}
		return argErrorf(name, "%q is not one of %s", s, strings.Join(f.rules.enum, ", "))
	}
	return nil
}

func checkRange(f argField, x float64) error {
	lo, hi := f.rules.min, f.rules.max
	switch {
	case lo != nil && hi != nil && (x < *lo || x > *hi):
		return argErrorf(f.name, "must be between %s and %s, got %s", num(*lo), num(*hi), num(x))
	case lo != nil && x < *lo:
		return argErrorf(f.name, "must be at least %s, got %s", num(*lo), num(x))
	case hi != nil && x > *hi:
		return argErrorf(f.name, "must be at most %s, got %s", num(*hi), num(x))
	}
	return nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// jsonKind names the JSON type of a raw value for error messages.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// outputSchema builds the JSON Schema of a result type: every field
// without omitempty is required, structs nest, slices are arrays, maps are
// objects of one value type, pointers are their element.
func outputSchema(t reflect.Type) map[string]any {
	return typeSchema(t, "")
}

func typeSchema(t reflect.Type, desc string) map[string]any {
	s := map[string]any{}
	if desc != "" {
		s["description"] = desc
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeSchema(t.Elem(), desc)
	case reflect.String:
		s["type"] = "string"
	case reflect.Bool:
		s["type"] = "boolean"
	case reflect.Int, reflect.Int64:
		s["type"] = "integer"
	case reflect.Float64:
		s["type"] = "number"
	case reflect.Slice:
		s["type"] = "array"
		s["items"] = typeSchema(t.Elem(), "")
	case reflect.Map:
		s["type"] = "object"
		s["additionalProperties"] = typeSchema(t.Elem(), "")
	case reflect.Struct:
		props := map[string]any{}
		required := []string{}
		addStructFields(t, props, &required)
		s["type"] = "object"
		s["properties"] = props
		if len(required) > 0 {
			s["required"] = required
		}
	default:
		panic(fmt.Sprintf("mcp: result type %s is not supported by the schema generator", t))
	}
	return s
}

// addStructFields adds t's serialised fields, flattening embedded structs
// the way encoding/json does.
func addStructFields(t reflect.Type, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			addStructFields(f.Type, props, required)
			continue
		}
		name, omit := jsonName(f)
		if name == "" {
			continue
		}
		desc := f.Tag.Get("desc")
		if desc == "" {
			panic(fmt.Sprintf("mcp: result field %s.%s has no desc tag", t, f.Name))
		}
		props[name] = typeSchema(f.Type, desc)
		if !omit {
			*required = append(*required, name)
		}
	}
}
