package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Requests are Go structs whose tags are the one description of every
// argument: front ends decode into them, the service checks them, and the
// MCP server's JSON Schemas are generated from them, so that what a client
// reads, what it may send and what the service accepts cannot drift:
//
//	json:"name,omitempty"  the property name
//	desc:"…"               its description
//	check:"required,min=1,max=100,default=10,enum=a|b|c,maxLen=1000,maxItems=100"
//
// Argument fields may be string, bool, *bool, int, float64 or []string;
// an embedded struct (Place) contributes its fields. A zero value (or nil)
// means "not given": check applies the default, and min/max/enum apply to
// given values only. Through JSON, null means "not given" too, while an
// explicit value out of range (k: 0) is an error naming the argument.

// Rules are the parsed check tag of one field.
type Rules struct {
	Required bool
	Min, Max *float64
	Default  string
	Enum     []string
	MaxLen   int
	MaxItems int
}

func parseRules(tag string) (Rules, error) {
	var r Rules
	if tag == "" {
		return r, nil
	}
	for _, part := range strings.Split(tag, ",") {
		key, val, _ := strings.Cut(part, "=")
		switch key {
		case "required":
			r.Required = true
		case "min", "max":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return r, fmt.Errorf("bad %s %q", key, val)
			}
			if key == "min" {
				r.Min = &f
			} else {
				r.Max = &f
			}
		case "default":
			r.Default = val
		case "enum":
			r.Enum = strings.Split(val, "|")
		case "maxLen", "maxItems":
			n, err := strconv.Atoi(val)
			if err != nil {
				return r, fmt.Errorf("bad %s %q", key, val)
			}
			if key == "maxLen" {
				r.MaxLen = n
			} else {
				r.MaxItems = n
			}
		default:
			return r, fmt.Errorf("unknown rule %q", key)
		}
	}
	return r, nil
}

// Field is one argument of a request type.
type Field struct {
	Name  string
	Index []int // reflect.Value.FieldByIndex path (embedded structs)
	Type  reflect.Type
	Desc  string
	Rules Rules
}

// JSONName returns the JSON property name of a struct field and whether it
// has omitempty; "" means the field is not serialised.
func JSONName(f reflect.StructField) (string, bool) {
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

var fieldCache sync.Map // reflect.Type → []Field

// Fields lists the arguments of a request struct type, in order, embedded
// structs flattened. It panics on a malformed declaration: request types
// are static, and a test checks every operation's.
func Fields(t reflect.Type) []Field {
	if v, ok := fieldCache.Load(t); ok {
		return v.([]Field)
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("service: request type %s is not a struct", t))
	}
	var out []Field
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			idx := append(append([]int(nil), index...), i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
				walk(f.Type, idx)
				continue
			}
			name, _ := JSONName(f)
			if name == "" {
				continue
			}
			switch f.Type.Kind() {
			case reflect.String, reflect.Bool, reflect.Int, reflect.Float64:
			case reflect.Pointer:
				if f.Type.Elem().Kind() != reflect.Bool {
					panic(fmt.Sprintf("service: argument %s.%s: only *bool pointers are supported", t, f.Name))
				}
			case reflect.Slice:
				if f.Type.Elem().Kind() != reflect.String {
					panic(fmt.Sprintf("service: argument %s.%s: only []string slices are supported", t, f.Name))
				}
			default:
				panic(fmt.Sprintf("service: argument %s.%s has unsupported type %s", t, f.Name, f.Type))
			}
			rules, err := parseRules(f.Tag.Get("check"))
			if err != nil {
				panic(fmt.Sprintf("service: argument %s.%s: %v", t, f.Name, err))
			}
			if f.Tag.Get("desc") == "" {
				panic(fmt.Sprintf("service: argument %s.%s has no desc tag", t, f.Name))
			}
			out = append(out, Field{Name: name, Index: idx, Type: f.Type, Desc: f.Tag.Get("desc"), Rules: rules})
		}
	}
	walk(t, nil)
	fieldCache.Store(t, out)
	return out
}

// DefaultValue is a field's default as a JSON value (nil when none).
func (f Field) DefaultValue() any {
	if f.Rules.Default == "" {
		return nil
	}
	switch f.Type.Kind() {
	case reflect.Int:
		n, _ := strconv.Atoi(f.Rules.Default)
		return n
	case reflect.Float64:
		x, _ := strconv.ParseFloat(f.Rules.Default, 64)
		return x
	case reflect.Bool, reflect.Pointer:
		return f.Rules.Default == "true"
	}
	return f.Rules.Default
}

// Notes says a field's rules in words, for help texts: its range, its
// values and its default ("1 to 100; default 10"); "" when it has none.
func (f Field) Notes() string {
	var notes []string
	r := f.Rules
	switch {
	case r.Min != nil && r.Max != nil:
		notes = append(notes, num(*r.Min)+" to "+num(*r.Max))
	case r.Min != nil:
		notes = append(notes, "at least "+num(*r.Min))
	case r.Max != nil:
		notes = append(notes, "at most "+num(*r.Max))
	}
	if len(r.Enum) > 0 {
		notes = append(notes, "one of "+strings.Join(r.Enum, ", "))
	}
	if d := f.DefaultValue(); d != nil {
		notes = append(notes, fmt.Sprintf("default %v", d))
	}
	return strings.Join(notes, "; ")
}

// decode decodes a JSON arguments object into dst (a pointer to a request
// struct), rejecting unknown properties and values of the wrong type, then
// checks it. Errors are *Error with CodeInvalid naming the argument.
func decode(raw json.RawMessage, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	fields := Fields(v.Type())
	obj := map[string]json.RawMessage{}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if raw[0] != '{' {
			return invalid("arguments", "must be an object")
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return invalid("arguments", "not a valid JSON object: %v", err)
		}
	}
	byName := map[string]Field{}
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		byName[f.Name] = f
		names = append(names, f.Name)
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
				return invalid(k, "unknown argument: this operation takes no arguments")
			}
			return invalid(k, "unknown argument; the arguments are: %s", strings.Join(names, ", "))
		}
		if bytes.Equal(bytes.TrimSpace(obj[k]), []byte("null")) {
			continue // null stands for "not given"
		}
		if err := decodeField(f, obj[k], v.FieldByIndex(f.Index)); err != nil {
			return err
		}
	}
	return check(dst)
}

func decodeField(f Field, raw json.RawMessage, fv reflect.Value) error {
	switch f.Type.Kind() {
	case reflect.String:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return invalid(f.Name, "must be a string, got %s", jsonKind(raw))
		}
		if err := checkString(f, f.Name, s, true); err != nil {
			return err
		}
		fv.SetString(s)
	case reflect.Bool, reflect.Pointer:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return invalid(f.Name, "must be true or false, got %s", jsonKind(raw))
		}
		if f.Type.Kind() == reflect.Pointer {
			fv.Set(reflect.ValueOf(&b))
		} else {
			fv.SetBool(b)
		}
	case reflect.Int:
		var x float64
		if err := json.Unmarshal(raw, &x); err != nil {
			return invalid(f.Name, "must be an integer, got %s", jsonKind(raw))
		}
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return invalid(f.Name, "must be an integer, got %s", raw)
		}
		if err := checkRange(f, x); err != nil {
			return err
		}
		fv.SetInt(int64(x))
	case reflect.Float64:
		var x float64
		if err := json.Unmarshal(raw, &x); err != nil {
			return invalid(f.Name, "must be a number, got %s", jsonKind(raw))
		}
		if err := checkRange(f, x); err != nil {
			return err
		}
		fv.SetFloat(x)
	case reflect.Slice:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return invalid(f.Name, "must be an array of strings, got %s", jsonKind(raw))
		}
		out := make([]string, 0, len(items))
		for i, it := range items {
			var s string
			if err := json.Unmarshal(it, &s); err != nil || jsonKind(it) == "null" {
				return invalid(fmt.Sprintf("%s[%d]", f.Name, i), "must be a string, got %s", jsonKind(it))
			}
			out = append(out, s)
		}
		fv.Set(reflect.ValueOf(out))
	}
	return nil
}

// check applies defaults to the zero fields of a request (a pointer to a
// request struct) and checks every rule: what front ends build in Go
// (flags, LSP arguments) meets the same rules as decoded JSON.
func check(dst any) error {
	v := reflect.ValueOf(dst).Elem()
	for _, f := range Fields(v.Type()) {
		fv := v.FieldByIndex(f.Index)
		if fv.IsZero() {
			if f.Rules.Required {
				return invalid(f.Name, "required (%s)", f.Desc)
			}
			setDefault(f, fv)
			continue
		}
		switch f.Type.Kind() {
		case reflect.String:
			if err := checkString(f, f.Name, fv.String(), true); err != nil {
				return err
			}
		case reflect.Int:
			if err := checkRange(f, float64(fv.Int())); err != nil {
				return err
			}
		case reflect.Float64:
			if err := checkRange(f, fv.Float()); err != nil {
				return err
			}
		case reflect.Slice:
			if f.Rules.MaxItems > 0 && fv.Len() > f.Rules.MaxItems {
				return invalid(f.Name, "more than %d items (%d)", f.Rules.MaxItems, fv.Len())
			}
			for i := 0; i < fv.Len(); i++ {
				if err := checkString(f, fmt.Sprintf("%s[%d]", f.Name, i), fv.Index(i).String(), false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func setDefault(f Field, fv reflect.Value) {
	switch d := f.DefaultValue().(type) {
	case int:
		fv.SetInt(int64(d))
	case float64:
		fv.SetFloat(d)
	case bool:
		if f.Type.Kind() == reflect.Pointer {
			fv.Set(reflect.ValueOf(&d))
		} else {
			fv.SetBool(d)
		}
	case string:
		fv.SetString(d)
	}
}

// checkString checks a string value; whole is false for the items of a
// list (enum and length rules apply to each, required to the list).
func checkString(f Field, name, s string, whole bool) error {
	if whole && f.Rules.Required && strings.TrimSpace(s) == "" {
		return invalid(name, "must not be empty")
	}
	if !utf8.ValidString(s) {
		return invalid(name, "is not valid UTF-8")
	}
	if f.Rules.MaxLen > 0 && utf8.RuneCountInString(s) > f.Rules.MaxLen {
		return invalid(name, "longer than %d characters", f.Rules.MaxLen)
	}
	if len(f.Rules.Enum) > 0 {
		for _, e := range f.Rules.Enum {
			if s == e {
				return nil
			}
		}
		return invalid(name, "%q is not one of %s", s, strings.Join(f.Rules.Enum, ", "))
	}
	return nil
}

func checkRange(f Field, x float64) error {
	lo, hi := f.Rules.Min, f.Rules.Max
	switch {
	case lo != nil && hi != nil && (x < *lo || x > *hi):
		return invalid(f.Name, "must be between %s and %s, got %s", num(*lo), num(*hi), num(x))
	case lo != nil && x < *lo:
		return invalid(f.Name, "must be at least %s, got %s", num(*lo), num(x))
	case hi != nil && x > *hi:
		return invalid(f.Name, "must be at most %s, got %s", num(*hi), num(x))
	}
	return nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

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
